//! The authoring types of a scenario file (see `docs/scenario-format.md`): plain data read from
//! RON, checked by [`crate::scenario::Scenario::validate`].

use std::collections::BTreeMap;

use cohort_formation::formation::FormationSettings;
use cohort_formation::pattern::{Pattern, PatternKind, Role};
use cohort_formation::tactics::OverwatchSettings;
use cohort_formation::world::WorldSettings;
use cohort_pathing::Map;
use cohort_steering::Body;
use glam::Vec2;
use serde::{Deserialize, Serialize};

/// A whole scenario: a map, formations of units, a timeline of orders, a seed, a duration and
/// a time step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// A short name.
    pub name: String,
    /// What the scenario shows.
    pub description: String,
    /// Seed of the world's random generator.
    pub seed: u64,
    /// Seconds per tick (0 < dt ≤ 0.05; the world sub-steps anything longer).
    pub dt: f32,
    /// Ticks to run.
    pub duration: u64,
    /// The static world.
    pub map: Map,
    /// World-wide steering tuning.
    pub settings: WorldSettings,
    /// Unit templates by name; `"default"` is always available (a man-sized body).
    pub templates: BTreeMap<String, UnitTemplate>,
    /// The formation trees (one per top-level formation).
    pub formations: Vec<FormationNode>,
    /// Orders and events, by tick.
    pub timeline: Vec<TimedEvent>,
}

impl Default for Scenario {
    /// An empty scenario on a 100 × 100 field: seed 0, 60 ticks per second, 10 s.
    fn default() -> Self {
        Self {
            name: String::new(),
            description: String::new(),
            seed: 0,
            dt: 1.0 / 60.0,
            duration: 600,
            map: Map::default(),
            settings: WorldSettings::default(),
            templates: BTreeMap::new(),
            formations: Vec::new(),
            timeline: Vec::new(),
        }
    }
}

/// The body parameters of a kind of unit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UnitTemplate {
    /// Bounding radius (> 0).
    pub radius: f32,
    /// Mass (> 0).
    pub mass: f32,
    /// Top speed (> 0).
    pub max_speed: f32,
    /// Largest steering force (> 0).
    pub max_force: f32,
    /// Largest turn rate, radians per second (> 0).
    pub max_turn_rate: f32,
    /// Vertical take-off speed of the unit's jump (≥ 0; 0, the default, means the unit cannot
    /// jump, so paths never use jump links or gaps for it).
    pub jump_speed: f32,
}

impl Default for UnitTemplate {
    /// The default [`Body`]'s limits: radius 0.5, mass 1, speed 3, force 6, turn rate 2π.
    fn default() -> Self {
        let b = Body::default();
        Self {
            radius: b.radius,
            mass: b.mass,
            max_speed: b.max_speed,
            max_force: b.max_force,
            max_turn_rate: b.max_turn_rate,
            jump_speed: 0.0,
        }
    }
}

impl UnitTemplate {
    /// A body with these limits at `position` facing `heading`, at rest.
    pub fn body(&self, position: Vec2, heading: Vec2) -> Body {
        Body {
            position,
            radius: self.radius,
            mass: self.mass,
            max_speed: self.max_speed,
            max_force: self.max_force,
            max_turn_rate: self.max_turn_rate,
            ..Body::default()
        }
        .facing(heading)
    }
}

/// Where a formation's pattern comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PatternRef {
    /// A built-in kind, spaced for the formation's members (3 unit radii between units; for
    /// sub-formations, the largest child's extent plus one unit diameter).
    Kind(PatternKind),
    /// A pattern file by name: `patterns/NAME.ron`, looked up beside the scenario file and in
    /// `../patterns/` from it.
    File(String),
    /// A pattern written out in the scenario.
    Inline(Pattern),
}

impl Default for PatternRef {
    fn default() -> Self {
        Self::Kind(PatternKind::Line)
    }
}

/// One formation of the tree: its pattern, its own units and its sub-formations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FormationNode {
    /// Name, unique among its siblings, without `/` (timeline paths join names with `/`).
    pub name: String,
    /// The pattern.
    pub pattern: PatternRef,
    /// Spacing override for a [`PatternRef::Kind`] pattern (world units between slot centres).
    pub spacing: Option<f32>,
    /// The role this formation asks for in its parent's pattern.
    pub role: Role,
    /// Tuning.
    pub settings: FormationSettings,
    /// Start position of the anchor: required for a top-level formation; a sub-formation
    /// starts in its slot of the parent unless given.
    pub position: Option<Vec2>,
    /// Start facing (default: the parent's, or +x).
    pub facing: Option<Vec2>,
    /// Number of units that are direct members.
    pub units: u32,
    /// Template of those units.
    pub template: String,
    /// Sub-formations (each occupies one slot of this formation, before the units).
    pub children: Vec<FormationNode>,
}

impl Default for FormationNode {
    fn default() -> Self {
        Self {
            name: String::new(),
            pattern: PatternRef::default(),
            spacing: None,
            role: Role::Any,
            settings: FormationSettings::default(),
            position: None,
            facing: None,
            units: 0,
            template: String::from("default"),
            children: Vec::new(),
        }
    }
}

/// Something that happens at a tick: an order to a formation, or units killed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimedEvent {
    /// The tick (0 = before the first step).
    pub tick: u64,
    /// The formation, by path (`"platoon/alpha/team1"`) or by a name unique in the scenario.
    pub formation: String,
    /// An order for the formation.
    pub order: Option<OrderSpec>,
    /// Units to kill: indices into the formation's units in spawn order (its own units after
    /// those of its sub-formations, depth first).
    pub kill: Vec<usize>,
}

/// An order as written in a scenario: the formation crate's `Order`, with patterns by
/// reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OrderSpec {
    /// Move the anchor to `goal`.
    MoveTo {
        /// Where the anchor should end.
        goal: Vec2,
        /// Final facing (default: the direction of the last path leg).
        #[serde(default)]
        facing: Option<Vec2>,
        /// A new pattern for the move.
        #[serde(default)]
        pattern: Option<PatternRef>,
        /// Move as one at the slowest member's pace (default `true`).
        #[serde(default = "yes")]
        at_slowest: bool,
    },
    /// Lay the formation out in another pattern.
    ChangePattern(PatternRef),
    /// Turn in place.
    Face(Vec2),
    /// Stop and hold.
    Halt,
    /// Withdraw the formation's orders given earlier in the same tick (they have not taken
    /// effect yet); the formation carries on with what it was doing.
    Cancel,
    /// Run play `play` of a playbook file (the formation crate's `Order::RunPlay`).
    RunPlay {
        /// The playbook file, relative to the scenario file's directory
        /// (`"../playbooks/corner_kick.ron"`).
        playbook: String,
        /// The play to start.
        play: String,
        /// Origin of the play's frame (default: the formation's anchor).
        #[serde(default)]
        origin: Option<Vec2>,
        /// The play's forward direction (default: the formation's facing).
        #[serde(default)]
        facing: Option<Vec2>,
    },
    /// Advance to `goal` by bounding overwatch of the formation's sub-formations, taking cover
    /// from `threat` (the formation crate's `Order::BoundingOverwatch`).
    BoundingOverwatch {
        /// Where the advance ends.
        goal: Vec2,
        /// Where the danger is.
        threat: Vec2,
        /// Tuning (bound length, cover radius, ...).
        #[serde(default)]
        settings: OverwatchSettings,
    },
    /// Lay the formation out along a drawn polyline (the formation crate's
    /// `Order::FormAlong`): further ranks behind when the line is too short, members matched
    /// to the points at minimum total travel.
    FormAlong {
        /// The drawn line, first point to last (at least one point).
        points: Vec<Vec2>,
        /// Facing of the formation and every slot (default: the drag direction, first point
        /// to last, turned a quarter left).
        #[serde(default)]
        facing: Option<Vec2>,
        /// `true` (the default, as for `MoveTo`): the formation marches there as one;
        /// `false`: every member walks straight to its point at its own speed.
        #[serde(default = "yes")]
        at_slowest: bool,
    },
}

fn yes() -> bool {
    true
}
