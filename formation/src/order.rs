//! The order vocabulary shared by scenario timelines, the runner and the viewer.

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use crate::pattern::Pattern;
use crate::tactics::{OverwatchSettings, ValidPlaybook};

/// An order given to a formation. Orders can arrive at any tick, including mid-move; the
/// formation goes on from where it is.
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
        /// A new pattern for the move; `None` keeps the current one.
        #[serde(default)]
        pattern: Option<Pattern>,
        /// `true` (the default): the formation moves as one at the pace its slowest member
        /// can keep, holding the arrangement. `false`: every member runs at its own top speed
        /// to its final slot, and the arrangement forms at the goal.
        #[serde(default = "yes")]
        at_slowest: bool,
    },
    /// Lay the formation out in another pattern (members are reassigned to the new slots).
    ChangePattern(Pattern),
    /// Turn in place to face a direction.
    Face(Vec2),
    /// Stop where the formation is; it holds position without drifting or spinning.
    Halt,
    /// Drop the current order; same as `Halt` for a moving formation.
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
        /// `false` (the default): every member walks straight to its point at its own speed.
        /// `true`: the formation marches there as one in the new arrangement.
        #[serde(default)]
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

    /// A plain move to `goal`, keeping pattern and arrangement.
    pub fn move_to(goal: Vec2) -> Self {
        Order::MoveTo {
            goal,
            facing: None,
            pattern: None,
            at_slowest: true,
        }
    }
}
