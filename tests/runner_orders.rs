//! Scenario orders written in RON, loaded, validated, built and run through the runner.

use cohort_demos::Report;
use cohort_demos::runner::Runner;
use cohort_demos::scenario::{OrderSpec, Scenario};
use glam::Vec2;

/// A line of 7 (radius 0.5, spacing 1.5) at (20, 30) facing +x, and one timeline event.
fn scenario(order: &str) -> String {
    format!(
        r#"(
    name: "form_along",
    seed: 3,
    dt: 0.033333335,
    duration: 900,
    map: (min: (0.0, 0.0), max: (100.0, 60.0)),
    formations: [
        (
            name: "line",
            pattern: Kind(Line),
            position: (20.0, 30.0),
            facing: (1.0, 0.0),
            units: 7,
        ),
    ],
    timeline: [
        (tick: 0, formation: "line", order: {order}),
    ],
)"#
    )
}

fn runner(text: &str) -> Runner {
    let built = Scenario::from_ron_str(text, "inline")
        .and_then(|s| s.validate("inline", &[]))
        .and_then(|l| l.build())
        .unwrap_or_else(|e| panic!("{e}"));
    Runner::new(built, false)
}

/// `FormAlong` parses into the order as written, and the formation ends on the drawn line:
/// every unit within a quarter radius of the segment x = 50, 24 <= y <= 36, the units spread
/// along it at least a diameter apart, all facing the drag direction (+y) turned left (-x).
#[test]
fn a_form_along_order_in_a_scenario_ends_on_the_drawn_line() {
    let order = "FormAlong(points: [(50.0, 24.0), (50.0, 36.0)], at_slowest: false)";
    let text = scenario(order);
    let parsed = Scenario::from_ron_str(&text, "inline").unwrap();
    assert_eq!(
        parsed.timeline[0].order,
        Some(OrderSpec::FormAlong {
            points: vec![Vec2::new(50.0, 24.0), Vec2::new(50.0, 36.0)],
            facing: None,
            at_slowest: false,
        })
    );
    let mut run = runner(&text);
    run.run_to_end().unwrap_or_else(|e| panic!("{e}"));
    let r: Report = run.report();
    assert_eq!(r.non_finite, 0, "{r:?}");
    assert_eq!(r.units, 7);
    assert_eq!(r.arrived, 7, "{r:?}");
    assert!(r.max_slot_error < 0.25, "{r:?}");
    let mut ys = Vec::new();
    for (_, u) in run.world().units() {
        let p = u.body.position;
        assert!((p.x - 50.0).abs() < 0.125, "{p} is off the line x = 50");
        assert!(
            (23.875..=36.125).contains(&p.y),
            "{p} is beyond the drawn segment"
        );
        let facing = u.slot_target.expect("in a formation").facing;
        assert!(facing.dot(Vec2::NEG_X) > 0.999, "slot facing {facing}");
        ys.push(p.y);
    }
    ys.sort_by(f32::total_cmp);
    for w in ys.windows(2) {
        assert!(w[1] - w[0] > 1.0, "units {} and {} too close", w[0], w[1]);
    }
}

/// A drawn line with no points, a non-finite point or a zero facing is refused at
/// validation, naming the field.
#[test]
fn bad_form_along_orders_are_refused_naming_the_field() {
    for (order, field) in [
        ("FormAlong(points: [])", "timeline[0].order.points"),
        (
            "FormAlong(points: [(50.0, 24.0), (inf, 36.0)])",
            "timeline[0].order.points",
        ),
        (
            "FormAlong(points: [(50.0, 24.0)], facing: Some((0.0, 0.0)))",
            "timeline[0].order.facing",
        ),
    ] {
        let err = Scenario::from_ron_str(&scenario(order), "inline")
            .and_then(|s| s.validate("inline", &[]))
            .map(|_| ())
            .expect_err(order)
            .to_string();
        assert!(err.contains(field), "{order}: {err}");
    }
}
