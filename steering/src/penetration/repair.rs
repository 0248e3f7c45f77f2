//! Local repair of handed-in candidate pairs. The candidates of
//! [`PenetrationSolver::seed_candidates`] hold while every circle is within half their margin
//! of its anchor. When a few circles have drifted farther, only their pairs can be missing:
//! they are re-anchored where they stand and their pairs looked up in the index the
//! candidates were collected from, instead of collecting every circle's pairs afresh (a cost
//! that would otherwise be paid whenever any one circle of many drifts, so more often the more
//! circles there are).

use crate::capacity::ReserveTotal;
use glam::Vec2;

use super::{PenetrationSolver, drifted, sane_radius};
use crate::grid::NeighbourSearch;

/// Most circles re-anchored by repairs within one `resolve` (beyond, the solver collects its
/// candidates afresh): the drifted circles are paired with each other directly, a cost that
/// grows with the square of their number.
pub const REPAIR_MAX: usize = 256;

/// A circle re-anchored by an earlier repair of this `resolve`.
const REANCHORED: u8 = 1;
/// A circle drifted past the limit, being repaired now.
const DRIFTED: u8 = 2;

/// The buffers of the repairs, kept by the solver so a warm one allocates nothing.
#[derive(Clone, Debug, Default)]
pub(super) struct RepairScratch {
    /// Per circle: [`REANCHORED`] and [`DRIFTED`] bits (all clear between `resolve` calls).
    marks: Vec<u8>,
    /// Circles re-anchored in this `resolve`, in the order of their repairs.
    reanchored: Vec<u32>,
    drifted: Vec<u32>,
    /// Candidate pairs with a drifted circle before the repair (sorted).
    known: Vec<(u32, u32)>,
    /// Pairs the repair found (sorted, then those already known dropped).
    found: Vec<(u32, u32)>,
}

impl RepairScratch {
    /// Starts a `resolve` of `n` circles: no circle re-anchored; room for a full repair.
    pub(super) fn start(&mut self, n: usize) {
        for &k in &self.reanchored {
            if let Some(m) = self.marks.get_mut(k as usize) {
                *m = 0;
            }
        }
        self.reanchored.clear();
        self.marks.resize(n, 0);
        let pairs = REPAIR_MAX * 8;
        self.reanchored.reserve_total(REPAIR_MAX);
        self.drifted.reserve_total(REPAIR_MAX);
        self.known.reserve_total(pairs);
        self.found.reserve_total(pairs);
    }
}

impl PenetrationSolver {
    /// Re-anchors the circles that drifted more than `sqrt(limit_sq)` from their anchors and
    /// appends their missing candidate pairs (closer than `r_i + r_j + margin` at the anchors),
    /// looked up in `index`, which must hold the positions the candidates were collected at
    /// (the first anchors); `max_radius` is the largest of `radii`. Returns `false` when the
    /// repairs of this `resolve` would re-anchor more than [`REPAIR_MAX`] circles or meet more
    /// pairs than their buffers hold: the candidates are then unchanged, some anchors may have
    /// moved, and the caller collects afresh (which resets the anchors).
    pub(super) fn repair_candidates<S: NeighbourSearch>(
        &mut self,
        positions: &[Vec2],
        radii: &[f32],
        max_radius: f32,
        index: &S,
        margin: f32,
        limit_sq: f32,
    ) -> bool {
        let n = positions.len().min(radii.len()).min(self.anchors.len());
        let s = &mut self.repair;
        s.drifted.clear();
        for k in 0..n as u32 {
            if drifted(positions, &self.anchors, k, limit_sq) {
                if s.drifted.len() + s.reanchored.len() >= REPAIR_MAX {
                    return false;
                }
                s.drifted.push(k);
            }
        }
        let radius = |k: u32| radii.get(k as usize).copied().map_or(0.0, sane_radius);
        for &k in &s.drifted {
            if let Some(m) = s.marks.get_mut(k as usize) {
                *m |= DRIFTED;
            }
        }
        let marked =
            |marks: &[u8], k: u32, bit: u8| marks.get(k as usize).is_some_and(|m| m & bit != 0);
        // The drifted circles' pairs already among the candidates.
        s.known.clear();
        let mut overflow = false;
        for &(i, j) in &self.candidates {
            if marked(&s.marks, i, DRIFTED) || marked(&s.marks, j, DRIFTED) {
                if s.known.len() < s.known.capacity() {
                    s.known.push((i, j));
                } else {
                    overflow = true;
                }
            }
        }
        s.known.sort_unstable();
        for &k in &s.drifted {
            if let (Some(a), Some(&p)) =
                (self.anchors.get_mut(k as usize), positions.get(k as usize))
            {
                *a = p;
            }
        }
        let anchors = &self.anchors;
        let close = |a: u32, b: u32| match (anchors.get(a as usize), anchors.get(b as usize)) {
            (Some(&p), Some(&q)) => {
                let sum = radius(a) + radius(b) + margin;
                (q - p).length_squared() < sum * sum
            }
            _ => false,
        };
        s.found.clear();
        let room = s.found.capacity();
        for &k in &s.drifted {
            let Some(&at) = anchors.get(k as usize) else {
                continue;
            };
            // Circles never re-anchored stand in the index at their anchors.
            let (marks, found) = (&s.marks, &mut s.found);
            index.for_each_in_radius(at, radius(k) + max_radius + margin, |j, _| {
                let moved = marks.get(j as usize).is_none_or(|&m| m != 0);
                if (j as usize) < n && !moved && close(k, j) {
                    if found.len() < room {
                        found.push((k.min(j), k.max(j)));
                    } else {
                        overflow = true;
                    }
                }
            });
            // Re-anchored circles are not where the index has them: paired directly.
            for &j in s.reanchored.iter().chain(&s.drifted) {
                if j != k && close(k, j) {
                    if s.found.len() < room {
                        s.found.push((k.min(j), k.max(j)));
                    } else {
                        overflow = true;
                    }
                }
            }
        }
        s.found.sort_unstable();
        s.found.dedup();
        let known = &s.known;
        s.found.retain(|p| known.binary_search(p).is_err());
        if self.candidates.len() + s.found.len() > self.candidates.capacity() {
            overflow = true;
        }
        if overflow {
            // Too many to hold without growing: collect afresh (which also resets the
            // anchors).
            for &k in &s.drifted {
                if let Some(m) = s.marks.get_mut(k as usize) {
                    *m &= !DRIFTED;
                }
            }
            return false;
        }
        self.candidates.extend_from_slice(&s.found);
        for &k in &s.drifted {
            if let Some(m) = s.marks.get_mut(k as usize) {
                if *m & REANCHORED == 0 {
                    s.reanchored.push(k);
                }
                *m = REANCHORED;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::CellGrid;
    use proptest::prelude::*;

    const MARGIN: f32 = 0.4;

    /// Every pair `(i, j)`, `i < j`, closer than `r_i + r_j + margin` (brute force).
    fn pairs_within(p: &[Vec2], r: &[f32], margin: f32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                let sum = r[i] + r[j] + margin;
                if (p[j] - p[i]).length_squared() < sum * sum {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    }

    /// A solver seeded as the world seeds it (pairs at `anchors` within the margin, the index
    /// built on `anchors`), then resolved for one iteration at `moved`: the overlapping pairs
    /// it found, and its candidates.
    fn seeded_then_moved(
        anchors: &[Vec2],
        radii: &[f32],
        moved: &mut [Vec2],
    ) -> (usize, Vec<(u32, u32)>) {
        let (min, max) = (Vec2::splat(-30.0), Vec2::splat(30.0));
        let mut solver = PenetrationSolver::new(min, max, 1.5).unwrap();
        let mut index = CellGrid::new(min, max, 1.5).unwrap();
        index.rebuild(anchors);
        let pairs = pairs_within(anchors, radii, MARGIN);
        solver.seed_candidates(anchors, MARGIN).extend(pairs);
        let stats = solver.resolve_seeded(moved, radii, 1, &index);
        (stats.pairs, solver.candidates().to_vec())
    }

    proptest! {
        /// Circles moved far from where their candidates were collected, a few or more than
        /// a repair takes: one iteration finds exactly the pairs overlapping where they now
        /// stand (brute force), and no candidate pair is listed twice.
        #[test]
        fn repaired_candidates_miss_no_overlap(
            seed in any::<u64>(),
            n in 2usize..400,
            moves in 1usize..300,
        ) {
            let mut rng = crate::SimRng::seed_from(seed);
            let anchors: Vec<Vec2> = (0..n)
                .map(|_| Vec2::new(rng.range(-25.0, 25.0), rng.range(-25.0, 25.0)))
                .collect();
            let radii: Vec<f32> = (0..n).map(|_| rng.range(0.2, 0.6)).collect();
            let mut moved = anchors.clone();
            for _ in 0..moves.min(n) {
                let k = rng.index(n);
                moved[k] = Vec2::new(rng.range(-25.0, 25.0), rng.range(-25.0, 25.0));
            }
            let overlapping = pairs_within(&moved, &radii, 0.0).len();
            let (found, candidates) = seeded_then_moved(&anchors, &radii, &mut moved);
            prop_assert_eq!(found, overlapping);
            let mut unique = candidates.clone();
            unique.sort_unstable();
            unique.dedup();
            prop_assert_eq!(unique.len(), candidates.len());
        }
    }

    #[test]
    fn a_few_drifted_circles_are_repaired_not_recollected() {
        // Two rows far apart; one circle of the first row jumps onto the second row.
        let anchors: Vec<Vec2> = (0..20)
            .map(|k| Vec2::new(k as f32 * 1.5 - 15.0, if k < 10 { -10.0 } else { 10.0 }))
            .collect();
        let radii = vec![0.5; 20];
        let mut moved = anchors.clone();
        moved[3] = anchors[14] + Vec2::new(0.3, 0.0);
        let (found, candidates) = seeded_then_moved(&anchors, &radii, &mut moved);
        assert_eq!(found, 1);
        // The handed-in pairs (none: the circles stand 1.5 apart with radii 0.5 and margin
        // 0.4) plus the repaired ones, appended: circle 3 and its new neighbours.
        assert!(candidates.contains(&(3, 14)));
        assert!(candidates.iter().all(|&(i, j)| i == 3 || j == 3));
        // Paired within the handed-in margin (1.2 apart < 0.5 + 0.5 + 0.4): a collection
        // afresh, with the solver's own margin (0.3 of the largest radius), would not list it.
        assert!(candidates.contains(&(3, 15)));
        // The pair was separated.
        assert!((moved[3] - moved[14]).length() >= 1.0 - 1e-5);
    }
}
