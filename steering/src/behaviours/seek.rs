//! Seek, flee and arrive: steering towards or away from a point.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::body::Body;
use crate::vector::truncate;

/// Steers at full speed towards `target`: `max_speed * dir(target) - velocity`.
///
/// Zero when `target` is not finite or coincides with the body's position.
pub fn seek(body: &Body, target: Vec2) -> Vec2 {
    match (target - body.position).try_normalize() {
        Some(dir) => body.steer_towards_velocity(dir * body.max_speed),
        None => Vec2::ZERO,
    }
}

/// Steers at full speed away from `threat`, but only while it is within `panic_distance`
/// (inclusive); zero farther away. Pass `f32::INFINITY` to always flee.
///
/// Zero when `threat` is not finite, coincides with the body's position (no direction to
/// flee in), or `panic_distance` is NaN or not positive.
pub fn flee(body: &Body, threat: Vec2, panic_distance: f32) -> Vec2 {
    if panic_distance.is_nan() || panic_distance <= 0.0 {
        return Vec2::ZERO;
    }
    let away = body.position - threat;
    if !away.is_finite() || away.length_squared() > panic_distance * panic_distance {
        return Vec2::ZERO;
    }
    match away.try_normalize() {
        Some(dir) => body.steer_towards_velocity(dir * body.max_speed),
        None => Vec2::ZERO,
    }
}

/// How quickly [`arrive`] slows down: Buckland's three settings, multiplied by
/// [`ArriveParams::tweaker`] to give the deceleration time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Deceleration {
    /// Factor 1: the shortest braking.
    Fast,
    /// Factor 2.
    #[default]
    Normal,
    /// Factor 3: the longest, gentlest braking.
    Slow,
}

impl Deceleration {
    /// Buckland's factor: 1, 2 or 3.
    #[inline]
    pub fn factor(self) -> f32 {
        match self {
            Self::Fast => 1.0,
            Self::Normal => 2.0,
            Self::Slow => 3.0,
        }
    }
}

/// The shortest deceleration time [`arrive`] uses, in seconds: shorter times would make the
/// feedback gain too stiff for an explicit integrator at ordinary tick rates.
pub const MIN_DECELERATION_TIME: f32 = 0.2;

/// Tuning of [`arrive`] and [`arrive_moving`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ArriveParams {
    /// Slow, normal or fast braking.
    pub deceleration: Deceleration,
    /// Seconds per deceleration step (Buckland's tweaker): the deceleration time is
    /// `deceleration.factor() * tweaker`, at least [`MIN_DECELERATION_TIME`].
    pub tweaker: f32,
    /// Fraction of the body's largest deceleration (`max_force / mass`) the braking profile
    /// plans with, in `(0, 1]`; the rest is margin that absorbs the velocity lag.
    pub braking_fraction: f32,
}

impl Default for ArriveParams {
    /// Normal deceleration, tweaker 0.3 (Buckland's), braking with half the force.
    fn default() -> Self {
        Self {
            deceleration: Deceleration::Normal,
            tweaker: 0.3,
            braking_fraction: 0.5,
        }
    }
}

impl ArriveParams {
    /// Parameters with the given deceleration and the default tweaker and braking.
    pub fn with(deceleration: Deceleration) -> Self {
        Self {
            deceleration,
            ..Self::default()
        }
    }

    /// The deceleration time `τ` in seconds (`factor * tweaker`, clamped to at least
    /// [`MIN_DECELERATION_TIME`]; a NaN tweaker gives the default).
    #[inline]
    pub fn deceleration_time(&self) -> f32 {
        let tweaker = if self.tweaker.is_finite() {
            self.tweaker
        } else {
            Self::default().tweaker
        };
        (self.deceleration.factor() * tweaker).max(MIN_DECELERATION_TIME)
    }
}

/// Steers to `target` and stops there without overshooting: [`arrive_moving`] with a still
/// target.
pub fn arrive(body: &Body, target: Vec2, params: &ArriveParams) -> Vec2 {
    arrive_moving(body, target, Vec2::ZERO, params)
}

/// Steers onto a target point that itself moves with `target_velocity` (a formation slot, an
/// escorted unit) and, once there, keeps pace with it.
///
/// The desired velocity is the target's velocity plus a closing velocity along the offset
/// `d` to the target whose speed is the smallest of `max_speed`, `|d| / τ` (τ =
/// [`ArriveParams::deceleration_time`]) and `sqrt(2 a |d|)`, the speed from which braking at
/// `a = braking_fraction * max_force / mass` stops exactly at the target; the sum is
/// truncated to `max_speed`.
///
/// Unlike [`seek`], the returned force is the velocity error scaled by the body's mass and a
/// gain of `4 / τ`: `mass * (desired - velocity) * 4 / τ`. With that gain the approach is
/// critically damped (it closes the last stretch as `(1 + 2t/τ) e^(-2t/τ)`), so a body
/// integrated with `acceleration = truncate(force, max_force) / mass` settles on the target
/// without passing it and tracks a constant-velocity target with no steady-state error. Plain
/// `desired - velocity` would respond with a one-second lag and overshoot.
///
/// At the target itself the force only removes the velocity relative to the target (zero for
/// a body already at rest on a still target). Zero when `target` or `target_velocity` is not
/// finite.
#[inline]
pub fn arrive_moving(
    body: &Body,
    target: Vec2,
    target_velocity: Vec2,
    params: &ArriveParams,
) -> Vec2 {
    let to_target = target - body.position;
    if !to_target.is_finite() || !target_velocity.is_finite() {
        return Vec2::ZERO;
    }
    let tau = params.deceleration_time();
    let dist = to_target.length();
    let mut speed = (dist / tau).min(body.max_speed);
    let brake = params.braking_fraction.min(1.0) * body.max_force / body.mass;
    if crate::ops::positive_finite(brake) {
        speed = speed.min((2.0 * brake * dist).sqrt());
    }
    let closing = match to_target.try_normalize() {
        Some(dir) if speed > 0.0 => dir * speed,
        _ => Vec2::ZERO,
    };
    let desired = truncate(target_velocity + closing, body.max_speed);
    let force = (desired - body.velocity) * (body.mass * 4.0 / tau);
    if force.is_finite() { force } else { Vec2::ZERO }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};

    #[test]
    fn seek_is_full_speed_towards_target_minus_velocity() {
        let b = body_at(Vec2::ZERO).moving(Vec2::new(0.0, 1.0));
        let f = seek(&b, Vec2::new(10.0, 0.0));
        assert!((f - Vec2::new(3.0, -1.0)).length() < 1e-6);
        assert_eq!(seek(&b, Vec2::ZERO), Vec2::ZERO);
        assert_eq!(seek(&b, Vec2::new(f32::NAN, 1.0)), Vec2::ZERO);
        assert_eq!(seek(&b, Vec2::new(f32::INFINITY, 1.0)), Vec2::ZERO);
    }

    #[test]
    fn flee_only_inside_panic_distance() {
        let b = body_at(Vec2::ZERO);
        let f = flee(&b, Vec2::new(2.0, 0.0), 5.0);
        assert!((f - Vec2::new(-3.0, 0.0)).length() < 1e-6);
        assert_eq!(flee(&b, Vec2::new(6.0, 0.0), 5.0), Vec2::ZERO);
        // Exactly on the boundary still flees.
        assert!(flee(&b, Vec2::new(5.0, 0.0), 5.0).x < 0.0);
        assert!(flee(&b, Vec2::new(1e6, 0.0), f32::INFINITY).x < 0.0);
        assert_eq!(flee(&b, Vec2::ZERO, 5.0), Vec2::ZERO);
        assert_eq!(flee(&b, Vec2::new(1.0, 0.0), 0.0), Vec2::ZERO);
        assert_eq!(flee(&b, Vec2::new(1.0, 0.0), f32::NAN), Vec2::ZERO);
        assert_eq!(flee(&b, Vec2::new(f32::NAN, 0.0), 5.0), Vec2::ZERO);
    }

    /// Integrates arrive from `start` to `target`; returns (min remaining distance along the
    /// approach axis, final distance, final speed).
    fn run_arrive(mut b: Body, target: Vec2, params: &ArriveParams, secs: f32) -> (f32, f32, f32) {
        let axis = (target - b.position).normalize();
        let mut min_remaining = f32::INFINITY;
        for _ in 0..(secs / DT) as usize {
            let f = arrive(&b, target, params);
            step(&mut b, f, DT);
            min_remaining = min_remaining.min((target - b.position).dot(axis));
        }
        (min_remaining, b.position.distance(target), b.speed())
    }

    #[test]
    fn arrive_stops_without_overshoot() {
        let target = Vec2::new(10.0, 4.0);
        for decel in [Deceleration::Fast, Deceleration::Normal, Deceleration::Slow] {
            for (max_speed, max_force, mass) in [
                (3.0, 6.0, 1.0),
                (3.0, 1.0, 1.0),
                (8.0, 4.0, 2.0),
                (1.0, 20.0, 0.5),
            ] {
                let b = Body {
                    max_speed,
                    max_force,
                    mass,
                    ..body_at(Vec2::ZERO)
                };
                let (min_rem, dist, speed) =
                    run_arrive(b, target, &ArriveParams::with(decel), 30.0);
                assert!(
                    min_rem >= -1e-4,
                    "{decel:?} {max_speed} {max_force} {mass}: overshot by {min_rem}"
                );
                assert!(dist < 0.05, "{decel:?} {max_speed}: ended {dist} away");
                assert!(speed < 0.05, "{decel:?}: still moving at {speed}");
            }
        }
    }

    #[test]
    fn arrive_from_full_speed_does_not_overshoot() {
        // Already at top speed towards a target 4 units ahead.
        let b = body_at(Vec2::ZERO).moving(Vec2::new(3.0, 0.0));
        let (min_rem, dist, speed) =
            run_arrive(b, Vec2::new(4.0, 0.0), &ArriveParams::default(), 10.0);
        assert!(min_rem >= -1e-4, "overshot by {min_rem}");
        assert!(dist < 0.05 && speed < 0.05);
    }

    #[test]
    fn arrive_slows_down_near_target_and_is_zero_at_rest_on_it() {
        let far = arrive(
            &body_at(Vec2::ZERO),
            Vec2::new(50.0, 0.0),
            &ArriveParams::default(),
        );
        let near = arrive(
            &body_at(Vec2::ZERO),
            Vec2::new(0.1, 0.0),
            &ArriveParams::default(),
        );
        assert!(far.x > near.x && near.x > 0.0);
        // Slow deceleration asks for less speed than fast at the same distance.
        let b = body_at(Vec2::ZERO);
        let t = Vec2::new(0.5, 0.0);
        let slow = arrive(&b, t, &ArriveParams::with(Deceleration::Slow));
        let fast = arrive(&b, t, &ArriveParams::with(Deceleration::Fast));
        assert!(slow.x < fast.x);
        assert_eq!(arrive(&b, Vec2::ZERO, &ArriveParams::default()), Vec2::ZERO);
        // Moving through the target: brakes against the velocity.
        let moving = b.moving(Vec2::new(1.0, 0.0));
        assert!(arrive(&moving, Vec2::ZERO, &ArriveParams::default()).x < 0.0);
        assert_eq!(
            arrive(&b, Vec2::new(f32::NAN, 0.0), &ArriveParams::default()),
            Vec2::ZERO
        );
        let weird = ArriveParams {
            tweaker: f32::NAN,
            braking_fraction: f32::NAN,
            ..ArriveParams::default()
        };
        assert!(arrive(&b, t, &weird).is_finite());
    }

    #[test]
    fn arrive_moving_tracks_constant_velocity_target() {
        let mut b = body_at(Vec2::new(-4.0, 3.0));
        let vel = Vec2::new(1.5, 0.5);
        let mut target = Vec2::ZERO;
        let params = ArriveParams::default();
        for _ in 0..(15.0 / DT) as usize {
            let f = arrive_moving(&b, target, vel, &params);
            step(&mut b, f, DT);
            target += vel * DT;
        }
        assert!(
            b.position.distance(target) < 0.05,
            "{}",
            b.position.distance(target)
        );
        assert!((b.velocity - vel).length() < 0.05);
        // Plain arrive at the same moving point lags behind.
        let mut c = body_at(Vec2::new(-4.0, 3.0));
        let mut target = Vec2::ZERO;
        for _ in 0..(15.0 / DT) as usize {
            let f = arrive(&c, target, &params);
            step(&mut c, f, DT);
            target += vel * DT;
        }
        assert!(c.position.distance(target) > 0.5);
    }

    #[test]
    fn arrive_moving_follows_circling_target_closely() {
        // A slot circling at radius 5, 1.5 units/s.
        let (r, w) = (5.0_f32, 0.3_f32);
        let slot = |t: f32| {
            let p = crate::ops::from_angle(w * t) * r;
            (p, p.perp() * w)
        };
        let mut b = body_at(Vec2::new(r, 0.0));
        let mut worst = 0.0_f32;
        for i in 0..(20.0 / DT) as usize {
            let t = i as f32 * DT;
            let (p, v) = slot(t);
            if t > 5.0 {
                worst = worst.max(b.position.distance(p));
            }
            let f = arrive_moving(&b, p, v, &ArriveParams::default());
            step(&mut b, f, DT);
        }
        assert!(worst < 0.1, "steady-state error {worst}");
    }
}
