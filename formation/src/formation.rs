//! A formation: a pattern, its members, its anchor and where it is going.

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

use crate::anchor::{AnchorMode, AnchorPoint};
use crate::ids::{FormationId, UnitId};
use crate::pattern::{Pattern, Role, Slot, ValidPattern};

/// A member of a formation: a unit, or a whole sub-formation occupying one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Member {
    /// A single unit.
    Unit(UnitId),
    /// A child formation; its anchor steers to the slot.
    Formation(FormationId),
}

/// Where a member should be this tick: a slot's world position, its velocity (the anchor's)
/// and facing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotTarget {
    /// World position of the slot.
    pub position: Vec2,
    /// Velocity of the slot (fed forward so members keep pace without lagging).
    pub velocity: Vec2,
    /// Unit facing of the slot.
    pub facing: Vec2,
}

/// Tunable behaviour of one formation (plain data, with defaults that work).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FormationSettings {
    /// How the anchor is driven.
    pub anchor_mode: AnchorMode,
    /// Look-ahead `k_offset` of `p_anchor = p_c + k_offset · v_c`, in seconds.
    pub k_offset: f32,
    /// Formation cruise speed as a fraction of its slowest member's top speed (members need
    /// headroom to catch up with their slots).
    pub speed_fraction: f32,
    /// Move at a fixed half of the slowest member's speed instead of moderating by lag
    /// (Millington's option A).
    pub fixed_half_speed: bool,
    /// Mean lag (distance from members to slots) tolerated before the anchor slows down.
    pub lag_tolerance: f32,
    /// Lag beyond the tolerance at which the anchor reaches its minimum speed factor.
    pub lag_range: f32,
    /// Lowest speed factor the lag moderation applies.
    pub min_speed_factor: f32,
    /// How far the anchor may run ahead of `p_c + k_offset · v_c` before it is held back.
    pub leash: f32,
    /// Largest turn rate of the anchor, radians per second.
    pub turn_rate: f32,
    /// The anchor is at its goal within this distance.
    pub arrival_radius: f32,
    /// Switch to a column where the path is narrower than the pattern.
    pub column_in_narrows: bool,
    /// Gap (metres) a moving top-level formation keeps behind another one ahead of it in its
    /// lane going its way: it slows to that one's speed rather than pressing into it (where
    /// headings merge, the one whose front is further from the meeting point waits, so two
    /// streams merge in turn). 1 m by default; 0 turns queueing off. Single units and flat
    /// formations of fewer than 8 units neither queue nor are queued behind (nor take turns
    /// by right of way): they slip past others by avoidance (in a dense crowd of small groups,
    /// queues and turns chain into a standstill).
    ///
    /// It keeps formations out of each other's ranks (`tests/formation_queueing.rs`,
    /// `tests/formation_zipper.rs`). Without it, rows of platoons meeting at the end of a
    /// wall press into each other and jam: the standard army of 10,000 units leaves about
    /// half its platoons short of their goals for good. With it every platoon arrives, and
    /// tracks meeting at a shallow angle merge by queueing instead of taking turns by right
    /// of way (unless both are bound for one passage). Squads bound for one narrow gap pass
    /// it one at a time, calmly but slower than a crowd pressing in (see
    /// `docs/traffic.md`).
    pub follow_gap: f32,
}

impl Default for FormationSettings {
    fn default() -> Self {
        Self {
            anchor_mode: AnchorMode::PseudoCharacter,
            k_offset: 0.5,
            speed_fraction: 0.75,
            fixed_half_speed: false,
            lag_tolerance: 1.0,
            lag_range: 3.0,
            min_speed_factor: 0.15,
            leash: 2.0,
            turn_rate: 1.2,
            arrival_radius: 0.25,
            column_in_narrows: true,
            follow_gap: 1.0,
        }
    }
}

impl FormationSettings {
    /// Every tuning number by field name; each must be finite and not negative (checked by
    /// `World::add_formation`, snapshots and the scenario validator alike).
    pub fn tuning(&self) -> [(&'static str, f32); 9] {
        [
            ("k_offset", self.k_offset),
            ("speed_fraction", self.speed_fraction),
            ("lag_tolerance", self.lag_tolerance),
            ("lag_range", self.lag_range),
            ("min_speed_factor", self.min_speed_factor),
            ("leash", self.leash),
            ("turn_rate", self.turn_rate),
            ("arrival_radius", self.arrival_radius),
            ("follow_gap", self.follow_gap),
        ]
    }
}

/// What a formation is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Motion {
    /// Holding position (drift-corrected anchor).
    #[default]
    Holding,
    /// Following its path.
    Moving,
    /// Turning in place to a new facing.
    Turning,
    /// Members run to their final slots at their own speed (a move with `at_slowest: false`).
    Loose,
}

/// The authoring description of a formation, used to create one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FormationSpec {
    /// A name for people (`"1st squad"`).
    pub name: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The role this formation asks for in its parent's pattern.
    pub role: Role,
    /// Tuning.
    pub settings: FormationSettings,
}

impl Default for FormationSpec {
    fn default() -> Self {
        Self {
            name: String::from("formation"),
            pattern: Pattern::default(),
            role: Role::Any,
            settings: FormationSettings::default(),
        }
    }
}

/// The last move a top-level formation was ordered, as the order gave it, and the ground it
/// was placed on (see `world/goal_claims.rs`): the same order given again leaves it on that
/// ground, however the crowd round the goal was laid out.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct OrderedMove {
    /// The goal the order gave.
    pub(crate) goal: Vec2,
    /// The facing the order gave (`None` for none).
    pub(crate) facing: Option<Vec2>,
    /// The centre of the ground it was placed on.
    pub(crate) placed: Vec2,
    /// The facing it was given there (`None` for none).
    pub(crate) placed_facing: Option<Vec2>,
}

/// A formation's watch on the one it gives way to (see `world/make_way/patience.rs`): whom,
/// where that one's anchor stood when the watch began, and for how many seconds it has stood
/// near there while no rule of the road held it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct WaitWatch {
    /// The formation given way to.
    pub(crate) to: FormationId,
    /// Where its anchor stood when the watch began.
    pub(crate) at: Vec2,
    /// Seconds it has stood there since.
    pub(crate) seconds: f32,
}

/// A formation in a [`crate::World`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Formation {
    /// A name for people.
    pub name: String,
    /// The formation whose slot this one occupies, if any.
    pub parent: Option<FormationId>,
    /// Members in slot order: `members[i]` occupies `slots[i]`.
    pub members: Vec<Member>,
    /// The role this formation asks for in its parent's pattern.
    pub role: Role,
    /// Tuning.
    pub settings: FormationSettings,
    /// The anchor pseudo-character.
    pub anchor: AnchorPoint,
    /// What it is doing.
    pub motion: Motion,
    /// The path the anchor follows (world points; the first is where it started).
    pub path: Vec<Vec2>,
    /// Clearance at each path point (same length as `path`).
    pub path_clearance: Vec<f32>,
    /// Arc-length stretches of the path narrower than the base pattern's half-width.
    pub narrows: Vec<(f32, f32)>,
    /// Index of the path point the anchor is heading for.
    pub path_index: usize,
    /// The goal of the current move.
    pub goal: Option<Vec2>,
    /// Facing wanted at the goal.
    pub goal_facing: Option<Vec2>,
    /// For a child formation: its slot in the parent this tick.
    pub target: Option<SlotTarget>,
    /// The current speed factor from lag moderation (1 = full cruise speed).
    pub speed_factor: f32,
    /// Mean distance of members from their slots last tick.
    pub mean_lag: f32,
    /// Whether the formation has closed up for a narrow passage (see `narrowed`).
    pub in_column: bool,
    /// Slowest top speed in the formation's subtree (updated every tick).
    pub slowest_speed: f32,
    /// Weakest acceleration (max force / mass) in the subtree (updated every tick).
    pub weakest_accel: f32,
    pub(crate) pattern: ValidPattern,
    pub(crate) base_pattern: ValidPattern,
    pub(crate) slots: Vec<Slot>,
    pub(crate) needs_assignment: bool,
    /// Half the depth (x) and half the width (y) of the laid-out formation, members' radii
    /// included (updated every tick; the lane it needs to pass through others).
    #[serde(default = "zero")]
    pub(crate) half_extent: Vec2,
    /// Sideways velocity the anchor adds to keep right of an oncoming formation (updated
    /// every tick).
    #[serde(default = "zero")]
    pub(crate) pass_velocity: Vec2,
    /// Speed the anchor keeps to while queueing behind a formation ahead (`None` when none is
    /// in the way; updated every tick).
    #[serde(default)]
    pub(crate) follow_speed: Option<f32>,
    /// The formation it gives way to where their paths meet (`None` when it has right of way;
    /// updated every tick).
    #[serde(default)]
    pub(crate) give_way: Option<FormationId>,
    /// The closed-up ranks laid out instead of `pattern` while in a narrow passage (kept
    /// apart so that `pattern`, which may hold authored slots, is never dropped and cloned
    /// again: no allocation when a formation closes up and opens out).
    #[serde(default)]
    pub(crate) narrowed: Option<ValidPattern>,
    /// The oncoming formation it is passing in a passage too narrow for both side by side,
    /// and the width it narrows to meanwhile (`None` when it is not; updated every tick).
    #[serde(default)]
    pub(crate) narrow_pass: Option<(FormationId, f32)>,
    /// Whether another formation gives way to it (see [`Self::gives_way_to`]): it then
    /// cruises at its slowest member's top speed, to clear the way sooner (updated every
    /// tick).
    #[serde(default)]
    pub(crate) hurried: bool,
    /// Metres it has fallen behind its cruise by giving way to others on this move; it makes
    /// them up at its slowest member's top speed once it has the way again (0 when it is
    /// on time; updated every tick).
    #[serde(default)]
    pub(crate) delay: f32,
    /// Seconds a standing single's unit has been held far from its spot (see
    /// `anchor_motion.rs`; 0 otherwise).
    #[serde(default)]
    pub(crate) held_away: f32,
    /// How long it has waited for the formation it gives way to while that one stood (see
    /// `world/make_way/patience.rs`; `None` while it gives way to nobody; updated every
    /// tick).
    #[serde(default)]
    pub(crate) wait_watch: Option<WaitWatch>,
    /// Whether it gives way (to `give_way`) short of a passage that formation is in, coming
    /// the other way (see `world/make_way/passage_turns.rs`; updated every tick).
    #[serde(default)]
    pub(crate) waits_at_passage: bool,
    /// How far its farthest unit member stood from the anchor, its radius included (at
    /// least; 0 for none), as tallied before the anchor last moved (updated every tick): a
    /// formation queueing right behind this one at a passage keeps behind its members left
    /// behind as well as behind its slots (`world/make_way/passage_turns.rs`).
    #[serde(default)]
    pub(crate) spread: f32,
    /// The tick before which a single does not plan its path again: its last plan made
    /// again stopped short of its goal and was refused (see `world/single_walk.rs`; 0 when
    /// it may plan any time).
    #[serde(default)]
    pub(crate) replan_after: u64,
    /// Its last move order and where it was placed (see [`OrderedMove`]; `None` when another
    /// order followed, for a sub-formation, a move that did not set it walking, or goals not
    /// spread).
    #[serde(default)]
    pub(crate) ordered_move: Option<OrderedMove>,
}

/// How far (metres) from its ordered goal a formation must have been placed for
/// [`Formation::placed_away`] to say so (a path ends a little off its goal).
const PLACED_AWAY: f32 = 0.5;

fn zero() -> Vec2 {
    Vec2::ZERO
}

impl Formation {
    pub(crate) fn new(
        name: String,
        pattern: ValidPattern,
        role: Role,
        settings: FormationSettings,
        anchor: AnchorPoint,
    ) -> Self {
        Self {
            name,
            parent: None,
            members: Vec::new(),
            role,
            settings,
            anchor,
            motion: Motion::Holding,
            path: Vec::new(),
            path_clearance: Vec::new(),
            narrows: Vec::new(),
            path_index: 0,
            goal: None,
            goal_facing: None,
            target: None,
            speed_factor: 1.0,
            mean_lag: 0.0,
            in_column: false,
            slowest_speed: 0.0,
            weakest_accel: 0.0,
            base_pattern: pattern.clone(),
            pattern,
            slots: Vec::new(),
            needs_assignment: true,
            half_extent: Vec2::ZERO,
            spread: 0.0,
            pass_velocity: Vec2::ZERO,
            follow_speed: None,
            give_way: None,
            narrowed: None,
            narrow_pass: None,
            hurried: false,
            delay: 0.0,
            held_away: 0.0,
            wait_watch: None,
            waits_at_passage: false,
            replan_after: 0,
            ordered_move: None,
        }
    }

    /// The pattern currently laid out (closed-up ranks while in a narrow passage).
    pub fn pattern(&self) -> &ValidPattern {
        self.narrowed.as_ref().unwrap_or(&self.pattern)
    }

    /// Whether the formation is one unit (and no sub-formation): a unit moved on its own.
    pub fn is_single(&self) -> bool {
        matches!(self.members.as_slice(), [Member::Unit(_)])
    }

    /// Fraction of its slowest member's top speed the anchor cruises at: the settings'
    /// `speed_fraction` (headroom for members to catch up with their slots), or all of it for
    /// a formation of one unit, which has no one to wait for (a single unit moved on its own
    /// walks at its top speed).
    pub fn cruise_fraction(&self) -> f32 {
        if self.is_single() {
            1.0
        } else {
            self.settings.speed_fraction.clamp(0.05, 1.0)
        }
    }

    /// The pattern the formation returns to after a narrow passage.
    pub fn base_pattern(&self) -> &ValidPattern {
        &self.base_pattern
    }

    /// The laid-out slots, in member order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// World position of slot `i` this tick: round the anchor, or, for ranks closed up for a
    /// passage on the move, on the path (see `world/ranks_along.rs`).
    pub fn slot_world_position(&self, i: usize) -> Option<Vec2> {
        let slot = self.slots.get(i)?;
        Some(crate::world::ranks_along::SlotFrame::of(self).position(slot.offset))
    }

    /// Whether the formation has stopped at its goal (or was never moved).
    pub fn is_holding(&self) -> bool {
        self.motion == Motion::Holding
    }

    /// The formation this one gives way to where their paths meet (it goes first, and this
    /// one stops short of the meeting until it has passed), if any.
    pub fn gives_way_to(&self) -> Option<FormationId> {
        self.give_way
    }

    /// Whether the formation gives way ([`Self::gives_way_to`]) short of a passage the other
    /// formation is in, coming the other way, until that one has come out.
    pub fn waits_at_passage(&self) -> bool {
        self.waits_at_passage
    }

    /// Whether the formation holds its speed down this tick: queueing behind a formation ahead
    /// of it, or giving way.
    pub fn is_waiting(&self) -> bool {
        self.follow_speed.is_some()
    }

    /// The goal its last move order gave and the goal it was sent to instead, more than half
    /// a metre away: beside other formations when the ground at the ordered goal was
    /// another's (goals spread), or where it can stand nearest a goal it cannot stand on
    /// (`None` when it was sent where it was ordered, its last order was no move, or goals
    /// are not spread).
    pub fn placed_away(&self) -> Option<(Vec2, Vec2)> {
        let m = self.ordered_move?;
        ((m.placed - m.goal).length() > PLACED_AWAY).then_some((m.goal, m.placed))
    }

    /// Whether the formation is sidestepping this tick to keep right of an oncoming one.
    pub fn is_keeping_right(&self) -> bool {
        self.pass_velocity != Vec2::ZERO
    }
}
