use super::*;
use cohort_formation::Order;

const NESTED: &str = r#"(
    duration: 5,
    templates: {"big": (radius: 1.0)},
    formations: [(
        name: "platoon",
        pattern: Kind(Line),
        position: (50.0, 50.0),
        facing: (0.0, 1.0),
        children: [
            (name: "alpha", pattern: Kind(Wedge), units: 3),
            (name: "bravo", pattern: Kind(Wedge), units: 2, template: "big"),
        ],
        units: 1,
    )],
    timeline: [
        (tick: 2, formation: "bravo", kill: [1]),
        (tick: 1, formation: "platoon/alpha", order: ChangePattern(Kind(Column))),
        (tick: 0, formation: "platoon", order: MoveTo(goal: (50.0, 80.0), pattern: Kind(Column))),
    ],
)"#;

fn built() -> Built {
    Scenario::from_ron_str(NESTED, "t.ron")
        .unwrap()
        .validate("t.ron", &[])
        .unwrap()
        .build()
        .unwrap()
}

#[test]
fn builds_the_tree_with_units_in_their_slots() {
    let b = built();
    // 3 + 2 + 1 units, spawn order: alpha's, bravo's, then the platoon's own.
    assert_eq!(b.units.len(), 6);
    assert_eq!(b.world.unit_count(), 6);
    assert_eq!(b.world.formations().count(), 3);
    let big = b.units.get(3).and_then(|u| b.world.unit(u.id)).unwrap();
    assert_eq!(big.body.radius, 1.0);
    // Nobody starts overlapping anybody.
    let bodies: Vec<_> = b.world.units().map(|(_, u)| u.body).collect();
    for (i, a) in bodies.iter().enumerate() {
        for c in &bodies[i + 1..] {
            let d = (a.position - c.position).length();
            assert!(d >= a.radius + c.radius, "{d}");
        }
    }
    // The platoon faces +y, so its line of three members spreads along x.
    let xs: Vec<f32> = bodies.iter().map(|b| b.position.x).collect();
    let spread =
        xs.iter().cloned().fold(f32::MIN, f32::max) - xs.iter().cloned().fold(f32::MAX, f32::min);
    assert!(spread > 3.0, "{spread}");
}

#[test]
fn timeline_is_sorted_and_resolved() {
    let b = built();
    let ticks: Vec<u64> = b.timeline.events.iter().map(|e| e.tick).collect();
    assert_eq!(ticks, [0, 1, 2]);
    let TimelineAction::Order(Order::MoveTo { pattern, .. }) = &b.timeline.events[0].action else {
        panic!("{:?}", b.timeline.events[0]);
    };
    // `Kind(Column)` keeps the platoon's own spacing.
    let p = pattern.as_ref().unwrap();
    assert_eq!(*p.kind(), cohort_formation::pattern::PatternKind::Column);
    // Kill index 1 of bravo is the 5th unit spawned.
    let TimelineAction::Kill(ids) = &b.timeline.events[2].action else {
        panic!();
    };
    assert_eq!(ids.as_slice(), [b.units[4].id]);
    assert_eq!(b.timeline.at(1).count(), 1);
    assert_eq!(b.timeline.at(7).count(), 0);
}

/// A timeline order to a sub-formation other than `ChangePattern` or `Cancel` is refused by
/// field: the squad follows its platoon's slot.
#[test]
fn an_order_that_would_move_a_sub_formation_is_refused_by_field() {
    let text = NESTED.replace("ChangePattern(Kind(Column))", "Face((1.0, 0.0))");
    let e = Scenario::from_ron_str(&text, "t.ron")
        .unwrap()
        .validate("t.ron", &[])
        .unwrap_err();
    let message = e.to_string();
    assert!(message.contains("timeline[1].formation"), "{message}");
    assert!(message.contains("member of another formation"), "{message}");
}

#[test]
fn ambiguous_names_need_a_path() {
    let text = NESTED.replace("name: \"bravo\"", "name: \"alpha\"");
    let e = Scenario::from_ron_str(&text, "t.ron")
        .unwrap()
        .validate("t.ron", &[])
        .unwrap_err();
    assert!(e.to_string().contains("children[1].name"), "{e}");
    let text = NESTED.replace("platoon/alpha", "alpha").replace(
        "name: \"bravo\", pattern: Kind(Wedge), units: 2",
        "name: \"bravo\", pattern: Kind(Wedge), units: 2, children: [(name: \"alpha\", units: 1)]",
    );
    let e = Scenario::from_ron_str(&text, "t.ron")
        .unwrap()
        .validate("t.ron", &[])
        .unwrap_err();
    assert!(e.to_string().contains("more than one"), "{e}");
}

#[test]
fn round_trips_through_ron() {
    let s = Scenario::from_ron_str(NESTED, "t.ron").unwrap();
    let text = s.to_ron_string().unwrap();
    assert_eq!(Scenario::from_ron_str(&text, "again.ron").unwrap(), s);
}
