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
    pub(super) fn sweep_pairs<F: FnMut(NearPair)>(&self, radius: f32, f: F) {
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        self.sweep_slots(radius, 0..self.items.len(), 0, f);
    }

    /// Splits the items, in slot order, into spans for sweeping apart (on several threads)
    /// with [`Self::sweep_span`]: clears `bounds` and fills it with `0`, the span ends in
    /// order, and the item count last. Each span holds whole rows of cells, at least `target`
    /// items (the last may hold fewer), so a pair swept from a span has its other item in the
    /// same span or in the first row of the next one. One span when `radius` is not swept
    /// (see [`Self::sweep_radius`]). Depends on the items' cells and `target` only.
    pub fn sweep_spans(&self, radius: f32, target: usize, bounds: &mut Vec<u32>) {
        bounds.clear();
        bounds.push(0);
        let cells = self.sorted_cells.as_slice();
        let n = cells.len().min(self.items.len());
        if !(radius <= self.sweep_radius()) {
            bounds.push(n as u32);
            return;
        }
        let cols = self.cols.max(1);
        let target = target.max(1);
        let mut start = 0usize;
        while start < n {
            let mut end = (start + target).min(n);
            if let Some(&last) = end.checked_sub(1).and_then(|k| cells.get(k)) {
                // To the end of the row the span's last item is in.
                let next_row = (last / cols + 1).saturating_mul(cols);
                end += cells
                    .get(end..)
                    .unwrap_or(&[])
                    .partition_point(|&c| c < next_row);
            }
            bounds.push(end as u32);
            start = end;
        }
        if n == 0 {
            bounds.push(0);
        }
    }

    /// The pairs of [`super::NeighbourSearch::for_each_pair_within`] whose first item (`slot_a`)
    /// lies in `slots`, in the order the whole sweep gives them; with `beyond_only`, only
    /// those whose second item (`slot_b`) lies beyond `slots` (at `slots.end` or later). The
    /// spans of [`Self::sweep_spans`] swept one after another give every pair once, in the
    /// whole sweep's order; swept `beyond_only`, a span gives the pairs it shares with the
    /// next one (from its last row alone: the cost of a row, not of the span).
    pub fn sweep_span<F: FnMut(NearPair)>(
        &self,
        radius: f32,
        slots: core::ops::Range<usize>,
        beyond_only: bool,
        f: F,
    ) {
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        if !beyond_only {
            self.sweep_slots(radius, slots, 0, f);
            return;
        }
        let cells = self.sorted_cells.as_slice();
        let n = cells.len().min(self.items.len());
        let (start, end) = (slots.start.min(n), slots.end.min(n));
        let (Some(&last), Some(span)) = (
            end.checked_sub(1).and_then(|k| cells.get(k)),
            cells.get(start..end),
        ) else {
            return;
        };
        // Only the last row of `slots`, or the last two when `slots` ends inside a row, can
        // pair with a later slot (when the radius is swept).
        let cols = self.cols.max(1);
        let last_row = last / cols;
        let at_row_end = cells.get(end).is_none_or(|&c| c / cols > last_row);
        let from = if radius > self.sweep_radius() {
            start
        } else {
            let from_row = if at_row_end {
                last_row
            } else {
                last_row.saturating_sub(1)
            };
            start + span.partition_point(|&c| c / cols < from_row)
        };
        self.sweep_slots(radius, from..end, end, f);
    }

    /// The sweep (or the per-item queries, for a radius above [`Self::sweep_radius`]) for
    /// the items in `slots`, giving only the pairs whose second slot is `min_b` or later.
    fn sweep_slots<F: FnMut(NearPair)>(
        &self,
        radius: f32,
        slots: core::ops::Range<usize>,
        min_b: usize,
        mut f: F,
    ) {
        let cells = self.sorted_cells.as_slice();
        let positions = self.sorted_positions.as_slice();
        let items = self.items.as_slice();
        let n = cells.len().min(positions.len()).min(items.len());
        let slots = slots.start.min(n)..slots.end.min(n);
        if radius > self.sweep_radius() {
            // Each item queries around itself, in slot order, and keeps the later slots.
            for k in slots {
                let (a, pa) = (items[k], positions[k]);
                let slot_a = k as u32;
                self.visit_in_radius(pa, radius, |slot_b, b, pb| {
                    if slot_b > slot_a && slot_b as usize >= min_b {
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
        let cols = self.cols.max(1);
        // The next row's run: cells `first..=last` of it occupy `lo..hi`. The sweep moves
        // both ends forward only, and they start no earlier than the first slot swept (the
        // next row's cells come after every slot before it).
        let (mut lo, mut hi) = (slots.start, slots.start);
        for k in slots {
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
                if m < min_b {
                    continue;
                }
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

    /// Every pair of the whole sweep, in order, as `(slot_a, slot_b)`.
    fn slot_pairs(g: &CellGrid, radius: f32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        g.for_each_pair_within(radius, |p| out.push((p.slot_a, p.slot_b)));
        out
    }

    proptest! {
        #[test]
        fn spans_give_the_whole_sweep_in_order(
            pts in prop::collection::vec((-12.0f32..12.0, -12.0f32..12.0), 0..300),
            cell in 0.3f32..4.0,
            fraction in 0.0f32..1.2,
            target in 1usize..40,
        ) {
            let pts: Vec<Vec2> = pts.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
            let mut g = CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), cell).unwrap();
            g.rebuild(&pts);
            let radius = cell * fraction;
            let mut bounds = Vec::new();
            g.sweep_spans(radius, target, &mut bounds);
            prop_assert_eq!(bounds.first(), Some(&0));
            prop_assert_eq!(bounds.last().copied(), Some(pts.len() as u32));
            prop_assert!(bounds.windows(2).all(|w| w[0] <= w[1]));
            let mut spans = Vec::new();
            for (c, w) in bounds.windows(2).enumerate() {
                let (start, end) = (w[0] as usize, w[1] as usize);
                let mut own = Vec::new();
                g.sweep_span(radius, start..end, false, |p| own.push((p.slot_a, p.slot_b)));
                // A span's pairs reach no further than the next span.
                let next_end = bounds.get(c + 2).copied().unwrap_or(end as u32);
                let inside =
                    |&(a, b): &(u32, u32)| (start..end).contains(&(a as usize)) && b < next_end.max(end as u32);
                prop_assert!(own.iter().all(inside));
                // Its pairs with later spans, from its last rows alone.
                let mut beyond = Vec::new();
                g.sweep_span(radius, start..end, true, |p| beyond.push((p.slot_a, p.slot_b)));
                let want: Vec<(u32, u32)> =
                    own.iter().copied().filter(|&(_, b)| b as usize >= end).collect();
                prop_assert_eq!(beyond, want);
                spans.extend(own);
            }
            prop_assert_eq!(spans, slot_pairs(&g, radius));
        }

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
