//! One top-level formation as make way sees it: a dense copy of what its comparisons with
//! other formations read.

use cohort_steering::Vec2;

use super::super::Lane;
use super::headings::NO_HEADING;
use super::{PASSAGE_LOOK, PASSAGE_MARGIN};
use crate::formation::{Formation, Motion};
use crate::ids::FormationId;

/// A top-level formation as make way sees it (copied once per use, so the comparisons between
/// formations read a dense array instead of the formations' slot map).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootEntry {
    pub(in crate::world::make_way) id: FormationId,
    /// The run of `scratch.order` its subtree fills.
    pub(in crate::world::make_way) span: (u32, u32),
    pub(in crate::world::make_way) position: Vec2,
    pub(in crate::world::make_way) velocity: Vec2,
    pub(in crate::world::make_way) half_extent: Vec2,
    /// The length of `half_extent`: the radius of the circle round its anchor that holds
    /// its slots (read by every test between two roots' circles).
    pub(in crate::world::make_way) circle_radius: f32,
    /// How far its farthest unit member stood from the anchor (`Formation::spread`).
    pub(in crate::world::make_way) spread: f32,
    pub(in crate::world::make_way) moving: bool,
    /// Whether it is one unit moved on its own (see [`Formation::is_single`]).
    pub(in crate::world::make_way) single: bool,
    /// Whether it is a small group, which neither queues nor takes turns
    /// ([`super::super::following::is_small_group`]).
    pub(in crate::world::make_way) small_group: bool,
    /// The lane it opens, if it moves ([`Lane::new`]).
    pub(in crate::world::make_way) lane: Option<Lane>,
    /// The lane a group of a few units creeping behind its own members opens through
    /// standing formations only ([`Lane::creeping`]); its units avoid everyone as before.
    /// Or, for such a group on the move, the lane back to its members left behind, also
    /// through standing formations only ([`Lane::back_to_members`]), opened after `lane`.
    pub(in crate::world::make_way) creep: Option<Lane>,
    /// The gap it keeps behind a formation ahead of it (`FormationSettings::follow_gap`).
    pub(in crate::world::make_way) follow_gap: f32,
    /// Where its anchor faces (the heading of a mover too slow to have a lane).
    pub(in crate::world::make_way) facing: Vec2,
    /// Its slowest member's top speed (above any speed its anchor cruises at).
    pub(in crate::world::make_way) top_speed: f32,
    /// Whether it was queueing behind another formation last tick.
    pub(in crate::world::make_way) queued: bool,
    /// Where the passage it is bound for lies (the middle of the first narrow stretch of its
    /// path within [`PASSAGE_LOOK`] ahead), if any; `None` for a small group or a formation
    /// not moving, which neither queues nor takes turns.
    pub(in crate::world::make_way) passage: Option<Vec2>,
    /// The way its path runs through that passage (a unit vector; zero without one).
    pub(in crate::world::make_way) passage_way: Vec2,
    /// Half the length of that passage along its path (0 without one).
    pub(in crate::world::make_way) passage_half_length: f32,
    /// Its place in the roots it was read from.
    pub(super) root: u32,
    /// Its heading's wedge, [`ANY_HEADING`] or [`NO_HEADING`] (set by
    /// [`RootIndex::index_headings`]).
    pub(super) heading: u8,
}

impl RootEntry {
    /// Its place in the roots it was read from.
    pub(in crate::world::make_way) fn root(&self) -> u32 {
        self.root
    }

    /// Its top speed, 0 when not finite or negative.
    pub(in crate::world::make_way) fn top_speed_or_zero(&self) -> f32 {
        if self.top_speed.is_finite() {
            self.top_speed.max(0.0)
        } else {
            0.0
        }
    }

    /// Whether this formation and `b` are bound for one passage and go through it the same
    /// way (squads converging on a gap from either side of its mouth, not two formations
    /// meeting in a corridor).
    pub(in crate::world::make_way) fn through_one_passage_alike(&self, b: &RootEntry) -> bool {
        self.bound_for_one_passage(b) && self.passage_way.dot(b.passage_way) > 0.0
    }

    /// Whether this formation and `b` are bound for one passage: the middles of the passages
    /// their paths lead to lie within both half-widths and [`PASSAGE_MARGIN`] of each other.
    /// Formations bound for one passage take turns at it by right of way, however shallow the
    /// angle their tracks meet at (`right_of_way.rs`).
    pub(in crate::world::make_way) fn bound_for_one_passage(&self, b: &RootEntry) -> bool {
        match (self.passage, b.passage) {
            (Some(p), Some(q)) => {
                (p - q).length()
                    <= self.half_extent.y.abs() + b.half_extent.y.abs() + PASSAGE_MARGIN
            }
            _ => false,
        }
    }

    pub(super) fn of(f: &Formation, id: FormationId, root: u32, span: (u32, u32)) -> Self {
        let (position, velocity) = (f.anchor.position, f.anchor.velocity);
        let moving = f.motion == Motion::Moving;
        let small_group = super::super::following::is_small_group(f);
        // Read only for formations that queue or take turns (moving, not small groups): the
        // others are spared the look along their paths.
        let passage = (moving && !small_group)
            .then(|| crate::world::narrows::passage_ahead(f, PASSAGE_LOOK))
            .flatten();
        let lane = Lane::new(position, velocity, f.half_extent, moving).map(|mut lane| {
            // Narrowing to pass an oncoming formation: it passes in the width it is closing
            // up to (the ranks take a few seconds to form).
            if let Some((_, w)) = f.narrow_pass {
                lane.half_width = lane.half_width.min(0.5 * w);
            }
            lane
        });
        let creep = (small_group && !f.is_single())
            .then(|| match lane {
                Some(lane) => lane.back_to_members(f.half_extent, f.spread),
                None => Lane::creeping(position, velocity, f.half_extent, moving, f.mean_lag),
            })
            .flatten();
        Self {
            id,
            span,
            position,
            velocity,
            half_extent: f.half_extent,
            circle_radius: f.half_extent.length(),
            spread: f.spread,
            moving,
            single: f.is_single(),
            small_group,
            lane,
            creep,
            follow_gap: f.settings.follow_gap,
            facing: f.anchor.orientation,
            top_speed: f.slowest_speed,
            queued: f.follow_speed.is_some(),
            passage: passage.map(|(at, _, _)| at),
            passage_way: passage.map_or(Vec2::ZERO, |(_, way, _)| way),
            passage_half_length: passage.map_or(0.0, |(_, _, h)| h),
            root,
            heading: NO_HEADING,
        }
    }
}
