//! Dynamic slots and playbooks run by a World: how closely members follow keyframed slots,
//! reactive slots (built-in and a game's routine), chaining and interrupting plays, and
//! save/restore in the middle of a play.

use cohort::formation::WorldSettings;
use cohort::formation::tactics::{
    Interpolation, Keyframe, Phase, Play, PlayView, Playbook, SlotMotion, SlotPose, SlotRoutine,
    SlotTrack, Tactic, ValidPlaybook, load_playbook,
};
use cohort::formation::{FormationId, FormationSpec, Member, Motion, Order, UnitId, World};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 30.0;

fn book(name: &str) -> ValidPlaybook {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("playbooks")
        .join(format!("{name}.ron"));
    load_playbook(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn world() -> World {
    World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 80.0)),
        WorldSettings::default(),
        11,
    )
    .unwrap()
}

/// A formation called `name` with `n` units on a line at `at`.
fn team(world: &mut World, name: &str, n: usize, at: Vec2) -> (FormationId, Vec<UnitId>) {
    team_at_speed(world, name, n, at, 3.0)
}

/// A formation of `n` units of top speed `speed` (force to match) on a line at `at`.
fn team_at_speed(
    world: &mut World,
    name: &str,
    n: usize,
    at: Vec2,
    speed: f32,
) -> (FormationId, Vec<UnitId>) {
    let f = world
        .add_formation(
            FormationSpec {
                name: name.into(),
                ..FormationSpec::default()
            },
            None,
            at,
            Vec2::X,
        )
        .unwrap();
    let units = (0..n)
        .map(|i| {
            let p = at + Vec2::new(0.0, 2.0 * i as f32 - n as f32);
            let u = world
                .add_unit(Body::new(p, 0.5, speed, 8.0 * speed / 3.0).unwrap())
                .unwrap();
            world.add_member(f, Member::Unit(u)).unwrap();
            u
        })
        .collect();
    (f, units)
}

fn play_of(world: &World, f: FormationId) -> Option<&cohort::formation::tactics::PlayRun> {
    world.tactic(f).and_then(Tactic::as_play)
}

fn run_play(book: &ValidPlaybook, play: &str, origin: Vec2) -> Order {
    Order::RunPlay {
        playbook: book.clone(),
        play: play.into(),
        origin: Some(origin),
        facing: Some(Vec2::X),
    }
}

/// Distance of the unit holding slot `i` from the slot's target this tick.
fn slot_error(world: &World, f: FormationId, i: usize) -> Option<f32> {
    let run = play_of(world, f)?;
    let Member::Unit(u) = run.holder(i)? else {
        return None;
    };
    let t = run.slot_target(i)?;
    Some((world.unit(u)?.body.position - t.position).length())
}

/// A play whose two slots circle the origin on Catmull-Rom tracks at about 2 m/s (two thirds
/// of the units' top speed) for 12 s.
fn circling_book() -> ValidPlaybook {
    let circle = |phase: f32| {
        let keys = (0..=24)
            .map(|k| {
                let t = k as f32 * 0.5;
                // r = 4, angular speed 0.5 rad/s: 2 m/s. cos/sin of multiples of 0.5 rad,
                // tabulated from the exact values (no transcendental calls in a test either).
                let a = 0.5 * t + phase;
                Keyframe {
                    time: t,
                    offset: 4.0 * Vec2::new(cos_table(a), sin_table(a)),
                    facing: None,
                }
            })
            .collect();
        SlotMotion::Track(SlotTrack {
            interpolation: Interpolation::CatmullRom,
            keys,
        })
    };
    Playbook {
        name: "circles".into(),
        description: String::new(),
        plays: vec![Play {
            name: "circle".into(),
            phases: vec![Phase {
                duration: 12.0,
                slots: vec![circle(0.0), circle(std::f32::consts::PI)],
                ..Phase::default()
            }],
            ..Play::default()
        }],
    }
    .validate()
    .unwrap()
}

fn cos_table(a: f32) -> f32 {
    cohort::steering::ops::from_angle(a).x
}

fn sin_table(a: f32) -> f32 {
    cohort::steering::ops::from_angle(a).y
}

#[test]
fn members_keep_pace_with_keyframed_slots() {
    let mut w = world();
    let (f, _) = team(&mut w, "pair", 2, Vec2::new(50.0, 40.0));
    let book = circling_book();
    w.order(f, run_play(&book, "circle", Vec2::new(50.0, 40.0)))
        .unwrap();
    let mut errors = Vec::new();
    let mut slot_speed: f32 = 0.0;
    for tick in 0..(11.5 / DT) as u32 {
        w.step(DT);
        // After 2 s of catching up, measure every tick.
        if tick as f32 * DT > 2.0 {
            for i in 0..2 {
                errors.push(slot_error(&w, f, i).expect("slot held"));
            }
            let t = play_of(&w, f).unwrap().slot_target(0).unwrap();
            slot_speed = slot_speed.max(t.velocity.length());
        }
    }
    let mean = errors.iter().sum::<f32>() / errors.len() as f32;
    let max = errors.iter().copied().fold(0.0, f32::max);
    eprintln!("circling slots: mean error {mean:.3}, max {max:.3}, slot speed {slot_speed:.2}");
    // The slot velocity is the track's derivative: about 2 m/s.
    assert!((1.8..2.2).contains(&slot_speed), "{slot_speed}");
    // With the velocity fed forward, members stay within a fraction of their radius.
    assert!(mean < 0.15, "mean slot error {mean}");
    assert!(max < 0.3, "max slot error {max}");
}

#[test]
fn corner_kick_runners_follow_their_tracks_and_the_play_chains_to_reset() {
    let mut w = world();
    let origin = Vec2::new(40.0, 30.0);
    // Footballers: 7 m/s sprinters (the playbook's tracks are timed for them).
    let (f, _) = team_at_speed(&mut w, "attack", 6, Vec2::new(30.0, 30.0), 7.0);
    let (_, defenders) = team(&mut w, "defence", 2, Vec2::new(46.0, 32.0));
    let book = book("corner_kick");
    w.order(f, run_play(&book, "near_post", origin)).unwrap();
    let mut runner_errors = Vec::new();
    let mut marker_errors = Vec::new();
    let mut chained_at = None;
    let mut finished_at = None;
    for tick in 1..=(16.0 / DT) as u32 {
        w.step(DT);
        let t = tick as f32 * DT;
        match play_of(&w, f) {
            Some(run) if run.play_name() == "near_post" && run.phase() == 1 => {
                // Runners on their tracks (slots 1..=3) once the first second is behind them.
                if run.phase_time() > 1.0 {
                    for i in 1..=3 {
                        runner_errors.push(slot_error(&w, f, i).unwrap());
                    }
                }
                // The marker stands goal-side of defender 0, 1.5 m from him.
                let d = w.unit(defenders[0]).unwrap().body.position;
                let goal = origin + Vec2::new(11.0, 0.0);
                let want = d + (goal - d).normalize() * 1.5;
                let target = run.slot_target(5).unwrap().position;
                marker_errors.push((target - want).length());
            }
            Some(run) if run.play_name() == "reset" => {
                chained_at.get_or_insert(t);
                assert_eq!(run.plays_started(), 2);
            }
            None => {
                finished_at.get_or_insert(t);
            }
            _ => {}
        }
    }
    let mean = runner_errors.iter().sum::<f32>() / runner_errors.len() as f32;
    let max = runner_errors.iter().copied().fold(0.0, f32::max);
    eprintln!(
        "corner runners: mean {mean:.3} max {max:.3}; chained at {chained_at:?}, finished at {finished_at:?}"
    );
    assert!(mean < 0.5, "{mean}");
    // Runners step around the defenders in their way (reciprocal avoidance), off their
    // tracks by up to a couple of metres while they pass.
    assert!(max < 3.0, "{max}");
    // The mark is computed before the defender's own step of the tick: within a tick's
    // movement at top speed (3 m/s, 0.1 m a tick) of the exact goal-side point.
    let marker = marker_errors.iter().copied().fold(0.0, f32::max);
    eprintln!("marker target off by at most {marker:.4}");
    assert!(
        !marker_errors.is_empty() && marker < 0.1,
        "marking target off by {marker}"
    );
    // near_post lasts 2 + 5 s; reset 4 s more.
    let chained = chained_at.expect("chained");
    assert!((chained - 7.0).abs() < 0.1, "{chained}");
    let finished = finished_at.expect("finished");
    assert!((finished - 11.0).abs() < 0.1, "{finished}");
    // Afterwards the formation holds the reset shape: every member within its radius of a
    // reset mark, without drift.
    let marks: Vec<Vec2> = book.play("reset").unwrap().1.phases[0]
        .slots
        .iter()
        .map(|s| match s {
            SlotMotion::Fixed { offset, .. } => origin + *offset,
            _ => unreachable!("reset is fixed"),
        })
        .collect();
    let form = w.formation(f).unwrap();
    assert_eq!(form.motion, Motion::Holding);
    let mut units = Vec::new();
    w.units_in(f, &mut units);
    for u in units {
        let p = w.unit(u).unwrap().body.position;
        let nearest = marks
            .iter()
            .map(|m| (*m - p).length())
            .fold(f32::MAX, f32::min);
        assert!(nearest < 0.5, "unit {p} is {nearest} from its reset mark");
    }
}

#[test]
fn an_order_interrupts_a_play_and_the_formation_goes_on_from_where_it_is() {
    let mut w = world();
    let (f, units) = team(&mut w, "team", 4, Vec2::new(20.0, 40.0));
    let book = book("fire_team_drill");
    w.order(f, run_play(&book, "bound_by_pairs", Vec2::new(20.0, 40.0)))
        .unwrap();
    for _ in 0..(9.0 / DT) as u32 {
        w.step(DT);
    }
    let run = play_of(&w, f).expect("running");
    assert_eq!(run.phase(), 2, "pair B is bounding at 9 s");
    let centre: Vec2 = units
        .iter()
        .map(|&u| w.unit(u).unwrap().body.position)
        .sum::<Vec2>()
        / 4.0;
    // Mid-bound, a move order arrives.
    let goal = Vec2::new(60.0, 20.0);
    w.order(f, Order::move_to(goal)).unwrap();
    w.step(DT);
    assert!(w.tactic(f).is_none(), "the play was interrupted");
    let form = w.formation(f).unwrap();
    assert_eq!(form.motion, Motion::Moving);
    // The move starts where the members were, not at the play's origin.
    assert!(
        (form.path[0] - centre).length() < 0.5,
        "{:?} vs {centre}",
        form.path[0]
    );
    for _ in 0..(40.0 / DT) as u32 {
        w.step(DT);
    }
    let form = w.formation(f).unwrap();
    assert_eq!(form.motion, Motion::Holding);
    assert!((form.anchor.position - goal).length() < 0.3);
    for &u in &units {
        let unit = w.unit(u).unwrap();
        let e = (unit.slot_target.unwrap().position - unit.body.position).length();
        assert!(e < 0.5, "slot error {e}");
    }
    // A play ordered mid-move starts where the anchor is, and the move is dropped.
    w.order(f, Order::move_to(Vec2::new(20.0, 20.0))).unwrap();
    for _ in 0..60 {
        w.step(DT);
    }
    let form = w.formation(f).unwrap();
    assert_eq!(form.motion, Motion::Moving);
    let (anchor, facing) = (form.anchor.position, form.anchor.orientation);
    w.order(
        f,
        Order::RunPlay {
            playbook: book.clone(),
            play: "peel_left".into(),
            origin: None,
            facing: None,
        },
    )
    .unwrap();
    w.step(DT);
    let (o, x) = play_of(&w, f).expect("play started").frame();
    assert!((o - anchor).length() < 1e-4 && (x - facing).length() < 1e-4);
    let form = w.formation(f).unwrap();
    assert!(form.path.is_empty() && form.goal.is_none());
    // A halt interrupts too, and the formation stays put around its members.
    w.order(f, run_play(&book, "peel_left", goal)).unwrap();
    for _ in 0..(3.0 / DT) as u32 {
        w.step(DT);
    }
    assert!(play_of(&w, f).is_some());
    w.order(f, Order::Halt).unwrap();
    w.step(DT);
    assert!(w.tactic(f).is_none());
    assert_eq!(w.formation(f).unwrap().motion, Motion::Holding);
}

/// A game's routine: reactive slot 1 shadows a unit from 2 m behind it (play frame −x).
struct Shadow {
    target: UnitId,
    calls: u32,
}

impl SlotRoutine for Shadow {
    fn slot_target(&mut self, slot: usize, view: &PlayView<'_>) -> Option<SlotPose> {
        self.calls += 1;
        if slot != 1 {
            return None;
        }
        let p = view.to_local(view.world.unit(self.target)?.body.position);
        Some(SlotPose::still(p - Vec2::new(2.0, 0.0), Vec2::X))
    }
}

#[test]
fn a_games_routine_drives_reactive_slots() {
    let mut w = world();
    let (f, _) = team(&mut w, "team", 4, Vec2::new(20.0, 40.0));
    let (runner_f, runner) = team(&mut w, "runner", 1, Vec2::new(30.0, 20.0));
    let book = book("fire_team_drill");
    // peel_left has no reactive slots; bound_by_pairs' slot 0 is reactive in phase 1.
    w.order(f, run_play(&book, "bound_by_pairs", Vec2::new(20.0, 40.0)))
        .unwrap();
    // The play starts with the next step.
    w.step(DT);
    assert!(
        w.drive_play_slots(
            runner_f,
            &mut Shadow {
                target: runner[0],
                calls: 0
            }
        )
        .is_err()
    );
    w.order(runner_f, Order::move_to(Vec2::new(40.0, 20.0)))
        .unwrap();
    let mut routine = Shadow {
        target: runner[0],
        calls: 0,
    };
    let mut errors = Vec::new();
    for _ in 0..(7.0 / DT) as u32 {
        w.drive_play_slots(f, &mut routine).unwrap();
        w.step(DT);
        let run = play_of(&w, f).unwrap();
        if run.phase() == 1 {
            // Slot 0 is the reactive one in this phase; the routine answers only for slot 1,
            // so slot 0 falls back to its built-in Interpose between the ball and the rear.
            let (o, x) = run.frame();
            let ball = run.ball();
            let rear = o + x.rotate(Vec2::new(-10.0, 0.0));
            let want = ball.lerp(rear, 0.6);
            errors.push((run.slot_target(0).unwrap().position - want).length());
        }
    }
    assert!(routine.calls > 0, "the routine was asked");
    assert!(
        !errors.is_empty() && errors.iter().all(|&e| e < 1e-3),
        "{errors:?}"
    );
}

#[test]
fn save_and_restore_mid_play_is_bit_identical() {
    let mut a = world();
    let (f, _) = team(&mut a, "attack", 6, Vec2::new(30.0, 30.0));
    team(&mut a, "defence", 2, Vec2::new(46.0, 32.0));
    let book = book("corner_kick");
    a.order(f, run_play(&book, "short", Vec2::new(40.0, 30.0)))
        .unwrap();
    for _ in 0..100 {
        a.step(DT);
    }
    let snap = a.to_snapshot().unwrap();
    let mut b = World::from_snapshot(&snap).unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
    for _ in 0..200 {
        a.step(DT);
        b.step(DT);
    }
    assert_eq!(a.state_hash(), b.state_hash());
    // The play chained to reset in both.
    assert_eq!(play_of(&b, f).map(|r| r.play_name()), Some("reset"));
}

#[test]
fn a_finished_play_holds_its_last_arrangement_without_drift_or_spin() {
    // The last phase faces everyone to the left (+y): the held pattern must not turn the
    // arrangement when the formation's drift correction averages the slot facings.
    let marks = [
        Vec2::new(2.0, 3.0),
        Vec2::new(-1.0, 0.5),
        Vec2::new(0.5, -2.0),
    ];
    let book = Playbook {
        name: "end".into(),
        description: String::new(),
        plays: vec![Play {
            name: "spread".into(),
            phases: vec![Phase {
                duration: 4.0,
                slots: marks
                    .iter()
                    .map(|&offset| SlotMotion::Fixed {
                        offset,
                        facing: Vec2::Y,
                    })
                    .collect(),
                ..Phase::default()
            }],
            ..Play::default()
        }],
    }
    .validate()
    .unwrap();
    let mut w = world();
    let origin = Vec2::new(40.0, 40.0);
    let (f, units) = team(&mut w, "trio", 3, Vec2::new(38.0, 40.0));
    w.order(f, run_play(&book, "spread", origin)).unwrap();
    for _ in 0..(5.0 / DT) as u32 {
        w.step(DT);
    }
    assert!(w.tactic(f).is_none(), "the play ended after 4 s");
    let at_end: Vec<Vec2> = units
        .iter()
        .map(|&u| w.unit(u).unwrap().body.position)
        .collect();
    for _ in 0..(10.0 / DT) as u32 {
        w.step(DT);
    }
    let mut worst: f32 = 0.0;
    for (&u, start) in units.iter().zip(&at_end) {
        let b = &w.unit(u).unwrap().body;
        let mark = marks
            .iter()
            .map(|m| origin + *m)
            .min_by(|a, c| {
                (*a - b.position)
                    .length()
                    .total_cmp(&(*c - b.position).length())
            })
            .unwrap();
        worst = worst.max((b.position - mark).length());
        assert!((b.position - *start).length() < 0.1, "drifted from {start}");
        // Facing the authored +y.
        assert!(b.heading.dot(Vec2::Y) > 0.95, "{}", b.heading);
    }
    eprintln!("finished play: worst distance from a mark after 10 s holding {worst:.3}");
    assert!(worst < 0.3, "{worst}");
    assert_eq!(w.formation(f).unwrap().motion, Motion::Holding);
}
