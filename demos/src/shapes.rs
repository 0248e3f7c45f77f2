//! The static map geometry the runner measures against and draws: bounds, circle and polygon
//! obstacles, walls, cover points and jump links, as plain shapes.
//!
//! Metrics and rendering read these shapes rather than the pathing crate's map directly, so they
//! can be tested on hand-made geometry; [`crate::runner::shapes_of`] converts a map.

use cohort_steering::geometry::{closest_point_on_segment, segment_intersection};
use glam::Vec2;

/// A closed polygon obstacle: its corners in order (either winding).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonShape {
    /// Corners; the last connects back to the first.
    pub points: Vec<Vec2>,
}

impl PolygonShape {
    /// Whether `p` lies inside (even-odd rule; points on an edge may go either way).
    pub fn contains(&self, p: Vec2) -> bool {
        let n = self.points.len();
        if n < 3 {
            return false;
        }
        let mut inside = false;
        let mut j = n - 1;
        for i in 0..n {
            let (a, b) = (self.points[i], self.points[j]);
            if (a.y > p.y) != (b.y > p.y) {
                let x = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x;
                if p.x < x {
                    inside = !inside;
                }
            }
            j = i;
        }
        inside
    }

    /// Distance from `p` to the nearest edge (unsigned).
    pub fn edge_distance(&self, p: Vec2) -> f32 {
        self.edges()
            .map(|(a, b)| (closest_point_on_segment(p, a, b) - p).length())
            .fold(f32::INFINITY, f32::min)
    }

    /// Signed distance from `p` to the boundary: negative inside.
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        let d = self.edge_distance(p);
        if self.contains(p) { -d } else { d }
    }

    /// The edges as `(from, to)` pairs, closing the loop.
    pub fn edges(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        let n = self.points.len();
        (0..n).map(move |i| (self.points[i], self.points[(i + 1) % n]))
    }
}

/// Every static shape of a map.
#[derive(Clone, Debug, PartialEq)]
pub struct MapShapes {
    /// Lower corner of the playable rectangle.
    pub min: Vec2,
    /// Upper corner of the playable rectangle.
    pub max: Vec2,
    /// Circle obstacles: centre and radius.
    pub circles: Vec<(Vec2, f32)>,
    /// Polygon obstacles.
    pub polygons: Vec<PolygonShape>,
    /// Wall segments (impassable from both sides for the metrics).
    pub walls: Vec<(Vec2, Vec2)>,
    /// Cover points.
    pub cover: Vec<Vec2>,
    /// Jump links: take-off and landing points.
    pub jumps: Vec<(Vec2, Vec2)>,
}

impl Default for MapShapes {
    /// An empty 100 × 100 field.
    fn default() -> Self {
        Self {
            min: Vec2::ZERO,
            max: Vec2::splat(100.0),
            circles: Vec::new(),
            polygons: Vec::new(),
            walls: Vec::new(),
            cover: Vec::new(),
            jumps: Vec::new(),
        }
    }
}

impl MapShapes {
    /// Whether a body of `radius` at `position` penetrates an obstacle by more than `tolerance`
    /// world units, or has its centre outside the bounds.
    pub fn penetrates(&self, position: Vec2, radius: f32, tolerance: f32) -> bool {
        if position.cmplt(self.min).any() || position.cmpgt(self.max).any() {
            return true;
        }
        let limit = radius - tolerance;
        self.circles
            .iter()
            .any(|&(c, r)| (position - c).length() < r + limit)
            || self
                .polygons
                .iter()
                .any(|poly| poly.signed_distance(position) < limit)
    }

    /// Whether the move from `from` to `to` crosses a wall or a polygon edge.
    pub fn crosses_wall(&self, from: Vec2, to: Vec2) -> bool {
        if from == to {
            return false;
        }
        self.walls
            .iter()
            .any(|&(a, b)| segment_intersection(from, to, a, b).is_some())
    }

    /// The rectangle that holds the bounds and every shape (for drawing).
    pub fn extent(&self) -> (Vec2, Vec2) {
        let mut lo = self.min;
        let mut hi = self.max;
        let mut grow = |p: Vec2, r: f32| {
            if p.is_finite() && r.is_finite() {
                lo = lo.min(p - Vec2::splat(r));
                hi = hi.max(p + Vec2::splat(r));
            }
        };
        for &(c, r) in &self.circles {
            grow(c, r);
        }
        for poly in &self.polygons {
            for &p in &poly.points {
                grow(p, 0.0);
            }
        }
        for &(a, b) in self.walls.iter().chain(self.jumps.iter()) {
            grow(a, 0.0);
            grow(b, 0.0);
        }
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> PolygonShape {
        PolygonShape {
            points: vec![
                Vec2::new(0.0, 0.0),
                Vec2::new(2.0, 0.0),
                Vec2::new(2.0, 2.0),
                Vec2::new(0.0, 2.0),
            ],
        }
    }

    #[test]
    fn polygon_inside_and_distance() {
        let sq = square();
        assert!(sq.contains(Vec2::new(1.0, 1.0)));
        assert!(!sq.contains(Vec2::new(3.0, 1.0)));
        assert!((sq.signed_distance(Vec2::new(1.0, 1.0)) + 1.0).abs() < 1e-6);
        assert!((sq.signed_distance(Vec2::new(3.0, 1.0)) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn penetration_of_circles_polygons_and_bounds() {
        let shapes = MapShapes {
            circles: vec![(Vec2::new(50.0, 50.0), 5.0)],
            polygons: vec![square()],
            ..MapShapes::default()
        };
        // Touching the circle's edge with the body's edge is not a penetration.
        assert!(!shapes.penetrates(Vec2::new(55.5, 50.0), 0.5, 0.05));
        // A quarter radius inside is.
        assert!(shapes.penetrates(Vec2::new(55.25, 50.0), 0.5, 0.05));
        assert!(shapes.penetrates(Vec2::new(1.0, 1.0), 0.5, 0.05));
        assert!(shapes.penetrates(Vec2::new(-1.0, 10.0), 0.5, 0.05));
        assert!(!shapes.penetrates(Vec2::new(10.0, 10.0), 0.5, 0.05));
    }

    #[test]
    fn wall_crossing() {
        let shapes = MapShapes {
            walls: vec![(Vec2::new(10.0, 0.0), Vec2::new(10.0, 20.0))],
            ..MapShapes::default()
        };
        assert!(shapes.crosses_wall(Vec2::new(9.0, 5.0), Vec2::new(11.0, 5.0)));
        assert!(!shapes.crosses_wall(Vec2::new(9.0, 25.0), Vec2::new(11.0, 25.0)));
        assert!(!shapes.crosses_wall(Vec2::new(9.0, 5.0), Vec2::new(9.5, 5.0)));
    }
}
