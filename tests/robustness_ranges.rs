//! Finite but extreme numbers: each is inside its documented range (and the simulation stays
//! finite) or refused with the field named, by scenario validation and by the library alike.
//! See "Documented ranges" in `docs/robustness.md`.

use cohort::formation::order::Order;
use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::world::WorldSettings;
use cohort::formation::{FormationSpec, World};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2, Wall};
use cohort_demos::check::check_file;
use cohort_demos::runner::{Runner, load_runner};
use cohort_demos::scenario::Scenario;

/// A line of 12 on a 100 × 60 field, with `extra` inside the formation and `timeline`.
fn scenario(position: &str, extra: &str, timeline: &str) -> String {
    format!(
        r#"(
    name: "r", seed: 1, dt: 0.033333335, duration: 200,
    map: (min: (0.0, 0.0), max: (100.0, 60.0)),
    templates: {{ "t": (radius: 0.5, mass: 1.0, max_speed: 3.0, max_force: 6.0, max_turn_rate: 6.0) }},
    formations: [(name: "p", pattern: Kind(Line), position: {position}, facing: (1.0, 0.0), units: 12, template: "t"{extra})],
    timeline: [{timeline}],
)"#
    )
}

/// The validation error of `text` (which must be refused).
fn refusal(text: &str) -> String {
    match Scenario::from_ron_str(text, "r.ron").and_then(|s| s.validate("r.ron", &[])) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_goal_at_minus_3_4e38_is_refused_by_field() {
    let m = refusal(&scenario(
        "(20.0, 30.0)",
        "",
        r#"(tick: 0, formation: "p", order: MoveTo(goal: (-3.4e38, 0.0), at_slowest: false)),
           (tick: 100, formation: "p", order: MoveTo(goal: (50.0, 30.0)))"#,
    ));
    assert!(m.starts_with("r.ron: timeline[0].order.goal:"), "{m}");
}

#[test]
fn a_formation_at_minus_1e38_is_refused_by_field() {
    let m = refusal(&scenario("(15.0, -1e38)", "", ""));
    assert!(m.starts_with("r.ron: formations[0].position:"), "{m}");
}

#[test]
fn a_play_origin_at_minus_3_4e38_is_refused_by_field() {
    let text = scenario(
        "(20.0, 30.0)",
        "",
        r#"(tick: 0, formation: "p", order: BoundingOverwatch(goal: (50.0, 30.0), threat: (-3.4e38, 0.0)))"#,
    );
    let m = refusal(&text);
    assert!(m.starts_with("r.ron: timeline[0].order.threat:"), "{m}");
}

/// A scenario file in a fresh directory with a copy of the bundled fire-team playbook beside
/// it (referenced files must lie in the scenario's directory tree).
fn write_with_playbook(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-ranges-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/playbooks/fire_team_drill.ron"),
        dir.join("drill.ron"),
    )
    .unwrap();
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_run_play_origin_at_minus_3_4e38_is_refused_by_field() {
    let order = |origin: &str| {
        format!(
            r#"(tick: 0, formation: "p", order: RunPlay(playbook: "drill.ron", play: "bound_by_pairs", origin: {origin}))"#
        )
    };
    let path = write_with_playbook(
        "origin",
        &scenario("(20.0, 30.0)", "", &order("(-3.4e38, 0.0)")),
    );
    let m = check_file(&path).unwrap_err();
    assert!(m.contains("timeline[0].order.origin:"), "{m}");
    assert!(load_runner(&path, None, false).is_err());
    // The same play from an origin inside the range runs.
    let ok = write_with_playbook(
        "origin-ok",
        &scenario("(20.0, 30.0)", "", &order("(30.0, 30.0)")),
    );
    check_file(&ok).unwrap();
}

/// Runs `runner` for `ticks`; from tick `settle` on, no two units may be closer than 95 % of
/// the sum of their radii (the runner's overlap rule) and every position must be finite.
fn assert_separates(runner: &mut Runner, ticks: u64, settle: u64, what: &str) {
    for t in 1..=ticks {
        runner.step().unwrap();
        let s = runner.samples();
        assert!(
            s.iter().all(|u| u.position.is_finite()),
            "{what}: tick {t}: not finite"
        );
        if t < settle {
            continue;
        }
        for (i, a) in s.iter().enumerate() {
            for b in &s[i + 1..] {
                let gap = (a.position - b.position).length() / (a.radius + b.radius);
                assert!(
                    gap >= 0.95,
                    "{what}: tick {t}: two units at {gap} of their radii sum"
                );
            }
        }
    }
}

/// A clump of 12 at `spacing: 1e-6` (every slot at one point), of units with a force of
/// `force`, on a square map from `min` to `max`, placed at `at`.
fn clump(min: f32, max: f32, at: (f32, f32), force: &str) -> String {
    format!(
        r#"(
    name: "clump", seed: 1, dt: 0.033333335, duration: 600,
    map: (min: ({min:?}, {min:?}), max: ({max:?}, {max:?})),
    templates: {{ "t": (radius: 0.5, mass: 1.0, max_speed: 3.0, max_force: {force}, max_turn_rate: 6.0) }},
    formations: [(name: "p", pattern: Kind(Box), position: ({:?}, {:?}), facing: (1.0, 0.0), units: 12, template: "t", spacing: 1e-6)],
    timeline: [],
)"#,
        at.0, at.1
    )
}

fn runner_of(text: &str) -> Runner {
    let s = Scenario::from_ron_str(text, "clump.ron").unwrap();
    let built = s.validate("clump.ron", &[]).unwrap().build().unwrap();
    Runner::new(built, false)
}

/// At the strongest force the range allows (a force of 3.4e38 is refused, above), a clump at
/// the least spacing separates within a second and stays apart.
#[test]
fn a_clump_at_the_least_spacing_separates_at_the_strongest_force() {
    let text = clump(0.0, 100.0, (50.0, 50.0), "1e6");
    assert_separates(&mut runner_of(&text), 200, 30, "force 1e6");
}

/// On a 10 km map (too many cells for the neighbour grid at its usual cell size) a clump
/// separates within a second: the grid takes coarser cells, so the penetration solver runs.
/// Without it the clump overlapped for hundreds of ticks.
#[test]
fn a_clump_on_a_10_km_map_separates() {
    let text = clump(0.0, 10_000.0, (5000.0, 5000.0), "6.0");
    assert_separates(&mut runner_of(&text), 120, 30, "10 km map");
}

/// At the edge of the coordinate range positions are 1/16 m apart: a separation shorter than
/// that rounds away, and the solver must move such a pair by a position's spacing so it does
/// not stay overlapping. A clump there separates within a
/// second, as one in the middle of the same map does.
#[test]
fn a_clump_at_the_edge_of_the_coordinate_range_separates() {
    for at in [(999_990.0, 999_990.0), (-999_990.0, 999_990.0), (0.0, 0.0)] {
        let text = clump(-1.0e6, 1.0e6, at, "6.0");
        assert_separates(&mut runner_of(&text), 120, 30, &format!("{at:?}"));
    }
}

#[test]
fn a_force_of_3_4e38_is_refused_by_field() {
    let text = scenario("(20.0, 30.0)", "", "").replace("max_force: 6.0", "max_force: 3.4e38");
    let m = refusal(&text);
    assert!(m.contains(r#"templates["t"].max_force"#), "{m}");
}

#[test]
fn a_spacing_below_the_range_is_refused_by_field() {
    let m = refusal(&scenario("(20.0, 30.0)", ", spacing: 1e-30", ""));
    assert!(m.starts_with("r.ron: formations[0].spacing:"), "{m}");
}

#[test]
fn bad_wall_normals_are_refused() {
    for normal in [
        "(NaN, 0.0)",
        "(inf, 0.0)",
        "(0.0, 0.0)",
        "(0.0, 1.0)",
        "(3.0, 0.0)",
    ] {
        let text = scenario("(20.0, 30.0)", "", "").replace(
            "max: (100.0, 60.0)),",
            &format!(
                "max: (100.0, 60.0), walls: [(from: (50.0, 10.0), to: (50.0, 20.0), normal: {normal})]),"
            ),
        );
        let m = refusal(&text);
        assert!(m.starts_with("r.ron: map:"), "{normal}: {m}");
    }
    let mut map = Map::default();
    map.walls.push(Wall {
        from: Vec2::new(1.0, 1.0),
        to: Vec2::new(1.0, 5.0),
        normal: Vec2::ZERO,
    });
    assert!(map.check().is_err());
}

#[test]
fn map_bounds_beyond_the_range_are_refused() {
    let map = Map::with_bounds(Vec2::new(-3.4e38, 0.0), Vec2::splat(10.0));
    assert!(map.check().is_err());
    assert!(
        Map::with_bounds(Vec2::splat(-1e6), Vec2::splat(1e6))
            .check()
            .is_ok()
    );
}

/// The library refuses what the scenario validator refuses: a game gets the same protection.
#[test]
fn the_world_refuses_extreme_orders_and_bodies() {
    let mut w = World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::splat(100.0)),
        WorldSettings::default(),
        1,
    )
    .unwrap();
    let f = w
        .add_formation(FormationSpec::default(), None, Vec2::splat(50.0), Vec2::X)
        .unwrap();
    assert!(
        w.add_formation(
            FormationSpec::default(),
            None,
            Vec2::new(15.0, -1e38),
            Vec2::X
        )
        .is_err()
    );
    let far = Vec2::new(-3.4e38, 0.0);
    assert!(w.order(f, Order::move_to(far)).is_err());
    let play_like = Order::BoundingOverwatch {
        goal: Vec2::splat(50.0),
        threat: far,
        settings: Default::default(),
    };
    assert!(w.order(f, play_like).is_err());
    let book = cohort::formation::tactics::load_playbook(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/playbooks/fire_team_drill.ron"
    ))
    .unwrap();
    let play = Order::RunPlay {
        playbook: book,
        play: "bound_by_pairs".into(),
        origin: Some(far),
        facing: None,
    };
    assert!(w.order(f, play).is_err());
    let line = Order::FormAlong {
        points: vec![Vec2::new(-1e5, 0.0), Vec2::new(1e5, 0.0)],
        facing: None,
        at_slowest: false,
    };
    assert!(w.order(f, line).is_err());
    let strong = Body {
        max_force: 3.4e38,
        ..Body::default()
    };
    assert!(w.add_unit(strong).is_err());
    let pattern = Pattern {
        kind: PatternKind::Box,
        spacing: 1e-30,
        unit_radius: 0.5,
    };
    assert!(pattern.validate().is_err());
}

/// Every documented range at its edges, through scenario validation: the edge values pass,
/// values just outside are refused naming the field.
#[test]
fn every_range_is_enforced_at_its_edges() {
    let base = scenario("(20.0, 30.0)", "", "");
    let template = "radius: 0.5, mass: 1.0, max_speed: 3.0, max_force: 6.0, max_turn_rate: 6.0";
    let with_template = |field: &str, v: &str| {
        let t = match field {
            "jump_speed" => format!("{template}, jump_speed: {v}"),
            _ => template.replace(
                &format!("{field}: {}", template_value(field)),
                &format!("{field}: {v}"),
            ),
        };
        base.replace(template, &t)
    };
    let with_map = |extra: &str| {
        base.replace(
            "max: (100.0, 60.0)),",
            &format!("max: (100.0, 60.0), {extra}),"),
        )
    };
    let with_order = |order: &str| {
        scenario(
            "(20.0, 30.0)",
            "",
            &format!(r#"(tick: 0, formation: "p", order: {order})"#),
        )
    };
    // (text, whether it is inside the range, what the refusal names)
    let mut cases: Vec<(String, bool, &str)> = Vec::new();
    for (field, low_out, low, high, high_out) in [
        ("radius", "0.00009", "0.0001", "10000.0", "10001.0"),
        ("mass", "0.0000009", "0.000001", "1000000.0", "1000001.0"),
        ("max_speed", "0.0000009", "0.000001", "10000.0", "10001.0"),
        (
            "max_force",
            "0.0000009",
            "0.000001",
            "1000000.0",
            "1000001.0",
        ),
        (
            "max_turn_rate",
            "0.0000009",
            "0.000001",
            "10000.0",
            "10001.0",
        ),
        ("jump_speed", "-0.001", "0.0", "10000.0", "10001.0"),
    ] {
        let named = match field {
            "radius" => r#"templates["t"].radius"#,
            "mass" => r#"templates["t"].mass"#,
            "max_speed" => r#"templates["t"].max_speed"#,
            "max_force" => r#"templates["t"].max_force"#,
            "max_turn_rate" => r#"templates["t"].max_turn_rate"#,
            _ => r#"templates["t"].jump_speed"#,
        };
        cases.push((with_template(field, low_out), false, named));
        cases.push((with_template(field, low), true, named));
        cases.push((with_template(field, high), true, named));
        cases.push((with_template(field, high_out), false, named));
    }
    for (spacing, ok) in [
        ("0.0000009", false),
        ("0.000001", true),
        ("100000.0", true),
        ("100001.0", false),
    ] {
        cases.push((
            scenario("(20.0, 30.0)", &format!(", spacing: {spacing}"), ""),
            ok,
            "formations[0].spacing",
        ));
    }
    for (facing, ok) in [("(0.0000009, 0.0)", false), ("(0.00001, 0.0)", true)] {
        cases.push((
            base.replace("facing: (1.0, 0.0)", &format!("facing: {facing}")),
            ok,
            "formations[0].facing",
        ));
    }
    for (position, ok) in [("(1000000.0, 30.0)", true), ("(1000100.0, 30.0)", false)] {
        cases.push((scenario(position, "", ""), ok, "formations[0].position"));
    }
    for (extra, ok) in [
        ("circles: [(center: (50.0, 10.0), radius: 0.0)]", false),
        ("circles: [(center: (50.0, 10.0), radius: 1000000.0)]", true),
        (
            "circles: [(center: (50.0, 10.0), radius: 1000100.0)]",
            false,
        ),
        (
            "cover_generation: Some((offset: 0.75, spacing: 0.09))",
            false,
        ),
        ("cover_generation: Some((offset: 0.75, spacing: 0.1))", true),
        (
            "cover_generation: Some((offset: 1000.0, spacing: 2.0))",
            true,
        ),
        (
            "cover_generation: Some((offset: 1000.1, spacing: 2.0))",
            false,
        ),
    ] {
        cases.push((with_map(extra), ok, "map"));
    }
    for (max, ok) in [("(1000000.0, 60.0)", true), ("(1000100.0, 60.0)", false)] {
        cases.push((
            base.replace("max: (100.0, 60.0)", &format!("max: {max}")),
            ok,
            "map",
        ));
    }
    for (order, ok) in [
        ("Face((0.0000009, 0.0))", false),
        ("Face((0.00001, 0.0))", true),
        ("MoveTo(goal: (1000000.0, 30.0))", true),
        ("MoveTo(goal: (1000100.0, 30.0))", false),
        ("FormAlong(points: [(0.0, 30.0), (50000.0, 30.0)])", true),
        ("FormAlong(points: [(0.0, 30.0), (50100.0, 30.0)])", false),
    ] {
        cases.push((with_order(order), ok, "timeline[0].order"));
    }
    let mut wrong = Vec::new();
    for (text, inside, named) in &cases {
        let result = Scenario::from_ron_str(text, "r.ron").and_then(|s| s.validate("r.ron", &[]));
        match (result, inside) {
            (Ok(_), true) => {}
            (Err(e), false) if e.to_string().starts_with(&format!("r.ron: {named}")) => {}
            (r, _) => wrong.push(format!(
                "{named} inside={inside}: {:?}",
                r.err().map(|e| e.to_string())
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The value `field` has in the scenario's template.
fn template_value(field: &str) -> &'static str {
    match field {
        "radius" => "0.5",
        "mass" => "1.0",
        "max_speed" => "3.0",
        "max_force" => "6.0",
        _ => "6.0",
    }
}
