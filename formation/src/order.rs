//! The order vocabulary shared by scenario timelines, the runner and the viewer.

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use crate::pattern::{Pattern, PatternError, ValidPattern};
use crate::tactics::{OverwatchSettings, ValidPlaybook};

/// An order given to a formation. Orders can arrive at any tick, including mid-move; the
/// formation goes on from where it is.
///
/// Patterns and playbooks in an order are already validated ([`ValidPattern`],
/// [`ValidPlaybook`]): made with [`Pattern::validate`] (or [`Order::change_pattern`]), or
/// checked when the order is deserialized, where a bad one is an error of the deserializer.
/// It serializes as the plain [`Pattern`] or [`crate::tactics::Playbook`], so text written
/// by hand reads the same. [`check_order`] checks the rest.
///
/// ```
/// use cohort_formation::{Order, Pattern, PatternKind, Vec2};
///
/// let wedge = Pattern::for_radius(PatternKind::Wedge, 0.5);
/// let change = Order::change_pattern(wedge.clone()).unwrap();
/// let advance = Order::MoveTo {
///     goal: Vec2::new(40.0, 0.0),
///     facing: None,
///     pattern: Some(wedge.validate().unwrap()),
///     at_slowest: true,
/// };
/// // A bad pattern never makes an order; the error says what is wrong.
/// let bad = Pattern { spacing: -1.0, ..wedge };
/// let e = Order::change_pattern(bad).unwrap_err();
/// assert_eq!(e.to_string(), "spacing must be finite and > 0, got -1");
/// // Read from text, the pattern is checked the same way.
/// let text = "MoveTo(goal: (40.0, 0.0), pattern: Some((kind: Wedge, spacing: -1.0)))";
/// assert!(ron::from_str::<Order>(text).is_err());
/// # let _ = (change, advance);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Order {
    /// Move the formation's anchor to `goal` along a path, arriving facing `facing` (or the
    /// direction of travel), optionally changing pattern first.
    MoveTo {
        /// Where the anchor should end.
        goal: Vec2,
        /// Final facing; `None` keeps the direction of the last path leg.
        #[serde(default)]
        facing: Option<Vec2>,
        /// A new pattern for the move (validated); `None` keeps the current one.
        #[serde(default)]
        pattern: Option<ValidPattern>,
        /// `true` (the default): the formation moves as one at the pace its slowest member
        /// can keep, holding the arrangement. `false`: every member runs at its own top speed
        /// to its final slot, and the arrangement forms at the goal.
        #[serde(default = "yes")]
        at_slowest: bool,
    },
    /// Lay the formation out in another pattern (validated; members are reassigned to the new
    /// slots). [`Order::change_pattern`] makes one from a plain [`Pattern`].
    ChangePattern(ValidPattern),
    /// Turn in place to face a direction.
    Face(Vec2),
    /// Stop where the formation is; it holds position without drifting or spinning (a running
    /// play or overwatch advance stops too).
    Halt,
    /// Withdraw the orders given to this formation that have not taken effect yet (those
    /// queued since the last tick, before this one); the formation carries on with what it
    /// was doing. Unlike [`Order::Halt`], it never stops a formation that is already moving.
    Cancel,
    /// Run play `play` of `playbook`: members are assigned to the play's slots and follow its
    /// phases (fixed, keyframed and reactive slots), then the `next` play if it names one.
    /// Any other order interrupts it. The world refuses a play name the book does not have.
    RunPlay {
        /// The playbook (validated).
        playbook: ValidPlaybook,
        /// The play to start.
        play: String,
        /// Origin of the play's frame; `None`: the formation's anchor.
        #[serde(default)]
        origin: Option<Vec2>,
        /// The play's forward (`+x`) direction; `None`: the formation's facing.
        #[serde(default)]
        facing: Option<Vec2>,
    },
    /// Advance to `goal` by bounding overwatch: the formation's sub-formations (squads) take
    /// turns bounding between cover points covered from `threat` while the others hold cover
    /// facing it. A formation without sub-formations simply moves to the goal. Any other order
    /// interrupts it.
    BoundingOverwatch {
        /// Where the advance ends.
        goal: Vec2,
        /// Where the danger is.
        threat: Vec2,
        /// Tuning.
        #[serde(default)]
        settings: OverwatchSettings,
    },
    /// Form up along a line the player drew: members stand at equal spacing along the
    /// polyline `points` (further ranks behind when it is too short), the formation facing
    /// the drag direction turned a quarter left (or `facing`), each member matched to a point
    /// at minimum total travel (see [`crate::pattern::polyline_layout`]).
    FormAlong {
        /// The drawn line, first point to last (at least one point).
        points: Vec<Vec2>,
        /// Facing of the formation and every slot; `None`: the drag direction turned left.
        #[serde(default)]
        facing: Option<Vec2>,
        /// `true` (the default, as for [`Order::MoveTo`]): the formation marches there as one
        /// in the new arrangement. `false`: every member walks straight to its point at its
        /// own speed.
        #[serde(default = "yes")]
        at_slowest: bool,
    },
}

fn yes() -> bool {
    true
}

impl Order {
    /// Whether this order starts a tactic (a play or an overwatch advance) rather than
    /// interrupting one.
    pub fn is_tactical(&self) -> bool {
        matches!(
            self,
            Order::RunPlay { .. } | Order::BoundingOverwatch { .. }
        )
    }

    /// A plain move to `goal`, keeping pattern and arrangement, at the slowest member's pace
    /// (`at_slowest: true`, the default of a deserialized [`Order::MoveTo`] too).
    pub fn move_to(goal: Vec2) -> Self {
        Order::MoveTo {
            goal,
            facing: None,
            pattern: None,
            at_slowest: true,
        }
    }

    /// [`Order::ChangePattern`] to `pattern`, validated ([`Pattern::validate`]).
    pub fn change_pattern(pattern: Pattern) -> Result<Self, PatternError> {
        Ok(Order::ChangePattern(pattern.validate()?))
    }
}

/// Why [`check_order`] refused an order: the offending field of the order (`goal`, `facing`,
/// `origin`, `threat`, `points`, `play`, `settings`) and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderRefusal {
    /// The field of the order, as spelled in a scenario file.
    pub field: &'static str,
    /// What is wrong.
    pub why: String,
}

impl core::fmt::Display for OrderRefusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.field, self.why)
    }
}

/// Largest extent of a [`Order::FormAlong`] line (the side of its bounding box), metres: the
/// layout's offsets from the line's centre must stay within [`crate::pattern::MAX_EXTENT`].
pub const MAX_FORM_ALONG_SPAN: f32 = crate::pattern::MAX_EXTENT * 0.5;

/// The checks of an order that do not depend on the world's state, made by
/// [`crate::World::order`] and by scenario validation alike: every point within
/// [`cohort_steering::limits::MAX_COORD`], every direction finite and non-zero, a play the
/// playbook has, overwatch settings in range, and a drawn line of at most
/// `MAX_POLYLINE_POINTS` points spanning at most [`MAX_FORM_ALONG_SPAN`]. Patterns and
/// playbooks need no check here: an order holds only validated ones.
pub fn check_order(order: &Order) -> Result<(), OrderRefusal> {
    use cohort_steering::limits::{check_coord, check_direction};
    let refuse = |field: &'static str| {
        move |e: cohort_steering::SteeringError| OrderRefusal {
            field,
            why: e.to_string(),
        }
    };
    let facing_ok = |facing: &Option<Vec2>| match facing {
        Some(f) => check_direction("facing", *f)
            .map(|_| ())
            .map_err(refuse("facing")),
        None => Ok(()),
    };
    match order {
        Order::MoveTo { goal, facing, .. } => {
            check_coord("goal", *goal).map_err(refuse("goal"))?;
            facing_ok(facing)?;
        }
        Order::Face(f) => {
            check_direction("facing", *f).map_err(refuse("facing"))?;
        }
        Order::ChangePattern(_) | Order::Halt | Order::Cancel => {}
        Order::RunPlay {
            playbook,
            play,
            origin,
            facing,
        } => {
            playbook.index_of(play).map_err(|e| OrderRefusal {
                field: "play",
                why: e.to_string(),
            })?;
            if let Some(o) = origin {
                check_coord("origin", *o).map_err(refuse("origin"))?;
            }
            facing_ok(facing)?;
        }
        Order::BoundingOverwatch {
            goal,
            threat,
            settings,
        } => {
            check_coord("goal", *goal).map_err(refuse("goal"))?;
            check_coord("threat", *threat).map_err(refuse("threat"))?;
            settings.check().map_err(|why| OrderRefusal {
                field: "settings",
                why,
            })?;
        }
        Order::FormAlong { points, facing, .. } => {
            facing_ok(facing)?;
            let max = crate::pattern::polyline::MAX_POLYLINE_POINTS;
            if points.is_empty() || points.len() > max {
                return Err(OrderRefusal {
                    field: "points",
                    why: format!("{} points; a line has 1 to {max}", points.len()),
                });
            }
            let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
            for &p in points {
                check_coord("point", p).map_err(refuse("points"))?;
                (lo, hi) = (lo.min(p), hi.max(p));
            }
            let span = (hi - lo).max_element();
            if span > MAX_FORM_ALONG_SPAN {
                return Err(OrderRefusal {
                    field: "points",
                    why: format!("the line spans {span} m; at most {MAX_FORM_ALONG_SPAN}"),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::PatternKind;

    /// One default for `at_slowest`: a move read from text without it, [`Order::move_to`] and
    /// a drawn line read without it all march as one.
    #[test]
    fn at_slowest_defaults_to_true_everywhere() {
        let read: Order = ron::from_str("MoveTo(goal: (1.0, 2.0))").unwrap();
        assert_eq!(read, Order::move_to(Vec2::new(1.0, 2.0)));
        let Order::MoveTo { at_slowest, .. } = read else {
            panic!("{read:?}")
        };
        assert!(at_slowest);
        let line: Order = ron::from_str("FormAlong(points: [(1.0, 2.0)])").unwrap();
        let Order::FormAlong { at_slowest, .. } = line else {
            panic!("{line:?}")
        };
        assert!(at_slowest);
    }

    /// An order's pattern is written as the plain pattern and read back through validation.
    #[test]
    fn patterns_in_orders_round_trip_as_plain_patterns() {
        let column = Pattern::for_radius(PatternKind::Column, 0.5);
        let order = Order::change_pattern(column.clone()).unwrap();
        let text = ron::to_string(&order).unwrap();
        assert_eq!(
            text,
            format!("ChangePattern({})", ron::to_string(&column).unwrap())
        );
        assert_eq!(ron::from_str::<Order>(&text).unwrap(), order);
        let bad = text.replace("spacing:1.5", "spacing:0.0");
        assert_ne!(bad, text);
        let e = ron::from_str::<Order>(&bad).unwrap_err();
        assert!(
            e.to_string().contains("spacing must be finite and > 0"),
            "{e}"
        );
        assert_eq!(check_order(&order), Ok(()));
    }
}
