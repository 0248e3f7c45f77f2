//! The steering stage of a tick (steering, avoidance and locomotion): the per-unit hot loop.

use cohort_steering::behaviours::{ArriveParams, ObstacleAvoidanceParams, WallAvoidanceParams};
use cohort_steering::grid::{BruteForceSearch, CellGrid, NeighbourSearch};
use cohort_steering::locomotion::{integrate, sanitize_dt};
use cohort_steering::penetration::{CANDIDATE_MARGIN, PenetrationSolver};
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};

use super::avoidance::{
    AvoidanceBuffers, AvoidanceInput, AvoidanceReport, NearRootsInput, PREFERENCE_TIME, UnitGroups,
    search_reach,
};
use super::separation::{Heading, SeparationSweep};
use cohort_steering::truncate;

use super::free_zone::FreeZone;
use super::gather::UnitFrame;
use super::lane_edge::LaneEdge;
use super::{Scratch, Terrain, WorldSettings};

mod forces;

/// Units per work item of the parallel steering stage (`parallel` feature).
#[cfg(feature = "parallel")]
const PARALLEL_CHUNK: usize = super::par::UNIT_CHUNK;

#[cfg(feature = "parallel")]
use super::constraints::GEOMETRY_ROOM;

/// How far ahead (seconds of travel at top speed) a unit looks for obstacles and walls.
const LOOK_AHEAD_TIME: f32 = 1.0;

/// Factor by which the grid's cells exceed the farthest two units interact.
const CELL_HEADROOM: f32 = 1.001;

/// Where each top-level formation stands in traffic this tick (by its place among the
/// roots), as the formation stage's make way found it: whether it opens a lane through the
/// others, and whether another formation is near enough for its units to avoid.
pub(super) struct Traffic {
    pub(super) opens_lane: Vec<super::make_way::LaneOpener>,
    pub(super) in_traffic: Vec<bool>,
    pub(super) lane_edges: Vec<Option<LaneEdge>>,
    /// Per top-level formation: the place of the one standing for its avoidance group.
    pub(super) clusters: Vec<u32>,
    /// Per top-level formation: whether it is closed up into ranks two or more abreast for a
    /// passage walked one way (its members keep closer company: `separation.rs`).
    pub(super) closed_up: Vec<bool>,
}

impl Traffic {
    /// Takes the formation stage's findings out of the scratch (its buffers travel along).
    pub(super) fn take(scratch: &mut Scratch) -> Self {
        Self {
            opens_lane: std::mem::take(&mut scratch.group_opens_lane),
            in_traffic: std::mem::take(&mut scratch.group_in_traffic),
            lane_edges: std::mem::take(&mut scratch.group_lane_edges),
            clusters: std::mem::take(&mut scratch.group_clusters),
            closed_up: std::mem::take(&mut scratch.group_closed_up),
        }
    }

    /// Gives the buffers back for the next tick.
    pub(super) fn put_back(self, scratch: &mut Scratch) {
        scratch.group_opens_lane = self.opens_lane;
        scratch.group_in_traffic = self.in_traffic;
        scratch.group_lane_edges = self.lane_edges;
        scratch.group_clusters = self.clusters;
        scratch.group_closed_up = self.closed_up;
    }
}

/// Steering stage: every unit's behaviours are evaluated and combined into one force, in
/// unit-key order, from positions at the start of the stage, and the force moves the unit
/// (max force, max speed; then reciprocal avoidance picks its velocity). One walk does both:
/// a unit's steering reads no other unit's body (separation is summed beforehand), so
/// integrating each unit as soon as its force is known gives what two walks would, without
/// streaming the bodies twice. Works on the frame's bodies (the units themselves are written
/// back by the constraint stage) and records each unit's chosen velocity in
/// `frame.desired`.
pub(super) fn steer_units(
    terrain: &Terrain,
    settings: &WorldSettings,
    traffic: &Traffic,
    scratch: &mut Scratch,
    frame: &mut UnitFrame,
    dt: f32,
) {
    let n = frame.bodies.len();
    // Largest radius and top speed over all units, those in the air included, so the
    // grid is not rebuilt when such a unit takes off or lands.
    let (max_radius, fastest) = frame.unit_limits;
    let range = settings.separation_range.max(1.0);
    // The penetration solver's candidate pairs are collected by the separation pass: with
    // a margin covering one tick of motion of both units, they still hold after the move
    // (the solver checks that, and collects its own when a unit moved farther).
    let margin_at = |dt: f32| max_radius * CANDIDATE_MARGIN + 2.0 * fastest * dt;
    let pair_margin = margin_at(sanitize_dt(dt));
    let share_pairs = pair_margin.is_finite();
    // The grid's cells are as wide as the farthest two units interact (separation's
    // comfort distance, or the solver's pair distance at the longest step), so the
    // separation pass sweeps neighbouring cells only; sized from the longest step rather
    // than this one, the grid is not rebuilt when `dt` varies; with a thousandth to spare,
    // so the sweep is not refused for rounding (see `CellGrid::sweep_radius`).
    let comfort = 2.0 * max_radius * range;
    let reach_at = |margin: f32| {
        if margin.is_finite() {
            comfort.max(2.0 * max_radius + margin)
        } else {
            comfort
        }
    };
    let cell = if settings.grid_cell > 0.0 {
        settings.grid_cell
    } else {
        (reach_at(margin_at(super::MAX_STEP)) * CELL_HEADROOM).max(0.1)
    };
    ensure_grid(scratch, terrain, cell);
    let reach = reach_at(if share_pairs { pair_margin } else { 0.0 });
    let UnitFrame {
        ids,
        bodies,
        previous,
        positions,
        radii,
        goals,
        headings,
        groups,
        zones,
        ..
    } = frame;
    let Scratch {
        separation,
        sweep_buffers,
        grid,
        solver,
        near,
        velocities,
        avoidance,
        watched,
        group_runs,
        near_roots,
        #[cfg(feature = "parallel")]
        chunk_geometry,
        ..
    } = scratch;
    // Each unit's avoidance group: its top-level formation's cluster of neighbours moving
    // alike (see `World::open_lanes`).
    let avoid_groups = UnitGroups {
        roots: groups,
        clusters: &traffic.clusters,
    };
    let sweep = SeparationSweep {
        radii,
        groups,
        closed_up: &traffic.closed_up,
        range,
        reach,
        pair_margin,
    };
    // The longest any unit's avoidance search reaches: the largest unit's at the top speed.
    let longest_reach = search_reach(
        (
            settings.avoidance.params().time_horizon,
            settings.avoidance.neighbour_distance,
        ),
        (max_radius, fastest),
        (max_radius, fastest),
    );
    let brute;
    let search = match grid.as_mut() {
        Some(g) if !settings.brute_force_neighbours => {
            g.rebuild(positions);
            let pairs = solver
                .as_mut()
                .filter(|_| share_pairs)
                .map(|s| s.seed_candidates(positions, pair_margin));
            sweep.run_grid(&*g, sweep_buffers, separation, pairs);
            if settings.avoidance.enabled {
                group_runs.rebuild(g.order(), avoid_groups);
                near_roots.rebuild(&NearRootsInput {
                    grid: g,
                    runs: group_runs,
                    positions,
                    roots: groups,
                    clusters: &traffic.clusters,
                    reach: longest_reach,
                });
            } else {
                group_runs.invalidate();
                near_roots.invalidate();
            }
            Search::Grid(&*g)
        }
        _ => {
            group_runs.invalidate();
            near_roots.invalidate();
            // Avoidance still asks how large each unit's group is (see `AvoidanceInput::strays`).
            group_runs.count_sizes(avoid_groups);
            let mut b = BruteForceSearch::new();
            b.rebuild(positions);
            sweep.run(&b, sweep_buffers, separation, None);
            brute = b;
            Search::Brute(&brute)
        }
    };
    // Avoidance reads every unit's velocity as it was before anyone moved.
    velocities.clear();
    velocities.extend(bodies.iter().map(|b| b.velocity));
    // The gathered positions are where the units stand before they move: they become
    // `previous`, and `positions` (last tick's `previous`, so usually of the right length
    // already) takes the moved ones. The constraint stage reads both.
    std::mem::swap(positions, previous);
    positions.resize(n, Vec2::ZERO);
    let arrive = ArriveParams {
        tweaker: settings.arrive_time * 0.5,
        ..ArriveParams::default()
    };
    let walls_params = WallAvoidanceParams::default();
    let obstacle_params = ObstacleAvoidanceParams::default();
    let avoid = settings.avoidance.enabled.then(|| AvoidanceInput {
        settings: &settings.avoidance,
        params: settings.avoidance.params(),
        positions: previous,
        velocities,
        radii,
        groups: avoid_groups,
        opens_lane: &traffic.opens_lane,
        in_traffic: &traffic.in_traffic,
        ids,
        runs: Some(&*group_runs),
        near_roots: Some(&*near_roots),
        limits: (max_radius, fastest),
        goals,
        headings,
        map: terrain.valid_map(),
    });
    let ctx = SteerContext {
        terrain,
        goals,
        headings,
        separation,
        settings,
        arrive: &arrive,
        walls: &walls_params,
        obstacles: &obstacle_params,
        avoid,
        search,
        ids,
        starts: previous,
        groups,
        lane_edges: traffic
            .lane_edges
            .iter()
            .any(Option::is_some)
            .then_some(traffic.lane_edges.as_slice()),
    };
    let out = SteerOutput {
        bodies,
        positions,
        zones: zones.get_mut(..n).unwrap_or(&mut []),
        near_obstacles: &mut near.obstacles,
        near_walls: &mut near.walls,
        avoidance,
        watched,
        #[cfg(feature = "parallel")]
        chunk_geometry,
    };
    ctx.steer_all(out, dt);
    frame.desired.clear();
    frame
        .desired
        .extend(frame.bodies.iter().map(|b| b.velocity));
}

/// What the steering of one unit reads, gathered once per stage.
struct SteerContext<'a> {
    terrain: &'a Terrain,
    goals: &'a [(Vec2, Vec2)],
    /// Per unit: what its goal is (see [`Heading`]).
    headings: &'a [Heading],
    /// Per unit: the separation sum of [`SeparationSweep`] (times the unit's max force
    /// gives its separation force).
    separation: &'a [Vec2],
    settings: &'a WorldSettings,
    arrive: &'a ArriveParams,
    walls: &'a WallAvoidanceParams,
    obstacles: &'a ObstacleAvoidanceParams,
    /// Reciprocal avoidance, when on.
    avoid: Option<AvoidanceInput<'a>>,
    /// The units by position at the start of the stage.
    search: Search<'a>,
    /// Per unit: its key.
    ids: &'a [crate::ids::UnitId],
    /// Per unit: where it stood at the start of the stage.
    starts: &'a [Vec2],
    /// Per unit: its group (its top-level formation's place among the roots).
    groups: &'a [u32],
    /// Per group: the line its units keep to the right of (`None` for all: no group has one).
    lane_edges: Option<&'a [Option<LaneEdge>]>,
}

impl SteerContext<'_> {
    /// Steers and moves every unit, in unit-key order: its force, from its body as gathered,
    /// then [`integrate`]; its new position also goes to `out.positions`.
    ///
    /// With the `parallel` feature, when rayon's current pool has more than one thread, the
    /// units are split into chunks steered on its threads; each unit's force and move depend
    /// only on the stage's inputs and its own body, so the result is bit-identical to the
    /// single-thread loop (which runs in a one-thread pool, and without the feature).
    fn steer_all(&self, out: SteerOutput<'_>, dt: f32) {
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            let chunks = out.bodies.len().div_ceil(PARALLEL_CHUNK);
            if out.chunk_geometry.len() < chunks {
                out.chunk_geometry.resize_with(chunks, || {
                    (
                        Vec::with_capacity(GEOMETRY_ROOM),
                        Vec::with_capacity(GEOMETRY_ROOM),
                        AvoidanceBuffers::default(),
                    )
                });
            }
            out.bodies
                .par_chunks_mut(PARALLEL_CHUNK)
                .zip(out.positions.par_chunks_mut(PARALLEL_CHUNK))
                .zip(out.zones.par_chunks_mut(PARALLEL_CHUNK))
                .zip(out.chunk_geometry.par_iter_mut())
                .enumerate()
                .for_each(
                    |(c, (((bodies, positions), zones), (obstacles, walls, avoidance)))| {
                        let units = bodies.iter_mut().zip(positions).zip(zones);
                        for (k, ((body, position), zone)) in units.enumerate() {
                            let i = c * PARALLEL_CHUNK + k;
                            let force = self.steer_one(i, body, obstacles, walls, zone);
                            integrate(body, force, dt);
                            // The watched unit's record is kept by the single-thread loop only.
                            let watched = &mut None;
                            self.avoid_one(
                                i, body, force, obstacles, walls, avoidance, watched, dt,
                            );
                            self.keep_to_lane(i, body, dt);
                            *position = body.position;
                        }
                    },
                );
            return;
        }
        let SteerOutput {
            bodies,
            positions,
            zones,
            near_obstacles,
            near_walls,
            avoidance,
            watched,
            ..
        } = out;
        let units = bodies.iter_mut().zip(positions).zip(zones);
        for (i, ((body, position), zone)) in units.enumerate() {
            let force = self.steer_one(i, body, near_obstacles, near_walls, zone);
            integrate(body, force, dt);
            self.avoid_one(
                i,
                body,
                force,
                near_obstacles,
                near_walls,
                avoidance,
                watched,
                dt,
            );
            self.keep_to_lane(i, body, dt);
            *position = body.position;
        }
    }

    /// Replaces the velocity `body` was just given (its preferred velocity) with the one
    /// reciprocal avoidance chooses, and moves the unit by it from where it stood. Records
    /// the choice when the unit is the watched one.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn avoid_one(
        &self,
        i: usize,
        body: &mut Body,
        force: Vec2,
        near_obstacles: &[CircleObstacle],
        near_walls: &[Wall],
        buffers: &mut AvoidanceBuffers,
        watched: &mut Option<(crate::ids::UnitId, AvoidanceReport)>,
        dt: f32,
    ) {
        let Some(avoid) = &self.avoid else {
            return;
        };
        let (Some(&start), Some(&velocity)) = (avoid.positions.get(i), avoid.velocities.get(i))
        else {
            return;
        };
        let mass = if body.mass > 0.0 { body.mass } else { 1.0 };
        let force = truncate(force, body.max_force);
        let preferred = truncate(velocity + force / mass * PREFERENCE_TIME, body.max_speed);
        let choice = avoid.choose(
            i,
            body,
            preferred,
            &self.search,
            near_walls,
            near_obstacles,
            buffers,
            dt,
        );
        if let Some((id, report)) = watched.as_mut() {
            if self.ids.get(i) == Some(id) {
                *report = AvoidanceReport {
                    preferred,
                    chosen: choice.map_or(body.velocity, |c| c.0),
                    binding: choice.and_then(|c| c.1),
                };
            }
        }
        // Unconstrained: the unit moves as its steering force took it.
        let Some((chosen, _)) = choice else {
            return;
        };
        let position = start + chosen * sanitize_dt(dt);
        if chosen.is_finite() && position.is_finite() {
            body.velocity = chosen;
            body.position = position;
        }
    }

    /// Keeps unit `i` to the right of its formation's lane edge, if it has one (see
    /// `world/lane_edge.rs`): the velocity kept moves it from where it stood.
    #[inline]
    fn keep_to_lane(&self, i: usize, body: &mut Body, dt: f32) {
        let Some(edges) = self.lane_edges else {
            return;
        };
        let (Some(&group), Some(&start)) = (self.groups.get(i), self.starts.get(i)) else {
            return;
        };
        let Some(Some(edge)) = edges.get(group as usize) else {
            return;
        };
        let kept = edge.keep(start, body.radius, body.velocity, body.max_speed);
        let position = start + kept * sanitize_dt(dt);
        if kept != body.velocity && position.is_finite() {
            body.velocity = kept;
            body.position = position;
        }
    }
}

/// Where the steering stage writes: the bodies it moves, their positions after the move, the
/// free zones, and the geometry buffers of the single-thread loop (and of the parallel
/// stage's chunks).
struct SteerOutput<'a> {
    bodies: &'a mut [Body],
    positions: &'a mut [Vec2],
    zones: &'a mut [FreeZone],
    near_obstacles: &'a mut Vec<CircleObstacle>,
    near_walls: &'a mut Vec<Wall>,
    avoidance: &'a mut AvoidanceBuffers,
    watched: &'a mut Option<(crate::ids::UnitId, AvoidanceReport)>,
    #[cfg(feature = "parallel")]
    chunk_geometry: &'a mut Vec<(Vec<CircleObstacle>, Vec<Wall>, AvoidanceBuffers)>,
}

/// The units by position at the start of the steering stage: the neighbour grid, or the
/// brute-force search that stands in for it when measuring the grid's speed-up.
#[derive(Clone, Copy)]
pub(super) enum Search<'a> {
    Grid(&'a CellGrid),
    Brute(&'a BruteForceSearch),
}

impl Search<'_> {
    /// Every unit within `radius` of `center`: its index and position.
    #[inline]
    pub(super) fn for_each_in_radius<F: FnMut(u32, Vec2)>(&self, center: Vec2, radius: f32, f: F) {
        match self {
            Search::Grid(g) => g.for_each_in_radius(center, radius, f),
            Search::Brute(b) => b.for_each_in_radius(center, radius, f),
        }
    }
}

/// Makes the neighbour grid and the penetration solver with cells of side `cell`, or coarser
/// ones on a map too big for that many cells (without a solver, clumps would not separate).
fn ensure_grid(s: &mut Scratch, terrain: &Terrain, cell: f32) {
    let (min, max) = terrain.bounds();
    let cell = CellGrid::cell_size_to_fit(min, max, cell);
    let stale = s
        .grid
        .as_ref()
        .is_none_or(|g| g.cell_size() != cell || g.min() != min);
    if stale {
        s.grid = CellGrid::new(min, max, cell).ok();
        s.solver = PenetrationSolver::new(min, max, cell).ok();
    }
}
