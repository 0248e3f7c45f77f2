//! The steering pipeline (`cohort::steering::pipeline`): a courier follows three waypoints to a
//! drop point with two boulders in the way, stopping there.
//!
//! A targeter says where the top-level goal is, a decomposer turns it into the next waypoint,
//! a constraint checks the straight line the actuator would take and proposes a goal beside a
//! boulder when the line runs into one, and the actuator turns the final goal into a force.
//! Run with `cargo run --release --example steering_pipeline`.

use cohort::Vec2;
use cohort::steering::pipeline::{
    AvoidObstacles, BasicActuator, Goal, GoalTargeter, Outcome, PathDecomposer, SteeringPipeline,
};
use cohort::steering::{Body, CircleObstacle, locomotion};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let drop_point = Vec2::new(40.0, 0.0);
    let boulders = vec![
        CircleObstacle::new(Vec2::new(10.0, 0.3), 2.0)?,
        CircleObstacle::new(Vec2::new(30.3, 5.2), 1.5)?,
    ];
    // The context type `C` is `()` here: every stage reads only the body.
    let pipeline: SteeringPipeline = SteeringPipeline::new(BasicActuator::default())
        .with_targeter(GoalTargeter {
            goal: Goal::arrive_at(drop_point),
        })
        .with_decomposer(PathDecomposer {
            waypoints: vec![
                // The route starts where the courier stands.
                Vec2::ZERO,
                Vec2::new(18.0, 0.0),
                Vec2::new(26.0, 10.0),
                Vec2::new(34.0, 0.0),
            ],
            reach_radius: 1.0,
        })
        .with_constraint(AvoidObstacles {
            obstacles: boulders.clone(),
            margin: 0.3,
        });

    let mut courier = Body::new(Vec2::ZERO, 0.5, 4.0, 10.0)?;
    let dt = 1.0 / 30.0;
    let (mut closest, mut detours) = (f32::INFINITY, 0u32);
    let mut arrived_at = None;
    for tick in 0..30 * 60 {
        let out = pipeline.run(&courier, &());
        if matches!(out.outcome, Outcome::Actuated { rounds } if rounds > 1) {
            detours += 1; // A constraint proposed a goal beside a boulder this tick.
        }
        locomotion::integrate(&mut courier, out.force, dt);
        for b in &boulders {
            closest = closest.min(courier.position.distance(b.center) - b.radius - courier.radius);
        }
        if courier.position.distance(drop_point) < 0.1 && courier.velocity.length() < 0.05 {
            arrived_at = Some(tick as f32 * dt);
            break;
        }
    }
    match arrived_at {
        Some(t) => println!("stopped at the drop point after {t:.1} s"),
        None => println!(
            "did not reach the drop point; ended at {}",
            courier.position
        ),
    }
    println!(
        "closest gap to a boulder: {closest:.2} m (never touching: {})",
        closest > 0.0
    );
    println!("ticks steering round a boulder: {detours}");
    Ok(())
}
