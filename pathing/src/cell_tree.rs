//! The cells a map's navigation graph samples ([`crate::NavGraph::from_map`]): the map's
//! rectangle cut into a row-major grid of square top blocks, each a quadtree split down to the
//! finest cells (one [`crate::GridSpec::spacing`] on a side) only where obstacles are near. A
//! cell is a leaf when it is free far enough around, or when it is a finest cell; every leaf
//! that a body fits on becomes one graph node at its centre.
//!
//! The finest cells are the samples of a uniform grid over the bounds (centred in them); a leaf
//! of `2^l` finest cells on a side sits where those `4^l` samples would, so near obstacles the
//! graph is exactly the uniform grid, and open ground costs a node per large cell instead of
//! one per sample: the node count grows with the length of the obstacles' outlines rather than
//! with the area.
//!
//! Built once and dropped: the graph keeps only its nodes and edges.

use crate::error::PathingError;

/// Most top blocks: the blocks grow past [`crate::GridSpec::max_cell`] on maps so big that
/// there would be more.
pub(crate) const MAX_TOP_BLOCKS: u64 = 1 << 16;

/// Deepest quadtree (top blocks of at most `2^MAX_LEVELS` finest cells on a side).
pub(crate) const MAX_LEVELS: u32 = 24;

/// A tree entry: a split (high bit, the low bits index the first of its four children in
/// `CellTree::children`), or a leaf holding a node slot or [`NO_NODE`].
const SPLIT: u32 = 1 << 31;

/// The leaf entry of a cell without a node (blocked, or outside the finest grid).
pub(crate) const NO_NODE: u32 = SPLIT - 1;

/// What becomes of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Cut it in four.
    Split,
    /// A leaf, with its node slot or [`NO_NODE`].
    Leaf(u32),
}

/// A leaf: its lower-left finest cell, its side in finest cells (`1 << level`) and its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leaf {
    pub x: u32,
    pub y: u32,
    pub level: u32,
    pub node: u32,
}

impl Leaf {
    /// Side in finest cells.
    pub fn side(&self) -> u32 {
        1 << self.level
    }
}

/// The quadtree; see the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct CellTree {
    /// Finest cells across and up.
    cols: u32,
    rows: u32,
    /// Top blocks are `1 << top` finest cells on a side.
    top: u32,
    top_cols: u32,
    /// One entry per top block, row-major.
    roots: Vec<u32>,
    /// The entries of split cells' children, four at a time (south-west, south-east,
    /// north-west, north-east).
    children: Vec<u32>,
    /// The leaves with a node, in the order their nodes were made.
    pub leaves: Vec<Leaf>,
}

impl CellTree {
    /// Cuts `cols × rows` finest cells into top blocks of `2^levels` on a side (more when there
    /// would be over [`MAX_TOP_BLOCKS`]) and splits each as `decide(x, y, level)` says
    /// (always a leaf at level 0; cells reaching past the grid are split, cells wholly
    /// outside it are empty leaves). `decide` makes the nodes, numbering them in the order it
    /// is asked, which is deterministic: blocks row-major, a split cell's quarters
    /// south-west, south-east, north-west, north-east, depth first.
    pub fn build(
        cols: u32,
        rows: u32,
        levels: u32,
        mut decide: impl FnMut(u32, u32, u32) -> Result<Decision, PathingError>,
    ) -> Result<Self, PathingError> {
        let mut top = levels.min(MAX_LEVELS);
        let blocks =
            |top: u32| (u64::from(cols).div_ceil(1 << top)) * (u64::from(rows).div_ceil(1 << top));
        while top < MAX_LEVELS && blocks(top) > MAX_TOP_BLOCKS {
            top += 1;
        }
        let top_cols = cols.div_ceil(1 << top);
        let top_rows = rows.div_ceil(1 << top);
        let mut tree = Self {
            cols,
            rows,
            top,
            top_cols,
            roots: Vec::with_capacity((top_cols * top_rows) as usize),
            children: Vec::new(),
            leaves: Vec::new(),
        };
        for by in 0..top_rows {
            for bx in 0..top_cols {
                let entry = tree.grow(bx << top, by << top, top, &mut decide)?;
                tree.roots.push(entry);
            }
        }
        Ok(tree)
    }

    /// The entry of the cell at `(x, y)` of `level`, deciding it and its quarters.
    fn grow(
        &mut self,
        x: u32,
        y: u32,
        level: u32,
        decide: &mut impl FnMut(u32, u32, u32) -> Result<Decision, PathingError>,
    ) -> Result<u32, PathingError> {
        let side = 1u64 << level;
        if u64::from(x) >= u64::from(self.cols) || u64::from(y) >= u64::from(self.rows) {
            return Ok(NO_NODE);
        }
        let inside = u64::from(x) + side <= u64::from(self.cols)
            && u64::from(y) + side <= u64::from(self.rows);
        let decision = if inside {
            decide(x, y, level)?
        } else {
            Decision::Split
        };
        match decision {
            Decision::Leaf(node) => {
                if node != NO_NODE {
                    self.leaves.push(Leaf { x, y, level, node });
                }
                Ok(node)
            }
            Decision::Split if level > 0 => {
                let first = self.children.len();
                if first + 4 > (SPLIT - 1) as usize {
                    return Err(PathingError::TooLarge {
                        what: "navigation graph cells",
                        count: first + 4,
                        limit: (SPLIT - 1) as usize,
                    });
                }
                self.children.extend([NO_NODE; 4]);
                let half = 1 << (level - 1);
                for (q, (dx, dy)) in [(0, 0), (half, 0), (0, half), (half, half)]
                    .into_iter()
                    .enumerate()
                {
                    let entry = self.grow(x + dx, y + dy, level - 1, decide)?;
                    self.children[first + q] = entry;
                }
                Ok(SPLIT | first as u32)
            }
            // A finest cell is never split.
            Decision::Split => Ok(NO_NODE),
        }
    }

    /// The leaf covering finest cell `(x, y)`, with or without a node; `None` outside the grid.
    pub fn leaf_at(&self, x: i64, y: i64) -> Option<Leaf> {
        if x < 0 || y < 0 || x >= i64::from(self.cols) || y >= i64::from(self.rows) {
            return None;
        }
        let (x, y) = (x as u32, y as u32);
        let mut level = self.top;
        let mut entry = *self
            .roots
            .get(((y >> self.top) * self.top_cols + (x >> self.top)) as usize)?;
        while entry & SPLIT != 0 && level > 0 {
            level -= 1;
            let q = ((x >> level) & 1) + 2 * ((y >> level) & 1);
            entry = *self.children.get((entry & !SPLIT) as usize + q as usize)?;
        }
        let mask = !((1u32 << level) - 1);
        Some(Leaf {
            x: x & mask,
            y: y & mask,
            level,
            node: if entry & SPLIT != 0 { NO_NODE } else { entry },
        })
    }

    /// The leaves with a node that share a side or touch only at a corner with `leaf` to its
    /// east, north, north-east and north-west (so that over all leaves every touching pair
    /// is met once), in that order, as `(node, other leaf)`.
    pub fn forward_neighbours(&self, leaf: &Leaf, mut f: impl FnMut(Leaf)) {
        let (x, y, side) = (i64::from(leaf.x), i64::from(leaf.y), i64::from(leaf.side()));
        // East side, bottom to top.
        let mut k = y;
        while k < y + side {
            let Some(other) = self.leaf_at(x + side, k) else {
                break;
            };
            if other.node != NO_NODE {
                f(other);
            }
            k = i64::from(other.y) + i64::from(other.side());
        }
        // North side, west to east.
        let mut k = x;
        while k < x + side {
            let Some(other) = self.leaf_at(k, y + side) else {
                break;
            };
            if other.node != NO_NODE {
                f(other);
            }
            k = i64::from(other.x) + i64::from(other.side());
        }
        // Corners: only a leaf that starts (ends) there touches at the corner alone.
        if let Some(other) = self.leaf_at(x + side, y + side)
            && other.node != NO_NODE
            && i64::from(other.x) == x + side
            && i64::from(other.y) == y + side
        {
            f(other);
        }
        if let Some(other) = self.leaf_at(x - 1, y + side)
            && other.node != NO_NODE
            && i64::from(other.x) + i64::from(other.side()) == x
            && i64::from(other.y) == y + side
        {
            f(other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree over `cols × rows` split wherever `split(x, y, level)` says, one node per leaf.
    fn tree(cols: u32, rows: u32, levels: u32, split: impl Fn(u32, u32, u32) -> bool) -> CellTree {
        let mut next = 0;
        CellTree::build(cols, rows, levels, |x, y, level| {
            Ok(if level > 0 && split(x, y, level) {
                Decision::Split
            } else {
                next += 1;
                Decision::Leaf(next - 1)
            })
        })
        .unwrap()
    }

    #[test]
    fn leaves_tile_the_grid_once() {
        // Split everything touching the cell (5, 5): leaves grow away from it.
        let t = tree(13, 9, 3, |x, y, level| {
            let side = 1 << level;
            (x..x + side).contains(&5) && (y..y + side).contains(&5)
        });
        let mut covered = vec![0; 13 * 9];
        for l in &t.leaves {
            for y in l.y..(l.y + l.side()).min(9) {
                for x in l.x..(l.x + l.side()).min(13) {
                    covered[(y * 13 + x) as usize] += 1;
                }
            }
            assert_eq!(t.leaf_at(i64::from(l.x), i64::from(l.y)), Some(*l));
        }
        assert!(covered.iter().all(|&c| c == 1), "{covered:?}");
        assert_eq!(t.leaf_at(5, 5).map(|l| l.level), Some(0));
        assert_eq!(t.leaf_at(-1, 0), None);
        assert_eq!(t.leaf_at(13, 0), None);
    }

    #[test]
    fn forward_neighbours_meet_every_touching_pair_once() {
        let t = tree(16, 16, 4, |x, y, level| {
            let side = 1 << level;
            (x..x + side).contains(&6) && (y..y + side).contains(&9)
        });
        let mut pairs = Vec::new();
        for l in &t.leaves {
            t.forward_neighbours(l, |o| pairs.push((l.node.min(o.node), l.node.max(o.node))));
        }
        let n = pairs.len();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs.len(), n, "a pair met twice");
        // Brute force: two leaves touch when their closed squares meet.
        let mut expected = Vec::new();
        for a in &t.leaves {
            for b in &t.leaves {
                let (ax1, ay1) = (a.x + a.side(), a.y + a.side());
                let (bx1, by1) = (b.x + b.side(), b.y + b.side());
                let touch = a.x <= bx1 && b.x <= ax1 && a.y <= by1 && b.y <= ay1;
                if a.node < b.node && touch {
                    expected.push((a.node, b.node));
                }
            }
        }
        expected.sort_unstable();
        assert_eq!(pairs, expected);
    }

    #[test]
    fn huge_grids_get_bigger_top_blocks() {
        let t = tree(1 << 20, 1 << 20, 2, |_, _, _| false);
        assert!(t.roots.len() as u64 <= MAX_TOP_BLOCKS);
        assert_eq!(t.leaves.len(), t.roots.len());
    }
}
