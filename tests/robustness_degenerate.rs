//! Degenerate and hostile input to the `World`: empty and single-unit formations,
//! clumps, units and goals inside obstacles, unreachable goals, disconnected and empty
//! navgraphs, bad time steps, bad patterns, bad values. Each test states the defined
//! behaviour it checks; `docs/robustness.md` lists them all.

mod robustness_support;

use cohort::formation::pattern::{Pattern, PatternKind, Role, Slot};
use cohort::formation::world::{MAX_STEP, MAX_SUBSTEPS};
use cohort::formation::{FormationSpec, Member, Order, World, WorldError, WorldSettings};
use cohort::pathing::{Map, NavEdge, NavGraph, NavGraphStorage, NavNode, PolygonObstacle};
use cohort::steering::{Body, CircleObstacle, Vec2, Wall};
use robustness_support::{
    add_units, body, check_step, max_free_overlap, max_overlap, max_slot_error, run_until, spec,
    units_in_obstacles, valid,
};

const DT: f32 = 1.0 / 20.0;

fn open_map() -> Map {
    Map::with_bounds(Vec2::ZERO, Vec2::splat(60.0))
}

fn world(map: Map) -> World {
    World::new(map, WorldSettings::default(), 9).expect("world")
}

/// A formation is done when it holds and every unit is within `tol` of its slot.
fn settled(f: cohort::formation::FormationId, tol: f32) -> impl FnMut(&World) -> bool {
    move |w: &World| w.formation(f).is_some_and(|x| x.is_holding()) && max_slot_error(w, f) < tol
}

#[test]
fn an_empty_world_steps_and_hashes_the_same_every_time() {
    let mut a = world(open_map());
    let mut b = world(open_map());
    for _ in 0..10 {
        a.step(DT);
        b.step(DT);
    }
    assert_eq!(a.tick(), 10);
    assert_eq!(a.state_hash(), b.state_hash());
    check_step(&a).unwrap();
}

/// Zero units: an empty formation takes orders but has no pace (its slowest member's speed
/// is 0), so it waits; units that join later carry the order out.
#[test]
fn an_empty_formation_waits_for_members_then_arrives() {
    let mut w = world(open_map());
    let start = Vec2::new(10.0, 10.0);
    let f = w
        .add_formation(spec(PatternKind::Line), None, start, Vec2::X)
        .unwrap();
    w.order(f, Order::move_to(Vec2::new(40.0, 30.0))).unwrap();
    for _ in 0..100 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    let anchor = w.formation(f).unwrap().anchor.position;
    assert!((anchor - start).length() < 1e-3, "{anchor}");
    assert!(w.formation(f).unwrap().slots().is_empty());
    add_units(&mut w, f, 4, |i| start + Vec2::new(0.0, i as f32 * 1.5));
    let ticks = run_until(&mut w, DT, 1200, settled(f, 0.5)).unwrap();
    let anchor = w.formation(f).unwrap().anchor.position;
    assert!(
        (anchor - Vec2::new(40.0, 30.0)).length() < 0.3,
        "{anchor} after {ticks}"
    );
}

#[test]
fn a_single_unit_formation_arrives() {
    let mut w = world(open_map());
    let f = w
        .add_formation(spec(PatternKind::Wedge), None, Vec2::new(5.0, 5.0), Vec2::X)
        .unwrap();
    let u = add_units(&mut w, f, 1, |_| Vec2::new(5.0, 5.0))[0];
    w.order(f, Order::move_to(Vec2::new(50.0, 45.0))).unwrap();
    run_until(&mut w, DT, 1200, settled(f, 0.3)).unwrap();
    let p = w.unit(u).unwrap().body.position;
    assert!((p - Vec2::new(50.0, 45.0)).length() < 0.3, "{p}");
}

fn clump(kind: PatternKind) -> (World, cohort::formation::FormationId) {
    let mut w = world(Map::with_bounds(Vec2::ZERO, Vec2::splat(120.0)));
    let at = Vec2::new(20.0, 20.0);
    let f = w.add_formation(spec(kind), None, at, Vec2::X).unwrap();
    add_units(&mut w, f, 30, |_| at);
    for _ in 0..20 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    (w, f)
}

/// Thirty units spawned on exactly one point are split apart (deterministic split
/// directions) within a second, whatever the pattern.
#[test]
fn units_all_at_one_point_separate_within_a_second() {
    for kind in [
        PatternKind::Box,
        PatternKind::Line,
        PatternKind::DefensiveCircle,
    ] {
        let (w, _) = clump(kind.clone());
        let overlap = max_overlap(&w);
        assert!(overlap < 0.05, "{kind:?}: overlap {overlap} after 20 ticks");
        assert_eq!(w.unit_count(), 30);
    }
}

/// The clump then marches to a goal: every unit must reach its slot.
#[test]
fn units_all_at_one_point_then_arrive_in_formation() {
    for kind in [PatternKind::Box, PatternKind::Wedge] {
        let (mut w, f) = clump(kind.clone());
        w.order(f, Order::move_to(Vec2::new(60.0, 50.0))).unwrap();
        let r = run_until(&mut w, DT, 2400, settled(f, 0.5));
        assert!(
            r.is_ok(),
            "{kind:?}: {r:?}, slot error {}",
            max_slot_error(&w, f)
        );
        assert!(max_overlap(&w) < 0.05);
    }
}

/// A unit spawned inside an obstacle is placed at the nearest free point: straight out of a
/// circle along the radius (along +x from the exact centre), out of a box through its
/// nearest side, off a wall to the side it was on.
#[test]
fn units_spawned_inside_obstacles_are_pushed_to_the_nearest_free_point() {
    let mut map = open_map();
    map.circles.push(CircleObstacle {
        center: Vec2::new(20.0, 20.0),
        radius: 3.0,
    });
    map.polygons.push(PolygonObstacle {
        points: vec![
            Vec2::new(40.0, 10.0),
            Vec2::new(44.0, 10.0),
            Vec2::new(44.0, 14.0),
            Vec2::new(40.0, 14.0),
        ],
    });
    map.walls
        .push(Wall::new(Vec2::new(10.0, 40.0), Vec2::new(30.0, 40.0)).unwrap());
    let mut w = world(map);
    let mut spawn = |p: Vec2| {
        let id = w.add_unit(body(p)).unwrap();
        w.unit(id).unwrap().body.position
    };
    // Circle: from (21, 20.5) straight out along the radius to distance 3.5.
    let p = spawn(Vec2::new(21.0, 20.5));
    let d = p - Vec2::new(20.0, 20.0);
    assert!((d.length() - 3.5).abs() < 0.01, "{p}");
    assert!(
        d.normalize().dot(Vec2::new(1.0, 0.5).normalize()) > 0.999,
        "{p}"
    );
    // The exact centre: out along +x.
    let p = spawn(Vec2::new(20.0, 20.0));
    assert!((p - Vec2::new(23.5, 20.0)).length() < 0.01, "{p}");
    // Box: (43.5, 12) is nearest the x = 44 side.
    let p = spawn(Vec2::new(43.5, 12.0));
    assert!((p - Vec2::new(44.5, 12.0)).length() < 0.01, "{p}");
    // Wall at y = 40: from (20, 40.2) to y = 40.5.
    let p = spawn(Vec2::new(20.0, 40.2));
    assert!((p - Vec2::new(20.0, 40.5)).length() < 0.01, "{p}");
    // Outside the bounds: clamped in.
    let p = spawn(Vec2::new(-5.0, 70.0));
    assert!((p - Vec2::new(0.5, 59.5)).length() < 0.01, "{p}");
    let map = valid(w.map());
    assert!(units_in_obstacles(&w, &map, 0.0).is_empty());
}

/// A goal inside an obstacle: the formation goes to the reachable point closest to it and
/// holds there, nobody inside the obstacle.
#[test]
fn a_goal_inside_an_obstacle_ends_at_the_closest_reachable_point() {
    let mut map = open_map();
    let rock = CircleObstacle {
        center: Vec2::new(40.0, 30.0),
        radius: 5.0,
    };
    map.circles.push(rock);
    let mut w = world(map);
    let f = w
        .add_formation(
            spec(PatternKind::Wedge),
            None,
            Vec2::new(10.0, 30.0),
            Vec2::X,
        )
        .unwrap();
    add_units(&mut w, f, 6, |i| Vec2::new(10.0 - i as f32, 30.0));
    w.order(f, Order::move_to(rock.center)).unwrap();
    run_until(&mut w, DT, 2400, settled(f, 0.6)).unwrap();
    let anchor = w.formation(f).unwrap().anchor.position;
    let d = (anchor - rock.center).length();
    assert!(
        d > rock.radius && d < rock.radius + 2.0,
        "anchor {anchor} at {d}"
    );
    let map = valid(w.map());
    assert!(units_in_obstacles(&w, &map, 0.05).is_empty());
}

/// A goal inside a closed box of walls cannot be reached: the formation stops at the closest
/// reachable point outside and nobody crosses a wall.
#[test]
fn an_unreachable_goal_ends_outside_the_closed_box() {
    let mut map = open_map();
    let (lo, hi) = (Vec2::new(35.0, 25.0), Vec2::new(45.0, 35.0));
    let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
    for i in 0..4 {
        map.walls
            .push(Wall::new(corners[i], corners[(i + 1) % 4]).unwrap());
    }
    let mut w = world(map);
    let f = w
        .add_formation(
            spec(PatternKind::Line),
            None,
            Vec2::new(10.0, 30.0),
            Vec2::X,
        )
        .unwrap();
    let units = add_units(&mut w, f, 5, |i| Vec2::new(10.0, 27.0 + i as f32 * 1.5));
    w.order(f, Order::move_to(Vec2::new(40.0, 30.0))).unwrap();
    let inside = |p: Vec2| p.x > lo.x && p.x < hi.x && p.y > lo.y && p.y < hi.y;
    for _ in 0..1500 {
        w.step(DT);
        check_step(&w).unwrap();
        for &u in &units {
            let p = w.unit(u).unwrap().body.position;
            assert!(!inside(p), "unit {u:?} got into the box at {p}");
        }
    }
    let fm = w.formation(f).unwrap();
    assert!(fm.is_holding(), "{:?}", fm.motion);
    let d = (fm.anchor.position - Vec2::new(40.0, 30.0)).length();
    assert!(
        d > 5.0 && d < 9.0,
        "anchor {} is {d} from the goal",
        fm.anchor.position
    );
}

/// A wall across the whole map splits the navgraph in two: an order to the far side ends at
/// the wall, nobody crosses it.
#[test]
fn a_disconnected_navgraph_stops_the_formation_at_the_split() {
    let mut map = open_map();
    map.walls
        .push(Wall::new(Vec2::new(30.0, 0.0), Vec2::new(30.0, 60.0)).unwrap());
    let mut w = world(map);
    let f = w
        .add_formation(
            spec(PatternKind::Column),
            None,
            Vec2::new(10.0, 30.0),
            Vec2::X,
        )
        .unwrap();
    let units = add_units(&mut w, f, 4, |i| Vec2::new(10.0 - 1.5 * i as f32, 30.0));
    w.order(f, Order::move_to(Vec2::new(50.0, 30.0))).unwrap();
    for _ in 0..1200 {
        w.step(DT);
        check_step(&w).unwrap();
        for &u in &units {
            let x = w.unit(u).unwrap().body.position.x;
            assert!(x < 30.0, "unit {u:?} crossed the wall: x = {x}");
        }
    }
    let fm = w.formation(f).unwrap();
    assert!(fm.is_holding());
    assert!(fm.anchor.position.x > 25.0, "{}", fm.anchor.position);
}

/// A navgraph replaced by an empty one, or by one of two unlinked nodes: a goal in sight is
/// walked to straight; a goal out of sight (behind a wall) has no path, so the formation stays
/// where it is, is not lost and keeps its units.
#[test]
fn an_empty_or_unlinked_navgraph_leaves_the_formation_in_place() {
    let mut map = open_map();
    map.walls
        .push(Wall::new(Vec2::new(30.0, 5.0), Vec2::new(30.0, 55.0)).unwrap());
    let mut w = world(map);
    let start = Vec2::new(20.0, 30.0);
    let hidden = Vec2::new(45.0, 30.0);
    let f = w
        .add_formation(spec(PatternKind::Line), None, start, Vec2::X)
        .unwrap();
    add_units(&mut w, f, 3, |i| {
        start + Vec2::new(0.0, 1.5 * i as f32 - 1.5)
    });
    w.set_navgraph(NavGraph::from_graph(NavGraphStorage::default()).unwrap());
    w.order(f, Order::move_to(hidden)).unwrap();
    run_until(&mut w, DT, 400, settled(f, 0.5)).unwrap();
    let a = w.formation(f).unwrap().anchor.position;
    assert!((a - start).length() < 1.0, "{a}");
    let mut g = NavGraphStorage::default();
    for p in [start, hidden] {
        g.add_node(NavNode {
            position: p,
            clearance: 5.0,
        });
    }
    w.set_navgraph(NavGraph::from_graph(g).unwrap());
    w.order(f, Order::move_to(hidden)).unwrap();
    run_until(&mut w, DT, 400, settled(f, 0.5)).unwrap();
    let a = w.formation(f).unwrap().anchor.position;
    assert!((a - start).length() < 1.0, "{a}");
    // In sight, no graph is needed.
    let seen = Vec2::new(20.0, 45.0);
    w.order(f, Order::move_to(seen)).unwrap();
    run_until(&mut w, DT, 1200, settled(f, 0.5)).unwrap();
    let a = w.formation(f).unwrap().anchor.position;
    assert!((a - seen).length() < 0.3, "{a}");
    assert_eq!(w.unit_count(), 3);
    // A navgraph with a NaN node or a negative edge cost is refused when built.
    let mut bad = NavGraphStorage::default();
    bad.add_node(NavNode {
        position: Vec2::NAN,
        clearance: 1.0,
    });
    assert!(NavGraph::from_graph(bad).is_err());
    let mut bad = NavGraphStorage::default();
    let a = bad.add_node(NavNode {
        position: Vec2::ZERO,
        clearance: 1.0,
    });
    let b = bad.add_node(NavNode {
        position: Vec2::ONE,
        clearance: 1.0,
    });
    bad.add_edge(
        a,
        b,
        NavEdge {
            cost: -1.0,
            clearance: 1.0,
            kind: cohort::pathing::EdgeKind::Walk,
        },
    );
    assert!(NavGraph::from_graph(bad).is_err());
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
    assert!(w.order(f, Order::ChangePattern(empty.clone())).is_err());
    let with_empty = Order::MoveTo {
        goal: Vec2::splat(5.0),
        facing: None,
        pattern: Some(empty),
        at_slowest: true,
    };
    assert!(w.order(f, with_empty).is_err());
    for spacing in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let p = Pattern {
            spacing,
            ..Pattern::default()
        };
        assert!(w.order(f, Order::ChangePattern(p)).is_err(), "{spacing}");
    }
    let nan_slot = Pattern {
        kind: PatternKind::Custom(vec![Slot::new(Vec2::NAN, Role::Any)]),
        ..Pattern::default()
    };
    assert!(w.order(f, Order::ChangePattern(nan_slot)).is_err());
}

/// Eleven members in a three-slot custom pattern: the block is repeated behind itself, every
/// member gets its own slot, they arrive without overlapping.
#[test]
fn more_members_than_a_fixed_pattern_has_slots_all_get_slots() {
    let mut w = world(open_map());
    let three = Pattern {
        kind: PatternKind::Custom(vec![
            Slot::new(Vec2::ZERO, Role::Any),
            Slot::new(Vec2::new(0.0, 1.5), Role::Any),
            Slot::new(Vec2::new(0.0, -1.5), Role::Any),
        ]),
        spacing: 1.5,
        unit_radius: 0.5,
    };
    let f = w
        .add_formation(
            FormationSpec {
                pattern: three,
                ..FormationSpec::default()
            },
            None,
            Vec2::new(20.0, 30.0),
            Vec2::X,
        )
        .unwrap();
    add_units(&mut w, f, 11, |i| Vec2::new(10.0, 20.0 + 1.5 * i as f32));
    w.order(f, Order::move_to(Vec2::new(40.0, 30.0))).unwrap();
    run_until(&mut w, DT, 2400, settled(f, 0.5)).unwrap();
    let fm = w.formation(f).unwrap();
    assert_eq!(fm.slots().len(), 11);
    let slots: Vec<Vec2> = (0..11)
        .map(|i| fm.slot_world_position(i).unwrap())
        .collect();
    for (i, a) in slots.iter().enumerate() {
        for b in &slots[i + 1..] {
            assert!((*a - *b).length() >= 1.0 - 1e-4, "slots {a} and {b}");
        }
    }
    assert!(max_overlap(&w) < 0.05);
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

/// Slots laid out beyond the edge of the map: units stay inside the bounds, finite and
/// within speed; those pressed into the edge may squeeze each other (the bounds win), the
/// others do not overlap.
#[test]
fn slots_beyond_the_map_edge_keep_units_in_bounds() {
    let mut w = world(Map::with_bounds(Vec2::ZERO, Vec2::splat(30.0)));
    let f = w
        .add_formation(
            spec(PatternKind::Column),
            None,
            Vec2::new(5.0, 15.0),
            Vec2::X,
        )
        .unwrap();
    add_units(&mut w, f, 24, |i| Vec2::new(5.0, 1.0 + i as f32 * 1.1));
    for _ in 0..200 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    for (_, u) in w.units() {
        let p = u.body.position;
        assert!(p.cmpge(Vec2::splat(0.5 - 1e-4)).all() && p.cmple(Vec2::splat(29.5 + 1e-4)).all());
    }
    let map = valid(w.map());
    let free = max_free_overlap(&w, &map);
    assert!(free < 0.05, "{free}");
    let all = max_overlap(&w);
    assert!(all < 0.35, "{all}");
}

/// A map whose bounds hold no point far enough from every obstacle: a unit is placed where
/// it was asked (there is nowhere better) and the world steps without NaN.
#[test]
fn a_map_with_no_free_point_keeps_units_where_they_are() {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(10.0));
    map.circles.push(CircleObstacle {
        center: Vec2::splat(5.0),
        radius: 20.0,
    });
    let mut w = world(map);
    let f = w
        .add_formation(spec(PatternKind::Line), None, Vec2::splat(5.0), Vec2::X)
        .unwrap();
    add_units(&mut w, f, 3, |i| Vec2::new(4.0 + i as f32, 5.0));
    w.order(f, Order::move_to(Vec2::new(8.0, 8.0))).unwrap();
    for _ in 0..100 {
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

/// A clump of six spawned between three rocks, two of which leave a crevice narrower than a
/// unit (0.82 for a 1.0 diameter): nobody may end inside a rock. (The case proptest found in
/// `world_properties.rs`, replayed exactly.)
#[test]
fn a_crevice_narrower_than_a_unit_keeps_it_out_of_the_rocks() {
    let centre = Vec2::new(30.687_576, 47.500_38);
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(80.0));
    for (d, radius) in [
        (Vec2::new(0.693_806_8, 0.150_490_79), 2.477_086_3),
        (Vec2::new(0.014_586_334, -0.122_883_56), 2.546_023_4),
        (Vec2::new(0.542_890_37, 0.954_514_4), 2.122_923),
    ] {
        map.circles.push(CircleObstacle {
            center: centre + d * 8.0,
            radius,
        });
    }
    let mut w = World::new(map, WorldSettings::default(), 0).unwrap();
    let f = w
        .add_formation(spec(PatternKind::Column), None, centre, Vec2::X)
        .unwrap();
    let n = 6;
    add_units(&mut w, f, n, |i| {
        let a = i as f32 * 2.399_963;
        centre + cohort::steering::ops::from_angle(a) * 0.319_637_3 * (i as f32 / n as f32)
    });
    let map = valid(w.map());
    for t in 0..200 {
        w.step(DT);
        check_step(&w).unwrap();
        let inside = units_in_obstacles(&w, &map, 0.05);
        assert!(inside.is_empty(), "tick {t}: inside a rock: {inside:?}");
    }
}

/// Huge maps: bounds of 1e30 are refused (beyond the coordinate range of 1e6); a map a million
/// units wide is built with a bounded navgraph (at most 250 000 nodes) and geometry index.
#[test]
fn huge_maps_are_refused_or_built_within_bounds() {
    let e = World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::splat(1.0e30)),
        WorldSettings::default(),
        1,
    );
    assert!(matches!(e, Err(WorldError::Invalid { what: "map", .. })));
    let w = World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::splat(1.0e6)),
        WorldSettings::default(),
        1,
    )
    .unwrap();
    assert!(w.navgraph().node_count() <= 250_000);
}

/// On a map too big for the neighbour grid (5000 x 5000 at cell 1.4 is 12.7 M cells, over
/// steering's `MAX_CELLS`), the world falls back to brute-force neighbours and units still
/// separate.
#[test]
fn units_separate_on_a_map_too_big_for_the_neighbour_grid() {
    let mut w = World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::splat(5000.0)),
        WorldSettings::default(),
        1,
    )
    .unwrap();
    let f = w
        .add_formation(spec(PatternKind::Box), None, Vec2::splat(100.0), Vec2::X)
        .unwrap();
    add_units(&mut w, f, 12, |_| Vec2::splat(100.0));
    for _ in 0..20 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    let overlap = max_overlap(&w);
    assert!(overlap < 0.05, "overlap {overlap} after 20 ticks");
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
