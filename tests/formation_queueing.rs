//! Queueing, measured: a formation that catches up with a slower one ahead of it keeps a gap
//! behind it, and of two formations whose paths merge, one waits for the other, instead of
//! either pressing into the other's ranks. Each scenario runs with a 2 m gap and with
//! queueing off (`follow_gap` 0) to show what it prevents; the first also with the default
//! gap, 1 m.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{
    FormationId, FormationSettings, FormationSpec, FormationStatus, Member, Order, UnitId, World,
    WorldSettings,
};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 30.0;
const RADIUS: f32 = 0.5;
/// The gap queueing keeps in these scenarios (1 m by default).
const QUEUE_GAP: f32 = 2.0;

/// A 4 × 4 box of 16 units of top speed `speed` at `at` facing +x, every unit on its slot.
fn add_box(world: &mut World, at: Vec2, speed: f32, follow_gap: f32) -> (FormationId, Vec<UnitId>) {
    let f = world
        .add_formation(
            FormationSpec {
                pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
                settings: FormationSettings {
                    follow_gap,
                    ..FormationSettings::default()
                },
                ..FormationSpec::default()
            },
            None,
            at,
            Vec2::X,
        )
        .expect("formation");
    let mut units = Vec::new();
    for k in 0..16 {
        let offset = Vec2::new((k / 4) as f32 - 1.5, (k % 4) as f32 - 1.5) * 1.6;
        let body = Body::new(at + offset, RADIUS, speed, 8.0).expect("body");
        let u = world.add_unit(body).expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
        units.push(u);
    }
    (f, units)
}

/// What a run measured: the worst slot error of any unit (after the form-up), the closest two units of different
/// formations came (centre to centre), and the tick on which both formations had arrived.
#[derive(Debug)]
struct Outcome {
    worst_slot_error: f32,
    closest: f32,
    arrived: Option<u32>,
}

fn slot_error(world: &World, u: UnitId) -> f32 {
    let unit = world.unit(u).expect("unit");
    unit.slot_target
        .map_or(0.0, |t| (t.position - unit.body.position).length())
}

/// Steps `world` until both formations hold with every unit on its slot (at most `secs`).
fn run(
    world: &mut World,
    a: (FormationId, &[UnitId]),
    b: (FormationId, &[UnitId]),
    secs: f32,
) -> Outcome {
    let mut out = Outcome {
        worst_slot_error: 0.0,
        closest: f32::INFINITY,
        arrived: None,
    };
    for tick in 0..(secs / DT) as u32 {
        world.step(DT);
        // After the first 6 s (the units start near their slots, not on them, and the first
        // re-optimization of the assignment, at 4 s, may still swap a few).
        if tick as f32 * DT >= 6.0 {
            for &u in a.1.iter().chain(b.1) {
                out.worst_slot_error = out.worst_slot_error.max(slot_error(world, u));
            }
        }
        for &u in a.1 {
            let p = world.unit(u).expect("unit").body.position;
            for &v in b.1 {
                let q = world.unit(v).expect("unit").body.position;
                out.closest = out.closest.min((p - q).length());
            }
        }
        let settled = |(f, units): (FormationId, &[UnitId])| {
            world.formation(f).expect("formation").is_holding()
                && units.iter().all(|&u| slot_error(world, u) < RADIUS)
        };
        if settled(a) && settled(b) {
            out.arrived = Some(tick + 1);
            break;
        }
    }
    out
}

/// One box of a two-box scenario: where it starts (facing +x), its units' top speed, and
/// where it is ordered.
struct Leg {
    at: Vec2,
    speed: f32,
    goal: Vec2,
}

impl Leg {
    fn new(at: Vec2, speed: f32, goal: Vec2) -> Self {
        Self { at, speed, goal }
    }
}

/// A box of 16 units.
type BoxOf16 = (FormationId, Vec<UnitId>);

/// A world from (0, 0) to `size` (seed `seed`) with box `a` then box `b`, both keeping
/// `follow_gap`, each ordered to its goal.
fn two_boxes(size: Vec2, seed: u64, follow_gap: f32, a: Leg, b: Leg) -> (World, BoxOf16, BoxOf16) {
    let map = Map::with_bounds(Vec2::ZERO, size);
    let mut world = World::new(map, WorldSettings::default(), seed).expect("world");
    let first = add_box(&mut world, a.at, a.speed, follow_gap);
    let second = add_box(&mut world, b.at, b.speed, follow_gap);
    for (f, goal) in [(first.0, a.goal), (second.0, b.goal)] {
        world.order(f, Order::move_to(goal)).expect("order");
    }
    (world, first, second)
}

/// A box of top speed 3 starts 14 m behind a box of top speed 1.2 on the same track, both
/// ordered 60 m east.
fn catch_up(follow_gap: f32) -> Outcome {
    let (mut world, (a, a_units), (b, b_units)) = two_boxes(
        Vec2::new(160.0, 40.0),
        3,
        follow_gap,
        Leg::new(Vec2::new(10.0, 20.0), 3.0, Vec2::new(70.0, 20.0)),
        Leg::new(Vec2::new(24.0, 20.0), 1.2, Vec2::new(84.0, 20.0)),
    );
    run(&mut world, (a, &a_units), (b, &b_units), 150.0)
}

#[test]
fn a_faster_formation_queues_behind_a_slower_one() {
    let queued = catch_up(QUEUE_GAP);
    let pressed = catch_up(0.0);
    let by_default = catch_up(FormationSettings::default().follow_gap);
    eprintln!(
        "catch up: queued {queued:?}, without queueing {pressed:?}, by default {by_default:?}"
    );
    // Formations queue by default, a metre apart (units of the two 2 m apart, centre to
    // centre, and at most 0.48 m off their slots; 7 m without queueing).
    assert!(by_default.arrived.is_some(), "{by_default:?}");
    assert!(by_default.closest > 2.0 * RADIUS + 0.5, "{by_default:?}");
    assert!(by_default.worst_slot_error < 0.75, "{by_default:?}");
    // Queueing: the ranks never touch and every unit stays near its slot.
    assert!(queued.arrived.is_some(), "{queued:?}");
    assert!(queued.closest > 2.0 * RADIUS + 1.0, "{queued:?}");
    assert!(queued.worst_slot_error < 0.5, "{queued:?}");
    // Without it the faster formation runs into the slower one and breaks its ranks.
    assert!(pressed.closest < queued.closest - 1.0, "{pressed:?}");
    assert!(pressed.worst_slot_error > 2.0, "{pressed:?}");
}

/// Two boxes 24 m apart north–south, ordered to points that put their paths across each
/// other at a shallow angle: they converge side by side.
fn merge(follow_gap: f32) -> Outcome {
    let (mut world, (a, a_units), (b, b_units)) = two_boxes(
        Vec2::new(120.0, 60.0),
        5,
        follow_gap,
        Leg::new(Vec2::new(10.0, 42.0), 3.0, Vec2::new(90.0, 24.0)),
        Leg::new(Vec2::new(10.0, 18.0), 3.0, Vec2::new(90.0, 36.0)),
    );
    run(&mut world, (a, &a_units), (b, &b_units), 150.0)
}

#[test]
fn formations_whose_paths_merge_take_turns() {
    let queued = merge(QUEUE_GAP);
    // Without queueing, right of way (their paths meet at an angle) makes them take turns.
    let turns = merge(0.0);
    eprintln!("merge: queued {queued:?}, by right of way alone {turns:?}");
    for o in [&queued, &turns] {
        assert!(o.arrived.is_some(), "{o:?}");
        assert!(o.closest > 2.0 * RADIUS, "{o:?}");
        assert!(o.worst_slot_error < 0.5, "{o:?}");
    }
}

/// A formation all but standing still on its own (its units crawl at 5 cm/s) is not waited
/// for: the formation behind it passes through it (make way) and arrives.
#[test]
fn a_formation_that_barely_moves_is_passed_not_queued_behind() {
    let (mut world, (a, a_units), (b, b_units)) = two_boxes(
        Vec2::new(160.0, 40.0),
        3,
        QUEUE_GAP,
        Leg::new(Vec2::new(10.0, 20.0), 3.0, Vec2::new(60.0, 20.0)),
        Leg::new(Vec2::new(24.0, 20.0), 0.05, Vec2::new(84.0, 20.0)),
    );
    let mut arrived = None;
    for tick in 0..(90.0 / DT) as u32 {
        world.step(DT);
        let f = world.formation(a).expect("a");
        if f.is_holding() && a_units.iter().all(|&u| slot_error(&world, u) < RADIUS) {
            arrived = Some(tick as f32 * DT);
            break;
        }
    }
    let b_at = world.formation(b).expect("b").anchor.position;
    eprintln!("passing a crawler: arrived after {arrived:?} s, the crawler at {b_at}");
    assert!(arrived.is_some_and(|t| t < 60.0), "{arrived:?}");
    // The crawler is still well short of where `a` went: `a` passed it.
    assert!(b_at.x < 40.0, "{b_at}");
    assert_eq!(b_units.len(), 16);
}

/// Two boxes abreast in neighbouring lanes, 6 m apart centre to centre (their nearest units
/// about 1.6 m apart centre to centre, inside each other's lane margin), the northern one 1 m
/// ahead, both ordered 60 m east on parallel tracks.
fn abreast(follow_gap: f32) -> (Outcome, f32) {
    let (mut world, (a, a_units), (b, b_units)) = two_boxes(
        Vec2::new(120.0, 50.0),
        7,
        follow_gap,
        Leg::new(Vec2::new(10.0, 20.0), 3.0, Vec2::new(70.0, 20.0)),
        Leg::new(Vec2::new(11.0, 26.0), 3.0, Vec2::new(71.0, 26.0)),
    );
    for _ in 0..(5.0 / DT) as u32 {
        world.step(DT);
    }
    let a_after_5s = world.formation(a).expect("a").anchor.position.x - 10.0;
    (
        run(&mut world, (a, &a_units), (b, &b_units), 150.0),
        a_after_5s,
    )
}

/// Side by side is not one behind the other: neighbours in parallel lanes keep marching
/// together (queueing waits only where paths merge), as fast as with queueing off.
#[test]
fn neighbours_in_parallel_lanes_do_not_queue() {
    let (queued, queued_5s) = abreast(QUEUE_GAP);
    let (free, free_5s) = abreast(0.0);
    eprintln!(
        "abreast: queued {queued:?} ({queued_5s} m in 5 s), without queueing {free:?} ({free_5s} m)"
    );
    let (Some(q), Some(f)) = (queued.arrived, free.arrived) else {
        panic!("both runs arrive: {queued:?} {free:?}");
    };
    // The formation 1 m behind its neighbour sets off with it, and both arrive when they
    // would without queueing (tick counts are from the 5 s mark).
    assert!(queued_5s > 0.8 * free_5s, "{queued_5s} against {free_5s}");
    assert!((q as f32) < 1.1 * f as f32 + 1.0 / DT, "{q} against {f}");
    assert!(queued.closest > 2.0 * RADIUS, "{queued:?}");
}

/// A flat formation of `n` units of top speed `speed` in two files at `at`, facing +x, with
/// the default settings, ordered to `goal`.
fn add_files(world: &mut World, at: Vec2, speed: f32, n: usize, goal: Vec2) -> FormationId {
    let f = world
        .add_formation(
            FormationSpec {
                pattern: Pattern::for_radius(PatternKind::TwoAbreast, RADIUS),
                ..FormationSpec::default()
            },
            None,
            at,
            Vec2::X,
        )
        .expect("formation");
    for k in 0..n {
        let offset = Vec2::new(-1.6 * (k / 2) as f32, if k % 2 == 0 { 0.8 } else { -0.8 });
        let body = Body::new(at + offset, RADIUS, speed, 8.0).expect("body");
        let u = world.add_unit(body).expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
    }
    world.order(f, Order::move_to(goal)).expect("order");
    f
}

/// Seconds (of 20) that a fast formation of `n` units, 6 m behind a slow one of `n` on the same
/// track, spent held to the slow one's pace (its status `Waiting`), default settings.
fn seconds_held(n: usize) -> f32 {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(160.0, 40.0));
    let mut world = World::new(map, WorldSettings::default(), 5).expect("world");
    let depth = 1.6 * (n / 2) as f32;
    let fast = add_files(
        &mut world,
        Vec2::new(20.0, 20.0),
        3.0,
        n,
        Vec2::new(140.0, 20.0),
    );
    let _slow = add_files(
        &mut world,
        Vec2::new(26.0 + depth, 20.0),
        1.0,
        n,
        Vec2::new(150.0, 20.0),
    );
    let mut held = 0.0;
    for _ in 0..(20.0 / DT) as u32 {
        world.step(DT);
        if world.formation_status(fast) == Ok(FormationStatus::Waiting) {
            held += DT;
        }
    }
    held
}

/// A group of 8 queues behind a slower one ahead of it; a group of 4, like a single unit, does
/// not: it slips past by avoidance (in a dense crowd of small groups, queues chain into a
/// standstill; `docs/performance.md`, "Queueing").
#[test]
fn small_groups_do_not_queue() {
    let (eight, four) = (seconds_held(8), seconds_held(4));
    eprintln!("held to the pace of the one ahead: groups of 8 {eight} s, of 4 {four} s");
    assert!(eight > 5.0, "{eight}");
    assert_eq!(four, 0.0);
}
