//! Hostile path queries: starts and goals outside the bounds, inside obstacles, NaN
//! or infinite; negative, NaN and huge radii and clearances; empty navgraphs. `find_path`
//! returns a path or a typed error, never panics, and every path it returns is finite,
//! starts and ends on free ground, and is the same when asked twice.

use cohort::pathing::{
    GridSpec, Map, NavGraph, NavGraphStorage, PathQuery, PathingError, SearchScratch, ValidMap,
    find_path,
};
use cohort::steering::{CircleObstacle, Vec2, Wall};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

const SIZE: f32 = 40.0;

fn config() -> Config {
    Config {
        cases: 64,
        rng_seed: RngSeed::Fixed(0x0BAD_9A7E),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Coordinates: mostly in the map, some far outside, some not finite.
fn coordinate() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -2.0f32..SIZE + 2.0,
        1 => prop_oneof![Just(-1.0e30f32), Just(1.0e30), Just(f32::MAX)],
        1 => prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)],
    ]
}

fn length() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => 0.0f32..4.0,
        1 => prop_oneof![Just(-1.0f32), Just(1.0e6), Just(f32::NAN), Just(f32::INFINITY)],
    ]
}

fn map() -> impl Strategy<Value = (ValidMap, NavGraph)> {
    let circles = prop::collection::vec(((2.0f32..38.0, 2.0f32..38.0), 0.5f32..5.0), 0..8);
    let walls = prop::collection::vec(
        ((2.0f32..38.0, 2.0f32..38.0), (-9.0f32..9.0, 1.0f32..9.0)),
        0..4,
    );
    (circles, walls).prop_map(|(circles, walls)| {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::splat(SIZE));
        m.circles = circles
            .into_iter()
            .map(|((x, y), radius)| CircleObstacle {
                center: Vec2::new(x, y),
                radius,
            })
            .collect();
        m.walls = walls
            .into_iter()
            .filter_map(|((x, y), (dx, dy))| {
                Wall::new(Vec2::new(x, y), Vec2::new(x + dx, y + dy)).ok()
            })
            .collect();
        let valid = m.validate().expect("valid map");
        let graph = NavGraph::from_map(&valid, &GridSpec::default()).expect("graph");
        (valid, graph)
    })
}

fn check_path(
    map: &ValidMap,
    graph: &NavGraph,
    query: &PathQuery,
    scratch: &mut SearchScratch,
) -> Result<(), TestCaseError> {
    let first = find_path(map, graph, query, scratch);
    let again = find_path(map, graph, query, scratch);
    // Compared as text: errors about NaN input carry the NaN, which is not equal to itself.
    prop_assert_eq!(
        format!("{first:?}"),
        format!("{again:?}"),
        "the same query twice"
    );
    let bad_input = !(query.start.is_finite()
        && query.goal.is_finite()
        && query.radius >= 0.0
        && query.clearance >= 0.0);
    match first {
        Err(e) => {
            if bad_input {
                prop_assert!(
                    matches!(
                        e,
                        PathingError::NonFinite { .. } | PathingError::Negative { .. }
                    ),
                    "{e}"
                );
            }
        }
        Ok(path) => {
            prop_assert!(!bad_input, "{query:?} was accepted");
            prop_assert!(!path.waypoints.is_empty());
            prop_assert!(path.length.is_finite() && path.length >= 0.0);
            for w in &path.waypoints {
                prop_assert!(w.position.is_finite() && w.clearance.is_finite());
            }
            let (a, b) = (
                path.waypoints[0].position,
                path.waypoints[path.waypoints.len() - 1].position,
            );
            let r = query.radius * 0.99;
            prop_assert!(!map.is_blocked(a, r), "path starts blocked at {a}");
            prop_assert!(!map.is_blocked(b, r), "path ends blocked at {b}");
            if path.reached_goal {
                prop_assert!((b - query.goal).length() < 1e-3, "{b} vs {}", query.goal);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Any query on any map: a path or a typed error, never a panic, never NaN.
    #[test]
    fn hostile_queries_give_a_path_or_an_error(
        (map, graph) in map(),
        queries in prop::collection::vec(
            ((coordinate(), coordinate()), (coordinate(), coordinate()), length(), length(), any::<bool>()),
            1..6,
        ),
    ) {
        let mut scratch = SearchScratch::default();
        let empty = NavGraph::from_graph(NavGraphStorage::default()).expect("empty graph");
        for ((sx, sy), (gx, gy), radius, clearance, closest) in queries {
            let mut q = PathQuery::new(Vec2::new(sx, sy), Vec2::new(gx, gy), radius)
                .with_clearance(clearance);
            if closest {
                q = q.or_closest();
            }
            check_path(&map, &graph, &q, &mut scratch)?;
            check_path(&map, &empty, &q, &mut scratch)?;
        }
    }
}
