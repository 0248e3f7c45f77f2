//! `cohort run` with state hashes every N ticks and snapshots in both formats: what the
//! runner writes it reads back, and paths it cannot write are refused before the run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cohort(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("the cohort binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-snap-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn hash_every_lists_the_hashes_of_every_nth_tick() {
    let v = json(&cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "30",
        "--hash-every",
        "10",
        "--json",
    ]));
    let hashes = v["hashes"].as_array().unwrap();
    let ticks: Vec<u64> = hashes.iter().map(|h| h["tick"].as_u64().unwrap()).collect();
    assert_eq!(ticks, [10, 20, 30]);
    for h in hashes {
        let hex = h["hash"].as_str().unwrap();
        assert!(
            hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit()),
            "{hex}"
        );
    }
    // The last one is the final state's.
    assert_eq!(hashes[2]["hash"], v["state_hash"]);
    let table = cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "4",
        "--hash-every",
        "2",
    ]);
    assert!(
        text(&table.stdout).contains("hash at 4"),
        "{}",
        text(&table.stdout)
    );
    let zero = cohort(&["run", "scenarios/casualties.ron", "--hash-every", "0"]);
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn a_split_run_through_either_format_equals_the_whole_run() {
    let dir = scratch("split");
    let whole = json(&cohort(&[
        "run",
        "scenarios/casualties.ron",
        "--ticks",
        "200",
        "--json",
    ]));
    for name in ["state.ron", "state.bin", "state"] {
        let snap = dir.join(name);
        let snap = snap.to_str().unwrap();
        json(&cohort(&[
            "run",
            "scenarios/casualties.ron",
            "--ticks",
            "100",
            "--snapshot-out",
            snap,
            "--json",
        ]));
        let bytes = std::fs::read(snap).unwrap();
        let body = &bytes[bytes.iter().position(|&b| b == b'\n').unwrap() + 1..];
        // `.ron` is text; any other name is binary.
        assert_eq!(
            body.starts_with(cohort_formation::world::BINARY_MAGIC),
            !name.ends_with(".ron"),
            "{name}"
        );
        let second = json(&cohort(&[
            "run",
            "scenarios/casualties.ron",
            "--ticks",
            "100",
            "--snapshot-in",
            snap,
            "--json",
        ]));
        assert_eq!(second["state_hash"], whole["state_hash"], "{name}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_snapshot_out_path_that_cannot_be_written_is_refused_before_the_run() {
    let dir = scratch("badpath");
    let missing = dir.join("no-such-folder").join("state.bin");
    let cases = [dir.clone(), missing];
    for path in &cases {
        let shown = path.to_str().unwrap();
        let out = cohort(&[
            "run",
            "scenarios/casualties.ron",
            "--ticks",
            "5",
            "--snapshot-out",
            shown,
        ]);
        assert_eq!(out.status.code(), Some(2), "{shown}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains(shown), "the error names the path: {err}");
        assert!(
            out.stdout.is_empty(),
            "nothing was run: {}",
            text(&out.stdout)
        );
    }
    assert!(!cases[1].exists());
    std::fs::remove_dir_all(dir).unwrap();
}
