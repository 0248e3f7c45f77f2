//! Behaviour tests of whole formations: a 48-unit platoon (4 squads of 2 fire teams) crossing a
//! map with obstacles, measured every tick.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{
    AnchorMode, FormationId, FormationSettings, FormationSpec, Member, Order, UnitId, World,
    WorldSettings,
};
use cohort::pathing::Map;
use cohort::steering::{Body, CircleObstacle, Vec2};

const DT: f32 = 1.0 / 30.0;
const RADIUS: f32 = 0.5;

fn map_with_trees() -> Map {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(160.0, 80.0));
    for (x, y, r) in [
        (50.0, 40.0, 3.0),
        (70.0, 30.0, 2.0),
        (75.0, 52.0, 2.5),
        (95.0, 40.0, 4.0),
        (60.0, 60.0, 1.5),
        (85.0, 22.0, 1.5),
    ] {
        map.circles
            .push(CircleObstacle::new(Vec2::new(x, y), r).expect("valid obstacle"));
    }
    map
}

fn pattern(kind: PatternKind, spacing: f32) -> Pattern {
    Pattern {
        spacing,
        ..Pattern::for_radius(kind, RADIUS)
    }
}

struct Platoon {
    world: World,
    root: FormationId,
    units: Vec<UnitId>,
}

fn platoon(mode: AnchorMode) -> Platoon {
    let mut world = World::new(map_with_trees(), WorldSettings::default(), 7).expect("world");
    let start = Vec2::new(20.0, 40.0);
    let settings = FormationSettings {
        anchor_mode: mode,
        ..FormationSettings::default()
    };
    let root = world
        .add_formation(
            FormationSpec {
                name: "platoon".into(),
                pattern: pattern(PatternKind::Box, 9.0),
                settings: settings.clone(),
                ..FormationSpec::default()
            },
            None,
            start,
            Vec2::X,
        )
        .expect("platoon");
    let mut units = Vec::new();
    for s in 0..4 {
        let squad = world
            .add_formation(
                FormationSpec {
                    name: format!("squad {s}"),
                    pattern: pattern(PatternKind::Column, 3.2),
                    ..FormationSpec::default()
                },
                Some(root),
                start,
                Vec2::X,
            )
            .expect("squad");
        for t in 0..2 {
            let team = world
                .add_formation(
                    FormationSpec {
                        name: format!("team {s}.{t}"),
                        pattern: pattern(PatternKind::Wedge, 1.6),
                        ..FormationSpec::default()
                    },
                    Some(squad),
                    start,
                    Vec2::X,
                )
                .expect("team");
            for k in 0..6 {
                let p = start
                    + Vec2::new(
                        -(k as f32) * 1.3 - t as f32 * 8.0,
                        (s as f32 - 1.5) * 8.0 + (k % 2) as f32,
                    );
                let body = Body::new(p, RADIUS, 3.0, 8.0).expect("body");
                let u = world.add_unit(body).expect("unit");
                world.add_member(team, Member::Unit(u)).expect("member");
                units.push(u);
            }
        }
    }
    Platoon { world, root, units }
}

#[derive(Debug, Default)]
struct Measured {
    worst_overlap: f32,
    deepest_in_obstacle: f32,
    final_max_slot_error: f32,
    ticks: u32,
}

fn run(p: &mut Platoon, goal: Vec2, max_ticks: u32) -> Measured {
    let mut m = Measured::default();
    p.world.order(p.root, Order::move_to(goal)).expect("order");
    let obstacles = p.world.map().circles.clone();
    for tick in 0..max_ticks {
        p.world.step(DT);
        m.ticks = tick + 1;
        let bodies: Vec<Body> = p
            .units
            .iter()
            .map(|&u| p.world.unit(u).unwrap().body)
            .collect();
        for (i, a) in bodies.iter().enumerate() {
            for b in &bodies[i + 1..] {
                let sum = a.radius + b.radius;
                let depth = (sum - (a.position - b.position).length()) / sum;
                m.worst_overlap = m.worst_overlap.max(depth);
            }
            for o in &obstacles {
                m.deepest_in_obstacle = m
                    .deepest_in_obstacle
                    .max(-(o.signed_distance(a.position) - a.radius));
            }
        }
        let holding = p.world.formation(p.root).unwrap().is_holding();
        if holding && tick > 60 {
            let err = slot_errors(p).fold(0.0, f32::max);
            if err < RADIUS {
                m.final_max_slot_error = err;
                return m;
            }
        }
    }
    m.final_max_slot_error = slot_errors(p).fold(0.0, f32::max);
    m
}

fn slot_errors(p: &Platoon) -> impl Iterator<Item = f32> + '_ {
    p.units.iter().map(|&u| {
        let unit = p.world.unit(u).unwrap();
        unit.slot_target.map_or(f32::INFINITY, |t| {
            (t.position - unit.body.position).length()
        })
    })
}

#[test]
fn platoon_crosses_obstacle_field_in_formation() {
    let mut p = platoon(AnchorMode::PseudoCharacter);
    let goal = Vec2::new(135.0, 40.0);
    let m = run(&mut p, goal, 30 * 120);
    eprintln!("{m:?}");
    let anchor = p.world.formation(p.root).unwrap().anchor.position;
    assert!((anchor - goal).length() < 0.5, "anchor ended at {anchor}");
    assert!(m.final_max_slot_error < RADIUS, "{m:?}");
    assert!(m.worst_overlap <= 0.05, "{m:?}");
    assert!(m.deepest_in_obstacle <= 0.01, "{m:?}");
}

#[test]
fn platoon_run_is_bit_identical() {
    let goal = Vec2::new(135.0, 40.0);
    let mut a = platoon(AnchorMode::PseudoCharacter);
    let mut b = platoon(AnchorMode::PseudoCharacter);
    for p in [&mut a, &mut b] {
        p.world.order(p.root, Order::move_to(goal)).unwrap();
        for _ in 0..600 {
            p.world.step(DT);
        }
    }
    assert_eq!(a.world.state_hash(), b.world.state_hash());
    assert_eq!(
        a.world.to_snapshot().unwrap(),
        b.world.to_snapshot().unwrap()
    );
}

#[test]
fn snapshot_restore_steps_on_identically() {
    let goal = Vec2::new(135.0, 40.0);
    let mut a = platoon(AnchorMode::PseudoCharacter);
    a.world.order(a.root, Order::move_to(goal)).unwrap();
    for _ in 0..100 {
        a.world.step(DT);
    }
    let saved = a.world.to_snapshot().unwrap();
    let mut b = World::from_snapshot(&saved).expect("restore");
    for _ in 0..100 {
        a.world.step(DT);
        b.step(DT);
    }
    assert_eq!(a.world.state_hash(), b.state_hash());
}
