//! Velocity matching: take on a given velocity within a time.

use glam::Vec2;

use crate::body::Body;
use crate::vector::truncate;

/// Steers the velocity to `target_velocity` (truncated to `max_speed`) within
/// `time_to_target` seconds: `mass * (target - velocity) / time_to_target`, the force that
/// would close the gap in that time if not truncated.
///
/// Zero when `target_velocity` is not finite or `time_to_target` is not positive and finite.
pub fn velocity_match(body: &Body, target_velocity: Vec2, time_to_target: f32) -> Vec2 {
    if !target_velocity.is_finite()
        || time_to_target.is_nan()
        || time_to_target <= 0.0
        || !time_to_target.is_finite()
    {
        return Vec2::ZERO;
    }
    let desired = truncate(target_velocity, body.max_speed);
    let force = (desired - body.velocity) * (body.mass / time_to_target);
    if force.is_finite() { force } else { Vec2::ZERO }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};

    #[test]
    fn closes_velocity_gap_in_time() {
        let b = Body {
            mass: 2.0,
            ..body_at(Vec2::ZERO)
        }
        .moving(Vec2::new(1.0, 0.0));
        let f = velocity_match(&b, Vec2::new(1.0, 2.0), 0.5);
        assert!((f - Vec2::new(0.0, 8.0)).length() < 1e-6);
        // Target above max speed is capped.
        let g = velocity_match(&b, Vec2::new(10.0, 0.0), 1.0);
        assert!((g - Vec2::new(4.0, 0.0)).length() < 1e-6);
        assert_eq!(velocity_match(&b, Vec2::new(1.0, 0.0), 0.5), Vec2::ZERO);
        assert_eq!(velocity_match(&b, Vec2::ONE, 0.0), Vec2::ZERO);
        assert_eq!(velocity_match(&b, Vec2::NAN, 1.0), Vec2::ZERO);
    }

    #[test]
    fn integrated_body_reaches_target_velocity() {
        let mut b = body_at(Vec2::ZERO).moving(Vec2::new(-2.0, 0.0));
        let target = Vec2::new(1.0, 1.5);
        for _ in 0..(2.0 / DT) as usize {
            let f = velocity_match(&b, target, 0.25);
            step(&mut b, f, DT);
        }
        assert!((b.velocity - target).length() < 0.01, "{}", b.velocity);
    }
}
