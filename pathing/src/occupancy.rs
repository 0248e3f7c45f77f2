//! Occupancy grids (blocked and free cells) with an exact distance transform for clearance, and
//! the navigation graph built from one.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{PathingError, finite_vec, positive};
use crate::navgraph::{EdgeKind, NavEdge, NavGraph, NavGraphStorage, NavNode, NodeId};

/// The largest grid (in cells or samples) the builders accept.
pub const MAX_GRID_CELLS: usize = 1 << 24;

/// A grid of blocked and free cells, row-major (`blocked[y * width + x]`), cell `(0, 0)` at
/// `origin`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OccupancyGrid {
    /// World position of the lower corner of cell `(0, 0)`.
    pub origin: Vec2,
    /// Side of a cell.
    pub cell_size: f32,
    /// Cells per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Whether each cell is blocked, row-major.
    pub blocked: Vec<bool>,
}

impl OccupancyGrid {
    /// An all-free grid, validated.
    pub fn new(
        origin: Vec2,
        cell_size: f32,
        width: u32,
        height: u32,
    ) -> Result<Self, PathingError> {
        let cells = width as usize * height as usize;
        let g = Self {
            origin,
            cell_size,
            width,
            height,
            blocked: vec![false; cells.min(MAX_GRID_CELLS + 1)],
        };
        g.check()?;
        Ok(g)
    }

    /// Checks the numbers: finite origin, positive cell size, a non-empty grid within
    /// [`MAX_GRID_CELLS`], and one flag per cell.
    pub fn check(&self) -> Result<(), PathingError> {
        finite_vec("grid origin", self.origin)?;
        positive("grid cell size", self.cell_size)?;
        let cells = self.width as usize * self.height as usize;
        if cells == 0 {
            return Err(PathingError::Degenerate {
                what: "occupancy grid",
                index: 0,
                reason: "no cells",
            });
        }
        if cells > MAX_GRID_CELLS {
            return Err(PathingError::TooLarge {
                what: "occupancy grid",
                count: cells,
                limit: MAX_GRID_CELLS,
            });
        }
        if self.blocked.len() != cells {
            return Err(PathingError::Degenerate {
                what: "occupancy grid",
                index: 0,
                reason: "blocked has not one flag per cell",
            });
        }
        Ok(())
    }

    /// Whether cell `(x, y)` is blocked; cells outside the grid are.
    pub fn is_blocked(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return true;
        }
        self.blocked
            .get(y as usize * self.width as usize + x as usize)
            .copied()
            .unwrap_or(true)
    }

    /// Marks a cell; returns `false` (and does nothing) outside the grid.
    pub fn set_blocked(&mut self, x: u32, y: u32, blocked: bool) -> bool {
        if x >= self.width || y >= self.height {
            return false;
        }
        match self
            .blocked
            .get_mut(y as usize * self.width as usize + x as usize)
        {
            Some(b) => {
                *b = blocked;
                true
            }
            None => false,
        }
    }

    /// Centre of cell `(x, y)`.
    pub fn cell_center(&self, x: u32, y: u32) -> Vec2 {
        self.origin + (Vec2::new(x as f32, y as f32) + 0.5) * self.cell_size
    }

    /// Clearance of every cell: the distance from its centre to the nearest blocked cell (the
    /// Euclidean distance between centres minus half a cell, from an exact distance transform)
    /// or to the grid's edge, whichever is nearer; 0 for blocked cells.
    pub fn clearances(&self) -> Vec<f32> {
        let (w, h) = (self.width as usize, self.height as usize);
        const FAR: f64 = 1e30;
        let mut sq: Vec<f64> = self
            .blocked
            .iter()
            .map(|b| if *b { 0.0 } else { FAR })
            .collect();
        let n = w.max(h);
        let (mut f, mut d, mut v, mut z) = (
            vec![0.0f64; n],
            vec![0.0f64; n],
            vec![0usize; n],
            vec![0.0f64; n + 1],
        );
        for x in 0..w {
            for y in 0..h {
                f[y] = sq[y * w + x];
            }
            distance_1d(&f[..h], &mut d[..h], &mut v, &mut z);
            for y in 0..h {
                sq[y * w + x] = d[y];
            }
        }
        for y in 0..h {
            f[..w].copy_from_slice(&sq[y * w..(y + 1) * w]);
            distance_1d(&f[..w], &mut d[..w], &mut v, &mut z);
            sq[y * w..(y + 1) * w].copy_from_slice(&d[..w]);
        }
        sq.iter()
            .enumerate()
            .map(|(i, s)| {
                let (x, y) = ((i % w) as f32, (i / w) as f32);
                if *s == 0.0 {
                    return 0.0;
                }
                let edge = (x + 0.5)
                    .min(w as f32 - x - 0.5)
                    .min(y + 0.5)
                    .min(h as f32 - y - 0.5);
                let to_blocked = if *s >= FAR {
                    f32::INFINITY
                } else {
                    s.sqrt() as f32 - 0.5
                };
                to_blocked.min(edge) * self.cell_size
            })
            .collect()
    }
}

/// The squared-distance transform of one row (Felzenszwalb and Huttenlocher's lower envelope of
/// parabolas): `d[q] = min_p (q - p)² + f[p]`.
fn distance_1d(f: &[f64], d: &mut [f64], v: &mut [usize], z: &mut [f64]) {
    let n = f.len();
    if n == 0 {
        return;
    }
    let mut k = 0usize;
    v[0] = 0;
    z[0] = f64::NEG_INFINITY;
    z[1] = f64::INFINITY;
    let cross = |q: usize, p: usize| {
        let (qf, pf) = (q as f64, p as f64);
        ((f[q] + qf * qf) - (f[p] + pf * pf)) / (2.0 * qf - 2.0 * pf)
    };
    for q in 1..n {
        let mut s = cross(q, v[k]);
        while s <= z[k] && k > 0 {
            k -= 1;
            s = cross(q, v[k]);
        }
        if s <= z[k] {
            // k == 0 and the new parabola is lower everywhere: it replaces the first one.
            v[0] = q;
            z[1] = f64::INFINITY;
            continue;
        }
        k += 1;
        v[k] = q;
        z[k] = s;
        z[k + 1] = f64::INFINITY;
    }
    k = 0;
    for (q, out) in d.iter_mut().enumerate() {
        while z[k + 1] < q as f64 {
            k += 1;
        }
        let p = v[k];
        *out = (q as f64 - p as f64).powi(2) + f[p];
    }
}

/// The 8 neighbour steps; the first four are enough to link every pair once.
pub(crate) const STEPS: [(i64, i64); 8] = [
    (1, 0),
    (0, 1),
    (1, 1),
    (-1, 1),
    (-1, 0),
    (0, -1),
    (-1, -1),
    (1, -1),
];

impl NavGraph {
    /// One node per free cell (at its centre, with [`OccupancyGrid::clearances`]), linked to its
    /// 8 neighbours; a diagonal link needs both cells beside it free (no corner cutting). Edge
    /// cost is the length; edge clearance the smaller of its ends.
    pub fn from_occupancy_grid(grid: &OccupancyGrid) -> Result<Self, PathingError> {
        grid.check()?;
        let clearances = grid.clearances();
        let (w, h) = (grid.width as i64, grid.height as i64);
        let mut g = NavGraphStorage::with_capacity(grid.blocked.len(), grid.blocked.len() * 8);
        let mut ids: Vec<Option<NodeId>> = vec![None; grid.blocked.len()];
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) as usize;
                if !grid.is_blocked(x, y) {
                    let node = NavNode {
                        position: grid.cell_center(x as u32, y as u32),
                        clearance: clearances.get(i).copied().unwrap_or(0.0),
                    };
                    if let Some(slot) = ids.get_mut(i) {
                        *slot = Some(g.add_node(node));
                    }
                }
            }
        }
        let id = |x: i64, y: i64| -> Option<NodeId> {
            if grid.is_blocked(x, y) {
                return None;
            }
            ids.get((y * w + x) as usize).copied().flatten()
        };
        for y in 0..h {
            for x in 0..w {
                let Some(a) = id(x, y) else { continue };
                for &(dx, dy) in &STEPS[..4] {
                    let Some(b) = id(x + dx, y + dy) else {
                        continue;
                    };
                    if dx != 0
                        && dy != 0
                        && (grid.is_blocked(x + dx, y) || grid.is_blocked(x, y + dy))
                    {
                        continue;
                    }
                    let (ca, cb) = (
                        g.node_weight(a).map_or(0.0, |n| n.clearance),
                        g.node_weight(b).map_or(0.0, |n| n.clearance),
                    );
                    let edge = NavEdge {
                        cost: Vec2::new(dx as f32, dy as f32).length() * grid.cell_size,
                        clearance: ca.min(cb),
                        kind: EdgeKind::Walk,
                    };
                    g.add_edge(a, b, edge);
                    g.add_edge(b, a, edge);
                }
            }
        }
        Self::from_graph(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_transform_is_exact_on_small_grids() {
        let mut grid = OccupancyGrid::new(Vec2::ZERO, 1.0, 9, 7).unwrap();
        grid.set_blocked(2, 3, true);
        grid.set_blocked(6, 1, true);
        let c = grid.clearances();
        for y in 0..7u32 {
            for x in 0..9u32 {
                let mut best = f32::INFINITY;
                for (bx, by) in [(2.0f32, 3.0f32), (6.0, 1.0)] {
                    let d = Vec2::new(x as f32 - bx, y as f32 - by).length();
                    best = best.min(if d == 0.0 { 0.0 } else { d - 0.5 });
                }
                let edge = (x as f32 + 0.5)
                    .min(9.0 - x as f32 - 0.5)
                    .min(y as f32 + 0.5)
                    .min(7.0 - y as f32 - 0.5);
                let want = if best == 0.0 { 0.0 } else { best.min(edge) };
                let got = c[(y * 9 + x) as usize];
                assert!((got - want).abs() < 1e-4, "({x},{y}): {got} vs {want}");
            }
        }
    }

    #[test]
    fn occupancy_graph_has_no_corner_cutting() {
        // . #
        // # .   the two free cells touch only at a corner: no link.
        let mut grid = OccupancyGrid::new(Vec2::ZERO, 2.0, 2, 2).unwrap();
        grid.set_blocked(1, 0, true);
        grid.set_blocked(0, 1, true);
        let nav = NavGraph::from_occupancy_grid(&grid).unwrap();
        assert_eq!(nav.node_count(), 2);
        assert_eq!(nav.edge_count(), 0);
        let open = OccupancyGrid::new(Vec2::ZERO, 2.0, 3, 3).unwrap();
        let nav = NavGraph::from_occupancy_grid(&open).unwrap();
        // 12 orthogonal + 8 diagonal links, both ways.
        assert_eq!(nav.edge_count(), 40);
        let centre = nav.nearest_node(Vec2::new(3.0, 3.0)).unwrap();
        assert_eq!(nav.node(centre).unwrap().position, Vec2::new(3.0, 3.0));
        assert!((nav.node(centre).unwrap().clearance - 3.0).abs() < 1e-6);
        assert!(OccupancyGrid::new(Vec2::ZERO, 0.0, 2, 2).is_err());
        let mut bad = open.clone();
        bad.blocked.pop();
        assert!(NavGraph::from_occupancy_grid(&bad).is_err());
    }
}
