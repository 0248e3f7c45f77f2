//! Every bundled scenario, run through the library to its end, with its measured outcome.

use std::path::PathBuf;

use cohort_demos::Report;
use cohort_demos::runner::{Runner, load_runner};

fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.ron"))
}

fn runner(name: &str) -> Runner {
    load_runner(&scenario(name), None, false).unwrap_or_else(|e| panic!("{e}"))
}

fn run(name: &str) -> Report {
    let mut r = runner(name);
    r.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    let report = r.report();
    eprintln!("{name}: {}", report.to_json());
    report
}

/// Checks that hold for every scenario: nothing non-finite, nobody inside an obstacle.
fn sane(r: &Report) {
    assert_eq!(r.non_finite, 0, "{r:?}");
    assert_eq!(r.penetrations, 0, "{r:?}");
}

#[test]
fn open_field_march_ends_in_its_slots_without_overlaps() {
    let r = run("open_field");
    sane(&r);
    assert_eq!(r.units, 12);
    // Radius 0.5: the criterion is a max slot error below one unit radius.
    assert!(r.max_slot_error < 0.5, "{r:?}");
    assert_eq!(r.overlaps, 0);
    assert_eq!(r.arrived, 12);
    assert_eq!(r.stuck, 0);
    // 55 m at three quarters of 3 m/s is 24.4 s; allow the start and the settle.
    let t = r.time_to_arrive.expect("everyone arrived");
    assert!((24.0..34.0).contains(&t), "{t}");
    // A straight march: barely longer than the straight line, and no spinning.
    assert!(r.path_ratio.unwrap() < 1.05, "{r:?}");
    assert!(r.max_turn_rate < 1.0, "{r:?}");
}

#[test]
fn obstacle_course_is_crossed_without_touching_an_obstacle() {
    let r = run("obstacle_course");
    sane(&r);
    assert_eq!(r.overlaps, 0);
    assert_eq!(r.arrived, 9);
    assert_eq!(r.stuck, 0);
    // It had to go around things, but not far.
    let ratio = r.path_ratio.unwrap();
    assert!((1.0..1.4).contains(&ratio), "{ratio}");
}

#[test]
fn narrow_passage_switches_to_a_column_and_back() {
    let mut run = runner("narrow_passage");
    let mut column_ticks = 0;
    while run.tick() < run.duration() {
        run.step().unwrap();
        if run.world().formations().any(|(_, f)| f.in_column) {
            column_ticks += 1;
        }
    }
    let r = run.report();
    sane(&r);
    // The 4 m gap is narrower than the 12-wide line (about 17 m): a column for a while...
    assert!(column_ticks > 60, "in column for {column_ticks} ticks");
    // ...and the line again at the end.
    assert!(run.world().formations().all(|(_, f)| !f.in_column));
    assert_eq!(r.arrived, 12);
    assert!(r.max_slot_error < 0.5, "{r:?}");
    assert_eq!(r.overlaps, 0);
}

#[test]
fn casualties_close_ranks_and_the_rest_arrive() {
    let r = run("casualties");
    sane(&r);
    assert_eq!(r.units, 12, "16 minus 4 killed");
    assert_eq!(r.arrived, 12);
    assert!(r.max_slot_error < 0.5, "{r:?}");
    assert_eq!(r.overlaps, 0);
}

#[test]
fn platoon_of_squads_of_fire_teams_moves_together() {
    let r = run("platoon");
    sane(&r);
    assert_eq!(r.units, 32);
    assert_eq!(r.overlaps, 0);
    assert!(r.path_ratio.unwrap() < 1.3, "{r:?}");
    // Members stay with their slots on average (nested slots move with three anchors).
    assert!(r.mean_slot_error < 0.5, "{r:?}");
    // The platoon settles: it leaves its narrow-passage column at the goal, the squads' and
    // fire teams' anchors settle on their slots, and every unit ends within its radius.
    assert_eq!(r.arrived, 32, "{r:?}");
    assert_eq!(r.stuck, 0, "{r:?}");
    assert!(r.max_slot_error < 0.5, "{r:?}");
}

#[test]
fn army_of_two_thousand_arrives_without_overlaps() {
    let r = run("army");
    sane(&r);
    assert_eq!(r.units, 2000);
    assert_eq!(r.overlaps, 0);
    assert_eq!(r.arrived, 2000);
    assert!(r.max_slot_error < 0.5, "{r:?}");
}

#[test]
fn playbook_players_end_on_their_marks() {
    let r = run("playbook");
    sane(&r);
    assert_eq!(r.arrived, 4);
    assert_eq!(r.overlaps, 0);
    assert!(r.time_to_arrive.is_some());
}

#[test]
fn overwatch_teams_bound_between_cover_lines() {
    let mut run = runner("overwatch");
    // Before the last bound, at every tick after the first bound's end, one team is stationary.
    let mut both_moving = 0;
    while run.tick() < run.duration() {
        run.step().unwrap();
        let moving = run
            .world()
            .formations()
            .filter(|(_, f)| !f.is_holding())
            .count();
        if run.tick() > 420 && moving > 1 {
            both_moving += 1;
        }
    }
    let r = run.report();
    sane(&r);
    assert_eq!(both_moving, 0, "both teams moved at once");
    assert_eq!(r.overlaps, 0);
    assert_eq!(r.arrived, 8);
}

#[test]
fn jump_scenario_runs_cleanly() {
    // Every member walks to the take-off point, flies the ditch and runs on to its slot: all
    // six arrive, nobody lands on anybody, nobody ends up in the ditch.
    let r = run("jump");
    sane(&r);
    assert_eq!(r.units, 6);
    assert_eq!(r.arrived, 6, "{r:?}");
    assert_eq!(r.overlaps, 0);
    assert_eq!(r.penetrations, 0);
    assert!(r.max_slot_error < 0.5, "{r:?}");
}
