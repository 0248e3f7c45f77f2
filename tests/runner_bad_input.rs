//! Bad scenario files give clear errors (position or field path), never a panic.

use cohort_demos::scenario::{Scenario, ScenarioError};

fn load(text: &str) -> Result<(), ScenarioError> {
    Scenario::from_ron_str(text, "bad.ron")?
        .validate("bad.ron", &[])?
        .build()
        .map(|_| ())
}

const GOOD: &str = r#"(
    duration: 10,
    formations: [(name: "a", position: (10.0, 10.0), units: 3)],
    timeline: [(tick: 0, formation: "a", order: MoveTo(goal: (20.0, 10.0)))],
)"#;

fn message(text: &str) -> String {
    let e = load(text).expect_err("must be rejected");
    e.to_string()
}

#[test]
fn the_good_file_is_accepted() {
    load(GOOD).unwrap();
}

#[test]
fn malformed_ron_names_line_and_column() {
    let text = "(\n    duration: 10,\n    formations: [(name: \"a\" position: (1.0, 1.0))],\n)";
    let e = load(text).unwrap_err();
    let ScenarioError::Parse { line, col, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(*line, 3, "{e}");
    assert!(*col > 20, "{e}");
    assert!(e.to_string().starts_with("bad.ron:3:"), "{e}");
    let m = message("(duration: 10, formatons: [])");
    assert!(m.starts_with("bad.ron:1:"), "{m}");
}

#[test]
fn negative_radius_and_nan_are_named_by_field() {
    let m = message(&GOOD.replace(
        "duration: 10,",
        "duration: 10, templates: {\"x\": (radius: -1.0)},",
    ));
    assert!(
        m.contains("templates[\"x\"]") && m.contains("radius"),
        "{m}"
    );
    let m = message(&GOOD.replace("(10.0, 10.0)", "(NaN, 10.0)"));
    assert!(
        m.contains("formations[0].position") && m.contains("finite"),
        "{m}"
    );
    let m = message(&GOOD.replace("goal: (20.0, 10.0)", "goal: (inf, 10.0)"));
    assert!(m.contains("timeline[0].order.goal"), "{m}");
    let m = message(&GOOD.replace("duration: 10,", "duration: 10, dt: -0.1,"));
    assert!(m.contains("dt"), "{m}");
    let m = message(&GOOD.replace(
        "duration: 10,",
        "duration: 10, map: (circles: [(center: (5.0, 5.0), radius: -2.0)]),",
    ));
    assert!(m.contains("map") && m.contains("radius"), "{m}");
}

#[test]
fn absurd_and_zero_counts_are_refused_before_allocating() {
    let m = message(&GOOD.replace("units: 3", "units: 1000000000"));
    assert!(
        m.contains("formations[0].units") && m.contains("at most"),
        "{m}"
    );
    let m = message(&GOOD.replace("units: 3", "units: 0"));
    assert!(m.contains("at least one unit"), "{m}");
    let m = message(&GOOD.replace("duration: 10,", "duration: 0,"));
    assert!(m.contains("duration"), "{m}");
    // Many formations adding up past the cap.
    let many: Vec<String> = (0..5)
        .map(|i| format!("(name: \"f{i}\", position: (1.0, 1.0), units: 60000)"))
        .collect();
    let text = format!("(formations: [{}])", many.join(", "));
    let m = message(&text);
    assert!(
        m.contains("formations[3].units") && m.contains("200000"),
        "{m}"
    );
}

#[test]
fn unknown_names_are_refused() {
    let m = message(&GOOD.replace("units: 3", "units: 3, pattern: File(\"no_such_pattern\")"));
    assert!(
        m.contains("formations[0].pattern") && m.contains("no_such_pattern"),
        "{m}"
    );
    let m = message(&GOOD.replace("units: 3", "units: 3, template: \"ghost\""));
    assert!(m.contains("unknown template"), "{m}");
    let m = message(&GOOD.replace("formation: \"a\"", "formation: \"b\""));
    assert!(m.contains("timeline[0].formation"), "{m}");
    let m = message(&GOOD.replace("order: MoveTo(goal: (20.0, 10.0))", "kill: [3]"));
    assert!(
        m.contains("timeline[0].kill") && m.contains("3 units"),
        "{m}"
    );
    let m = message(&GOOD.replace("kind", "x").replace("MoveTo", "Teleport"));
    assert!(m.starts_with("bad.ron:"), "{m}");
}

#[test]
fn fuzzed_texts_never_panic() {
    // Every prefix of a valid file, and single-byte corruptions of it: an error or a world.
    let base = GOOD.as_bytes();
    for end in 0..base.len() {
        let _ = load(&String::from_utf8_lossy(&base[..end]));
    }
    for i in 0..base.len() {
        for b in [b'(', b')', b'-', b'9', b'"', b',', b'e', b' '] {
            let mut v = base.to_vec();
            v[i] = b;
            let _ = load(&String::from_utf8_lossy(&v));
        }
    }
}
