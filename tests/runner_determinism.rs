//! The same file and seed give the same state hash, in one run or split across a snapshot.

use std::path::PathBuf;

use cohort_demos::runner::load_runner;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.ron"))
}

fn hash_after(name: &str, ticks: u64, seed: Option<u64>) -> String {
    let mut r = load_runner(&path(name), seed, false).unwrap();
    r.run(ticks, |_| {}).unwrap();
    r.report().state_hash
}

#[test]
fn same_seed_same_hash() {
    for name in ["obstacle_course", "casualties", "platoon"] {
        let a = hash_after(name, 200, None);
        let b = hash_after(name, 200, None);
        assert_eq!(a, b, "{name}");
        // The state did change over the run.
        assert_ne!(a, hash_after(name, 0, None), "{name}");
    }
}

#[test]
fn split_run_through_a_snapshot_equals_one_run() {
    for name in ["casualties", "platoon"] {
        let whole = hash_after(name, 200, None);
        let mut first = load_runner(&path(name), None, false).unwrap();
        first.run(100, |_| {}).unwrap();
        let saved = first.snapshot().unwrap();
        // A fresh runner of the same scenario, restored, then 100 more (the kills at 150 still
        // happen after the split).
        let mut second = load_runner(&path(name), None, false).unwrap();
        second.restore(&saved).unwrap();
        assert_eq!(second.tick(), 100);
        second.run(100, |_| {}).unwrap();
        assert_eq!(second.report().state_hash, whole, "{name}");
        assert_eq!(second.world().unit_count(), first_units_after(name, 200));
    }
}

fn first_units_after(name: &str, ticks: u64) -> usize {
    let mut r = load_runner(&path(name), None, false).unwrap();
    r.run(ticks, |_| {}).unwrap();
    r.world().unit_count()
}

#[test]
fn snapshot_of_another_scenario_is_refused() {
    let mut a = load_runner(&path("army"), None, false).unwrap();
    a.run(1, |_| {}).unwrap();
    let saved = a.snapshot().unwrap();
    let mut b = load_runner(&path("open_field"), None, false).unwrap();
    assert!(b.restore(&saved).is_err());
    assert!(b.restore("not a snapshot").is_err());
}
