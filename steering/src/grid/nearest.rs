//! Row runs nearest first, for searches that want only the nearest items (the `k` nearest
//! units a unit avoids): rows of cells are visited in order of their distance from the query
//! point, and the caller says after each row how far it still looks, so rows and columns
//! that cannot hold anything nearer are never scanned.

use super::CellGrid;
use glam::Vec2;

/// Slack, relative to the coordinates' magnitude, by which a row or column is kept although
/// it seems just out of reach: cells are filed by rounded products, and a row's edge computed
/// here may differ from the edge the filing used by a few units in the last place.
const SLACK: f32 = 1e-4;

impl CellGrid {
    /// Calls `f(first_slot, items, positions)` for runs of the sorted arrays, as
    /// [`Self::for_each_row_run`] does for a query of `radius` around `center`, but rows in
    /// order of their distance from `center` (its own row first) and each row narrowed to
    /// the cells within the reach `f` returns: `f` returns the squared distance beyond which
    /// it wants nothing more (at most `radius²`; return `radius * radius` to see every row).
    /// Every item of the query within that distance is in a run given to `f` after `f`
    /// returned it; items farther than the distance `f` last returned may be left out. The
    /// runs may hold items farther than `radius` (the caller tests the distance). Nothing
    /// for a negative or NaN radius.
    pub fn for_each_row_run_nearest_first<F: FnMut(usize, &[u32], &[Vec2]) -> f32>(
        &self,
        center: Vec2,
        radius: f32,
        mut f: F,
    ) {
        if radius.is_nan() || radius < 0.0 || self.items.is_empty() {
            return;
        }
        let slack = SLACK
            * (1.0
                + self.cell_size
                + center.abs().max_element().min(f32::MAX)
                + self.min.abs().max_element());
        let y0 = self.axis_cell(center.y - radius, self.min.y, self.rows);
        let y1 = self.axis_cell(center.y + radius, self.min.y, self.rows);
        let mid = self
            .axis_cell(center.y, self.min.y, self.rows)
            .clamp(y0, y1);
        let mut reach_sq = radius * radius;
        // The centre's row, then the rows above and below it by turns (`d` rows away, above
        // first), each side until a row is out of reach: every further row on that side is
        // farther still.
        let (mut up, mut down) = (true, true);
        let (mut d, mut above) = (0u32, true);
        loop {
            let row = if d == 0 {
                mid
            } else if above {
                mid + d
            } else {
                mid - d
            };
            // How far the centre is from the row (0 inside it). Only the first and last rows
            // hold items beyond the grid, and each lies beyond the edge not measured here.
            let gap = if d == 0 {
                0.0
            } else if above {
                self.min.y + row as f32 * self.cell_size - center.y
            } else {
                center.y - (self.min.y + (row + 1) as f32 * self.cell_size)
            };
            let gap = (gap - slack).max(0.0);
            if gap * gap <= reach_sq {
                let half = (reach_sq - gap * gap).sqrt() + slack;
                let x0 = self.axis_cell(center.x - half, self.min.x, self.cols);
                let x1 = self.axis_cell(center.x + half, self.min.x, self.cols);
                let range = self.cells_span(row, x0, x1);
                let start = range.start;
                if let (Some(items), Some(positions)) = (
                    self.items.get(range.clone()),
                    self.sorted_positions.get(range),
                ) && !items.is_empty()
                {
                    reach_sq = f(start, items, positions).min(reach_sq);
                }
            } else if above {
                up = false;
            } else {
                down = false;
            }
            // The next row: `d` rows above, then `d` below, then `d + 1` above; a side is
            // done once out of reach or past the query's box (for every larger `d` too).
            loop {
                if d == 0 || !above {
                    d += 1;
                    above = true;
                } else {
                    above = false;
                }
                let up_left = up && mid + d <= y1;
                let down_left = down && d <= mid - y0;
                if !up_left && !down_left {
                    return;
                }
                if (above && up_left) || (!above && down_left) {
                    break;
                }
            }
        }
    }

    /// The range in the sorted arrays of exactly the items of cells `x0..=x1` of row `row`
    /// (the blocks holding them may hold items of other cells at either end).
    #[inline]
    fn cells_span(&self, row: u32, x0: u32, x1: u32) -> core::ops::Range<usize> {
        let span = self.block_span(row, x0, x1);
        let Some(cells) = self.sorted_cells.get(span.clone()) else {
            return 0..0;
        };
        let first = row * self.cols + x0;
        let last = row * self.cols + x1;
        // A few steps from each end, then a binary search for what is left (wide blocks).
        let lo = trim(cells, |c| c < first);
        let rest = cells.get(lo..).unwrap_or(&[]);
        let hi = rest.len() - trim_back(rest, |c| c > last);
        span.start + lo..span.start + lo + hi
    }
}

/// Items looked at one by one from an end before a binary search takes over.
const STEPS: usize = 8;

/// How many of `cells` from the front satisfy `before` (which holds for a prefix).
#[inline]
fn trim(cells: &[u32], before: impl Fn(u32) -> bool) -> usize {
    for (k, &c) in cells.iter().take(STEPS).enumerate() {
        if !before(c) {
            return k;
        }
    }
    let skipped = STEPS.min(cells.len());
    skipped
        + cells
            .get(skipped..)
            .unwrap_or(&[])
            .partition_point(|&c| before(c))
}

/// How many of `cells` from the back satisfy `after` (which holds for a suffix).
#[inline]
fn trim_back(cells: &[u32], after: impl Fn(u32) -> bool) -> usize {
    for (k, &c) in cells.iter().rev().take(STEPS).enumerate() {
        if !after(c) {
            return k;
        }
    }
    let kept = cells.len().saturating_sub(STEPS);
    let head = cells.get(..kept).unwrap_or(&[]);
    STEPS.min(cells.len()) + (head.len() - head.partition_point(|&c| !after(c)))
}

#[cfg(test)]
mod tests;
