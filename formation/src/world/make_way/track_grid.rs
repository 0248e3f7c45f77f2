//! The movers' tracks by place, for right of way.
//!
//! Two movers' tracks can only meet where their boxes, grown by both half-widths and the
//! margin, overlap (`Track::first_meeting` starts with that test). Marching formations are
//! dense and their tracks short next to the area they cover, so each track's box touches few
//! of its neighbours': a uniform grid of cells about as large as a typical track's box holds
//! every mover in the cells its box covers, and a mover's query looks only at the cells its
//! grown box covers. Each pair is visited once, in the first cell (lowest column, then row)
//! that both cover. The work is near-linear in the movers, not quadratic.
//!
//! A box that is not finite, or that covers more than [`MOST_CELLS`] cells, is kept apart:
//! every query visits it, and its own query visits every mover.

use cohort_steering::Vec2;

/// Side of the cells (metres) at the least.
const MIN_CELL: f32 = 4.0;
/// Most cells one box is entered in (a longer box is visited by every query instead).
const MOST_CELLS: u32 = 64;
/// Cells in the grid at the most, per mover (plus a few): the cells double in side until
/// there are no more.
const CELLS_PER_MOVER: usize = 4;

/// The cells a box covers: columns `x0..=x1`, rows `y0..=y1`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct CellRange {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl CellRange {
    fn cells(&self) -> u32 {
        (self.x1 - self.x0 + 1).saturating_mul(self.y1 - self.y0 + 1)
    }
}

/// Where a root's track is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Place {
    /// Not a mover (no track).
    #[default]
    None,
    /// In the grid, in these cells.
    Cells(CellRange),
    /// Visited by every query (box not finite or too large).
    Apart,
}

/// The movers' track boxes in a uniform grid (see the module doc). Rebuilt every tick in
/// place: allocates nothing once its buffers are as large as the movers need.
#[derive(Clone, Debug, Default)]
pub(super) struct TrackGrid {
    origin: Vec2,
    /// The cells' sides (x and y).
    cell: Vec2,
    cols: u32,
    rows: u32,
    /// Each root's place, by its place among the roots.
    places: Vec<Place>,
    /// The movers whose boxes cover cell `c` are `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    items: Vec<Item>,
    /// The entries (indices) of the movers kept apart.
    apart: Vec<u32>,
    /// Every mover's entry index, in entry order (what a query from a box kept apart visits).
    all: Vec<u32>,
}

/// A mover in a cell: its entry index, the first cell its box covers and the box.
#[derive(Clone, Copy, Debug, Default)]
struct Item {
    entry: u32,
    x0: u32,
    y0: u32,
    lo: Vec2,
    hi: Vec2,
}

/// One mover as the grid is built from it: its entry index, its place among the roots and
/// its track's box.
#[derive(Clone, Copy, Debug)]
pub(super) struct TrackBox {
    pub(super) entry: u32,
    pub(super) root: u32,
    pub(super) lo: Vec2,
    pub(super) hi: Vec2,
}

impl TrackGrid {
    /// Rebuilds the grid from the movers' `boxes` (in entry order) for `roots` roots.
    pub(super) fn build(&mut self, roots: usize, boxes: impl Iterator<Item = TrackBox> + Clone) {
        self.places.clear();
        self.places.resize(roots, Place::None);
        self.apart.clear();
        self.all.clear();
        // The grid's extent and its cells' sides: about the mean box's.
        let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        let (mut sizes, mut count) = ([0.0f64; 2], 0usize);
        for b in boxes.clone() {
            if finite_box(&b) {
                lo = lo.min(b.lo);
                hi = hi.max(b.hi);
                sizes[0] += f64::from(b.hi.x - b.lo.x);
                sizes[1] += f64::from(b.hi.y - b.lo.y);
                count += 1;
            }
        }
        let span = if count > 0 { hi - lo } else { Vec2::ZERO };
        let mean = if count > 0 {
            Vec2::new(
                (sizes[0] / count as f64) as f32,
                (sizes[1] / count as f64) as f32,
            )
        } else {
            Vec2::ZERO
        };
        self.origin = if count > 0 { lo } else { Vec2::ZERO };
        let mut cell = mean.max(Vec2::splat(MIN_CELL));
        let limit = CELLS_PER_MOVER * count + 16;
        loop {
            self.cell = cell;
            self.cols = side(span.x, cell.x);
            self.rows = side(span.y, cell.y);
            if (self.cols as usize) * (self.rows as usize) <= limit || !cell.is_finite() {
                break;
            }
            cell *= 2.0;
        }
        let cells = self.cols as usize * self.rows as usize;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        for b in boxes.clone() {
            self.all.push(b.entry);
            let place = if finite_box(&b) {
                let range = self.range(b.lo, b.hi);
                if range.cells() <= MOST_CELLS {
                    Place::Cells(range)
                } else {
                    Place::Apart
                }
            } else {
                Place::Apart
            };
            if let Some(p) = self.places.get_mut(b.root as usize) {
                *p = place;
            }
            match place {
                Place::Cells(range) => {
                    for y in range.y0..=range.y1 {
                        for x in range.x0..=range.x1 {
                            let c = self.index(x, y);
                            self.starts[c + 1] += 1;
                        }
                    }
                }
                _ => self.apart.push(b.entry),
            }
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        // Fill each cell from its start; `starts[c]` ends as cell c + 1's start.
        let total = self.starts[cells] as usize;
        self.items.clear();
        // Headroom, so that a tick with a few more entries than ever before allocates nothing.
        if self.items.capacity() < total {
            self.items.reserve(total + total / 4);
        }
        self.items.resize(total, Item::default());
        for b in boxes {
            let Some(Place::Cells(range)) = self.places.get(b.root as usize).copied() else {
                continue;
            };
            for y in range.y0..=range.y1 {
                for x in range.x0..=range.x1 {
                    let c = self.index(x, y);
                    let at = self.starts[c] as usize;
                    self.items[at] = Item {
                        entry: b.entry,
                        x0: range.x0,
                        y0: range.y0,
                        lo: b.lo,
                        hi: b.hi,
                    };
                    self.starts[c] += 1;
                }
            }
        }
        for c in (1..=cells).rev() {
            self.starts[c] = self.starts[c - 1];
        }
        self.starts[0] = 0;
    }

    /// Calls `visit` with the entry index (`from` or above) of every mover whose box comes
    /// within `grow` of the box `lo`..`hi` (root `root`'s, as it was built), and maybe a few
    /// more, each once; root `root` itself among them if its entry index is. Visits every
    /// mover from `from` on when `root`'s box is kept apart or not in the grid, or `grow` is
    /// not finite.
    pub(super) fn for_each_near(
        &self,
        root: u32,
        (lo, hi): (Vec2, Vec2),
        grow: f32,
        from: u32,
        mut visit: impl FnMut(u32),
    ) {
        let own = self.places.get(root as usize).copied().unwrap_or_default();
        let (lo, hi) = (lo - Vec2::splat(grow), hi + Vec2::splat(grow));
        if !(matches!(own, Place::Cells(_)) && lo.is_finite() && hi.is_finite()) {
            for &e in &self.all {
                if e >= from {
                    visit(e);
                }
            }
            return;
        }
        let q = self.range(lo, hi);
        for y in q.y0..=q.y1 {
            for x in q.x0..=q.x1 {
                let c = self.index(x, y);
                let (Some(&s), Some(&e)) = (self.starts.get(c), self.starts.get(c + 1)) else {
                    continue;
                };
                for b in self.items.get(s as usize..e as usize).unwrap_or(&[]) {
                    // The boxes overlap, in the first cell both cover (each pair once).
                    if b.entry >= from
                        && b.lo.cmple(hi).all()
                        && lo.cmple(b.hi).all()
                        && x == q.x0.max(b.x0)
                        && y == q.y0.max(b.y0)
                    {
                        visit(b.entry);
                    }
                }
            }
        }
        for &e in &self.apart {
            if e >= from {
                visit(e);
            }
        }
    }

    /// Every mover's entry index, in entry order.
    pub(super) fn movers(&self) -> &[u32] {
        &self.all
    }

    /// The cells the box `lo`..`hi` covers (clamped to the grid; finite corners).
    fn range(&self, lo: Vec2, hi: Vec2) -> CellRange {
        let col = |v: f32, o: f32, cell: f32, n: u32| {
            // `as` saturates: below the origin (and NaN) gives 0.
            (((v - o) / cell) as u32).min(n.saturating_sub(1))
        };
        let (o, c) = (self.origin, self.cell);
        CellRange {
            x0: col(lo.x, o.x, c.x, self.cols),
            y0: col(lo.y, o.y, c.y, self.rows),
            x1: col(hi.x, o.x, c.x, self.cols),
            y1: col(hi.y, o.y, c.y, self.rows),
        }
    }

    fn index(&self, x: u32, y: u32) -> usize {
        y as usize * self.cols as usize + x as usize
    }
}

/// Whether a box's corners are finite and in order.
fn finite_box(b: &TrackBox) -> bool {
    b.lo.is_finite() && b.hi.is_finite() && b.lo.cmple(b.hi).all()
}

/// Cells along a side of `span` metres in cells of side `cell` (at least 1).
fn side(span: f32, cell: f32) -> u32 {
    let n = span / cell;
    if n.is_finite() && n >= 0.0 {
        (n.min(u32::MAX as f32 / 2.0) as u32).saturating_add(1)
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A query visits every box from entry `from` on that comes within `grow` of its own,
        /// each once, and none before `from`; boxes far apart, long ones kept apart and ones
        /// that are not finite included.
        #[test]
        fn queries_visit_every_overlapping_box_once(
            boxes in prop::collection::vec(
                (-200.0f32..200.0, -200.0f32..200.0, 0.0f32..40.0, 0.0f32..40.0, 0u8..40),
                1..60,
            ),
            grow in 0.0f32..5.0,
            from in 0u32..30,
        ) {
            let boxes: Vec<TrackBox> = boxes
                .iter()
                .enumerate()
                .map(|(i, &(x, y, w, h, kind))| {
                    let (w, h) = if kind == 0 { (900.0, 5.0) } else { (w, h) };
                    let lo = Vec2::new(x, y);
                    let hi = if kind == 1 { Vec2::NAN } else { lo + Vec2::new(w, h) };
                    TrackBox { entry: i as u32, root: i as u32, lo, hi }
                })
                .collect();
            let mut grid = TrackGrid::default();
            grid.build(boxes.len(), boxes.iter().copied());
            for a in &boxes {
                let mut seen = vec![0u32; boxes.len()];
                grid.for_each_near(a.root, (a.lo, a.hi), grow, from, |e| seen[e as usize] += 1);
                for b in &boxes {
                    let apart = (a.lo - Vec2::splat(grow)).cmpgt(b.hi).any()
                        || (b.lo - Vec2::splat(grow)).cmpgt(a.hi).any();
                    prop_assert!(seen[b.entry as usize] <= 1);
                    if b.entry < from {
                        prop_assert_eq!(seen[b.entry as usize], 0);
                    } else if !apart || !finite_box(a) || !finite_box(b) {
                        prop_assert_eq!(seen[b.entry as usize], 1, "{:?} {:?}", a, b);
                    }
                }
            }
        }
    }
}
