//! RTS orders on whole formations, measured: forming up along a drawn line, making way for
//! a unit ordered through a formation, and two formations passing head-on.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 30.0;
const RADIUS: f32 = 0.5;

/// Adds a formation of `n` units in `kind` at `start` facing `facing`, units placed roughly.
fn add_formation(
    world: &mut World,
    kind: PatternKind,
    n: usize,
    start: Vec2,
    facing: Vec2,
) -> (FormationId, Vec<UnitId>) {
    let f = world
        .create_formation(
            FormationSpec {
                pattern: Pattern::for_radius(kind, RADIUS),
                ..FormationSpec::default()
            },
            None,
            start,
            facing,
        )
        .expect("formation");
    let side = facing.perp();
    let mut units = Vec::new();
    for i in 0..n {
        let p = start + side * ((i as f32 - 0.5 * (n - 1) as f32) * 1.6) - facing;
        let body = Body::new(p, RADIUS, 3.0, 8.0).expect("body");
        let u = world.add_unit(body).expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
        units.push(u);
    }
    (f, units)
}

fn slot_error(world: &World, u: UnitId) -> f32 {
    let unit = world.unit(u).expect("unit");
    unit.slot_target.map_or(f32::INFINITY, |t| {
        (t.position - unit.body.position).length()
    })
}

fn max_slot_error(world: &World, units: &[UnitId]) -> f32 {
    units
        .iter()
        .map(|&u| slot_error(world, u))
        .fold(0.0, f32::max)
}

/// Smallest total distance over all matchings of `from` to `to` (brute force, small n).
fn optimal_total(from: &[Vec2], to: &[Vec2]) -> f32 {
    fn go(from: &[Vec2], to: &[Vec2], used: &mut Vec<bool>, k: usize, acc: f32, best: &mut f32) {
        if acc >= *best {
            return;
        }
        if k == from.len() {
            *best = acc;
            return;
        }
        for j in 0..to.len() {
            if !used[j] {
                used[j] = true;
                go(
                    from,
                    to,
                    used,
                    k + 1,
                    acc + (from[k] - to[j]).length(),
                    best,
                );
                used[j] = false;
            }
        }
    }
    let mut best = f32::INFINITY;
    go(from, to, &mut vec![false; to.len()], 0, 0.0, &mut best);
    best
}

/// A squad of 7 standing in a line is ordered along a line drawn north over 18 m: it ends on
/// the line at equal spacing, facing the drag direction turned left (west), every member
/// matched to a point at minimum total travel (checked against all 5040 matchings).
#[test]
fn form_along_a_drawn_line_matches_members_to_points_optimally() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(80.0, 60.0));
    let mut world = World::new(map, WorldSettings::default(), 5).expect("world");
    let (f, units) = add_formation(
        &mut world,
        PatternKind::Wedge,
        7,
        Vec2::new(20.0, 25.0),
        Vec2::X,
    );
    for _ in 0..150 {
        world.step(DT);
    }
    let start: Vec<Vec2> = units
        .iter()
        .map(|&u| world.unit(u).expect("unit").body.position)
        .collect();
    let line = vec![
        Vec2::new(40.0, 21.0),
        Vec2::new(40.0, 30.0),
        Vec2::new(40.0, 39.0),
    ];
    let order = Order::FormAlong {
        points: line,
        facing: None,
        at_slowest: false,
    };
    world.order(f, order).expect("order");
    let mut ticks = 0;
    for _ in 0..30 * 30 {
        world.step(DT);
        ticks += 1;
        if world.formation(f).expect("formation").is_holding()
            && max_slot_error(&world, &units) < 0.1
        {
            break;
        }
    }
    eprintln!("formed along the line in {:.1} s", ticks as f32 * DT);
    assert!(max_slot_error(&world, &units) < 0.1);
    let form = world.formation(f).expect("formation");
    assert!(
        form.anchor.orientation.dot(Vec2::new(-1.0, 0.0)) > 0.999,
        "{}",
        form.anchor.orientation
    );
    let mut points: Vec<Vec2> = units
        .iter()
        .map(|&u| {
            world
                .unit(u)
                .expect("unit")
                .slot_target
                .expect("slot")
                .position
        })
        .collect();
    // Every slot is on the line, from its first point to its last, equally spaced.
    points.sort_by(|a, b| a.y.total_cmp(&b.y));
    for p in &points {
        assert!((p.x - 40.0).abs() < 1e-3, "{p}");
    }
    assert!((points[0].y - 21.0).abs() < 1e-3 && (points[6].y - 39.0).abs() < 1e-3);
    for w in points.windows(2) {
        assert!(((w[1].y - w[0].y) - 3.0).abs() < 1e-3, "{w:?}");
    }
    // Each member went to the point of the minimum-total-travel matching.
    let chosen: Vec<Vec2> = units
        .iter()
        .map(|&u| {
            world
                .unit(u)
                .expect("unit")
                .slot_target
                .expect("slot")
                .position
        })
        .collect();
    let total: f32 = start
        .iter()
        .zip(&chosen)
        .map(|(a, b)| (*a - *b).length())
        .sum();
    let best = optimal_total(&start, &points);
    assert!(total <= best * 1.0001 + 1e-3, "{total} vs optimum {best}");
}

/// A drawn line with no points, or a non-finite one, is refused when given.
#[test]
fn form_along_with_a_bad_line_is_refused() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(40.0, 40.0));
    let mut world = World::new(map, WorldSettings::default(), 5).expect("world");
    let (f, _) = add_formation(
        &mut world,
        PatternKind::Line,
        3,
        Vec2::new(20.0, 20.0),
        Vec2::X,
    );
    for points in [vec![], vec![Vec2::new(f32::NAN, 1.0), Vec2::new(3.0, 3.0)]] {
        let order = Order::FormAlong {
            points,
            facing: None,
            at_slowest: false,
        };
        assert!(world.order(f, order).is_err());
    }
}
