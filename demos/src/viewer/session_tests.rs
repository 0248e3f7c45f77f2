//! Tests of the session's actions, without a window.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cohort_formation::tactics::Tactic;
use glam::Vec2;

use super::session::{MAX_TICKS_PER_FRAME, Session};
use crate::runner::load_runner;

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(name)
}

fn selected_formation(s: &Session) -> &cohort_formation::Formation {
    s.selected
        .and_then(|f| s.runner.world().formation(f))
        .expect("a formation is selected")
}

#[test]
fn advance_follows_pause_speed_and_the_per_frame_cap() {
    let mut s = Session::open(&scenario("open_field.ron")).expect("opens");
    let dt = s.runner.dt();
    assert_eq!(s.advance(dt * 3.5), 3);
    s.toggle_pause();
    assert_eq!(s.advance(1.0), 0);
    assert_eq!(s.runner.tick(), 3);
    s.single_step();
    assert!(s.paused);
    assert_eq!(s.runner.tick(), 4);
    s.toggle_pause();
    s.change_speed(true);
    s.change_speed(true);
    assert_eq!(s.speed(), 4.0);
    assert_eq!(s.advance(dt * 2.0 + dt * 0.01), 8);
    assert_eq!(s.advance(10.0), MAX_TICKS_PER_FRAME);
    assert_eq!(s.advance(f32::NAN), 0);
    for _ in 0..20 {
        s.change_speed(false);
    }
    assert_eq!(s.speed(), 0.125);
}

#[test]
fn the_viewer_steps_exactly_like_the_headless_runner() {
    let file = scenario("overwatch.ron");
    let mut s = Session::open(&file).expect("opens");
    let first = s
        .runner
        .world()
        .units()
        .next()
        .map(|(_, u)| u.body.position);
    s.pick_at(first.expect("a unit"), 0.0);
    let mut headless = load_runner(&file, None, false).expect("loads");
    for _ in 0..150 {
        s.step_once();
    }
    headless.run(150, |_| {}).expect("runs");
    // Inspecting a unit reads the world and never changes it.
    assert!(s.inspection.is_some());
    assert_eq!(s.runner.world().state_hash(), headless.world().state_hash());
    assert_eq!(s.runner.report().to_json(), headless.report().to_json());
}

#[test]
fn move_order_kill_and_pattern_cycle_reach_the_world() {
    let mut s = Session::open(&scenario("open_field.ron")).expect("opens");
    // Past the timeline's own order at tick 0.
    s.step_once();
    let goal = Vec2::new(30.0, 40.0);
    s.order_move(goal);
    assert!(
        s.notice.as_ref().is_some_and(|n| !n.error),
        "{:?}",
        s.notice
    );
    for _ in 0..1200 {
        s.step_once();
    }
    let f = selected_formation(&s);
    assert!(
        (f.anchor.position - goal).length() < 1.0,
        "anchor at {}",
        f.anchor.position
    );
    let members = f.members.len();
    let units = s.runner.world().unit_count();
    s.kill();
    assert_eq!(s.runner.world().unit_count(), units - 1);
    assert_eq!(selected_formation(&s).members.len(), members - 1);
    for _ in 0..10 {
        s.step_once();
    }
    // Every survivor has a slot again.
    assert!(
        s.runner
            .world()
            .units()
            .all(|(_, u)| u.slot_target.is_some())
    );
    let before = selected_formation(&s).pattern().kind().clone();
    let mut changed = false;
    for _ in 0..s.patterns.patterns.len() {
        s.cycle_pattern();
        s.step_once();
        changed |= *selected_formation(&s).pattern().kind() != before;
    }
    assert!(
        changed,
        "no pattern of the library changed the formation's kind"
    );
}

/// A platoon of two fire teams of four on a map with rubble, and the bundled fire-team
/// playbook beside it, in a fresh directory.
fn platoon_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-view-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scenarios")).expect("dir");
    std::fs::create_dir_all(dir.join("playbooks")).expect("dir");
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../playbooks/fire_team_drill.ron");
    std::fs::copy(book, dir.join("playbooks/fire_team_drill.ron")).expect("copy");
    let text = r#"(
        name: "platoon", seed: 3, duration: 600,
        map: (
            min: (0.0, 0.0), max: (120.0, 60.0),
            circles: [(center: (40.0, 20.0), radius: 1.0), (center: (40.0, 40.0), radius: 1.0),
                      (center: (70.0, 20.0), radius: 1.0), (center: (70.0, 40.0), radius: 1.0)],
            cover_generation: (offset: 1.75, spacing: 2.0),
        ),
        formations: [(
            name: "platoon", position: (10.0, 30.0), facing: (1.0, 0.0),
            children: [
                (name: "alpha", position: (10.0, 20.0), units: 4),
                (name: "bravo", position: (10.0, 40.0), units: 4),
            ],
        )],
    )"#;
    std::fs::write(dir.join("scenarios/platoon.ron"), text).expect("write");
    dir
}

#[test]
fn plays_and_overwatch_start_tactics() {
    let dir = platoon_dir("tactics");
    let mut s = Session::open(&dir.join("scenarios/platoon.ron")).expect("opens");
    assert!(s.playbooks.errors.is_empty(), "{:?}", s.playbooks.errors);
    // No pattern files beside this scenario: P cycles the built-in kinds.
    assert!(s.patterns.patterns.is_empty());
    let platoon_kind = |s: &Session| {
        let f = s.runner.world().formations().next().map(|(id, _)| id);
        f.and_then(|f| s.runner.world().formation(f))
            .map(|f| f.pattern().kind().clone())
    };
    let before = platoon_kind(&s);
    s.selected = s.runner.world().formations().next().map(|(id, _)| id);
    s.cycle_pattern();
    s.cycle_pattern();
    s.step_once();
    assert_ne!(platoon_kind(&s), before);
    assert!(
        s.notice
            .as_ref()
            .is_some_and(|n| n.text.ends_with("pattern Column")),
        "{:?}",
        s.notice
    );
    // Select a fire team of four and run the first play that fits it.
    let team = s
        .runner
        .world()
        .formations()
        .find(|(_, f)| f.parent.is_some() && f.members.len() == 4)
        .map(|(id, _)| id)
        .expect("a team of four");
    s.selected = Some(team);
    s.run_play();
    assert!(
        s.notice.as_ref().is_some_and(|n| !n.error),
        "{:?}",
        s.notice
    );
    s.step_once();
    assert!(matches!(
        s.runner.world().tactic(team),
        Some(Tactic::Play(_))
    ));
    // On a fresh run, the platoon advances by overwatch toward a placed threat.
    let mut s = Session::open(&dir.join("scenarios/platoon.ron")).expect("opens");
    s.selected = Some(team);
    s.select_parent();
    let platoon = s.selected.expect("selected");
    assert_ne!(platoon, team);
    s.place_threat(Vec2::new(115.0, 30.0));
    s.overwatch(Vec2::new(90.0, 30.0));
    assert!(
        s.notice.as_ref().is_some_and(|n| !n.error),
        "{:?}",
        s.notice
    );
    s.step_once();
    let Some(Tactic::Overwatch(o)) = s.runner.world().tactic(platoon) else {
        panic!("no overwatch running");
    };
    assert_eq!(o.threat(), Vec2::new(115.0, 30.0));
    let _ = std::fs::remove_dir_all(&dir);
}

fn touch(path: &Path, text: &str, age: u64) {
    std::fs::write(path, text).expect("write");
    let t = SystemTime::now() + Duration::from_secs(age);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(t))
        .expect("set mtime");
}

#[test]
fn a_broken_file_shows_its_error_and_keeps_the_last_good_run() {
    let dir = std::env::temp_dir().join(format!("cohort-view-reload-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scenarios")).expect("dir");
    std::fs::create_dir_all(dir.join("patterns")).expect("dir");
    let good = std::fs::read_to_string(scenario("open_field.ron")).expect("read");
    let file = dir.join("scenarios/field.ron");
    touch(&file, &good, 0);
    let mut s = Session::open(&file).expect("opens");
    for _ in 0..10 {
        s.step_once();
    }
    assert!(!s.poll_files().any());
    // A syntax error: the error names file:line:col, the run goes on where it was.
    touch(&file, &good.replacen('(', "(,", 1), 2);
    assert!(s.poll_files().scenario);
    let err = s.load_error.clone().expect("an error");
    assert!(err.contains("field.ron:"), "{err}");
    assert_eq!(s.runner.tick(), 10);
    assert_eq!(s.file_errors(), vec![err]);
    // A broken pattern file is listed, the good pattern still loads.
    touch(&dir.join("patterns/bad.ron"), "(kind: Nope)", 4);
    touch(
        &dir.join("patterns/wedge.ron"),
        "(kind: Wedge, spacing: 2.0)",
        4,
    );
    assert!(s.poll_files().patterns);
    assert_eq!(s.patterns.patterns.len(), 1);
    assert!(s.file_errors().iter().any(|e| e.contains("bad.ron")));
    // Fixed: the scenario restarts from tick 0.
    touch(&file, &good, 6);
    assert!(s.poll_files().scenario);
    assert_eq!(s.load_error, None);
    assert_eq!(s.runner.tick(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
