//! A unit routes around a wall that a straight line to its goal would hit, through the
//! `cohort::pathing` re-export.

use cohort::pathing::{GridSpec, Leg, Map, NavGraph, PathQuery, SearchScratch, find_path};
use cohort::steering::Wall;
use glam::Vec2;

#[test]
fn routes_around_a_wall_a_straight_line_would_hit() {
    // A 50 × 30 field with a wall from the bottom edge up to y = 22 at x = 25.
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(50.0, 30.0));
    map.walls
        .push(Wall::new(Vec2::new(25.0, 0.0), Vec2::new(25.0, 22.0)).unwrap());
    let map = map.validate().unwrap();
    let graph = NavGraph::from_map(&map, &GridSpec::default()).unwrap();
    let (start, goal, radius) = (Vec2::new(10.0, 8.0), Vec2::new(40.0, 8.0), 0.5);

    // The straight line crosses the wall.
    assert!(!map.line_of_sight(start, goal, radius));

    let path = find_path(
        &map,
        &graph,
        &PathQuery::new(start, goal, radius),
        &mut SearchScratch::new(),
    )
    .expect("a route exists over the wall's end");
    assert!(path.reached_goal);
    let points: Vec<Vec2> = path.positions().collect();
    assert_eq!(points.first(), Some(&start));
    assert_eq!(points.last(), Some(&goal));
    // Every leg is walkable for the unit and none crosses the wall.
    for (w, leg) in points.windows(2).zip(&path.waypoints) {
        assert_eq!(leg.leg, Leg::Walk);
        assert!(map.line_of_sight(w[0], w[1], radius), "{w:?}");
    }
    // It goes over the wall's free end (y > 22), and not much longer than the two straight
    // lines through that end.
    assert!(points.iter().any(|p| p.y > 22.0));
    let via_end =
        (Vec2::new(25.0, 22.5) - start).length() + (goal - Vec2::new(25.0, 22.5)).length();
    assert!(
        path.length >= via_end - 0.01 && path.length < via_end * 1.08,
        "{}",
        path.length
    );
    // Smoothed: a few waypoints rather than a staircase of grid cells.
    assert!(points.len() <= 5, "{points:?}");
}

/// Routes round a square block in the middle of a field, going east and going west, with the
/// keep-right surcharge and without: the mean y of the route's points.
fn sides_round_a_block(keep_right: f32) -> (f32, f32) {
    use cohort::pathing::PolygonObstacle;
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(60.0, 60.0));
    map.polygons.push(PolygonObstacle {
        points: vec![
            Vec2::new(20.0, 20.0),
            Vec2::new(40.0, 20.0),
            Vec2::new(40.0, 40.0),
            Vec2::new(20.0, 40.0),
        ],
    });
    let map = map.validate().unwrap();
    let graph = NavGraph::from_map(&map, &GridSpec::default()).unwrap();
    let (west, east) = (Vec2::new(5.0, 30.0), Vec2::new(55.0, 30.0));
    let mut scratch = SearchScratch::new();
    let mut mean_y = |from: Vec2, to: Vec2| {
        let query = PathQuery::new(from, to, 0.5).keeping_right(keep_right);
        let path = find_path(&map, &graph, &query, &mut scratch).expect("a route");
        assert!(path.reached_goal);
        let points: Vec<Vec2> = path.positions().collect();
        points.iter().map(|p| p.y).sum::<f32>() / points.len() as f32
    };
    (mean_y(west, east), mean_y(east, west))
}

#[test]
fn keeping_right_takes_opposite_sides_of_a_block_for_opposite_ways() {
    // Keeping the block on the left: eastwards south of it, westwards north of it.
    let (eastwards, westwards) = sides_round_a_block(0.1);
    assert!(
        eastwards < 30.0,
        "eastwards passes north: mean y {eastwards}"
    );
    assert!(
        westwards > 30.0,
        "westwards passes south: mean y {westwards}"
    );
    // Without the surcharge the two routes are mirror images of one tie-break: the same side.
    let (eastwards, westwards) = sides_round_a_block(0.0);
    assert_eq!(
        eastwards < 30.0,
        westwards < 30.0,
        "{eastwards} {westwards}"
    );
}
