use super::*;
use core::cell::Cell;
use std::rc::Rc;

fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).length() < 1e-4
}

/// Explicit Euler with the body's limits; returns every position visited.
fn drive(pipeline: &SteeringPipeline, mut body: Body, seconds: f32) -> (Body, Vec<Vec2>) {
    let dt = 1.0 / 30.0;
    let mut trail = vec![body.position];
    for _ in 0..(seconds / dt) as usize {
        let out = pipeline.run(&body, &());
        assert!(out.force.is_finite() && out.force.length() <= body.max_force + 1e-4);
        assert_ne!(out.outcome, Outcome::Fallback, "at {}", body.position);
        body.velocity = truncate(body.velocity + out.force / body.mass * dt, body.max_speed);
        body.position += body.velocity * dt;
        trail.push(body.position);
    }
    (body, trail)
}

#[test]
fn goal_channels_merge() {
    let mut g = Goal::arrive_at(Vec2::ONE);
    g.merge(&Goal {
        position: Some(Vec2::new(f32::NAN, 0.0)),
        orientation: Some(Vec2::Y),
        velocity: None,
    });
    assert_eq!(g.position, Some(Vec2::ONE));
    assert_eq!(
        (g.orientation, g.velocity),
        (Some(Vec2::Y), Some(Vec2::ZERO))
    );
    assert!(Goal::default().is_empty() && !g.is_empty());
    let chase = ChaseTargeter {
        target: |c: &(Vec2, Vec2)| Some(*c),
        lead_time: 0.5,
    };
    let goal = chase.goal(
        &Body::default(),
        &(Vec2::new(4.0, 0.0), Vec2::new(0.0, 2.0)),
    );
    assert_eq!(goal.position, Some(Vec2::new(4.0, 1.0)));
}

#[test]
fn actuator_seeks_arrives_and_truncates() {
    let act = BasicActuator::default();
    let body = Body::default().moving(Vec2::new(0.0, 1.0));
    // Seek: desired (3, 0) minus velocity.
    assert!(close(
        act.force(&body, &Goal::at(Vec2::new(10.0, 0.0))),
        Vec2::new(3.0, -1.0)
    ));
    // Arrive 1 away (half the slowing radius) matching (0, 2): (1.5, 0) + (0, 1) - (0, 1).
    let goal = Goal {
        velocity: Some(Vec2::new(0.0, 2.0)),
        ..Goal::at(Vec2::X)
    };
    assert!(close(act.force(&body, &goal), Vec2::new(1.5, 0.0)));
    let fast = body.moving(Vec2::new(-30.0, 0.0));
    assert!((act.force(&fast, &Goal::at(Vec2::X)).length() - 6.0).abs() < 1e-4);
    assert_eq!(act.force(&body, &Goal::default()), Vec2::ZERO);
}

#[test]
fn path_decomposer_picks_next_waypoint() {
    let path = PathDecomposer {
        waypoints: vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)],
        reach_radius: 0.5,
    };
    let goal = Goal::arrive_at(Vec2::new(10.0, 20.0));
    let at = |x: f32, y: f32| {
        let body = Body {
            position: Vec2::new(x, y),
            ..Body::default()
        };
        path.decompose(&body, &(), goal)
    };
    assert_eq!(at(3.0, 1.0), Goal::at(Vec2::new(10.0, 0.0)));
    assert_eq!(at(9.8, 0.1), Goal::at(Vec2::new(10.0, 10.0)));
    assert_eq!(at(10.0, 15.0), goal);
    let empty = PathDecomposer::default();
    assert_eq!(
        empty.decompose(&Body::default(), &(), Goal::default()),
        Goal::default()
    );
}

#[test]
fn detour_is_beside_the_obstacle_and_clear_of_it() {
    let avoid = AvoidObstacles {
        obstacles: vec![CircleObstacle::new(Vec2::new(5.0, 0.0), 1.0).unwrap()],
        margin: 0.5,
    };
    let body = Body::default();
    let goal = Goal::arrive_at(Vec2::new(10.0, 0.0));
    let path = BasicActuator::default().plan(&body, &goal);
    let Verdict::Suggest(sub) = avoid.check(&body, &(), &path, &goal) else {
        panic!("the straight line crosses the obstacle");
    };
    let s = sub.position.unwrap();
    assert_eq!(sub.velocity, None);
    // Left of the line (tie-break), and the new line clears the 2-unit clearance tightly.
    assert!(s.y > 2.0, "{s}");
    let gap = (closest_point_on_segment(Vec2::new(5.0, 0.0), body.position, s)
        - Vec2::new(5.0, 0.0))
    .length();
    assert!(gap > 2.0 && gap < 2.1, "{gap}");
    let new_path = BasicActuator::default().plan(&body, &sub);
    assert_eq!(avoid.check(&body, &(), &new_path, &sub), Verdict::Satisfied);
    // Drifting right picks the right side.
    let drifting = body.moving(Vec2::new(0.0, -0.5));
    let Verdict::Suggest(sub) = avoid.check(&drifting, &(), &path, &goal) else {
        panic!()
    };
    assert!(sub.position.unwrap().y < -2.0);
}

#[test]
fn drives_around_an_obstacle_to_the_goal() {
    let obstacle = CircleObstacle::new(Vec2::new(5.0, 0.0), 1.5).unwrap();
    let pipeline = SteeringPipeline::new(BasicActuator::default())
        .with_targeter(GoalTargeter {
            goal: Goal::arrive_at(Vec2::new(10.0, 0.0)),
        })
        .with_constraint(AvoidObstacles {
            obstacles: vec![obstacle],
            margin: 0.25,
        });
    let start = Body::default();
    let (end, trail) = drive(&pipeline, start, 12.0);
    assert!(
        (end.position - Vec2::new(10.0, 0.0)).length() < 0.2,
        "{}",
        end.position
    );
    assert!(end.speed() < 0.3);
    let nearest = trail
        .iter()
        .map(|p| obstacle.signed_distance(*p))
        .fold(f32::INFINITY, f32::min);
    assert!(
        nearest >= start.radius,
        "body overlapped the obstacle: {nearest}"
    );
    assert!(
        trail.iter().any(|p| p.y > 1.5),
        "it went round, not through"
    );
}

#[test]
fn constraint_rounds_are_bounded_and_fallback_steers() {
    struct Restless(Rc<Cell<usize>>);
    impl Constraint for Restless {
        fn check(&self, _: &Body, _: &(), _: &PlannedPath, g: &Goal) -> Verdict {
            self.0.set(self.0.get() + 1);
            Verdict::Suggest(Goal::at(g.position.unwrap_or(Vec2::ZERO) + Vec2::Y))
        }
    }
    let checks = Rc::new(Cell::new(0));
    let pipeline = SteeringPipeline::new(BasicActuator::default())
        .with_targeter(GoalTargeter {
            goal: Goal::at(Vec2::new(10.0, 0.0)),
        })
        .with_constraint(Restless(Rc::clone(&checks)))
        .with_max_constraint_iterations(4)
        .with_fallback(|_, _| Vec2::new(0.0, -1.0));
    let out = pipeline.run(&Body::default(), &());
    assert_eq!(checks.get(), 4);
    assert_eq!(out.outcome, Outcome::Fallback);
    assert_eq!(out.force, Vec2::new(0.0, -1.0));
    assert_eq!(out.goal.position, Some(Vec2::new(10.0, 4.0)));
}

#[test]
fn goal_inside_an_obstacle_brakes() {
    let pipeline = SteeringPipeline::new(BasicActuator::default())
        .with_targeter(GoalTargeter {
            goal: Goal::at(Vec2::new(5.2, 0.0)),
        })
        .with_constraint(AvoidObstacles {
            obstacles: vec![CircleObstacle::new(Vec2::new(5.0, 0.0), 1.0).unwrap()],
            margin: 0.0,
        });
    let body = Body::default().moving(Vec2::new(2.0, 1.0));
    let out = pipeline.run(&body, &());
    assert_eq!(out.outcome, Outcome::Fallback);
    assert_eq!(out.force, Vec2::new(-2.0, -1.0));
    // Without constraints the actuator always steers.
    let free = SteeringPipeline::<()>::new(BasicActuator::default());
    assert_eq!(
        free.run(&body, &()).outcome,
        Outcome::Actuated { rounds: 0 }
    );
}
