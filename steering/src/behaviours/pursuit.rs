//! Pursuit, evade, offset pursuit and interpose: steering relative to other moving agents,
//! predicting where they will be.

use glam::Vec2;

use crate::behaviours::seek::{ArriveParams, arrive, arrive_moving, flee, seek};
use crate::behaviours::target::MovingTarget;
use crate::body::Body;

/// Cosine of the largest angle between two headings that still counts as "facing each
/// other" for [`pursuit`] (Buckland's 0.95, about 18°).
pub const FACING_COS: f32 = 0.95;

/// Look-ahead time: distance over the sum of the two speeds (0 when both are still or the
/// result is not finite).
#[inline]
fn look_ahead(distance: f32, own_speed: f32, other_speed: f32) -> f32 {
    let t = distance / (own_speed + other_speed);
    crate::ops::positive_or_zero(t)
}

/// Intercepts a moving `evader`: seeks the point where it will be after the look-ahead time
/// `distance / (max_speed + evader speed)`. An evader straight ahead and heading towards us
/// (headings within [`FACING_COS`]) is simply seeked.
///
/// Zero when the evader is not finite or at the body's position.
pub fn pursuit(body: &Body, evader: impl Into<MovingTarget>) -> Vec2 {
    let evader = evader.into();
    if !evader.is_finite() {
        return Vec2::ZERO;
    }
    let to_evader = evader.position - body.position;
    let ahead = to_evader.dot(body.heading) > 0.0;
    let facing = evader
        .facing()
        .is_some_and(|h| h.dot(body.heading) < -FACING_COS);
    if ahead && facing {
        return seek(body, evader.position);
    }
    let t = look_ahead(to_evader.length(), body.max_speed, evader.speed());
    seek(body, evader.predict(t))
}

/// Runs from a `pursuer` while it is within `panic_distance` (use `f32::INFINITY` for always):
/// flees the point where the pursuer will be after the look-ahead time
/// `distance / (max_speed + pursuer speed)`.
///
/// Zero when the pursuer is farther than `panic_distance`, not finite, or its predicted
/// position coincides with the body's.
pub fn evade(body: &Body, pursuer: impl Into<MovingTarget>, panic_distance: f32) -> Vec2 {
    let pursuer = pursuer.into();
    if !pursuer.is_finite() || panic_distance.is_nan() || panic_distance <= 0.0 {
        return Vec2::ZERO;
    }
    let dist = pursuer.position.distance(body.position);
    if dist > panic_distance {
        return Vec2::ZERO;
    }
    let t = look_ahead(dist, body.max_speed, pursuer.speed());
    flee(body, pursuer.predict(t), f32::INFINITY)
}

/// Keeps station at `offset` in the `leader`'s local frame (+x its facing, +y its left): arrives
/// at the world offset point predicted after the look-ahead time
/// `distance / (max_speed + leader speed)`, feeding the leader's velocity forward
/// ([`arrive_moving`]) so the follower keeps pace instead of trailing behind.
///
/// Zero when the leader is not finite; a leader with no facing uses +x.
pub fn offset_pursuit(
    body: &Body,
    leader: impl Into<MovingTarget>,
    offset: Vec2,
    params: &ArriveParams,
) -> Vec2 {
    let leader = leader.into();
    if !leader.is_finite() || !offset.is_finite() {
        return Vec2::ZERO;
    }
    let world_offset = leader.to_world(offset);
    let t = look_ahead(
        world_offset.distance(body.position),
        body.max_speed,
        leader.speed(),
    );
    arrive_moving(
        body,
        world_offset + leader.velocity * t,
        leader.velocity,
        params,
    )
}

/// Gets between `a` and `b` (a bodyguard, a pass interceptor): with `T` = distance to their
/// current midpoint / `max_speed`, arrives at the midpoint of their positions predicted `T`
/// seconds ahead.
///
/// Zero when either is not finite.
pub fn interpose(
    body: &Body,
    a: impl Into<MovingTarget>,
    b: impl Into<MovingTarget>,
    params: &ArriveParams,
) -> Vec2 {
    let (a, b) = (a.into(), b.into());
    if !a.is_finite() || !b.is_finite() {
        return Vec2::ZERO;
    }
    let mid = (a.position + b.position) * 0.5;
    let t = look_ahead(mid.distance(body.position), body.max_speed, 0.0);
    arrive(body, (a.predict(t) + b.predict(t)) * 0.5, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};

    #[test]
    fn pursuit_of_oncoming_target_is_seek() {
        let me = body_at(Vec2::ZERO).moving(Vec2::new(1.0, 0.0));
        let evader = body_at(Vec2::new(10.0, 0.0))
            .facing(-Vec2::X)
            .moving(Vec2::new(-2.0, 0.0));
        assert_eq!(pursuit(&me, evader), seek(&me, evader.position));
    }

    #[test]
    fn pursuit_leads_a_crossing_target() {
        let me = body_at(Vec2::ZERO);
        // Evader 12 ahead, moving up at speed 3: look-ahead 12 / (3 + 3) = 2 s → aim (12, 6).
        let evader = MovingTarget::new(Vec2::new(12.0, 0.0), Vec2::new(0.0, 3.0));
        let f = pursuit(&me, evader);
        let expected = seek(&me, Vec2::new(12.0, 6.0));
        assert!((f - expected).length() < 1e-5, "{f} vs {expected}");
        assert!(f.y > 0.0);
        assert_eq!(pursuit(&me, MovingTarget::point(Vec2::ZERO)), Vec2::ZERO);
        assert_eq!(
            pursuit(&me, MovingTarget::point(Vec2::new(f32::NAN, 0.0))),
            Vec2::ZERO
        );
    }

    #[test]
    fn pursuit_catches_a_slower_evader() {
        let mut me = body_at(Vec2::ZERO);
        let mut evader = MovingTarget::new(Vec2::new(5.0, 5.0), Vec2::new(1.5, 0.0));
        let mut caught = false;
        for _ in 0..(20.0 / DT) as usize {
            let f = pursuit(&me, evader);
            step(&mut me, f, DT);
            evader.position += evader.velocity * DT;
            if me.position.distance(evader.position) < 0.5 {
                caught = true;
                break;
            }
        }
        assert!(caught);
    }

    #[test]
    fn evade_flees_predicted_position_within_panic_distance() {
        let me = body_at(Vec2::ZERO);
        // Pursuer 6 to the right moving up at 3: predicted (6, 3); flee away from it.
        let pursuer = MovingTarget::new(Vec2::new(6.0, 0.0), Vec2::new(0.0, 3.0));
        let f = evade(&me, pursuer, 10.0);
        let expected = flee(&me, Vec2::new(6.0, 3.0), f32::INFINITY);
        assert!((f - expected).length() < 1e-5);
        assert!(f.x < 0.0 && f.y < 0.0);
        assert_eq!(evade(&me, pursuer, 5.0), Vec2::ZERO);
        assert_eq!(evade(&me, MovingTarget::point(Vec2::ZERO), 5.0), Vec2::ZERO);
    }

    #[test]
    fn offset_pursuit_holds_station_beside_moving_leader() {
        let mut leader = body_at(Vec2::ZERO)
            .facing(Vec2::Y)
            .moving(Vec2::new(0.0, 1.5));
        let offset = Vec2::new(-1.0, -2.0); // one behind, two to the right
        let mut me = body_at(Vec2::new(-6.0, -4.0));
        for _ in 0..(15.0 / DT) as usize {
            let f = offset_pursuit(&me, leader, offset, &ArriveParams::default());
            step(&mut me, f, DT);
            leader.position += leader.velocity * DT;
        }
        // Leader faces +y: local -x is world -y, local -y (right) is world +x.
        let slot = leader.position + Vec2::new(2.0, -1.0);
        assert!(
            me.position.distance(slot) < 0.05,
            "{}",
            me.position.distance(slot)
        );
        assert!((me.velocity - leader.velocity).length() < 0.05);
    }

    #[test]
    fn interpose_reaches_midpoint_of_moving_pair() {
        let mut a = MovingTarget::new(Vec2::new(0.0, 10.0), Vec2::new(1.0, 0.0));
        let mut b = MovingTarget::new(Vec2::new(10.0, 0.0), Vec2::new(1.0, 0.0));
        let mut me = body_at(Vec2::new(-5.0, -5.0));
        // First call aims at the predicted, not the current, midpoint.
        let mid = Vec2::new(5.0, 5.0);
        let t = mid.distance(me.position) / me.max_speed;
        let f = interpose(&me, a, b, &ArriveParams::default());
        let expected = arrive(&me, mid + Vec2::new(t, 0.0), &ArriveParams::default());
        assert!((f - expected).length() < 1e-4);
        for _ in 0..(20.0 / DT) as usize {
            let f = interpose(&me, a, b, &ArriveParams::default());
            step(&mut me, f, DT);
            a.position += a.velocity * DT;
            b.position += b.velocity * DT;
        }
        let mid = (a.position + b.position) * 0.5;
        // Arrive at a point moving at 1 unit/s trails it by a bounded amount.
        assert!(
            me.position.distance(mid) < 0.7,
            "{}",
            me.position.distance(mid)
        );
    }
}
