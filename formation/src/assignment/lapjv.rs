//! The Jonker–Volgenant core of the exact solver (LAPJV: column reduction, augmenting row
//! reduction, then Dijkstra-like shortest augmenting paths), generic over the float type of
//! its costs and prices so that the same code runs in `f32` (a fast warm start, twice the
//! SIMD lanes and half the memory of `f64`) and in `f64` (the exact answer).
//!
//! Invariant between the phases: every assigned row's column is a column of minimum reduced
//! cost `c[i][j] - v[j]` for that row. Any prices and partial assignment with this
//! property are a valid start for the augmenting paths, which is how [`Core::resume`]
//! turns the `f32` solution into an exact `f64` one: rows whose `f32` column is not a
//! minimum in `f64` are freed (few, and each lies a tiny distance from its own old column,
//! so their paths are short) and augmented again.
//!
//! Everything is deterministic: fixed scan orders, and ties between equal distances broken
//! by fixed rules (first lane, then first index in it).

use cohort_steering::capacity::ReserveTotal;
use std::ops::{Add, Sub};

/// Marks an unassigned row or column.
pub(super) const NONE: usize = usize::MAX;

/// A float type the core runs on (`f32` or `f64`), with its vectorisable inner loops.
pub(super) trait Real:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Default + std::fmt::Debug
{
    /// Positive infinity.
    const INFINITY: Self;
    /// Negative infinity.
    const NEG_INFINITY: Self;
    /// Zero.
    const ZERO: Self;

    /// Lowers `d[k]` to `row[k] - v[k] - h` where that is smaller and returns the smallest
    /// `d[k]` and an index holding it (the first in its lane of the first lane holding it;
    /// `NONE` if every `d[k]` is infinite).
    fn relax(row: &[Self], v: &[Self], d: &mut [Self], h: Self) -> (Self, usize);

    /// The smallest reduced cost `row[k] - v[k]`.
    fn row_min(row: &[Self], v: &[Self]) -> Self;
}

/// Implements [`Real`] for a float type with `$lanes` independent lanes in the inner loops
/// (plain arrays the compiler turns into SIMD registers: as many as fit without spills).
macro_rules! real {
    ($t:ty, $lanes:expr) => {
        impl Real for $t {
            const INFINITY: Self = <$t>::INFINITY;
            const NEG_INFINITY: Self = <$t>::NEG_INFINITY;
            const ZERO: Self = 0.0;

            #[inline]
            fn relax(row: &[Self], v: &[Self], d: &mut [Self], h: Self) -> (Self, usize) {
                const LANES: usize = $lanes;
                let n = row.len().min(v.len()).min(d.len());
                let (row, v, d) = (&row[..n], &v[..n], &mut d[..n]);
                let full = n / LANES * LANES;
                // Blocks of `BLOCK` columns; each lane keeps its minimum and the block it
                // came from, so that finding the column afterwards scans one lane of one block.
                const BLOCK: usize = 8 * LANES;
                let mut best = [<$t>::INFINITY; LANES];
                let mut best_block = [0usize; LANES];
                for (b, ((db, rb), vb)) in d[..full]
                    .chunks_mut(BLOCK)
                    .zip(row[..full].chunks(BLOCK))
                    .zip(v[..full].chunks(BLOCK))
                    .enumerate()
                {
                    let block = relax_lanes::<$t, LANES>(rb, vb, db, h);
                    for l in 0..LANES {
                        if block[l] < best[l] {
                            best[l] = block[l];
                            best_block[l] = b;
                        }
                    }
                }
                let mut min = <$t>::INFINITY;
                for b in best {
                    min = if b < min { b } else { min };
                }
                for k in full..n {
                    let reduced = row[k] - v[k] - h;
                    if reduced < d[k] {
                        d[k] = reduced;
                    }
                    if d[k] < min {
                        min = d[k];
                    }
                }
                if !(min < <$t>::INFINITY) {
                    return (min, NONE);
                }
                // A column at the minimum: any will do (ties are common, through the tight
                // edges of earlier searches), so only the first lane holding it is scanned,
                // in the block it came from, one compare per chunk.
                if let Some(lane) = best.iter().position(|&b| b == min) {
                    let start = best_block[lane] * BLOCK;
                    let end = (start + BLOCK).min(full);
                    if let Some(k) = d[start + lane..end]
                        .iter()
                        .step_by(LANES)
                        .position(|&x| x == min)
                    {
                        return (min, start + k * LANES + lane);
                    }
                }
                (
                    min,
                    d[full..]
                        .iter()
                        .position(|&x| x == min)
                        .map_or(NONE, |p| full + p),
                )
            }

            #[inline]
            fn row_min(row: &[Self], v: &[Self]) -> Self {
                const LANES: usize = $lanes;
                let n = row.len().min(v.len());
                let (row, v) = (&row[..n], &v[..n]);
                let full = n / LANES * LANES;
                let mut best = [<$t>::INFINITY; LANES];
                for (cc, vc) in row[..full]
                    .chunks_exact(LANES)
                    .zip(v[..full].chunks_exact(LANES))
                {
                    for l in 0..LANES {
                        let reduced = cc[l] - vc[l];
                        best[l] = if reduced < best[l] { reduced } else { best[l] };
                    }
                }
                let mut min = <$t>::INFINITY;
                for b in best.into_iter().chain((full..n).map(|k| row[k] - v[k])) {
                    min = if b < min { b } else { min };
                }
                min
            }
        }
    };
}

/// The lane-wise part of [`Real::relax`] on whole chunks: lowers `d` and returns the minimum
/// of each lane.
#[inline(never)]
fn relax_lanes<T: Real, const LANES: usize>(row: &[T], v: &[T], d: &mut [T], h: T) -> [T; LANES] {
    let mut best = [T::INFINITY; LANES];
    for ((dc, cc), vc) in d
        .chunks_exact_mut(LANES)
        .zip(row.chunks_exact(LANES))
        .zip(v.chunks_exact(LANES))
    {
        // Whole-chunk arrays: the shape the vectoriser handles best.
        let (Ok(c), Ok(vv), Ok(old)) = (
            <[T; LANES]>::try_from(cc),
            <[T; LANES]>::try_from(vc),
            <[T; LANES]>::try_from(&*dc),
        ) else {
            continue;
        };
        let mut new = [T::ZERO; LANES];
        for l in 0..LANES {
            let reduced = c[l] - vv[l] - h;
            new[l] = if reduced < old[l] { reduced } else { old[l] };
        }
        for l in 0..LANES {
            best[l] = if new[l] < best[l] { new[l] } else { best[l] };
        }
        dc.copy_from_slice(&new);
    }
    best
}

real!(f32, 8);
real!(f64, 4);

/// Buffers and state of one Jonker–Volgenant solve on an `n × n` matrix.
#[derive(Clone, Debug, Default)]
pub(super) struct Core<F> {
    /// Row-major `n × n` cost matrix (finite entries).
    pub costs: Vec<F>,
    n: usize,
    /// Column prices (duals).
    pub v: Vec<F>,
    /// Column of each row (`NONE` if unassigned).
    pub x: Vec<usize>,
    /// Row of each column (`NONE` if unassigned).
    pub y: Vec<usize>,
    free_rows: Vec<usize>,
    unique: Vec<bool>,
    /// Columns settled by the current path search in order: `(column, price, distance)`.
    settled: Vec<(usize, F, F)>,
    /// Rows scanned by the current path search in order, with the distance offset `h`
    /// their relaxations used (the first is the start row, `h = 0`).
    scanned: Vec<(usize, F)>,
    d: Vec<F>,
}

/// Grows `v`'s capacity to at least `n` (never shrinks, keeps its contents).
fn room<T>(v: &mut Vec<T>, n: usize) {
    v.reserve_total(n);
}

impl<F: Real> Core<F> {
    /// Sizes the cost matrix for `n × n` (zero-filled), and gives every working buffer room
    /// for `n`, so that no solve of this size allocates whichever way it goes (a matrix
    /// solved by its column reduction alone leaves the augmentation's buffers untouched).
    pub fn prepare(&mut self, n: usize) {
        self.n = n;
        self.costs.clear();
        self.costs.resize(n * n, F::ZERO);
        room(&mut self.v, n);
        room(&mut self.x, n);
        room(&mut self.y, n);
        room(&mut self.free_rows, n);
        room(&mut self.unique, n);
        room(&mut self.settled, n);
        room(&mut self.scanned, n);
        room(&mut self.d, n);
    }

    /// Matrix size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Solves the prepared matrix from scratch: `x` and `y` hold the optimum afterwards
    /// (optimal for this float type's arithmetic).
    pub fn solve(&mut self) {
        if !self.sized() {
            return;
        }
        self.reset(true);
        self.column_reduction();
        // One round of augmenting row reduction, bounded to `n` bids (the paper runs two,
        // unbounded; on formation geometry that costs more than it saves).
        if !self.free_rows.is_empty() {
            self.augmenting_row_reduction();
        }
        self.augment_free_rows();
    }

    /// Finishes from the prices `v` and the assignment `x`/`y` the caller set (any prices;
    /// `x` and `y` consistent): rows whose column is not one of their minimum reduced cost
    /// are freed, then every free row is augmented. Returns the number of rows augmented.
    pub fn resume(&mut self) -> usize {
        if !self.sized()
            || self.v.len() != self.n
            || self.x.len() != self.n
            || self.y.len() != self.n
        {
            return 0;
        }
        self.reset(false);
        let n = self.n;
        for i in 0..n {
            let j = self.x[i];
            let row = &self.costs[i * n..(i + 1) * n];
            let keep = j < n && self.y[j] == i && !(row[j] - self.v[j] > F::row_min(row, &self.v));
            if !keep {
                if j < n && self.y[j] == i {
                    self.y[j] = NONE;
                }
                self.x[i] = NONE;
                self.free_rows.push(i);
            }
        }
        // Columns held by no row (inconsistent input) are free.
        for j in 0..n {
            let i = self.y[j];
            if i != NONE && (i >= n || self.x[i] != j) {
                self.y[j] = NONE;
            }
        }
        let freed = self.free_rows.len();
        self.augment_free_rows();
        freed
    }

    fn sized(&self) -> bool {
        self.n > 0 && self.costs.len() == self.n * self.n
    }

    /// Sizes the scratch buffers; with `fresh`, also the prices and the assignment.
    fn reset(&mut self, fresh: bool) {
        let n = self.n;
        if fresh {
            self.v.clear();
            self.v.resize(n, F::INFINITY);
            self.x.clear();
            self.x.resize(n, NONE);
            self.y.clear();
            self.y.resize(n, NONE);
        }
        self.d.clear();
        self.d.resize(n, F::ZERO);
        self.free_rows.clear();
    }

    /// Augments every row in `free_rows` along a shortest path.
    fn augment_free_rows(&mut self) {
        for k in 0..self.free_rows.len() {
            let start = self.free_rows[k];
            self.find_path(start);
        }
    }

    /// Column reduction and reduction transfer: every column's price is its cheapest cost;
    /// rows that are the unique minimum of some column get it.
    fn column_reduction(&mut self) {
        let n = self.n;
        for (i, row) in self.costs.chunks_exact(n).enumerate() {
            for ((&c, vj), yj) in row.iter().zip(&mut self.v).zip(&mut self.y) {
                if c < *vj {
                    *vj = c;
                    *yj = i;
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
                let row = &self.costs[i * n..(i + 1) * n];
                let mut min = F::INFINITY;
                for (j2, (&c, &vj)) in row.iter().zip(&self.v).enumerate() {
                    let r = c - vj;
                    if j2 != j && r < min {
                        min = r;
                    }
                }
                if min < F::INFINITY {
                    self.v[j] = self.v[j] - min;
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
            let row = &self.costs[free_i * n..(free_i + 1) * n];
            let (mut j1, mut v1) = (0, row[0] - self.v[0]);
            let (mut j2, mut v2) = (NONE, F::INFINITY);
            for (j, (&c, &vj)) in row.iter().zip(&self.v).enumerate().skip(1) {
                let c = c - vj;
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

    /// Dijkstra-like shortest augmenting path from free row `start` to a free column, then
    /// the flip of the path and the price update.
    ///
    /// One column is settled per step: the unsettled one of smallest distance `d` (among
    /// equals, the first SIMD lane holding the minimum, then the first block in that lane,
    /// see [`Real::relax`]); the search stops at the first free column settled.
    /// Relaxing from the settled column's row and finding the next minimum are one pass over
    /// the contiguous cost row ([`Real::relax`], SIMD lanes, no branches, no bounds checks).
    /// A settled column drops out of the passes without a test: its price is set to -inf
    /// (reduced cost +inf) and its distance to +inf; its real price and distance wait in
    /// `settled` until the prices are updated at the end. Predecessors are not tracked in
    /// the pass: the path is rebuilt afterwards, the predecessor of a path column being the
    /// latest scanned row whose relaxation gives exactly its distance (the same float
    /// expression as in the pass). Any such row lies on a shortest path; the latest is found
    /// first when searching from the end.
    fn find_path(&mut self, start: usize) {
        let n = self.n;
        self.settled.clear();
        self.scanned.clear();
        let costs = &self.costs[..n * n];
        let v = &mut self.v[..n];
        let d = &mut self.d[..n];
        let y = &self.y[..n];
        d.fill(F::INFINITY);
        self.scanned.push((start, F::ZERO));
        let (mut min, mut j) = F::relax(&costs[start * n..(start + 1) * n], v, d, F::ZERO);
        let end = loop {
            if j >= n {
                break None;
            }
            self.settled.push((j, v[j], d[j]));
            let i = y[j];
            if i == NONE {
                break Some(j);
            }
            let row = &costs[i * n..(i + 1) * n];
            let h = row[j] - v[j] - min;
            self.scanned.push((i, h));
            v[j] = F::NEG_INFINITY;
            d[j] = F::INFINITY;
            (min, j) = F::relax(row, v, d, h);
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
        if end.is_none() {
            return;
        }
        // Flip the alternating path back to `start`. The column settled at step `t` was
        // reached from one of the rows scanned at steps `0..=t`; the row scanned at step
        // `s > 0` held the column settled at step `s - 1`.
        let mut t = self.settled.len() - 1;
        for _ in 0..n {
            let (j, price, dist) = self.settled[t];
            let s = self.scanned[..=t]
                .iter()
                .rposition(|&(r, h)| costs[r * n + j] - price - h == dist)
                .unwrap_or(0);
            let i = self.scanned[s].0;
            self.y[j] = i;
            self.x[i] = j;
            if s == 0 {
                break;
            }
            t = s - 1;
        }
    }
}
