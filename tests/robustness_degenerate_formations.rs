//! Degenerate formations in the `World`: an empty world, empty and single-unit formations,
//! clumps of units on one point, more members than a pattern has slots, slots beyond the map's
//! edge. Each test states the defined behaviour it checks; `docs/robustness.md` lists them all.

mod robustness_support;

use cohort::formation::pattern::{Pattern, PatternKind, Role, Slot};
use cohort::formation::{FormationSpec, Order, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::Vec2;
use robustness_support::{
    add_units, check_step, max_free_overlap, max_overlap, max_slot_error, run_until, spec, valid,
};

const DT: f32 = 1.0 / 20.0;

fn open_map() -> Map {
    Map::with_bounds(Vec2::ZERO, Vec2::splat(60.0))
}

fn world(map: Map) -> World {
    World::new(map, WorldSettings::default(), 9).expect("world")
}

/// A formation is done when it holds and every unit is within `tol` of its slot.
fn settled(f: cohort::formation::FormationId, tol: f32) -> impl FnMut(&World) -> bool {
    move |w: &World| w.formation(f).is_some_and(|x| x.is_holding()) && max_slot_error(w, f) < tol
}

#[test]
fn an_empty_world_steps_and_hashes_the_same_every_time() {
    let mut a = world(open_map());
    let mut b = world(open_map());
    for _ in 0..10 {
        a.step(DT);
        b.step(DT);
    }
    assert_eq!(a.tick(), 10);
    assert_eq!(a.state_hash(), b.state_hash());
    check_step(&a).unwrap();
}

/// Zero units: an empty formation takes orders but has no pace (its slowest member's speed
/// is 0), so it waits; units that join later carry the order out.
#[test]
fn an_empty_formation_waits_for_members_then_arrives() {
    let mut w = world(open_map());
    let start = Vec2::new(10.0, 10.0);
    let f = w
        .add_formation(spec(PatternKind::Line), None, start, Vec2::X)
        .unwrap();
    w.order(f, Order::move_to(Vec2::new(40.0, 30.0))).unwrap();
    for _ in 0..100 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    let anchor = w.formation(f).unwrap().anchor.position;
    assert!((anchor - start).length() < 1e-3, "{anchor}");
    assert!(w.formation(f).unwrap().slots().is_empty());
    add_units(&mut w, f, 4, |i| start + Vec2::new(0.0, i as f32 * 1.5));
    let ticks = run_until(&mut w, DT, 1200, settled(f, 0.5)).unwrap();
    let anchor = w.formation(f).unwrap().anchor.position;
    assert!(
        (anchor - Vec2::new(40.0, 30.0)).length() < 0.3,
        "{anchor} after {ticks}"
    );
}

#[test]
fn a_single_unit_formation_arrives() {
    let mut w = world(open_map());
    let f = w
        .add_formation(spec(PatternKind::Wedge), None, Vec2::new(5.0, 5.0), Vec2::X)
        .unwrap();
    let u = add_units(&mut w, f, 1, |_| Vec2::new(5.0, 5.0))[0];
    w.order(f, Order::move_to(Vec2::new(50.0, 45.0))).unwrap();
    run_until(&mut w, DT, 1200, settled(f, 0.3)).unwrap();
    let p = w.unit(u).unwrap().body.position;
    assert!((p - Vec2::new(50.0, 45.0)).length() < 0.3, "{p}");
}

fn clump(kind: PatternKind) -> (World, cohort::formation::FormationId) {
    let mut w = world(Map::with_bounds(Vec2::ZERO, Vec2::splat(120.0)));
    let at = Vec2::new(20.0, 20.0);
    let f = w.add_formation(spec(kind), None, at, Vec2::X).unwrap();
    add_units(&mut w, f, 30, |_| at);
    for _ in 0..20 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    (w, f)
}

/// Thirty units spawned on exactly one point are split apart (deterministic split
/// directions) within a second, whatever the pattern.
#[test]
fn units_all_at_one_point_separate_within_a_second() {
    for kind in [
        PatternKind::Box,
        PatternKind::Line,
        PatternKind::DefensiveCircle,
    ] {
        let (w, _) = clump(kind.clone());
        let overlap = max_overlap(&w);
        assert!(overlap < 0.05, "{kind:?}: overlap {overlap} after 20 ticks");
        assert_eq!(w.unit_count(), 30);
    }
}

/// The clump then marches to a goal: every unit must reach its slot.
#[test]
fn units_all_at_one_point_then_arrive_in_formation() {
    for kind in [PatternKind::Box, PatternKind::Wedge] {
        let (mut w, f) = clump(kind.clone());
        w.order(f, Order::move_to(Vec2::new(60.0, 50.0))).unwrap();
        let r = run_until(&mut w, DT, 2400, settled(f, 0.5));
        assert!(
            r.is_ok(),
            "{kind:?}: {r:?}, slot error {}",
            max_slot_error(&w, f)
        );
        assert!(max_overlap(&w) < 0.05);
    }
}

/// Eleven members in a three-slot custom pattern: the block is repeated behind itself, every
/// member gets its own slot, they arrive without overlapping.
#[test]
fn more_members_than_a_fixed_pattern_has_slots_all_get_slots() {
    let mut w = world(open_map());
    let three = Pattern {
        kind: PatternKind::Custom(vec![
            Slot::new(Vec2::ZERO, Role::Any),
            Slot::new(Vec2::new(0.0, 1.5), Role::Any),
            Slot::new(Vec2::new(0.0, -1.5), Role::Any),
        ]),
        spacing: 1.5,
        unit_radius: 0.5,
    };
    let f = w
        .add_formation(
            FormationSpec {
                pattern: three,
                ..FormationSpec::default()
            },
            None,
            Vec2::new(20.0, 30.0),
            Vec2::X,
        )
        .unwrap();
    add_units(&mut w, f, 11, |i| Vec2::new(10.0, 20.0 + 1.5 * i as f32));
    w.order(f, Order::move_to(Vec2::new(40.0, 30.0))).unwrap();
    run_until(&mut w, DT, 2400, settled(f, 0.5)).unwrap();
    let fm = w.formation(f).unwrap();
    assert_eq!(fm.slots().len(), 11);
    let slots: Vec<Vec2> = (0..11)
        .map(|i| fm.slot_world_position(i).unwrap())
        .collect();
    for (i, a) in slots.iter().enumerate() {
        for b in &slots[i + 1..] {
            assert!((*a - *b).length() >= 1.0 - 1e-4, "slots {a} and {b}");
        }
    }
    assert!(max_overlap(&w) < 0.05);
}

/// Slots laid out beyond the edge of the map: units stay inside the bounds, finite and
/// within speed; those pressed into the edge may squeeze each other (the bounds win), the
/// others do not overlap.
#[test]
fn slots_beyond_the_map_edge_keep_units_in_bounds() {
    let mut w = world(Map::with_bounds(Vec2::ZERO, Vec2::splat(30.0)));
    let f = w
        .add_formation(
            spec(PatternKind::Column),
            None,
            Vec2::new(5.0, 15.0),
            Vec2::X,
        )
        .unwrap();
    add_units(&mut w, f, 24, |i| Vec2::new(5.0, 1.0 + i as f32 * 1.1));
    for _ in 0..200 {
        w.step(DT);
        check_step(&w).unwrap();
    }
    for (_, u) in w.units() {
        let p = u.body.position;
        assert!(p.cmpge(Vec2::splat(0.5 - 1e-4)).all() && p.cmple(Vec2::splat(29.5 + 1e-4)).all());
    }
    let map = valid(w.map());
    let free = max_free_overlap(&w, &map);
    assert!(free < 0.05, "{free}");
    let all = max_overlap(&w);
    assert!(all < 0.35, "{all}");
}
