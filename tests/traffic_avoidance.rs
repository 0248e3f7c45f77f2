//! Reciprocal avoidance in the world's tick: singles meeting head-on and on a circle pass each
//! other without touching, a formation alone steps exactly as without avoidance, the result
//! is the same run after run, a single pushed out of a packed block walks back in, and a
//! single on the wrong side of a corridor crosses to its right half before a crowd coming the
//! other way reaches it.

use cohort::formation::UnitId;
use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 20.0;
const RADIUS: f32 = 0.5;

/// A world of `starts.len()` singles (each a formation of one) on an open 100 m square, each
/// ordered to its goal.
fn singles(starts: &[(Vec2, Vec2)], settings: WorldSettings) -> (World, Vec<UnitId>) {
    let map = Map {
        max: Vec2::splat(100.0),
        ..Map::default()
    };
    let mut world = World::new(map, settings, 7).expect("world");
    let ids = starts
        .iter()
        .map(|&(start, goal)| add_single(&mut world, start, goal, 1.5))
        .collect();
    (world, ids)
}

/// Adds a single (a formation of one unit of [`RADIUS`] and top speed `max_speed`) at `start`,
/// ordered to `goal`; returns its unit.
fn add_single(world: &mut World, start: Vec2, goal: Vec2, max_speed: f32) -> UnitId {
    let facing = (goal - start).normalize_or(Vec2::X);
    let spec = FormationSpec {
        pattern: Pattern::for_radius(PatternKind::Line, RADIUS),
        ..FormationSpec::default()
    };
    let f = world
        .add_formation(spec, None, start, facing)
        .expect("formation");
    let body = Body::new(start, RADIUS, max_speed, 3.0).expect("body");
    let u = world.add_unit(body).expect("unit");
    world.add_member(f, Member::Unit(u)).expect("member");
    world.order(f, Order::move_to(goal)).expect("order");
    u
}

/// Steps until every unit is within its radius of `goals` (or `limit` seconds); returns the
/// time taken, if all arrived, and the deepest overlap of any pair on the way (a fraction of
/// the sum of radii).
fn run(world: &mut World, ids: &[UnitId], goals: &[Vec2], limit: f32) -> (Option<f32>, f32) {
    let mut deepest: f32 = 0.0;
    for tick in 0..(limit / DT) as u32 {
        world.step(DT);
        let at: Vec<Vec2> = ids
            .iter()
            .map(|&u| world.unit(u).expect("alive").body.position)
            .collect();
        for (i, a) in at.iter().enumerate() {
            for b in &at[i + 1..] {
                let depth = (2.0 * RADIUS - (*a - *b).length()) / (2.0 * RADIUS);
                deepest = deepest.max(depth);
            }
        }
        if at
            .iter()
            .zip(goals)
            .all(|(p, g)| (*p - *g).length() < RADIUS)
        {
            return (Some((tick + 1) as f32 * DT), deepest);
        }
    }
    (None, deepest)
}

fn avoidance_off() -> WorldSettings {
    let mut s = WorldSettings::default();
    s.avoidance.enabled = false;
    s
}

/// Two singles exactly head-on pass each other on their right and arrive, never touching.
#[test]
fn singles_meeting_head_on_pass_without_touching() {
    let (a, b) = (Vec2::new(30.0, 50.0), Vec2::new(70.0, 50.0));
    let (mut world, ids) = singles(&[(a, b), (b, a)], WorldSettings::default());
    let (arrived, deepest) = run(&mut world, &ids, &[b, a], 80.0);
    eprintln!("head-on: arrived after {arrived:?} s, deepest overlap {deepest}");
    // 40 m at 1.5 m/s is 27 s in the open.
    assert!(arrived.is_some_and(|t| t < 45.0), "{arrived:?}");
    assert!(deepest <= 0.0, "{deepest}");
}

/// Sixteen singles on a circle, each walking to its antipode: with avoidance they all arrive
/// without overlapping by more than 5 % of their radii; without it they crush in the middle.
#[test]
fn a_circle_of_singles_swaps_without_a_crush() {
    let n = 16;
    let centre = Vec2::splat(50.0);
    let starts: Vec<(Vec2, Vec2)> = (0..n)
        .map(|i| {
            let a = i as f32 / n as f32 * std::f32::consts::TAU;
            let at = centre + cohort::steering::ops::from_angle(a) * 15.0;
            (at, 2.0 * centre - at)
        })
        .collect();
    let goals: Vec<Vec2> = starts.iter().map(|s| s.1).collect();
    let (mut world, ids) = singles(&starts, WorldSettings::default());
    let (arrived, deepest) = run(&mut world, &ids, &goals, 120.0);
    let (mut plain, plain_ids) = singles(&starts, avoidance_off());
    let (_, plain_deepest) = run(&mut plain, &plain_ids, &goals, 120.0);
    eprintln!(
        "circle of {n}: arrived after {arrived:?} s, deepest overlap {deepest} \
         (without avoidance {plain_deepest})"
    );
    assert!(arrived.is_some_and(|t| t < 90.0), "{arrived:?}");
    assert!(deepest <= 0.05, "{deepest}");
    assert!(plain_deepest > deepest, "{plain_deepest} vs {deepest}");
}

/// A formation meeting no other one never calls the solver: it steps bit for bit as with
/// avoidance off.
#[test]
fn a_formation_alone_steps_as_without_avoidance() {
    let build = |settings: WorldSettings| -> (World, FormationId) {
        let map = Map {
            max: Vec2::splat(100.0),
            ..Map::default()
        };
        let mut world = World::new(map, settings, 3).expect("world");
        let spec = FormationSpec {
            pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
            ..FormationSpec::default()
        };
        let at = Vec2::new(20.0, 50.0);
        let f = world
            .add_formation(spec, None, at, Vec2::X)
            .expect("formation");
        for i in 0..16 {
            let p = at + Vec2::new((i % 4) as f32, (i / 4) as f32) * 1.5;
            let u = world.add_unit(Body::new(p, RADIUS, 3.0, 6.0).expect("body"));
            world
                .add_member(f, Member::Unit(u.expect("unit")))
                .expect("member");
        }
        world
            .order(f, Order::move_to(Vec2::new(80.0, 50.0)))
            .expect("order");
        (world, f)
    };
    let (mut on, _) = build(WorldSettings::default());
    let (mut off, _) = build(avoidance_off());
    // The settings differ, so compare the units, not the whole state.
    for _ in 0..600 {
        on.step(DT);
        off.step(DT);
    }
    let bodies = |w: &World| w.units().map(|(_, u)| u.body).collect::<Vec<_>>();
    assert_eq!(bodies(&on), bodies(&off));
}

/// The same crowd twice gives the same state, bit for bit.
#[test]
fn avoidance_is_deterministic() {
    let starts: Vec<(Vec2, Vec2)> = (0..12)
        .map(|i| {
            let y = 40.0 + i as f32 * 1.7;
            if i % 2 == 0 {
                (Vec2::new(30.0, y), Vec2::new(70.0, y))
            } else {
                (Vec2::new(70.0, y), Vec2::new(30.0, y))
            }
        })
        .collect();
    let hash = || {
        let (mut w, _) = singles(&starts, WorldSettings::default());
        for _ in 0..400 {
            w.step(DT);
        }
        w.state_hash()
    };
    assert_eq!(hash(), hash());
}

/// A unit standing in a packed block of standing units, taken out of the block (as a crowd
/// pushes one out), walks back to its spot through the others, who step aside and return to
/// theirs.
#[test]
fn a_single_pushed_out_of_a_packed_block_walks_back_to_its_spot() {
    let centre = Vec2::splat(50.0);
    let mut starts = Vec::new();
    for i in -3..=3 {
        for j in -3..=3 {
            let spot = centre + Vec2::new(i as f32, j as f32) * 1.5;
            starts.push((spot, spot));
        }
    }
    let (mut world, ids) = singles(&starts, WorldSettings::default());
    let spots: Vec<Vec2> = starts.iter().map(|s| s.1).collect();
    // Everyone stands on their spot.
    for _ in 0..(2.0 / DT) as u32 {
        world.step(DT);
    }
    // The unit in the middle is taken out of the block, 8 m north of its edge.
    let middle = ids[24];
    assert_eq!(spots[24], centre);
    world
        .set_unit_position(middle, centre + Vec2::new(0.0, 12.5))
        .expect("position");
    let (time, _) = run(&mut world, &ids, &spots, 90.0);
    let at = world.unit(middle).expect("alive").body.position;
    assert!(
        time.is_some(),
        "not everyone back on their spot in 90 s: the middle unit at {at} (spot {centre})"
    );
}

/// A single walking east along the north wall of a 12 m corridor (its left side) meets a
/// block of 28 singles walking west across the corridor's whole width. It crosses to the
/// corridor's south half (its right) before the block reaches it, is never swept back by the
/// crowd, and everyone arrives.
#[test]
fn a_single_on_the_wrong_side_of_a_corridor_keeps_right_before_the_crowd_arrives() {
    let wall = |y0: f32, y1: f32| PolygonObstacle {
        points: vec![
            Vec2::new(0.0, y0),
            Vec2::new(100.0, y0),
            Vec2::new(100.0, y1),
            Vec2::new(0.0, y1),
        ],
    };
    let map = Map {
        max: Vec2::new(100.0, 20.0),
        polygons: vec![wall(0.0, 4.0), wall(16.0, 20.0)],
        ..Map::default()
    };
    let mut world = World::new(map, WorldSettings::default(), 7).expect("world");
    let mut ids = Vec::new();
    let mut goals = Vec::new();
    let mut add = |world: &mut World, start: Vec2, goal: Vec2| {
        ids.push(add_single(world, start, goal, 1.3));
        goals.push(goal);
    };
    let lone_start = Vec2::new(10.0, 15.0);
    add(&mut world, lone_start, Vec2::new(85.0, 15.0));
    for rank in 0..4 {
        for file in 0..7 {
            let start = Vec2::new(50.0 + 1.6 * rank as f32, 5.0 + 1.65 * file as f32);
            add(&mut world, start, start - Vec2::new(40.0, 0.0));
        }
    }
    let lone = ids[0];
    let mut furthest = lone_start.x;
    let mut at_meeting = None;
    for _ in 0..(60.0 / DT) as u32 {
        world.step(DT);
        let p = world.unit(lone).expect("alive").body.position;
        furthest = furthest.max(p.x);
        assert!(
            p.x > furthest - 1.0,
            "swept back by the crowd: at {p}, {furthest:.1} m reached before"
        );
        // The crowd's front is level with the lone single (its nearest unit within 3 m of x).
        let front = ids[1..]
            .iter()
            .map(|&u| world.unit(u).expect("alive").body.position.x)
            .fold(f32::INFINITY, f32::min);
        if at_meeting.is_none() && front - p.x < 3.0 {
            at_meeting = Some(p);
        }
    }
    let met = at_meeting.expect("the crowd met the single");
    assert!(
        met.y < 10.0 - RADIUS,
        "the single met the crowd at {met}, not in the corridor's south half"
    );
    let (time, _) = run(&mut world, &ids, &goals, 120.0);
    let at = world.unit(lone).expect("alive").body.position;
    assert!(time.is_some(), "not everyone arrived: the single at {at}");
}
