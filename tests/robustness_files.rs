//! Files a scenario names: inside its asset directories, regular, bounded, never echoed; and
//! `cohort check` accepting only what `cohort run` runs. See "Files a scenario names" in
//! `docs/robustness.md`.

use std::path::{Path, PathBuf};

use cohort_demos::check::check_file;
use cohort_demos::runner::load_runner;
use cohort_demos::scenario::Scenario;

/// A fresh directory `project/scenarios` under the temporary directory, with the bundled
/// playbooks and patterns beside it; returns the scenarios directory.
fn project(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("cohort-files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for sub in ["scenarios", "playbooks", "patterns"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    for (sub, file) in [
        ("playbooks", "fire_team_drill.ron"),
        ("patterns", "wedge.ron"),
    ] {
        std::fs::copy(repo.join(sub).join(file), root.join(sub).join(file)).unwrap();
    }
    root.join("scenarios")
}

fn scenario(order: &str, pattern: &str) -> String {
    format!(
        r#"(
    name: "f", duration: 20,
    formations: [(name: "p", pattern: {pattern}, position: (20.0, 30.0), units: 4)],
    timeline: [(tick: 0, formation: "p", order: {order})],
)"#
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn error(path: &Path) -> String {
    let e = Scenario::load(path).expect_err("refused").to_string();
    // `check` says the same, and never hangs.
    assert_eq!(check_file(path).unwrap_err(), e);
    e
}

#[test]
fn the_bundled_layout_still_loads() {
    let dir = project("bundled");
    let ok = write(
        &dir,
        "ok.ron",
        &scenario(
            r#"RunPlay(playbook: "../playbooks/fire_team_drill.ron", play: "bound_by_pairs")"#,
            r#"File("wedge")"#,
        ),
    );
    Scenario::load(&ok).expect("loads");
    let mut r = load_runner(&ok, None, false).expect("runs");
    r.run(20, |_| {}).expect("runs");
}

#[test]
fn files_outside_the_scenario_directories_are_refused() {
    let dir = project("outside");
    let passwd = write(
        &dir,
        "passwd.ron",
        &scenario(
            r#"RunPlay(playbook: "../../../../../../../../../../etc/passwd", play: "x")"#,
            "Kind(Line)",
        ),
    );
    let e = error(&passwd);
    assert!(e.contains("timeline[0].order.playbook"), "{e}");
    assert!(e.contains("outside"), "{e}");
    assert!(!e.contains("root"), "the file's content is echoed: {e}");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let absolute = format!(
        "File({:?})",
        repo.join("patterns/box").display().to_string()
    );
    let abs = write(&dir, "abs.ron", &scenario("Halt", &absolute));
    let e = error(&abs);
    assert!(e.contains("formations[0].pattern"), "{e}");
}

#[test]
fn devices_and_fifos_are_refused_without_being_read() {
    let dir = project("devices");
    for (name, target) in [("zero", "/dev/zero"), ("stdin", "/dev/stdin")] {
        let p = write(
            &dir,
            &format!("{name}.ron"),
            &scenario(
                &format!(r#"RunPlay(playbook: "{target}", play: "x")"#),
                "Kind(Line)",
            ),
        );
        let e = error(&p);
        assert!(e.contains("timeline[0].order.playbook"), "{e}");
    }
    // A FIFO inside the scenario's own directory: opening it would block.
    let fifo = dir.join("book.ron");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let p = write(
            &dir,
            "fifo.ron",
            &scenario(r#"RunPlay(playbook: "book.ron", play: "x")"#, "Kind(Line)"),
        );
        let e = error(&p);
        assert!(e.contains("not a regular file"), "{e}");
        assert!(check_file(&fifo).is_err());
    }
}

#[test]
fn a_playbook_that_is_not_ron_is_reported_by_position_without_its_text() {
    let dir = project("not-ron");
    write(
        &dir,
        "secret.ron",
        "hunter2:x:0:0:secret-token-value\nmore secret text\n",
    );
    let p = write(
        &dir,
        "s.ron",
        &scenario(
            r#"RunPlay(playbook: "secret.ron", play: "x")"#,
            "Kind(Line)",
        ),
    );
    let e = error(&p);
    assert!(e.contains("secret.ron:1:"), "{e}");
    assert!(!e.contains("hunter2") && !e.contains("secret-token"), "{e}");
}

#[test]
fn check_and_run_agree_on_a_drawn_line() {
    let dir = project("form-along");
    let p = write(
        &dir,
        "line.ron",
        &scenario(
            "FormAlong(points: [(-100000.0, 0.0), (100000.0, 0.0)])",
            "Kind(Line)",
        ),
    );
    let e = check_file(&p).unwrap_err();
    assert!(e.contains("timeline[0].order.points"), "{e}");
    assert!(load_runner(&p, None, false).is_err());
}
