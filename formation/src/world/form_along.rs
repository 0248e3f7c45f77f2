//! The drawn-line order ([`Order::FormAlong`]): a polyline layout becomes an authored pattern
//! and a move to the line's centre facing the drag direction's normal.

use cohort_steering::Vec2;

use super::World;
use crate::error::WorldError;
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::{Pattern, PatternKind, polyline_layout};

impl World {
    /// The move that lays formation `id` out along `points`: a custom pattern of the polyline
    /// slots (offsets relative to the line's centre and facing) and a `MoveTo` the line's
    /// centre facing that way. Member-to-point matching is the ordinary slot assignment: with
    /// `at_slowest == false` the anchor is placed on the line at once, so members are matched
    /// to the points themselves at minimum total travel.
    pub(super) fn form_along_move(
        &self,
        id: FormationId,
        points: &[Vec2],
        facing: Option<Vec2>,
        at_slowest: bool,
    ) -> Result<Order, WorldError> {
        let f = self
            .formations
            .get(id)
            .ok_or(WorldError::NoSuchFormation(id))?;
        let base = f.base_pattern.pattern();
        let mut slots = Vec::new();
        let n = f.members.len().max(1);
        let frame = polyline_layout(points, n, base.spacing, facing, &mut slots).map_err(|e| {
            WorldError::Invalid {
                what: "form-along order",
                why: e.to_string(),
            }
        })?;
        let pattern = Pattern {
            kind: PatternKind::Custom(slots),
            spacing: base.spacing,
            unit_radius: base.unit_radius,
        };
        let pattern = pattern.validate().map_err(|e| WorldError::Invalid {
            what: "form-along order",
            why: e.to_string(),
        })?;
        Ok(Order::MoveTo {
            goal: frame.centre,
            facing: Some(frame.facing),
            pattern: Some(pattern),
            at_slowest,
        })
    }
}
