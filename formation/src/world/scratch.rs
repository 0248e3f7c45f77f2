//! Per-tick buffers, reused every tick and never serialized.

use cohort_steering::Vec2;
use cohort_steering::grid::CellGrid;
use cohort_steering::penetration::PenetrationSolver;
#[cfg(feature = "parallel")]
use cohort_steering::{CircleObstacle, Wall};

use crate::assignment::SlotAssignment;
use crate::ids::{FormationId, UnitId};

/// Scratch space of a [`super::World`]: the buffers each stage works in (the steering
/// stage's separation sums and neighbour grid, the penetration solver, the formation stage's
/// walk of the tree). What one stage hands the next travels in the tick's
/// [`super::gather::UnitFrame`], not here. Grown as needed, never shrunk, so a warm world
/// steps without allocating.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Per steered unit: its separation sum (see `world/separation.rs`).
    pub(crate) separation: Vec<Vec2>,
    /// The ground top-level formations claim, for placing move orders (see
    /// `world/goal_claims.rs`).
    pub(crate) goal_claims: super::goal_claims::GoalClaims,
    /// The formations ordered to move in the batch of orders being applied, sorted.
    pub(crate) moving_now: Vec<FormationId>,
    /// Per formation of `moving_now`: whether its last move of the batch was looked at.
    pub(crate) moving_seen: Vec<bool>,
    /// Per formation of `moving_now`: whether its last move of the batch repeats the move it
    /// was last ordered and it stands on the ground it was placed on then (it keeps it).
    pub(crate) moving_repeats: Vec<bool>,
    /// The formation whose move was placed last, with how far its order moves it (`None`:
    /// its goal was moved) and the goal it was given, until its claim is filed.
    pub(crate) placed: Option<(FormationId, Option<Vec2>, Vec2)>,
    /// The formation whose move, given again, it already walks as ordered (the order is not
    /// applied again: it walks on, its path as it was).
    pub(crate) walks_on: Option<FormationId>,
    /// Where the last move placed in the batch found its place (see `world/goal_claims.rs`).
    pub(crate) ring_hint: Option<super::goal_claims::RingHint>,
    /// The separation sweep's radii and sums in the neighbour search's order.
    pub(crate) sweep_buffers: super::separation::SweepBuffers,
    /// Per top-level formation (by its place among the roots): whether it opens a lane
    /// through the others this tick, and whether it is a single (see `world/make_way.rs`).
    pub(crate) group_opens_lane: Vec<super::make_way::LaneOpener>,
    /// Per top-level formation: whether another one is near enough for its units to avoid.
    pub(crate) group_in_traffic: Vec<bool>,
    /// Per top-level formation: the line its units keep to the right of while it passes an
    /// oncoming formation in a narrow passage (see `world/lane_edge.rs`).
    pub(crate) group_lane_edges: Vec<Option<super::lane_edge::LaneEdge>>,
    /// Per top-level formation: the place of the one standing for its avoidance group (see
    /// `World::open_lanes`: neighbours moving alike share one).
    pub(crate) group_clusters: Vec<u32>,
    /// Per top-level formation (by place): whether it is closed up into ranks two or more
    /// abreast for a passage walked one way (`make_way.rs`, `closed_up_one_way`).
    pub(crate) group_closed_up: Vec<bool>,
    /// Per top-level formation: whether it may share an avoidance group with neighbours.
    pub(crate) group_alike: Vec<bool>,
    /// Per steered unit: its velocity at the start of the tick (what avoidance reads of it).
    pub(crate) velocities: Vec<Vec2>,
    /// The group of the unit in each slot of the neighbour grid, in runs (what avoidance's
    /// search passes over).
    pub(crate) group_runs: super::avoidance::GroupRuns,
    /// The formations near each top-level formation, for avoidance (rebuilt with the grid).
    pub(crate) near_roots: super::avoidance::NearRoots,
    /// The single-thread avoidance's buffers.
    pub(crate) avoidance: super::avoidance::AvoidanceBuffers,
    /// A unit whose avoidance is recorded each tick, and its record.
    pub(crate) watched: Option<(UnitId, super::avoidance::AvoidanceReport)>,
    pub(crate) grid: Option<CellGrid>,
    pub(crate) solver: Option<PenetrationSolver>,
    /// Per steered unit: whether the map's geometry pushed it back this tick (the constraint stage).
    pub(crate) held: Vec<bool>,
    /// The single-thread steering stage's geometry buffers (made with room, as each chunk's
    /// below, so that the first unit to come near obstacles long after the world was built
    /// does not allocate in that tick).
    pub(crate) near: super::constraints::NearGeometry,
    /// The constraint stage's geometry buffers, one per chunk of units (see `world/par.rs`).
    pub(crate) chunk_near: Vec<super::constraints::NearGeometry>,
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
    pub(crate) tallies: Vec<super::tally::MemberTally>,
    /// The spans of whole subtrees the tallies are made in (see `world/tally.rs`).
    pub(crate) tally_bounds: Vec<u32>,
    /// One (empty) scratch entry per span of the tally.
    pub(crate) tally_units: Vec<()>,
    /// Per formation in `order`: whether some of its slot targets may lie in an obstacle
    /// (see `world/stand_ins.rs`).
    pub(crate) stand_in_blocked: Vec<bool>,
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
    /// The path a detour is planned into (see `world/detours.rs`).
    pub(crate) detour_path: cohort_pathing::Path,
    /// The plan a detour is made from.
    pub(crate) detour_plan: super::terrain::PathPlan,
    /// A detour planned again through gaps met at a slant, and its passages' stretches (see
    /// `world/slanted_gaps.rs`).
    pub(crate) detour_slanted: super::slanted_gaps::SlantedScratch,
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
            .field("formations", &self.order.len())
            .finish_non_exhaustive()
    }
}
