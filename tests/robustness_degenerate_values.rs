//! Bad and extreme values given to the `World`: time steps of zero, NaN or huge length,
//! patterns without slots, NaN and infinite bodies and orders, unknown ids, bad settings and
//! snapshots, bodies and tuning at the edges of what validation accepts. Each test states the
//! defined behaviour it checks; `docs/robustness.md` lists them all.

mod robustness_support;

use cohort::formation::pattern::{Pattern, PatternKind, Role, Slot, ValidPattern};
use cohort::formation::world::{MAX_STEP, MAX_SUBSTEPS};
use cohort::formation::{FormationSpec, Member, Order, World, WorldError, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, CircleObstacle, Vec2};
use robustness_support::{add_units, body, check_step, spec};

const DT: f32 = 1.0 / 20.0;

fn open_map() -> Map {
    Map::with_bounds(Vec2::ZERO, Vec2::splat(60.0))
}

fn world(map: Map) -> World {
    World::new(map, WorldSettings::default(), 9).expect("world")
}

fn moving_world() -> World {
    let mut w = world(open_map());
    let f = w
        .add_formation(
            spec(PatternKind::Wedge),
            None,
            Vec2::new(10.0, 10.0),
            Vec2::X,
        )
        .unwrap();
    add_units(&mut w, f, 7, |i| Vec2::new(10.0 - i as f32, 10.0));
    w.order(f, Order::move_to(Vec2::new(50.0, 50.0))).unwrap();
    for _ in 0..30 {
        w.step(DT);
    }
    w
}

/// `dt` of 0, negative, NaN or infinite: nothing happens (not even the tick moves).
#[test]
fn zero_negative_and_non_finite_dt_do_nothing() {
    let mut w = moving_world();
    let (hash, tick) = (w.state_hash(), w.tick());
    for dt in [
        0.0,
        -0.0,
        -1.0,
        f32::MIN,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ] {
        w.step(dt);
        assert_eq!(w.tick(), tick, "dt {dt}");
        assert_eq!(w.state_hash(), hash, "dt {dt}");
    }
}

/// A huge `dt` is split into at most `MAX_SUBSTEPS` steps of at most `MAX_STEP` (the rest is
/// dropped); a long `dt` into equal sub-steps; a tiny one is one tick. Speeds stay in limits.
#[test]
fn huge_dt_is_sub_stepped_and_clamped() {
    let mut w = moving_world();
    let t0 = w.tick();
    w.step(1.0e9);
    assert_eq!(w.tick(), t0 + u64::from(MAX_SUBSTEPS));
    check_step(&w).unwrap();
    w.step(3.0 * MAX_STEP);
    assert_eq!(w.tick(), t0 + u64::from(MAX_SUBSTEPS) + 3);
    w.step(1.0e-30);
    assert_eq!(w.tick(), t0 + u64::from(MAX_SUBSTEPS) + 4);
    check_step(&w).unwrap();
    // Stepping with 1e9 is the same as stepping MAX_SUBSTEPS times with MAX_STEP.
    let mut a = moving_world();
    let mut b = moving_world();
    a.step(1.0e9);
    for _ in 0..MAX_SUBSTEPS {
        b.step(MAX_STEP);
    }
    assert_eq!(a.state_hash(), b.state_hash());
}

/// A pattern with no slots, or with NaN or zero values, is refused wherever it is given.
#[test]
fn a_pattern_without_slots_is_refused() {
    let mut w = world(open_map());
    let empty = Pattern {
        kind: PatternKind::Custom(Vec::new()),
        ..Pattern::default()
    };
    let e = w
        .add_formation(
            FormationSpec {
                pattern: empty.clone(),
                ..FormationSpec::default()
            },
            None,
            Vec2::ONE,
            Vec2::X,
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            WorldError::Invalid {
                what: "pattern",
                ..
            }
        ),
        "{e}"
    );
    let f = w
        .add_formation(spec(PatternKind::Line), None, Vec2::ONE, Vec2::X)
        .unwrap();
    // An order holds only a validated pattern: a bad one makes no order, and an order read
    // from text with one in it does not deserialize (so it never reaches the world).
    assert!(Order::change_pattern(empty.clone()).is_err());
    let e = ron::from_str::<Order>("MoveTo(goal: (5.0, 5.0), pattern: Some((kind: Custom([]))))")
        .unwrap_err();
    assert!(e.to_string().contains("at least one slot"), "{e}");
    for spacing in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let p = Pattern {
            spacing,
            ..Pattern::default()
        };
        assert!(ValidPattern::try_from(p).is_err(), "{spacing}");
    }
    let nan_slot = Pattern {
        kind: PatternKind::Custom(vec![Slot::new(Vec2::NAN, Role::Any)]),
        ..Pattern::default()
    };
    assert!(Order::change_pattern(nan_slot).is_err());
    // The same text with a valid pattern is an order the world takes.
    let good = ron::from_str::<Order>("MoveTo(goal: (5.0, 5.0), pattern: Some((kind: Wedge)))")
        .expect("a valid pattern");
    w.order(f, good).expect("a valid order");
}

/// Bad values are refused with an error, never stored: NaN or negative bodies, NaN and
/// infinite orders, zero facings, unknown ids, cycles in the tree; removing twice is `None`.
#[test]
fn bad_values_and_ids_are_refused() {
    let mut w = world(open_map());
    for b in [
        Body::new(Vec2::NAN, 0.5, 3.0, 8.0),
        Body::new(Vec2::ONE, -0.5, 3.0, 8.0),
        Body::new(Vec2::ONE, 0.5, f32::INFINITY, 8.0),
        Body::new(Vec2::ONE, 0.5, 3.0, 0.0),
    ] {
        assert!(b.is_err());
    }
    let bad_body = Body {
        position: Vec2::new(f32::NAN, 1.0),
        ..Body::default()
    };
    assert!(matches!(w.add_unit(bad_body), Err(WorldError::Body(_))));
    assert_eq!(w.unit_count(), 0);
    let f = w
        .add_formation(spec(PatternKind::Line), None, Vec2::ONE, Vec2::X)
        .unwrap();
    let g = w
        .add_formation(spec(PatternKind::Line), Some(f), Vec2::ONE, Vec2::X)
        .unwrap();
    assert!(
        w.add_formation(spec(PatternKind::Line), None, Vec2::NAN, Vec2::X)
            .is_err()
    );
    assert!(
        w.order(f, Order::move_to(Vec2::new(f32::NAN, 0.0)))
            .is_err()
    );
    assert!(
        w.order(f, Order::move_to(Vec2::new(f32::INFINITY, 0.0)))
            .is_err()
    );
    assert!(w.order(f, Order::Face(Vec2::ZERO)).is_err());
    assert!(w.order(f, Order::Face(Vec2::NAN)).is_err());
    assert_eq!(
        w.add_member(g, Member::Formation(f)),
        Err(WorldError::Cycle(f))
    );
    assert_eq!(
        w.add_member(f, Member::Formation(f)),
        Err(WorldError::Cycle(f))
    );
    let u = w.add_unit(body(Vec2::ONE)).unwrap();
    w.add_member(g, Member::Unit(u)).unwrap();
    assert!(w.remove_unit(u).is_some());
    assert!(w.remove_unit(u).is_none());
    assert_eq!(
        w.add_member(f, Member::Unit(u)),
        Err(WorldError::NoSuchUnit(u))
    );
    assert!(w.remove_member(Member::Unit(u)).is_none());
    assert!(w.remove_formation(g).is_some());
    assert!(w.remove_formation(g).is_none());
    assert_eq!(w.order(g, Order::Halt), Err(WorldError::NoSuchFormation(g)));
    assert!(w.formation(f).unwrap().members.is_empty());
    for _ in 0..5 {
        w.step(DT);
        check_step(&w).unwrap();
    }
}

/// World settings with NaN, infinite or absurd values are refused when the world is made.
#[test]
fn bad_world_settings_are_refused() {
    let bad = [
        WorldSettings {
            arrive_time: f32::NAN,
            ..WorldSettings::default()
        },
        WorldSettings {
            separation_weight: f32::INFINITY,
            ..WorldSettings::default()
        },
        WorldSettings {
            grid_cell: -1.0,
            ..WorldSettings::default()
        },
        WorldSettings {
            penetration_iterations: u32::MAX,
            ..WorldSettings::default()
        },
    ];
    for s in bad {
        match World::new(open_map(), s.clone(), 1) {
            Err(WorldError::Invalid { .. }) => {}
            Err(e) => panic!("{s:?}: {e}"),
            Ok(_) => panic!("{s:?} was accepted"),
        }
    }
    let mut spec = spec(PatternKind::Line);
    spec.settings.turn_rate = f32::NAN;
    let mut w = world(open_map());
    assert!(w.add_formation(spec, None, Vec2::ONE, Vec2::X).is_err());
}

/// Snapshots that are truncated, nested without end, or carry NaN bodies are refused.
#[test]
fn bad_snapshots_are_refused() {
    let good = moving_world().to_snapshot().unwrap();
    assert!(World::from_snapshot(&good).is_ok());
    assert!(World::from_snapshot(&good[..good.len() / 2]).is_err());
    assert!(World::from_snapshot("").is_err());
    let deep = "[".repeat(100_000);
    assert!(World::from_snapshot(&deep).is_err());
    // The first unit's position becomes (NaN, inf).
    let units = good.find("units:").expect("units in the snapshot");
    let start = units + good[units..].find("position:(").unwrap() + "position:(".len();
    let end = start + good[start..].find(')').unwrap();
    let mut nan = good.clone();
    nan.replace_range(start..end, "NaN,inf");
    assert!(World::from_snapshot(&nan).is_err());
}

/// Bodies at the extremes of what validation accepts (tiny and huge radii, the largest and
/// smallest speed and force, the lightest and heaviest mass) never produce NaN or infinity, nor exceed their speed.
#[test]
fn extreme_but_valid_bodies_never_produce_nan() {
    let mut w = world(open_map());
    let f = w
        .add_formation(spec(PatternKind::Wedge), None, Vec2::splat(30.0), Vec2::X)
        .unwrap();
    // The edges of the documented ranges (`cohort_steering::limits`).
    let extremes = [
        Body::new(Vec2::splat(30.0), 1.0e-4, 3.0, 8.0),
        Body::new(Vec2::splat(30.0), 1.0e4, 3.0, 8.0),
        Body::new(Vec2::splat(31.0), 0.5, 1.0e4, 1.0e6),
        Body::new(Vec2::splat(29.0), 0.5, 1.0e-6, 1.0e-6),
        Body::new(Vec2::new(29.0, 31.0), 0.5, 1.0e4, 1.0e6),
    ];
    for b in extremes {
        let mut b = b.expect("valid");
        b.mass = 1.0e-6;
        let u = w.add_unit(b).unwrap();
        w.add_member(f, Member::Unit(u)).unwrap();
    }
    let light = Body {
        mass: 1.0e6,
        ..body(Vec2::new(31.0, 29.0))
    };
    let u = w.add_unit(light).unwrap();
    w.add_member(f, Member::Unit(u)).unwrap();
    w.order(f, Order::move_to(Vec2::new(50.0, 10.0))).unwrap();
    for t in 0..300 {
        w.step(DT);
        check_step(&w).unwrap_or_else(|e| panic!("tick {t}: {e}"));
    }
    assert_eq!(w.unit_count(), 6);
    assert_eq!(w.tick(), 300);
    // A formation keeps its slowest member's pace: a member with top speed 1e-6 holds it.
    let anchor = w.formation(f).unwrap().anchor.position;
    assert!((anchor - Vec2::splat(30.0)).length() < 1e-3, "{anchor}");
}

/// Tuning at the edges of what validation accepts (zeros everywhere, a tiny neighbour cell,
/// huge weights) never produces NaN or infinity.
#[test]
fn extreme_but_valid_tuning_never_produces_nan() {
    let settings = [
        WorldSettings {
            arrive_time: 0.0,
            slowing_radius: 0.0,
            separation_weight: 0.0,
            separation_range: 0.0,
            obstacle_weight: 0.0,
            wall_weight: 0.0,
            penetration_iterations: 0,
            grid_cell: 0.0,
            detour_distance: 0.0,
            ..WorldSettings::default()
        },
        WorldSettings {
            separation_weight: 1.0e30,
            obstacle_weight: 1.0e30,
            wall_weight: 1.0e30,
            grid_cell: 1.0e-6,
            penetration_iterations: 64,
            ..WorldSettings::default()
        },
    ];
    for s in settings {
        let mut map = open_map();
        map.circles.push(CircleObstacle {
            center: Vec2::new(30.0, 20.0),
            radius: 3.0,
        });
        let mut w = World::new(map, s.clone(), 4).unwrap();
        let mut fs = spec(PatternKind::Box);
        fs.settings.k_offset = 0.0;
        fs.settings.speed_fraction = 0.0;
        fs.settings.lag_tolerance = 0.0;
        fs.settings.lag_range = 0.0;
        fs.settings.min_speed_factor = 0.0;
        fs.settings.leash = 0.0;
        fs.settings.turn_rate = 0.0;
        fs.settings.arrival_radius = 0.0;
        let f = w
            .add_formation(fs, None, Vec2::new(10.0, 20.0), Vec2::X)
            .unwrap();
        add_units(&mut w, f, 9, |i| {
            Vec2::new(10.0 + (i % 3) as f32, 19.0 + (i / 3) as f32)
        });
        w.order(f, Order::move_to(Vec2::new(50.0, 20.0))).unwrap();
        for t in 0..300 {
            w.step(DT);
            check_step(&w).unwrap_or_else(|e| panic!("{s:?} tick {t}: {e}"));
        }
    }
}
