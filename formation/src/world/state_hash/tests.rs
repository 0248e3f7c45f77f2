//! The state hash sees one-ulp changes of every kind of evolving value, and only them.

use cohort_pathing::JumpSource;
use cohort_steering::Vec2;
use slotmap::Key;

use super::key_word;
use crate::anchor::AnchorMode;
use crate::army::{ArmySpec, build_army};
use crate::formation::{Member, Motion};
use crate::ids::{FormationId, UnitId};
use crate::pattern::{Pattern, PatternKind, Role, Slot, ValidPattern};
use crate::world::{Flight, PlannedJump, World, WorldSettings};

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
        Box::new(move |w| w.units.smoothers[id].record(Vec2::new(0.0, 1.0))),
        Box::new(move |w| {
            w.remove_unit(id);
        }),
        Box::new(move |w| ulp(&mut w.units.motion[id].body.radius)),
        Box::new(move |w| ulp(&mut w.units.motion[id].body.mass)),
        Box::new(move |w| ulp(&mut w.units.motion[id].body.max_speed)),
        Box::new(move |w| ulp(&mut w.units.motion[id].body.max_force)),
        Box::new(move |w| {
            if let Some(t) = &mut w.units.motion[id].slot_target {
                ulp_vec(&mut t.position);
            }
        }),
        Box::new(move |w| w.units.motion[id].role = Role::Custom(3)),
        Box::new(move |w| w.units.motion[id].role = Role::Custom(4)),
        Box::new(move |w| w.units.details[id].tag += 1),
        Box::new(move |w| w.units.details[id].detour.push(Vec2::new(0.0, 1e-30))),
        Box::new(move |w| w.units.details[id].next_jump = Some(jump(0))),
        Box::new(move |w| w.units.details[id].next_jump = Some(jump(1))),
        Box::new(move |w| w.units.details[id].flight = Some(flight(0.5))),
        Box::new(move |w| w.units.details[id].flight = Some(flight(0.25))),
    ];
    assert_all_differ(&world, &edits);
}

/// A planned jump over the gap `gap`.
fn jump(gap: usize) -> PlannedJump {
    PlannedJump {
        source: JumpSource::Gap(gap),
        takeoff: Vec2::new(1.0, 2.0),
        landing: Vec2::new(3.0, 2.0),
    }
}

/// A flight `elapsed` seconds in.
fn flight(elapsed: f32) -> Flight {
    Flight {
        source: JumpSource::Link(0),
        from: Vec2::new(1.0, 2.0),
        velocity: Vec2::new(4.0, 0.0),
        vertical_speed: 3.0,
        duration: 1.0,
        elapsed,
        base_height: 0.0,
    }
}

#[test]
fn the_caches_a_snapshot_leaves_out_do_not_count() {
    let world = marching();
    let before = world.state_hash();
    let (id, _) = world.units().nth(17).unwrap();
    let mut changed = world.clone();
    let m = &mut changed.units.motion[id];
    m.group = m.group.wrapping_add(1);
    m.routed ^= true;
    m.airborne ^= true;
    assert_eq!(changed.state_hash(), before);
}

#[test]
fn every_key_has_an_odd_version() {
    // The member words (`state_hash/formations.rs`) rest on it.
    let world = marching();
    let odd = |w: u64| w >> 32 & 1 == 1;
    assert!(world.units().all(|(id, _)| odd(key_word(id))));
    assert!(world.formations().all(|(id, _)| odd(key_word(id))));
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
        Box::new(move |w| {
            if let Some(s) = w.formations[id].slots.first_mut() {
                ulp_vec(&mut s.facing);
            }
        }),
        Box::new(move |w| {
            if let Some(s) = w.formations[id].slots.last_mut() {
                s.role = Role::Custom(9);
            }
        }),
        Box::new(move |w| {
            // The same key data, the other kind of member.
            if let Some(m) = w.formations[id].members.first_mut() {
                *m = match *m {
                    Member::Unit(u) => Member::Formation(FormationId::from(u.data())),
                    Member::Formation(f) => Member::Unit(UnitId::from(f.data())),
                };
            }
        }),
        Box::new(move |w| ulp(&mut w.formations[id].slowest_speed)),
        Box::new(move |w| ulp(&mut w.formations[id].weakest_accel)),
        Box::new(move |w| ulp_vec(&mut w.formations[id].anchor.orientation)),
        Box::new(move |w| ulp_vec(&mut w.formations[id].half_extent)),
        Box::new(move |w| w.formations[id].path_index += 1),
        Box::new(move |w| w.formations[id].in_column ^= true),
        Box::new(move |w| w.formations[id].motion = Motion::Loose),
        Box::new(move |w| w.formations[id].goal = Some(Vec2::new(5.0, 5.0))),
        Box::new(move |w| w.formations[id].goal_facing = Some(Vec2::Y)),
        Box::new(move |w| w.formations[id].target = None),
        Box::new(move |w| w.formations[id].parent = None),
        Box::new(move |w| w.formations[id].give_way = Some(id)),
        Box::new(move |w| w.formations[id].narrow_pass = Some((id, 6.0))),
        Box::new(move |w| w.formations[id].narrow_pass = Some((id, 6.5))),
        Box::new(move |w| w.formations[id].hurried ^= true),
        Box::new(move |w| ulp(&mut w.formations[id].delay)),
        Box::new(move |w| ulp(&mut w.formations[id].held_away)),
        Box::new(move |w| w.formations[id].waits_at_passage ^= true),
        Box::new(move |w| w.formations[id].wait_watch = Some(watch(id, Vec2::ZERO, 0.0))),
        Box::new(move |w| w.formations[id].wait_watch = Some(watch(id, Vec2::ZERO, 0.5))),
        Box::new(move |w| w.formations[id].wait_watch = Some(watch(id, Vec2::X, 0.0))),
        Box::new(move |w| w.formations[id].replan_after = 7),
        Box::new(move |w| w.formations[id].ordered_move = Some(ordered(None))),
        Box::new(move |w| w.formations[id].ordered_move = Some(ordered(Some(Vec2::Y)))),
        Box::new(move |w| {
            let mut m = ordered(None);
            ulp_vec(&mut m.goal);
            w.formations[id].ordered_move = Some(m);
        }),
        Box::new(move |w| {
            let mut m = ordered(None);
            ulp_vec(&mut m.placed);
            w.formations[id].ordered_move = Some(m);
        }),
        Box::new(move |w| {
            let mut m = ordered(None);
            m.placed_facing = None;
            w.formations[id].ordered_move = Some(m);
        }),
        Box::new(move |w| w.formations[id].path_clearance.push(1.0)),
        Box::new(move |w| w.formations[id].narrows.push((1.0, 2.0))),
        Box::new(move |w| w.formations[id].settings.anchor_mode = AnchorMode::CentreOfMass),
        Box::new(move |w| w.formations[id].settings.column_in_narrows ^= true),
        Box::new(move |w| ulp(&mut w.formations[id].settings.follow_gap)),
        Box::new(move |w| w.formations[id].pattern = pattern(PatternKind::Ranks(3), 2.0)),
        Box::new(move |w| w.formations[id].pattern = pattern(PatternKind::Ranks(4), 2.0)),
        Box::new(move |w| w.formations[id].base_pattern = pattern(PatternKind::Box, 2.5)),
        Box::new(move |w| w.formations[id].narrowed = Some(pattern(PatternKind::Column, 2.0))),
        Box::new(move |w| {
            let slots = vec![Slot::new(Vec2::new(1.0, 0.0), Role::Any)];
            w.formations[id].pattern = pattern(PatternKind::Custom(slots), 2.0);
        }),
        Box::new(move |w| {
            let slots = vec![Slot::new(Vec2::new(1.0, 1e-30), Role::Any)];
            w.formations[id].pattern = pattern(PatternKind::Custom(slots), 2.0);
        }),
    ];
    assert_all_differ(&world, &edits);
}

/// A checked pattern of `kind`, `spacing` apart.
fn pattern(kind: PatternKind, spacing: f32) -> ValidPattern {
    Pattern {
        kind,
        spacing,
        unit_radius: 0.5,
    }
    .validate()
    .unwrap()
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

/// A formation's watch on `to`, begun with its anchor at `at`, `seconds` ago.
fn watch(to: FormationId, at: Vec2, seconds: f32) -> crate::formation::WaitWatch {
    crate::formation::WaitWatch { to, at, seconds }
}

fn ordered(facing: Option<Vec2>) -> crate::formation::OrderedMove {
    crate::formation::OrderedMove {
        goal: Vec2::new(3.0, 4.0),
        facing,
        placed: Vec2::new(5.0, 4.0),
        placed_facing: Some(Vec2::X),
    }
}
