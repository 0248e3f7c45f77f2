//! The [`World`]: units, formations, map and navigation graph, advanced by [`World::step`]
//! (or planned by [`World::plan`] for a game that moves the units itself).
//!
//! A tick runs eight stages in order, listed in `world/step.rs`: orders, tactics, formations,
//! tactical slots, gather, steering, constraints, flight ([`Stage`]; each is timed into
//! [`World::timings`]). `docs/architecture.md` ("The tick") describes what each does. The
//! unit stages pass a frame of the units on the ground from one to the next; per-tick
//! buffers are reused, so a warm world steps without allocating.

mod anchor_motion;
mod api;
mod assign;
mod avoidance;
mod constraints;
mod detours;
mod form_along;
mod formation_nav;
mod formation_order;
mod formations;
mod free_order;
mod free_zone;
mod gather;
mod goal_claims;
mod jumps;
mod lane_edge;
mod make_way;
mod narrows;
mod overwatch;
mod par;
mod passages;
pub(crate) mod ranks_along;
mod scratch;
mod separation;
mod single_walk;
mod slanted_gaps;
mod slot_versions;
mod stable_hash;
mod stand_ins;
mod state;
mod state_hash;
mod step;
mod tactics;
mod tally;
mod terrain;
mod timings;
mod unit_store;
mod units;
mod validate;
mod walk;
mod word_hash;

use cohort_steering::{Body, SimRng, locomotion::HeadingSmoother};
use serde::{Deserialize, Serialize};
use slotmap::SlotMap;

use crate::formation::{Formation, Member, SlotTarget};
use crate::ids::{FormationId, UnitId};
use crate::order::Order;
use crate::pattern::Role;

pub use api::MAX_PENETRATION_ITERATIONS;
pub use api::UnitOptions;
pub use avoidance::{AvoidanceReport, AvoidanceSettings, Binding};
pub use jumps::{DEFAULT_GRAVITY, Flight, PlannedJump};
use scratch::Scratch;
// The formation stage asks which orders a member formation takes.
use api::membership;
pub use stable_hash::StableHasher;
pub use state::{BINARY_MAGIC, STATE_FORMAT_VERSION, SnapshotFormat};
use terrain::Terrain;
pub use timings::{STAGE_COUNT, Stage, StepTimings};
pub use unit_store::UnitRef;
pub use validate::MAX_FORMATION_DEPTH;

/// Whether the crate was built with its `parallel` feature: the tick's per-unit and
/// per-formation stages then run on rayon's current thread pool (the pool a call runs in, see
/// `rayon::ThreadPool::install`), with results bit-identical to one thread.
pub const PARALLEL: bool = cfg!(feature = "parallel");

/// Most units a world accepts (a guard against absurd inputs exhausting memory).
pub const MAX_UNITS: usize = 1 << 20;

/// Largest step the world integrates at once; longer `dt`s are split into sub-steps of at
/// most this length (up to [`MAX_SUBSTEPS`]).
pub const MAX_STEP: f32 = 1.0 / 20.0;

/// Most sub-steps one `step` call takes; time beyond `MAX_STEP * MAX_SUBSTEPS` is dropped.
pub const MAX_SUBSTEPS: u32 = 8;

/// A unit, whole: a body, the formation it belongs to and where its slot is. The world stores
/// its parts apart (see `world/unit_store.rs`); [`World::unit`] reads them as a [`UnitRef`],
/// [`World::remove_unit`] hands the whole record back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    /// The body steering moves.
    pub body: Body,
    /// Where the unit's slot is this tick.
    pub slot_target: Option<SlotTarget>,
    /// Heading smoothing (the anti-judder fix).
    pub smoother: HeadingSmoother,
    /// A path around an obstacle to the slot, when the straight line is blocked.
    pub detour: Vec<cohort_steering::Vec2>,
    /// The unit's flight while it is in the air (it neither steers nor collides then).
    #[serde(default)]
    pub flight: Option<Flight>,
    /// The leaf formation the unit is a member of; `None` for a free unit.
    pub formation: Option<FormationId>,
    /// The role the unit asks for in its formation's pattern.
    pub role: Role,
    /// Vertical take-off speed of the unit's jump (0: the unit cannot jump). Its run speed is
    /// the body's top speed; gravity is the world's ([`WorldSettings::gravity`]).
    #[serde(default)]
    pub jump_speed: f32,
    /// Tick at which the detour was planned.
    pub detour_tick: u64,
    /// The jump or leap on the unit's detour, taken when it reaches the take-off point.
    #[serde(default)]
    pub next_jump: Option<PlannedJump>,
    /// A number of the user's, carried with the unit and never read by the simulation (the
    /// game's entity id, say); set by [`World::add_unit_with`] or [`World::set_unit_tag`].
    #[serde(default)]
    pub tag: u64,
}

/// World-wide tuning of unit steering (plain data, defaults that work).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorldSettings {
    /// Time constant (seconds) of the arrive behaviour that takes units to their slots.
    pub arrive_time: f32,
    /// Distance within which arrive starts slowing down.
    pub slowing_radius: f32,
    /// Weight of separation.
    pub separation_weight: f32,
    /// Separation acts within this many radii (sum of both bodies' radii times this). Two
    /// members of one top-level formation of units closed up into ranks two or more abreast
    /// for a passage walked one way (not to pass an oncoming formation) keep closer company:
    /// at most 1.15 times their radii (their ranks stand 2.1 radii apart; see
    /// `world/separation.rs`).
    pub separation_range: f32,
    /// Weight of obstacle avoidance.
    pub obstacle_weight: f32,
    /// Weight of wall avoidance.
    pub wall_weight: f32,
    /// Non-penetration iterations per tick.
    pub penetration_iterations: u32,
    /// Cell size of the neighbour grid (0 = the farthest two units interact, with a
    /// thousandth to spare: the larger of separation's comfort distance, twice the largest
    /// radius times `separation_range`, and the penetration solver's pair distance at the
    /// longest step, twice the largest radius plus `0.3 r_max + 2 v_max MAX_STEP`). A set
    /// size smaller than that makes the separation pass query around every unit instead of
    /// sweeping neighbouring cells (slower, same pairs).
    pub grid_cell: f32,
    /// Replace the grid with brute-force neighbour search (for measuring the grid's speed-up).
    pub brute_force_neighbours: bool,
    /// A unit farther than this from its slot with the straight line blocked plans a path.
    pub detour_distance: f32,
    /// Downward acceleration of jumps, m/s².
    pub gravity: f32,
    /// Circles of at most this radius are small obstacles: formation anchors plan their paths
    /// as if they were not there (members steer round them). 0 makes anchors avoid everything.
    pub small_obstacle_radius: f32,
    /// Reciprocal avoidance between units (see [`AvoidanceSettings`]).
    pub avoidance: AvoidanceSettings,
    /// Whether a top-level formation ordered onto ground another stands on or is bound for
    /// stands beside it instead (its goal moves to the nearest free place; see
    /// `docs/traffic.md`, "Shared goals"). Off: every formation goes where it is ordered,
    /// and formations ordered to one spot share its ground.
    pub spread_goals: bool,
    /// Metres a formation whose goal was moved keeps between the ground it stands on and
    /// any other formation's.
    pub goal_gap: f32,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            arrive_time: 0.5,
            slowing_radius: 2.0,
            separation_weight: 4.0,
            separation_range: 1.4,
            obstacle_weight: 3.0,
            wall_weight: 4.0,
            penetration_iterations: 4,
            grid_cell: 0.0,
            brute_force_neighbours: false,
            detour_distance: 3.0,
            gravity: DEFAULT_GRAVITY,
            small_obstacle_radius: 1.0,
            avoidance: AvoidanceSettings::default(),
            spread_goals: true,
            goal_gap: 1.5,
        }
    }
}

impl WorldSettings {
    /// Every tuning number by field name; each must be finite and not negative (checked by
    /// `World::new`, snapshots and the scenario validator alike).
    pub fn tuning(&self) -> [(&'static str, f32); 16] {
        let [a, b, c, d, e] = self.avoidance.tuning();
        [
            ("arrive_time", self.arrive_time),
            ("slowing_radius", self.slowing_radius),
            ("separation_weight", self.separation_weight),
            ("separation_range", self.separation_range),
            ("obstacle_weight", self.obstacle_weight),
            ("wall_weight", self.wall_weight),
            ("grid_cell", self.grid_cell),
            ("detour_distance", self.detour_distance),
            ("gravity", self.gravity),
            ("small_obstacle_radius", self.small_obstacle_radius),
            ("goal_gap", self.goal_gap),
            a,
            b,
            c,
            d,
            e,
        ]
    }
}

/// Everything a simulation owns. See the [module docs](self) for the tick.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct World {
    units: unit_store::UnitStore,
    formations: SlotMap<FormationId, Formation>,
    terrain: Terrain,
    rng: SimRng,
    tick: u64,
    settings: WorldSettings,
    pending: Vec<(FormationId, Order)>,
    /// The order in which unit slots were freed (so a restored world reuses them alike).
    #[serde(default)]
    unit_free: free_order::FreeOrder,
    /// The order in which formation slots were freed.
    #[serde(default)]
    formation_free: free_order::FreeOrder,
    /// Running plays and overwatch advances, by formation (the tactics layer's state).
    #[serde(default)]
    tactics: Vec<(FormationId, crate::tactics::Tactic)>,
    #[serde(skip)]
    jump_events: Vec<(UnitId, cohort_pathing::JumpEvent)>,
    #[serde(skip)]
    formation_nav: formation_nav::FormationNav,
    #[serde(skip)]
    scratch: Scratch,
    /// The units on the ground as the last tick left them (see `world/step.rs`).
    #[serde(skip)]
    frame: gather::UnitFrame,
    #[serde(skip)]
    timings: StepTimings,
}

pub(crate) fn member_position(
    units: &unit_store::UnitStore,
    formations: &SlotMap<FormationId, Formation>,
    m: Member,
) -> Option<(cohort_steering::Vec2, cohort_steering::Vec2)> {
    match m {
        Member::Unit(u) => units.get(u).map(|u| (u.body.position, u.body.velocity)),
        Member::Formation(f) => formations
            .get(f)
            .map(|f| (f.anchor.position, f.anchor.velocity)),
    }
}
