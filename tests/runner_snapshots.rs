//! Run snapshots and state hashes through the runner: hashes taken every tick diverge at the
//! tick an input differs, a snapshot of another map is refused in either format, and a
//! snapshot the runner writes on a large map is read back.

use cohort_demos::runner::{MAX_SNAPSHOT_BYTES, Runner};
use cohort_demos::scenario::Scenario;
use cohort_formation::world::SnapshotFormat;

/// A box of 16 ordered east at tick 0 and elsewhere at tick 50, on a map `size` wide.
fn scenario(size: f32, second_goal: (f32, f32)) -> String {
    format!(
        r#"(
    name: "two orders",
    seed: 3,
    dt: 0.05,
    duration: 400,
    map: (min: (0.0, 0.0), max: ({size}, {size})),
    formations: [
        (name: "box", pattern: Kind(Box), position: (20.0, 20.0), facing: (1.0, 0.0), units: 16),
    ],
    timeline: [
        (tick: 0, formation: "box", order: MoveTo(goal: (60.0, 20.0))),
        (tick: 50, formation: "box", order: MoveTo(goal: ({}, {}))),
    ],
)"#,
        second_goal.0, second_goal.1
    )
}

fn runner(text: &str) -> Runner {
    let scenario = Scenario::from_ron_str(text, "test").unwrap();
    let built = scenario.validate("test", &[]).unwrap().build().unwrap();
    Runner::new(built, false)
}

/// The hashes of the first `ticks` ticks, one per tick.
fn hashes(text: &str, ticks: u64) -> Vec<(u64, String)> {
    let mut r = runner(text);
    r.hash_every(Some(1));
    r.run(ticks, |_| {}).unwrap();
    r.report()
        .hashes
        .into_iter()
        .map(|h| (h.tick, h.hash))
        .collect()
}

#[test]
fn hashes_diverge_at_the_tick_an_order_differs() {
    let a = hashes(&scenario(100.0, (60.0, 50.0)), 80);
    let b = hashes(&scenario(100.0, (60.0, 51.0)), 80);
    assert_eq!(a.len(), 80);
    assert_eq!(a.first().map(|h| h.0), Some(1));
    for (x, y) in a.iter().zip(&b) {
        // The order given at tick 50 is applied in the step that ends tick 51.
        if x.0 <= 50 {
            assert_eq!(x, y, "identical before the order");
        } else {
            assert_ne!(x.1, y.1, "tick {} should differ", x.0);
        }
    }
    // And a repeat of the same inputs is identical throughout.
    assert_eq!(a, hashes(&scenario(100.0, (60.0, 50.0)), 80));
}

#[test]
fn a_binary_snapshot_of_another_map_is_refused_and_says_so() {
    let mut a = runner(&scenario(100.0, (60.0, 50.0)));
    a.run(5, |_| {}).unwrap();
    let mut b = runner(&scenario(120.0, (60.0, 50.0)));
    let before = b.world().state_hash();
    for format in [SnapshotFormat::Binary, SnapshotFormat::Ron] {
        let saved = a.snapshot_as(format).unwrap();
        let err = b.restore(&saved).unwrap_err().to_string();
        assert!(err.contains("another map"), "{format:?}: {err}");
        assert_eq!(b.world().state_hash(), before, "the run is left as it was");
        assert_eq!(b.tick(), 0);
    }
    // The same map takes it.
    let mut c = runner(&scenario(100.0, (60.0, 50.0)));
    c.restore(a.snapshot_as(SnapshotFormat::Binary).unwrap())
        .unwrap();
    assert_eq!(c.world().state_hash(), a.world().state_hash());
}

#[test]
fn a_snapshot_the_runner_writes_on_a_large_map_is_read_back() {
    // 10 km square: its navigation graph alone was over 100 MB of RON, past the reader's
    // limit. The state snapshot leaves the terrain out (the scenario rebuilds it).
    let text = scenario(10_000.0, (60.0, 50.0));
    let mut a = runner(&text);
    a.run(60, |_| {}).unwrap();
    let mut b = runner(&text);
    for format in [SnapshotFormat::Binary, SnapshotFormat::Ron] {
        let saved = a.snapshot_as(format).unwrap();
        assert!((saved.len() as u64) < MAX_SNAPSHOT_BYTES);
        assert!(saved.len() < 1 << 20, "{format:?}: {} bytes", saved.len());
        b.restore(&saved).unwrap();
        assert_eq!(b.world().state_hash(), a.world().state_hash(), "{format:?}");
        assert_eq!(b.tick(), 60);
    }
    a.run(40, |_| {}).unwrap();
    b.run(40, |_| {}).unwrap();
    assert_eq!(b.report().state_hash, a.report().state_hash);
}
