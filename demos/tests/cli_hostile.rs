//! Hostile scenario files through the `cohort` binary: every subcommand that reads a file
//! exits with status 2, prints where the problem is, never panics and writes no output file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cohort(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("the cohort binary runs")
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// (file name, contents, a fragment the error must name)
fn hostile() -> Vec<(&'static str, String, &'static str)> {
    let good = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/open_field.ron"),
    )
    .unwrap();
    let truncated = good[..good.len() / 2].to_owned();
    let nested = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    vec![
        ("truncated.ron", truncated, "truncated.ron:"),
        ("nested.ron", nested, "nested.ron"),
        ("empty.ron", String::new(), "empty.ron"),
        ("binary.ron", "\u{0}\u{1}\u{2}(((".to_owned(), "binary.ron"),
        (
            "nan.ron",
            "(formations: [(name: \"a\", position: (NaN, 1.0), units: 2)])".to_owned(),
            "position",
        ),
        (
            "inf_dt.ron",
            "(dt: inf, formations: [(name: \"a\", position: (1.0, 1.0), units: 2)])".to_owned(),
            "dt",
        ),
        (
            "negative_radius.ron",
            "(templates: {\"t\": (radius: -1.0)}, formations: [(name: \"a\", \
             position: (1.0, 1.0), units: 2, template: \"t\")])"
                .to_owned(),
            "templates",
        ),
        (
            "zero_units.ron",
            "(formations: [])".to_owned(),
            "formations",
        ),
        (
            "billion.ron",
            "(formations: [(name: \"a\", position: (1.0, 1.0), units: 1000000000)])".to_owned(),
            "units",
        ),
        (
            "unknown_pattern.ron",
            "(formations: [(name: \"a\", pattern: Kind(Hexagram), position: (1.0, 1.0), \
             units: 2)])"
                .to_owned(),
            "unknown_pattern.ron:1:",
        ),
    ]
}

#[test]
fn every_subcommand_refuses_hostile_files_with_exit_2_and_no_output() {
    let dir = scratch();
    for (name, contents, fragment) in hostile() {
        let path = dir.join(name);
        std::fs::write(&path, &contents).unwrap();
        let file = path.to_str().unwrap();
        let png = dir.join(format!("{name}.png"));
        let snapshot = dir.join(format!("{name}.snapshot"));
        for args in [
            vec!["check", file],
            vec!["run", file, "--ticks", "5"],
            vec![
                "run",
                file,
                "--json",
                "--snapshot-out",
                snapshot.to_str().unwrap(),
            ],
            vec![
                "render",
                file,
                "--out",
                png.to_str().unwrap(),
                "--ticks",
                "5",
            ],
        ] {
            let out = cohort(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                err.contains(fragment),
                "{args:?}: expected {fragment:?} in {err}"
            );
            assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
        }
        assert!(!png.exists(), "{name}: a PNG was written");
        assert!(!snapshot.exists(), "{name}: a snapshot was written");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
