//! Scenario tests: whole bodies steered by [`ContextSteering`] through a tiny Euler loop.

use glam::Vec2;

use super::{CombineMode, ContextConfig, ContextSteering, Interpolation};
use crate::body::Body;
use crate::geometry::{CircleObstacle, Wall};
use crate::vector::truncate;

const DT: f32 = 1.0 / 60.0;

/// One Euler step: force truncated to `max_force`, speed to `max_speed`.
fn integrate(body: &mut Body, force: Vec2) {
    let accel = truncate(force, body.max_force) / body.mass;
    body.velocity = truncate(body.velocity + accel * DT, body.max_speed);
    body.position += body.velocity * DT;
    if let Some(h) = body.velocity.try_normalize() {
        body.heading = h;
    }
}

/// Runs `body` towards `goal` for at most `seconds`; calls `check` after every step. Returns the
/// final body.
fn run(
    steering: &mut ContextSteering,
    mut body: Body,
    goal: Vec2,
    obstacles: &[CircleObstacle],
    walls: &[Wall],
    seconds: f32,
    mut check: impl FnMut(&Body),
) -> Body {
    let steps = (seconds / DT) as usize;
    for _ in 0..steps {
        let f = steering.steer(&body, goal, obstacles, walls, &[], DT);
        assert!(f.is_finite());
        integrate(&mut body, f);
        check(&body);
        if (body.position - goal).length() < 0.1 && body.speed() < 0.2 {
            break;
        }
    }
    body
}

fn all_modes() -> Vec<ContextConfig> {
    let mut out = Vec::new();
    for slots in [8, 16, 64] {
        for combine in [CombineMode::default(), CombineMode::Multiply] {
            for interpolation in [
                Interpolation::None,
                Interpolation::Parabolic,
                Interpolation::CatmullRom,
            ] {
                out.push(ContextConfig {
                    slots,
                    combine,
                    interpolation,
                    ..Default::default()
                });
            }
        }
    }
    out
}

#[test]
fn steers_around_a_circle_to_the_goal_behind_it() {
    let rock = CircleObstacle::new(Vec2::new(5.0, 0.2), 1.5).unwrap();
    let goal = Vec2::new(10.0, 0.0);
    for cfg in all_modes() {
        let mut steering = ContextSteering::new(cfg).unwrap();
        let start = Body::default();
        let mut closest = f32::MAX;
        let end = run(&mut steering, start, goal, &[rock], &[], 20.0, |b| {
            closest = closest.min(rock.signed_distance(b.position) - b.radius);
        });
        assert!(closest > 0.0, "{cfg:?}: entered the obstacle ({closest})");
        assert!(
            (end.position - goal).length() < 0.1,
            "{cfg:?}: ended at {}",
            end.position
        );
    }
}

#[test]
fn follows_a_wall_gap_to_the_goal() {
    // A wall across the way with a gap above it.
    let wall = Wall::new(Vec2::new(4.0, -6.0), Vec2::new(4.0, 1.5)).unwrap();
    let goal = Vec2::new(8.0, 0.0);
    let mut steering = ContextSteering::default();
    let mut closest = f32::MAX;
    let end = run(
        &mut steering,
        Body::default(),
        goal,
        &[],
        &[wall],
        30.0,
        |b| {
            closest =
                closest.min((wall.closest_point(b.position) - b.position).length() - b.radius);
        },
    );
    assert!(closest > 0.0, "touched the wall ({closest})");
    assert!(
        (end.position - goal).length() < 0.1,
        "ended at {}",
        end.position
    );
}

#[test]
fn avoids_a_mover_on_a_collision_course() {
    for slots in [8, 16, 64] {
        for combine in [CombineMode::default(), CombineMode::Multiply] {
            let cfg = ContextConfig {
                slots,
                combine,
                ..Default::default()
            };
            let mut steering = ContextSteering::new(cfg).unwrap();
            let mut body = Body::default().moving(Vec2::new(2.0, 0.0));
            // A body walking straight at us along the same line, not steering.
            let mut other = Body {
                position: Vec2::new(12.0, 0.0),
                velocity: Vec2::new(-2.0, 0.0),
                ..Body::default()
            };
            let goal = Vec2::new(20.0, 0.0);
            let mut closest = f32::MAX;
            let mut deviation = 0.0_f32;
            for _ in 0..(15.0 / DT) as usize {
                let f = steering.steer(&body, goal, &[], &[], &[other], DT);
                integrate(&mut body, f);
                other.position += other.velocity * DT;
                closest = closest.min((body.position - other.position).length());
                deviation = deviation.max(body.position.y.abs());
            }
            let touch = body.radius + other.radius;
            assert!(
                closest > touch,
                "{slots} {combine:?}: collided ({closest} <= {touch})"
            );
            assert!(deviation > 0.5, "{slots} {combine:?}: no deviation");
            assert!(
                (body.position - goal).length() < 0.5,
                "{slots}: {}",
                body.position
            );
        }
    }
}

#[test]
fn time_sliced_run_matches_in_outcome() {
    // Re-steering at most every 0.25 s still gets round the rock.
    let rock = CircleObstacle::new(Vec2::new(5.0, -0.3), 1.5).unwrap();
    let goal = Vec2::new(10.0, 0.0);
    let mut steering = ContextSteering::default();
    let mut closest = f32::MAX;
    let mut frames = 0_u64;
    let end = run(
        &mut steering,
        Body::default(),
        goal,
        &[rock],
        &[],
        20.0,
        |b| {
            frames += 1;
            closest = closest.min(rock.signed_distance(b.position) - b.radius);
        },
    );
    assert!(closest > 0.0);
    assert!((end.position - goal).length() < 0.1);
    let evaluations = steering.clock().evaluations;
    // Far fewer evaluations than frames.
    assert!(
        evaluations * 2 < frames,
        "{evaluations} evaluations in {frames} frames"
    );
}

proptest::proptest! {
    #[test]
    fn steering_force_is_always_finite(
        px in -20.0_f32..20.0, py in -20.0_f32..20.0,
        vx in -3.0_f32..3.0, vy in -3.0_f32..3.0,
        gx in -20.0_f32..20.0, gy in -20.0_f32..20.0,
        ox in -20.0_f32..20.0, oy in -20.0_f32..20.0,
        slots in 4_usize..=64,
    ) {
        let cfg = ContextConfig { slots, max_validity: 0.0, ..Default::default() };
        let mut steering = ContextSteering::new(cfg).unwrap();
        let body = Body::default().moving(Vec2::new(vx, vy));
        let body = Body { position: Vec2::new(px, py), ..body };
        let rock = CircleObstacle::new(Vec2::new(ox, oy), 1.0).unwrap();
        let wall = Wall::new(Vec2::new(ox, oy + 2.0), Vec2::new(ox + 3.0, oy + 2.0)).unwrap();
        let mover = Body { position: Vec2::new(oy, ox), velocity: Vec2::new(vy, vx), ..Body::default() };
        for goal in [Vec2::new(gx, gy), body.position] {
            let f = steering.steer(&body, goal, &[rock], &[wall], &[mover, body], DT);
            proptest::prop_assert!(f.is_finite());
            for map in [steering.interest(), steering.danger(), steering.decision()] {
                proptest::prop_assert!(map.values().iter().all(|v| (0.0..=1.0).contains(v)));
                proptest::prop_assert!(map.distances().iter().all(|d| d.is_finite() && *d >= 0.0));
            }
        }
    }
}
