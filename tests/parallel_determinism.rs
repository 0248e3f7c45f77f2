//! The `parallel` feature runs the tick's stages on rayon's threads with results bit-identical
//! to one thread: the standard army and the traffic scenarios are stepped inside pools of one
//! thread (every stage's single-thread loop), two and four threads (fixed chunks on the
//! pool's threads), and the state hashes must agree at every checkpoint.
//!
//! `cargo test --features parallel --test parallel_determinism` (without the feature this
//! file has no tests).
#![cfg(feature = "parallel")]

use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::world::MAX_STEP;
use cohort::formation::{FormationId, FormationSettings, FormationStatus, World, WorldSettings};

/// Pool sizes compared: one thread (the reference), two and four.
const THREADS: [usize; 3] = [1, 2, 4];

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

/// Runs `f` inside a pool of `threads` threads.
fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        assert_eq!(rayon::current_num_threads(), threads);
        f()
    })
}

/// The army's state hashes after every 20 of 120 ticks.
fn army_run() -> Vec<u64> {
    let mut world = army();
    let mut out = Vec::new();
    for tick in 1..=120 {
        world.step(MAX_STEP);
        if tick % 20 == 0 {
            out.push(world.state_hash());
        }
    }
    out
}

/// [`army_run`] stepped inside a pool of `threads`.
fn army_hashes(threads: usize) -> Vec<u64> {
    in_pool(threads, army_run)
}

#[test]
fn the_army_steps_bit_identically_on_one_two_and_four_threads() {
    let runs: Vec<Vec<u64>> = THREADS.iter().map(|&t| army_hashes(t)).collect();
    let single = &runs[0];
    assert_eq!(single.len(), 6);
    for (threads, run) in THREADS.iter().zip(&runs) {
        assert_eq!(run, single, "{threads} threads");
    }
    // The world changed between checkpoints (the hashes compare real motion).
    assert!(single.windows(2).all(|w| w[0] != w[1]));
}

#[test]
fn the_army_steps_bit_identically_from_outside_the_pool() {
    // The test's own thread steps on rayon's global pool (each step enters the pool once).
    let outside = army_run();
    assert_eq!(outside, army_hashes(1));
}

/// The army with every formation keeping `follow_gap` (1 m by default; 0: queueing off): its
/// state hashes after every 50 of 300 ticks, and how many of its formations were waiting at
/// the checkpoints.
fn gap_army_run(follow_gap: f32) -> (Vec<u64>, usize) {
    let mut world = army();
    let ids: Vec<FormationId> = world.formations().map(|(id, _)| id).collect();
    for &id in &ids {
        let settings = FormationSettings {
            follow_gap,
            ..world.formation(id).expect("formation").settings.clone()
        };
        world
            .set_formation_settings(id, settings)
            .expect("settings");
    }
    let (mut out, mut waiting) = (Vec::new(), 0);
    for tick in 1..=300 {
        world.step(MAX_STEP);
        if tick % 50 == 0 {
            out.push(world.state_hash());
            waiting += ids
                .iter()
                .filter(|&&id| world.formation_status(id) == Ok(FormationStatus::Waiting))
                .count();
        }
    }
    (out, waiting)
}

#[test]
fn the_queueing_army_steps_bit_identically_on_one_two_and_four_threads() {
    let gap = FormationSettings::default().follow_gap;
    let runs: Vec<(Vec<u64>, usize)> = THREADS
        .iter()
        .map(|&t| in_pool(t, || gap_army_run(gap)))
        .collect();
    let single = &runs[0];
    // Formations queued and merged in turn (the queueing stage ran on the pool's threads).
    assert!(single.1 > 0, "{single:?}");
    for (threads, run) in THREADS.iter().zip(&runs) {
        assert_eq!(run, single, "{threads} threads");
    }
}

#[test]
fn the_army_without_queueing_steps_bit_identically_on_one_two_and_four_threads() {
    let runs: Vec<Vec<u64>> = THREADS
        .iter()
        .map(|&t| in_pool(t, || gap_army_run(0.0).0))
        .collect();
    let single = &runs[0];
    // Not the queueing army's run: the formations pressed on where those queued.
    assert_ne!(
        single,
        &gap_army_run(FormationSettings::default().follow_gap).0
    );
    for (threads, run) in THREADS.iter().zip(&runs) {
        assert_eq!(run, single, "{threads} threads");
    }
}

/// Ticks of each traffic scenario stepped (its meetings are over by then).
const SCENARIO_TICKS: u64 = 1200;

/// The state hashes of scenario `name` after every 100 of [`SCENARIO_TICKS`] ticks, stepped
/// inside a pool of `threads` threads.
fn scenario_hashes(name: &str, threads: usize) -> Vec<u64> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/traffic")
        .join(format!("{name}.ron"));
    in_pool(threads, || {
        let mut run =
            cohort_demos::runner::load_runner(&path, None, false).unwrap_or_else(|e| panic!("{e}"));
        let mut out = Vec::new();
        for tick in 1..=SCENARIO_TICKS {
            run.step().unwrap_or_else(|e| panic!("{name}: {e}"));
            if tick % 100 == 0 {
                out.push(run.world().state_hash());
            }
        }
        out
    })
}

#[test]
fn traffic_scenarios_step_bit_identically_on_one_two_and_four_threads() {
    for name in ["corridor_head_on", "crossing", "blocks_squads"] {
        let runs: Vec<Vec<u64>> = THREADS.iter().map(|&t| scenario_hashes(name, t)).collect();
        let single = &runs[0];
        assert_eq!(single.len(), (SCENARIO_TICKS / 100) as usize);
        for (threads, run) in THREADS.iter().zip(&runs) {
            assert_eq!(run, single, "{name} on {threads} threads");
        }
        assert!(single.windows(2).any(|w| w[0] != w[1]), "{name} moved");
    }
}
