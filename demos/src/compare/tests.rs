use std::path::PathBuf;

use super::*;

/// Writes `text` to a scenario file of its own in the temporary directory.
fn scenario_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Two walkers passing each other in the open and a squad of four marching beside them.
const EASY: &str = r#"(
    name: "easy",
    dt: 0.1,
    duration: 400,
    map: (min: (0.0, 0.0), max: (60.0, 40.0)),
    templates: { "walker": (radius: 0.5, max_speed: 1.3) },
    formations: [
        (name: "a", position: (10.0, 10.0), units: 1, template: "walker"),
        (name: "b", position: (30.0, 11.0), units: 1, template: "walker"),
        (name: "squad", pattern: Kind(Box), position: (10.0, 30.0), units: 4, template: "walker"),
    ],
    timeline: [
        (tick: 0, formation: "a", order: MoveTo(goal: (30.0, 10.0))),
        (tick: 0, formation: "b", order: MoveTo(goal: (10.0, 11.0))),
        (tick: 0, formation: "squad", order: MoveTo(goal: (40.0, 30.0), facing: (1.0, 0.0))),
    ],
)"#;

#[test]
fn compare_easy_case_both_sides_arrive_and_json_has_the_keys() {
    let path = scenario_file("easy", EASY);
    let c = compare_file(&path, None, DodgyParams::default()).unwrap();
    assert_eq!(c.units, 6);
    assert_eq!(c.ticks, 400);
    assert_eq!(c.dodgy.arrived, 6, "{c}");
    assert!(c.dodgy.time_to_arrive.is_some(), "{c}");
    assert_eq!(c.dodgy.colliding_pair_steps, 0, "{c}");
    assert!(c.cohort.cpu_us_per_unit_step > 0.0, "{c}");
    assert!(c.dodgy.cpu_us_per_unit_step > 0.0, "{c}");
    let v: serde_json::Value = serde_json::from_str(&c.to_json()).unwrap();
    for key in [
        "scenario",
        "units",
        "ticks",
        "dt",
        "dodgy_params",
        "cohort",
        "dodgy",
    ] {
        assert!(v.get(key).is_some(), "{key} missing: {v}");
    }
    for side in ["cohort", "dodgy"] {
        for key in [
            "arrived",
            "units",
            "time_to_arrive",
            "colliding_pair_steps",
            "max_overlap_depth",
            "stuck",
            "penetrations",
            "cpu_us_per_unit_step",
        ] {
            assert!(v[side].get(key).is_some(), "{side}.{key} missing: {v}");
        }
    }
    assert!(c.to_string().contains("arrived"));
}

#[test]
fn compare_goals_are_the_slots_at_the_goal() {
    let path = scenario_file("goals", EASY);
    let built = load_built(&path).unwrap();
    let goals = goals_of(&built);
    // Singles go to their order's goal.
    assert!((goals[0] - Vec2::new(30.0, 10.0)).length() < 1e-4);
    assert!((goals[1] - Vec2::new(10.0, 11.0)).length() < 1e-4);
    // The squad's slots move with its anchor: the same shape, 30 m east.
    for (k, u) in built.units.iter().enumerate().skip(2) {
        let start = built.world.unit(u.id).unwrap().body.position;
        let moved = goals[k] - start;
        assert!(
            (moved - Vec2::new(30.0, 0.0)).length() < 1e-3,
            "{k}: {moved}"
        );
    }
}

#[test]
fn compare_routes_go_around_obstacles() {
    let text = EASY.replace(
        "max: (60.0, 40.0)),",
        "max: (60.0, 40.0), polygons: [(points: [(18.0, 5.0), (22.0, 5.0), (22.0, 16.0), (18.0, 16.0)])]),",
    );
    let path = scenario_file("routes", &text);
    let built = load_built(&path).unwrap();
    let map = built.world.map().clone().validate().unwrap();
    let agents = agents_of(&built, &map);
    assert!(agents[0].route.len() > 1, "{:?}", agents[0].route);
    assert!(route_length(&agents[0]) > 20.5);
    let c = compare_file(&path, None, DodgyParams::default()).unwrap();
    assert_eq!(c.dodgy.arrived, 6, "{c}");
    assert_eq!(c.dodgy.penetrations, 0, "{c}");
}

#[test]
fn compare_rejects_bad_parameters_and_files() {
    let path = scenario_file("bad_params", EASY);
    let bad = DodgyParams {
        time_horizon: f32::NAN,
        ..DodgyParams::default()
    };
    let e = compare_file(&path, None, bad).unwrap_err();
    assert!(e.contains("--time-horizon"), "{e}");
    let broken = scenario_file("broken", "(name: 3)");
    let e = compare_file(&broken, None, DodgyParams::default()).unwrap_err();
    assert!(e.contains("broken.ron"), "{e}");
}
