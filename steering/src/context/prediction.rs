//! Danger from moving bodies: predicted collisions by closest point of approach.

use glam::Vec2;

use super::map::ContextMap;
use super::timeslice::FOREVER;
use crate::body::Body;

/// cos 45°: slots within 45° of the impact direction receive a predicted collision's danger.
const CONE_COS: f32 = core::f32::consts::FRAC_1_SQRT_2;

/// A predicted collision between two bodies moving at constant velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollisionPrediction {
    /// Seconds until the closest point of approach (clamped to `[0, horizon]`).
    pub time: f32,
    /// Where the other body will be then.
    pub impact_point: Vec2,
    /// Distance between the centres then.
    pub miss_distance: f32,
}

/// Closest approach within `horizon` seconds of a body at `pos` moving at `vel` and another at
/// `other_pos` moving at `other_vel`: `(time, miss distance)`. Time is 0 for no relative motion.
pub fn closest_approach(
    pos: Vec2,
    vel: Vec2,
    other_pos: Vec2,
    other_vel: Vec2,
    horizon: f32,
) -> (f32, f32) {
    let p = other_pos - pos;
    let v = other_vel - vel;
    let vv = v.length_squared();
    let horizon = if horizon.is_finite() {
        horizon.max(0.0)
    } else {
        0.0
    };
    let t = if vv > 1e-12 {
        (-p.dot(v) / vv).clamp(0.0, horizon)
    } else {
        0.0
    };
    let t = if t.is_finite() { t } else { 0.0 };
    (t, (p + v * t).length())
}

/// A collision between `body` and `other` (both at their current velocity) within `horizon`
/// seconds: their centres come closer than their radii plus `margin`. `None` otherwise, or for
/// non-finite input.
pub fn predict_collision(
    body: &Body,
    other: &Body,
    horizon: f32,
    margin: f32,
) -> Option<CollisionPrediction> {
    let reach = body.radius + other.radius + margin.max(0.0);
    let (time, miss) = closest_approach(
        body.position,
        body.velocity,
        other.position,
        other.velocity,
        horizon,
    );
    let impact_point = other.position + other.velocity * time;
    (miss < reach && impact_point.is_finite()).then_some(CollisionPrediction {
        time,
        impact_point,
        miss_distance: miss,
    })
}

/// Tuning of [`moving_bodies`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PredictionParams {
    /// Farthest impact point that counts, and the distance danger is normalized by.
    pub look_distance: f32,
    /// How far ahead collisions are predicted, seconds.
    pub horizon: f32,
    /// Extra clearance added to the two radii.
    pub margin: f32,
}

/// Danger from bodies on a collision course. For each of `movers` (bodies at `body`'s own
/// position are ignored: that is the body itself) a predicted collision whose impact point lies
/// within the look distance projects danger onto every slot within 45° of the impact direction
/// (or within the angle the reach — both radii plus the margin — subtends at the impact
/// distance, when that is wider):
/// `1 − distance / look_distance` or `1 − time / horizon`, whichever is larger, scaled down for slots that move away from the impact (by how
/// much the closest approach grows if the body went that way at top speed: full danger while
/// it would still touch, none once it would miss by the whole reach again), with the slot
/// distance the impact point projected on the slot. Valid for half the time any mover could
/// take to close the gap (both at top speed), and at most half the time to the nearest impact.
pub fn moving_bodies(
    danger: &mut ContextMap,
    body: &Body,
    movers: &[Body],
    params: &PredictionParams,
) -> f32 {
    let look = params.look_distance;
    if !look.is_finite() || look <= 0.0 || !body.position.is_finite() {
        return FOREVER;
    }
    let mut valid = FOREVER;
    for other in movers {
        let offset = other.position - body.position;
        if offset.length_squared() <= 1e-12 || !offset.is_finite() {
            continue;
        }
        let reach = body.radius + other.radius + params.margin.max(0.0);
        let closing = body.max_speed + other.speed();
        if closing > 0.0 {
            valid = valid.min(0.5 * (offset.length() - reach).max(0.0) / closing);
        }
        let Some(hit) = predict_collision(body, other, params.horizon, params.margin) else {
            continue;
        };
        let to_impact = hit.impact_point - body.position;
        let dist = to_impact.length();
        if dist > look {
            continue;
        }
        valid = valid.min(0.5 * hit.time);
        let Some(impact_dir) = to_impact.try_normalize().or_else(|| offset.try_normalize()) else {
            continue;
        };
        // Nearer in space or in time is more dangerous.
        let soon = if params.horizon > 0.0 {
            1.0 - hit.time / params.horizon
        } else {
            0.0
        };
        let base = (1.0 - dist / look).max(soon);
        // 45°, or wider when the impact is so near that the reach subtends more than that.
        let cone = if dist > reach {
            let sin = reach / dist;
            CONE_COS.min((1.0 - sin * sin).max(0.0).sqrt())
        } else {
            0.0
        };
        for i in 0..danger.slot_count() {
            let Some(s) = danger.direction(i) else {
                continue;
            };
            if s.dot(impact_dir) < cone {
                continue;
            }
            let (_, miss) = closest_approach(
                body.position,
                s * body.max_speed,
                other.position,
                other.velocity,
                params.horizon,
            );
            let scale = (1.0 - (miss - reach) / reach).clamp(0.0, 1.0);
            danger.write(i, base * scale, to_impact.dot(s).max(0.0));
        }
    }
    valid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> PredictionParams {
        PredictionParams {
            look_distance: 6.0,
            horizon: 3.0,
            margin: 0.0,
        }
    }

    #[test]
    fn closest_approach_of_crossing_bodies() {
        // Other comes down the y axis towards the x axis; we walk along x.
        let (t, miss) = closest_approach(
            Vec2::ZERO,
            Vec2::new(1.0, 0.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(0.0, -1.0),
            10.0,
        );
        assert!((t - 2.0).abs() < 1e-5);
        assert!(miss < 1e-5);
        // Moving apart: closest now.
        let (t, miss) = closest_approach(Vec2::ZERO, -Vec2::X, Vec2::X, Vec2::X, 10.0);
        assert_eq!(t, 0.0);
        assert!((miss - 1.0).abs() < 1e-6);
    }

    #[test]
    fn head_on_mover_puts_danger_in_its_cone_only() {
        let body = Body::default().moving(Vec2::new(1.0, 0.0));
        let other = Body {
            position: Vec2::new(4.0, 0.0),
            velocity: Vec2::new(-1.0, 0.0),
            ..Body::default()
        };
        let hit = predict_collision(&body, &other, 3.0, 0.0).unwrap();
        assert!((hit.time - 2.0).abs() < 1e-5);
        assert!((hit.impact_point - Vec2::new(2.0, 0.0)).length() < 1e-5);
        let mut d = ContextMap::new(8).unwrap();
        let valid = moving_bodies(&mut d, &body, &[other, body], &params());
        // Impact 2 away of look 6 → 2/3 straight ahead, at distance 2.
        assert!((d.value(0) - 2.0 / 3.0).abs() < 1e-5);
        assert!((d.distance(0) - 2.0).abs() < 1e-5);
        // Exactly 45° is inside the cone but going that way at top speed misses: scaled down.
        assert!(d.value(1) < d.value(0));
        assert_eq!(d.value(2), 0.0);
        assert_eq!(d.value(4), 0.0);
        // Gap 3, closing 3 + 1 → 3/8; the impact at 2 s gives 1.
        assert!((valid - 3.0 / 8.0).abs() < 1e-5);
    }

    #[test]
    fn crossing_mover_scales_down_slots_that_avoid_the_impact() {
        // Other comes up from below and crosses our path at (3, 0) after 1.5 s.
        let body = Body::default().moving(Vec2::new(2.0, 0.0));
        let other = Body {
            position: Vec2::new(3.0, -3.0),
            velocity: Vec2::new(0.0, 2.0),
            ..Body::default()
        };
        let mut d = ContextMap::new(16).unwrap();
        moving_bodies(&mut d, &body, &[other], &params());
        // Impact 3 away of look 6 → 0.5 straight ahead.
        assert!((d.value(0) - 0.5).abs() < 1e-5);
        // Turning 22.5° down, towards it, still meets it (full danger); turning 22.5° up at
        // top speed passes ahead of it, missing by about 2 (almost no danger).
        assert!((d.value(15) - 0.5).abs() < 1e-5, "{}", d.value(15));
        assert!(d.value(1) < 0.05, "{}", d.value(1));
    }

    #[test]
    fn no_danger_when_paths_miss() {
        let body = Body::default().moving(Vec2::new(1.0, 0.0));
        let other = Body {
            position: Vec2::new(4.0, 3.0),
            velocity: Vec2::new(-1.0, 0.0),
            ..Body::default()
        };
        let mut d = ContextMap::new(8).unwrap();
        moving_bodies(&mut d, &body, &[other], &params());
        assert!(d.values().iter().all(|v| *v == 0.0));
    }
}
