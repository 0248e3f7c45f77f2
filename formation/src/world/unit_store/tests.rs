//! Unit tests of the unit store.

use super::*;
use cohort_pathing::JumpSource;

fn record(detour: Vec<Vec2>, flight: bool) -> Unit {
    Unit {
        body: Body {
            position: Vec2::new(3.0, 4.0),
            ..Body::default()
        },
        slot_target: Some(SlotTarget {
            position: Vec2::new(5.0, 4.0),
            velocity: Vec2::X,
            facing: Vec2::X,
        }),
        smoother: HeadingSmoother::new(),
        detour,
        flight: flight.then_some(Flight {
            source: JumpSource::Gap(0),
            from: Vec2::ZERO,
            velocity: Vec2::X,
            vertical_speed: 4.0,
            duration: 1.0,
            elapsed: 0.25,
            base_height: 0.0,
        }),
        formation: None,
        role: Role::Custom(7),
        jump_speed: 4.0,
        detour_tick: 9,
        next_jump: None,
        tag: 11,
    }
}

#[test]
fn a_unit_comes_back_whole_and_its_flags_follow_its_details() {
    let mut store = UnitStore::default();
    let plain = store.insert(record(Vec::new(), false));
    let routed = store.insert(record(vec![Vec2::ONE, Vec2::Y], false));
    let flying = store.insert(record(Vec::new(), true));
    let flags = |id| store.get(id).map(|m| (m.routed, m.airborne));
    assert_eq!(flags(plain), Some((false, false)));
    assert_eq!(flags(routed), Some((true, false)));
    assert_eq!(flags(flying), Some((false, true)));
    assert!(store.flags_agree());
    // The view reads the same record back.
    let view = store.view(routed).map(|v| v.to_unit());
    assert_eq!(view, Some(record(vec![Vec2::ONE, Vec2::Y], false)));
    // Removal hands back everything, from all three arrays.
    assert_eq!(store.remove(flying), Some(record(Vec::new(), true)));
    assert_eq!(store.remove(flying), None);
    assert_eq!(store.len(), 2);
    assert_eq!((store.details.len(), store.smoothers.len()), (2, 2));
    // A flag out of step with the details is caught.
    if let Some(m) = store.get_mut(plain) {
        m.airborne = true;
    }
    assert!(!store.flags_agree());
}

#[test]
fn a_loaded_store_missing_a_part_or_holding_non_finite_values_is_refused() {
    let mut store = UnitStore::default();
    let a = store.insert(record(Vec::new(), false));
    store.insert(record(Vec::new(), false));
    let flying = store.insert(record(vec![Vec2::ONE], true));
    assert!(store.check_loaded().is_ok());
    let mut no_details = store.clone();
    no_details.details.remove(a);
    assert!(no_details.check_loaded().is_err());
    let mut no_smoother = store.clone();
    no_smoother.smoothers.remove(a);
    assert!(no_smoother.check_loaded().is_err());
    let mut bad_body = store.clone();
    if let Some(m) = bad_body.get_mut(a) {
        m.body.position.x = f32::NAN;
    }
    assert!(bad_body.check_loaded().is_err());
    // Nor may the rest of a unit bring NaN in.
    let mut bad_target = store.clone();
    let target = bad_target.get_mut(a).unwrap().slot_target.as_mut().unwrap();
    target.velocity.y = f32::NAN;
    assert!(bad_target.check_loaded().is_err());
    let mut bad_jump = store.clone();
    bad_jump.get_mut(a).unwrap().jump_speed = -1.0;
    assert!(bad_jump.check_loaded().is_err());
    let mut bad_detour = store.clone();
    bad_detour
        .details
        .get_mut(a)
        .unwrap()
        .detour
        .push(Vec2::new(f32::INFINITY, 0.0));
    assert!(bad_detour.check_loaded().is_err());
    let mut bad_flight = store;
    let flight = bad_flight
        .details
        .get_mut(flying)
        .unwrap()
        .flight
        .as_mut()
        .unwrap();
    flight.elapsed = f32::NAN;
    assert!(bad_flight.check_loaded().is_err());
}
