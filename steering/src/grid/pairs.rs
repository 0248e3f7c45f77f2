//! Every close pair at once: a sweep over the grid's cell-sorted items that visits each
//! unordered pair of neighbouring cells once, instead of one radius query per item (which
//! meets every pair twice and re-finds the cells around each item).

use super::{BruteForceSearch, CellGrid, NearPair, within_radius};

impl CellGrid {
    /// [`super::NeighbourSearch::for_each_pair_within`] for a radius below a cell: an item
    /// in cell `(x, y)` can only be that close to items in cells `x ± 1`, `y ± 1`, so each
    /// item is paired with the items after it in its own cell and the next cell of its row
    /// (which follow it in the sorted arrays), and with those of the three cells below it in
    /// the next row (a run of the sorted arrays whose ends only move forward as the sweep
    /// does). Larger radii fall back to one query per item; so does a radius within rounding
    /// of the cell size ([`Self::sweep_radius`]), where two points that close could be filed
    /// two cells apart.
    pub(super) fn sweep_pairs<F: FnMut(NearPair)>(&self, radius: f32, mut f: F) {
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        if radius > self.sweep_radius() {
            // Each item queries around itself, in slot order, and keeps the later slots.
            for (k, (&a, &pa)) in self.items.iter().zip(&self.sorted_positions).enumerate() {
                let slot_a = k as u32;
                self.visit_in_radius(pa, radius, |slot_b, b, pb| {
                    if slot_b > slot_a {
                        f(NearPair {
                            a,
                            b,
                            slot_a,
                            slot_b,
                            pa,
                            pb,
                        });
                    }
                });
            }
            return;
        }
        let cells = self.sorted_cells.as_slice();
        let positions = self.sorted_positions.as_slice();
        let items = self.items.as_slice();
        let n = cells.len().min(positions.len()).min(items.len());
        let cols = self.cols.max(1);
        // The next row's run: cells `first..=last` of it occupy `lo..hi`.
        let (mut lo, mut hi) = (0usize, 0usize);
        for k in 0..n {
            let (c, p, i) = (cells[k], positions[k], items[k]);
            let (row, col) = (c / cols, c % cols);
            // The rest of this cell and the next cell of the row: `k + 1..end`.
            let end_cell = if col + 1 < cols { c + 1 } else { c };
            let mut end = k + 1;
            while end < n && cells[end] <= end_cell {
                end += 1;
            }
            // Below: the next row's cells `col - 1..=col + 1`, at `lo..hi`.
            if row + 1 < self.rows {
                let base = (row + 1) * cols;
                let first = base + col.saturating_sub(1);
                let last = base + (col + 1).min(cols - 1);
                while lo < n && cells[lo] < first {
                    lo += 1;
                }
                hi = hi.max(lo);
                while hi < n && cells[hi] <= last {
                    hi += 1;
                }
            } else {
                (lo, hi) = (n, n);
            }
            // Both runs in one loop, so `f` is called (and inlined) at one place.
            for m in (k + 1..end).chain(lo..hi) {
                let q = positions[m];
                if within_radius(q, p, radius) {
                    f(NearPair {
                        a: i,
                        b: items[m],
                        slot_a: k as u32,
                        slot_b: m as u32,
                        pa: p,
                        pb: q,
                    });
                }
            }
        }
    }

    /// The largest radius `sweep_pairs` sweeps rather than queries: the cell size
    /// less the rounding of the cell lookup, `(v - min) / cell` computed in `f32`, whose
    /// error grows with the number of cells along an axis (a thousandth of a cell at about
    /// 2,000 cells).
    pub fn sweep_radius(&self) -> f32 {
        let cells = self.cols.max(self.rows) as f32 + 1.0;
        self.cell_size * (1.0 - 4.0 * f32::EPSILON * cells)
    }
}

impl BruteForceSearch {
    /// [`super::NeighbourSearch::for_each_pair_within`] by testing every pair.
    pub(super) fn all_pairs<F: FnMut(NearPair)>(&self, radius: f32, mut f: F) {
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        for (i, &pa) in self.positions.iter().enumerate() {
            for (j, &pb) in self.positions.iter().enumerate().skip(i + 1) {
                if within_radius(pb, pa, radius) {
                    let (a, b) = (i as u32, j as u32);
                    f(NearPair {
                        a,
                        b,
                        slot_a: a,
                        slot_b: b,
                        pa,
                        pb,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::NeighbourSearch;
    use super::*;
    use glam::Vec2;
    use proptest::prelude::*;

    fn pairs_of<S: NeighbourSearch>(s: &S, radius: f32, pts: &[Vec2]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        s.for_each_pair_within(radius, |pair| {
            let NearPair { a, b, pa, pb, .. } = pair;
            assert_eq!(Some(pa), pts.get(a as usize).copied());
            assert_eq!(Some(pb), pts.get(b as usize).copied());
            // The slots name the same items in the search's order.
            assert_eq!(s.order().get(pair.slot_a as usize), Some(&a));
            assert_eq!(s.order().get(pair.slot_b as usize), Some(&b));
            out.push((a.min(b), a.max(b)));
        });
        out
    }

    #[test]
    fn pairs_across_cells_rows_and_edges() {
        let mut g = CellGrid::new(Vec2::ZERO, Vec2::new(4.0, 4.0), 1.0).unwrap();
        let pts = [
            Vec2::new(0.9, 0.5),  // 0: cell (0,0)
            Vec2::new(1.1, 0.5),  // 1: cell (1,0), 0.2 from 0
            Vec2::new(3.9, 0.5),  // 2: last column of row 0
            Vec2::new(0.1, 1.5),  // 3: first column of row 1, 1.05 from 2's wrap (not near)
            Vec2::new(3.5, 1.2),  // 4: row 1, last column, 0.8 from 2
            Vec2::new(-3.0, 0.5), // 5: outside the bounds, clamped to cell (0,0)
            Vec2::NAN,            // 6: never near anything
        ];
        g.rebuild(&pts);
        let mut got = pairs_of(&g, 1.0, &pts);
        got.sort_unstable();
        assert_eq!(got, vec![(0, 1), (2, 4)]);
        // Nothing for a negative or NaN radius; every pair once for a huge one (the per-item
        // fallback), the NaN point excepted.
        assert!(pairs_of(&g, -1.0, &pts).is_empty());
        assert!(pairs_of(&g, f32::NAN, &pts).is_empty());
        assert_eq!(pairs_of(&g, 100.0, &pts).len(), 6 * 5 / 2);
    }

    #[test]
    fn a_pair_exactly_a_cell_apart_is_found() {
        // Filed two cells apart by the rounding of `(v - min) / cell`.
        let min = Vec2::splat(-58.831043);
        let cell = 1.098_986_7;
        let mut g = CellGrid::new(min, Vec2::splat(2000.0), cell).unwrap();
        let pts = [Vec2::new(249.9842, 0.0), Vec2::new(251.08319, 0.0)];
        g.rebuild(&pts);
        assert!(within_radius(pts[1], pts[0], cell));
        assert_eq!(pairs_of(&g, cell, &pts), vec![(0, 1)]);
        assert!(g.sweep_radius() < cell && g.sweep_radius() > 0.999 * cell);
    }

    proptest! {
        #[test]
        fn pairs_match_brute_force(
            pts in prop::collection::vec((-12.0f32..12.0, -12.0f32..12.0), 0..150),
            cell in 0.3f32..4.0,
            fraction in 0.0f32..1.6,
            exact in any::<bool>(),
        ) {
            let pts: Vec<Vec2> = pts.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
            let mut g = CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), cell).unwrap();
            let mut b = BruteForceSearch::new();
            g.rebuild(&pts);
            b.rebuild(&pts);
            // Radii up to and beyond the cell size (the fallback), and the cell size itself.
            let radius = if exact { cell } else { cell * fraction };
            let mut got = pairs_of(&g, radius, &pts);
            let want = pairs_of(&b, radius, &pts);
            let count = got.len();
            got.sort_unstable();
            got.dedup();
            prop_assert_eq!(count, got.len(), "a pair visited twice");
            prop_assert_eq!(got, want);
        }
    }
}
