//! The world's checked setters and unit tags, measured: a tag given at creation or by its
//! setter comes back from every query and through a snapshot; a good value changes the unit or
//! the tuning; a bad one (NaN, out of range, a unit in no world) is refused and the world's
//! state hash does not move. A loose move ordered far off the map stops at its edge, so the
//! next move still finds a path.

use cohort::formation::FormationSettings;
use cohort::formation::world::SnapshotFormat;
use cohort::prelude::*;

fn world_with_unit() -> (World, UnitId, FormationId) {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::splat(40.0));
    let mut world = World::new(map, WorldSettings::default(), 5).expect("world");
    let f = world
        .add_formation(FormationSpec::default(), None, Vec2::splat(20.0), Vec2::X)
        .expect("formation");
    let body = Body::new(Vec2::new(10.0, 10.0), 0.5, 3.0, 8.0).expect("body");
    let options = UnitOptions {
        tag: 0xC0FFEE,
        jump_speed: 2.0,
        ..UnitOptions::default()
    };
    let u = world.add_unit_with(body, options).expect("unit");
    world.add_member(f, Member::Unit(u)).expect("member");
    (world, u, f)
}

#[test]
fn a_tag_comes_back_from_queries_and_through_a_snapshot() {
    let (mut world, u, _) = world_with_unit();
    assert_eq!(world.unit(u).map(|x| x.tag), Some(0xC0FFEE));
    assert_eq!(world.unit(u).map(|x| x.jump_speed), Some(2.0));
    let other = world
        .add_unit(Body::new(Vec2::new(30.0, 30.0), 0.5, 3.0, 8.0).expect("body"))
        .expect("unit");
    assert_eq!(world.unit(other).map(|x| x.tag), Some(0), "untagged");
    world.set_unit_tag(other, 7).expect("tag");
    let tags: Vec<(UnitId, u64)> = world.units().map(|(id, x)| (id, x.tag)).collect();
    assert_eq!(tags, vec![(u, 0xC0FFEE), (other, 7)]);
    for _ in 0..30 {
        world.step(1.0 / 30.0);
    }
    for format in [SnapshotFormat::Ron, SnapshotFormat::Binary] {
        let saved = world.save_state(format).expect("save");
        let mut restored = world.clone();
        restored.set_unit_tag(other, 99).expect("tag");
        restored.load_state(&saved).expect("load");
        assert_eq!(restored.unit(other).map(|x| x.tag), Some(7), "{format:?}");
        assert_eq!(restored.state_hash(), world.state_hash(), "{format:?}");
    }
    // Removing the unit hands the tag back with the rest of it.
    assert_eq!(world.remove_unit(u).map(|x| x.tag), Some(0xC0FFEE));
}

#[test]
fn setters_change_what_they_are_given() {
    let (mut world, u, f) = world_with_unit();
    world
        .set_unit_position(u, Vec2::new(12.0, 11.0))
        .expect("position");
    world
        .set_unit_velocity(u, Vec2::new(1.0, 0.0))
        .expect("velocity");
    world.set_unit_jump_speed(u, 5.0).expect("jump");
    world.set_unit_role(u, Role::Custom(3)).expect("role");
    let unit = world.unit(u).expect("unit");
    assert_eq!(unit.body.position, Vec2::new(12.0, 11.0));
    assert_eq!(unit.body.velocity, Vec2::new(1.0, 0.0));
    assert_eq!((unit.jump_speed, unit.role), (5.0, Role::Custom(3)));
    world
        .update_settings(|s| s.separation_weight = 6.0)
        .expect("tuning");
    assert_eq!(world.settings().separation_weight, 6.0);
    let slow = FormationSettings {
        speed_fraction: 0.5,
        ..FormationSettings::default()
    };
    world
        .set_formation_settings(f, slow)
        .expect("formation tuning");
    assert_eq!(
        world.formation(f).map(|x| x.settings.speed_fraction),
        Some(0.5)
    );
    // A position inside an obstacle is pushed out to the nearest free point, as at creation.
    let rock = cohort::steering::CircleObstacle::new(Vec2::new(30.0, 10.0), 2.0).expect("rock");
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(40.0));
    map.circles.push(rock);
    let mut rocky = World::new(map, WorldSettings::default(), 1).expect("world");
    let v = rocky
        .add_unit(Body::new(Vec2::new(5.0, 5.0), 0.5, 3.0, 8.0).expect("body"))
        .expect("unit");
    rocky
        .set_unit_position(v, Vec2::new(30.5, 10.0))
        .expect("moved");
    let p = rocky.unit(v).expect("unit").body.position;
    assert!(
        p.distance(rock.center) >= 2.5 - 1e-3,
        "{p} is inside the rock"
    );
}

#[test]
fn setters_refuse_bad_values_and_change_nothing() {
    let (mut world, u, f) = world_with_unit();
    world.step(1.0 / 30.0);
    let before = world.state_hash();
    let nan = Vec2::new(f32::NAN, 1.0);
    assert!(world.set_unit_position(u, nan).is_err());
    assert!(world.set_unit_position(u, Vec2::splat(1e9)).is_err());
    assert!(world.set_unit_velocity(u, nan).is_err());
    let mut bad = world.unit(u).expect("unit").body;
    bad.radius = -1.0;
    assert!(world.set_unit_body(u, bad).is_err());
    for speed in [f32::NAN, -1.0, f32::INFINITY, 2e4] {
        assert!(world.set_unit_jump_speed(u, speed).is_err(), "{speed}");
    }
    assert!(world.update_settings(|s| s.arrive_time = f32::NAN).is_err());
    assert!(
        world
            .update_settings(|s| s.penetration_iterations = 10_000)
            .is_err()
    );
    let bad_formation = FormationSettings {
        leash: f32::INFINITY,
        ..FormationSettings::default()
    };
    assert!(world.set_formation_settings(f, bad_formation).is_err());
    let body = Body::new(Vec2::ONE, 0.5, 3.0, 8.0).expect("body");
    let jumpy = UnitOptions {
        jump_speed: f32::NAN,
        ..UnitOptions::default()
    };
    assert!(world.add_unit_with(body, jumpy).is_err());
    assert_eq!(
        world.state_hash(),
        before,
        "a refused value changed the world"
    );
    // A unit that is gone is refused by every setter.
    world.remove_unit(u).expect("removed");
    assert_eq!(world.set_unit_tag(u, 1), Err(WorldError::NoSuchUnit(u)));
    assert_eq!(
        world.set_unit_position(u, Vec2::ONE),
        Err(WorldError::NoSuchUnit(u))
    );
    assert_eq!(
        world.set_unit_role(u, Role::Any),
        Err(WorldError::NoSuchUnit(u))
    );
}

#[test]
fn a_loose_move_far_off_the_map_stops_at_its_edge_and_a_later_move_arrives() {
    let (mut world, u, f) = world_with_unit();
    let far = Order::MoveTo {
        goal: Vec2::new(-1e6, -1e6),
        facing: None,
        pattern: None,
        at_slowest: false,
    };
    world.order(f, far).expect("order");
    for _ in 0..30 {
        world.step(1.0 / 30.0);
    }
    let anchor = world
        .formation(f)
        .map(|x| x.anchor.position)
        .expect("formation");
    assert_eq!(anchor, Vec2::ZERO, "the anchor waits at the map's corner");
    let back = Order::MoveTo {
        goal: Vec2::new(30.0, 25.0),
        facing: None,
        pattern: None,
        at_slowest: true,
    };
    world.order(f, back).expect("order");
    for _ in 0..(60 * 30) {
        world.step(1.0 / 30.0);
    }
    let p = world.unit(u).map(|x| x.body.position).expect("unit");
    assert!((p - Vec2::new(30.0, 25.0)).length() < 0.5, "{p}");
    assert_eq!(
        world.formation_status(f).ok(),
        Some(FormationStatus::Arrived)
    );
}
