//! The two solvers behind [`super::SlotAssignment`]: shortest augmenting paths with dual
//! potentials (the Jonker–Volgenant augmentation, in Crouse's rectangular form; `O(rows² ·
//! cols)` worst case) and a greedy heuristic (`O(rows · cols)` plus bounded
//! pairwise-swap passes). Both work on `rows <= cols` and are deterministic (fixed scan
//! orders; among equal costs the first in index order is taken).

/// Marks an unassigned row or column.
const NONE: usize = usize::MAX;

/// Reusable buffers of the shortest-augmenting-path solver.
#[derive(Clone, Debug, Default)]
pub(super) struct Jv {
    /// Row-major `rows × cols` cost matrix.
    pub costs: Vec<f64>,
    cols: usize,
    /// Row and column duals.
    u: Vec<f64>,
    v: Vec<f64>,
    /// Tentative distance of each column in the current search.
    shortest: Vec<f64>,
    /// Row the search reached each column from.
    path: Vec<usize>,
    col_of_row: Vec<usize>,
    row_of_col: Vec<usize>,
    row_seen: Vec<bool>,
    col_seen: Vec<bool>,
    /// Columns not yet settled in the current search (swap-removed as they settle).
    remaining: Vec<usize>,
}

impl Jv {
    /// Sizes the cost matrix for `rows × cols` (`rows <= cols`); the caller fills it.
    pub fn prepare(&mut self, rows: usize, cols: usize) {
        self.cols = cols;
        self.costs.clear();
        self.costs.resize(rows * cols, 0.0);
    }

    /// Minimum-cost assignment of every row of the prepared matrix to a distinct column;
    /// writes the column of each row to `col_of_row`. Costs must be finite.
    pub fn solve(&mut self, rows: usize, col_of_row: &mut Vec<usize>) {
        col_of_row.clear();
        let cols = self.cols;
        if rows == 0 || cols < rows || self.costs.len() != rows * cols {
            return;
        }
        let reset = |buf: &mut Vec<f64>, n: usize, value: f64| {
            buf.clear();
            buf.resize(n, value);
        };
        reset(&mut self.u, rows, 0.0);
        reset(&mut self.v, cols, 0.0);
        self.col_of_row.clear();
        self.col_of_row.resize(rows, NONE);
        self.row_of_col.clear();
        self.row_of_col.resize(cols, NONE);
        self.path.clear();
        self.path.resize(cols, NONE);
        for start in 0..rows {
            let Some((sink, min_val)) = self.augmenting_path(start) else {
                continue;
            };
            // Dual update.
            self.u[start] += min_val;
            for i in 0..rows {
                if self.row_seen[i] && i != start {
                    let j = self.col_of_row[i];
                    self.u[i] += min_val - self.shortest[j];
                }
            }
            for j in 0..cols {
                if self.col_seen[j] {
                    self.v[j] -= min_val - self.shortest[j];
                }
            }
            // Flip the alternating path back to `start`.
            let mut j = sink;
            for _ in 0..=rows {
                let i = self.path[j];
                self.row_of_col[j] = i;
                let next = std::mem::replace(&mut self.col_of_row[i], j);
                if i == start {
                    break;
                }
                j = next;
            }
        }
        col_of_row.extend_from_slice(&self.col_of_row);
    }

    /// Dijkstra over the columns from free row `start` in reduced costs: the free column it
    /// reaches first (lowest index among equals, free columns preferred) and its distance.
    fn augmenting_path(&mut self, start: usize) -> Option<(usize, f64)> {
        let cols = self.cols;
        let rows = self.col_of_row.len();
        self.shortest.clear();
        self.shortest.resize(cols, f64::INFINITY);
        self.row_seen.clear();
        self.row_seen.resize(rows, false);
        self.col_seen.clear();
        self.col_seen.resize(cols, false);
        self.remaining.clear();
        self.remaining.extend((0..cols).rev());
        let mut min_val = 0.0;
        let mut i = start;
        loop {
            self.row_seen[i] = true;
            let base = min_val - self.u[i];
            let line = &self.costs[i * cols..(i + 1) * cols];
            let mut lowest = f64::INFINITY;
            let mut index = NONE;
            for (it, &j) in self.remaining.iter().enumerate() {
                let r = base + line[j] - self.v[j];
                let s = &mut self.shortest[j];
                if r < *s {
                    self.path[j] = i;
                    *s = r;
                }
                if *s < lowest || (*s == lowest && self.row_of_col[j] == NONE) {
                    lowest = *s;
                    index = it;
                }
            }
            if index == NONE || !lowest.is_finite() {
                return None;
            }
            min_val = lowest;
            let j = self.remaining.swap_remove(index);
            self.col_seen[j] = true;
            match self.row_of_col[j] {
                NONE => return Some((j, min_val)),
                next => i = next,
            }
        }
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
