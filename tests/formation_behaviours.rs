//! Formation behaviours measured in small scenarios: narrow passages, standing still without
//! drift or spin, and casualties mid-move.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2, Wall};

const DT: f32 = 1.0 / 30.0;

fn squad(map: Map, kind: PatternKind, n: usize, start: Vec2) -> (World, FormationId, Vec<UnitId>) {
    let mut world = World::new(map, WorldSettings::default(), 3).expect("world");
    let f = world
        .add_formation(
            FormationSpec {
                pattern: Pattern::for_radius(kind, 0.5),
                ..FormationSpec::default()
            },
            None,
            start,
            Vec2::X,
        )
        .expect("formation");
    let mut units = Vec::new();
    for i in 0..n {
        let p = start + Vec2::new(-((i / 4) as f32) * 1.6, (i % 4) as f32 * 1.6 - 2.4);
        let u = world
            .add_unit(Body::new(p, 0.5, 3.0, 8.0).unwrap())
            .unwrap();
        world.add_member(f, Member::Unit(u)).unwrap();
        units.push(u);
    }
    (world, f, units)
}

fn max_slot_error(world: &World, units: &[UnitId]) -> f32 {
    units
        .iter()
        .map(|&u| {
            let unit = world.unit(u).unwrap();
            unit.slot_target.map_or(f32::INFINITY, |t| {
                (t.position - unit.body.position).length()
            })
        })
        .fold(0.0, f32::max)
}

/// A 12-wide line meets a wall with a 4-unit gap: it becomes a column before the gap, goes
/// through without anyone crossing the wall, and is a line again at the goal.
#[test]
fn line_switches_to_column_through_a_narrow_gap() {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(120.0, 60.0));
    // A wall across the map at x = 60 with a gap from y = 28 to y = 32.
    map.walls
        .push(Wall::new(Vec2::new(60.0, 0.0), Vec2::new(60.0, 28.0)).unwrap());
    map.walls
        .push(Wall::new(Vec2::new(60.0, 32.0), Vec2::new(60.0, 60.0)).unwrap());
    let (mut world, f, units) = squad(map, PatternKind::Line, 12, Vec2::new(20.0, 30.0));
    world
        .order(f, Order::move_to(Vec2::new(100.0, 30.0)))
        .unwrap();
    let mut was_column = false;
    let mut crossed_wall = 0;
    let mut prev: Vec<Vec2> = units
        .iter()
        .map(|&u| world.unit(u).unwrap().body.position)
        .collect();
    for _ in 0..30 * 150 {
        world.step(DT);
        was_column |= world.formation(f).unwrap().in_column;
        for (i, &u) in units.iter().enumerate() {
            let p = world.unit(u).unwrap().body.position;
            let went_through = (prev[i].x < 60.0) != (p.x < 60.0);
            let y = 0.5 * (prev[i].y + p.y);
            if went_through && !(28.0..=32.0).contains(&y) {
                crossed_wall += 1;
            }
            prev[i] = p;
        }
        if world.formation(f).unwrap().is_holding() && max_slot_error(&world, &units) < 0.5 {
            break;
        }
    }
    let form = world.formation(f).unwrap();
    assert!(was_column, "never switched to a column");
    assert!(!form.in_column, "still a column at the goal");
    assert_eq!(crossed_wall, 0);
    assert!((form.anchor.position - Vec2::new(100.0, 30.0)).length() < 0.5);
    assert!(
        max_slot_error(&world, &units) < 0.5,
        "{}",
        max_slot_error(&world, &units)
    );
}

/// A standing formation whose members are jostled holds its anchor and orientation: the
/// drift correction (anchor = average of occupied slots) keeps it from drifting or spinning.
#[test]
fn standing_formation_neither_drifts_nor_spins() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(60.0, 60.0));
    let (mut world, f, units) = squad(map, PatternKind::DefensiveCircle, 10, Vec2::new(30.0, 30.0));
    for _ in 0..90 {
        world.step(DT);
    }
    let before = world.formation(f).unwrap().anchor;
    // Jostle: shove every unit sideways, again and again.
    for round in 0..20 {
        for (i, &u) in units.iter().enumerate() {
            let v = world.unit(u).unwrap().body.velocity;
            let s = if (i + round) % 2 == 0 { 1.0 } else { -1.0 };
            world
                .set_unit_velocity(u, v + Vec2::new(0.7 * s, 0.4))
                .unwrap();
        }
        for _ in 0..15 {
            world.step(DT);
        }
    }
    for _ in 0..150 {
        world.step(DT);
    }
    let after = world.formation(f).unwrap().anchor;
    assert!(
        (after.position - before.position).length() < 1e-3,
        "drifted {before:?} -> {after:?}"
    );
    assert!(after.orientation.dot(before.orientation) > 0.99999, "spun");
    assert!(max_slot_error(&world, &units) < 0.5);
}

/// Killing half the squad mid-move: the survivors are reassigned to the smaller layout, nobody
/// is dropped, and all of them arrive.
#[test]
fn casualties_mid_move_are_reassigned_and_survivors_arrive() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 60.0));
    let (mut world, f, units) = squad(map, PatternKind::Wedge, 12, Vec2::new(15.0, 30.0));
    world
        .order(f, Order::move_to(Vec2::new(80.0, 30.0)))
        .unwrap();
    for _ in 0..300 {
        world.step(DT);
    }
    for &u in units.iter().step_by(2) {
        assert!(world.remove_unit(u).is_some());
    }
    let survivors: Vec<UnitId> = units.iter().skip(1).step_by(2).copied().collect();
    assert_eq!(world.formation(f).unwrap().members.len(), survivors.len());
    for _ in 0..30 * 60 {
        world.step(DT);
        if world.formation(f).unwrap().is_holding() && max_slot_error(&world, &survivors) < 0.5 {
            break;
        }
    }
    assert_eq!(world.formation(f).unwrap().slots().len(), survivors.len());
    assert!(max_slot_error(&world, &survivors) < 0.5);
    for &u in &survivors {
        assert_eq!(world.unit(u).unwrap().formation, Some(f));
    }
}

/// A bad pattern makes no order: it is refused with a reason when the order is made, never
/// silently ignored later; a valid one given with a move is the formation's pattern once the
/// order takes effect.
#[test]
fn order_with_bad_pattern_is_refused() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(40.0, 40.0));
    let (mut world, f, _) = squad(map, PatternKind::Line, 3, Vec2::new(20.0, 20.0));
    let bad = Pattern {
        spacing: f32::NAN,
        ..Pattern::for_radius(PatternKind::Wedge, 0.5)
    };
    let e = Order::change_pattern(bad.clone()).unwrap_err();
    assert!(e.to_string().contains("spacing"), "{e}");
    assert!(bad.validate().is_err());
    let wedge = Pattern::for_radius(PatternKind::Wedge, 0.5);
    let mv = Order::MoveTo {
        goal: Vec2::new(30.0, 20.0),
        facing: None,
        pattern: Some(wedge.validate().expect("valid")),
        at_slowest: true,
    };
    world.order(f, mv).expect("order");
    world.step(1.0 / 30.0);
    let now = world.formation(f).expect("formation").pattern().pattern();
    assert_eq!(*now, wedge);
}
