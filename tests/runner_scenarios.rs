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
    // Members walk at most 35 % further than the straight line. Where the platoon changes
    // pattern (column in the narrow passage and back) several slot assignments are equally
    // cheap, and which one the exact solver returns among ties moves the figure
    // (`cohort run scenarios/platoon.ron`: 1.187; other tie rules give up to 1.305).
    assert!(r.path_ratio.unwrap() < 1.35, "{r:?}");
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

/// The formation called `name`.
fn formation_named(run: &Runner, name: &str) -> cohort_formation::FormationId {
    run.world()
        .formations()
        .find(|(_, f)| f.name == name)
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no formation {name}"))
}

#[test]
fn playbook_plays_chain_runners_keep_to_their_tracks_and_everyone_ends_on_a_mark() {
    use cohort_formation::Member;
    use cohort_formation::tactics::Tactic;
    let mut run = runner("playbook");
    let attack = formation_named(&run, "attack");
    let team = formation_named(&run, "team");
    let mut plays: Vec<String> = Vec::new();
    let mut runner_errors = Vec::new();
    while run.tick() < run.duration() {
        run.step().unwrap();
        let w = run.world();
        let now = match w.tactic(attack).and_then(Tactic::as_play) {
            Some(p) => {
                // The three runners of near_post's delivery (slots 1-3), after a second.
                if p.play_name() == "near_post" && p.phase() == 1 && p.phase_time() > 1.0 {
                    for i in 1..=3 {
                        if let (Some(Member::Unit(u)), Some(t)) = (p.holder(i), p.slot_target(i)) {
                            let pos = w.unit(u).unwrap().body.position;
                            runner_errors.push((pos - t.position).length());
                        }
                    }
                }
                p.play_name().to_owned()
            }
            None => String::from("-"),
        };
        if plays.last() != Some(&now) {
            plays.push(now);
        }
    }
    let r = run.report();
    sane(&r);
    // near_post chains into reset, which ends; the short corner ordered later chains too.
    assert_eq!(
        plays,
        ["near_post", "reset", "-", "short", "reset", "-"],
        "play sequence"
    );
    let mean = runner_errors.iter().sum::<f32>() / runner_errors.len() as f32;
    let max = runner_errors.iter().copied().fold(0.0, f32::max);
    eprintln!("playbook runners: mean slot error {mean:.3}, max {max:.3}");
    // Runners step around the defenders in their way (reciprocal avoidance), off their
    // tracks by up to a couple of metres while they pass.
    assert!(mean < 0.5 && max < 3.0, "mean {mean} max {max}");
    // The fire team ends its drill 12 m forward, on line.
    let w = run.world();
    assert!(w.tactic(team).is_none());
    let mut units = Vec::new();
    w.units_in(team, &mut units);
    for u in units {
        let x = w.unit(u).unwrap().body.position.x;
        assert!((x - 27.0).abs() < 0.5, "{x}");
    }
    // Everybody holds a mark at the end, nobody overlapped.
    assert_eq!(r.arrived, 12);
    assert_eq!(r.overlaps, 0);
    assert!(r.max_slot_error < 0.5, "{r:?}");
}

#[test]
fn overwatch_squads_leapfrog_in_cover_to_the_goal() {
    use cohort_formation::tactics::Tactic;
    let mut run = runner("overwatch");
    let platoon = formation_named(&run, "platoon");
    let threat = glam::Vec2::new(135.0, 30.0);
    let squads = [
        formation_named(&run, "alpha"),
        formation_named(&run, "bravo"),
    ];
    // Distance from a point to the nearest cover point covered from the threat.
    let to_cover = |w: &cohort_formation::World, p: glam::Vec2| {
        let map = w.valid_map();
        map.cover_points()
            .iter()
            .filter(|c| map.is_covered(c, threat))
            .map(|c| (c.position - p).length())
            .fold(f32::INFINITY, f32::min)
    };
    let mut bounds_seen = 0;
    let mut first_bound_done = false;
    let mut exposed = 0;
    let mut checked = 0;
    let mut finished_at = None;
    while run.tick() < run.duration() {
        run.step().unwrap();
        let w = run.world();
        let ow = w
            .tactic(platoon)
            .and_then(Tactic::as_overwatch)
            .expect("the advance runs to its end");
        let members = |s: cohort_formation::FormationId| {
            let mut us = Vec::new();
            w.units_in(s, &mut us);
            us
        };
        while bounds_seen < ow.bounds().len() {
            let b = ow.bounds()[bounds_seen];
            assert!(!b.timed_out);
            for u in members(squads[b.squad]) {
                let d = to_cover(w, w.unit(u).unwrap().body.position);
                assert!(d < 0.4, "bound {bounds_seen} ended {d} m from cover");
            }
            bounds_seen += 1;
            first_bound_done = true;
        }
        if first_bound_done && !ow.is_finished() {
            checked += 1;
            let in_cover = squads.iter().any(|&s| {
                members(s).iter().all(|&u| {
                    let b = &w.unit(u).unwrap().body;
                    to_cover(w, b.position) < 0.5 && b.velocity.length() < 0.5
                })
            });
            exposed += usize::from(!in_cover);
        }
        if ow.is_finished() {
            finished_at.get_or_insert(run.tick());
        }
    }
    let r = run.report();
    sane(&r);
    eprintln!(
        "overwatch: {bounds_seen} bounds, {checked} ticks checked, finished at {finished_at:?}"
    );
    assert_eq!(
        bounds_seen, 5,
        "alpha, bravo, alpha, bravo to the goal, alpha to the goal"
    );
    assert!(checked > 1000);
    assert_eq!(exposed, 0, "ticks with no squad stationary in cover");
    assert!(finished_at.is_some(), "the advance reached the goal");
    assert_eq!(r.arrived, 8);
    assert_eq!(r.overlaps, 0);
    assert_eq!(r.stuck, 0);
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
