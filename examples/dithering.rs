//! Prioritised dithering (`cohort::steering::combine::prioritised_dithering`): a grazing
//! animal mostly walks to water, sometimes stops to look round, and always shies from a
//! predator nearby.
//!
//! Behaviours in priority order each get control with their own probability: one draw per
//! behaviour considered, from the world's seeded random generator, so a run is the same every
//! time. Cheaper than blending: a behaviour whose draw fails is never evaluated. Run with
//! `cargo run --release --example dithering`.

use cohort::Vec2;
use cohort::steering::behaviours::seek::{ArriveParams, arrive, flee};
use cohort::steering::combine::prioritised_dithering;
use cohort::steering::{Body, SimRng, locomotion};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let water = Vec2::new(25.0, 10.0);
    let predator = Vec2::new(12.0, 6.0);
    let dt = 1.0 / 30.0;
    for seed in [1, 2] {
        let mut rng = SimRng::seed_from(seed);
        let mut animal = Body::new(Vec2::ZERO, 0.4, 2.5, 6.0)?;
        let mut closest = f32::INFINITY;
        let paused = std::cell::Cell::new(0u32);
        let mut drank = None;
        for tick in 0..30 * 60 {
            let body = animal;
            let shy = || flee(&body, predator, 5.0);
            let pause = || {
                let f = -body.velocity * 4.0;
                if f != Vec2::ZERO {
                    paused.set(paused.get() + 1); // A non-zero force takes control.
                }
                f
            };
            let drink = || arrive(&body, water, &ArriveParams::default());
            // (probability, behaviour): shying always wins when it has something to do
            // (flee is zero beyond its panic distance, and a zero force passes control on).
            let list: [(f32, &dyn Fn() -> Vec2); 3] = [(1.0, &shy), (0.05, &pause), (1.0, &drink)];
            let force = prioritised_dithering(list, &mut rng, animal.max_force);
            locomotion::integrate(&mut animal, force, dt);
            closest = closest.min(animal.position.distance(predator));
            if animal.position.distance(water) < 0.2 && animal.velocity.length() < 0.1 {
                drank = Some(tick as f32 * dt);
                break;
            }
        }
        match drank {
            Some(t) => print!("seed {seed}: at the water after {t:.1} s"),
            None => print!("seed {seed}: still on its way at {}", animal.position),
        }
        println!(
            ", {} ticks paused, closest to the predator {closest:.2} m",
            paused.get()
        );
    }
    Ok(())
}
