//! The state hash sees one-ulp changes of every kind of evolving value, and only them.

use cohort_steering::Vec2;

use crate::army::{ArmySpec, build_army};
use crate::world::{World, WorldSettings};

/// A change made to a world.
type Edit = Box<dyn Fn(&mut World)>;

/// The next float up (one unit in the last place).
fn ulp(v: &mut f32) {
    *v = f32::from_bits(v.to_bits() + 1);
}

fn ulp_vec(v: &mut Vec2) {
    ulp(&mut v.y);
}

/// A small marching army on a small map, a few ticks in (units moving, formations on their
/// paths).
fn marching() -> World {
    let spec = ArmySpec {
        units: 60,
        map_size: 200.0,
        march: 50.0,
        ..ArmySpec::default()
    };
    let mut world = build_army(&spec, WorldSettings::default()).unwrap().world;
    for _ in 0..5 {
        world.step(0.05);
    }
    world
}

#[test]
fn equal_states_hash_equal() {
    let a = marching();
    let b = marching();
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(a.state_hash(), a.clone().state_hash());
}

#[test]
fn one_ulp_of_a_units_velocity_changes_the_hash() {
    let world = marching();
    let before = world.state_hash();
    for (id, _) in world.units() {
        let mut changed = world.clone();
        ulp(&mut changed.units.motion[id].body.velocity.x);
        assert_ne!(changed.state_hash(), before, "{id:?}");
    }
}

#[test]
fn one_ulp_of_any_unit_value_changes_the_hash() {
    let world = marching();
    let (id, _) = world.units().nth(17).unwrap();
    let edits: Vec<Edit> = vec![
        Box::new(move |w| ulp_vec(&mut w.units.motion[id].body.position)),
        Box::new(move |w| ulp_vec(&mut w.units.motion[id].body.heading)),
        Box::new(move |w| ulp(&mut w.units.motion[id].body.max_turn_rate)),
        Box::new(move |w| ulp(&mut w.units.motion[id].jump_speed)),
        Box::new(move |w| {
            if let Some(t) = &mut w.units.motion[id].slot_target {
                ulp_vec(&mut t.facing);
            }
        }),
        Box::new(move |w| w.units.motion[id].slot_target = None),
        Box::new(move |w| w.units.details[id].detour_tick += 1),
        Box::new(move |w| w.units.details[id].detour.push(Vec2::ZERO)),
        Box::new(move |w| w.units.details[id].formation = None),
        Box::new(move |w| w.units.smoothers[id].clear()),
        Box::new(move |w| {
            w.remove_unit(id);
        }),
    ];
    assert_all_differ(&world, &edits);
}

#[test]
fn one_ulp_of_a_formation_field_changes_the_hash() {
    let world = marching();
    let (id, _) = world.formations().nth(3).unwrap();
    let edits: Vec<Edit> = vec![
        Box::new(move |w| ulp(&mut w.formations[id].mean_lag)),
        Box::new(move |w| ulp(&mut w.formations[id].speed_factor)),
        Box::new(move |w| ulp_vec(&mut w.formations[id].anchor.velocity)),
        Box::new(move |w| ulp_vec(&mut w.formations[id].pass_velocity)),
        Box::new(move |w| ulp(&mut w.formations[id].settings.leash)),
        Box::new(move |w| w.formations[id].follow_speed = Some(0.0)),
        Box::new(move |w| w.formations[id].needs_assignment ^= true),
        Box::new(move |w| w.formations[id].path.push(Vec2::ZERO)),
        Box::new(move |w| w.formations[id].name.push('.')),
        Box::new(move |w| w.formations[id].members.reverse()),
        Box::new(move |w| {
            if let Some(s) = w.formations[id].slots.first_mut() {
                ulp_vec(&mut s.offset);
            }
        }),
    ];
    assert_all_differ(&world, &edits);
}

#[test]
fn the_tick_the_generator_and_the_settings_count() {
    let world = marching();
    let edits: Vec<Edit> = vec![
        Box::new(|w| w.tick += 1),
        Box::new(|w| {
            w.rng.next_u32();
        }),
        Box::new(|w| ulp(&mut w.settings.separation_weight)),
    ];
    assert_all_differ(&world, &edits);
}

/// Each edit changes the hash, and no two edits give the same one.
fn assert_all_differ(world: &World, edits: &[Edit]) {
    let mut seen = vec![world.state_hash()];
    for (i, edit) in edits.iter().enumerate() {
        let mut w = world.clone();
        edit(&mut w);
        let h = w.state_hash();
        assert!(
            !seen.contains(&h),
            "edit {i} left the hash as it was or as another"
        );
        seen.push(h);
    }
}
