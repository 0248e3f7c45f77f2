//! Big maps keep their detail: on a 4 km by 4 km map whose only way from south to north is a
//! 2 m gap in a wall across the whole map, the navigation graph still samples the gap every
//! metre (its size follows the obstacles' outlines, not the area), paths go through it, and
//! a squad ordered across walks through it.

mod robustness_support;

use cohort::formation::pattern::PatternKind;
use cohort::formation::{Order, World, WorldSettings};
use cohort::pathing::{Map, PathQuery, PolygonObstacle, SearchScratch, find_path};
use cohort::steering::Vec2;
use robustness_support::{add_units, check_step, spec, units_in_obstacles, valid};

const SIDE: f32 = 4000.0;
/// The wall across the map: 2 m thick, from y = 1999 to 2001.
const WALL: (f32, f32) = (1999.0, 2001.0);
/// The gap in it, 2 m wide (not on a power-of-two boundary of the graph's cells).
const GAP: (f32, f32) = (2717.3, 2719.3);

fn walled_map() -> Map {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(SIDE));
    for (x0, x1) in [(0.0, GAP.0), (GAP.1, SIDE)] {
        map.polygons.push(
            PolygonObstacle::rectangle(Vec2::new(x0, WALL.0), Vec2::new(x1, WALL.1)).unwrap(),
        );
    }
    map
}

fn through_gap(p: Vec2) -> bool {
    (GAP.0..=GAP.1).contains(&p.x)
}

#[test]
fn the_graph_keeps_a_two_metre_gap_on_a_four_kilometre_map() {
    let world = World::new(walled_map(), WorldSettings::default(), 1).unwrap();
    let graph = world.navgraph();
    // One node per metre along both faces of the 4 km wall and per large open cell: a small
    // fraction of the 16 million samples a uniform grid would need.
    assert!(graph.node_count() < 120_000, "{}", graph.node_count());
    assert_eq!(graph.spacing(), 1.0);
    let in_gap = graph
        .graph()
        .node_weights()
        .filter(|n| through_gap(n.position) && (WALL.0..=WALL.1).contains(&n.position.y))
        .count();
    assert!(in_gap >= 2, "{in_gap} nodes in the gap");
    // A path for a man-sized body from far south-west to far north-east goes through it.
    let map = valid(world.map());
    let query = PathQuery::new(Vec2::new(300.0, 400.0), Vec2::new(3700.0, 3600.0), 0.5);
    let path = find_path(&map, graph, &query, &mut SearchScratch::new()).unwrap();
    assert!(path.reached_goal);
    let crossing: Vec<Vec2> = path
        .waypoints
        .windows(2)
        .filter(|w| (w[0].position.y < 2000.0) != (w[1].position.y < 2000.0))
        .map(|w| {
            w[0].position.lerp(
                w[1].position,
                (2000.0 - w[0].position.y) / (w[1].position.y - w[0].position.y),
            )
        })
        .collect();
    assert_eq!(crossing.len(), 1, "{:?}", path.waypoints);
    assert!(through_gap(crossing[0]), "crosses at {:?}", crossing[0]);
    for w in path.waypoints.windows(2) {
        assert!(map.line_of_sight(w[0].position, w[1].position, 0.5));
    }
    // Within a metre or two of the shortest way, straight to the gap and on from it.
    let gap = Vec2::new(0.5 * (GAP.0 + GAP.1), 2000.0);
    let shortest = (gap - query.start).length() + (query.goal - gap).length();
    assert!(
        path.length < shortest + 2.0,
        "{} vs {shortest}",
        path.length
    );
}

#[test]
fn a_squad_walks_through_the_gap() {
    let mut world = World::new(walled_map(), WorldSettings::default(), 3).unwrap();
    let start = Vec2::new(2690.0, 1970.0);
    let goal = Vec2::new(2745.0, 2030.0);
    let squad = world
        .add_formation(spec(PatternKind::Column), None, start, Vec2::Y)
        .unwrap();
    let units = add_units(&mut world, squad, 4, |i| {
        start + Vec2::new(0.0, -1.5 * i as f32)
    });
    world.order(squad, Order::move_to(goal)).unwrap();
    let map = valid(world.map());
    let mut crossed_at = Vec::new();
    let mut last: Vec<Vec2> = units
        .iter()
        .map(|&u| world.unit(u).unwrap().body.position)
        .collect();
    for t in 0..3000 {
        world.step(0.05);
        check_step(&world).unwrap_or_else(|e| panic!("tick {t}: {e}"));
        assert!(
            units_in_obstacles(&world, &map, 0.05).is_empty(),
            "tick {t}"
        );
        for (k, &u) in units.iter().enumerate() {
            let p = world.unit(u).unwrap().body.position;
            if (last[k].y < 2000.0) != (p.y < 2000.0) {
                crossed_at.push(last[k].lerp(p, 0.5));
            }
            last[k] = p;
        }
        if world.formation(squad).unwrap().is_holding()
            && last.iter().all(|p| (*p - goal).length() < 6.0)
        {
            break;
        }
    }
    assert!(
        last.iter()
            .all(|p| p.y > WALL.1 && (*p - goal).length() < 6.0),
        "{last:?}"
    );
    assert_eq!(crossed_at.len(), units.len(), "{crossed_at:?}");
    assert!(
        crossed_at
            .iter()
            .all(|p| p.x > GAP.0 - 0.5 && p.x < GAP.1 + 0.5),
        "{crossed_at:?}"
    );
}
