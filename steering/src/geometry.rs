//! Static geometry that steering reads: circle obstacles and wall segments, with the ray and
//! segment tests the behaviours and constraints share.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{SteeringError, check_finite_vec, check_positive};

/// A circular obstacle.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CircleObstacle {
    /// Centre.
    pub center: Vec2,
    /// Radius.
    pub radius: f32,
}

impl CircleObstacle {
    /// A validated circle: finite centre, positive radius.
    pub fn new(center: Vec2, radius: f32) -> Result<Self, SteeringError> {
        check_finite_vec("obstacle center", center)?;
        check_positive("obstacle radius", radius)?;
        Ok(Self { center, radius })
    }

    /// Signed distance from `p` to the circle's edge (negative inside).
    #[inline]
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        (p - self.center).length() - self.radius
    }
}

/// A wall: a line segment with the unit normal of the side it faces.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wall {
    /// First end.
    pub from: Vec2,
    /// Second end.
    pub to: Vec2,
    /// Unit normal of the facing side.
    pub normal: Vec2,
}

impl Wall {
    /// A wall from `from` to `to` facing left of the direction `from → to`
    /// (normal = `(to - from).perp()` normalized). Errors on non-finite or coincident ends.
    pub fn new(from: Vec2, to: Vec2) -> Result<Self, SteeringError> {
        check_finite_vec("wall from", from)?;
        check_finite_vec("wall to", to)?;
        let normal = (to - from)
            .perp()
            .try_normalize()
            .ok_or(SteeringError::NotPositive {
                what: "wall length",
                value: 0.0,
            })?;
        Ok(Self { from, to, normal })
    }

    /// The same wall facing the other way.
    pub fn flipped(self) -> Self {
        Self {
            from: self.to,
            to: self.from,
            normal: -self.normal,
        }
    }

    /// Closest point of the segment to `p`.
    #[inline]
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        closest_point_on_segment(p, self.from, self.to)
    }

    /// Length of the segment.
    #[inline]
    pub fn length(&self) -> f32 {
        (self.to - self.from).length()
    }
}

/// Closest point to `p` on the segment `a`–`b` (`a` when the segment is degenerate).
#[inline]
pub fn closest_point_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq <= f32::EPSILON {
        return a;
    }
    let t = ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0);
    a + ab * t
}

/// Intersection of segments `a0`–`a1` and `b0`–`b1`: the fraction along `a` and the point.
/// Parallel or degenerate segments give `None`.
#[inline]
pub fn segment_intersection(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> Option<(f32, Vec2)> {
    let r = a1 - a0;
    let s = b1 - b0;
    let denom = r.perp_dot(s);
    if denom.abs() <= f32::EPSILON * (r.length_squared() + s.length_squared()).max(1e-12) {
        return None;
    }
    let qp = b0 - a0;
    let t = qp.perp_dot(s) / denom;
    let u = qp.perp_dot(r) / denom;
    if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
        Some((t, a0 + r * t))
    } else {
        None
    }
}

/// First hit of the ray `origin + dir * t` (`dir` unit, `0 <= t <= max`) with a circle:
/// the distance `t`. A ray starting inside the circle hits at 0.
#[inline]
pub fn ray_circle(origin: Vec2, dir: Vec2, max: f32, center: Vec2, radius: f32) -> Option<f32> {
    let m = origin - center;
    let c = m.length_squared() - radius * radius;
    if c <= 0.0 {
        return Some(0.0);
    }
    let b = m.dot(dir);
    if b > 0.0 {
        return None;
    }
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let t = -b - disc.sqrt();
    (t <= max).then_some(t.max(0.0))
}

/// First hit of the ray `origin + dir * t` (`0 <= t <= max`, `dir` unit) with a segment: `t`.
#[inline]
pub fn ray_segment(origin: Vec2, dir: Vec2, max: f32, a: Vec2, b: Vec2) -> Option<f32> {
    segment_intersection(origin, origin + dir * max, a, b).map(|(f, _)| f * max)
}

/// Whether the segment `a`–`b` passes within `radius` of `center`.
#[inline]
pub fn segment_hits_circle(a: Vec2, b: Vec2, center: Vec2, radius: f32) -> bool {
    (closest_point_on_segment(center, a, b) - center).length_squared() < radius * radius
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_normal_faces_left() {
        let w = Wall::new(Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
        assert!((w.normal - Vec2::Y).length() < 1e-6);
        assert!(Wall::new(Vec2::ONE, Vec2::ONE).is_err());
        assert!((w.flipped().normal + Vec2::Y).length() < 1e-6);
    }

    #[test]
    fn segments_cross() {
        let hit = segment_intersection(
            Vec2::new(0.0, -1.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(-1.0, 0.0),
            Vec2::new(1.0, 0.0),
        )
        .unwrap();
        assert!((hit.0 - 0.5).abs() < 1e-6);
        assert!(hit.1.length() < 1e-6);
        assert!(segment_intersection(Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::new(1.0, 1.0)).is_none());
    }

    #[test]
    fn ray_hits_circle_front_only() {
        let t = ray_circle(Vec2::ZERO, Vec2::X, 10.0, Vec2::new(5.0, 0.0), 1.0).unwrap();
        assert!((t - 4.0).abs() < 1e-5);
        assert!(ray_circle(Vec2::ZERO, -Vec2::X, 10.0, Vec2::new(5.0, 0.0), 1.0).is_none());
        assert!(ray_circle(Vec2::ZERO, Vec2::X, 3.0, Vec2::new(5.0, 0.0), 1.0).is_none());
        assert_eq!(
            ray_circle(Vec2::new(5.0, 0.0), Vec2::X, 1.0, Vec2::new(5.0, 0.0), 1.0),
            Some(0.0)
        );
    }

    #[test]
    fn closest_point_clamps() {
        let p = closest_point_on_segment(Vec2::new(-3.0, 1.0), Vec2::ZERO, Vec2::X);
        assert_eq!(p, Vec2::ZERO);
        let q = closest_point_on_segment(Vec2::new(0.5, 1.0), Vec2::ZERO, Vec2::X);
        assert!((q - Vec2::new(0.5, 0.0)).length() < 1e-6);
    }
}
