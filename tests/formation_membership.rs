//! Orders to a formation inside another (a squad in a platoon), measured: a change of pattern
//! is carried out in the squad's slot and the platoon keeps all its units; any other order to
//! the squad is refused with an error that says what to do, and nothing changes; a squad
//! detached explicitly moves on its own and arrives, and attached again it rejoins its slot.

mod platoon_support;

use cohort::formation::tactics::{Phase, Play, Playbook, SlotMotion};
use cohort::formation::{FormationStatus, Order, Pattern, PatternKind, WorldError};
use cohort::steering::Vec2;
use platoon_support::{platoon, step_until, units};

#[test]
fn a_change_of_pattern_to_a_squad_is_carried_out_inside_its_platoon() {
    let mut p = platoon();
    let squad = p.squads[1];
    let column = Pattern::for_radius(PatternKind::Column, 0.5);
    p.world
        .order(squad, Order::change_pattern(column).expect("valid"))
        .expect("a member takes a change of pattern");
    let arrived = step_until(&mut p.world, 900, |w| {
        w.formation_status(p.platoon) == Ok(FormationStatus::Arrived)
    });
    assert!(arrived.is_some(), "the platoon never settled");
    let w = &p.world;
    assert_eq!(units(w, p.platoon).len(), 11, "the platoon lost units");
    assert_eq!(w.formation(squad).and_then(|f| f.parent), Some(p.platoon));
    let f = w.formation(squad).expect("squad");
    assert_eq!(f.pattern().pattern().kind, PatternKind::Column);
    // Laid out as a column: its six units stand one behind the other (one lateral position).
    let ys: Vec<f32> = units(w, squad)
        .iter()
        .filter_map(|&u| w.unit(u).and_then(|u| u.slot_target))
        .map(|t| (t.position - f.anchor.position).dot(f.anchor.orientation.perp()))
        .collect();
    assert_eq!(ys.len(), 6);
    assert!(ys.iter().all(|y| y.abs() < 1e-3), "lateral offsets {ys:?}");
    assert!(units(w, p.platoon).iter().all(|&u| w.unit_arrived(u)));
}

#[test]
fn an_order_that_would_move_a_squad_on_its_own_is_refused_and_changes_nothing() {
    let mut p = platoon();
    let squad = p.squads[0];
    let before = p.world.state_hash();
    let playbook = Playbook {
        name: "b".into(),
        description: String::new(),
        plays: vec![Play {
            name: "p".into(),
            phases: vec![Phase {
                duration: 1.0,
                slots: vec![SlotMotion::Fixed {
                    offset: Vec2::new(3.0, 0.0),
                    facing: Vec2::X,
                }],
                ..Phase::default()
            }],
            ..Play::default()
        }],
    }
    .validate()
    .expect("playbook");
    let mut orders = vec![
        Order::move_to(Vec2::new(80.0, 30.0)),
        Order::Face(Vec2::Y),
        Order::Halt,
        Order::BoundingOverwatch {
            goal: Vec2::new(80.0, 30.0),
            threat: Vec2::new(110.0, 30.0),
            settings: Default::default(),
        },
        Order::FormAlong {
            points: vec![Vec2::new(40.0, 20.0), Vec2::new(40.0, 30.0)],
            facing: None,
            at_slowest: true,
        },
    ];
    orders.push(Order::RunPlay {
        playbook,
        play: "p".into(),
        origin: None,
        facing: None,
    });
    for order in orders {
        let e = p.world.order(squad, order.clone()).expect_err("refused");
        assert_eq!(
            e,
            WorldError::AttachedMember {
                formation: squad,
                parent: p.platoon,
            },
            "{order:?}"
        );
        assert!(e.to_string().contains("detach_formation"), "{e}");
    }
    assert_eq!(
        p.world.state_hash(),
        before,
        "a refused order changed the world"
    );
    for _ in 0..60 {
        p.world.step(platoon_support::DT);
    }
    assert_eq!(units(&p.world, p.platoon).len(), 11);
    assert_eq!(
        p.world.formation(squad).and_then(|f| f.parent),
        Some(p.platoon)
    );
}

#[test]
fn a_detached_squad_moves_on_its_own_and_rejoins_its_slot_when_attached() {
    let mut p = platoon();
    let squad = p.squads[0];
    // Let the platoon form up first.
    step_until(&mut p.world, 900, |w| {
        w.formation_status(p.platoon) == Ok(FormationStatus::Arrived)
    })
    .expect("formed up");
    assert_eq!(p.world.detach_formation(squad), Ok(Some(p.platoon)));
    assert_eq!(p.world.detach_formation(squad), Ok(None), "already free");
    assert_eq!(units(&p.world, p.platoon).len(), 6);
    let goal = Vec2::new(60.0, 15.0);
    p.world
        .order(squad, Order::move_to(goal))
        .expect("free now");
    let t = step_until(&mut p.world, 1800, |w| {
        w.formation_status(squad) == Ok(FormationStatus::Arrived)
    });
    assert!(t.is_some(), "the detached squad never arrived");
    let anchor = p.world.formation(squad).expect("squad").anchor.position;
    assert!((anchor - goal).length() < 0.5, "anchor at {anchor}");
    // The platoon did not move with it.
    let platoon_at = p
        .world
        .formation(p.platoon)
        .expect("platoon")
        .anchor
        .position;
    assert!(
        (platoon_at - Vec2::new(20.0, 30.0)).length() < 1.0,
        "{platoon_at}"
    );

    // A formation cannot be attached inside its own subtree.
    assert_eq!(
        p.world.attach_formation(p.platoon, p.platoon),
        Err(WorldError::Cycle(p.platoon))
    );
    p.world.attach_formation(squad, p.platoon).expect("attach");
    assert_eq!(units(&p.world, p.platoon).len(), 11);
    let t = step_until(&mut p.world, 1800, |w| {
        w.formation_status(p.platoon) == Ok(FormationStatus::Arrived)
    });
    assert!(t.is_some(), "the squad never rejoined its slot");
    let squad_at = p.world.formation(squad).expect("squad").anchor.position;
    assert!(
        (squad_at - platoon_at).length() < 10.0,
        "the squad stands at {squad_at}, away from its platoon at {platoon_at}"
    );
}

#[test]
fn cancel_withdraws_queued_orders_and_never_stops_a_moving_formation() {
    let mut p = platoon();
    let start = p
        .world
        .formation(p.platoon)
        .expect("platoon")
        .anchor
        .position;
    p.world
        .order(p.platoon, Order::move_to(Vec2::new(90.0, 30.0)))
        .expect("order");
    p.world.order(p.platoon, Order::Cancel).expect("cancel");
    for _ in 0..30 {
        p.world.step(platoon_support::DT);
    }
    let f = p.world.formation(p.platoon).expect("platoon");
    assert!(f.is_holding(), "the withdrawn move was carried out");
    assert!((f.anchor.position - start).length() < 1.0);
    // Given once the move has taken effect, a cancel leaves the move going.
    p.world
        .order(p.platoon, Order::move_to(Vec2::new(90.0, 30.0)))
        .expect("order");
    p.world.step(platoon_support::DT);
    p.world.order(p.platoon, Order::Cancel).expect("cancel");
    let x0 = p
        .world
        .formation(p.platoon)
        .expect("platoon")
        .anchor
        .position
        .x;
    for _ in 0..60 {
        p.world.step(platoon_support::DT);
    }
    let f = p.world.formation(p.platoon).expect("platoon");
    assert_eq!(
        p.world.formation_status(p.platoon),
        Ok(FormationStatus::Moving)
    );
    assert!(f.anchor.position.x > x0 + 1.0, "the platoon stopped");
    // Halt stops it.
    p.world.order(p.platoon, Order::Halt).expect("halt");
    p.world.step(platoon_support::DT);
    assert!(p.world.formation(p.platoon).expect("platoon").is_holding());
}
