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
        .add_formation(
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

/// Counts tick-pair overlaps (closer than 95 % of the radii sum) among `units`.
fn overlaps(world: &World, units: &[UnitId]) -> usize {
    let bodies: Vec<_> = units
        .iter()
        .map(|&u| world.unit(u).expect("unit").body)
        .collect();
    let mut n = 0;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            if (a.position - b.position).length() < 0.95 * (a.radius + b.radius) {
                n += 1;
            }
        }
    }
    n
}

/// `(ticks for the mover to arrive, overlaps, worst slot error of the standing line 5 s
/// later, drift of its anchor, farthest a line member moved from its place)` for `movers` units in a column ordered through a standing
/// line of 11.
fn cross_standing_line(movers: usize) -> (u32, usize, f32, f32, f32) {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(80.0, 80.0));
    let mut world = World::new(map, WorldSettings::default(), 9).expect("world");
    let (line, line_units) = add_formation(
        &mut world,
        PatternKind::Line,
        11,
        Vec2::new(40.0, 40.0),
        Vec2::X,
    );
    let (mover, mover_units) = add_formation(
        &mut world,
        PatternKind::Column,
        movers,
        Vec2::new(30.0, 40.0),
        Vec2::X,
    );
    for _ in 0..150 {
        world.step(DT);
    }
    let anchor_before = world.formation(line).expect("line").anchor.position;
    let goal = Vec2::new(52.0, 40.0);
    world.order(mover, Order::move_to(goal)).expect("order");
    let all: Vec<UnitId> = line_units.iter().chain(&mover_units).copied().collect();
    assert_eq!(mover_units.len(), movers);
    let home: Vec<Vec2> = line_units
        .iter()
        .map(|&u| world.unit(u).expect("unit").body.position)
        .collect();
    let mut count = 0;
    let mut arrived = None;
    let mut aside: f32 = 0.0;
    for tick in 0..30 * 60 {
        world.step(DT);
        count += overlaps(&world, &all);
        for (h, &u) in home.iter().zip(&line_units) {
            let d = (world.unit(u).expect("unit").body.position - *h).length();
            aside = aside.max(d);
        }
        if arrived.is_none()
            && world.formation(mover).expect("mover").is_holding()
            && max_slot_error(&world, &mover_units) < RADIUS
        {
            arrived = Some(tick + 1);
        }
        if let Some(t) = arrived {
            if tick + 1 >= t + 150 {
                break;
            }
        }
    }
    let drift = (world.formation(line).expect("line").anchor.position - anchor_before).length();
    (
        arrived.unwrap_or(u32::MAX),
        count,
        max_slot_error(&world, &line_units),
        drift,
        aside,
    )
}

/// A single unit, then a column of four, is ordered through a standing line: the members in
/// its lane step aside, it crosses without anyone overlapping beyond the metric's threshold,
/// and the line closes behind it, back in its slots without having drifted.
#[test]
fn make_way_opens_a_lane_and_closes_behind() {
    for movers in [1, 4] {
        let (ticks, count, worst, drift, aside) = cross_standing_line(movers);
        // Members in the lane moved out of it: at least a unit's width.
        assert!(
            aside > 1.0,
            "{movers} movers: nobody stepped aside ({aside})"
        );
        eprintln!(
            "{movers} movers ({}): crossed in {:.1} s, {count} overlaps, stepped aside {aside}, line slot error {worst}, drift {drift}",
            movers,
            ticks as f32 * DT
        );
        assert!(ticks < 30 * 20, "{movers} movers did not cross: {ticks}");
        assert_eq!(count, 0, "{movers} movers: overlaps");
        assert!(worst < 0.3, "{movers} movers: line not closed: {worst}");
        assert!(drift < 0.05, "{movers} movers: line drifted {drift}");
    }
}

/// Two lines of ten (15 m wide) meet head-on on the same track: each keeps to its right,
/// they pass, and both arrive in a bounded time (a clear run takes about 27 s; without the
/// keep-right rule they push against each other and neither ever arrives).
#[test]
fn head_on_formations_pass_each_other() {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(100.0, 60.0));
    let mut world = World::new(map, WorldSettings::default(), 4).expect("world");
    let (a, a_units) = add_formation(
        &mut world,
        PatternKind::Line,
        10,
        Vec2::new(20.0, 30.0),
        Vec2::X,
    );
    let (b, b_units) = add_formation(
        &mut world,
        PatternKind::Line,
        10,
        Vec2::new(80.0, 30.0),
        -Vec2::X,
    );
    for _ in 0..150 {
        world.step(DT);
    }
    world
        .order(a, Order::move_to(Vec2::new(80.0, 30.0)))
        .expect("order");
    world
        .order(b, Order::move_to(Vec2::new(20.0, 30.0)))
        .expect("order");
    let all: Vec<UnitId> = a_units.iter().chain(&b_units).copied().collect();
    let mut count = 0;
    let mut done = None;
    // How far each anchor went to its own right (a heads +x: right is -y; b the other way).
    let (mut a_right, mut b_right) = (0.0f32, 0.0f32);
    for tick in 0..30 * 90 {
        world.step(DT);
        count += overlaps(&world, &all);
        a_right = a_right.max(30.0 - world.formation(a).expect("a").anchor.position.y);
        b_right = b_right.max(world.formation(b).expect("b").anchor.position.y - 30.0);
        let settled = |f: FormationId, units: &[UnitId]| {
            world.formation(f).expect("formation").is_holding()
                && max_slot_error(&world, units) < RADIUS
        };
        if settled(a, &a_units) && settled(b, &b_units) {
            done = Some(tick + 1);
            break;
        }
    }
    let secs = done.map(|t| t as f32 * DT);
    eprintln!(
        "head-on: both arrived after {secs:?} s, {count} overlaps, kept right {a_right} and {b_right}"
    );
    let secs = secs.expect("a formation never arrived");
    assert!(secs < 45.0, "took {secs} s");
    assert!(a_right > 5.0 && b_right > 5.0, "{a_right} {b_right}");
    assert_eq!(count, 0);
    for (f, goal) in [(a, Vec2::new(80.0, 30.0)), (b, Vec2::new(20.0, 30.0))] {
        let p = world.formation(f).expect("formation").anchor.position;
        assert!((p - goal).length() < 0.5, "{p}");
    }
}
