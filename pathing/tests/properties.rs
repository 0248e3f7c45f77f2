//! Property tests on random maps, checked against brute-force geometry that does not use the
//! crate's broad phase: smoothed paths never cut through an obstacle, and the map queries agree
//! with a scan of every shape.

use cohort_pathing::{
    GridSpec, Leg, Map, NavGraph, PathQuery, PolygonObstacle, SearchScratch, ValidMap, find_path,
};
use cohort_steering::geometry::{closest_point_on_segment, segment_intersection};
use cohort_steering::{CircleObstacle, Wall};
use glam::Vec2;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

const SIZE: f32 = 40.0;

fn config() -> Config {
    Config {
        cases: 48,
        rng_seed: RngSeed::Fixed(0x5EED_CAFE),
        failure_persistence: None,
        ..Config::default()
    }
}

fn point() -> impl Strategy<Value = Vec2> {
    (1.0f32..SIZE - 1.0, 1.0f32..SIZE - 1.0).prop_map(|(x, y)| Vec2::new(x, y))
}

fn random_map() -> impl Strategy<Value = Map> {
    let circles = prop::collection::vec((point(), 0.5f32..3.0), 0..8);
    // Triangles and rectangles: a corner, then sizes.
    let polygons = prop::collection::vec((point(), 1.0f32..6.0, 1.0f32..6.0, any::<bool>()), 0..5);
    let walls = prop::collection::vec((point(), -8.0f32..8.0, -8.0f32..8.0), 0..4);
    (circles, polygons, walls).prop_map(|(circles, polygons, walls)| {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::splat(SIZE));
        m.circles = circles
            .into_iter()
            .map(|(center, radius)| CircleObstacle { center, radius })
            .collect();
        m.polygons = polygons
            .into_iter()
            .map(|(c, w, h, triangle)| {
                let points = if triangle {
                    vec![c, c + Vec2::new(w, 0.0), c + Vec2::new(w * 0.3, h)]
                } else {
                    vec![
                        c,
                        c + Vec2::new(w, 0.0),
                        c + Vec2::new(w, h),
                        c + Vec2::new(0.0, h),
                    ]
                };
                PolygonObstacle { points }
            })
            .collect();
        m.walls = walls
            .into_iter()
            .filter_map(|(a, dx, dy)| Wall::new(a, a + Vec2::new(dx, dy)).ok())
            .collect();
        m
    })
}

fn inside(points: &[Vec2], p: Vec2) -> bool {
    let mut c = false;
    for i in 0..points.len() {
        let (a, b) = (points[i], points[(i + 1) % points.len()]);
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            c = !c;
        }
    }
    c
}

fn seg_seg(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> f32 {
    if segment_intersection(a0, a1, b0, b1).is_some() {
        return 0.0;
    }
    [
        (a0 - closest_point_on_segment(a0, b0, b1)).length(),
        (a1 - closest_point_on_segment(a1, b0, b1)).length(),
        (b0 - closest_point_on_segment(b0, a0, a1)).length(),
        (b1 - closest_point_on_segment(b1, a0, a1)).length(),
    ]
    .into_iter()
    .fold(f32::INFINITY, f32::min)
}

/// Distance from the segment to the nearest obstacle or wall, scanning every shape (0 when it
/// touches or enters one).
fn brute_segment_distance(m: &Map, a: Vec2, b: Vec2) -> f32 {
    let mut best = f32::INFINITY;
    for c in &m.circles {
        let q = closest_point_on_segment(c.center, a, b);
        best = best.min(((q - c.center).length() - c.radius).max(0.0));
    }
    for p in &m.polygons {
        if inside(&p.points, a) {
            return 0.0;
        }
        for i in 0..p.points.len() {
            best = best.min(seg_seg(
                a,
                b,
                p.points[i],
                p.points[(i + 1) % p.points.len()],
            ));
        }
    }
    for w in &m.walls {
        best = best.min(seg_seg(a, b, w.from, w.to));
    }
    best
}

fn brute_clearance(m: &Map, p: Vec2) -> f32 {
    let bounds = (p - m.min).min(m.max - p).min_element();
    bounds.min(brute_segment_distance(m, p, p)).max(0.0)
}

fn valid(m: Map) -> Option<ValidMap> {
    // Random polygons may be degenerate; those maps are skipped.
    m.validate().ok()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn smoothed_paths_never_cut_through_obstacles(m in random_map(), a in point(), b in point()) {
        let Some(map) = valid(m.clone()) else { return Ok(()) };
        let radius = 0.4;
        prop_assume!(!map.is_blocked(a, radius) && !map.is_blocked(b, radius));
        let nav = NavGraph::from_map(&map, &GridSpec::default()).unwrap();
        let mut scratch = SearchScratch::new();
        let Ok(path) = find_path(&map, &nav, &PathQuery::new(a, b, radius), &mut scratch) else {
            return Ok(());
        };
        prop_assert_eq!(path.waypoints.first().unwrap().position, a);
        prop_assert_eq!(path.waypoints.last().unwrap().position, b);
        for w in path.waypoints.windows(2) {
            prop_assert_eq!(w[0].leg, Leg::Walk);
            let d = brute_segment_distance(&m, w[0].position, w[1].position);
            prop_assert!(d >= radius - 1e-3, "leg {:?} -> {:?} comes {} from an obstacle",
                w[0].position, w[1].position, d);
            prop_assert!(w[0].leg_clearance >= radius - 1e-3);
        }
        // Smoothing never makes the path longer than the raw grid path.
        let raw = find_path(&map, &nav, &PathQuery::new(a, b, radius).unsmoothed(), &mut scratch)
            .unwrap();
        prop_assert!(path.length <= raw.length + 1e-3);
    }

    #[test]
    fn queries_agree_with_brute_force(m in random_map(), a in point(), b in point(), r in 0.0f32..2.0) {
        let Some(map) = valid(m.clone()) else { return Ok(()) };
        let d = brute_segment_distance(&m, a, b);
        // Away from the exact boundary (float noise), the broad phase sees what a scan sees.
        if (d - r).abs() > 1e-3 && (d - 1e-5).abs() > 1e-4 {
            let inside_bounds = [a, b].iter().all(|p| (*p - m.min).min(m.max - *p).min_element() >= r.max(1e-5));
            prop_assert_eq!(map.line_of_sight(a, b, r), inside_bounds && d >= r.max(1e-5));
        }
        let c = brute_clearance(&m, a);
        prop_assert!((map.clearance_at(a) - c).abs() < 1e-3, "{} vs {}", map.clearance_at(a), c);
        let seg = map.segment_clearance(a, b, 100.0);
        let bounds = [a, b].iter().map(|p| (*p - m.min).min(m.max - *p).min_element()).fold(f32::INFINITY, f32::min);
        prop_assert!((seg.distance - d.min(bounds)).abs() < 1e-3);
        if let Some(free) = map.nearest_free_point(a, r) {
            prop_assert!(!map.is_blocked(free, r));
            prop_assert!(brute_clearance(&m, free) >= r - 1e-3);
        }
    }
}
