//! Test-only reference: the dense Jonker–Volgenant solver in its plain form (`f64` costs only,
//! a scalar relax pass with predecessors tracked in the loop), against which the tests check
//! the total cost of the solver's `f32` warm start and SIMD path search on random matrices.

/// Marks an unassigned row or column.
const NONE: usize = usize::MAX;

/// Reusable buffers of the Jonker–Volgenant solver.
#[derive(Clone, Debug, Default)]
pub(super) struct ReferenceJv {
    /// Row-major `n × n` cost matrix, `n = cols` (rows beyond the real ones cost 0).
    pub costs: Vec<f64>,
    n: usize,
    /// Column prices (duals).
    v: Vec<f64>,
    /// Column of each row.
    x: Vec<usize>,
    /// Row of each column.
    y: Vec<usize>,
    free_rows: Vec<usize>,
    unique: Vec<bool>,
    pred: Vec<usize>,
    /// Columns settled by the current path search: `(column, price, distance)`.
    settled: Vec<(usize, f64, f64)>,
    d: Vec<f64>,
}

impl ReferenceJv {
    /// Sizes the cost matrix for `rows × cols` (`rows <= cols`), padded to `cols × cols` with
    /// zero-cost dummy rows; the caller fills the first `rows` rows.
    pub fn prepare(&mut self, rows: usize, cols: usize) {
        let n = cols.max(rows);
        self.n = n;
        self.costs.clear();
        self.costs.resize(n * n, 0.0);
    }

    /// Cost of row `i`, column `j`.
    #[inline]
    fn c(&self, i: usize, j: usize) -> f64 {
        self.costs[i * self.n + j]
    }

    /// Minimum-cost assignment of the prepared matrix; writes the column of each of the first
    /// `rows` rows to `col_of_row`. Costs must be finite.
    pub fn solve(&mut self, rows: usize, col_of_row: &mut Vec<usize>) {
        col_of_row.clear();
        let n = self.n;
        if rows == 0 || n == 0 || rows > n || self.costs.len() != n * n {
            return;
        }
        self.v.clear();
        self.v.resize(n, f64::INFINITY);
        self.x.clear();
        self.x.resize(n, NONE);
        self.y.clear();
        self.y.resize(n, NONE);
        self.pred.clear();
        self.pred.resize(n, 0);
        self.d.clear();
        self.d.resize(n, 0.0);
        self.free_rows.clear();

        self.column_reduction();
        // One round of augmenting row reduction (the paper runs two, unbounded; on formation
        // geometry that costs more than it saves, measured with the assignment bench).
        if !self.free_rows.is_empty() {
            self.augmenting_row_reduction();
        }
        for k in 0..self.free_rows.len() {
            let start = self.free_rows[k];
            let Some(mut j) = self.find_path(start) else {
                continue;
            };
            // Flip the alternating path back to `start`.
            for _ in 0..n {
                let i = self.pred[j];
                self.y[j] = i;
                let next = std::mem::replace(&mut self.x[i], j);
                if i == start {
                    break;
                }
                j = next;
            }
        }
        col_of_row.extend(self.x.iter().take(rows).copied());
    }

    /// Column reduction and reduction transfer: every column's price is its cheapest cost;
    /// rows that are the unique minimum of some column get it.
    fn column_reduction(&mut self) {
        let n = self.n;
        for i in 0..n {
            for j in 0..n {
                let c = self.c(i, j);
                if c < self.v[j] {
                    self.v[j] = c;
                    self.y[j] = i;
                }
            }
        }
        self.unique.clear();
        self.unique.resize(n, true);
        for j in (0..n).rev() {
            let i = self.y[j];
            if self.x[i] == NONE {
                self.x[i] = j;
            } else {
                self.unique[i] = false;
                self.y[j] = NONE;
            }
        }
        for i in 0..n {
            if self.x[i] == NONE {
                self.free_rows.push(i);
            } else if self.unique[i] {
                let j = self.x[i];
                let mut min = f64::INFINITY;
                for j2 in 0..n {
                    if j2 != j {
                        min = min.min(self.c(i, j2) - self.v[j2]);
                    }
                }
                if min.is_finite() {
                    self.v[j] -= min;
                }
            }
        }
    }

    /// Augmenting row reduction: free rows bid for their best column, pushing out its holder
    /// (at most `n` bids lower a price; after that displaced rows are left for augmentation).
    fn augmenting_row_reduction(&mut self) {
        let n = self.n;
        let count = self.free_rows.len();
        let mut current = 0;
        let mut new_free = 0;
        let mut rounds = 0usize;
        while current < count {
            rounds += 1;
            let free_i = self.free_rows[current];
            current += 1;
            let (mut j1, mut v1) = (0, self.c(free_i, 0) - self.v[0]);
            let (mut j2, mut v2) = (NONE, f64::INFINITY);
            for j in 1..n {
                let c = self.c(free_i, j) - self.v[j];
                if c < v2 {
                    if c >= v1 {
                        v2 = c;
                        j2 = j;
                    } else {
                        v2 = v1;
                        v1 = c;
                        j2 = j1;
                        j1 = j;
                    }
                }
            }
            let mut i0 = self.y[j1];
            let v1_new = self.v[j1] - (v2 - v1);
            let lowers = v1_new < self.v[j1];
            if rounds < current * n && rounds < n {
                if lowers {
                    self.v[j1] = v1_new;
                } else if i0 != NONE && j2 != NONE {
                    j1 = j2;
                    i0 = self.y[j2];
                }
                if i0 != NONE {
                    if lowers {
                        current -= 1;
                        self.free_rows[current] = i0;
                    } else {
                        self.free_rows[new_free] = i0;
                        new_free += 1;
                    }
                }
            } else if i0 != NONE {
                self.free_rows[new_free] = i0;
                new_free += 1;
            }
            self.x[free_i] = j1;
            self.y[j1] = free_i;
        }
        self.free_rows.truncate(new_free);
    }

    /// Dijkstra-like shortest augmenting path from free row `start`; returns the free column
    /// it ends at (with `pred` describing the path) and updates the column prices.
    ///
    /// One column is settled per step: the unsettled one of smallest distance `d` (the first
    /// in index order among equals); the search stops at the first free column settled.
    /// Relaxing from the settled column's row and finding the smallest distance and its
    /// column are one branch-free pass over the row, contiguous in memory (the row-major cost
    /// row, prices, distances and predecessors zipped, no index lists, no bounds checks). A settled column is taken out of the passes
    /// without a test: its price is set to -inf (so its reduced cost is +inf and never
    /// relaxes it) and its distance to +inf (so it is never the minimum); its real price and
    /// distance wait in `settled` until the prices are updated at the end.
    fn find_path(&mut self, start: usize) -> Option<usize> {
        let n = self.n;
        self.settled.clear();
        let costs = &self.costs[..n * n];
        let v = &mut self.v[..n];
        let d = &mut self.d[..n];
        let pred = &mut self.pred[..n];
        let y = &self.y[..n];
        let mut row = &costs[start * n..(start + 1) * n];
        let (mut j, mut min) = (NONE, f64::INFINITY);
        for (k, (((dk, pk), &c), &vk)) in d
            .iter_mut()
            .zip(pred.iter_mut())
            .zip(row)
            .zip(v.iter())
            .enumerate()
        {
            *dk = c - vk;
            *pk = start;
            if *dk < min {
                min = *dk;
                j = k;
            }
        }
        let end = loop {
            if j == NONE {
                break None;
            }
            self.settled.push((j, v[j], d[j]));
            let i = y[j];
            if i == NONE {
                break Some(j);
            }
            // Relax from row `i` (reached through column `j` at distance `min`) and find the
            // next unsettled minimum in the same pass.
            row = &costs[i * n..(i + 1) * n];
            let h = row[j] - v[j] - min;
            v[j] = f64::NEG_INFINITY;
            d[j] = f64::INFINITY;
            let (mut next, mut next_min) = (NONE, f64::INFINITY);
            for (k, (((dk, pk), &c), &vk)) in d
                .iter_mut()
                .zip(pred.iter_mut())
                .zip(row)
                .zip(v.iter())
                .enumerate()
            {
                let reduced = c - vk - h;
                let better = reduced < *dk;
                *dk = if better { reduced } else { *dk };
                *pk = if better { i } else { *pk };
                let lower = *dk < next_min;
                next_min = if lower { *dk } else { next_min };
                next = if lower { k } else { next };
            }
            min = next_min;
            j = next;
        };
        // Restore the settled columns' prices; those whose rows were scanned (all but the
        // free end) drop by their distance short of the path's length.
        let scanned = self.settled.len() - usize::from(end.is_some());
        for (k, &(c, price, dist)) in self.settled.iter().enumerate() {
            v[c] = if k < scanned && end.is_some() {
                price + dist - min
            } else {
                price
            };
        }
        end
    }
}
