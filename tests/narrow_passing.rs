//! Two squads meeting head-on in a corridor barely wider than two files of their units: each
//! closes up to its half of the corridor and steps to its right, and they pass. A formation
//! steps right until its side is a tenth of a metre from the wall; asking for a whole metre
//! of room there, as it did, neither squad stepped aside in a 4 m corridor and they pushed
//! through each other's files for minutes. And it starts stepping aside as far ahead as if
//! both were twice as deep: closed up to one file each in a 3 m corridor, their fronts met
//! before they stepped aside, and they stood pressed against each other for good.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::{Body, Vec2};

const DT: f32 = 0.1;
const RADIUS: f32 = 0.5;
const SPEED: f32 = 1.3;

/// A 200 × 60 m world with a corridor `width` metres wide from x = 40 to x = 160 along
/// y = 30 (walls above and below it), open at both ends.
fn corridor(width: f32) -> World {
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

/// A box squad of `n` walkers standing on a 1.5 m grid round `at`, ordered to `goal`.
fn squad(world: &mut World, n: usize, at: Vec2, goal: Vec2) -> FormationId {
    let facing = (goal - at).normalize_or(Vec2::X);
    let spec = FormationSpec {
        pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
        ..FormationSpec::default()
    };
    let f = world
        .add_formation(spec, None, at, facing)
        .expect("formation");
    let side = (n as f32).sqrt().ceil() as usize;
    for i in 0..n {
        let offset = Vec2::new((i % side) as f32, (i / side) as f32) * 1.5;
        let p = at + offset - Vec2::splat(0.75 * side as f32);
        let body = Body::new(p, RADIUS, SPEED, 3.0).expect("body");
        let u = world.add_unit(body).expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
    }
    world.order(f, Order::move_to(goal)).expect("order");
    f
}

/// Deepest overlap of any two units, a fraction of the sum of their radii.
fn deepest_overlap(world: &World) -> f32 {
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

/// Two squads of 50 ordered through a `width` corridor from opposite ends (160 m apart, 164 s
/// at their cruise speed): both hold at their goals within `limit` seconds, and no two
/// units ever overlap by more than 5 % of their radii (looked at every second). Returns when
/// both held.
fn pass_in(width: f32, limit: f32) -> f32 {
    let mut world = corridor(width);
    let squads = [
        squad(
            &mut world,
            50,
            Vec2::new(20.0, 30.0),
            Vec2::new(180.0, 30.0),
        ),
        squad(
            &mut world,
            50,
            Vec2::new(180.0, 30.0),
            Vec2::new(20.0, 30.0),
        ),
    ];
    let mut deepest: f32 = 0.0;
    for tick in 0..(limit / DT) as u32 {
        world.step(DT);
        if tick % 10 == 0 {
            deepest = deepest.max(deepest_overlap(&world));
        }
        if squads
            .iter()
            .all(|&f| world.formation(f).is_some_and(|f| f.is_holding()))
        {
            assert!(deepest <= 0.05, "deepest overlap {deepest}");
            return (tick + 1) as f32 * DT;
        }
    }
    panic!("in a {width} m corridor the squads had not both arrived after {limit} s");
}

/// A 3 m corridor: one file of 1 m units each, touching the walls (they passed in 172 s;
/// they locked for good before a sidestep looked twice as far ahead).
#[test]
fn squads_pass_head_on_in_a_3_m_corridor() {
    pass_in(3.0, 230.0);
}

/// A 4 m corridor: two files of 1 m units fit with a metre between them (they passed in 173 s;
/// 405 s before formations stepped right up to a tenth of a metre from the wall, 180 s
/// before a sidestep looked twice as far ahead).
#[test]
fn squads_pass_head_on_in_a_4_m_corridor() {
    pass_in(4.0, 230.0);
}

/// A 5 m corridor (they passed in 173 s).
#[test]
fn squads_pass_head_on_in_a_5_m_corridor() {
    pass_in(5.0, 230.0);
}
