//! Non-penetration under pressure: units pressed by their own squad-mates into the map's
//! corner, or wedged at the mouth of a gap narrower than two of them, hold their ground
//! without overlapping (no pair deeper than 5 % of the sum of its radii), and nobody is
//! pushed into a wall.

mod gap_support;

use cohort::formation::{FormationId, Order, UnitId, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::Vec2;

const DT: f32 = 0.1;
const RADIUS: f32 = 0.5;

/// Adds a box formation of `n` walkers (1.3 m/s) centred on `at`, facing `facing`; returns
/// it and its units.
fn squad(world: &mut World, at: Vec2, facing: Vec2, n: usize) -> (FormationId, Vec<UnitId>) {
    gap_support::box_squad(world, n, at, facing, 1.3)
}

/// A move to `goal`, the formation facing `facing` there.
fn move_to(goal: Vec2, facing: Vec2) -> Order {
    match Order::move_to(goal) {
        Order::MoveTo {
            pattern,
            at_slowest,
            ..
        } => Order::MoveTo {
            goal,
            facing: Some(facing),
            pattern,
            at_slowest,
        },
        other => other,
    }
}

/// Steps `seconds`; returns the deepest overlap of any pair on the way (a fraction of the sum
/// of their radii) and whether any unit's centre was ever inside one of `blocks`.
fn run(
    world: &mut World,
    units: &[UnitId],
    seconds: f32,
    blocks: &[PolygonObstacle],
) -> (f32, bool) {
    let mut deepest: f32 = 0.0;
    let mut inside = false;
    for _ in 0..(seconds / DT) as u32 {
        world.step(DT);
        let at: Vec<Vec2> = units
            .iter()
            .map(|&u| world.unit(u).expect("alive").body.position)
            .collect();
        for (i, a) in at.iter().enumerate() {
            for b in &at[i + 1..] {
                let overlap = 1.0 - (*a - *b).length() / (2.0 * RADIUS);
                deepest = deepest.max(overlap);
            }
            inside |= blocks.iter().any(|p| contains(&p.points, *a));
        }
    }
    (deepest, inside)
}

/// Whether `p` lies inside the polygon `points` (even-odd rule).
fn contains(points: &[Vec2], p: Vec2) -> bool {
    let mut inside = false;
    for (k, &a) in points.iter().enumerate() {
        let b = points[(k + 1) % points.len()];
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
    }
    inside
}

/// A squad of 36 ordered into the corner of the map: most of its slots lie beyond the map's
/// edges, so its units crowd into the corner from both edges at once. The map's edge holds a
/// unit back as a wall does: its neighbours give way instead of pressing it into them.
#[test]
fn a_squad_crowding_into_the_maps_corner_does_not_overlap() {
    let map = Map {
        max: Vec2::splat(30.0),
        ..Map::default()
    };
    let mut world = World::new(map, WorldSettings::default(), 1).expect("world");
    let facing = Vec2::new(-1.0, -1.0).normalize();
    let (f, units) = squad(&mut world, Vec2::splat(15.0), facing, 36);
    world
        .order(f, move_to(Vec2::splat(1.0), facing))
        .expect("order");
    let (deepest, _) = run(&mut world, &units, 60.0, &[]);
    assert!(deepest <= 0.05, "deepest overlap {deepest}");
}

/// Three squads of 50 ordered through a 2.2 m gap in a 2 m thick wall (one unit at a time):
/// units wedged at the gap's mouth between its corners and their squad-mates slide along the
/// wall until they fit instead of being pressed into each other.
#[test]
fn squads_wedged_at_a_narrow_gap_do_not_overlap() {
    let (lo, hi) = (28.9, 31.1);
    let blocks = vec![
        PolygonObstacle {
            points: vec![
                Vec2::new(29.0, 0.0),
                Vec2::new(31.0, 0.0),
                Vec2::new(31.0, lo),
                Vec2::new(29.0, lo),
            ],
        },
        PolygonObstacle {
            points: vec![
                Vec2::new(29.0, hi),
                Vec2::new(31.0, hi),
                Vec2::new(31.0, 60.0),
                Vec2::new(29.0, 60.0),
            ],
        },
    ];
    let map = Map {
        max: Vec2::splat(60.0),
        polygons: blocks.clone(),
        ..Map::default()
    };
    let mut world = World::new(map, WorldSettings::default(), 1).expect("world");
    let mut all = Vec::new();
    for y in [30.0, 14.0, 46.0] {
        let (f, units) = squad(&mut world, Vec2::new(20.0, y), Vec2::X, 50);
        world
            .order(f, move_to(Vec2::new(45.0, y), Vec2::X))
            .expect("order");
        all.extend(units);
    }
    let (deepest, inside) = run(&mut world, &all, 150.0, &blocks);
    assert!(deepest <= 0.05, "deepest overlap {deepest}");
    assert!(!inside, "a unit was pushed into the wall");
}
