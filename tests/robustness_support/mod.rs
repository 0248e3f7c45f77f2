//! Shared checks of the robustness tests: the world invariants, measured on a
//! [`World`] after a step, and small builders.
#![allow(dead_code)]

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, UnitId, World};
use cohort::pathing::{Map, ValidMap};
use cohort::steering::{Body, Vec2};

/// Slack on the max-speed check (relative).
pub const SPEED_EPS: f32 = 1e-4;

/// A formation spec of `kind` for man-sized units.
pub fn spec(kind: PatternKind) -> FormationSpec {
    FormationSpec {
        pattern: Pattern::for_radius(kind, 0.5),
        ..FormationSpec::default()
    }
}

/// A man-sized body (radius 0.5, speed 3, force 8) at `p`.
pub fn body(p: Vec2) -> Body {
    Body::new(p, 0.5, 3.0, 8.0).expect("valid body")
}

/// Adds `n` units at `points(i)` to formation `f`.
pub fn add_units(
    world: &mut World,
    f: FormationId,
    n: usize,
    points: impl Fn(usize) -> Vec2,
) -> Vec<UnitId> {
    (0..n)
        .map(|i| {
            let u = world.add_unit(body(points(i))).expect("unit");
            world.add_member(f, Member::Unit(u)).expect("member");
            u
        })
        .collect()
}

/// Every float of the state that a game reads is finite.
pub fn check_finite(world: &World) -> Result<(), String> {
    for (id, u) in world.units() {
        let b = &u.body;
        if !(b.position.is_finite() && b.velocity.is_finite() && b.heading.is_finite()) {
            return Err(format!("unit {id:?} has a non-finite body: {b:?}"));
        }
        if let Some(t) = u.slot_target {
            if !(t.position.is_finite() && t.velocity.is_finite() && t.facing.is_finite()) {
                return Err(format!("unit {id:?} has a non-finite slot target {t:?}"));
            }
        }
        if u.detour.iter().any(|p| !p.is_finite()) {
            return Err(format!("unit {id:?} has a non-finite detour"));
        }
    }
    for (id, f) in world.formations() {
        let a = &f.anchor;
        if !(a.position.is_finite() && a.velocity.is_finite() && a.orientation.is_finite()) {
            return Err(format!("formation {id:?} has a non-finite anchor {a:?}"));
        }
        if f.path.iter().any(|p| !p.is_finite())
            || !f.speed_factor.is_finite()
            || !f.mean_lag.is_finite()
        {
            return Err(format!("formation {id:?} has a non-finite path or factor"));
        }
        if let Some(t) = f.target {
            if !(t.position.is_finite() && t.velocity.is_finite()) {
                return Err(format!("formation {id:?} has a non-finite target"));
            }
        }
    }
    Ok(())
}

/// No unit moves faster than its top speed.
pub fn check_speeds(world: &World) -> Result<(), String> {
    for (id, u) in world.units() {
        let b = &u.body;
        if b.speed() > b.max_speed * (1.0 + SPEED_EPS) + 1e-6 {
            return Err(format!(
                "unit {id:?} moves at {} > max {}",
                b.speed(),
                b.max_speed
            ));
        }
    }
    Ok(())
}

/// The formation tree is consistent: every member of a formation exists and points back at
/// it, every unit that names a formation is listed in it exactly once (and in no other),
/// every child formation has exactly one parent listing it, there are no cycles, and (after a
/// step) every member holds its own slot and every unit in a formation has a slot target.
pub fn check_membership(world: &World) -> Result<(), String> {
    let mut listed: Vec<(Member, FormationId)> = Vec::new();
    for (fid, f) in world.formations() {
        for &m in &f.members {
            match m {
                Member::Unit(u) => {
                    let unit = world
                        .unit(u)
                        .ok_or_else(|| format!("formation {fid:?} lists dead unit {u:?}"))?;
                    if unit.formation != Some(fid) {
                        return Err(format!(
                            "unit {u:?} is listed in {fid:?} but says {:?}",
                            unit.formation
                        ));
                    }
                    if unit.slot_target.is_none() {
                        return Err(format!("unit {u:?} in {fid:?} has no slot target"));
                    }
                }
                Member::Formation(c) => {
                    let child = world
                        .formation(c)
                        .ok_or_else(|| format!("formation {fid:?} lists gone formation {c:?}"))?;
                    if child.parent != Some(fid) {
                        return Err(format!(
                            "formation {c:?} is listed in {fid:?} but says {:?}",
                            child.parent
                        ));
                    }
                }
            }
            if listed.iter().any(|(lm, _)| *lm == m) {
                return Err(format!("{m:?} is listed twice"));
            }
            listed.push((m, fid));
        }
        if f.slots().len() != f.members.len() {
            return Err(format!(
                "formation {fid:?} has {} members but {} slots",
                f.members.len(),
                f.slots().len()
            ));
        }
    }
    for (id, u) in world.units() {
        let n = listed
            .iter()
            .filter(|(m, _)| *m == Member::Unit(id))
            .count();
        let want = usize::from(u.formation.is_some());
        if n != want {
            return Err(format!(
                "unit {id:?} (formation {:?}) is listed {n} times",
                u.formation
            ));
        }
        if u.formation.is_none() && u.slot_target.is_some() {
            return Err(format!("free unit {id:?} still has a slot target"));
        }
    }
    let formation_count = world.formations().count();
    for (id, f) in world.formations() {
        let n = listed
            .iter()
            .filter(|(m, _)| *m == Member::Formation(id))
            .count();
        if n != usize::from(f.parent.is_some()) {
            return Err(format!("formation {id:?} is listed {n} times"));
        }
        // Walking up must end at a root within as many steps as there are formations.
        let mut cursor = f.parent;
        let mut steps = 0;
        while let Some(p) = cursor {
            steps += 1;
            if steps > formation_count {
                return Err(format!("formation {id:?} is in a cycle"));
            }
            cursor = world.formation(p).and_then(|pf| pf.parent);
        }
    }
    Ok(())
}

/// Deepest overlap between two units, as a fraction of the smaller radius.
pub fn max_overlap(world: &World) -> f32 {
    let bodies: Vec<Body> = world.units().map(|(_, u)| u.body).collect();
    let mut worst = 0.0f32;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            let depth = a.radius + b.radius - (a.position - b.position).length();
            worst = worst.max(depth / a.radius.min(b.radius));
        }
    }
    worst
}

/// Deepest overlap between two units of which neither touches an obstacle, a wall or the
/// bounds (within 10 % of its radius), as a fraction of the smaller radius. Units pressed
/// against static geometry (their slots lie beyond it) may squeeze each other: the static
/// constraint wins over the unit-unit one.
pub fn max_free_overlap(world: &World, map: &ValidMap) -> f32 {
    let bodies: Vec<Body> = world
        .units()
        .map(|(_, u)| u.body)
        .filter(|b| !map.is_blocked(b.position, b.radius * 1.1))
        .collect();
    let mut worst = 0.0f32;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            let depth = a.radius + b.radius - (a.position - b.position).length();
            worst = worst.max(depth / a.radius.min(b.radius));
        }
    }
    worst
}

/// Units whose disc, shrunk by `tolerance` (fraction of the radius), overlaps an obstacle,
/// a wall or the outside of the bounds.
pub fn units_in_obstacles(world: &World, map: &ValidMap, tolerance: f32) -> Vec<(UnitId, Vec2)> {
    world
        .units()
        .filter(|(_, u)| map.is_blocked(u.body.position, u.body.radius * (1.0 - tolerance)))
        .map(|(id, u)| (id, u.body.position))
        .collect()
}

/// The map validated again (the test's own copy for queries).
pub fn valid(map: &Map) -> ValidMap {
    map.clone().validate().expect("the world's map is valid")
}

/// All checks that hold after every step.
pub fn check_step(world: &World) -> Result<(), String> {
    check_finite(world)?;
    check_speeds(world)?;
    check_membership(world)
}

/// Largest distance of a formation's units from their slots.
pub fn max_slot_error(world: &World, f: FormationId) -> f32 {
    let mut units = Vec::new();
    world.units_in(f, &mut units);
    units
        .iter()
        .filter_map(|&u| world.unit(u))
        .map(|u| {
            u.slot_target
                .map_or(f32::INFINITY, |t| (t.position - u.body.position).length())
        })
        .fold(0.0, f32::max)
}

/// Steps until `done` or `max_ticks`, checking the per-step invariants; returns the ticks
/// taken or the first violation.
pub fn run_until(
    world: &mut World,
    dt: f32,
    max_ticks: u32,
    mut done: impl FnMut(&World) -> bool,
) -> Result<u32, String> {
    for t in 0..max_ticks {
        world.step(dt);
        check_step(world).map_err(|e| format!("tick {t}: {e}"))?;
        if done(world) {
            return Ok(t + 1);
        }
    }
    Err(format!("not done after {max_ticks} ticks"))
}
