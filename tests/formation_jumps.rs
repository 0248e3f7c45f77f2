//! Jumping in the world: formations plan through jump links and gaps their units can make,
//! members take off at the jump point, fly, land on a free spot of the pad and run on; units
//! that cannot jump stop at the edge.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::{
    JumpLink, JumpSource, JumpableGap, LandingPad, Map, PolygonObstacle, TakeOff,
};
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 30.0;

/// A 40 m tall map split by a 2 m ditch at x = 44..46 with one jump link across it.
fn ditch_map() -> Map {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 40.0));
    map.polygons.push(PolygonObstacle {
        points: vec![
            Vec2::new(44.0, 0.0),
            Vec2::new(46.0, 0.0),
            Vec2::new(46.0, 40.0),
            Vec2::new(44.0, 40.0),
        ],
    });
    map.jump_links.push(JumpLink {
        takeoff: Vec2::new(43.0, 20.0),
        takeoff_height: 0.0,
        pad: LandingPad {
            center: Vec2::new(47.0, 20.0),
            radius: 1.2,
            height: 0.0,
        },
        velocity: TakeOff::Predicted,
    });
    map
}

/// A map with a 2 m wide gap (a region units cannot walk but can leap) across it.
fn gap_map() -> Map {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 40.0));
    map.gaps.push(JumpableGap {
        points: vec![
            Vec2::new(44.0, 0.0),
            Vec2::new(46.0, 0.0),
            Vec2::new(46.0, 40.0),
            Vec2::new(44.0, 40.0),
        ],
    });
    map
}

fn squad(map: Map, n: usize, jump_speed: f32) -> (World, FormationId, Vec<UnitId>) {
    let mut world = World::new(map, WorldSettings::default(), 11).expect("world");
    let start = Vec2::new(20.0, 20.0);
    let f = world
        .add_formation(
            FormationSpec {
                pattern: Pattern::for_radius(PatternKind::Column, 0.5),
                ..FormationSpec::default()
            },
            None,
            start,
            Vec2::X,
        )
        .expect("formation");
    let mut units = Vec::new();
    for i in 0..n {
        let p = start - Vec2::new(i as f32 * 1.6, 0.0);
        let u = world
            .add_unit(Body::new(p, 0.5, 3.0, 8.0).unwrap())
            .unwrap();
        world.set_unit_jump_speed(u, jump_speed).unwrap();
        world.add_member(f, Member::Unit(u)).unwrap();
        units.push(u);
    }
    (world, f, units)
}

/// Steps until the formation holds at its goal with everyone at the slot, or `max` ticks.
/// Returns the ticks taken and the jumps seen; checks the invariants every tick.
fn run(world: &mut World, f: FormationId, units: &[UnitId], max: u32) -> (u32, Vec<JumpSource>) {
    let mut jumps = Vec::new();
    for tick in 0..max {
        world.step(DT);
        jumps.extend(world.jump_events().iter().map(|(_, e)| e.source));
        let grounded: Vec<Vec2> = units
            .iter()
            .filter_map(|&u| world.unit(u))
            .filter(|u| !u.is_airborne())
            .map(|u| u.body.position)
            .collect();
        for (i, a) in grounded.iter().enumerate() {
            assert!(a.is_finite());
            // Nobody on the ground stands in the ditch.
            assert!(
                !(44.0 + 0.45..=46.0 - 0.45).contains(&a.x),
                "tick {tick}: a grounded unit at {a} is in the ditch"
            );
            for b in &grounded[i + 1..] {
                let d = (*a - *b).length();
                assert!(d > 0.95 * 1.0, "tick {tick}: units {d} apart");
            }
        }
        let settled = world.formation(f).unwrap().is_holding()
            && units.iter().all(|&u| {
                let unit = world.unit(u).unwrap();
                unit.slot_target
                    .is_some_and(|t| (t.position - unit.body.position).length() < 0.5)
            });
        if settled {
            return (tick, jumps);
        }
    }
    (max, jumps)
}

#[test]
fn a_squad_of_jumpers_crosses_a_ditch_by_its_jump_link() {
    let (mut world, f, units) = squad(ditch_map(), 6, 7.0);
    world
        .order(f, Order::move_to(Vec2::new(75.0, 20.0)))
        .unwrap();
    let (ticks, jumps) = run(&mut world, f, &units, 3000);
    assert!(ticks < 3000, "did not settle: {ticks} ticks");
    assert_eq!(jumps.len(), 6, "each member jumps exactly once: {jumps:?}");
    assert!(jumps.iter().all(|&s| s == JumpSource::Link(0)));
    for &u in &units {
        assert!(world.unit(u).unwrap().body.position.x > 70.0);
    }
    // The crossing costs the squad little: 55 m at cruise speed (0.75 × 3) is 24 s; with the
    // queue at the jump point it stays under 40 s.
    assert!(f64::from(ticks) * f64::from(DT) < 40.0, "{ticks} ticks");
}

#[test]
fn a_squad_that_cannot_jump_stops_at_the_edge() {
    let (mut world, f, units) = squad(ditch_map(), 6, 0.0);
    world
        .order(f, Order::move_to(Vec2::new(75.0, 20.0)))
        .unwrap();
    let (_, jumps) = run(&mut world, f, &units, 1500);
    assert!(jumps.is_empty());
    for &u in &units {
        let x = world.unit(u).unwrap().body.position.x;
        assert!(x < 44.0, "unit at x = {x} crossed without jumping");
    }
    // The anchor went to the reachable point closest to the goal, at the near edge.
    let anchor = world.formation(f).unwrap().anchor.position;
    assert!(anchor.x > 40.0 && anchor.x < 44.0, "anchor at {anchor}");
}

#[test]
fn a_squad_leaps_a_gap_and_too_weak_a_jump_is_not_taken() {
    let (mut world, f, units) = squad(gap_map(), 4, 7.0);
    world
        .order(f, Order::move_to(Vec2::new(75.0, 20.0)))
        .unwrap();
    let (ticks, jumps) = run(&mut world, f, &units, 3000);
    assert!(ticks < 3000, "did not settle: {ticks} ticks");
    assert!(jumps.len() >= 4, "{jumps:?}");
    assert!(jumps.iter().all(|s| matches!(s, JumpSource::Gap(0))));
    // A jump speed of 1 m/s keeps a unit in the air 0.2 s: 0.6 m at most, not enough.
    let (mut world, f, units) = squad(gap_map(), 4, 1.0);
    world
        .order(f, Order::move_to(Vec2::new(75.0, 20.0)))
        .unwrap();
    let (_, jumps) = run(&mut world, f, &units, 900);
    assert!(jumps.is_empty());
    assert!(
        units
            .iter()
            .all(|&u| world.unit(u).unwrap().body.position.x < 44.0)
    );
}

#[test]
fn a_snapshot_taken_mid_flight_steps_on_identically() {
    let (mut world, f, _) = squad(ditch_map(), 6, 7.0);
    world
        .order(f, Order::move_to(Vec2::new(75.0, 20.0)))
        .unwrap();
    // Step until somebody is in the air.
    let mut ticks = 0;
    while world.units().all(|(_, u)| !u.is_airborne()) {
        world.step(DT);
        ticks += 1;
        assert!(ticks < 2000, "nobody jumped");
    }
    let saved = world.to_snapshot().unwrap();
    let mut restored = World::from_snapshot(&saved).unwrap();
    assert!(restored.units().any(|(_, u)| u.is_airborne()));
    for _ in 0..300 {
        world.step(DT);
        restored.step(DT);
    }
    assert_eq!(world.state_hash(), restored.state_hash());
}
