//! Priority groups (`cohort::steering::combine::PriorityGroups`): a scout heads for a flag
//! while keeping out of a sentry's reach.
//!
//! Two groups of weighted behaviours: "keep away" (flee the sentry) and "go" (arrive at the
//! flag). Each tick the groups report a priority,
//! the highest goes first, and the first whose blended force is longer than the threshold
//! steers; a group with nothing to do (the sentry far away: flee is zero) falls through to the
//! next. Run with `cargo run --release --example priority_groups`.

use cohort::Vec2;
use cohort::steering::behaviours::seek::{ArriveParams, arrive, flee};
use cohort::steering::combine::{PriorityGroups, SteeringGroup};
use cohort::steering::{Body, locomotion, ops};

/// What the behaviours read each tick besides the body: where the sentry is.
struct Field {
    sentry: Vec2,
}

const SENTRY_REACH: f32 = 6.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flag = Vec2::new(30.0, 0.0);
    let keep_away = SteeringGroup::<Field>::new()
        .with(1.0, |b: &Body, f: &Field| flee(b, f.sentry, SENTRY_REACH))
        // Urgent when the sentry is near, else below the other group.
        .with_priority(|b: &Body, f: &Field| {
            if b.position.distance(f.sentry) < SENTRY_REACH {
                2.0
            } else {
                0.0
            }
        });
    let go = SteeringGroup::<Field>::new()
        .with(1.0, move |b: &Body, _: &Field| {
            arrive(b, flag, &ArriveParams::default())
        })
        .with_priority(|_: &Body, _: &Field| 1.0);
    let mut groups = PriorityGroups::new(0.01)
        .with_group(keep_away)
        .with_group(go);

    let mut scout = Body::new(Vec2::ZERO, 0.5, 3.0, 8.0)?;
    // The sentry walks back and forth across the scout's straight line to the flag.
    let mut field = Field {
        sentry: Vec2::new(15.0, -8.0),
    };
    let dt = 1.0 / 30.0;
    let (mut closest, mut fleeing_ticks) = (f32::INFINITY, 0u32);
    for tick in 0..30 * 40 {
        let t = tick as f32 * dt;
        field.sentry = Vec2::new(15.0, -8.0 + 16.0 * (0.5 - 0.5 * ops::cos(t * 0.4)));
        let force = groups.steer(&scout, &field);
        if groups.last_order().first() == Some(&0) {
            fleeing_ticks += 1;
        }
        locomotion::integrate(&mut scout, force, dt);
        closest = closest.min(scout.position.distance(field.sentry));
        if scout.position.distance(flag) < 0.2 && scout.velocity.length() < 0.1 {
            println!("reached the flag after {t:.1} s");
            break;
        }
    }
    println!("closest the sentry came: {closest:.2} m (its reach: {SENTRY_REACH} m)");
    println!("ticks the keep-away group went first: {fleeing_ticks}");
    Ok(())
}
