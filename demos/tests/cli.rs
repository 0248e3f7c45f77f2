//! The `cohort` binary: exit codes, output formats, and no partial files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cohort(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the cohort binary runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn run_json_prints_one_object_with_the_issue_keys_and_no_progress_bar() {
    let out = cohort(&["run", "scenarios/open_field.ron", "--ticks", "60", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // stdout is a pipe here: exactly one line, the JSON object, no progress bar.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let o = v.as_object().unwrap();
    for key in [
        "ticks",
        "units",
        "mean_slot_error",
        "max_slot_error",
        "overlaps",
        "max_overlap_depth",
        "penetrations",
        "arrived",
        "time_to_arrive",
        "stuck",
        "path_ratio",
        "max_turn_rate",
        "non_finite",
        "state_hash",
        "hashes",
    ] {
        assert!(o.contains_key(key), "missing {key}");
    }
    assert_eq!(o.len(), 15);
    // Without --hash-every the list is empty.
    assert_eq!(v["hashes"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["ticks"], 60);
    assert_eq!(v["units"], 12);
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
}

#[test]
fn run_table_and_seed() {
    let out = cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "20",
        "--seed",
        "5",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("max_slot_error") && s.contains("state_hash"),
        "{s}"
    );
}

#[test]
fn split_run_equals_whole_run() {
    let dir = scratch("split");
    let snap = dir.join("state.ron");
    let snap = snap.to_str().unwrap();
    let hash = |out: &Output| {
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["state_hash"].as_str().unwrap().to_owned()
    };
    let whole = hash(&cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "200",
        "--json",
    ]));
    let first = cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "100",
        "--json",
        "--snapshot-out",
        snap,
    ]);
    assert_ne!(hash(&first), whole);
    let second = cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "100",
        "--json",
        "--snapshot-in",
        snap,
    ]);
    assert_eq!(hash(&second), whole);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_exit_codes_and_positions() {
    let ok = cohort(&["check", "scenarios/platoon.ron"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(
        text(&ok.stdout).contains("32 units"),
        "{}",
        text(&ok.stdout)
    );

    let dir = scratch("check");
    let bad = dir.join("broken.ron");
    std::fs::write(
        &bad,
        "(\n  formations: [\n    (name: \"a\" units: 3)\n  ],\n)\n",
    )
    .unwrap();
    let out = cohort(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("broken.ron:3:"), "{err}");

    let huge = dir.join("huge.ron");
    std::fs::write(
        &huge,
        "(formations: [(name: \"a\", position: (1.0, 1.0), units: 1000000000)])",
    )
    .unwrap();
    let out = cohort(&["check", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("formations[0].units"));
    // `run` refuses it the same way, without panicking.
    let out = cohort(&["run", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stderr).contains("panicked"));

    let pattern = dir.join("wedge.ron");
    std::fs::write(&pattern, "(kind: Wedge, spacing: 1.5, unit_radius: 0.5)").unwrap();
    assert_eq!(
        cohort(&["check", pattern.to_str().unwrap()]).status.code(),
        Some(0)
    );
    std::fs::write(&pattern, "(kind: Wedge, spacing: -1.5, unit_radius: 0.5)").unwrap();
    assert_eq!(
        cohort(&["check", pattern.to_str().unwrap()]).status.code(),
        Some(2)
    );

    let missing = cohort(&["check", "no/such/file.ron"]);
    assert_eq!(missing.status.code(), Some(2));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_bundled_scenario_checks() {
    let scenarios = root().join("scenarios");
    let traffic = std::fs::read_dir(scenarios.join("traffic")).unwrap();
    for entry in std::fs::read_dir(&scenarios).unwrap().chain(traffic) {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ron") {
            continue;
        }
        let out = cohort(&["check", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
}

#[test]
fn render_writes_a_png_and_nothing_on_error() {
    let dir = scratch("render");
    let png = dir.join("field.png");
    let out = cohort(&[
        "render",
        "scenarios/obstacle_course.ron",
        "--out",
        png.to_str().unwrap(),
        "--ticks",
        "90",
        "--width",
        "400",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");

    // A bad scenario: exit 2 and no file.
    let bad_png = dir.join("bad.png");
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        "(formations: [(name: \"a\", position: (NaN, 1.0), units: 2)])",
    )
    .unwrap();
    let out = cohort(&[
        "render",
        bad.to_str().unwrap(),
        "--out",
        bad_png.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!bad_png.exists());
    // An unwritable destination: failure, no file, no temporary left behind.
    let nowhere = dir.join("missing").join("x.png");
    let out = cohort(&[
        "render",
        "scenarios/open_field.ron",
        "--out",
        nowhere.to_str().unwrap(),
        "--ticks",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(!nowhere.exists());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 2, "only field.png and bad.ron: {left:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_arguments_exit_2() {
    // (The viewer's own window tests are in tests/viewer.rs.)
    let out = cohort(&["view", "scenarios/no_such_scenario.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no_such_scenario.ron"));
    assert_eq!(cohort(&["run"]).status.code(), Some(2));
    assert_eq!(
        cohort(&["run", "x.ron", "--ticks", "-3"]).status.code(),
        Some(2)
    );
    assert_eq!(cohort(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn bench_json_has_the_issue_keys_and_its_windows() {
    let out = cohort(&[
        "bench",
        "--units",
        "60",
        "--ticks",
        "3",
        "--window",
        "2",
        "--open-field",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for key in cohort_demos::bench::SPECIFIED_KEYS {
        assert!(v[key].is_number(), "{key}: {stdout}");
    }
    assert_eq!(v["units"], 60);
    assert_eq!(v["ticks"], 3);
    assert_eq!(v["open_field"], true);
    let windows = v["windows"].as_array().unwrap();
    let ticks: Vec<_> = windows.iter().map(|w| w["ticks"].as_u64()).collect();
    assert_eq!(ticks, [Some(2), Some(1)]);
    // A zero window is refused, naming the option.
    let bad = cohort(&["bench", "--units", "60", "--ticks", "3", "--window", "0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--window"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn compare_json_prints_both_sides_and_bad_input_exits_2() {
    let out = cohort(&[
        "compare",
        "scenarios/open_field.ron",
        "--ticks",
        "30",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["units"], 12);
    assert_eq!(v["ticks"], 30);
    for side in ["cohort", "dodgy"] {
        for key in [
            "arrived",
            "time_to_arrive",
            "colliding_pair_steps",
            "cpu_us_per_unit_step",
        ] {
            assert!(v[side].get(key).is_some(), "{side}.{key}: {stdout}");
        }
    }
    let table = cohort(&["compare", "scenarios/open_field.ron", "--ticks", "5"]);
    assert!(table.status.success(), "{}", text(&table.stderr));
    assert!(text(&table.stdout).contains("colliding_pair_steps"));
    for args in [
        &["compare", "scenarios/no_such_file.ron"][..],
        &["compare", "scenarios/open_field.ron", "--time-horizon", "0"][..],
        &[
            "compare",
            "scenarios/open_field.ron",
            "--ticks",
            "99999999999",
        ][..],
    ] {
        let out = cohort(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).starts_with("cohort: "), "{args:?}");
    }
}
