//! The `parallel` feature steers units on rayon's threads with results bit-identical to the
//! single-thread loop: the standard army is stepped once inside a one-thread pool (the
//! sequential loop) and once inside a four-thread pool (parallel chunks), and the state
//! hashes must agree at every checkpoint.
//!
//! `cargo test --features parallel --test parallel_determinism` (without the feature this
//! file has no tests).
#![cfg(feature = "parallel")]

use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::world::MAX_STEP;
use cohort::formation::{World, WorldSettings};

fn army() -> World {
    let spec = ArmySpec {
        units: 2000,
        map_size: 400.0,
        march: 150.0,
        ..ArmySpec::default()
    };
    build_army(&spec, WorldSettings::default())
        .expect("army")
        .world
}

/// State hashes after every 20 of 120 ticks, stepping inside a pool of `threads` threads.
fn hashes(threads: usize) -> Vec<u64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        assert_eq!(rayon::current_num_threads(), threads);
        let mut world = army();
        let mut out = Vec::new();
        for tick in 1..=120 {
            world.step(MAX_STEP);
            if tick % 20 == 0 {
                out.push(world.state_hash());
            }
        }
        out
    })
}

#[test]
fn parallel_steering_is_bit_identical_to_single_thread() {
    let single = hashes(1);
    let parallel = hashes(4);
    assert_eq!(single.len(), 6);
    assert_eq!(single, parallel);
    // The world changed between checkpoints (the hashes compare real motion).
    assert!(single.windows(2).all(|w| w[0] != w[1]));
}
