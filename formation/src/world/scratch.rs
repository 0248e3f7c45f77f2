//! Per-tick buffers, reused every tick and never serialized.

use cohort_steering::grid::CellGrid;
use cohort_steering::penetration::PenetrationSolver;
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};

use crate::assignment::SlotAssignment;
use crate::ids::{FormationId, UnitId};

/// Scratch space of a [`super::World`]: the dense per-unit arrays of the steering stage, the
/// neighbour grid, the penetration solver and small buffers of the formation stage. Rebuilt
/// (grown) as needed, never shrunk, so a warm world steps without allocating.
#[derive(Default)]
pub struct Scratch {
    /// Per steered unit: its key. Overwritten in place by each gather, so the key an entry
    /// held last tick says whose free zone (`zones`) the entry holds.
    pub(crate) ids: Vec<UnitId>,
    pub(crate) bodies: Vec<Body>,
    /// Per steered unit: its position before this tick's move.
    pub(crate) previous: Vec<Vec2>,
    /// Per steered unit: its separation sum (see `world/separation.rs`).
    pub(crate) separation: Vec<Vec2>,
    /// The separation sweep's radii and sums in the neighbour search's order.
    pub(crate) sweep_buffers: super::separation::SweepBuffers,
    pub(crate) positions: Vec<Vec2>,
    pub(crate) radii: Vec<f32>,
    /// Per steered unit: where arrive takes it (first detour point, else the slot, else where
    /// it stands) and at what velocity.
    pub(crate) goals: Vec<(Vec2, Vec2)>,
    /// Per steered unit: its avoidance group (see `world/avoidance.rs`).
    pub(crate) groups: Vec<u32>,
    /// Per top-level formation (by its place among the roots): whether it opens a lane
    /// through the others this tick (see `world/make_way.rs`).
    pub(crate) group_opens_lane: Vec<bool>,
    /// Per top-level formation: whether another one is near enough for its units to avoid.
    pub(crate) group_in_traffic: Vec<bool>,
    /// Per steered unit: its velocity at the start of the tick (what avoidance reads of it).
    pub(crate) velocities: Vec<Vec2>,
    /// The single-thread avoidance's buffers.
    pub(crate) avoidance: super::avoidance::AvoidanceBuffers,
    /// A unit whose avoidance is recorded each tick, and its record.
    pub(crate) watched: Option<(UnitId, super::avoidance::AvoidanceReport)>,
    /// Per steered unit: a ball known to hold no static geometry, kept between ticks while
    /// the unit keeps its place in these arrays; steering and stage 5 skip their geometry
    /// queries inside it.
    pub(crate) zones: Vec<super::units::FreeZone>,
    pub(crate) grid: Option<CellGrid>,
    pub(crate) solver: Option<PenetrationSolver>,
    /// Per steered unit: whether the map's geometry pushed it back this tick (stage 5).
    pub(crate) held: Vec<bool>,
    /// Units in the air when stage 3 gathered the others (stage 6 has nothing to do at 0).
    pub(crate) airborne: usize,
    /// Largest radius and top speed over all units, those in the air included (gathered in
    /// stage 3; they size the neighbour grid).
    pub(crate) unit_limits: (f32, f32),
    pub(crate) near_obstacles: Vec<CircleObstacle>,
    pub(crate) near_walls: Vec<Wall>,
    /// The parallel steering stage's geometry buffers, one pair per chunk of units, kept
    /// between ticks so that a warm stage allocates nothing.
    #[cfg(feature = "parallel")]
    pub(crate) chunk_geometry: Vec<(
        Vec<CircleObstacle>,
        Vec<Wall>,
        super::avoidance::AvoidanceBuffers,
    )>,
    /// Every formation, top-down (see `World::collect_formation_order`); kept between
    /// ticks while `order_valid`.
    pub(crate) order: Vec<FormationId>,
    /// Whether `order` and `roots` still describe the formation tree: cleared by every
    /// change of the tree (a formation created, removed, joining or leaving a parent) and by
    /// a fresh scratch (a clone or a restored snapshot). A re-assignment that only reorders
    /// sub-formations marks its subtree in `stale_subtrees` instead.
    pub(crate) order_valid: bool,
    /// Top-level formations (indices into `roots`) in whose subtree sub-formations were
    /// reordered this tick: their runs of `order` are walked again, in place, next tick.
    pub(crate) stale_subtrees: Vec<u32>,
    /// Walks of the whole tree so far (the tests tell a local walk from a full one by it).
    #[cfg(test)]
    pub(crate) full_walks: usize,
    pub(crate) stack: Vec<FormationId>,
    /// The top-level formations in key order, each with the run of `order` its subtree fills.
    pub(crate) roots: Vec<(FormationId, u32, u32)>,
    /// Per formation in `order`: its members' centre, velocity and lag this tick, and the
    /// circle its units' slot targets lie in.
    pub(crate) tallies: Vec<super::formations::MemberTally>,
    /// The top-level formations by position, for make way and passing.
    pub(crate) roots_index: super::make_way::RootIndex,
    pub(crate) path: cohort_pathing::SearchScratch,
    /// Singles whose paths were planned again this tick (see `single_walk.rs`).
    pub(crate) single_replans: u32,
    pub(crate) assignment: Option<SlotAssignment>,
    pub(crate) located_members: Vec<crate::assignment::Located>,
    pub(crate) located_slots: Vec<crate::assignment::Located>,
    pub(crate) current: crate::assignment::Assignment,
    pub(crate) reordered: Vec<Option<crate::formation::Member>>,
    pub(crate) slots: Vec<crate::pattern::Slot>,
    pub(crate) targets: Vec<(crate::formation::Member, crate::formation::SlotTarget)>,
    /// Units that reached a take-off point this tick, with their index in the dense arrays
    /// (see `world/gather.rs` and `world/jumps.rs`).
    pub(crate) launches: Vec<(UnitId, usize)>,
    /// The path a detour is planned into (see `world/detours.rs`).
    pub(crate) detour_path: cohort_pathing::Path,
    /// The plan a detour is made from.
    pub(crate) detour_plan: super::terrain::PathPlan,
    /// Buffers of the overwatch stage's cover updates (see `world/overwatch.rs`).
    pub(crate) overwatch: super::overwatch::OverwatchScratch,
}

impl Clone for Scratch {
    /// Scratch is not state: a clone starts empty.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch")
            .field("units", &self.ids.len())
            .finish_non_exhaustive()
    }
}
