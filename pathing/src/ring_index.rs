//! A spatial index of the edges of one long ring (a polygon obstacle or a jumpable gap with
//! many points), so that the map's point and segment queries against it cost about the number
//! of edges near the query instead of every edge of the ring.
//!
//! Two bucket grids over the ring's bounding box: a two-dimensional one listing each edge in
//! the cells its bounding box overlaps (nearest-edge and near-segment searches), and one of
//! horizontal bands listing each edge in the bands its vertical extent overlaps (the even-odd
//! containment test casts its ray along the band of the point, so it meets exactly the edges
//! the full scan would count).
//!
//! Every query gives the same answer as the linear scan of [`crate::polygon`] (the same
//! containment, the same distance, and among edges at the same distance the one of lowest
//! index, as the scan's first-minimum rule picks), looking only as far as a cap when given.
//! Rings of at most [`INDEX_FROM_EDGES`] edges are not indexed: the scan is as fast.

use cohort_steering::geometry::{closest_point_on_segment, segment_intersection};
use glam::Vec2;

use crate::broad_phase::BucketGrid;
use crate::polygon::{self, Crossing, segment_segment};

/// Rings with more edges than this are indexed (fewer are scanned).
pub(crate) const INDEX_FROM_EDGES: usize = 32;

/// About this many grid cells (and bands) per edge, so a cell holds a few edges.
const CELLS_PER_EDGE: f32 = 4.0;

/// The edge index of one ring; see the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct RingIndex {
    cells: BucketGrid,
    bands: BucketGrid,
    min: Vec2,
    max: Vec2,
}

impl RingIndex {
    /// The index of the ring `points` (closed: the last point connects to the first), or
    /// `None` for rings of at most [`INDEX_FROM_EDGES`] edges.
    pub fn build(points: &[Vec2]) -> Option<Self> {
        let n = points.len();
        if n <= INDEX_FROM_EDGES {
            return None;
        }
        let (min, max) = polygon::aabb(points);
        let extent = (max - min).max(Vec2::splat(1e-3));
        let boxes: Vec<(Vec2, Vec2)> = polygon::edges(points)
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        let cell = (extent.x * extent.y / (CELLS_PER_EDGE * n as f32)).sqrt();
        let cells = BucketGrid::build(min, max, cell, &boxes);
        // Bands: one column, rows over the vertical extent.
        let flat: Vec<(Vec2, Vec2)> = boxes
            .iter()
            .map(|(lo, hi)| (Vec2::new(0.0, lo.y), Vec2::new(0.0, hi.y)))
            .collect();
        let band = extent.y / (CELLS_PER_EDGE * n as f32);
        let bands = BucketGrid::build(Vec2::new(0.0, min.y), Vec2::new(0.0, max.y), band, &flat);
        Some(Self {
            cells,
            bands,
            min,
            max,
        })
    }

    /// The ring's bounding box, as [`polygon::aabb`] gives it.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        (self.min, self.max)
    }

    /// Whether `p` is strictly inside the ring (even-odd rule), as [`polygon::contains`].
    pub fn contains(&self, points: &[Vec2], p: Vec2) -> bool {
        if !(p.y >= self.min.y && p.y <= self.max.y && p.x <= self.max.x) {
            // No edge straddles p's row, or every edge lies left of p.
            return false;
        }
        let mut inside = false;
        let row = Vec2::new(0.0, p.y);
        self.bands.any_in_box(row, row, |i| {
            if let Some((a, b)) = edge(points, i)
                && (a.y > p.y) != (b.y > p.y)
            {
                let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
                if p.x < x {
                    inside = !inside;
                }
            }
            false
        });
        inside
    }

    /// The closest point of the ring's boundary to `p` if it is at most `cap` away (the same
    /// point [`polygon::closest_boundary_point`] finds), else `None`.
    pub fn closest_boundary_point(&self, points: &[Vec2], p: Vec2, cap: f32) -> Option<Vec2> {
        if !p.is_finite() || cap.is_nan() || cap < 0.0 {
            return None;
        }
        let outside = (self.min - p).max(p - self.max).max(Vec2::ZERO);
        if outside.length() > cap {
            return None;
        }
        // (squared distance, edge, point), the squared distance compared as the scan does.
        let mut best: Option<(f32, u32, Vec2)> = None;
        self.cells.rings(
            p,
            &mut best,
            |best, lower| lower <= cap && best.is_none_or(|(d2, _, _)| lower * lower <= d2),
            |best, i| {
                let Some((a, b)) = edge(points, i) else {
                    return;
                };
                let q = closest_point_on_segment(p, a, b);
                let d2 = (q - p).length_squared();
                if best.is_none_or(|(bd, bi, _)| d2 < bd || (d2 == bd && i < bi)) {
                    *best = Some((d2, i, q));
                }
            },
        );
        best.map(|(_, _, q)| q).filter(|q| (*q - p).length() <= cap)
    }

    /// Signed distance from `p` to the boundary (negative inside), exact when its size is
    /// below `cap`; otherwise a value of the right sign and a size of at least `cap`.
    pub fn signed_distance(&self, points: &[Vec2], p: Vec2, cap: f32) -> f32 {
        let d = self
            .closest_boundary_point(points, p, cap)
            .map_or(cap, |q| (q - p).length());
        if self.contains(points, p) { -d } else { d }
    }

    /// Distance from the segment `a`–`b` to the filled ring and the segment's point where it
    /// is reached, as [`polygon::segment_ring`] when the distance is at most `cap`; otherwise
    /// `(f32::INFINITY, a)`.
    pub fn segment_distance(&self, points: &[Vec2], a: Vec2, b: Vec2, cap: f32) -> (f32, Vec2) {
        if self.contains(points, a) {
            return (0.0, a);
        }
        let far = (f32::INFINITY, a);
        if !a.is_finite() || !b.is_finite() || cap.is_nan() || cap < 0.0 {
            return far;
        }
        // An infinite cap would not place the search box; 1e30 reaches everything.
        let reach = cap.min(1.0e30);
        let pad = Vec2::splat(reach);
        let (lo, hi) = (a.min(b) - pad, a.max(b) + pad);
        if lo.x > self.max.x || lo.y > self.max.y || hi.x < self.min.x || hi.y < self.min.y {
            return far;
        }
        let mut best: Option<(f32, u32, Vec2)> = None;
        self.cells.any_near_segment(a, b, reach, |i| {
            if let Some((p, q)) = edge(points, i) {
                let (d, at) = segment_segment(a, b, p, q);
                if best.is_none_or(|(bd, bi, _)| d < bd || (d == bd && i < bi)) {
                    best = Some((d, i, at));
                }
            }
            false
        });
        match best {
            Some((d, _, at)) if d <= cap => (d, at),
            _ => far,
        }
    }

    /// Where the segment `a`–`b` crosses the ring's edges, as [`polygon::crossings`] finds
    /// them (the same fractions and edges, in the same order), testing only the edges listed
    /// in cells near the segment.
    pub fn crossings(&self, points: &[Vec2], a: Vec2, b: Vec2, out: &mut Vec<Crossing>) {
        out.clear();
        if !a.is_finite() || !b.is_finite() {
            polygon::crossings(points, a, b, out);
            return;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        if lo.x > self.max.x || lo.y > self.max.y || hi.x < self.min.x || hi.y < self.min.y {
            return;
        }
        // A crossing lies on an edge, so in a cell its box covers; the slack keeps a crossing
        // on a cell's corner from being missed for rounding.
        let slack = self.cells.cell_size() * 1e-3;
        self.cells.any_near_segment(a, b, slack, |i| {
            if let Some((p, q)) = edge(points, i)
                && let Some((t, _)) = segment_intersection(a, b, p, q)
            {
                out.push((t, i));
            }
            false
        });
        // An edge listed in several cells was found once per cell.
        polygon::sort_crossings(out);
        out.dedup_by(|x, y| x.1 == y.1);
    }

    /// Whether two edges that do not share a corner cross (as the pairwise scan of
    /// [`polygon::PolygonObstacle::validate`] decides, testing only edges in the same cells).
    pub fn any_crossing(&self, points: &[Vec2]) -> bool {
        let n = points.len();
        let slack = self.cells.cell_size() * 1e-3;
        polygon::edges(points).enumerate().any(|(i, (a0, a1))| {
            self.cells.any_near_segment(a0, a1, slack, |j| {
                let j = j as usize;
                if j <= i {
                    return false;
                }
                let adjacent = j == i + 1 || (i == 0 && j == n - 1);
                !adjacent
                    && edge(points, j as u32)
                        .is_some_and(|(b0, b1)| segment_intersection(a0, a1, b0, b1).is_some())
            })
        })
    }
}

/// Edge `i` of the ring: point `i` to point `i + 1` (the last to the first).
fn edge(points: &[Vec2], i: u32) -> Option<(Vec2, Vec2)> {
    let i = i as usize;
    let a = *points.get(i)?;
    let b = *points.get((i + 1) % points.len())?;
    Some((a, b))
}

#[cfg(test)]
mod tests;
