//! Emergent formations (`cohort::formation::emergent`): a flock of nine geese forms a V with
//! no fixed layout; every bird picks its target from the others' current positions.
//!
//! Each tick `emergent_targets` names a leader (the bird furthest ahead along the flight
//! direction) and hangs two arms of followers off it; each bird arrives at its target while
//! the leader flies on. The V re-forms around whatever the birds do. Run with
//! `cargo run --release --example emergent_v`.

use cohort::Vec2;
use cohort::formation::emergent::{
    EmergentConfig, EmergentScratch, EmergentTarget, emergent_targets,
};
use cohort::steering::behaviours::seek::{ArriveParams, arrive};
use cohort::steering::{Body, SimRng, locomotion};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = EmergentConfig {
        behind: 1.5,
        side: 2.0,
    }
    .validate()?;
    let heading = Vec2::X;
    // Nine birds scattered over a 10 m square (seeded: the same flock every run).
    let mut rng = SimRng::seed_from(5);
    let mut birds = Vec::new();
    for _ in 0..9 {
        let at = Vec2::new(rng.next_f32(), rng.next_f32()) * 10.0;
        birds.push(Body::new(at, 0.4, 6.0, 12.0)?);
    }
    let (mut scratch, mut targets) = (EmergentScratch::default(), Vec::<EmergentTarget>::new());
    let mut positions = Vec::new();
    let dt = 1.0 / 30.0;
    let cruise = 3.0;
    for tick in 0..30 * 20 {
        positions.clear();
        positions.extend(birds.iter().map(|b| b.position));
        emergent_targets(&positions, heading, &config, &mut scratch, &mut targets);
        for (bird, target) in birds.iter_mut().zip(&targets) {
            let force = match target.follows {
                // The leader flies on at cruise speed.
                None => (heading * cruise - bird.velocity) * 4.0,
                // A follower arrives at its place behind the bird it follows, which moves on.
                Some(_) => arrive(
                    bird,
                    target.position + heading * cruise * 0.5,
                    &ArriveParams::default(),
                ),
            };
            locomotion::integrate(bird, force, dt);
        }
        if tick % 150 == 149 {
            let worst = birds
                .iter()
                .zip(&targets)
                .map(|(b, t)| b.position.distance(t.position))
                .fold(0.0f32, f32::max);
            let arms = [1i8, -1].map(|a| targets.iter().filter(|t| t.arm == a).count());
            println!(
                "{:4.1} s: left arm {}, right arm {}, farthest bird from its place {worst:.2} m",
                (tick + 1) as f32 * dt,
                arms[0],
                arms[1]
            );
        }
    }
    Ok(())
}
