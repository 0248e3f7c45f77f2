//! The steering stage's caches change nothing but speed. A unit's free zone (a ball known to
//! hold no static geometry, kept between ticks so most units skip their geometry queries) and
//! the solver's warm buffers live in the world's scratch, which a clone (and a restored
//! snapshot) starts without. A world cloned before every tick, so it never has a cache to
//! use, must stay bit-identical to one stepped with its caches warm.

use cohort::formation::World;
use cohort::formation::WorldSettings;
use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::world::MAX_STEP;

fn army(units: usize) -> World {
    let spec = ArmySpec {
        units,
        seed: 7,
        map_size: 300.0,
        march: 120.0,
        ..ArmySpec::default()
    };
    build_army(&spec, WorldSettings::default())
        .expect("army builds")
        .world
}

#[test]
fn cold_caches_step_identically_to_warm_ones() {
    let mut warm = army(200);
    let mut cold = warm.clone();
    let mut near_geometry = 0usize;
    for tick in 0..300 {
        warm.step(MAX_STEP);
        cold = cold.clone();
        cold.step(MAX_STEP);
        if tick % 20 == 19 {
            assert_eq!(
                warm.state_hash(),
                cold.state_hash(),
                "diverged by tick {}",
                warm.tick()
            );
        }
        // The march must pass obstacles, or the zones would never be renewed near one.
        near_geometry += warm
            .units()
            .filter(|(_, u)| {
                let p = u.body.position;
                warm.map()
                    .circles
                    .iter()
                    .any(|o| (o.center - p).length() < o.radius + 3.0)
            })
            .count();
    }
    assert!(
        near_geometry > 500,
        "only {near_geometry} unit-ticks near obstacles"
    );
}
