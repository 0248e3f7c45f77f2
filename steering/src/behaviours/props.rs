//! Property tests: every behaviour returns a finite force for any body and any input,
//! finite or not.

use glam::Vec2;
use proptest::prelude::*;

use super::*;
use crate::body::Body;
use crate::geometry::{CircleObstacle, Wall};
use crate::random::SimRng;

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -50.0f32..50.0,
        1 => Just(0.0f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
    ]
}

fn any_vec() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        6 => (-50.0f32..50.0, -50.0f32..50.0).prop_map(|(x, y)| Vec2::new(x, y)),
        1 => Just(Vec2::ZERO),
        1 => (any_f32(), any_f32()).prop_map(|(x, y)| Vec2::new(x, y)),
    ]
}

/// Valid bodies (as `Body::validate` accepts) in arbitrary states.
fn body() -> impl Strategy<Value = Body> {
    (
        (-50.0f32..50.0, -50.0f32..50.0),
        (-5.0f32..5.0, -5.0f32..5.0),
        -3.2f32..3.2,
        (0.1f32..3.0, 0.1f32..5.0, 0.1f32..10.0, 0.1f32..20.0),
    )
        .prop_map(|(p, v, a, (radius, mass, max_speed, max_force))| Body {
            position: Vec2::new(p.0, p.1),
            velocity: Vec2::new(v.0, v.1),
            heading: crate::ops::from_angle(a),
            radius,
            mass,
            max_speed,
            max_force,
            ..Body::default()
        })
}

fn finite(v: Vec2) -> Result<(), TestCaseError> {
    prop_assert!(v.is_finite(), "non-finite force {v:?}");
    Ok(())
}

proptest! {
    #[test]
    fn point_behaviours_are_finite(b in body(), t in any_vec(), tv in any_vec(), d in any_f32()) {
        let params = ArriveParams { tweaker: d, ..ArriveParams::default() };
        finite(seek(&b, t))?;
        finite(flee(&b, t, d))?;
        finite(arrive(&b, t, &ArriveParams::default()))?;
        finite(arrive_moving(&b, t, tv, &params))?;
        finite(velocity_match(&b, tv, d))?;
    }

    #[test]
    fn agent_behaviours_are_finite(
        b in body(), p in any_vec(), v in any_vec(), q in any_vec(), off in any_vec(), d in any_f32(),
    ) {
        let other = MovingTarget { position: p, velocity: v, heading: off };
        let third = MovingTarget::new(q, v);
        finite(pursuit(&b, other))?;
        finite(evade(&b, other, d))?;
        finite(offset_pursuit(&b, other, off, &ArriveParams::default()))?;
        finite(interpose(&b, other, third, &ArriveParams::default()))?;
    }

    #[test]
    fn world_behaviours_are_finite(
        b in body(),
        obs in prop::collection::vec(((-20.0f32..20.0, -20.0f32..20.0), 0.1f32..5.0), 0..6),
        walls in prop::collection::vec(((-20.0f32..20.0, -20.0f32..20.0), (-20.0f32..20.0, -20.0f32..20.0)), 0..6),
        hunter in any_vec(),
        len in any_f32(),
    ) {
        let obs: Vec<CircleObstacle> = obs
            .into_iter()
            .map(|((x, y), r)| CircleObstacle { center: Vec2::new(x, y), radius: r })
            .collect();
        let walls: Vec<Wall> = walls
            .into_iter()
            .filter_map(|(a, c)| Wall::new(Vec2::new(a.0, a.1), Vec2::new(c.0, c.1)).ok())
            .collect();
        let oa = ObstacleAvoidanceParams { min_detection_length: len, ..Default::default() };
        finite(obstacle_avoidance(&b, &obs, &ObstacleAvoidanceParams::default()))?;
        finite(obstacle_avoidance(&b, &obs, &oa))?;
        let wa = WallAvoidanceParams { feeler_length: len, ..Default::default() };
        finite(wall_avoidance(&b, &walls, &WallAvoidanceParams::default()))?;
        finite(wall_avoidance(&b, &walls, &wa))?;
        finite(hide(&b, MovingTarget::point(hunter), &obs, &HideParams::default()))?;
    }

    #[test]
    fn stateful_and_group_behaviours_are_finite(
        b in body(),
        others in prop::collection::vec(body(), 0..6),
        pts in prop::collection::vec(any_vec(), 0..5),
        looped: bool,
        seed: u64,
        r in any_f32(),
        fov in prop::option::of(any_f32()),
        dt in any_f32(),
    ) {
        let mut others = others;
        // Some neighbours exactly on top of the body.
        if let Some(first) = others.first_mut() {
            first.position = b.position;
        }
        let hood = Neighbourhood { radius: r, fov };
        finite(separation(&b, &others, &hood))?;
        finite(alignment(&b, &others, &hood))?;
        finite(cohesion(&b, &others, &hood))?;
        let mut rng = SimRng::seed_from(seed);
        let mut ws = WanderState::default();
        let params = FlockingParams { neighbourhood: hood, ..Default::default() };
        finite(flocking(&b, &others, &params, &mut ws, &mut rng, dt))?;
        finite(wander(&b, &mut ws, &WanderParams { radius: r, ..Default::default() }, &mut rng, dt))?;
        let path = Path { waypoints: pts, looped };
        let mut f = PathFollower { current: seed as usize % 7, seek_distance: r };
        finite(follow_path(&b, &path, &mut f, &ArriveParams::default()))?;
    }
}
