//! Degenerate maps and navigation graphs: units and goals inside obstacles, unreachable goals,
//! disconnected and empty navgraphs, maps with no free point, crevices narrower than a unit,
//! huge maps. Each test states the defined behaviour it checks; `docs/robustness.md` lists them
//! all.

mod robustness_support;

use cohort::formation::pattern::PatternKind;
use cohort::formation::{Order, World, WorldError, WorldSettings};
use cohort::pathing::{Map, NavEdge, NavGraph, NavGraphStorage, NavNode, PolygonObstacle};
use cohort::steering::{CircleObstacle, Vec2, Wall};
use robustness_support::{
    add_units, body, check_step, max_overlap, max_slot_error, run_until, spec, units_in_obstacles,
    valid,
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

/// On a map too big for the neighbour grid at its usual cell size (5000 x 5000 at cell 1.4 is
/// 12.7 M cells, over steering's `MAX_CELLS`), the grid takes coarser cells and units still
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
