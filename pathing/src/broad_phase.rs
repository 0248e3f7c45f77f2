//! A uniform bucket grid of item indices, built once: the broad phase of the map queries (shapes
//! by bounding box) and the spatial index of graph nodes and cover points (points).

use glam::Vec2;

/// The largest number of cells a bucket grid allocates on one axis.
const MAX_CELLS_PER_AXIS: u32 = 512;

/// A uniform grid over a rectangle; each cell lists the indices of the items overlapping it,
/// stored compactly (one offsets array, one items array). Items outside the rectangle are
/// clamped into the border cells.
#[derive(Clone, Debug, Default)]
pub(crate) struct BucketGrid {
    origin: Vec2,
    cell: f32,
    cols: u32,
    rows: u32,
    starts: Vec<u32>,
    items: Vec<u32>,
}

/// A range of cells, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CellRange {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl BucketGrid {
    /// Builds the grid over `min..max` with cells of about `cell` (enlarged so that no axis has
    /// more than 512 cells) from items given as bounding boxes.
    pub fn build(min: Vec2, max: Vec2, cell: f32, boxes: &[(Vec2, Vec2)]) -> Self {
        let extent = (max - min).max(Vec2::splat(1e-3));
        let cell = cell
            .max(extent.max_element() / MAX_CELLS_PER_AXIS as f32)
            .max(1e-3);
        let cols = ((extent.x / cell).ceil() as u32).clamp(1, MAX_CELLS_PER_AXIS);
        let rows = ((extent.y / cell).ceil() as u32).clamp(1, MAX_CELLS_PER_AXIS);
        let mut grid = Self {
            origin: min,
            cell,
            cols,
            rows,
            starts: vec![0; (cols * rows + 1) as usize],
            items: Vec::new(),
        };
        // Counting pass, then a filling pass: items end up sorted by index within each cell.
        let mut counts = vec![0u32; (cols * rows) as usize];
        for (lo, hi) in boxes {
            let r = grid.range(*lo, *hi);
            grid.for_cells(r, |c| counts[c] += 1);
        }
        let mut total = 0u32;
        for (i, c) in counts.iter().enumerate() {
            grid.starts[i] = total;
            total += c;
        }
        grid.starts[counts.len()] = total;
        grid.items = vec![0; total as usize];
        let mut fill: Vec<u32> = grid.starts[..counts.len()].to_vec();
        for (index, (lo, hi)) in boxes.iter().enumerate() {
            let r = grid.range(*lo, *hi);
            let (items, fill) = (&mut grid.items, &mut fill);
            let cols = grid.cols;
            for y in r.y0..=r.y1 {
                for x in r.x0..=r.x1 {
                    let c = (y * cols + x) as usize;
                    items[fill[c] as usize] = index as u32;
                    fill[c] += 1;
                }
            }
        }
        grid
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.starts.capacity() + self.items.capacity()) * core::mem::size_of::<u32>()
    }

    /// Cell size.
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// The cell of a point, clamped into the grid.
    pub fn cell_of(&self, p: Vec2) -> (u32, u32) {
        let rel = (p - self.origin) / self.cell;
        let x = if rel.x.is_finite() {
            rel.x.max(0.0) as u32
        } else {
            0
        };
        let y = if rel.y.is_finite() {
            rel.y.max(0.0) as u32
        } else {
            0
        };
        (x.min(self.cols - 1), y.min(self.rows - 1))
    }

    /// The cells overlapping a box, clamped into the grid.
    pub fn range(&self, lo: Vec2, hi: Vec2) -> CellRange {
        let (x0, y0) = self.cell_of(lo);
        let (x1, y1) = self.cell_of(hi);
        CellRange { x0, y0, x1, y1 }
    }

    fn for_cells(&self, r: CellRange, mut f: impl FnMut(usize)) {
        for y in r.y0..=r.y1 {
            for x in r.x0..=r.x1 {
                f((y * self.cols + x) as usize);
            }
        }
    }

    /// The items of cell `(x, y)` (empty outside the grid).
    pub fn items(&self, x: u32, y: u32) -> &[u32] {
        if x >= self.cols || y >= self.rows {
            return &[];
        }
        let c = (y * self.cols + x) as usize;
        match (self.starts.get(c), self.starts.get(c + 1)) {
            (Some(&s), Some(&e)) => self.items.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Calls `f` with the items of every cell overlapping the box; an item overlapping several
    /// cells is visited once per cell. Stops early when `f` returns `true`; returns whether it did.
    pub fn any_in_box(&self, lo: Vec2, hi: Vec2, mut f: impl FnMut(u32) -> bool) -> bool {
        let r = self.range(lo, hi);
        for y in r.y0..=r.y1 {
            for x in r.x0..=r.x1 {
                if self.items(x, y).iter().any(|&i| f(i)) {
                    return true;
                }
            }
        }
        false
    }

    /// Like [`BucketGrid::any_in_box`] over the cells within `pad` of the segment `a`–`b`.
    pub fn any_near_segment(
        &self,
        a: Vec2,
        b: Vec2,
        pad: f32,
        mut f: impl FnMut(u32) -> bool,
    ) -> bool {
        let r = self.range(a.min(b) - Vec2::splat(pad), a.max(b) + Vec2::splat(pad));
        let reach = pad + self.cell * core::f32::consts::FRAC_1_SQRT_2;
        let ab = b - a;
        let len_sq = ab.length_squared();
        for y in r.y0..=r.y1 {
            for x in r.x0..=r.x1 {
                let centre = self.origin + (Vec2::new(x as f32, y as f32) + 0.5) * self.cell;
                let t = if len_sq > 0.0 {
                    ((centre - a).dot(ab) / len_sq).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                if (a + ab * t - centre).length_squared() > reach * reach {
                    continue;
                }
                if self.items(x, y).iter().any(|&i| f(i)) {
                    return true;
                }
            }
        }
        false
    }

    /// Visits the cells in square rings of growing Chebyshev radius around `p`'s cell. Before
    /// ring `r`, `keep_going(state, lower)` is asked with a lower bound on the distance from `p` to any
    /// item first listed in that ring or beyond; returning `false` stops the walk. Returns
    /// nothing; the caller keeps its best candidate in the closures' environment.
    pub fn rings<S>(
        &self,
        p: Vec2,
        state: &mut S,
        mut keep_going: impl FnMut(&mut S, f32) -> bool,
        mut visit: impl FnMut(&mut S, u32),
    ) {
        let (cx, cy) = self.cell_of(p);
        let max_r = self.cols.max(self.rows);
        for r in 0..=max_r {
            if r > 0 {
                // Ring r lies outside the box of cells [c - r + 1, c + r - 1].
                let lo = self.origin
                    + Vec2::new(cx as f32 - r as f32 + 1.0, cy as f32 - r as f32 + 1.0) * self.cell;
                let hi =
                    self.origin + Vec2::new(cx as f32 + r as f32, cy as f32 + r as f32) * self.cell;
                let lower = (p - lo).min(hi - p).min_element().max(0.0);
                if !keep_going(state, lower) {
                    return;
                }
            }
            let (x0, y0) = (cx as i64 - r as i64, cy as i64 - r as i64);
            let (x1, y1) = (cx as i64 + r as i64, cy as i64 + r as i64);
            if x0 < 0 && y0 < 0 && x1 >= self.cols as i64 && y1 >= self.rows as i64 {
                // This ring is entirely outside: so are all the next ones.
                if r > 0 {
                    return;
                }
            }
            for y in y0..=y1 {
                if y < 0 || y >= self.rows as i64 {
                    continue;
                }
                let on_edge_row = y == y0 || y == y1;
                let mut x = x0;
                while x <= x1 {
                    if x >= 0 && x < self.cols as i64 {
                        for &i in self.items(x as u32, y as u32) {
                            visit(state, i);
                        }
                    }
                    // Interior rows only have the two end cells on the ring.
                    x = if on_edge_row || x == x1 { x + 1 } else { x1 };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_land_in_overlapped_cells() {
        let boxes = [
            (Vec2::new(0.5, 0.5), Vec2::new(0.6, 0.6)),
            (Vec2::new(1.5, 0.5), Vec2::new(3.5, 0.6)),
        ];
        let g = BucketGrid::build(Vec2::ZERO, Vec2::splat(4.0), 1.0, &boxes);
        assert_eq!(g.items(0, 0), &[0]);
        assert_eq!(g.items(1, 0), &[1]);
        assert_eq!(g.items(3, 0), &[1]);
        assert!(g.items(0, 1).is_empty());
        assert!(g.items(9, 9).is_empty());
    }

    #[test]
    fn rings_visit_every_cell_once() {
        let boxes: Vec<(Vec2, Vec2)> = (0..16)
            .map(|i| {
                let p = Vec2::new((i % 4) as f32 + 0.5, (i / 4) as f32 + 0.5);
                (p, p)
            })
            .collect();
        let g = BucketGrid::build(Vec2::ZERO, Vec2::splat(4.0), 1.0, &boxes);
        let mut seen = Vec::new();
        g.rings(
            Vec2::new(0.2, 3.7),
            &mut seen,
            |_, _| true,
            |s: &mut Vec<u32>, i| s.push(i),
        );
        seen.sort_unstable();
        assert_eq!(seen, (0..16).collect::<Vec<u32>>());
        // The lower bound of ring 1 is the distance to the own cell's nearest side.
        let mut bounds: Vec<f32> = Vec::new();
        g.rings(
            Vec2::new(1.25, 1.5),
            &mut bounds,
            |b, lower| {
                b.push(lower);
                b.len() < 2
            },
            |_, _| {},
        );
        assert!((bounds[0] - 0.25).abs() < 1e-6);
        assert!((bounds[1] - 1.25).abs() < 1e-6);
    }

    #[test]
    fn segment_cells_are_near_the_segment() {
        let boxes: Vec<(Vec2, Vec2)> = (0..100)
            .map(|i| {
                let p = Vec2::new((i % 10) as f32 + 0.5, (i / 10) as f32 + 0.5);
                (p, p)
            })
            .collect();
        let g = BucketGrid::build(Vec2::ZERO, Vec2::splat(10.0), 1.0, &boxes);
        let mut hit = Vec::new();
        g.any_near_segment(Vec2::new(0.5, 0.5), Vec2::new(9.5, 0.5), 0.0, |i| {
            hit.push(i);
            false
        });
        // The bottom row, maybe its neighbours by the half-diagonal slack, never row 3.
        assert!((0..10).all(|i| hit.contains(&i)));
        assert!(hit.iter().all(|&i| i < 20));
    }
}
