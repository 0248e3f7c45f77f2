//! The two solvers behind [`super::SlotAssignment`]: Jonker–Volgenant (exact; see
//! [`super::lapjv`] for the algorithm) and a greedy heuristic (`O(rows · cols)` plus bounded
//! pairwise-swap passes). Both work on `rows <= cols` and are deterministic (fixed scan
//! orders; among equal costs the greedy takes the first in index order, Jonker–Volgenant
//! the first its SIMD scan meets, see [`super::lapjv`]).

use super::lapjv::Core;

/// From this matrix size up, [`Jv`] first solves an `f32` copy of the costs and then only
/// repairs that solution in `f64` (measured on fresh form-ups: the plain `f64` solve is
/// faster up to 32, even at 48, the warm start faster from 64).
pub(super) const WARM_START_FROM: usize = 48;

/// The exact solver: Jonker–Volgenant on the `f64` costs, warm-started from the optimum of
/// their `f32` rounding above [`WARM_START_FROM`].
///
/// The `f32` solve does almost all the work at twice the SIMD width and half the memory
/// traffic; its prices and assignment are then checked in `f64` (every assigned row's column
/// must be one of its minimum reduced cost), the few rows that fail are freed and augmented
/// again in `f64`. The answer is the `f64` optimum whatever the `f32` pass found: it only
/// decides how much repair is left.
#[derive(Clone, Debug, Default)]
pub(super) struct Jv {
    exact: Core<f64>,
    coarse: Core<f32>,
}

impl Jv {
    /// Sizes the cost matrix for `rows × cols` (`rows <= cols`), padded to `cols × cols` with
    /// zero-cost dummy rows; the caller fills the first `rows` rows of [`Jv::costs_mut`].
    pub fn prepare(&mut self, rows: usize, cols: usize) {
        self.exact.prepare(cols.max(rows));
    }

    /// The row-major `n × n` cost matrix (`n = cols`); costs must be finite.
    pub fn costs_mut(&mut self) -> &mut [f64] {
        &mut self.exact.costs
    }

    /// The cost matrix.
    #[cfg(test)]
    pub fn costs(&self) -> &[f64] {
        &self.exact.costs
    }

    /// Minimum-cost assignment of the prepared matrix; writes the column of each of the first
    /// `rows` rows to `col_of_row`.
    pub fn solve(&mut self, rows: usize, col_of_row: &mut Vec<usize>) {
        col_of_row.clear();
        let n = self.exact.n();
        if rows == 0 || n == 0 || rows > n || self.exact.costs.len() != n * n {
            return;
        }
        if n >= WARM_START_FROM && self.warm_start() {
            self.exact.resume();
        } else {
            self.exact.solve();
        }
        col_of_row.extend(self.exact.x.iter().take(rows).copied());
    }

    /// Solves the `f32` rounding of the costs and hands its prices and assignment to the
    /// exact core; `false` (nothing handed over) if the prices came out non-finite.
    fn warm_start(&mut self) -> bool {
        let n = self.exact.n();
        self.coarse.prepare(n);
        for (c32, &c) in self.coarse.costs.iter_mut().zip(&self.exact.costs) {
            *c32 = c as f32;
        }
        self.coarse.solve();
        if self.coarse.v.len() != n || !self.coarse.v.iter().all(|v| v.is_finite()) {
            return false;
        }
        self.exact.v.clear();
        self.exact
            .v
            .extend(self.coarse.v.iter().map(|&v| f64::from(v)));
        self.exact.x.clone_from(&self.coarse.x);
        self.exact.y.clone_from(&self.coarse.y);
        true
    }
}

/// Largest number of pairwise-swap improvement passes of the greedy solver.
pub(super) const GREEDY_SWAP_PASSES: usize = 2;

/// Greedy assignment of `rows <= cols`: each row in index order takes its cheapest free column
/// (ties by index), then up to [`GREEDY_SWAP_PASSES`] passes swap the columns of two rows or
/// move a row to a free column whenever that lowers the total. `taken` is scratch.
pub(super) fn greedy(
    rows: usize,
    cols: usize,
    cost: impl Fn(usize, usize) -> f64,
    taken: &mut Vec<bool>,
    col_of_row: &mut Vec<usize>,
) {
    col_of_row.clear();
    taken.clear();
    taken.resize(cols, false);
    if cols < rows {
        return;
    }
    for row in 0..rows {
        let mut best = usize::MAX;
        let mut best_cost = f64::INFINITY;
        for (col, &t) in taken.iter().enumerate() {
            if !t {
                let c = cost(row, col);
                if best == usize::MAX || c < best_cost {
                    best = col;
                    best_cost = c;
                }
            }
        }
        if let Some(t) = taken.get_mut(best) {
            *t = true;
        }
        col_of_row.push(best);
    }
    for _ in 0..GREEDY_SWAP_PASSES {
        let mut improved = false;
        for a in 0..rows {
            for b in a + 1..rows {
                let (ca, cb) = (col_of_row[a], col_of_row[b]);
                let now = cost(a, ca) + cost(b, cb);
                if cost(a, cb) + cost(b, ca) < now - 1e-9 * now.abs() {
                    col_of_row.swap(a, b);
                    improved = true;
                }
            }
            if cols > rows {
                let ca = col_of_row[a];
                let mut best = (cost(a, ca), ca);
                for (col, &t) in taken.iter().enumerate() {
                    if !t {
                        let c = cost(a, col);
                        if c < best.0 {
                            best = (c, col);
                        }
                    }
                }
                if best.1 != ca {
                    taken[ca] = false;
                    taken[best.1] = true;
                    col_of_row[a] = best.1;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
}
