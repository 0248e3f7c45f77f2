//! Wander: Reynolds' random walk by a target jittering on a circle projected ahead.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::behaviours::seek::seek;
use crate::body::Body;
use crate::random::SimRng;

/// Shape of the wander circle.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WanderParams {
    /// Radius of the circle the target moves on: larger gives sharper turns.
    pub radius: f32,
    /// How far ahead of the body the circle's centre is: larger gives steadier headings.
    pub distance: f32,
    /// Largest random displacement of the target per second on each axis, in world units,
    /// before the target is pulled back onto the circle.
    pub jitter: f32,
}

impl Default for WanderParams {
    /// Radius 1.2 and distance 2 (Buckland's), jitter 10 per second: smooth, undulating
    /// turns at ordinary tick rates.
    fn default() -> Self {
        Self {
            radius: 1.2,
            distance: 2.0,
            jitter: 10.0,
        }
    }
}

/// Where the wander target sits on the circle, carried from tick to tick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WanderState {
    /// Unit direction from the circle's centre to the target, in the body's local frame
    /// (+x ahead, +y left). Scaled by [`WanderParams::radius`] when used, so the state
    /// survives retuning. A zero or non-finite value is reset to straight ahead.
    pub target: Vec2,
}

impl Default for WanderState {
    /// Target straight ahead.
    fn default() -> Self {
        Self { target: Vec2::X }
    }
}

/// Wanders: moves the target on the circle by a random displacement of up to
/// `jitter * dt` on each axis, projects the circle `distance` ahead of the body along its
/// heading and seeks the target's world position.
///
/// Draws exactly two numbers from `rng` per call (so the same seed gives the same walk).
/// Non-positive or non-finite `dt` moves nothing; a body whose heading and projected target
/// coincide with its position returns zero.
pub fn wander(
    body: &Body,
    state: &mut WanderState,
    params: &WanderParams,
    rng: &mut SimRng,
    dt: f32,
) -> Vec2 {
    let jx = rng.clamped();
    let jy = rng.clamped();
    let current = state.target.try_normalize().unwrap_or(Vec2::X);
    let radius = if params.radius.is_finite() {
        params.radius.max(0.0)
    } else {
        0.0
    };
    let step = if dt > 0.0 && params.jitter.is_finite() {
        params.jitter.max(0.0) * dt
    } else {
        0.0
    };
    // Jitter in circle units: a displacement of `step` world units on a circle of `radius`.
    let jitter = if radius > 0.0 { step / radius } else { 0.0 };
    let moved = current + Vec2::new(jx, jy) * jitter;
    state.target = moved
        .try_normalize()
        .filter(|v| v.is_finite())
        .unwrap_or(current);
    let distance = if params.distance.is_finite() {
        params.distance
    } else {
        0.0
    };
    let local = state.target * radius + Vec2::new(distance, 0.0);
    seek(body, body.to_world(local))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};

    fn run(seed: u64, secs: f32) -> (Body, WanderState) {
        let mut rng = SimRng::seed_from(seed);
        let mut b = body_at(Vec2::ZERO);
        let mut s = WanderState::default();
        let p = WanderParams::default();
        for _ in 0..(secs / DT) as usize {
            let f = wander(&b, &mut s, &p, &mut rng, DT);
            step(&mut b, f, DT);
        }
        (b, s)
    }

    #[test]
    fn same_seed_same_walk() {
        let (a, sa) = run(11, 10.0);
        let (b, sb) = run(11, 10.0);
        assert_eq!(a, b);
        assert_eq!(sa, sb);
        let (c, _) = run(12, 10.0);
        assert_ne!(a.position, c.position);
    }

    #[test]
    fn target_stays_on_circle_and_moves_within_jitter() {
        let mut rng = SimRng::seed_from(3);
        let b = body_at(Vec2::ZERO);
        let mut s = WanderState::default();
        let p = WanderParams::default();
        let mut max_move = 0.0_f32;
        for _ in 0..200 {
            let before = s.target;
            let f = wander(&b, &mut s, &p, &mut rng, DT);
            assert!((s.target.length() - 1.0).abs() < 1e-5);
            // The raw displacement is at most jitter*dt*sqrt(2) world units; pulling it back
            // onto the circle at most doubles the chord.
            let moved = (s.target - before).length() * p.radius;
            assert!(moved <= 2.0 * p.jitter * DT * 2f32.sqrt() + 1e-5, "{moved}");
            max_move = max_move.max(moved);
            // Always steers at full speed somewhere ahead of the body (distance > radius).
            assert!((f.length() - b.max_speed).abs() < 1e-4);
            assert!(f.x > 0.0);
        }
        assert!(
            max_move > 0.5 * p.jitter * DT,
            "target hardly moved: {max_move}"
        );
    }

    #[test]
    fn wander_actually_turns_and_moves() {
        let (b, _) = run(5, 20.0);
        assert!(b.position.length() > 5.0);
        assert!(b.heading.dot(Vec2::X) < 0.999, "never turned");
    }

    #[test]
    fn zero_dt_or_degenerate_params_do_not_break() {
        let mut rng = SimRng::seed_from(1);
        let b = body_at(Vec2::ZERO);
        let mut s = WanderState { target: Vec2::ZERO };
        let f = wander(&b, &mut s, &WanderParams::default(), &mut rng, 0.0);
        assert_eq!(s.target, Vec2::X);
        assert!((f - Vec2::new(3.0, 0.0)).length() < 1e-5);
        let bad = WanderParams {
            radius: f32::NAN,
            distance: f32::INFINITY,
            jitter: -1.0,
        };
        let f = wander(&b, &mut s, &bad, &mut rng, DT);
        assert!(f.is_finite());
        let zero = WanderParams {
            radius: 0.0,
            distance: 0.0,
            jitter: 10.0,
        };
        assert_eq!(wander(&b, &mut s, &zero, &mut rng, DT), Vec2::ZERO);
    }

    #[test]
    fn state_round_trips_through_ron() {
        let s = WanderState {
            target: Vec2::new(0.6, 0.8),
        };
        let back: WanderState = ron::from_str(&ron::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let p: WanderParams = ron::from_str("(radius: 2.0)").unwrap();
        assert_eq!(p.distance, WanderParams::default().distance);
    }
}
