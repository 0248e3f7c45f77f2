//! Non-penetration constraints: bodies never overlap each other or static geometry.
//!
//! [`PenetrationSolver`] moves overlapping bodies apart along the line of their centres, each
//! by half the overlap, regardless of mass or velocity, using a [`CellGrid`] for candidate
//! pairs, in a deterministic order, over several iterations (one separation can cause another).
//! Free functions push bodies out of circle obstacles ([`crate::CircleObstacle`]) and walls
//! ([`crate::Wall`]); [`stop_at_wall`] stops a body whose centre would tunnel through a wall in
//! one step.

use crate::capacity::ReserveTotal;
use core::mem::take;
use glam::Vec2;

use crate::body::Body;
use crate::error::SteeringError;
use crate::grid::{CellGrid, NeighbourSearch};
/// A radius usable in arithmetic: negative, NaN and infinite radii become 0.
use crate::ops::positive_or_zero as sane_radius;

mod repair;
mod static_geometry;

pub use repair::REPAIR_MAX;
pub use static_geometry::{
    constrain_to_static, crosses_wall, push_out_of_circle, push_out_of_wall, remove_velocity_into,
    stop_at_wall,
};

/// The deterministic unit direction from body `i` to body `j` used when their centres
/// coincide: a hash of the two indices gives a direction spread over the circle (integer
/// arithmetic and one `sqrt`, so identical on every platform); swapping `i` and `j` reverses
/// it. Never zero, never NaN.
pub fn split_direction(i: u32, j: u32) -> Vec2 {
    let (lo, hi, sign) = if i <= j { (i, j, 1.0) } else { (j, i, -1.0) };
    let h = (u64::from(lo) << 32 | u64::from(hi)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let h = h ^ (h >> 29);
    // Components in [-32767.5, 32767.5]: the vector is never shorter than 0.5.
    let x = ((h >> 48) & 0xFFFF) as f32 - 32767.5;
    let y = ((h >> 16) & 0xFFFF) as f32 - 32767.5;
    Vec2::new(x, y).normalize_or(Vec2::X) * sign
}

/// Margin, as a fraction of the largest radius, by which candidate pairs of
/// [`PenetrationSolver::resolve`] may be apart.
pub const CANDIDATE_MARGIN: f32 = 0.3;

/// Candidate and overlapping pairs the solver has room for per circle before its buffers
/// grow: equal circles packed as closely as they go (hexagonally) have three pairs each
/// within the candidate distance, so only a crowd pressed into overlap grows them.
const PAIRS_RESERVED_PER_CIRCLE: usize = 4;

/// Whether circle `k` has moved more than `sqrt(limit_sq)` from its anchor.
#[inline]
fn drifted(positions: &[Vec2], anchors: &[Vec2], k: u32, limit_sq: f32) -> bool {
    match (positions.get(k as usize), anchors.get(k as usize)) {
        (Some(&p), Some(&a)) => !((p - a).length_squared() <= limit_sq),
        _ => false,
    }
}

/// Bit `k` of the bit set `bits` (false beyond its end).
#[inline]
fn bit(bits: &[u64], k: u32) -> bool {
    bits.get((k / 64) as usize)
        .is_some_and(|w| w & (1 << (k % 64)) != 0)
}

/// Sets bit `k` of the bit set `bits` (nothing beyond its end).
#[inline]
fn set_bit(bits: &mut [u64], k: u32) {
    if let Some(w) = bits.get_mut((k / 64) as usize) {
        *w |= 1 << (k % 64);
    }
}

/// Overlap, as a fraction of the two radii, beyond which a solver made
/// [`PenetrationSolver::set_deep_iterations`] goes on past its iteration count.
pub const DEEP_FRACTION: f32 = 0.03;

/// Centres closer than this fraction of the sum of radii count as coincident.
const COINCIDENT_FRACTION: f32 = 1e-6;

/// What a [`PenetrationSolver::resolve`] call did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResolveStats {
    /// Iterations that found at least one overlapping pair (the solver stops early once an
    /// iteration finds none).
    pub iterations: u32,
    /// Overlapping pairs found, summed over iterations.
    pub pairs: usize,
    /// Deepest overlap found in the last iteration that ran, before it was corrected.
    pub last_max_overlap: f32,
}

/// Separates overlapping bodies, using a [`CellGrid`] to find candidate pairs.
///
/// Keeps its grid and scratch buffers between calls: once they have grown to the largest body
/// count (and pair count) a call allocates nothing. Not serialized; rebuild it on load.
#[derive(Clone, Debug)]
pub struct PenetrationSolver {
    grid: CellGrid,
    /// Pairs close enough to overlap before the candidates are refreshed.
    candidates: Vec<(u32, u32)>,
    /// Pairs overlapping in the current iteration.
    pairs: Vec<(u32, u32)>,
    /// Positions when the candidates were collected.
    anchors: Vec<Vec2>,
    /// Set by [`Self::seed_candidates`]: the margin the handed-in candidates were collected
    /// with, used by the next [`Self::resolve`] instead of collecting its own.
    seeded_margin: Option<f32>,
    positions: Vec<Vec2>,
    radii: Vec<f32>,
    /// One bit per circle: whether it moved in the previous iteration (a bit set, so that
    /// the later iterations' look-ups stay in the first-level cache with 100,000 circles).
    moved_last: Vec<u64>,
    /// One bit per circle: whether it has moved in the current iteration.
    moved_now: Vec<u64>,
    /// Buffers of the local repair of handed-in candidates (see `penetration/repair.rs`).
    repair: repair::RepairScratch,
    /// Most iterations a resolve adds past its count while a pair overlaps deeply (see
    /// [`Self::set_deep_iterations`]).
    deep_iterations: u32,
}

impl PenetrationSolver {
    /// A solver whose grid covers `min..max` with cells of side `cell_size` (about twice the
    /// largest body radius works well; bodies outside the bounds are still handled, only
    /// slower). Errors as [`CellGrid::new`].
    pub fn new(min: Vec2, max: Vec2, cell_size: f32) -> Result<Self, SteeringError> {
        Ok(Self {
            grid: CellGrid::new(min, max, cell_size)?,
            candidates: Vec::new(),
            pairs: Vec::new(),
            anchors: Vec::new(),
            seeded_margin: None,
            positions: Vec::new(),
            radii: Vec::new(),
            moved_last: Vec::new(),
            moved_now: Vec::new(),
            repair: Default::default(),
            deep_iterations: 0,
        })
    }

    /// Lets each resolve go on for up to `extra` iterations past its count while its last
    /// iteration found a pair overlapping by more than [`DEEP_FRACTION`] of the two radii
    /// (a crowd pressed hard needs more passes for its deepest pairs; everyone else stops
    /// where they were). 0, the default, stops at the count.
    pub fn set_deep_iterations(&mut self, extra: u32) {
        self.deep_iterations = extra;
    }

    /// Hands the next [`Self::resolve`] its candidate pairs, collected by the caller during a
    /// neighbour pass of its own (the world's steering stage visits every body's neighbours
    /// anyway), so that call neither rebuilds the grid nor queries it.
    ///
    /// Copies `anchors` (the positions the pairs were measured at) and returns the emptied
    /// candidate buffer, which the caller fills with every pair `(i, j)`, `i < j`, whose
    /// distance at `anchors` is below `r_i + r_j + margin`, each once, in an order that depends
    /// only on the inputs (the world's steering stage gives them in its neighbour sweep's
    /// order). The next `resolve` checks that no circle has moved more than
    /// `margin / 2` from its anchor (so no overlapping pair can be missing) and collects its
    /// own candidates when one has, or when the circle count differs from `anchors`. A
    /// non-finite or negative `margin` counts as 0.
    pub fn seed_candidates(&mut self, anchors: &[Vec2], margin: f32) -> &mut Vec<(u32, u32)> {
        self.anchors.clear();
        self.anchors.extend_from_slice(anchors);
        self.reserve_pairs(anchors.len());
        self.seeded_margin = Some(crate::ops::positive_or_zero(margin));
        self.candidates.clear();
        &mut self.candidates
    }

    /// Moves overlapping circles apart: circle `i` has centre `positions[i]` and radius
    /// `radii[i]` (only the first `min(len)` of each are used).
    ///
    /// Each iteration collects every overlapping pair `(i, j)`, `i < j` (in candidate order:
    /// the grid's pair order, or as handed in), then for each pair in turn re-measures it
    /// with the current positions and, if still overlapping, moves both apart along the line
    /// of centres by half the overlap. Coincident centres split along [`split_direction`].
    /// Stops after `iterations` iterations or when one finds no overlap (past `iterations`,
    /// goes on as [`Self::set_deep_iterations`] says). Negative or NaN radii
    /// count as 0; circles with non-finite centres are ignored.
    ///
    /// Candidate pairs (closer than the sum of radii plus a margin of
    /// [`CANDIDATE_MARGIN`] × the largest radius) come from the grid once, and again only
    /// after some circle has moved more than half the margin since: no overlapping pair is
    /// missed, and most ticks query the grid once rather than once per iteration. After the
    /// first iteration, only pairs with a circle that was in an overlapping pair in the
    /// previous one are measured again (the others cannot have changed).
    pub fn resolve(
        &mut self,
        positions: &mut [Vec2],
        radii: &[f32],
        iterations: u32,
    ) -> ResolveStats {
        self.resolve_checking::<CellGrid>(positions, radii, iterations, false, None)
    }

    /// [`Self::resolve`] given `index`, the neighbour search the handed-in candidates were
    /// collected from (built on the positions given to [`Self::seed_candidates`]): when some
    /// circles have moved more than half the margin from their anchors, only their pairs are
    /// looked up again, in `index`, instead of every circle's pairs being collected afresh
    /// (which a single drifted circle would otherwise cause, so the more circles, the more
    /// often). Up to [`REPAIR_MAX`] circles a call; beyond, as [`Self::resolve`]. The candidate
    /// order then differs from a fresh collection's, so results may differ in the last bits;
    /// no overlapping pair is missed either way.
    pub fn resolve_seeded<S: NeighbourSearch>(
        &mut self,
        positions: &mut [Vec2],
        radii: &[f32],
        iterations: u32,
        index: &S,
    ) -> ResolveStats {
        self.resolve_checking(positions, radii, iterations, false, Some(index))
    }

    /// [`Self::resolve`] (with an index, [`Self::resolve_seeded`]); with `recheck_all`, every
    /// iteration measures every candidate pair (the tests' reference for skipping pairs that
    /// did not move).
    fn resolve_checking<S: NeighbourSearch>(
        &mut self,
        positions: &mut [Vec2],
        radii: &[f32],
        iterations: u32,
        recheck_all: bool,
        index: Option<&S>,
    ) -> ResolveStats {
        let n = positions.len().min(radii.len()).min(u32::MAX as usize);
        let (Some(positions), Some(radii)) = (positions.get_mut(..n), radii.get(..n)) else {
            return ResolveStats::default();
        };
        let mut stats = ResolveStats::default();
        let seeded = self.seeded_margin.take();
        if iterations == 0 {
            return stats;
        }
        let max_radius = radii.iter().fold(0.0f32, |m, &r| m.max(sane_radius(r)));
        let own_margin = max_radius * CANDIDATE_MARGIN;
        // Handed-in candidates stand while every circle is within half their margin of its
        // anchor; else the solver collects its own.
        let (mut stale, mut drift_sq) = match seeded {
            Some(m) if self.anchors.len() == n => {
                let limit_sq = (m * 0.5) * (m * 0.5);
                let moved = (0..n as u32).any(|k| drifted(positions, &self.anchors, k, limit_sq));
                (moved, limit_sq)
            }
            _ => (true, 0.0),
        };
        // The index holds the anchors only while the candidates are the handed-in ones.
        let mut index = match seeded {
            Some(m) if self.anchors.len() == n => index.map(|ix| (ix, m)),
            _ => None,
        };
        if index.is_some() {
            self.repair.start(n);
        }
        // A pair neither of whose circles moved since it was last measured apart is still
        // apart: after the first iteration (and after fresh candidates), only pairs with a
        // circle moved in the previous iteration are measured again.
        let words = n.div_ceil(64);
        self.moved_last.resize(words, 0);
        self.moved_now.resize(words, 0);
        self.reserve_pairs(n);
        let mut everything = true;
        // Beyond `iterations`, the solver goes on only while a pair still overlaps deeply.
        let mut deep = false;
        for pass in 0..iterations.saturating_add(self.deep_iterations) {
            if pass >= iterations && !deep {
                break;
            }
            deep = false;
            if stale {
                let repaired = index.is_some_and(|(ix, m)| {
                    self.repair_candidates(positions, radii, max_radius, ix, m, drift_sq)
                });
                if !repaired {
                    self.grid.rebuild(positions);
                    self.collect_candidates(positions, radii, own_margin);
                    self.anchors.clear();
                    self.anchors.extend_from_slice(positions);
                    drift_sq = (own_margin * 0.5) * (own_margin * 0.5);
                    index = None;
                    everything = true;
                }
                // After a repair, every pair that can have changed has a circle that moved in
                // the previous iteration (a circle only drifts past the limit by moving, and
                // is re-anchored the next iteration), so the skipping below still measures
                // every pair it must; the first iteration measures everything anyway.
                stale = false;
            }
            std::mem::swap(&mut self.moved_last, &mut self.moved_now);
            self.moved_now.fill(0);
            // The pairs overlapping now, in candidate order.
            self.pairs.clear();
            let moved = self.moved_last.as_slice();
            let moved_last = |k: u32| bit(moved, k);
            for &(i, j) in &self.candidates {
                if (everything || moved_last(i) || moved_last(j))
                    && contact(positions, radii, i, j).is_some()
                {
                    self.pairs.push((i, j));
                }
            }
            everything = recheck_all;
            if self.pairs.is_empty() {
                break;
            }
            stats.iterations += 1;
            stats.pairs += self.pairs.len();
            stats.last_max_overlap = 0.0;
            for &(i, j) in &self.pairs {
                let depth = separate_pair(positions, radii, i, j);
                stats.last_max_overlap = stats.last_max_overlap.max(depth);
                deep |= depth > DEEP_FRACTION * (radius_of(radii, i) + radius_of(radii, j));
                // Stamped even when rounding leaves nothing to move: the pair measured as
                // overlapping, so it is measured again next iteration, as without skipping.
                set_bit(&mut self.moved_now, i);
                set_bit(&mut self.moved_now, j);
                if depth > 0.0 {
                    stale |= drifted(positions, &self.anchors, i, drift_sq)
                        || drifted(positions, &self.anchors, j, drift_sq);
                }
            }
        }
        stats
    }

    /// The candidate pairs the last [`Self::resolve`] worked from: every pair `(i, j)`,
    /// `i < j`, that could overlap at the positions it returned (in candidate order).
    pub fn candidates(&self) -> &[(u32, u32)] {
        &self.candidates
    }

    /// Separates circles from *held* ones (circles that must not move, such as bodies pressed
    /// against a wall): for each candidate pair of the last [`Self::resolve`] with exactly one
    /// circle held and the two overlapping, the other circle moves out by the whole overlap
    /// along the line of centres (coincident centres as in `resolve`) and is held from then
    /// on, so a row of circles behind a held one gives way down the line. Repeats while a
    /// circle moved, at most `passes` times. Returns whether any circle moved.
    pub fn separate_from_held(
        &self,
        positions: &mut [Vec2],
        radii: &[f32],
        held: &mut [bool],
        passes: usize,
    ) -> bool {
        let mut any = false;
        for _ in 0..passes {
            let mut moved = false;
            for &(i, j) in &self.candidates {
                let (hi, hj) = match (held.get(i as usize), held.get(j as usize)) {
                    (Some(&hi), Some(&hj)) => (hi, hj),
                    _ => continue,
                };
                if hi == hj {
                    continue;
                }
                let Some((normal, depth)) = contact(positions, radii, i, j) else {
                    continue;
                };
                // The normal points from `i` to `j`.
                let (free, push) = if hi { (j, normal) } else { (i, -normal) };
                if let Some(p) = positions.get_mut(free as usize) {
                    *p += push * depth;
                }
                if let Some(h) = held.get_mut(free as usize) {
                    *h = true;
                }
                moved = true;
            }
            any |= moved;
            if !moved {
                break;
            }
        }
        any
    }

    /// Separates the overlapping candidate pairs of the last [`Self::resolve`] that have a
    /// held circle (see [`Self::separate_from_held`]) and overlap by more than `tolerance` of
    /// the sum of their radii: a free circle moves out by the whole overlap, two held ones by
    /// half of it each. Pairs of two free circles overlapping by more than `free_tolerance`
    /// move apart by half of it each: a free circle moved out of a held one by its whole
    /// overlap may land in a free neighbour, after the iterations of [`Self::resolve`] are
    /// over. Nothing becomes held. Meant to alternate with the static geometry pushing each
    /// moved circle back out of walls: circles wedged between a wall and a held circle then
    /// slide along the wall until they fit, which one pass of [`Self::separate_from_held`]
    /// (whose moves the wall may undo) does not reach. Returns the deepest overlap of the
    /// pairs it moved, as a fraction of the sum of their radii (0 when it moved none).
    pub fn separate_near_held(
        &self,
        positions: &mut [Vec2],
        radii: &[f32],
        held: &[bool],
        (tolerance, free_tolerance): (f32, f32),
    ) -> f32 {
        let mut deepest: f32 = 0.0;
        for &(i, j) in &self.candidates {
            let (Some(&hi), Some(&hj)) = (held.get(i as usize), held.get(j as usize)) else {
                continue;
            };
            let Some((normal, depth)) = contact(positions, radii, i, j) else {
                continue;
            };
            let reach = radius_of(radii, i) + radius_of(radii, j);
            // The overlap as a fraction of the radii (at most 1; a quotient that is not a
            // number, of radii too large to add up, counts as 1, so a move never reads as 0).
            let fraction = (depth / reach).min(1.0);
            if !(hi || hj) {
                if depth > free_tolerance * reach && separate_pair(positions, radii, i, j) > 0.0 {
                    deepest = deepest.max(fraction);
                }
                continue;
            }
            if !(depth > tolerance * reach) {
                continue;
            }
            if hi && hj {
                if separate_pair(positions, radii, i, j) > 0.0 {
                    deepest = deepest.max(fraction);
                }
                continue;
            }
            // The normal points from `i` to `j`.
            let (free, push) = if hi { (j, normal) } else { (i, -normal) };
            if let Some(p) = positions.get_mut(free as usize) {
                *p += push * depth;
                deepest = deepest.max(fraction);
            }
        }
        deepest
    }

    /// [`Self::resolve`] on the positions and radii of `bodies` (copied through reusable
    /// scratch buffers; velocities are not changed).
    pub fn resolve_bodies(&mut self, bodies: &mut [Body], iterations: u32) -> ResolveStats {
        let (mut positions, mut radii) = (take(&mut self.positions), take(&mut self.radii));
        positions.clear();
        positions.extend(bodies.iter().map(|b| b.position));
        radii.clear();
        radii.extend(bodies.iter().map(|b| b.radius));
        let stats = self.resolve(&mut positions, &radii, iterations);
        for (b, &p) in bodies.iter_mut().zip(&positions) {
            b.position = p;
        }
        (self.positions, self.radii) = (positions, radii);
        stats
    }

    /// The deepest overlap between any two circles (0 when none overlap), using the grid.
    pub fn deepest_overlap(&mut self, positions: &[Vec2], radii: &[f32]) -> f32 {
        let n = positions.len().min(radii.len());
        let (Some(positions), Some(radii)) = (positions.get(..n), radii.get(..n)) else {
            return 0.0;
        };
        self.seeded_margin = None;
        self.grid.rebuild(positions);
        self.collect_candidates(positions, radii, 0.0);
        self.candidates
            .iter()
            .filter_map(|&(i, j)| contact(positions, radii, i, j))
            .map(|(_, depth)| depth)
            .fold(0.0, f32::max)
    }

    /// Room for [`PAIRS_RESERVED_PER_CIRCLE`] pairs per circle of `n` in the candidate and
    /// overlap buffers (their lengths vary with the crowd from tick to tick; a new largest
    /// count would otherwise grow them in a warm world).
    fn reserve_pairs(&mut self, n: usize) {
        let room = n.saturating_mul(PAIRS_RESERVED_PER_CIRCLE);
        self.candidates.reserve_total(room);
        self.pairs.reserve_total(room);
    }

    /// Fills `candidates` with every pair `(i, j)`, `i < j`, closer than the sum of their
    /// radii plus `margin`, in the grid's pair order (one sweep over neighbouring cells, see
    /// [`CellGrid`]'s [`NeighbourSearch::for_each_pair_within`]), from the grid as rebuilt.
    fn collect_candidates(&mut self, positions: &[Vec2], radii: &[f32], margin: f32) {
        self.candidates.clear();
        let max_radius = radii.iter().fold(0.0f32, |m, &r| m.max(sane_radius(r)));
        let pairs = &mut self.candidates;
        let radius = |k: u32| radii.get(k as usize).copied().map_or(0.0, sane_radius);
        let n = positions.len().min(radii.len());
        self.grid
            .for_each_pair_within(2.0 * max_radius + margin, |pair| {
                let (i, j) = (pair.a.min(pair.b), pair.a.max(pair.b));
                if j as usize >= n {
                    return;
                }
                let sum = radius(i) + radius(j) + margin;
                if (pair.pb - pair.pa).length_squared() < sum * sum {
                    pairs.push((i, j));
                }
            });
    }
}

/// If the offset `d` is shorter than `reach` (and not NaN): the unit direction of `d` and the
/// penetration depth `reach - |d|`; when `d` is too short to give a direction, `fallback()` and
/// depth `reach`.
fn penetration(d: Vec2, reach: f32, fallback: impl FnOnce() -> Vec2) -> Option<(Vec2, f32)> {
    let dist_sq = d.length_squared();
    if dist_sq.is_nan() || dist_sq >= reach * reach {
        return None;
    }
    let dist = dist_sq.sqrt();
    Some(if dist > reach * COINCIDENT_FRACTION {
        (d / dist, reach - dist)
    } else {
        (fallback(), reach)
    })
}

/// Contact of circles `i` and `j` now: unit normal from `i` to `j` and overlap depth (`None`
/// when apart). Coincident centres use [`split_direction`].
fn contact(positions: &[Vec2], radii: &[f32], i: u32, j: u32) -> Option<(Vec2, f32)> {
    let (p, q) = (*positions.get(i as usize)?, *positions.get(j as usize)?);
    let radius = |k: u32| radii.get(k as usize).copied().map_or(0.0, sane_radius);
    penetration(q - p, radius(i) + radius(j), || split_direction(i, j))
}

/// Overlaps shallower than this fraction of the sum of radii may be left where rounding
/// keeps both circles in place (see [`separate_pair`]).
const ROUNDING_SLACK: f32 = 1e-3;

/// Moves circles `i` and `j` apart by half their current overlap each; returns the overlap
/// (0 when they do not overlap).
///
/// Far from the origin, positions are coarse (1/16 m apart near [`crate::limits::MAX_COORD`]):
/// a half overlap shorter than half that spacing rounds away and would leave the pair
/// overlapping for good. When neither circle moved and the overlap is deeper than
/// [`ROUNDING_SLACK`] of the radii sum, each moves instead by a little more than the spacing
/// of its coordinates (so at least one coordinate changes, and the pair ends apart).
fn separate_pair(positions: &mut [Vec2], radii: &[f32], i: u32, j: u32) -> f32 {
    let Some((normal, depth)) = contact(positions, radii, i, j) else {
        return 0.0;
    };
    let half = normal * (depth * 0.5);
    let (Some(&a), Some(&b)) = (positions.get(i as usize), positions.get(j as usize)) else {
        return depth;
    };
    let (mut a2, mut b2) = (a - half, b + half);
    if a2 == a && b2 == b {
        let reach = radius_of(radii, i) + radius_of(radii, j);
        if depth > ROUNDING_SLACK * reach {
            // The dominant component of a unit normal is at least 1/sqrt(2) of it, and the
            // spacing of `f32` values near `x` is at most `|x| * EPSILON`.
            let largest = a.abs().max(b.abs()).max_element();
            let step = normal * (1.5 * largest * f32::EPSILON).max(depth * 0.5);
            (a2, b2) = (a - step, b + step);
        }
    }
    if let Some(p) = positions.get_mut(i as usize) {
        *p = a2;
    }
    if let Some(p) = positions.get_mut(j as usize) {
        *p = b2;
    }
    depth
}

/// Radius of circle `k` usable in arithmetic (0 when missing, negative or not finite).
fn radius_of(radii: &[f32], k: u32) -> f32 {
    radii.get(k as usize).copied().map_or(0.0, sane_radius)
}

#[cfg(test)]
mod tests;
