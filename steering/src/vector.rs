//! Small vector helpers that never produce NaN.

use glam::Vec2;

/// `v` with its length limited to `max` (a non-positive or non-finite `max` gives zero; a
/// non-finite `v` gives zero).
#[inline]
pub fn truncate(v: Vec2, max: f32) -> Vec2 {
    if max.is_nan() || max <= 0.0 || !v.is_finite() {
        return Vec2::ZERO;
    }
    let len_sq = v.length_squared();
    if len_sq > max * max {
        v * (max / len_sq.sqrt())
    } else {
        v
    }
}

/// `v` if both components are finite, else zero.
#[inline]
pub fn finite_or_zero(v: Vec2) -> Vec2 {
    if v.is_finite() { v } else { Vec2::ZERO }
}

/// Rotates `v` by the rotation that takes +x to the unit vector `facing`.
#[inline]
pub fn rotate(v: Vec2, facing: Vec2) -> Vec2 {
    facing.rotate(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_limits_and_sanitises() {
        assert_eq!(truncate(Vec2::new(3.0, 4.0), 10.0), Vec2::new(3.0, 4.0));
        let t = truncate(Vec2::new(3.0, 4.0), 2.5);
        assert!((t - Vec2::new(1.5, 2.0)).length() < 1e-6);
        assert_eq!(truncate(Vec2::new(f32::NAN, 1.0), 2.0), Vec2::ZERO);
        assert_eq!(truncate(Vec2::ONE, 0.0), Vec2::ZERO);
        assert_eq!(truncate(Vec2::ONE, f32::NAN), Vec2::ZERO);
    }

    #[test]
    fn rotate_by_facing() {
        let r = rotate(Vec2::new(1.0, 0.0), Vec2::Y);
        assert!((r - Vec2::Y).length() < 1e-6);
    }
}
