//! Cell-space partitioning: a uniform grid over a rectangle, rebuilt each tick, answering
//! "which items lie within `radius` of this point".
//!
//! The grid is rebuilt every tick by sorting the items by cell into buffers it keeps: from its
//! last order when few items changed cell (`grid/resort.rs`), else with a radix sort (two
//! stable counting-sort passes). Once the buffers have grown to the largest item count a
//! rebuild allocates nothing, and its cost is proportional to the number of items, not of
//! cells. Item positions are copied into a contiguous array in cell order so a
//! query walks memory linearly.
//!
//! Query order is deterministic: cells in row-major order (rows of increasing `y`, each row of
//! increasing `x`), and within a cell items in ascending index order. Points outside the bounds
//! (and non-finite points) are filed in the nearest edge cell, so every item is always findable;
//! a non-finite position is never within a finite radius.

use glam::Vec2;

use crate::error::{SteeringError, check_finite_vec, check_positive};

/// Largest number of cells a [`CellGrid`] may have (4 Mi cells: cell indices sort in two
/// 11-bit radix passes).
pub const MAX_CELLS: usize = 1 << 22;

mod brute;
mod nearest;
mod pairs;
mod radix;

pub use brute::BruteForceSearch;
mod resort;

use radix::{RADIX, RADIX_BITS, radix_pass};

/// Whether `position` counts as within `radius` of `center`: the one predicate every
/// [`NeighbourSearch`] uses, so different searches agree exactly (distance `<= radius`).
#[inline]
pub fn within_radius(position: Vec2, center: Vec2, radius: f32) -> bool {
    (position - center).length_squared() <= radius * radius
}

/// Two items within some radius of each other, from [`NeighbourSearch::for_each_pair_within`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearPair {
    /// One item's index.
    pub a: u32,
    /// The other item's index.
    pub b: u32,
    /// `a`'s slot in [`NeighbourSearch::order`].
    pub slot_a: u32,
    /// `b`'s slot in [`NeighbourSearch::order`].
    pub slot_b: u32,
    /// `a`'s position.
    pub pa: Vec2,
    /// `b`'s position.
    pub pb: Vec2,
}

/// A search for items near a point, over positions given to [`NeighbourSearch::rebuild`].
///
/// Implemented by [`CellGrid`] and by [`BruteForceSearch`], which return the same set of
/// indices for every query (benchmarks compare them).
pub trait NeighbourSearch {
    /// Replaces the searched items with `positions` (item `i` is `positions[i]`).
    fn rebuild(&mut self, positions: &[Vec2]);

    /// Calls `f(index, position)` for every item within `radius` of `center` (see
    /// [`within_radius`]). A negative or NaN radius finds nothing.
    fn for_each_in_radius<F: FnMut(u32, Vec2)>(&self, center: Vec2, radius: f32, f: F);

    /// Calls `f` once for every unordered pair of items within `radius` of each other (see
    /// [`within_radius`]), in an order fixed by the positions (not necessarily `a < b`). A
    /// negative or NaN radius finds nothing.
    fn for_each_pair_within<F: FnMut(NearPair)>(&self, radius: f32, f: F);

    /// The items in the search's own order: slot `k` holds item `order()[k]` (the grid's
    /// cell order; index order for brute force). Per-item data copied into this order is
    /// read by [`Self::for_each_pair_within`]'s pairs through their slots, in memory order.
    fn order(&self) -> &[u32];

    /// Number of items.
    fn len(&self) -> usize;

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Clears `out` and fills it with the indices [`Self::for_each_in_radius`] visits, in the
    /// same order. Allocates only if `out` must grow.
    fn query_radius(&self, center: Vec2, radius: f32, out: &mut Vec<u32>) {
        out.clear();
        self.for_each_in_radius(center, radius, |i, _| out.push(i));
    }
}

/// Uniform cell-space partition over the rectangle `min..max` with square cells.
///
/// Storage is proportional to the number of items, not cells: items are kept sorted by cell,
/// ascending index within a cell (re-sorted from the last order, or by two stable radix
/// passes over the cell index), with the start of each block of a few cells of a row; a
/// query scans the blocks its box covers, and [`NeighbourSearch::for_each_pair_within`]
/// sweeps the sorted items. A huge, sparsely filled map costs no more per rebuild than a
/// small one.
#[derive(Clone, Debug)]
pub struct CellGrid {
    min: Vec2,
    max: Vec2,
    cell_size: f32,
    inv_cell_size: f32,
    cols: u32,
    rows: u32,
    /// Blocks are runs of `1 << block_shift` cells of a row (the last block of a row may be
    /// shorter); the shift is chosen at each rebuild so there are at most about 8 blocks per
    /// item.
    block_shift: u32,
    /// Blocks per row.
    blocks_per_row: u32,
    /// `block_start[b]..block_start[b + 1]` is block `b`'s range in the sorted arrays
    /// (blocks numbered row-major, like cells).
    block_start: Vec<u32>,
    /// Item indices sorted by cell, ascending within a cell.
    items: Vec<u32>,
    /// `sorted_cells[k]` is the cell of item `items[k]`.
    sorted_cells: Vec<u32>,
    /// `sorted_positions[k]` is the position of item `items[k]`.
    sorted_positions: Vec<Vec2>,
    /// Cell of each item, by item index.
    item_cell: Vec<u32>,
    /// Items after the first radix pass.
    partly_sorted: Vec<u32>,
    /// Bucket counts of a radix pass.
    buckets: Vec<u32>,
    /// Positions by item index (scratch, so iterator input is read once).
    input_positions: Vec<Vec2>,
    /// Items whose cell changed since the last rebuild, with their new cell (see
    /// `grid/resort.rs`).
    moved: Vec<(u32, u32)>,
}

impl CellGrid {
    /// A grid over `min..max` with square cells of side `cell_size` (the last row and column
    /// may extend past `max`). Errors when a value is not finite, `max` is not above `min` on
    /// both axes, `cell_size` is not positive, or there would be more than [`MAX_CELLS`] cells.
    ///
    /// For neighbour queries of radius `r` a cell size near `r` (or `2r`) works well.
    pub fn new(min: Vec2, max: Vec2, cell_size: f32) -> Result<Self, SteeringError> {
        check_finite_vec("grid min", min)?;
        check_finite_vec("grid max", max)?;
        check_positive("grid cell size", cell_size)?;
        let extent = max - min;
        check_positive("grid width", extent.x)?;
        check_positive("grid height", extent.y)?;
        let cols_f = (extent.x / cell_size).ceil().max(1.0);
        let rows_f = (extent.y / cell_size).ceil().max(1.0);
        let cells_f = cols_f * rows_f;
        if !cells_f.is_finite() || cells_f > MAX_CELLS as f32 {
            return Err(SteeringError::OutOfRange {
                what: "grid cell count",
                range: "1 ..= 4194304",
                value: cells_f,
            });
        }
        let cols = cols_f as u32;
        let rows = rows_f as u32;
        Ok(Self {
            min,
            max,
            cell_size,
            inv_cell_size: 1.0 / cell_size,
            cols,
            rows,
            block_shift: 0,
            blocks_per_row: cols,
            block_start: Vec::new(),
            items: Vec::new(),
            sorted_cells: Vec::new(),
            sorted_positions: Vec::new(),
            item_cell: Vec::new(),
            partly_sorted: Vec::new(),
            buckets: vec![0; RADIX],
            input_positions: Vec::new(),
            moved: Vec::new(),
        })
    }

    /// The cell side a grid over `min..max` is built with when `cell_size` is wanted:
    /// `cell_size` itself when the grid then has at most [`MAX_CELLS`] cells, else a larger
    /// side for which it has (a huge map gets coarser cells rather than no grid). Depends on
    /// its arguments only, so a caller can tell whether a grid it built is still the one
    /// wanted. Values [`Self::new`] refuses come back unchanged.
    pub fn cell_size_to_fit(min: Vec2, max: Vec2, cell_size: f32) -> f32 {
        let extent = max - min;
        let cells = |c: f32| (extent.x / c).ceil().max(1.0) * (extent.y / c).ceil().max(1.0);
        let fits = |c: f32| cells(c) <= MAX_CELLS as f32;
        if !(extent.is_finite() && cell_size.is_finite() && cell_size > 0.0) || fits(cell_size) {
            return cell_size;
        }
        let limit = MAX_CELLS as f32;
        let mut c = cell_size
            .max((extent.x * extent.y / limit).sqrt())
            .max(extent.x / limit)
            .max(extent.y / limit);
        // Rounding up of partial rows and columns may leave it a little short.
        for _ in 0..64 {
            if fits(c) {
                break;
            }
            c *= 1.0625;
        }
        c
    }

    /// Lower corner of the bounds.
    pub fn min(&self) -> Vec2 {
        self.min
    }

    /// Upper corner of the bounds as given to [`Self::new`].
    pub fn max(&self) -> Vec2 {
        self.max
    }

    /// Side of a cell.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Number of columns and rows.
    pub fn dimensions(&self) -> (u32, u32) {
        (self.cols, self.rows)
    }

    /// Column or row of coordinate `v` on an axis starting at `lo` with `n` cells, clamped to
    /// `0..n` (NaN goes to 0). Monotone in `v`, which makes queries exact. (Truncation of a
    /// value clamped to be non-negative is its floor, without a call to `floorf`.)
    #[inline]
    fn axis_cell(&self, v: f32, lo: f32, n: u32) -> u32 {
        // `max` maps NaN to 0; `as` saturates.
        (((v - lo) * self.inv_cell_size).max(0.0) as u32).min(n - 1)
    }

    /// Index of the cell holding `p` (row-major), clamped to the edge cells.
    #[inline]
    pub fn cell_of(&self, p: Vec2) -> u32 {
        let cx = self.axis_cell(p.x, self.min.x, self.cols);
        let cy = self.axis_cell(p.y, self.min.y, self.rows);
        cy * self.cols + cx
    }

    /// Rebuilds from an iterator of positions (item `i` is the `i`-th position). Reads each
    /// position once. At most `u32::MAX` items are taken. Allocates only when the item count
    /// exceeds every previous count.
    pub fn rebuild_from<I: IntoIterator<Item = Vec2>>(&mut self, positions: I) {
        self.input_positions.clear();
        self.input_positions
            .extend(positions.into_iter().take(u32::MAX as usize));
        self.sort_input();
    }

    /// Sorts `input_positions` by cell, ascending index within a cell: from the last order
    /// when few items changed cell since (see `grid/resort.rs`), else from scratch; then the
    /// block starts.
    fn sort_input(&mut self) {
        let n = self.input_positions.len();
        self.item_cell.clear();
        for k in 0..n {
            let p = self.input_positions.get(k).copied().unwrap_or(Vec2::NAN);
            let c = self.cell_of(p);
            self.item_cell.push(c);
        }
        if !self.resort() {
            self.radix_sort(n);
        }
        self.choose_blocks(n);
        self.sorted_positions.clear();
        let cols = self.cols.max(1);
        for k in 0..n {
            let (i, c) = (
                self.items.get(k).copied().unwrap_or(0),
                self.sorted_cells.get(k).copied().unwrap_or(0),
            );
            let p = self.input_positions.get(i as usize).copied();
            self.sorted_positions.push(p.unwrap_or(Vec2::NAN));
            let block = self.block_of(c / cols, c % cols) as usize;
            if let Some(count) = self.block_start.get_mut(block + 1) {
                *count += 1;
            }
        }
        let mut running = 0u32;
        for start in self.block_start.iter_mut() {
            running += *start;
            *start = running;
        }
    }

    /// Sorts the items by cell from scratch into `items` and `sorted_cells`: two stable
    /// counting-sort passes over 11 bits of the cell index each, from index order, so a
    /// cell's items are ascending.
    fn radix_sort(&mut self, n: usize) {
        // Pass 1: by the low bits, from index order.
        self.partly_sorted.clear();
        self.partly_sorted.resize(n, 0);
        radix_pass(
            &self.item_cell,
            0..n as u32,
            0,
            &mut self.buckets,
            &mut self.partly_sorted,
        );
        // Pass 2: by the high bits, from pass 1's order.
        self.items.clear();
        self.items.resize(n, 0);
        let first = core::mem::take(&mut self.partly_sorted);
        radix_pass(
            &self.item_cell,
            first.iter().copied(),
            RADIX_BITS,
            &mut self.buckets,
            &mut self.items,
        );
        self.partly_sorted = first;
        self.sorted_cells.clear();
        for &i in &self.items {
            let c = self.item_cell.get(i as usize).copied().unwrap_or(0);
            self.sorted_cells.push(c);
        }
    }

    /// Sizes the blocks for `n` items: the narrowest power-of-two width (at most 64 cells)
    /// giving no more than `8 n` blocks, so a rebuild costs O(items), not O(cells). Clears
    /// the block starts (allocating only when there are more blocks than ever before).
    fn choose_blocks(&mut self, n: usize) {
        let cells = self.cols as usize * self.rows as usize;
        let wanted = cells.div_ceil(8 * n.max(1)).max(1);
        self.block_shift = wanted.next_power_of_two().trailing_zeros().min(6);
        self.blocks_per_row = self.cols.div_ceil(1 << self.block_shift);
        let blocks = self.blocks_per_row as usize * self.rows as usize;
        self.block_start.clear();
        self.block_start.resize(blocks + 1, 0);
    }

    /// The block of the cell in column `x` of row `row`.
    #[inline]
    fn block_of(&self, row: u32, x: u32) -> u32 {
        row * self.blocks_per_row + (x >> self.block_shift)
    }

    /// The range in the sorted arrays of the blocks holding cells `x0..=x1` of row `row`: all
    /// their items, in cell order (a superset of those cells' items).
    #[inline]
    fn block_span(&self, row: u32, x0: u32, x1: u32) -> core::ops::Range<usize> {
        let (b0, b1) = (self.block_of(row, x0), self.block_of(row, x1));
        match (
            self.block_start.get(b0 as usize),
            self.block_start.get(b1 as usize + 1),
        ) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// Indices and positions of the items in cell `cell` (empty for an unknown cell).
    pub fn cell_items(&self, cell: u32) -> (&[u32], &[Vec2]) {
        let cols = self.cols.max(1);
        let (row, x) = (cell / cols, cell % cols);
        if row >= self.rows {
            return (&[], &[]);
        }
        let span = self.block_span(row, x, x);
        let cells = self.sorted_cells.get(span.clone()).unwrap_or(&[]);
        let lo = span.start + cells.partition_point(|&c| c < cell);
        let hi = span.start + cells.partition_point(|&c| c <= cell);
        let range = lo..hi;
        (
            self.items.get(range.clone()).unwrap_or(&[]),
            self.sorted_positions.get(range).unwrap_or(&[]),
        )
    }

    /// Calls `f(first_slot, items, positions)` for each run of the sorted arrays a query of
    /// `radius` around `center` scans, in slot order: one per row of cells the query's box
    /// covers, holding every item of that row's cells in the box (and maybe some of cells a
    /// little beyond it, which are farther than `radius`). Every item within `radius` of
    /// `center` is in one of the runs; the caller tests the distance ([`within_radius`]), so
    /// it can pass over items it does not want before that. `first_slot` is the slot of
    /// `items[0]` (see [`NeighbourSearch::order`]). Nothing for a negative or NaN radius.
    #[inline]
    pub fn for_each_row_run<F: FnMut(usize, &[u32], &[Vec2])>(
        &self,
        center: Vec2,
        radius: f32,
        f: F,
    ) {
        if radius.is_nan() || radius < 0.0 || self.items.is_empty() {
            return;
        }
        // The box around the query circle, in clamped cell coordinates. A point within the
        // circle lies in the box, and cell lookup is monotone, so its cell is in this range.
        let x0 = self.axis_cell(center.x - radius, self.min.x, self.cols);
        let x1 = self.axis_cell(center.x + radius, self.min.x, self.cols);
        let y0 = self.axis_cell(center.y - radius, self.min.y, self.rows);
        let y1 = self.axis_cell(center.y + radius, self.min.y, self.rows);
        self.for_each_row_run_in_cells((x0, x1), (y0, y1), f);
    }

    /// Calls `f(first_slot, items, positions)` for each run of the sorted arrays a query of
    /// the box `lo..=hi` scans, in slot order (as [`Self::for_each_row_run`] does for a
    /// circle's box): every item within the box, whatever its coordinates' magnitude, is in
    /// one of the runs, since the box's own corners are looked up and cell lookup is
    /// monotone. Nothing for an empty box or one with a NaN corner.
    #[inline]
    pub fn for_each_row_run_in_box<F: FnMut(usize, &[u32], &[Vec2])>(
        &self,
        lo: Vec2,
        hi: Vec2,
        f: F,
    ) {
        if !(lo.x <= hi.x && lo.y <= hi.y) || self.items.is_empty() {
            return;
        }
        let x0 = self.axis_cell(lo.x, self.min.x, self.cols);
        let x1 = self.axis_cell(hi.x, self.min.x, self.cols);
        let y0 = self.axis_cell(lo.y, self.min.y, self.rows);
        let y1 = self.axis_cell(hi.y, self.min.y, self.rows);
        self.for_each_row_run_in_cells((x0, x1), (y0, y1), f);
    }

    /// The runs of cells `x0..=x1` of rows `y0..=y1`, one per row, in slot order.
    #[inline]
    fn for_each_row_run_in_cells<F: FnMut(usize, &[u32], &[Vec2])>(
        &self,
        (x0, x1): (u32, u32),
        (y0, y1): (u32, u32),
        mut f: F,
    ) {
        for cy in y0..=y1 {
            // The blocks holding cells x0..=x1 of a row are contiguous in the sorted arrays
            // (with maybe some items of cells beyond them).
            let range = self.block_span(cy, x0, x1);
            let start = range.start;
            if let (Some(items), Some(positions)) = (
                self.items.get(range.clone()),
                self.sorted_positions.get(range),
            ) {
                f(start, items, positions);
            }
        }
    }

    /// Calls `f(slot, index, position)` for every item within `radius` of `center`, in slot
    /// order (see [`NeighbourSearch::for_each_in_radius`]).
    #[inline]
    fn visit_in_radius<F: FnMut(u32, u32, Vec2)>(&self, center: Vec2, radius: f32, mut f: F) {
        self.for_each_row_run(center, radius, |start, items, positions| {
            for (k, (&i, &p)) in items.iter().zip(positions).enumerate() {
                if within_radius(p, center, radius) {
                    f((start + k) as u32, i, p);
                }
            }
        });
    }

    /// Position of item `index` as given to the last rebuild.
    pub fn position(&self, index: u32) -> Option<Vec2> {
        self.input_positions.get(index as usize).copied()
    }
}

impl NeighbourSearch for CellGrid {
    fn rebuild(&mut self, positions: &[Vec2]) {
        let take = positions.len().min(u32::MAX as usize);
        self.input_positions.clear();
        self.input_positions
            .extend_from_slice(positions.get(..take).unwrap_or(&[]));
        self.sort_input();
    }

    #[inline]
    fn for_each_in_radius<F: FnMut(u32, Vec2)>(&self, center: Vec2, radius: f32, mut f: F) {
        self.visit_in_radius(center, radius, |_, i, p| f(i, p));
    }

    #[inline]
    fn for_each_pair_within<F: FnMut(NearPair)>(&self, radius: f32, f: F) {
        self.sweep_pairs(radius, f);
    }

    fn order(&self) -> &[u32] {
        &self.items
    }

    fn len(&self) -> usize {
        self.items.len()
    }
}

#[cfg(test)]
mod tests;
