//! Embedding under the game's own physics (`examples/ecs_embedding.rs`, run here): the game
//! moves its entities by the velocities `World::plan` chose and writes them back; its squads
//! arrive, each entity in its unit's slot. Also: `plan` moves no unit by itself, and a
//! non-finite write-back is refused.

#[path = "../examples/ecs_embedding.rs"]
mod ecs_embedding;

use cohort::prelude::*;

#[test]
fn the_games_entities_arrive_under_its_own_physics() {
    let outcome = ecs_embedding::run(30 * 120).unwrap();
    let frames = outcome.frames.expect("both squads arrive within 120 s");
    // About 75 m at up to 3 m/s: not before 25 s.
    assert!(frames as f32 * ecs_embedding::DT > 25.0, "{frames}");
    assert!(outcome.worst_slot_error < 0.5, "{outcome:?}");
    // Every entity ended near its squad's goal (ids 0.. are squad 0, 100.. squad 1).
    for (id, e) in &outcome.entities {
        let goal = outcome.goals[(*id / 100) as usize];
        assert!(e.position.distance(goal) < 4.0, "entity {id}: {e:?}");
    }
}

#[test]
fn plan_steers_without_moving_and_write_back_is_checked() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(50.0, 50.0));
    let mut world = World::new(map, WorldSettings::default(), 1).unwrap();
    let at = Vec2::new(10.0, 10.0);
    let unit = world
        .add_unit(Body::new(at, 0.5, 3.0, 8.0).unwrap())
        .unwrap();
    let squad = world
        .add_formation(FormationSpec::default(), None, at, Vec2::X)
        .unwrap();
    world.add_member(squad, Member::Unit(unit)).unwrap();
    world
        .order(squad, Order::move_to(Vec2::new(40.0, 10.0)))
        .unwrap();
    assert_eq!(world.desired_velocity(unit), None, "no tick yet");
    for _ in 0..20 {
        world.plan(1.0 / 30.0);
    }
    // The unit has not moved, but it wants to go east.
    assert_eq!(world.unit(unit).unwrap().body.position, at);
    let v = world.desired_velocity(unit).unwrap();
    assert!(v.x > 0.1 && v.y.abs() < 0.1 * v.x, "{v}");
    assert_eq!(world.desired_velocities().count(), 1);
    assert!(world.timings().ticks == 1 && world.timings().steered == 1);
    // A NaN from the game is refused and changes nothing.
    let err = world
        .set_unit_motion(unit, Vec2::new(f32::NAN, 0.0), v)
        .unwrap_err();
    assert!(err.to_string().contains("position"), "{err}");
    assert_eq!(world.unit(unit).unwrap().body.position, at);
    world.set_unit_motion(unit, at + v / 30.0, v).unwrap();
    assert_eq!(world.unit(unit).unwrap().body.velocity, v);
}
