//! Obstacle avoidance (a detection box against circles) and wall avoidance (feelers against
//! segments).

use core::f32::consts::FRAC_PI_4;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::body::Body;
use crate::geometry::{CircleObstacle, Wall, ray_segment};
use crate::ops;

/// Tuning of [`obstacle_avoidance`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ObstacleAvoidanceParams {
    /// Length of the detection box of a body at rest; it grows to twice this at top speed.
    pub min_detection_length: f32,
    /// Weight of the braking (backwards) part of the force relative to the lateral part.
    pub braking_weight: f32,
}

impl Default for ObstacleAvoidanceParams {
    /// Box of 4 units at rest (8 at top speed), braking weight 0.2 (Buckland's).
    fn default() -> Self {
        Self {
            min_detection_length: 4.0,
            braking_weight: 0.2,
        }
    }
}

impl ObstacleAvoidanceParams {
    /// Length of the detection box for `body`: `min_detection_length * (1 + speed/max_speed)`.
    #[inline]
    pub fn detection_length(&self, body: &Body) -> f32 {
        let ratio = (body.speed() / body.max_speed).clamp(0.0, 1.0);
        let ratio = if ratio.is_finite() { ratio } else { 0.0 };
        self.min_detection_length * (1.0 + ratio)
    }
}

/// Steers around circular obstacles in the body's path.
///
/// A detection box extends ahead of the body along its heading, `detection_length` long and
/// as wide (on each side) as the body's radius. In the body's local frame every obstacle
/// whose circle, grown by the body's radius, crosses the box's axis at `x > 0` within the box
/// is a candidate; the one crossing closest wins. The force, in local space, is:
///
/// - lateral: away from the obstacle's side, `(grown radius - |local y|) * m`, where
///   `m = 1 + (length - local x) / length` grows as the obstacle gets nearer (an obstacle dead
///   ahead, `y == 0`, is passed on the left, `+y`);
/// - braking: backwards, `braking_weight * speed * m`;
///
/// and is returned in world space. Zero when nothing is in the box or the parameters are
/// degenerate. Obstacles the body is already inside whose far edge is still ahead count as
/// crossing at their far edge.
pub fn obstacle_avoidance(
    body: &Body,
    obstacles: &[CircleObstacle],
    params: &ObstacleAvoidanceParams,
) -> Vec2 {
    let length = params.detection_length(body);
    if length.is_nan() || length <= 0.0 || !length.is_finite() {
        return Vec2::ZERO;
    }
    // (intersection x, local centre, grown radius)
    let mut closest: Option<(f32, Vec2, f32)> = None;
    for ob in obstacles {
        let grown = ob.radius + body.radius;
        if grown.is_nan() || grown <= 0.0 || !grown.is_finite() || !ob.center.is_finite() {
            continue;
        }
        let local = body.to_local(ob.center);
        if local.x + grown < 0.0 || local.x - grown > length || local.y.abs() >= grown {
            continue;
        }
        let half_chord = (grown * grown - local.y * local.y).sqrt();
        let mut ip = local.x - half_chord;
        if ip <= 0.0 {
            ip = local.x + half_chord;
        }
        if ip <= 0.0 || ip > length {
            continue;
        }
        if closest.is_none_or(|(best, _, _)| ip < best) {
            closest = Some((ip, local, grown));
        }
    }
    let Some((_, local, grown)) = closest else {
        return Vec2::ZERO;
    };
    let proximity = (1.0 + (length - local.x) / length).max(0.0);
    let away = if local.y > 0.0 { -1.0 } else { 1.0 };
    let lateral = away * (grown - local.y.abs()) * proximity;
    let braking = -params.braking_weight.max(0.0) * body.speed() * proximity;
    let force = body.local_dir_to_world(Vec2::new(braking, lateral));
    if force.is_finite() { force } else { Vec2::ZERO }
}

/// Tuning of [`wall_avoidance`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WallAvoidanceParams {
    /// Length of the front feeler.
    pub feeler_length: f32,
    /// Length of the two side feelers as a fraction of the front one.
    pub side_feeler_ratio: f32,
    /// Angle of the side feelers from the heading, radians.
    pub side_feeler_angle: f32,
}

impl Default for WallAvoidanceParams {
    /// Front feeler 3 units, side feelers half as long at ±45°.
    fn default() -> Self {
        Self {
            feeler_length: 3.0,
            side_feeler_ratio: 0.5,
            side_feeler_angle: FRAC_PI_4,
        }
    }
}

impl WallAvoidanceParams {
    /// The three feelers of `body` as (unit direction, length): front, left, right.
    pub fn feelers(&self, body: &Body) -> [(Vec2, f32); 3] {
        let side_len = self.feeler_length * self.side_feeler_ratio;
        let turn = ops::from_angle(self.side_feeler_angle);
        let left = turn.rotate(body.heading);
        let right = Vec2::new(turn.x, -turn.y).rotate(body.heading);
        [
            (body.heading, self.feeler_length),
            (left, side_len),
            (right, side_len),
        ]
    }
}

/// Steers away from walls: casts three feelers (front, and two shorter ones at ±45°) from
/// the body's position along its heading; for the closest wall hit by any feeler, pushes
/// along the wall's normal, oriented towards the body's side of the wall, by how far the
/// feeler's tip overshoots the wall.
///
/// Zero when no feeler touches a wall or the feeler lengths are degenerate.
pub fn wall_avoidance(body: &Body, walls: &[Wall], params: &WallAvoidanceParams) -> Vec2 {
    // (distance of the hit along its feeler, overshoot, wall)
    let mut closest: Option<(f32, f32, &Wall)> = None;
    for (dir, len) in params.feelers(body) {
        if len.is_nan() || len <= 0.0 || !len.is_finite() || !dir.is_finite() {
            continue;
        }
        for wall in walls {
            if let Some(t) = ray_segment(body.position, dir, len, wall.from, wall.to) {
                if closest.is_none_or(|(best, _, _)| t < best) {
                    closest = Some((t, len - t, wall));
                }
            }
        }
    }
    let Some((_, overshoot, wall)) = closest else {
        return Vec2::ZERO;
    };
    let to_body = body.position - wall.closest_point(body.position);
    let normal = if wall.normal.dot(to_body) < 0.0 {
        -wall.normal
    } else {
        wall.normal
    };
    let force = normal * overshoot;
    if force.is_finite() { force } else { Vec2::ZERO }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::test_support::{DT, body_at, step};

    fn circle(x: f32, y: f32, r: f32) -> CircleObstacle {
        CircleObstacle::new(Vec2::new(x, y), r).unwrap()
    }

    #[test]
    fn obstacle_ahead_pushes_to_free_side_and_brakes() {
        let b = body_at(Vec2::ZERO).moving(Vec2::new(3.0, 0.0));
        let p = ObstacleAvoidanceParams::default();
        // Obstacle ahead, slightly to the left: push right (-y) and brake (-x).
        let f = obstacle_avoidance(&b, &[circle(4.0, 0.5, 1.0)], &p);
        assert!(f.y < 0.0 && f.x < 0.0, "{f}");
        // grown radius 1.5, |y| 0.5, length 8, m = 1 + 4/8: lateral 1.5, braking 0.2*3*1.5.
        assert!((f - Vec2::new(-0.9, -1.5)).length() < 1e-5, "{f}");
        // Mirror image: push left.
        let g = obstacle_avoidance(&b, &[circle(4.0, -0.5, 1.0)], &p);
        assert!((g - Vec2::new(-0.9, 1.5)).length() < 1e-5, "{g}");
        // Nearer obstacle pushes harder.
        let near = obstacle_avoidance(&b, &[circle(2.0, 0.5, 1.0)], &p);
        assert!(near.y < f.y);
    }

    #[test]
    fn closest_obstacle_wins_and_force_is_in_world_space() {
        // Facing +y: local +y (left) is world -x.
        let b = body_at(Vec2::ZERO).facing(Vec2::Y);
        let p = ObstacleAvoidanceParams::default();
        let far_left = circle(-0.3, 3.5, 1.0); // local (3.5, 0.3)
        let near_right = circle(0.3, 2.0, 1.0); // local (2.0, -0.3)
        let f = obstacle_avoidance(&b, &[far_left, near_right], &p);
        // The near one is to the right (world +x): push left, world -x.
        assert!(f.x < 0.0, "{f}");
        assert!(f.y.abs() < 1e-6, "a still body does not brake: {f}");
    }

    #[test]
    fn obstacles_behind_beside_or_beyond_are_ignored() {
        let b = body_at(Vec2::ZERO).moving(Vec2::new(1.0, 0.0));
        let p = ObstacleAvoidanceParams::default();
        assert_eq!(
            obstacle_avoidance(&b, &[circle(-3.0, 0.0, 1.0)], &p),
            Vec2::ZERO
        );
        assert_eq!(
            obstacle_avoidance(&b, &[circle(3.0, 2.0, 1.0)], &p),
            Vec2::ZERO
        );
        assert_eq!(
            obstacle_avoidance(&b, &[circle(3.0, -1.6, 1.0)], &p),
            Vec2::ZERO
        );
        assert_eq!(
            obstacle_avoidance(&b, &[circle(20.0, 0.0, 1.0)], &p),
            Vec2::ZERO
        );
        assert_eq!(obstacle_avoidance(&b, &[], &p), Vec2::ZERO);
    }

    #[test]
    fn faster_body_sees_farther() {
        let p = ObstacleAvoidanceParams::default();
        let obs = [circle(7.0, 0.2, 1.0)]; // near edge at 5.5 along the axis
        let still = body_at(Vec2::ZERO);
        let fast = still.moving(Vec2::new(3.0, 0.0));
        assert_eq!(p.detection_length(&still), 4.0);
        assert_eq!(p.detection_length(&fast), 8.0);
        assert_eq!(obstacle_avoidance(&still, &obs, &p), Vec2::ZERO);
        assert!(obstacle_avoidance(&fast, &obs, &p).y < 0.0);
    }

    /// Smallest gap between body and obstacle edges while seeking past an obstacle lying on
    /// the straight line to the target, with avoidance weighted by `weight`.
    fn min_gap_seeking_past(weight: f32) -> (f32, Vec2) {
        let p = ObstacleAvoidanceParams::default();
        let ob = circle(8.0, 0.1, 1.0);
        let target = Vec2::new(16.0, 0.0);
        let mut b = body_at(Vec2::ZERO).moving(Vec2::new(3.0, 0.0));
        let mut min_gap = f32::INFINITY;
        for _ in 0..(8.0 / DT) as usize {
            let f = obstacle_avoidance(&b, &[ob], &p) * weight
                + crate::behaviours::seek::seek(&b, target);
            step(&mut b, f, DT);
            min_gap = min_gap.min(ob.signed_distance(b.position) - b.radius);
        }
        (min_gap, b.position)
    }

    #[test]
    fn body_steers_around_obstacle_on_its_way() {
        let (blind_gap, _) = min_gap_seeking_past(0.0);
        assert!(
            blind_gap < -1.0,
            "without avoidance it ploughs through: {blind_gap}"
        );
        // Seek keeps pulling towards the obstacle, so the body grazes it (the lateral push
        // fades to zero at the box edge, Buckland's design) but goes round, on the free side.
        let (gap, end) = min_gap_seeking_past(3.0);
        assert!(gap > -0.2, "went through the obstacle: {gap}");
        assert!(end.x > 14.0, "did not get past: {end}");
        let (gap, _) = min_gap_seeking_past(10.0);
        assert!(gap > -0.05, "strong avoidance still ran into it: {gap}");
    }

    #[test]
    fn wall_ahead_pushes_along_normal_by_overshoot() {
        let b = body_at(Vec2::ZERO);
        let p = WallAvoidanceParams::default();
        // Wall across the path at x = 2, facing back at the body (-x).
        let wall = Wall::new(Vec2::new(2.0, -5.0), Vec2::new(2.0, 5.0)).unwrap();
        assert!((wall.normal - Vec2::new(-1.0, 0.0)).length() < 1e-6);
        let f = wall_avoidance(&b, &[wall], &p);
        assert!((f - Vec2::new(-1.0, 0.0)).length() < 1e-5, "{f}");
        // Facing the other way round gives the same push (normal oriented towards the body).
        let g = wall_avoidance(&b, &[wall.flipped()], &p);
        assert!((g - f).length() < 1e-5);
        // Out of reach.
        let far = Wall::new(Vec2::new(4.0, 5.0), Vec2::new(4.0, -5.0)).unwrap();
        assert_eq!(wall_avoidance(&b, &[far], &p), Vec2::ZERO);
    }

    #[test]
    fn side_feeler_detects_wall_to_the_left() {
        let b = body_at(Vec2::ZERO);
        let p = WallAvoidanceParams::default();
        // Wall parallel to the heading, 0.8 to the left: only the left feeler (1.5 at 45°,
        // reaching y = 1.06) touches it; overshoot 1.5 - 0.8·√2.
        let wall = Wall::new(Vec2::new(-5.0, 0.8), Vec2::new(5.0, 0.8)).unwrap();
        let f = wall_avoidance(&b, &[wall], &p);
        let expected = 1.5 - 0.8 * 2f32.sqrt();
        assert!((f - Vec2::new(0.0, -expected)).length() < 1e-4, "{f}");
        let [front, left, right] = p.feelers(&b);
        assert_eq!(front, (Vec2::X, 3.0));
        assert!(left.0.y > 0.0 && right.0.y < 0.0);
    }

    #[test]
    fn closest_of_several_walls_wins() {
        let b = body_at(Vec2::ZERO);
        let p = WallAvoidanceParams::default();
        let near = Wall::new(Vec2::new(1.0, 5.0), Vec2::new(1.0, -5.0)).unwrap();
        let farther = Wall::new(Vec2::new(-5.0, 1.0), Vec2::new(5.0, 1.0)).unwrap();
        let f = wall_avoidance(&b, &[farther, near], &p);
        // The front feeler meets `near` at 1 (overshoot 2); the left feeler meets `farther`
        // at √2 ≈ 1.41: `near` is closer.
        assert!((f - Vec2::new(-2.0, 0.0)).length() < 1e-5, "{f}");
    }
}
