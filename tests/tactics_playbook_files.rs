//! Bad plays and playbook files: refused orders, degenerate formations, and a scenario that
//! names a broken playbook (errors name `file:line:col` or the field).

use cohort::formation::tactics::{ValidPlaybook, load_playbook};
use cohort::formation::{FormationSpec, Member, Order, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 30.0;

fn book(name: &str) -> ValidPlaybook {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("playbooks")
        .join(format!("{name}.ron"));
    load_playbook(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn run_play(book: &ValidPlaybook, play: &str, origin: Vec2) -> Order {
    Order::RunPlay {
        playbook: book.clone(),
        play: play.into(),
        origin: Some(origin),
        facing: Some(Vec2::X),
    }
}

fn world_with_team() -> (World, cohort::formation::FormationId) {
    let mut w = World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 80.0)),
        WorldSettings::default(),
        11,
    )
    .unwrap();
    let f = w
        .add_formation(
            FormationSpec::default(),
            None,
            Vec2::new(20.0, 40.0),
            Vec2::X,
        )
        .unwrap();
    for i in 0..4 {
        let u = w
            .add_unit(Body::new(Vec2::new(20.0, 37.0 + 2.0 * i as f32), 0.5, 3.0, 8.0).unwrap())
            .unwrap();
        w.add_member(f, Member::Unit(u)).unwrap();
    }
    (w, f)
}

#[test]
fn unknown_play_and_bad_frame_are_refused() {
    let (mut w, f) = world_with_team();
    let book = book("fire_team_drill");
    let e = w
        .order(f, run_play(&book, "no_such_play", Vec2::ZERO))
        .unwrap_err();
    assert!(e.to_string().contains("no_such_play"), "{e}");
    let bad = Order::RunPlay {
        playbook: book.clone(),
        play: "peel_left".into(),
        origin: Some(Vec2::new(f32::NAN, 0.0)),
        facing: None,
    };
    assert!(w.order(f, bad).is_err());
    // An empty formation running a play neither panics nor produces NaN.
    let empty = w
        .add_formation(FormationSpec::default(), None, Vec2::new(5.0, 5.0), Vec2::X)
        .unwrap();
    w.order(empty, run_play(&book, "peel_left", Vec2::new(5.0, 5.0)))
        .unwrap();
    for _ in 0..400 {
        w.step(DT);
    }
    assert!(w.formation(empty).unwrap().anchor.position.is_finite());
}

#[test]
fn a_scenario_names_a_bad_playbook_by_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("cohort-tactics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("book.ron"),
        "(\n  name: \"b\",\n  plays: [(name: \"a\" phases: [])],\n)\n",
    )
    .unwrap();
    let scenario = |play: &str| {
        format!(
            "(name: \"s\", formations: [(name: \"f\", position: (5.0, 5.0), units: 2)], \
             timeline: [(tick: 0, formation: \"f\", order: RunPlay(playbook: \"{play}\", play: \"a\"))])"
        )
    };
    std::fs::write(dir.join("s.ron"), scenario("book.ron")).unwrap();
    let e = cohort_demos::scenario::Scenario::load(dir.join("s.ron"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("timeline[0].order.playbook"), "{e}");
    assert!(e.contains("book.ron:3:"), "{e}");
    // A good book with an unknown play names the play field.
    std::fs::write(
        dir.join("book.ron"),
        "(name: \"b\", plays: [(name: \"z\", phases: [(duration: 1.0, slots: [Fixed(offset: (0.0, 0.0))])])])",
    )
    .unwrap();
    let e = cohort_demos::scenario::Scenario::load(dir.join("s.ron"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("timeline[0].order.play:"), "{e}");
    std::fs::write(dir.join("s2.ron"), scenario("missing.ron")).unwrap();
    assert!(cohort_demos::scenario::Scenario::load(dir.join("s2.ron")).is_err());
    std::fs::remove_dir_all(&dir).ok();
}
