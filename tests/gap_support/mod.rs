//! Shared builders and measures of the tests of squads at walls, gaps and corridors: a walled
//! world with one gap, a corridor, a box squad of walkers, whether a squad has arrived, and
//! the deepest overlap of any two units.
#![allow(dead_code)]

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::{Body, Vec2};

/// Radius of every unit of these tests (a walker 1 m wide).
pub const RADIUS: f32 = 0.5;

/// A 120 m square world with a wall 2 m thick across x = 60 and one gap `gap` metres wide in
/// it, centred on y = 60.
pub fn walled(gap: f32) -> World {
    let mut map = Map {
        max: Vec2::splat(120.0),
        ..Map::default()
    };
    for (y0, y1) in [(0.0, 60.0 - 0.5 * gap), (60.0 + 0.5 * gap, 120.0)] {
        map.polygons.push(
            PolygonObstacle::new(vec![
                Vec2::new(59.0, y0),
                Vec2::new(61.0, y0),
                Vec2::new(61.0, y1),
                Vec2::new(59.0, y1),
            ])
            .expect("polygon"),
        );
    }
    World::new(map, WorldSettings::default(), 3).expect("world")
}

/// A box formation of `n` units of [`RADIUS`] with top speed `speed`, standing on a 1.5 m
/// grid round `at`, facing `facing`; it and its units, in the order they were added.
pub fn box_squad(
    world: &mut World,
    n: usize,
    at: Vec2,
    facing: Vec2,
    speed: f32,
) -> (FormationId, Vec<UnitId>) {
    let spec = FormationSpec {
        pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
        ..FormationSpec::default()
    };
    let f = world
        .add_formation(spec, None, at, facing)
        .expect("formation");
    let side = (n as f32).sqrt().ceil() as usize;
    let units = (0..n)
        .map(|i| {
            let offset = Vec2::new((i % side) as f32, (i / side) as f32) * 1.5;
            let p = at + offset - Vec2::splat(0.75 * side as f32);
            let body = Body::new(p, RADIUS, speed, 3.0).expect("body");
            let u = world.add_unit(body).expect("unit");
            world.add_member(f, Member::Unit(u)).expect("member");
            u
        })
        .collect();
    (f, units)
}

/// A [`box_squad`] of `n` walkers of top speed `speed` round `at`, facing `goal` and ordered
/// there.
pub fn squad(world: &mut World, n: usize, at: Vec2, goal: Vec2, speed: f32) -> FormationId {
    let facing = (goal - at).normalize_or(Vec2::X);
    let (f, _) = box_squad(world, n, at, facing, speed);
    world.order(f, Order::move_to(goal)).expect("order");
    f
}

/// A 200 × 60 m world with a corridor `width` metres wide from x = 40 to x = 160 along
/// y = 30 (walls above and below it), open at both ends.
pub fn corridor(width: f32) -> World {
    let mut map = Map {
        max: Vec2::new(200.0, 60.0),
        ..Map::default()
    };
    let (y0, y1) = (30.0 - 0.5 * width, 30.0 + 0.5 * width);
    for (lo, hi) in [(0.0, y0), (y1, 60.0)] {
        map.polygons.push(
            PolygonObstacle::new(vec![
                Vec2::new(40.0, lo),
                Vec2::new(160.0, lo),
                Vec2::new(160.0, hi),
                Vec2::new(40.0, hi),
            ])
            .expect("polygon"),
        );
    }
    World::new(map, WorldSettings::default(), 3).expect("world")
}

/// Whether every member of `f` is within its radius of its slot and the formation holds.
pub fn arrived(world: &World, f: FormationId) -> bool {
    world.formation(f).is_some_and(|form| {
        form.is_holding()
            && form.members.iter().all(|m| match *m {
                Member::Unit(u) => world.unit(u).is_some_and(|u| {
                    u.slot_target
                        .is_some_and(|t| (t.position - u.body.position).length() <= u.body.radius)
                }),
                Member::Formation(_) => true,
            })
    })
}

/// Deepest overlap of any two units, a fraction of the sum of their radii.
pub fn deepest_overlap(world: &World) -> f32 {
    let bodies: Vec<_> = world.units().map(|(_, u)| u.body).collect();
    let mut deepest: f32 = 0.0;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            let sum = a.radius + b.radius;
            deepest = deepest.max((sum - (a.position - b.position).length()) / sum);
        }
    }
    deepest
}
