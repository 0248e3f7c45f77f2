//! Cohort under a game's own physics: the game owns its entities and moves them; Cohort plans.
//!
//! Each entity of the game is mirrored by a unit whose tag is the entity's id. Every frame:
//!
//! 1. `World::plan(dt)`: orders, tactics, formations, detours, steering and avoidance, without
//!    moving anyone;
//! 2. the game reads each unit's desired velocity (`World::desired_velocities`), finds its
//!    entity by the unit's tag and moves the entity under its own physics (here: a plain
//!    Euler step with a speed cap; a real game would run its collision solver);
//! 3. the game writes where the entity ended up back to its unit (`World::set_unit_motion`,
//!    validated: a NaN from the game's physics is refused with an error naming the field).
//!
//! Two squads are ordered across the map and the frame loop runs until both report
//! `FormationStatus::Arrived`. Run with `cargo run --release --example ecs_embedding`;
//! `tests/ecs_embedding.rs` runs the same loop as a test.

use std::collections::BTreeMap;

use cohort::prelude::*;

/// An entity of the game: what its own components would hold.
#[derive(Clone, Copy, Debug)]
pub struct Entity {
    /// Where it stands.
    pub position: Vec2,
    /// How fast it moves.
    pub velocity: Vec2,
    /// Its top speed (the game's own cap).
    pub max_speed: f32,
}

/// How the run ended.
#[derive(Debug)]
pub struct Outcome {
    /// Frames until both squads arrived (`None`: not within the frame budget).
    pub frames: Option<u32>,
    /// The game's entities at the end, by id.
    pub entities: BTreeMap<u64, Entity>,
    /// The squads' goals.
    pub goals: [Vec2; 2],
    /// Largest distance of an entity from its unit's slot at the end.
    pub worst_slot_error: f32,
}

/// Frame length, seconds (the world plans one tick per frame).
pub const DT: f32 = 1.0 / 30.0;

/// Runs the game loop for at most `max_frames` frames.
pub fn run(max_frames: u32) -> Result<Outcome, Box<dyn std::error::Error>> {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(120.0, 80.0));
    let mut world = World::new(map, WorldSettings::default(), 7)?;
    let mut entities = BTreeMap::new();
    let wedge = Pattern::for_radius(PatternKind::Wedge, 0.5).validate()?;
    let goals = [Vec2::new(90.0, 50.0), Vec2::new(90.0, 25.0)];
    let mut squads = Vec::new();
    for (k, goal) in goals.into_iter().enumerate() {
        let start = Vec2::new(15.0, 25.0 + 25.0 * k as f32);
        let spec = FormationSpec {
            name: format!("squad {k}"),
            pattern: wedge.pattern().clone(),
            ..FormationSpec::default()
        };
        let squad = world.add_formation(spec, None, start, Vec2::X)?;
        for i in 0..6 {
            // The game spawns an entity, then its unit, tagged with the entity's id.
            let id = 100 * k as u64 + i as u64;
            let position = start + Vec2::new(-1.5 * (i / 2) as f32, 1.5 * (i % 2) as f32);
            let entity = Entity {
                position,
                velocity: Vec2::ZERO,
                max_speed: 3.0,
            };
            entities.insert(id, entity);
            let body = Body::new(position, 0.5, entity.max_speed, 8.0)?;
            let options = UnitOptions {
                tag: id,
                ..UnitOptions::default()
            };
            let unit = world.add_unit_with(body, options)?;
            world.add_member(squad, Member::Unit(unit))?;
        }
        world.order(squad, Order::move_to(goal))?;
        squads.push(squad);
    }
    let mut frames = None;
    let mut moves = Vec::new();
    for frame in 0..max_frames {
        // 1. Cohort plans.
        world.plan(DT);
        // 2. The game moves its entities by the velocities Cohort chose.
        moves.clear();
        for (unit, desired) in world.desired_velocities() {
            let Some(tag) = world.unit(unit).map(|u| u.tag) else {
                continue;
            };
            let Some(entity) = entities.get_mut(&tag) else {
                continue;
            };
            entity.velocity = desired.clamp_length_max(entity.max_speed);
            entity.position += entity.velocity * DT;
            moves.push((unit, *entity));
        }
        // 3. ... and tells Cohort where they are.
        for &(unit, entity) in &moves {
            world.set_unit_motion(unit, entity.position, entity.velocity)?;
        }
        let arrived = squads
            .iter()
            .map(|&s| world.formation_status(s))
            .collect::<Result<Vec<_>, _>>()?;
        if arrived.iter().all(|s| *s == FormationStatus::Arrived) {
            frames = Some(frame + 1);
            break;
        }
    }
    let worst_slot_error = world
        .units()
        .filter_map(|(_, u)| {
            let slot = u.slot_target?.position;
            Some(entities.get(&u.tag)?.position.distance(slot))
        })
        .fold(0.0, f32::max);
    Ok(Outcome {
        frames,
        entities,
        goals,
        worst_slot_error,
    })
}

#[allow(dead_code)] // `tests/ecs_embedding.rs` includes this file for `run` alone.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let outcome = run(30 * 120)?;
    match outcome.frames {
        Some(f) => println!(
            "both squads arrived after {f} frames ({:.1} s); worst slot error {:.3} m",
            f as f32 * DT,
            outcome.worst_slot_error
        ),
        None => println!("not arrived within 120 s"),
    }
    for (id, e) in &outcome.entities {
        println!(
            "entity {id:>3} at ({:6.2}, {:6.2})",
            e.position.x, e.position.y
        );
    }
    Ok(())
}
