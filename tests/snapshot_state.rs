//! State hashes and state snapshots of the world: the hash allocates nothing and sees every
//! part of the state and the map; a binary snapshot of a 10,000-unit army restores exactly;
//! crafted snapshots (a cycle in the formation tree, a NaN goal, a bad pattern in an order) are
//! refused, naming what.

use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::world::{MAX_STEP, SnapshotFormat};
use cohort::formation::{FormationSpec, Member, Order, Pattern, PatternKind, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

fn map(size: f32) -> Map {
    Map {
        min: Vec2::ZERO,
        max: Vec2::splat(size),
        ..Map::default()
    }
}

/// A platoon `p` of one squad `s` of three units, not yet ordered.
fn platoon(size: f32) -> (World, cohort::formation::FormationId) {
    let mut w = World::new(map(size), WorldSettings::default(), 7).unwrap();
    let p = w
        .add_formation(
            FormationSpec {
                name: "p".into(),
                ..FormationSpec::default()
            },
            None,
            Vec2::new(10.0, 10.0),
            Vec2::X,
        )
        .unwrap();
    let s = w
        .add_formation(
            FormationSpec {
                name: "s".into(),
                ..FormationSpec::default()
            },
            Some(p),
            Vec2::new(10.0, 10.0),
            Vec2::X,
        )
        .unwrap();
    for i in 0..3 {
        let body = Body::new(Vec2::new(9.0, 8.0 + 2.0 * i as f32), 0.5, 3.0, 8.0).unwrap();
        let u = w.add_unit(body).unwrap();
        w.add_member(s, Member::Unit(u)).unwrap();
    }
    (w, p)
}

fn ron_state(w: &World) -> String {
    String::from_utf8(w.save_state(SnapshotFormat::Ron).unwrap()).unwrap()
}

#[test]
fn the_state_hash_allocates_nothing_and_sees_every_part() {
    let (mut w, p) = platoon(40.0);
    for _ in 0..5 {
        w.step(MAX_STEP);
    }
    let base = w.state_hash();
    let counted = allocation_counter::measure(|| assert_eq!(w.state_hash(), base));
    assert_eq!(counted.count_total, 0);
    // A pending order, a draw of the generator, a setting, and the map each change it.
    let mut ordered = w.clone();
    ordered
        .order(p, Order::move_to(Vec2::new(30.0, 10.0)))
        .unwrap();
    let mut drawn = w.clone();
    drawn.rng_mut().next_u32();
    let mut tuned = w.clone();
    tuned.update_settings(|s| s.arrive_time += 0.125).unwrap();
    let (other_map, _) = platoon(41.0);
    let (same_map, _) = platoon(40.0);
    let mut seen = vec![
        base,
        ordered.state_hash(),
        drawn.state_hash(),
        tuned.state_hash(),
        other_map.state_hash(),
        same_map.state_hash(),
    ];
    assert_ne!(other_map.terrain_hash(), w.terrain_hash());
    assert_eq!(same_map.terrain_hash(), w.terrain_hash());
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 6);
}

#[test]
fn a_binary_snapshot_of_a_10k_army_restores_and_steps_bit_identically() {
    let spec = ArmySpec {
        units: 10_000,
        seed: 2,
        ..ArmySpec::default()
    };
    let mut a = build_army(&spec, WorldSettings::default()).unwrap().world;
    for _ in 0..10 {
        a.step(MAX_STEP);
    }
    let bytes = a.to_binary_snapshot().unwrap();
    let mut b = a.clone();
    // A world on the same map in another state takes the snapshot's over.
    for _ in 0..3 {
        b.step(MAX_STEP);
    }
    b.load_state(&bytes).unwrap();
    assert_eq!(b.state_hash(), a.state_hash());
    assert_eq!(b.tick(), a.tick());
    for _ in 0..5 {
        a.step(MAX_STEP);
        b.step(MAX_STEP);
        assert_eq!(b.state_hash(), a.state_hash(), "tick {}", a.tick());
    }
    assert_eq!(
        b.to_binary_snapshot().unwrap(),
        a.to_binary_snapshot().unwrap()
    );
    eprintln!("10k army binary state snapshot: {} bytes", bytes.len());
}

#[test]
fn a_cycle_in_the_formation_tree_is_refused() {
    let (w, _) = platoon(40.0);
    let text = ron_state(&w);
    // p (slot 1) becomes a child of s (slot 2), which stays p's child: links agree both
    // ways, and only the walk up the parents finds no root.
    let p_row = r#"name:"p",parent:None,members:[Formation((idx:2,version:1))]"#;
    let s_row = r#"name:"s",parent:Some((idx:1,version:1)),members:["#;
    assert!(text.contains(p_row) && text.contains(s_row), "{text}");
    let crafted = text
        .replace(
            p_row,
            r#"name:"p",parent:Some((idx:2,version:1)),members:[Formation((idx:2,version:1))]"#,
        )
        .replace(s_row, &format!("{s_row}Formation((idx:1,version:1)),"));
    let mut target = w.clone();
    let err = target
        .load_state(crafted.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("cycle"), "{err}");
    assert_eq!(target.state_hash(), w.state_hash(), "left as it was");
    // The whole-world RON snapshot is checked the same way.
    let full = w.to_snapshot().unwrap();
    assert!(full.contains(p_row));
    let crafted = full
        .replace(
            p_row,
            r#"name:"p",parent:Some((idx:2,version:1)),members:[Formation((idx:2,version:1))]"#,
        )
        .replace(s_row, &format!("{s_row}Formation((idx:1,version:1)),"));
    let err = World::from_snapshot(&crafted).unwrap_err().to_string();
    assert!(err.contains("cycle"), "{err}");
}

#[test]
fn a_nan_goal_in_a_pending_order_or_a_formation_is_refused_naming_it() {
    let (mut w, p) = platoon(40.0);
    w.order(p, Order::move_to(Vec2::new(12.345_678, 10.0)))
        .unwrap();
    // RON: the pending order's goal.
    let text = ron_state(&w);
    let goal = "goal:(12.345678,10.0)";
    assert!(text.contains(goal), "{text}");
    let crafted = text.replace(goal, "goal:(NaN,10.0)");
    let err = w
        .clone()
        .load_state(crafted.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pending") && err.contains("goal") && err.contains("NaN"),
        "{err}"
    );
    // Binary: the same float's bits replaced by a NaN's.
    let bytes = w.to_binary_snapshot().unwrap();
    let bits = 12.345_678f32.to_le_bytes();
    let at = bytes.windows(4).position(|b| b == bits).unwrap();
    let mut crafted = bytes.clone();
    crafted[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = w.clone().load_state(&crafted).unwrap_err().to_string();
    assert!(err.contains("pending") && err.contains("goal"), "{err}");
    // A formation's goal (after the order is applied).
    w.step(MAX_STEP);
    let text = ron_state(&w);
    let goal = "goal:Some((12.345678,10.0))";
    assert!(text.contains(goal), "{text}");
    let crafted = text.replace(goal, "goal:Some((inf,10.0))");
    let err = w
        .clone()
        .load_state(crafted.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("formations") && err.contains("goal"), "{err}");
    // The state as saved loads.
    w.clone().load_state(text.as_bytes()).unwrap();
}

/// A pending order's pattern is checked as the snapshot is read, like the order itself when
/// it was given: a crafted bad spacing is refused, saying what is wrong, and the world is left
/// as it was.
#[test]
fn a_bad_pattern_in_a_pending_order_is_refused() {
    let (mut w, p) = platoon(40.0);
    let column = Pattern {
        spacing: 1.234_567_8,
        ..Pattern::for_radius(PatternKind::Column, 0.5)
    };
    w.order(p, Order::change_pattern(column).unwrap()).unwrap();
    let text = ron_state(&w);
    let spacing = "spacing:1.2345678";
    assert!(text.contains(spacing), "{text}");
    let crafted = text.replace(spacing, "spacing:-1.0");
    let mut target = w.clone();
    let err = target
        .load_state(crafted.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("spacing must be finite and > 0"), "{err}");
    assert_eq!(target.state_hash(), w.state_hash(), "left as it was");
    // Binary: the same float's bits replaced by a negative one's.
    let bytes = w.to_binary_snapshot().unwrap();
    let bits = 1.234_567_8f32.to_le_bytes();
    let at = bytes.windows(4).position(|b| b == bits).unwrap();
    let mut crafted = bytes.clone();
    crafted[at..at + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
    assert!(target.load_state(&crafted).is_err());
    assert_eq!(target.state_hash(), w.state_hash(), "left as it was");
    // The state as saved loads, and the order takes effect.
    target.load_state(text.as_bytes()).unwrap();
    target.step(MAX_STEP);
    let now = target.formation(p).unwrap().pattern().spacing();
    assert_eq!(now, 1.234_567_8);
}
