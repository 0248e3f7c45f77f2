//! Speed control: scores in `[0, 1]` that scale the top speed; the steerer uses the smallest.

use super::map::unit;

/// Slows down inside `slowing_radius` of the goal: `distance / slowing_radius`, clamped to
/// `[0, 1]` (1 for a non-positive radius).
#[inline]
pub fn arrive_speed(distance_to_goal: f32, slowing_radius: f32) -> f32 {
    if slowing_radius.is_nan() || slowing_radius <= 0.0 {
        return 1.0;
    }
    unit(distance_to_goal / slowing_radius)
}

/// Slows down when the chosen direction is dangerous (a choke, a wall ahead): `1 − slowdown ×
/// danger`, both clamped to `[0, 1]`.
#[inline]
pub fn clearance_speed(danger_ahead: f32, slowdown: f32) -> f32 {
    1.0 - unit(slowdown) * unit(danger_ahead)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_scores() {
        assert_eq!(arrive_speed(5.0, 2.0), 1.0);
        assert!((arrive_speed(0.5, 2.0) - 0.25).abs() < 1e-6);
        assert_eq!(arrive_speed(0.5, 0.0), 1.0);
        assert_eq!(arrive_speed(f32::NAN, 2.0), 0.0);
        assert!((clearance_speed(0.8, 0.5) - 0.6).abs() < 1e-6);
        assert_eq!(clearance_speed(0.8, 0.0), 1.0);
        assert_eq!(clearance_speed(2.0, 2.0), 0.0);
    }
}
