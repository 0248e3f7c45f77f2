//! `World::formation_status` and `World::unit_arrived`, measured on a platoon of two squads:
//! each order shows in the status of the platoon and of its squads, a move ends `Arrived`
//! exactly when every unit has arrived, and the scenario runner's `arrived` metric counts the
//! same units the world's query does.

mod platoon_support;

use cohort::formation::tactics::{Phase, Play, Playbook, SlotMotion};
use cohort::formation::{FormationStatus, Order, WorldError};
use cohort::steering::Vec2;
use platoon_support::{DT, platoon, step_until, units};

#[test]
fn a_move_is_moving_then_settling_then_arrived_when_every_unit_has() {
    let mut p = platoon();
    let all = units(&p.world, p.platoon);
    p.world
        .order(p.platoon, Order::move_to(Vec2::new(70.0, 30.0)))
        .expect("order");
    p.world.step(DT);
    for id in [p.platoon, p.squads[0], p.squads[1]] {
        assert_eq!(p.world.formation_status(id), Ok(FormationStatus::Moving));
    }
    assert!(all.iter().all(|&u| !p.world.unit_arrived(u)));
    let mut seen = Vec::new();
    let t = step_until(&mut p.world, 3000, |w| {
        let s = w.formation_status(p.platoon).expect("platoon");
        if seen.last() != Some(&s) {
            seen.push(s);
        }
        // Arrived exactly when every unit has arrived.
        let every = all.iter().all(|&u| w.unit_arrived(u));
        assert_eq!(s == FormationStatus::Arrived, every, "{s:?}");
        s == FormationStatus::Arrived
    });
    assert!(t.is_some(), "never arrived; went through {seen:?}");
    assert_eq!(seen.first(), Some(&FormationStatus::Moving), "{seen:?}");
    assert_eq!(seen.last(), Some(&FormationStatus::Arrived), "{seen:?}");
    for s in p.squads {
        assert_eq!(p.world.formation_status(s), Ok(FormationStatus::Arrived));
    }
}

#[test]
fn turning_forming_and_plays_show_in_the_status() {
    let mut p = platoon();
    step_until(&mut p.world, 900, |w| {
        w.formation_status(p.platoon) == Ok(FormationStatus::Arrived)
    })
    .expect("formed up");
    p.world
        .order(p.platoon, Order::Face(Vec2::Y))
        .expect("face");
    p.world.step(DT);
    assert_eq!(
        p.world.formation_status(p.platoon),
        Ok(FormationStatus::Turning)
    );
    assert_eq!(
        p.world.formation_status(p.squads[0]),
        Ok(FormationStatus::Turning)
    );
    let playbook = Playbook {
        name: "b".into(),
        description: String::new(),
        plays: vec![Play {
            name: "p".into(),
            phases: vec![Phase {
                duration: 2.0,
                slots: vec![
                    SlotMotion::Fixed {
                        offset: Vec2::new(0.0, 6.0),
                        facing: Vec2::X,
                    },
                    SlotMotion::Fixed {
                        offset: Vec2::new(0.0, -6.0),
                        facing: Vec2::X,
                    },
                ],
                ..Phase::default()
            }],
            ..Play::default()
        }],
    }
    .validate()
    .expect("playbook");
    let play = Order::RunPlay {
        playbook,
        play: "p".into(),
        origin: None,
        facing: None,
    };
    p.world.order(p.platoon, play).expect("play");
    p.world.step(DT);
    for id in [p.platoon, p.squads[0], p.squads[1]] {
        assert_eq!(
            p.world.formation_status(id),
            Ok(FormationStatus::RunningPlay)
        );
    }
    // The play ends by holding its last arrangement; the platoon then settles and arrives.
    let t = step_until(&mut p.world, 1800, |w| {
        w.formation_status(p.platoon) == Ok(FormationStatus::Arrived)
    });
    assert!(t.is_some(), "{:?}", p.world.formation_status(p.platoon));
    // A squad taken out of the platoon and sent loose: its units run to their final slots.
    let squad = p.squads[0];
    assert_eq!(p.world.detach_formation(squad), Ok(Some(p.platoon)));
    let loose = Order::MoveTo {
        goal: Vec2::new(60.0, 10.0),
        facing: None,
        pattern: None,
        at_slowest: false,
    };
    p.world.order(squad, loose).expect("move");
    p.world.step(DT);
    // The anchor is at the goal at once; the loose move hands over to holding there while the
    // units run to their slots, so the squad is forming or settling, not arrived.
    let status = p.world.formation_status(squad);
    assert!(
        matches!(
            status,
            Ok(FormationStatus::Forming | FormationStatus::Settling)
        ),
        "{status:?}"
    );
    let anchor = p.world.formation(squad).expect("squad").anchor.position;
    assert_eq!(anchor, Vec2::new(60.0, 10.0));
    let t = step_until(&mut p.world, 1800, |w| {
        w.formation_status(squad) == Ok(FormationStatus::Arrived)
    });
    assert!(t.is_some(), "{:?}", p.world.formation_status(squad));
    // A formation that does not exist has no status.
    let gone = p.squads[1];
    p.world.remove_formation(gone);
    assert_eq!(
        p.world.formation_status(gone),
        Err(WorldError::NoSuchFormation(gone))
    );
}

#[test]
fn the_runners_arrived_metric_counts_the_units_the_world_says_have_arrived() {
    for name in ["open_field", "platoon", "casualties"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(format!("{name}.ron"));
        let mut run =
            cohort_demos::runner::load_runner(&path, None, false).unwrap_or_else(|e| panic!("{e}"));
        run.run(400, |_| {}).unwrap_or_else(|e| panic!("{e}"));
        let world = run.world();
        let arrived = world
            .units()
            .filter(|&(id, _)| world.unit_arrived(id))
            .count();
        assert_eq!(run.report().arrived, arrived as u64, "{name}");
        run.run_to_end().unwrap_or_else(|e| panic!("{e}"));
        let world = run.world();
        let arrived = world
            .units()
            .filter(|&(id, _)| world.unit_arrived(id))
            .count();
        assert!(arrived > 0, "{name}: nobody arrived");
        assert_eq!(run.report().arrived, arrived as u64, "{name}");
    }
}
