//! Valid but large input: long polygon outlines, dense cover generation and formations of
//! tens of thousands of members are built in about linear time, or refused past a documented
//! limit, by the library and by `cohort check` and `cohort run` alike. See "Slow input" in
//! `docs/robustness.md`.
//!
//! The sizes here take about a second in a debug build thanks to the edge index and the cut-up
//! assignment; without them they take minutes (every navigation-graph sample tested against
//! every polygon edge; a greedy assignment quadratic in the members). No test measures time:
//! each checks what the fast path must produce.

use std::path::{Path, PathBuf};

use cohort::formation::World;
use cohort::formation::world::WorldSettings;
use cohort::pathing::cover::MAX_GENERATED_COVER;
use cohort::pathing::polygon::MAX_RING_POINTS;
use cohort::pathing::{Map, PathingError, PolygonObstacle};
use cohort::steering::Vec2;
use cohort::steering::ops;
use cohort_demos::check::check_file;
use cohort_demos::runner::load_runner;

/// A wavy lake outline of `n` points around `centre`, radius `r` give or take 14 %.
fn lake(n: usize, centre: Vec2, r: f32) -> Vec<Vec2> {
    (0..n)
        .map(|k| {
            let t = core::f32::consts::TAU * k as f32 / n as f32;
            let rr = r + 0.1 * r * ops::sin(7.0 * t) + 0.04 * r * ops::sin(23.0 * t);
            centre + ops::from_angle(t) * rr
        })
        .collect()
}

fn ron_points(points: &[Vec2]) -> String {
    points
        .iter()
        .map(|p| format!("({}, {})", p.x, p.y))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A scenario on a `size` square map with `map_extra` inside the map and a line of 12.
fn scenario(size: f32, map_extra: &str) -> String {
    format!(
        r#"(
    name: "slow", seed: 1, dt: 0.05, duration: 10,
    map: (min: (0.0, 0.0), max: ({size}, {size}), {map_extra}),
    formations: [(name: "a", pattern: Kind(Line), position: (20.0, 20.0), units: 12)],
    timeline: [(tick: 0, formation: "a", order: MoveTo(goal: (30.0, 20.0)))],
)"#
    )
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-slow-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `check` and `run` both refuse the file, with the same message naming the file and `map`.
fn refused_alike(path: &Path, what: &str) {
    let checked = check_file(path).unwrap_err();
    let ran = load_runner(path, None, false).unwrap_err().to_string();
    assert_eq!(checked, ran);
    let file = path.display().to_string();
    assert!(checked.starts_with(&format!("{file}: map: ")), "{checked}");
    assert!(checked.contains(what), "{checked}");
}

#[test]
fn a_world_around_a_3000_point_lake_is_built_with_no_node_in_the_lake() {
    // A 400 m map at spacing 1 round a lake of radius about 150 m.
    let points = lake(3000, Vec2::new(200.0, 200.0), 150.0);
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(400.0));
    map.polygons.push(PolygonObstacle::new(points).unwrap());
    let world = World::new(map.clone(), WorldSettings::default(), 1).unwrap();
    let lake = &map.polygons[0];
    let graph = world.navgraph().graph();
    let mut nodes = 0;
    for node in graph.node_weights() {
        assert!(!lake.contains(node.position), "{}", node.position);
        // A node's clearance is its distance to the lake (or the bounds), capped at 16.
        let d = lake.signed_distance(node.position).min(16.0);
        let bounds = node
            .position
            .min(Vec2::splat(400.0) - node.position)
            .min_element();
        assert!((node.clearance - d.min(bounds)).abs() < 1e-3, "{node:?}");
        nodes += 1;
    }
    // The shore (about 940 m) is sampled every metre out to a cell side from it, the open
    // ground in cells of up to 32 m: a few thousand nodes, not the 88,000 of a uniform grid
    // at 1 m (the lake covers about 72,000 of its 160,000 samples).
    assert!((1_000..10_000).contains(&nodes), "{nodes}");
}

#[test]
fn polygons_past_the_point_limit_are_refused_by_check_and_run_alike() {
    let points = lake(MAX_RING_POINTS + 1, Vec2::new(500.0, 500.0), 300.0);
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(1000.0));
    map.polygons.push(PolygonObstacle {
        points: points.clone(),
    });
    assert!(matches!(
        map.validate(),
        Err(PathingError::Degenerate {
            what: "polygon",
            index: 0,
            ..
        })
    ));
    let text = scenario(
        1000.0,
        &format!("polygons: [(points: [{}])]", ron_points(&points)),
    );
    refused_alike(
        &write("long_polygon.ron", &text),
        "polygon #0 is degenerate: more than 65,536 points",
    );
    // At the limit, the outline is accepted (and validated through the edge index).
    let at_limit = lake(MAX_RING_POINTS, Vec2::new(500.0, 500.0), 300.0);
    assert!(PolygonObstacle::new(at_limit).is_ok());
}

#[test]
fn cover_generation_past_the_point_limit_is_refused_before_any_point_is_made() {
    // Forty walls of 5 km at spacing 0.1: 4,096 points (the most one segment makes) on each
    // side of each, 327,680 in all.
    let walls: Vec<String> = (0..40)
        .map(|i| {
            let y = 100.0 + 120.0 * i as f32;
            format!("(from: (100.0, {y}), to: (5100.0, {y}), normal: (0.0, 1.0))")
        })
        .collect();
    let extra = format!(
        "walls: [{}], cover_generation: (offset: 0.75, spacing: 0.1)",
        walls.join(", ")
    );
    let text = scenario(6000.0, &extra);
    refused_alike(
        &write("dense_cover.ron", &text),
        &format!("has 327680 elements, more than the limit {MAX_GENERATED_COVER}"),
    );
    // The same walls at spacing 10: 40,000 points, accepted.
    let text = text.replace("spacing: 0.1", "spacing: 10.0");
    let p = write("sparse_cover.ron", &text);
    check_file(&p).unwrap();
    let runner = load_runner(&p, None, false).unwrap();
    let generated = cohort::pathing::Map::validate(runner.world().map().clone())
        .unwrap()
        .cover_points()
        .len();
    assert_eq!(generated, 40 * 2 * 500);
}

#[test]
fn a_formation_of_65536_units_is_built_assigned_and_steps() {
    // Filling the formation was quadratic (each new member searched the list), and its first
    // assignment greedy (quadratic in cost evaluations): minutes together.
    let n = cohort::formation::pattern::MAX_MEMBERS;
    let text = format!(
        r#"(
    name: "big", seed: 1, dt: 0.05, duration: 10,
    map: (min: (0.0, 0.0), max: (2000.0, 2000.0)),
    formations: [(name: "a", pattern: Kind(Box), position: (1000.0, 1000.0), units: {n})],
    timeline: [(tick: 0, formation: "a", order: MoveTo(goal: (1100.0, 1000.0)))],
)"#
    );
    let path = write("big.ron", &text);
    check_file(&path).unwrap();
    let mut runner = load_runner(&path, None, false).unwrap();
    runner.run(1, |_| {}).unwrap();
    let report = runner.report();
    assert_eq!(report.units, n as u64);
    // Units start in their slots; the first assignment keeps them there.
    assert!(report.max_slot_error < 0.1, "{}", report.max_slot_error);
    let (_, formation) = runner.world().formations().next().unwrap();
    assert_eq!(formation.slots().len(), n);
    assert_eq!(formation.members.len(), n);
}
