//! Tests of `cohort bench` on small armies.

use super::*;

#[test]
fn brute_force_ticks_shrink_with_the_army() {
    assert_eq!(brute_force_ticks(1000, 100), 100);
    assert_eq!(brute_force_ticks(10_000, 100), 50);
    assert_eq!(brute_force_ticks(100_000, 100), 1);
    assert_eq!(brute_force_ticks(0, 7), 7);
}

#[test]
fn small_bench_measures_something() {
    let report = run_bench(&BenchOptions {
        units: 200,
        ticks: 5,
        warmup: 5,
        ..BenchOptions::default()
    })
    .unwrap();
    assert_eq!(report.units, 200);
    assert!(report.ns_per_unit_tick > 0.0 && report.ms_per_tick > 0.0);
    // The world holds at least its bodies.
    assert!(report.bytes_per_unit > 32.0, "{report:?}");
    assert!(report.peak_bytes as f64 >= report.bytes_per_unit * 200.0);
    assert_eq!(report.brute_force_ticks, 5);
    assert!(report.grid_speedup.is_some_and(|s| s > 0.0));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    for key in SPECIFIED_KEYS {
        assert!(json.get(key).is_some_and(|v| v.is_number()), "{key}");
    }
    assert!(report.state_hash_ns_per_unit > 0.0);
    assert_eq!(report.state_hash_allocations, 0, "{report:?}");
    assert!(report.snapshot_bytes > 200 * 32 && report.snapshot_round_trip_exact);
    // Every stage in tick order; steering, the hot loop, takes time; the shares sum to 1.
    let names: Vec<&str> = report.stages.iter().map(|s| s.stage).collect();
    assert_eq!(
        names,
        [
            "orders",
            "tactics",
            "formations",
            "tactical_slots",
            "gather",
            "steering",
            "constraints",
            "flight"
        ]
    );
    let steering = &report.stages[5];
    assert!(steering.ms_per_tick > 0.0, "{report:?}");
    let shares: f64 = report.stages.iter().map(|s| s.share).sum();
    assert!((shares - 1.0).abs() < 1e-9, "{shares}");
    assert_eq!(json["stages"].as_array().map(Vec::len), Some(8));
}

#[test]
fn windows_cover_the_timed_ticks_in_order() {
    let report = run_bench(&BenchOptions {
        units: 100,
        ticks: 5,
        warmup: 3,
        skip_brute_force: true,
        window: Some(2),
        ..BenchOptions::default()
    })
    .unwrap();
    let spans: Vec<(u64, u64)> = report
        .windows
        .iter()
        .map(|w| (w.from_tick, w.ticks))
        .collect();
    assert_eq!(spans, [(3, 2), (5, 2), (7, 1)]);
    assert!(report.windows.iter().all(|w| w.ns_per_unit_tick > 0.0));
    assert_eq!(report.allocations_per_tick, 0.0, "{report:?}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["windows"].as_array().map(Vec::len), Some(3));
    assert!(report.to_string().contains("5..7"), "{report}");
    // Without the option, no windows.
    let plain = run_bench(&BenchOptions {
        units: 100,
        ticks: 2,
        skip_brute_force: true,
        ..BenchOptions::default()
    })
    .unwrap();
    assert!(plain.windows.is_empty());
}

#[test]
fn an_open_field_has_no_obstacles_to_hold() {
    let options = BenchOptions {
        units: 100,
        ticks: 2,
        skip_brute_force: true,
        ..BenchOptions::default()
    };
    let standard = run_bench(&options).unwrap();
    let open = run_bench(&BenchOptions {
        open_field: true,
        ..options
    })
    .unwrap();
    assert!(open.open_field && !standard.open_field);
    // The standard map's trees, buildings and walls and their navigation graph take heap
    // the open field's terrain does not.
    assert!(
        open.terrain_bytes < standard.terrain_bytes,
        "{} {}",
        open.terrain_bytes,
        standard.terrain_bytes
    );
    assert!(open.to_string().contains("open field"));
}

#[test]
fn groups_are_top_level_formations_of_the_size_asked() {
    // After the command's warm-up, the timed ticks include the groups' first meetings (about
    // 2 s in), where the first group gives way to another: nothing may grow there either.
    let report = run_bench(&BenchOptions {
        units: 100,
        ticks: 40,
        warmup: 20,
        skip_brute_force: true,
        group_size: Some(4),
        ..BenchOptions::default()
    })
    .unwrap();
    assert_eq!((report.group_size, report.formations), (Some(4), 28));
    assert_eq!(report.allocations_per_tick, 0.0, "{report:?}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["group_size"], 4);
    assert!(report.to_string().contains("in groups of 4"), "{report}");
}

#[test]
fn bad_options_are_refused() {
    for options in [
        BenchOptions {
            units: 0,
            ..BenchOptions::default()
        },
        BenchOptions {
            ticks: 0,
            ..BenchOptions::default()
        },
        BenchOptions {
            window: Some(0),
            ..BenchOptions::default()
        },
        BenchOptions {
            group_size: Some(0),
            ..BenchOptions::default()
        },
        BenchOptions {
            threads: Some(0),
            ..BenchOptions::default()
        },
        BenchOptions {
            threads: Some(MAX_BENCH_THREADS + 1),
            ..BenchOptions::default()
        },
    ] {
        assert!(matches!(
            run_bench(&options),
            Err(BenchError::OutOfRange { .. })
        ));
    }
}

#[test]
fn threads_are_the_pool_asked_for() {
    let options = BenchOptions {
        units: 300,
        ticks: 4,
        warmup: 2,
        skip_brute_force: true,
        threads: Some(1),
        ..BenchOptions::default()
    };
    let one = run_bench(&options).unwrap();
    assert_eq!(one.threads, 1);
    let json: serde_json::Value = serde_json::from_str(&one.to_json()).unwrap();
    assert_eq!(json["threads"], 1);
    let two = run_bench(&BenchOptions {
        threads: Some(2),
        ..options
    });
    if cohort_formation::world::PARALLEL {
        let two = two.unwrap();
        assert_eq!(two.threads, 2);
        assert!(two.to_string().contains("threads"), "{two}");
    } else {
        assert!(matches!(two, Err(BenchError::NotParallel(2))), "{two:?}");
    }
}
