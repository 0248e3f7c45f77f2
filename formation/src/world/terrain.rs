//! The world's static side: the validated map, its navigation graph, and the queries the
//! formation and steering stages make of them (paths with clearance, line of sight, geometry
//! near a point).

use cohort_pathing::{
    GridSpec, JumpAbility, Leg, Map, NavGraph, Path, PathQuery, SearchScratch, ValidMap,
    find_path_into,
};
use cohort_steering::capacity::ReserveTotal;
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};
use serde::{Deserialize, Serialize};

use crate::error::WorldError;

/// Side of the buckets of the static-geometry index used by steering queries.
const GEOMETRY_CELL: f32 = 8.0;

/// Most buckets of the static-geometry index (its cells grow on maps larger than this many
/// `GEOMETRY_CELL`s).
const MAX_GEOMETRY_CELLS: f32 = 262_144.0;

/// Most navigation graph nodes a world builds from its map: a map whose obstacles would need
/// more at one sample per metre is sampled at twice the spacing, and again, until its graph
/// fits.
pub const MAX_NAV_NODES: usize = 400_000;

/// Most times the spacing of a world's graph doubles to fit [`MAX_NAV_NODES`].
const MAX_COARSENING: u32 = 12;

/// The sampling a world uses to build its navigation graph: one sample per metre near
/// obstacles, open ground in cells of up to 32 m (see `cohort_pathing::grid_build`), at most
/// [`MAX_NAV_NODES`] nodes; clearances are measured up to 16 units (a formation 32 units
/// wide).
pub fn nav_spec() -> GridSpec {
    GridSpec {
        spacing: 1.0,
        clearance_cap: 16.0,
        max_cell: 32.0,
        max_nodes: MAX_NAV_NODES,
        ..GridSpec::default()
    }
}

/// The navigation graph of `map` sampled as `spec` says; with `coarsen`, a map that needs
/// more than `spec.max_nodes` nodes is sampled at twice the spacing (up to
/// [`MAX_COARSENING`] times) until its graph fits.
fn sampled_graph(map: &ValidMap, spec: &GridSpec, coarsen: bool) -> Result<NavGraph, WorldError> {
    let mut spec = *spec;
    let mut doublings = 0;
    loop {
        match NavGraph::from_map(map, &spec) {
            Err(cohort_pathing::PathingError::TooLarge { .. })
                if coarsen && doublings < MAX_COARSENING =>
            {
                spec.spacing *= 2.0;
                spec.max_cell = spec.max_cell.max(spec.spacing);
                doublings += 1;
            }
            result => {
                return result.map_err(|e| WorldError::Invalid {
                    what: "navgraph",
                    why: e.to_string(),
                });
            }
        }
    }
}

/// A planned path: points from start to end and the clearance of each leg (`clearance[i]` is
/// the smallest clearance on the leg ending at `points[i]`; `clearance[0]` at the start).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathPlan {
    /// Waypoints, start first.
    pub points: Vec<Vec2>,
    /// Clearance of the leg ending at each waypoint.
    pub clearance: Vec<f32>,
    /// How the leg from each waypoint to the next is travelled (on foot, through a jump link,
    /// over a gap); the last entry is [`Leg::Walk`].
    pub legs: Vec<Leg>,
}

impl PathPlan {
    /// Room for plans of `n` waypoints (a plan into it does not grow its vectors).
    pub fn reserve(&mut self, n: usize) {
        self.points.reserve_total(n);
        self.clearance.reserve_total(n);
        self.legs.reserve_total(n);
    }
}

/// The map and navgraph of a world, with caches rebuilt on load.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Terrain {
    map: ValidMap,
    graph: NavGraph,
    #[serde(skip)]
    cache: GeometryIndex,
    /// [`Terrain::hash`], computed when the terrain is built or loaded.
    #[serde(skip)]
    hash: u64,
}

/// The keep-right surcharge of every path the world plans
/// ([`cohort_pathing::SearchFilter::keep_right`]): of two routes round an obstacle within a
/// tenth of each other's length, movers take the one that keeps it on their left, so movers
/// going opposite ways round a block take opposite sides of it, and four squads crossing a
/// square of blocks circle it counter-clockwise like traffic on a roundabout instead of
/// meeting head-on.
pub const KEEP_RIGHT: f32 = 0.1;

impl Terrain {
    /// Validates `map` and builds its navigation graph ([`nav_spec`], sampled wider on maps
    /// too detailed for [`MAX_NAV_NODES`]).
    pub fn new(map: Map) -> Result<Self, WorldError> {
        let mut t = Self::build(map, &nav_spec(), true)?;
        t.rebuild_caches();
        Ok(t)
    }

    /// [`Terrain::new`] for path planning only: without the geometry index of the steering
    /// queries and without the hash (both left empty).
    pub(super) fn for_planning(map: Map) -> Result<Self, WorldError> {
        Self::build(map, &nav_spec(), true)
    }

    fn build(map: Map, spec: &GridSpec, coarsen: bool) -> Result<Self, WorldError> {
        let map = map.validate().map_err(|e| WorldError::Invalid {
            what: "map",
            why: e.to_string(),
        })?;
        let graph = sampled_graph(&map, spec, coarsen)?;
        Ok(Self {
            map,
            graph,
            cache: GeometryIndex::default(),
            hash: 0,
        })
    }

    /// A one-metre empty terrain, cheap to build: what a world being loaded stands on until
    /// its state is checked and it takes the real terrain over.
    pub(super) fn stand_in() -> Result<Self, WorldError> {
        Self::new(Map {
            min: Vec2::ZERO,
            max: Vec2::ONE,
            ..Map::default()
        })
    }

    /// Rebuilds the caches and the hash (after deserializing).
    pub fn rebuild_caches(&mut self) {
        self.cache = GeometryIndex::build(self.map.map());
        self.hash = self.compute_hash();
    }

    /// A 64-bit hash of the map and the navigation graph (the bits of every number, see
    /// `world/stable_hash.rs`): equal on every platform for the same terrain. Computed once
    /// when the terrain is built, loaded or given a new graph; snapshots carry it so that a
    /// state saved on one map is not restored onto another.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    fn compute_hash(&self) -> u64 {
        let mut h = super::stable_hash::StableHasher::new();
        // The hasher accepts every number: a walk can only stop on a type that cannot be
        // serialized, and the map and graph have none.
        let _ = super::walk::walk(&(&self.map, &self.graph), &mut h);
        h.finish()
    }

    /// The authored map.
    pub fn map(&self) -> &Map {
        self.map.map()
    }

    /// The validated map with its queries.
    pub fn valid_map(&self) -> &ValidMap {
        &self.map
    }

    /// The navigation graph.
    pub fn navgraph(&self) -> &NavGraph {
        &self.graph
    }

    /// Replaces the navigation graph.
    pub fn set_navgraph(&mut self, graph: NavGraph) {
        self.graph = graph;
        self.hash = self.compute_hash();
    }

    /// World bounds.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        self.map.bounds()
    }

    /// `p` moved onto the map where it lies off it (as it is when the map has no area).
    pub(crate) fn clamp_to_map(&self, p: Vec2) -> Vec2 {
        let (lo, hi) = self.bounds();
        if lo.x <= hi.x && lo.y <= hi.y {
            p.clamp(lo, hi)
        } else {
            p
        }
    }

    /// Whether a disc of `radius` can move straight from `a` to `b`.
    pub fn line_of_sight(&self, a: Vec2, b: Vec2, radius: f32) -> bool {
        self.map.line_of_sight(a, b, radius)
    }

    /// The nearest free point to `p` for a disc of `radius` (`p` when it is free or when no
    /// free point exists).
    pub fn push_out(&self, p: Vec2, radius: f32) -> Vec2 {
        self.map.nearest_free_point(p, radius).unwrap_or(p)
    }

    /// Keeps a body inside the world bounds (and stops its velocity into the edge).
    pub fn keep_in_bounds(&self, body: &mut Body) {
        let (min, max) = self.bounds();
        let r = Vec2::splat(body.radius);
        let (lo, hi) = (min + r, max - r);
        if lo.x > hi.x || lo.y > hi.y {
            return;
        }
        let clamped = body.position.clamp(lo, hi);
        if clamped.x != body.position.x {
            body.velocity.x = 0.0;
        }
        if clamped.y != body.position.y {
            body.velocity.y = 0.0;
        }
        body.position = clamped;
    }

    /// Circle obstacles and walls (polygon edges count as walls) within `radius` of `p`,
    /// written into the caller's buffers in a fixed order.
    pub fn geometry_near(
        &self,
        p: Vec2,
        radius: f32,
        circles: &mut Vec<CircleObstacle>,
        walls: &mut Vec<Wall>,
    ) {
        self.cache.near(p, radius, circles, walls);
    }

    /// Plans a path from `from` to `to` keeping `clearance` from obstacles where it can
    /// (pathing's clearance-aware A* with line-of-sight smoothing). When no path has that
    /// clearance, the path for the unit's own `min_clearance` is taken (the leg clearances say
    /// where it narrows). When the goal is blocked or unreachable, the path ends at the
    /// reachable point closest to it; when nothing is reachable, the plan stays where it is.
    /// With a `jump` ability the path may take the jump links and gaps that ability can make.
    ///
    /// A new plan each call; [`Terrain::plan_path_into`] with [`Terrain::plan_query`] plans
    /// into the caller's buffers.
    pub fn plan_path(
        &self,
        from: Vec2,
        to: Vec2,
        clearance: f32,
        min_clearance: f32,
        jump: Option<JumpAbility>,
        scratch: &mut SearchScratch,
    ) -> PathPlan {
        let mut plan = PathPlan::default();
        let query = Self::plan_query(from, to, clearance, min_clearance, jump);
        self.plan_path_into(&query, scratch, &mut Path::default(), &mut plan);
        plan
    }

    /// The query [`Terrain::plan_path`] makes: from `from` to `to` for a body of
    /// `min_clearance` keeping `clearance` where it can, to the closest reachable point when the
    /// goal cannot be reached, through what `jump` can make, and keeping right
    /// ([`KEEP_RIGHT`]).
    pub fn plan_query(
        from: Vec2,
        to: Vec2,
        clearance: f32,
        min_clearance: f32,
        jump: Option<JumpAbility>,
    ) -> PathQuery {
        PathQuery {
            clearance,
            jump,
            ..PathQuery::new(from, to, min_clearance)
                .or_closest()
                .keeping_right(KEEP_RIGHT)
        }
    }

    /// Plans `query` (see [`Terrain::plan_path`]; when the query fails, the plan stays at its
    /// start) into the caller's buffers: `path` receives pathing's path and `out` the plan,
    /// their vectors cleared and refilled in place. Once `scratch`, `path` and `out` have
    /// grown to the size of the plans asked for, planning makes no allocation.
    pub fn plan_path_into(
        &self,
        query: &PathQuery,
        scratch: &mut SearchScratch,
        path: &mut Path,
        out: &mut PathPlan,
    ) {
        let plan = out;
        plan.points.clear();
        plan.clearance.clear();
        plan.legs.clear();
        let from = query.start;
        match find_path_into(&self.map, &self.graph, query, scratch, path) {
            Ok(()) if !path.waypoints.is_empty() => {
                let mut leg = path.waypoints[0].clearance;
                for w in &path.waypoints {
                    plan.points.push(w.position);
                    plan.clearance.push(leg);
                    plan.legs.push(w.leg);
                    leg = w.leg_clearance;
                }
                if plan.points.len() == 1 {
                    plan.points.push(plan.points[0]);
                    plan.clearance.push(leg);
                    plan.legs.push(Leg::Walk);
                }
            }
            _ => {
                plan.points.extend([from, from]);
                plan.clearance.extend([0.0, 0.0]);
                plan.legs.extend([Leg::Walk, Leg::Walk]);
            }
        }
        if let Some(last) = plan.legs.last_mut() {
            *last = Leg::Walk;
        }
    }
}

/// A bucket grid of circles and wall segments (polygon edges included) for steering queries.
#[derive(Clone, Debug, Default)]
struct GeometryIndex {
    min: Vec2,
    cols: u32,
    rows: u32,
    /// Side of a bucket: `GEOMETRY_CELL`, larger on huge maps.
    cell: f32,
    circles: Vec<CircleObstacle>,
    walls: Vec<Wall>,
    /// Per cell: range into `items`.
    starts: Vec<u32>,
    /// Item ids: circles are `0..circles.len()`, walls follow.
    items: Vec<u32>,
    /// Per item id: the first bucket (column, row) its bounding box covers. A query emits an
    /// item only in the first bucket of the query it shares with the item, so every item is
    /// reported once, in the order of a row-major walk, without a search of what was found.
    first_cell: Vec<[u32; 2]>,
    /// One bit per bucket: whether it holds any item (units in the open skip empty buckets
    /// without touching `starts`).
    occupied: Vec<u64>,
}

impl GeometryIndex {
    fn build(map: &Map) -> Self {
        let mut walls = map.walls.clone();
        // Gaps cannot be walked into: their edges are walls for units on the ground (units in
        // the air are not constrained).
        let gaps = map.gaps.iter().map(|g| &g.points);
        for points in map.polygons.iter().map(|p| &p.points).chain(gaps) {
            let n = points.len();
            for i in 0..n {
                if let Ok(w) = Wall::new(points[i], points[(i + 1) % n]) {
                    walls.push(w);
                }
            }
        }
        let circles = map.circles.clone();
        let size = (map.max - map.min).max(Vec2::ONE);
        // Buckets grow on huge maps so that there are at most `MAX_GEOMETRY_CELLS` of them (a
        // map a million units wide would otherwise cost 16 M empty buckets, 400 MB).
        let cell = GEOMETRY_CELL.max((size.x * size.y / MAX_GEOMETRY_CELLS).sqrt());
        let cell = if cell.is_finite() { cell } else { f32::MAX };
        let cols = ((size.x / cell).ceil() as u32).clamp(1, 4096);
        let rows = ((size.y / cell).ceil() as u32).clamp(1, 4096);
        let mut idx = Self {
            min: map.min,
            cols,
            rows,
            cell,
            circles,
            walls,
            starts: Vec::new(),
            items: Vec::new(),
            first_cell: Vec::new(),
            occupied: Vec::new(),
        };
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); (cols * rows) as usize];
        let boxes = idx
            .circles
            .iter()
            .map(|c| {
                (
                    c.center - Vec2::splat(c.radius),
                    c.center + Vec2::splat(c.radius),
                )
            })
            .chain(
                idx.walls
                    .iter()
                    .map(|w| (w.from.min(w.to), w.from.max(w.to))),
            );
        let mut first_cell = Vec::with_capacity(idx.circles.len() + idx.walls.len());
        for (i, (lo, hi)) in boxes.enumerate() {
            let range = idx.cell_range(lo, hi);
            first_cell.push(range.map_or([u32::MAX; 2], |[x0, _, y0, _]| [x0, y0]));
            idx.for_cells(range, |cell| buckets[cell].push(i as u32));
        }
        idx.first_cell = first_cell;
        idx.occupied = vec![0; buckets.len().div_ceil(64)];
        for (cell, b) in buckets.iter().enumerate() {
            idx.starts.push(idx.items.len() as u32);
            idx.items.extend_from_slice(b);
            if !b.is_empty() {
                idx.occupied[cell / 64] |= 1 << (cell % 64);
            }
        }
        idx.starts.push(idx.items.len() as u32);
        idx
    }

    /// The buckets `[x0, x1, y0, y1]` (inclusive) a box from `lo` to `hi` covers, clamped to
    /// the grid; `None` for a non-finite box or an empty index.
    #[inline]
    fn cell_range(&self, lo: Vec2, hi: Vec2) -> Option<[u32; 4]> {
        if self.cols == 0 || self.rows == 0 || !lo.is_finite() || !hi.is_finite() {
            return None;
        }
        // Clamped to non-negative first, so truncation is the floor.
        let c = |v: f32, n: u32| (((v / self.cell).max(0.0)) as u32).min(n - 1);
        Some([
            c(lo.x - self.min.x, self.cols),
            c(hi.x - self.min.x, self.cols),
            c(lo.y - self.min.y, self.rows),
            c(hi.y - self.min.y, self.rows),
        ])
    }

    fn for_cells(&self, range: Option<[u32; 4]>, mut f: impl FnMut(usize)) {
        let Some([x0, x1, y0, y1]) = range else {
            return;
        };
        for y in y0..=y1 {
            for x in x0..=x1 {
                f((y * self.cols + x) as usize);
            }
        }
    }

    /// Whether any bucket of row `y` from column `x0` to `x1` (inclusive) holds an item.
    #[inline]
    fn row_occupied(&self, y: u32, x0: u32, x1: u32) -> bool {
        let (a, b) = ((y * self.cols + x0) as usize, (y * self.cols + x1) as usize);
        (a..=b).any(|cell| {
            self.occupied
                .get(cell / 64)
                .is_some_and(|w| w & (1 << (cell % 64)) != 0)
        })
    }

    fn near(&self, p: Vec2, radius: f32, circles: &mut Vec<CircleObstacle>, walls: &mut Vec<Wall>) {
        circles.clear();
        walls.clear();
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        let r = Vec2::splat(radius);
        let Some([x0, x1, y0, y1]) = self.cell_range(p - r, p + r) else {
            return;
        };
        let nc = self.circles.len() as u32;
        for y in y0..=y1 {
            if !self.row_occupied(y, x0, x1) {
                continue;
            }
            for x in x0..=x1 {
                let cell = (y * self.cols + x) as usize;
                let (Some(&a), Some(&b)) = (self.starts.get(cell), self.starts.get(cell + 1))
                else {
                    continue;
                };
                for &id in self.items.get(a as usize..b as usize).unwrap_or(&[]) {
                    // Reported in the first bucket of this query that the item covers.
                    let [fx, fy] = self.first_cell[id as usize];
                    if fx.max(x0) != x || fy.max(y0) != y {
                        continue;
                    }
                    if id < nc {
                        let c = self.circles[id as usize];
                        if c.signed_distance(p) <= radius {
                            circles.push(c);
                        }
                    } else {
                        let w = self.walls[(id - nc) as usize];
                        if (w.closest_point(p) - p).length() <= radius {
                            walls.push(w);
                        }
                    }
                }
            }
        }
    }
}
