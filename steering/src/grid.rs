//! Cell-space partitioning: a uniform grid over a rectangle, rebuilt each tick, answering
//! "which items lie within `radius` of this point".
//!
//! The grid is rebuilt from scratch every tick with a counting sort (per-cell counts → prefix
//! offsets → item indices sorted by cell) into buffers it keeps, so once the buffers have grown
//! to the largest item count a rebuild allocates nothing. Item positions are copied into a
//! contiguous array in cell order so a query walks memory linearly.
//!
//! Query order is deterministic: cells in row-major order (rows of increasing `y`, each row of
//! increasing `x`), and within a cell items in ascending index order. Points outside the bounds
//! (and non-finite points) are filed in the nearest edge cell, so every item is always findable;
//! a non-finite position is never within a finite radius.

use glam::Vec2;

use crate::error::{SteeringError, check_finite_vec, check_positive};

/// Largest number of cells a [`CellGrid`] may have (4 Mi cells, 16 MiB of offsets).
pub const MAX_CELLS: usize = 1 << 22;

/// Whether `position` counts as within `radius` of `center`: the one predicate every
/// [`NeighbourSearch`] uses, so different searches agree exactly (distance `<= radius`).
#[inline]
pub fn within_radius(position: Vec2, center: Vec2, radius: f32) -> bool {
    (position - center).length_squared() <= radius * radius
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
#[derive(Clone, Debug)]
pub struct CellGrid {
    min: Vec2,
    max: Vec2,
    cell_size: f32,
    inv_cell_size: f32,
    cols: u32,
    rows: u32,
    /// `cell_start[c]..cell_start[c + 1]` is cell `c`'s range in `items`/`sorted_positions`.
    cell_start: Vec<u32>,
    /// Item indices sorted by cell, ascending within a cell.
    items: Vec<u32>,
    /// `sorted_positions[k]` is the position of item `items[k]`.
    sorted_positions: Vec<Vec2>,
    /// Cell of each item, by item index (scratch for the counting sort).
    item_cell: Vec<u32>,
    /// Positions by item index (scratch, so iterator input is read once).
    input_positions: Vec<Vec2>,
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
        let cells = cols as usize * rows as usize;
        Ok(Self {
            min,
            max,
            cell_size,
            inv_cell_size: 1.0 / cell_size,
            cols,
            rows,
            cell_start: vec![0; cells + 1],
            items: Vec::new(),
            sorted_positions: Vec::new(),
            item_cell: Vec::new(),
            input_positions: Vec::new(),
        })
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
    /// `0..n` (NaN goes to 0). Monotone in `v`, which makes queries exact.
    #[inline]
    fn axis_cell(&self, v: f32, lo: f32, n: u32) -> u32 {
        let c = ((v - lo) * self.inv_cell_size).floor();
        // `as` saturates and maps NaN to 0.
        (c.max(0.0) as u32).min(n - 1)
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

    /// Counting sort of `input_positions` into the cell arrays.
    fn sort_input(&mut self) {
        let n = self.input_positions.len();
        self.cell_start.fill(0);
        self.item_cell.clear();
        // Pass 1: cell of each item and per-cell counts (stored one slot ahead).
        for k in 0..n {
            let p = self.input_positions.get(k).copied().unwrap_or(Vec2::NAN);
            let c = self.cell_of(p);
            self.item_cell.push(c);
            if let Some(count) = self.cell_start.get_mut(c as usize + 1) {
                *count += 1;
            }
        }
        // Prefix sums: cell_start[c] = first slot of cell c.
        let mut running = 0u32;
        for start in self.cell_start.iter_mut() {
            running += *start;
            *start = running;
        }
        // Pass 2: place items in index order (stable, so ascending within a cell). Each cell's
        // write cursor is cell_start[c], advanced as we go; afterwards cell_start[c] has moved
        // to the start of cell c + 1, so shift back by one slot.
        self.items.clear();
        self.items.resize(n, 0);
        self.sorted_positions.clear();
        self.sorted_positions.resize(n, Vec2::ZERO);
        for (k, (&c, &p)) in self
            .item_cell
            .iter()
            .zip(self.input_positions.iter())
            .enumerate()
        {
            if let Some(cursor) = self.cell_start.get_mut(c as usize) {
                let slot = *cursor as usize;
                *cursor += 1;
                if let (Some(item), Some(pos)) = (
                    self.items.get_mut(slot),
                    self.sorted_positions.get_mut(slot),
                ) {
                    *item = k as u32;
                    *pos = p;
                }
            }
        }
        self.cell_start.rotate_right(1);
        if let Some(first) = self.cell_start.first_mut() {
            *first = 0;
        }
    }

    /// Indices and positions of the items in cell `cell` (empty for an unknown cell).
    pub fn cell_items(&self, cell: u32) -> (&[u32], &[Vec2]) {
        let c = cell as usize;
        let (Some(&lo), Some(&hi)) = (self.cell_start.get(c), self.cell_start.get(c + 1)) else {
            return (&[], &[]);
        };
        let range = lo as usize..hi as usize;
        (
            self.items.get(range.clone()).unwrap_or(&[]),
            self.sorted_positions.get(range).unwrap_or(&[]),
        )
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

    fn for_each_in_radius<F: FnMut(u32, Vec2)>(&self, center: Vec2, radius: f32, mut f: F) {
        if radius.is_nan() || radius < 0.0 || self.items.is_empty() {
            return;
        }
        // The box around the query circle, in clamped cell coordinates. A point within the
        // circle lies in the box, and cell lookup is monotone, so its cell is in this range.
        let x0 = self.axis_cell(center.x - radius, self.min.x, self.cols);
        let x1 = self.axis_cell(center.x + radius, self.min.x, self.cols);
        let y0 = self.axis_cell(center.y - radius, self.min.y, self.rows);
        let y1 = self.axis_cell(center.y + radius, self.min.y, self.rows);
        for cy in y0..=y1 {
            let row = cy as usize * self.cols as usize;
            // Cells x0..=x1 of a row are contiguous in the sorted arrays.
            let lo = self.cell_start.get(row + x0 as usize).copied().unwrap_or(0) as usize;
            let hi = self
                .cell_start
                .get(row + x1 as usize + 1)
                .copied()
                .unwrap_or(0) as usize;
            let (Some(items), Some(positions)) =
                (self.items.get(lo..hi), self.sorted_positions.get(lo..hi))
            else {
                continue;
            };
            for (&i, &p) in items.iter().zip(positions) {
                if within_radius(p, center, radius) {
                    f(i, p);
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.items.len()
    }
}

/// The reference search: tests every item, in index order. Same results as [`CellGrid`] (as a
/// set), for comparison in tests and benchmarks.
#[derive(Clone, Debug, Default)]
pub struct BruteForceSearch {
    positions: Vec<Vec2>,
}

impl BruteForceSearch {
    /// An empty search.
    pub fn new() -> Self {
        Self::default()
    }
}

impl NeighbourSearch for BruteForceSearch {
    fn rebuild(&mut self, positions: &[Vec2]) {
        let take = positions.len().min(u32::MAX as usize);
        self.positions.clear();
        self.positions
            .extend_from_slice(positions.get(..take).unwrap_or(&[]));
    }

    fn for_each_in_radius<F: FnMut(u32, Vec2)>(&self, center: Vec2, radius: f32, mut f: F) {
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        for (i, &p) in self.positions.iter().enumerate() {
            if within_radius(p, center, radius) {
                f(i as u32, p);
            }
        }
    }

    fn len(&self) -> usize {
        self.positions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn grid() -> CellGrid {
        CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), 2.0).unwrap()
    }

    #[test]
    fn new_validates() {
        let g = grid();
        assert_eq!(g.dimensions(), (10, 10));
        assert!(CellGrid::new(Vec2::ZERO, Vec2::ZERO, 1.0).is_err());
        assert!(CellGrid::new(Vec2::ONE, Vec2::ZERO, 1.0).is_err());
        assert!(CellGrid::new(Vec2::ZERO, Vec2::ONE, 0.0).is_err());
        assert!(CellGrid::new(Vec2::ZERO, Vec2::ONE, f32::NAN).is_err());
        assert!(CellGrid::new(Vec2::new(f32::INFINITY, 0.0), Vec2::ONE, 1.0).is_err());
        assert!(matches!(
            CellGrid::new(Vec2::ZERO, Vec2::splat(1e6), 0.01),
            Err(SteeringError::OutOfRange { .. })
        ));
        // Partial last cell rounds up.
        let g = CellGrid::new(Vec2::ZERO, Vec2::new(5.0, 1.0), 2.0).unwrap();
        assert_eq!(g.dimensions(), (3, 1));
    }

    #[test]
    fn cells_row_major_and_clamped() {
        let g = grid();
        assert_eq!(g.cell_of(Vec2::new(-10.0, -10.0)), 0);
        assert_eq!(g.cell_of(Vec2::new(-7.9, -10.0)), 1);
        assert_eq!(g.cell_of(Vec2::new(-10.0, -7.9)), 10);
        assert_eq!(g.cell_of(Vec2::new(9.9, 9.9)), 99);
        // Outside the bounds: nearest edge cell.
        assert_eq!(g.cell_of(Vec2::new(-500.0, 3.0)), 60);
        assert_eq!(g.cell_of(Vec2::new(500.0, 500.0)), 99);
        assert_eq!(g.cell_of(Vec2::NAN), 0);
    }

    #[test]
    fn query_order_and_contents() {
        let mut g = grid();
        let pts = [
            Vec2::new(1.0, 1.0),   // 0: cell (5,5)
            Vec2::new(-1.0, 1.0),  // 1: cell (4,5)
            Vec2::new(1.5, 1.5),   // 2: cell (5,5)
            Vec2::new(0.5, -1.0),  // 3: cell (5,4)
            Vec2::new(9.0, 9.0),   // 4: far away
            Vec2::new(0.0, 3.01),  // 5: just outside radius 3
            Vec2::new(50.0, 50.0), // 6: outside bounds
        ];
        g.rebuild(&pts);
        assert_eq!(g.len(), 7);
        let mut out = Vec::new();
        g.query_radius(Vec2::ZERO, 3.0, &mut out);
        // Row y=4 first (item 3), then row y=5: cell x=4 (item 1), cell x=5 (items 0, 2).
        assert_eq!(out, vec![3, 1, 0, 2]);
        // Items outside the bounds are found from outside the bounds.
        g.query_radius(Vec2::new(49.0, 50.0), 1.0, &mut out);
        assert_eq!(out, vec![6]);
        // Boundary: distance exactly equal to the radius is included.
        g.query_radius(Vec2::new(1.0, 4.0), 3.0, &mut out);
        assert!(out.contains(&0));
        g.query_radius(Vec2::new(1.0, 4.0), 2.99, &mut out);
        assert!(!out.contains(&0));
        g.query_radius(Vec2::ZERO, -1.0, &mut out);
        assert!(out.is_empty());
        g.query_radius(Vec2::ZERO, f32::NAN, &mut out);
        assert!(out.is_empty());
        assert_eq!(g.position(4), Some(Vec2::new(9.0, 9.0)));
        assert_eq!(g.position(7), None);
        let (idx, pos) = g.cell_items(55);
        assert_eq!(idx, &[0, 2]);
        assert_eq!(pos, &[Vec2::new(1.0, 1.0), Vec2::new(1.5, 1.5)]);
    }

    #[test]
    fn non_finite_positions_are_never_found() {
        let mut g = grid();
        g.rebuild(&[Vec2::NAN, Vec2::new(f32::INFINITY, 0.0), Vec2::ZERO]);
        let mut out = Vec::new();
        g.query_radius(Vec2::new(-10.0, -10.0), 1.0e6, &mut out);
        assert_eq!(out, vec![2]);
    }

    #[test]
    fn rebuild_does_not_reallocate_once_warm() {
        let mut g = grid();
        let mut rng = crate::SimRng::seed_from(3);
        let pts: Vec<Vec2> = (0..500)
            .map(|_| Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0)))
            .collect();
        g.rebuild(&pts);
        let caps = |g: &CellGrid| {
            (
                g.items.capacity(),
                g.sorted_positions.capacity(),
                g.item_cell.capacity(),
                g.input_positions.capacity(),
                g.cell_start.capacity(),
                g.items.as_ptr(),
                g.sorted_positions.as_ptr(),
            )
        };
        let warm = caps(&g);
        g.rebuild(&pts);
        assert_eq!(caps(&g), warm);
        g.rebuild_from(pts.iter().take(300).map(|&p| p + Vec2::ONE));
        assert_eq!(caps(&g), warm);
        assert_eq!(g.len(), 300);
    }

    #[test]
    fn rebuild_replaces_previous_items() {
        let mut g = grid();
        g.rebuild(&[Vec2::ZERO, Vec2::ONE]);
        g.rebuild(&[Vec2::new(5.0, 5.0)]);
        let mut out = Vec::new();
        g.query_radius(Vec2::ZERO, 100.0, &mut out);
        assert_eq!(out, vec![0]);
    }

    proptest! {
        #[test]
        fn grid_matches_brute_force(
            pts in prop::collection::vec((-15.0f32..15.0, -15.0f32..15.0), 0..120),
            queries in prop::collection::vec((-15.0f32..15.0, -15.0f32..15.0, 0.0f32..8.0), 1..10),
            cell in 0.3f32..6.0,
        ) {
            let pts: Vec<Vec2> = pts.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
            let mut g = CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), cell).unwrap();
            let mut b = BruteForceSearch::new();
            g.rebuild(&pts);
            b.rebuild(&pts);
            prop_assert_eq!(g.len(), b.len());
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for (x, y, r) in queries {
                let c = Vec2::new(x, y);
                g.query_radius(c, r, &mut got);
                b.query_radius(c, r, &mut want);
                // Within a cell the grid lists ascending indices: check before sorting.
                let mut positions = Vec::new();
                g.for_each_in_radius(c, r, |i, p| positions.push((i, p)));
                for &(i, p) in &positions {
                    prop_assert_eq!(Some(p), pts.get(i as usize).copied());
                }
                got.sort_unstable();
                prop_assert_eq!(&got, &want);
            }
        }
    }
}
