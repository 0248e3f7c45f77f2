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

// ---- Hostile files: truncated, deeply nested, enormous, NaN and infinities,
// counts meant to exhaust memory. Each is refused with a clear error, never a panic, a stack
// overflow or a huge allocation.

use cohort_demos::scenario::{MAX_FILE_BYTES, MAX_TOTAL_UNITS};

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_truncated_file_names_where_it_ends() {
    let half = &GOOD[..GOOD.len() / 2];
    let e = load(half).unwrap_err();
    let ScenarioError::Parse { line, col, .. } = &e else {
        panic!("{e:?}");
    };
    assert!(*line >= 1 && *col >= 1, "{e}");
    assert!(e.to_string().starts_with("bad.ron:"), "{e}");
    assert!(load("").is_err());
    assert!(load("(").is_err());
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    // A hundred thousand open brackets: a parse error at the first one out of place.
    let deep = format!("(formations: {})", "[".repeat(100_000));
    let m = message(&deep);
    assert!(m.starts_with("bad.ron:1:"), "{m}");
    // Formation trees nested 20 deep parse but are refused by depth (at most 16).
    let mut node = String::from("(name: \"leaf\", units: 1)");
    for i in 0..20 {
        node = format!("(name: \"n{i}\", units: 1, children: [{node}])");
    }
    let text = format!(
        "(formations: [{}])",
        node.replacen("(name:", "(position: (5.0, 5.0), name:", 1)
    );
    let m = message(&text);
    assert!(m.contains("nest deeper than 16"), "{m}");
    // Nested 200 deep: the parser's recursion limit comes first.
    let mut node = String::from("(name: \"leaf\", units: 1)");
    for i in 0..200 {
        node = format!("(name: \"n{i}\", children: [{node}])");
    }
    let m = message(&format!("(formations: [{node}])"));
    assert!(m.starts_with("bad.ron:"), "{m}");
    assert!(m.to_lowercase().contains("recursion"), "{m}");
}

#[test]
fn enormous_files_are_refused_before_they_are_read() {
    let dir = scratch_dir("enormous");
    // A sparse file one byte over the limit (no disk or memory is used).
    let big = dir.join("big.ron");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_FILE_BYTES + 1).unwrap();
    let e = Scenario::load(&big).unwrap_err();
    assert!(matches!(e, ScenarioError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("limit"), "{e}");
    // The same for a pattern file the scenario names.
    let patterns = dir.join("patterns");
    std::fs::create_dir_all(&patterns).unwrap();
    let f = std::fs::File::create(patterns.join("huge.ron")).unwrap();
    f.set_len(MAX_FILE_BYTES + 1).unwrap();
    let scenario = dir.join("uses_huge.ron");
    std::fs::write(
        &scenario,
        GOOD.replace("units: 3", "units: 3, pattern: File(\"huge\")"),
    )
    .unwrap();
    let e = Scenario::load(&scenario).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("formations[0].pattern") && m.contains("limit"),
        "{m}"
    );
    // A missing file is an I/O error naming it.
    let e = Scenario::load(dir.join("nope.ron")).unwrap_err();
    assert!(e.to_string().contains("nope.ron"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A bad pattern inside an order (`MoveTo`'s or `ChangePattern`'s, inline or a kind with
/// nothing to lay out) is an error of the order's `pattern` field that says what is wrong; a
/// good one is accepted.
#[test]
fn a_bad_pattern_in_an_order_is_named_by_field() {
    let cases: &[(&str, &str)] = &[
        (
            "MoveTo(goal: (20.0, 10.0), pattern: Inline((kind: Line, spacing: -1.0)))",
            "spacing must be finite and > 0, got -1",
        ),
        (
            "MoveTo(goal: (20.0, 10.0), pattern: Kind(Ranks(0)))",
            "Ranks of at least 1 abreast",
        ),
        (
            "ChangePattern(Inline((kind: Custom([]))))",
            "a custom pattern needs at least one slot",
        ),
        (
            "ChangePattern(Kind(Custom([(facing: (0.0, 0.0))])))",
            "slot 0: facing must not be the zero vector",
        ),
    ];
    for (order, why) in cases {
        let text = GOOD.replace("MoveTo(goal: (20.0, 10.0))", order);
        assert_ne!(text, GOOD, "{order}");
        let m = message(&text);
        assert!(
            m.starts_with("bad.ron: timeline[0].order.pattern: ") && m.contains(why),
            "{order}: {m}"
        );
    }
    for good in [
        "MoveTo(goal: (20.0, 10.0), pattern: Inline((kind: Wedge, spacing: 2.0)))",
        "MoveTo(goal: (20.0, 10.0), pattern: Kind(Ranks(2)))",
        "ChangePattern(Kind(Custom([(offset: (1.0, 0.0)), (offset: (0.0, 1.0))])))",
    ] {
        load(&GOOD.replace("MoveTo(goal: (20.0, 10.0))", good))
            .unwrap_or_else(|e| panic!("{good}: {e}"));
    }
}

#[test]
fn nan_and_infinity_anywhere_are_named_by_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("duration: 10,", "duration: 10, dt: NaN,", "dt"),
        ("duration: 10,", "duration: 10, dt: inf,", "dt"),
        (
            "duration: 10,",
            "duration: 10, settings: (arrive_time: NaN),",
            "settings.arrive_time",
        ),
        (
            "duration: 10,",
            "duration: 10, settings: (separation_weight: inf),",
            "settings.separation_weight",
        ),
        (
            "duration: 10,",
            "duration: 10, settings: (penetration_iterations: 4000000000),",
            "settings.penetration_iterations",
        ),
        (
            "units: 3",
            "units: 3, settings: (turn_rate: NaN)",
            "formations[0].settings.turn_rate",
        ),
        (
            "units: 3",
            "units: 3, settings: (leash: -inf)",
            "formations[0].settings.leash",
        ),
        (
            "units: 3",
            "units: 3, settings: (follow_gap: -2.0)",
            "formations[0].settings.follow_gap",
        ),
        (
            "units: 3",
            "units: 3, spacing: NaN",
            "formations[0].spacing",
        ),
        (
            "units: 3",
            "units: 3, spacing: inf",
            "formations[0].spacing",
        ),
        (
            "units: 3",
            "units: 3, facing: (NaN, 0.0)",
            "formations[0].facing",
        ),
        (
            "units: 3",
            "units: 3, pattern: Inline((kind: Line, spacing: NaN))",
            "formations[0].pattern",
        ),
        (
            "duration: 10,",
            "duration: 10, templates: {\"x\": (max_speed: inf)},",
            "templates[\"x\"]",
        ),
        (
            "duration: 10,",
            "duration: 10, map: (max: (inf, 100.0)),",
            "map",
        ),
        (
            "duration: 10,",
            "duration: 10, map: (circles: [(center: (NaN, 1.0), radius: 1.0)]),",
            "map",
        ),
        (
            "MoveTo(goal: (20.0, 10.0))",
            "MoveTo(goal: (20.0, 10.0), facing: (inf, 0.0))",
            "timeline[0].order.facing",
        ),
        (
            "MoveTo(goal: (20.0, 10.0))",
            "Face((NaN, NaN))",
            "timeline[0].order",
        ),
    ];
    for (from, to, field) in cases {
        let text = GOOD.replace(from, to);
        assert_ne!(text, GOOD, "{to}");
        let m = message(&text);
        assert!(m.contains(field), "{to}: {m}");
    }
}

#[test]
fn counts_meant_to_exhaust_memory_are_refused_before_allocating() {
    // The largest u32 unit count, in one formation and spread over many.
    let m = message(&GOOD.replace("units: 3", "units: 4294967295"));
    assert!(m.contains("formations[0].units"), "{m}");
    // A count too big for its type is a parse error.
    let m = message(&GOOD.replace("units: 3", "units: 99999999999999"));
    assert!(m.starts_with("bad.ron:"), "{m}");
    // One formation with more members than a formation may have.
    let m = message(&GOOD.replace("units: 3", "units: 65537"));
    assert!(m.contains("at most 65536"), "{m}");
    // Exactly at the total cap is not refused for its count; one more is.
    let per = MAX_TOTAL_UNITS / 4;
    let f = |n: u64| {
        let list: Vec<String> = (0..4)
            .map(|i| {
                let units = if i == 3 { n } else { per };
                format!(
                    "(name: \"f{i}\", position: (1.0, 1.0), units: {units}, pattern: Kind(Box))"
                )
            })
            .collect();
        format!("(formations: [{}])", list.join(", "))
    };
    let over = f(per + 1);
    let m = message(&over);
    assert!(m.contains("formations[3].units"), "{m}");
    let at_cap = Scenario::from_ron_str(&f(per), "cap.ron")
        .unwrap()
        .validate("cap.ron", &[]);
    assert!(at_cap.is_ok(), "{:?}", at_cap.err());
    // Durations and ticks beyond the longest run.
    let m = message(&GOOD.replace("duration: 10,", "duration: 18446744073709551615,"));
    assert!(m.contains("duration"), "{m}");
    let m = message(&GOOD.replace("tick: 0", "tick: 18446744073709551615"));
    assert!(m.contains("timeline[0].tick"), "{m}");
    // A kill list naming a unit far past the end.
    let m = message(&GOOD.replace(
        "order: MoveTo(goal: (20.0, 10.0))",
        "kill: [18446744073709551615]",
    ));
    assert!(m.contains("timeline[0].kill"), "{m}");
}
