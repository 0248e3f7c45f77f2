//! Polygon obstacles (convex or simple) and the segment-distance helpers the map queries share.

use cohort_steering::geometry::{closest_point_on_segment, segment_intersection};
use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{PathingError, coord};
use crate::ring_index::RingIndex;

/// Most points of one polygon obstacle or jumpable gap: each is indexed for the map's queries
/// (a grid of at most 512 × 512 cells), and an outline this fine is far below any unit's size
/// on the largest map.
pub const MAX_RING_POINTS: usize = 65_536;

/// A polygon obstacle: a closed ring of points, convex or simple (not self-crossing), in either
/// winding order. The last point connects back to the first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PolygonObstacle {
    /// The corners, in order around the polygon.
    pub points: Vec<Vec2>,
}

impl PolygonObstacle {
    /// A validated polygon (see [`PolygonObstacle::validate`]).
    pub fn new(points: Vec<Vec2>) -> Result<Self, PathingError> {
        let p = Self { points };
        p.validate("polygon", 0)?;
        Ok(p)
    }

    /// An axis-aligned rectangle from its two corners (in any order).
    pub fn rectangle(a: Vec2, b: Vec2) -> Result<Self, PathingError> {
        let (lo, hi) = (a.min(b), a.max(b));
        Self::new(vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)])
    }

    /// Checks the ring: three to [`MAX_RING_POINTS`] finite points, no zero-length edge, a
    /// non-zero area and no two non-adjacent edges crossing. `what` and `index` name it in the error.
    pub fn validate(&self, what: &'static str, index: usize) -> Result<(), PathingError> {
        let degenerate = |reason| PathingError::Degenerate {
            what,
            index,
            reason,
        };
        if self.points.len() < 3 {
            return Err(degenerate("fewer than three points"));
        }
        if self.points.len() > MAX_RING_POINTS {
            return Err(degenerate("more than 65,536 points"));
        }
        for p in &self.points {
            coord("polygon point", *p)?;
        }
        if edges(&self.points).any(|(a, b)| (b - a).length_squared() <= f32::EPSILON) {
            return Err(degenerate("zero-length edge"));
        }
        let (lo, hi) = aabb(&self.points);
        let scale = (hi - lo).max_element().max(1e-6);
        if signed_area(&self.points).abs() <= 1e-6 * scale * scale {
            return Err(degenerate("zero area"));
        }
        let n = self.points.len();
        if let Some(index) = RingIndex::build(&self.points) {
            // Long rings: only edges sharing a cell of the edge index are tested.
            if index.any_crossing(&self.points) {
                return Err(degenerate("edges cross each other"));
            }
            return Ok(());
        }
        for (i, (a0, a1)) in edges(&self.points).enumerate() {
            for (j, (b0, b1)) in edges(&self.points).enumerate().skip(i + 1) {
                let adjacent = j == i + 1 || (i == 0 && j == n - 1);
                if !adjacent && segment_intersection(a0, a1, b0, b1).is_some() {
                    return Err(degenerate("edges cross each other"));
                }
            }
        }
        Ok(())
    }

    /// Whether `p` is strictly inside (even-odd rule).
    pub fn contains(&self, p: Vec2) -> bool {
        contains(&self.points, p)
    }

    /// Signed distance from `p` to the boundary: negative inside.
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        signed_distance(&self.points, p)
    }

    /// The outward unit normal of edge `i` (from point `i` to point `i + 1`); `None` past the end.
    pub fn outward_normal(&self, i: usize) -> Option<Vec2> {
        let (a, b) = edges(&self.points).nth(i)?;
        let left = (b - a).perp().normalize_or_zero();
        // Counter-clockwise rings have the interior on the left of every edge.
        Some(if signed_area(&self.points) > 0.0 {
            -left
        } else {
            left
        })
    }
}

/// The edges of a closed ring, as point pairs.
pub(crate) fn edges(points: &[Vec2]) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
    let n = points.len();
    (0..n).filter_map(move |i| Some((*points.get(i)?, *points.get((i + 1) % n)?)))
}

/// The signed area (positive for counter-clockwise rings).
pub(crate) fn signed_area(points: &[Vec2]) -> f32 {
    0.5 * edges(points).map(|(a, b)| a.perp_dot(b)).sum::<f32>()
}

/// Bounding box of a point list.
pub(crate) fn aabb(points: &[Vec2]) -> (Vec2, Vec2) {
    points.iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}

/// Even-odd point-in-polygon test.
pub(crate) fn contains(points: &[Vec2], p: Vec2) -> bool {
    let mut inside = false;
    for (a, b) in edges(points) {
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// The closest point of the ring's boundary to `p`.
pub(crate) fn closest_boundary_point(points: &[Vec2], p: Vec2) -> Vec2 {
    let mut best = (f32::INFINITY, p);
    for (a, b) in edges(points) {
        let q = closest_point_on_segment(p, a, b);
        let d = (q - p).length_squared();
        if d < best.0 {
            best = (d, q);
        }
    }
    best.1
}

/// Signed distance from `p` to the ring's boundary (negative inside).
pub(crate) fn signed_distance(points: &[Vec2], p: Vec2) -> f32 {
    let d = (closest_boundary_point(points, p) - p).length();
    if contains(points, p) { -d } else { d }
}

/// Distance between two segments and the point of the first segment where it is reached
/// (0 when they cross).
pub(crate) fn segment_segment(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> (f32, Vec2) {
    if let Some((_, p)) = segment_intersection(a0, a1, b0, b1) {
        return (0.0, p);
    }
    let candidates = [
        (a0, closest_point_on_segment(a0, b0, b1)),
        (a1, closest_point_on_segment(a1, b0, b1)),
        (closest_point_on_segment(b0, a0, a1), b0),
        (closest_point_on_segment(b1, a0, a1), b1),
    ];
    let mut best = (f32::INFINITY, a0);
    for (on_a, on_b) in candidates {
        let d = (on_a - on_b).length();
        if d < best.0 {
            best = (d, on_a);
        }
    }
    best
}

/// Distance from the segment `a`–`b` to a filled ring (0 when it enters or touches it) and the
/// segment's point where it is reached.
pub(crate) fn segment_ring(points: &[Vec2], a: Vec2, b: Vec2) -> (f32, Vec2) {
    if contains(points, a) {
        return (0.0, a);
    }
    let mut best = (f32::INFINITY, a);
    for (p, q) in edges(points) {
        let hit = segment_segment(a, b, p, q);
        if hit.0 < best.0 {
            best = hit;
            if hit.0 <= 0.0 {
                break;
            }
        }
    }
    best
}

/// Where a segment crosses a ring: the fraction along the segment and the edge crossed.
pub(crate) type Crossing = (f32, u32);

/// Where the segment `a`–`b` crosses the ring's edges, sorted by the fraction along it (then
/// by edge).
pub(crate) fn crossings(points: &[Vec2], a: Vec2, b: Vec2, out: &mut Vec<Crossing>) {
    out.clear();
    out.extend(
        edges(points)
            .enumerate()
            .filter_map(|(i, (p, q))| segment_intersection(a, b, p, q).map(|h| (h.0, i as u32))),
    );
    sort_crossings(out);
}

/// Sorts crossings by fraction, then by edge.
pub(crate) fn sort_crossings(out: &mut [Crossing]) {
    out.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> PolygonObstacle {
        PolygonObstacle::rectangle(Vec2::ZERO, Vec2::splat(2.0)).unwrap()
    }

    #[test]
    fn validation_rejects_degenerate_rings() {
        assert!(PolygonObstacle::new(vec![Vec2::ZERO, Vec2::X]).is_err());
        // Collinear: zero area.
        assert!(PolygonObstacle::new(vec![Vec2::ZERO, Vec2::X, Vec2::new(2.0, 0.0)]).is_err());
        // A bow tie crosses itself.
        let bow = vec![
            Vec2::ZERO,
            Vec2::new(4.0, 2.0),
            Vec2::new(4.0, 0.0),
            Vec2::new(0.0, 3.0),
        ];
        assert!(matches!(
            PolygonObstacle::new(bow),
            Err(PathingError::Degenerate {
                reason: "edges cross each other",
                ..
            })
        ));
        assert!(PolygonObstacle::new(vec![Vec2::ZERO, Vec2::X, Vec2::new(f32::NAN, 1.0)]).is_err());
        // A simple concave L-shape is fine.
        let l = vec![
            Vec2::ZERO,
            Vec2::new(3.0, 0.0),
            Vec2::new(3.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 3.0),
            Vec2::new(0.0, 3.0),
        ];
        assert!(PolygonObstacle::new(l).is_ok());
    }

    #[test]
    fn distances_and_containment() {
        let s = square();
        assert!(s.contains(Vec2::ONE));
        assert!(!s.contains(Vec2::new(3.0, 1.0)));
        assert!((s.signed_distance(Vec2::ONE) + 1.0).abs() < 1e-6);
        assert!((s.signed_distance(Vec2::new(5.0, 1.0)) - 3.0).abs() < 1e-6);
        let (d, _) = segment_ring(&s.points, Vec2::new(-1.0, 1.0), Vec2::new(3.0, 1.0));
        assert_eq!(d, 0.0);
        let (d, p) = segment_ring(&s.points, Vec2::new(-1.0, 3.0), Vec2::new(3.0, 3.0));
        assert!((d - 1.0).abs() < 1e-6);
        assert!((p.y - 3.0).abs() < 1e-6 && (0.0..=2.0).contains(&p.x));
    }

    #[test]
    fn outward_normals_point_out_for_both_windings() {
        let ccw = square();
        let mut cw = ccw.clone();
        cw.points.reverse();
        for poly in [ccw, cw] {
            for i in 0..4 {
                let (a, b) = edges(&poly.points).nth(i).unwrap();
                let mid = (a + b) * 0.5;
                let n = poly.outward_normal(i).unwrap();
                assert!(!poly.contains(mid + n * 0.1));
                assert!(poly.contains(mid - n * 0.1));
            }
        }
    }

    #[test]
    fn crossings_are_sorted() {
        let s = square();
        let mut out = Vec::new();
        crossings(
            &s.points,
            Vec2::new(-1.0, 1.0),
            Vec2::new(3.0, 1.0),
            &mut out,
        );
        assert_eq!(out.len(), 2);
        assert!((out[0].0 - 0.25).abs() < 1e-6 && (out[1].0 - 0.75).abs() < 1e-6);
        // The square's edges are 0: bottom, 1: right, 2: top, 3: left.
        assert_eq!((out[0].1, out[1].1), (3, 1));
    }
}
