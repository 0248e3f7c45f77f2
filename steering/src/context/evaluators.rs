//! Evaluators: small functions that write interest or danger into a [`ContextMap`] (in the map's
//! current alignment) and return how long, in seconds, what they wrote stays valid
//! ([`FOREVER`] when nothing they saw can change it soon).
//!
//! Moving bodies are in [`super::prediction`]; speed control is in [`super::speed`].

use glam::Vec2;

use super::map::{ContextMap, NO_DISTANCE, unit};
use super::timeslice::FOREVER;
use crate::body::Body;
use crate::geometry::{CircleObstacle, Wall, closest_point_on_segment, ray_circle, ray_segment};

/// Fraction of the time to reach something that a decision based on it stays valid.
const SAFETY: f32 = 0.5;

/// `distance / speed × fraction`, [`FOREVER`] for a non-positive speed.
#[inline]
fn time_to_cover(distance: f32, speed: f32, fraction: f32) -> f32 {
    if speed.is_nan() || speed <= 0.0 || !distance.is_finite() {
        return FOREVER;
    }
    (distance.max(0.0) / speed * fraction).min(FOREVER)
}

/// Interest towards `goal`: slot `s` scores `b + (1 − b)(1 + s·g)/2` where `g` is the unit
/// direction to the goal and `b = backward_interest` (clamped to `[0, 1]`), so the goal
/// direction scores 1 and straight away still scores `b` (enough to back out of a dead end).
/// The distance of a slot is how far along it the goal lies (its projection), none for slots
/// pointing away. Writes nothing for a degenerate goal. Valid while the body covers a quarter of
/// the way at top speed.
pub fn seek(interest: &mut ContextMap, body: &Body, goal: Vec2, backward_interest: f32) -> f32 {
    let to_goal = goal - body.position;
    let dist = to_goal.length();
    let Some(g) = to_goal.try_normalize() else {
        return FOREVER;
    };
    let back = unit(backward_interest);
    for i in 0..interest.slot_count() {
        let Some(s) = interest.direction(i) else {
            continue;
        };
        let dot = s.dot(g);
        let along = to_goal.dot(s);
        let distance = if along > 0.0 { along } else { NO_DISTANCE };
        interest.write(i, back + (1.0 - back) * 0.5 * (1.0 + dot), distance);
    }
    time_to_cover(dist, body.max_speed, 0.25)
}

/// Interest away from `threat` while it is within `panic_distance`: the negated seek score,
/// `b + (1 − b)(1 − s·t)/2` with `t` the unit direction to the threat. Valid while the body
/// covers half of the gap to the panic circle at top speed.
pub fn flee(
    interest: &mut ContextMap,
    body: &Body,
    threat: Vec2,
    panic_distance: f32,
    backward_interest: f32,
) -> f32 {
    let to_threat = threat - body.position;
    let dist = to_threat.length();
    if dist.is_nan() || panic_distance.is_nan() || dist > panic_distance {
        return time_to_cover(dist - panic_distance, body.max_speed, SAFETY);
    }
    let Some(t) = to_threat.try_normalize() else {
        return 0.0;
    };
    let back = unit(backward_interest);
    for i in 0..interest.slot_count() {
        if let Some(s) = interest.direction(i) {
            let score = back + (1.0 - back) * 0.5 * (1.0 - s.dot(t));
            interest.write(i, score, NO_DISTANCE);
        }
    }
    time_to_cover(panic_distance - dist, body.max_speed, SAFETY)
}

/// First hit of a ray with a circle of radius `radius`; a ray starting inside hits at 0 only when
/// it points inwards (so a body already overlapping may still back out).
fn ray_disc(origin: Vec2, dir: Vec2, max: f32, center: Vec2, radius: f32) -> Option<f32> {
    let to_center = center - origin;
    if to_center.length_squared() <= radius * radius {
        return (dir.dot(to_center) > 0.0).then_some(0.0);
    }
    ray_circle(origin, dir, max, center, radius)
}

/// First hit of a ray with the wall inflated by `radius` (a capsule); starting inside hits at 0
/// only when pointing towards the wall.
fn ray_capsule(origin: Vec2, dir: Vec2, max: f32, wall: &Wall, radius: f32) -> Option<f32> {
    let closest = closest_point_on_segment(origin, wall.from, wall.to);
    let to_wall = closest - origin;
    if to_wall.length_squared() <= radius * radius {
        return (dir.dot(to_wall) > 0.0).then_some(0.0);
    }
    let Some(n) = (wall.to - wall.from).perp().try_normalize() else {
        return ray_disc(origin, dir, max, wall.from, radius);
    };
    let off = n * radius;
    [
        ray_segment(origin, dir, max, wall.from + off, wall.to + off),
        ray_segment(origin, dir, max, wall.from - off, wall.to - off),
        ray_disc(origin, dir, max, wall.from, radius),
        ray_disc(origin, dir, max, wall.to, radius),
    ]
    .into_iter()
    .flatten()
    .reduce(f32::min)
}

/// Danger from static geometry by ray casts: one ray per slot from the body's centre, up to
/// `look_distance`, against every circle and wall inflated by the body's radius plus `margin`
/// (clearance kept from the geometry; negative counts as 0). A hit at
/// distance `t` writes danger `1 − t / look_distance` with distance `t`. Geometry farther than
/// the look distance is skipped. Valid while the body covers half the distance to the nearest
/// hit (or to the look horizon) at top speed.
pub fn static_obstacles(
    danger: &mut ContextMap,
    body: &Body,
    obstacles: &[CircleObstacle],
    walls: &[Wall],
    look_distance: f32,
    margin: f32,
) -> f32 {
    if !look_distance.is_finite() || look_distance <= 0.0 || !body.position.is_finite() {
        return FOREVER;
    }
    let origin = body.position;
    let margin = if margin.is_finite() {
        margin.max(0.0)
    } else {
        0.0
    };
    let radius = body.radius.max(0.0) + margin;
    let mut nearest = look_distance;
    let mut hit = |danger: &mut ContextMap, i: usize, t: Option<f32>| {
        if let Some(t) = t {
            nearest = nearest.min(t);
            danger.write(i, 1.0 - t / look_distance, t);
        }
    };
    for o in obstacles {
        let r = o.radius + radius;
        if !r.is_finite() || (o.center - origin).length() - r > look_distance {
            continue;
        }
        for i in 0..danger.slot_count() {
            if let Some(dir) = danger.direction(i) {
                hit(danger, i, ray_disc(origin, dir, look_distance, o.center, r));
            }
        }
    }
    for w in walls {
        if (w.closest_point(origin) - origin).length() - radius > look_distance {
            continue;
        }
        for i in 0..danger.slot_count() {
            if let Some(dir) = danger.direction(i) {
                hit(
                    danger,
                    i,
                    ray_capsule(origin, dir, look_distance, w, radius),
                );
            }
        }
    }
    time_to_cover(nearest, body.max_speed, SAFETY)
}

/// The flock's dispersion vector for `body`: the sum over `neighbours` whose edge lies within
/// `radius` of the body's edge of the unit direction away from them, weighted by
/// `1 − gap / radius`; its length is limited to 1. Neighbours at the body's own position (the
/// body itself) are ignored.
pub fn separation_vector(body: &Body, neighbours: &[Body], radius: f32) -> Vec2 {
    if radius.is_nan() || radius <= 0.0 {
        return Vec2::ZERO;
    }
    let mut sum = Vec2::ZERO;
    for n in neighbours {
        let away = body.position - n.position;
        let Some(dir) = away.try_normalize() else {
            continue;
        };
        let gap = away.length() - body.radius - n.radius;
        if gap < radius {
            sum += dir * (1.0 - gap.max(0.0) / radius);
        }
    }
    crate::vector::truncate(sum, 1.0)
}

/// Adds `separation · s` to the interest of every slot `s` (clamped to `[0, 1]`): directions
/// towards the separating positions gain, those into the crowd lose.
pub fn dispersion(interest: &mut ContextMap, separation: Vec2) {
    if !separation.is_finite() {
        return;
    }
    for i in 0..interest.slot_count() {
        if let Some(s) = interest.direction(i) {
            interest.add(i, separation.dot(s));
        }
    }
}

/// How long the dispersion of `body` stays valid: half the time any neighbour could take to
/// cross into or out of the separation range (both closing at their top speed).
pub fn dispersion_validity(body: &Body, neighbours: &[Body], radius: f32) -> f32 {
    let mut valid = FOREVER;
    for n in neighbours {
        let gap = (body.position - n.position).length() - body.radius - n.radius;
        let closing = body.max_speed + n.speed();
        valid = valid.min(time_to_cover((gap - radius).abs(), closing, SAFETY));
    }
    valid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map8() -> ContextMap {
        ContextMap::new(8).unwrap()
    }

    #[test]
    fn seek_scores_by_dot_and_keeps_backward_interest() {
        let mut m = map8();
        let body = Body::default();
        m.align(Vec2::X);
        let valid = seek(&mut m, &body, Vec2::new(6.0, 0.0), 0.2);
        assert!((m.value(0) - 1.0).abs() < 1e-6);
        assert!((m.value(2) - 0.6).abs() < 1e-6); // perpendicular: 0.2 + 0.8 × 0.5
        assert!((m.value(4) - 0.2).abs() < 1e-6); // straight back
        assert!((m.distance(0) - 6.0).abs() < 1e-5);
        assert!((m.distance(1) - 6.0 * core::f32::consts::FRAC_1_SQRT_2).abs() < 1e-4);
        assert_eq!(m.distance(4), NO_DISTANCE);
        assert!((valid - 0.5).abs() < 1e-6); // 6 / 3 × 0.25
        // Degenerate goal writes nothing.
        let mut e = map8();
        seek(&mut e, &body, Vec2::ZERO, 0.2);
        assert!(e.values().iter().all(|v| *v == 0.0));
    }

    #[test]
    fn flee_is_negated_seek_inside_panic_distance() {
        let body = Body::default();
        let mut m = map8();
        flee(&mut m, &body, Vec2::new(2.0, 0.0), 5.0, 0.0);
        assert!(m.value(0).abs() < 1e-6);
        assert!((m.value(4) - 1.0).abs() < 1e-6);
        let mut far = map8();
        let valid = flee(&mut far, &body, Vec2::new(9.0, 0.0), 3.0, 0.0);
        assert!(far.values().iter().all(|v| *v == 0.0));
        assert!((valid - 1.0).abs() < 1e-5); // (9 − 3) / 3 × 0.5
    }

    #[test]
    fn ray_cast_danger_from_circles() {
        let body = Body::default(); // radius 0.5 at origin
        let obstacle = CircleObstacle::new(Vec2::new(4.0, 0.0), 1.0).unwrap();
        let mut d = map8();
        let valid = static_obstacles(&mut d, &body, &[obstacle], &[], 5.0, 0.0);
        // Inflated radius 1.5 → hit at 2.5 → danger 1 − 2.5/5.
        assert!((d.distance(0) - 2.5).abs() < 1e-5);
        assert!((d.value(0) - 0.5).abs() < 1e-5);
        // 45° ray passes 4·sin45 ≈ 2.83 from the centre: clear.
        assert_eq!(d.value(1), 0.0);
        assert_eq!(d.value(4), 0.0);
        assert!((valid - 2.5 / 3.0 * 0.5).abs() < 1e-5);
        // A clearance margin of 0.5 inflates further: hit at 2.
        let mut m = map8();
        static_obstacles(&mut m, &body, &[obstacle], &[], 5.0, 0.5);
        assert!((m.distance(0) - 2.0).abs() < 1e-5);
        // Out of look range: nothing.
        let mut e = map8();
        let v = static_obstacles(&mut e, &body, &[obstacle], &[], 2.0, 0.0);
        assert!(e.values().iter().all(|v| *v == 0.0));
        assert!((v - 2.0 / 3.0 * 0.5).abs() < 1e-5);
    }

    #[test]
    fn overlapping_body_can_back_out() {
        let body = Body::default();
        let obstacle = CircleObstacle::new(Vec2::new(1.0, 0.0), 0.8).unwrap();
        let mut d = map8();
        static_obstacles(&mut d, &body, &[obstacle], &[], 5.0, 0.0);
        assert_eq!(d.value(0), 1.0);
        assert_eq!(d.distance(0), 0.0);
        assert_eq!(d.value(4), 0.0);
    }

    #[test]
    fn ray_cast_danger_from_walls_respects_body_radius() {
        let body = Body::default();
        // Wall along x = 3 from y = -5 to 5.
        let wall = Wall::new(Vec2::new(3.0, -5.0), Vec2::new(3.0, 5.0)).unwrap();
        let mut d = map8();
        static_obstacles(&mut d, &body, &[], &[wall], 5.0, 0.0);
        assert!((d.distance(0) - 2.5).abs() < 1e-5);
        // 45° ray: centre reaches x = 2.5 after 2.5·√2.
        assert!((d.distance(1) - 2.5 * core::f32::consts::SQRT_2).abs() < 1e-4);
        assert_eq!(d.value(2), 0.0);
        // A short wall end-on: the inflated end cap is hit.
        let stub = Wall::new(Vec2::new(2.0, 0.3), Vec2::new(2.0, 3.0)).unwrap();
        let mut s = map8();
        static_obstacles(&mut s, &body, &[], &[stub], 5.0, 0.0);
        assert!(s.value(0) > 0.0);
        assert!(s.distance(0) < 2.0);
    }

    #[test]
    fn separation_points_away_and_disperses_interest() {
        let body = Body::default();
        let n = Body::default().facing(Vec2::X);
        let left = Body {
            position: Vec2::new(0.0, 1.5),
            ..n
        };
        let sep = separation_vector(&body, &[left, body], 2.0);
        // Gap 0.5 of 2 → weight 0.75 pointing −y; the body itself is ignored.
        assert!((sep - Vec2::new(0.0, -0.75)).length() < 1e-5);
        let mut m = map8();
        for i in 0..8 {
            m.set(i, 0.5, NO_DISTANCE);
        }
        dispersion(&mut m, sep);
        assert!((m.value(6) - 1.0).abs() < 1e-6); // −y gains (clamped)
        assert!(m.value(2).abs() < 1e-6); // +y loses
        assert!((m.value(0) - 0.5).abs() < 1e-6);
        let v = dispersion_validity(&body, &[left], 2.0);
        assert!((v - 1.5 / 3.0 * 0.5).abs() < 1e-5);
    }
}
