//! Unit tests of the tactics stage.

use cohort_pathing::Map;
use cohort_steering::{Body, Vec2};

use crate::formation::{FormationSpec, Member, Motion};
use crate::order::Order;
use crate::tactics::{Phase, Play, Playbook, SlotMotion, Tactic, ValidPlaybook};
use crate::world::{World, WorldSettings};

fn book() -> ValidPlaybook {
    Playbook {
        name: "b".into(),
        description: String::new(),
        plays: vec![Play {
            name: "p".into(),
            phases: vec![Phase {
                duration: 1.0,
                slots: vec![
                    SlotMotion::Fixed {
                        offset: Vec2::new(3.0, 0.0),
                        facing: Vec2::X,
                    },
                    SlotMotion::Fixed {
                        offset: Vec2::new(-3.0, 0.0),
                        facing: Vec2::X,
                    },
                ],
                ..Phase::default()
            }],
            ..Play::default()
        }],
    }
    .validate()
    .unwrap()
}

fn world_with(n: usize) -> (World, crate::ids::FormationId) {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(50.0, 50.0));
    let mut w = World::new(map, WorldSettings::default(), 1).unwrap();
    let f = w
        .add_formation(
            FormationSpec::default(),
            None,
            Vec2::new(25.0, 25.0),
            Vec2::X,
        )
        .unwrap();
    for i in 0..n {
        let p = Vec2::new(25.0 + i as f32 * 2.0, 25.0);
        let u = w.add_unit(Body::new(p, 0.5, 3.0, 8.0).unwrap()).unwrap();
        w.add_member(f, Member::Unit(u)).unwrap();
    }
    (w, f)
}

fn run(f: crate::ids::FormationId, w: &mut World) {
    let order = Order::RunPlay {
        playbook: book(),
        play: "p".into(),
        origin: None,
        facing: None,
    };
    w.order(f, order).unwrap();
    w.step(1.0 / 30.0);
}

#[test]
fn members_are_assigned_to_the_nearest_slots_and_extras_hold() {
    let (mut w, f) = world_with(3);
    run(f, &mut w);
    let Some(Tactic::Play(p)) = w.tactic(f) else {
        panic!("no play");
    };
    // Units at x = 25, 27, 29: the slot at +3 (x = 28) takes the unit at 27 or 29, the
    // slot at -3 (x = 22) the one at 25; one unit is an extra holding where it stood.
    assert_eq!(p.holders.iter().flatten().count(), 2);
    assert_eq!(p.extras.len(), 1);
    let Some(Member::Unit(back)) = p.holder(1) else {
        panic!()
    };
    assert!((w.unit(back).unwrap().body.position.x - 25.0).abs() < 0.1);
    // A unit killed mid-play makes the play reassign: everyone left holds a slot.
    let Some(Member::Unit(front)) = p.holder(0) else {
        panic!()
    };
    w.remove_unit(front);
    w.step(1.0 / 30.0);
    let Some(Tactic::Play(p)) = w.tactic(f) else {
        panic!("no play");
    };
    assert_eq!(p.holders.iter().flatten().count(), 2);
    assert!(p.extras.is_empty());
}

#[test]
fn any_other_order_ends_the_tactic_and_is_applied() {
    let (mut w, f) = world_with(2);
    run(f, &mut w);
    assert_eq!(w.formation(f).unwrap().motion, Motion::Loose);
    w.order(f, Order::Face(Vec2::Y)).unwrap();
    w.step(1.0 / 30.0);
    assert!(w.tactic(f).is_none());
    assert_eq!(w.formation(f).unwrap().motion, Motion::Turning);
    // An empty formation runs a play without panicking and ends holding.
    let (mut w, f) = world_with(0);
    run(f, &mut w);
    for _ in 0..40 {
        w.step(1.0 / 30.0);
    }
    assert!(w.tactic(f).is_none());
    assert!(w.formation(f).unwrap().is_holding());
}
