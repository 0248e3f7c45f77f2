//! Shared goals: formations ordered to one spot, or onto ground another formation stands on,
//! stand side by side and settle, where they used to walk to the same slots and shove round
//! them for good. Formations ordered to swap places, or moved together, keep the goals they
//! were given. (`docs/traffic.md`, "Shared goals".)

use std::path::PathBuf;

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};
use cohort_demos::compare::load_built;
use cohort_demos::runner::Runner;

const DT: f32 = 0.1;
const RADIUS: f32 = 0.5;

fn rally() -> cohort_demos::scenario::Built {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/traffic/rally.ron");
    load_built(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The rally's order to formation `f` (of `world`), to `goal`: its squads were ordered to
/// face east, its singles with no facing.
fn rally_order(world: &World, f: FormationId, goal: Vec2) -> Order {
    let squad = world.formation(f).is_some_and(|f| f.members.len() > 1);
    Order::MoveTo {
        goal,
        facing: squad.then_some(Vec2::X),
        pattern: None,
        at_slowest: true,
    }
}

/// The goals of `formations` in `world`.
fn goals_of(world: &World, formations: &[FormationId]) -> Vec<Vec2> {
    formations
        .iter()
        .map(|&f| world.formation(f).and_then(|f| f.goal).expect("goal"))
        .collect()
}

/// Orders formation `f` of `world` to move to (`x`, `y`).
fn move_to(world: &mut World, f: FormationId, x: f32, y: f32) {
    world
        .order(f, Order::move_to(Vec2::new(x, y)))
        .expect("order");
}

/// The top-level formations of `world`.
fn roots(world: &World) -> Vec<FormationId> {
    world
        .formations()
        .filter(|(_, f)| f.parent.is_none())
        .map(|(id, _)| id)
        .collect()
}

/// Mean and greatest speed of the units.
fn speeds(world: &World) -> (f32, f32) {
    let (mut sum, mut most, mut n) = (0.0, 0.0f32, 0);
    for (_, u) in world.units() {
        let s = u.body.velocity.length();
        sum += s;
        most = most.max(s);
        n += 1;
    }
    (sum / n.max(1) as f32, most)
}

/// Six squads of 16 and 24 singles ordered to one point (`scenarios/traffic/rally.ron`): every
/// formation but the first is given ground of its own, every unit arrives on its slot and
/// stands still, each formation at least the settings' gap from every other, with no overlap
/// and nobody stuck. (`tests/traffic.rs` holds the rally to the traffic scenarios' time
/// limit.)
#[test]
fn formations_ordered_to_one_point_stand_side_by_side_and_settle() {
    let built = rally();
    let gap = built.world.settings().goal_gap;
    let roots = roots(&built.world);
    let mut runner = Runner::new(built, false);
    runner.step().expect("tick");
    let goals: Vec<Vec2> = roots
        .iter()
        .map(|&id| {
            let f = runner.world().formation(id).expect("formation");
            f.goal.expect("a goal")
        })
        .collect();
    let moved = goals
        .iter()
        .filter(|g| (**g - Vec2::new(80.0, 80.0)).length() > 0.1)
        .count();
    assert_eq!(
        moved,
        goals.len() - 1,
        "one formation keeps the point: {goals:?}"
    );
    let total = runner.duration();
    runner.run(total - 1, |_| {}).expect("run");
    let r = runner.report();
    eprintln!("rally: {}", r.to_json());
    assert_eq!(r.arrived, r.units, "{r:?}");
    assert_eq!(r.stuck, 0, "{r:?}");
    assert_eq!(r.penetrations, 0, "{r:?}");
    assert!(r.max_overlap_depth <= 0.05, "{r:?}");
    // Settled: nobody shuffles on the spot.
    let (mean, most) = speeds(runner.world());
    assert!(mean < 0.005 && most < 0.05, "speeds {mean} {most}");
    // Each on ground of its own: units of two formations stand the gap apart.
    let w = runner.world();
    let placed: Vec<(FormationId, Vec2)> = w
        .units()
        .filter_map(|(_, u)| {
            let mut top = u.formation?;
            while let Some(p) = w.formation(top)?.parent {
                top = p;
            }
            Some((top, u.body.position))
        })
        .collect();
    for (i, &(fa, a)) in placed.iter().enumerate() {
        for &(fb, b) in &placed[i + 1..] {
            if fa != fb {
                let d = (a - b).length() - 2.0 * RADIUS;
                assert!(d >= gap - 0.1, "units of two formations {d:.2} m apart");
            }
        }
    }
}

/// The same orders with goals not spread: the formations walk to the same slots and never
/// settle (what the spreading is for).
#[test]
fn without_spread_goals_formations_ordered_to_one_point_never_settle() {
    let mut built = rally();
    let settings = WorldSettings {
        spread_goals: false,
        ..built.world.settings().clone()
    };
    built.world.set_settings(settings).expect("settings");
    let mut runner = Runner::new(built, false);
    runner.run(runner.duration(), |_| {}).expect("run");
    let r = runner.report();
    let (mean, _) = speeds(runner.world());
    assert!(r.arrived < r.units / 2, "{r:?}");
    assert!(mean > 0.1, "mean speed {mean}");
}

/// Adds a squad of 16 in a box at `at` facing east.
fn squad(world: &mut World, at: Vec2) -> (FormationId, Vec<UnitId>) {
    let f = world
        .add_formation(
            FormationSpec {
                pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
                ..FormationSpec::default()
            },
            None,
            at,
            Vec2::X,
        )
        .expect("formation");
    let mut units = Vec::new();
    for i in 0..16 {
        let p = at + Vec2::new((i % 4) as f32 * 1.5 - 2.25, (i / 4) as f32 * 1.5 - 2.25);
        let u = world
            .add_unit(Body::new(p, RADIUS, 1.3, 8.0).expect("body"))
            .expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
        units.push(u);
    }
    (f, units)
}

fn open_world() -> World {
    World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::splat(120.0)),
        WorldSettings::default(),
        1,
    )
    .expect("world")
}

/// A squad ordered onto one standing there stands beside it, on the side it comes from, and
/// both settle; the standing one ends where it stood (its members step aside for the
/// arriving squad's lane, as standing formations do for any mover, and step back).
#[test]
fn a_squad_ordered_onto_a_standing_one_stands_beside_it() {
    let mut world = open_world();
    let (_, standing) = squad(&mut world, Vec2::new(60.0, 60.0));
    let (mover, units) = squad(&mut world, Vec2::new(20.0, 60.0));
    let before: Vec<Vec2> = standing
        .iter()
        .map(|&u| world.unit(u).expect("unit").body.position)
        .collect();
    move_to(&mut world, mover, 60.0, 60.0);
    world.step(DT);
    let goal = world.formation(mover).and_then(|f| f.goal).expect("goal");
    assert!(goal.x < 60.0 - 5.5 - 1.5 + 0.01, "{goal}");
    for _ in 0..1200 {
        world.step(DT);
    }
    for (&u, &p) in standing.iter().zip(&before) {
        let unit = world.unit(u).expect("unit");
        let moved = (unit.body.position - p).length();
        assert!(moved < 0.25, "a standing unit moved {moved} m");
        assert!(unit.body.velocity.length() < 0.05);
    }
    for &u in &units {
        let unit = world.unit(u).expect("unit");
        let t = unit.slot_target.expect("slot");
        assert!((t.position - unit.body.position).length() < 0.05);
        assert!(unit.body.velocity.length() < 0.05);
        for &s in &standing {
            let d = (world.unit(s).expect("unit").body.position - unit.body.position).length();
            assert!(d > 2.0 * RADIUS + 1.0, "{d}");
        }
    }
}

/// Two squads ordered to each other's places in one tick swap them; two standing on each
/// other's ground ordered to move alike keep their places relative to each other; a third
/// ordered onto their goals finds ground of its own: goals are moved only off ground another
/// formation claims, and not apart from formations moved with them.
#[test]
fn swaps_and_moves_together_keep_their_goals() {
    let mut world = open_world();
    let (a, _) = squad(&mut world, Vec2::new(30.0, 60.0));
    let (b, _) = squad(&mut world, Vec2::new(90.0, 60.0));
    move_to(&mut world, a, 90.0, 60.0);
    move_to(&mut world, b, 30.0, 60.0);
    // Overlapping by 1.5 m, both ordered 80 m north.
    let (c, _) = squad(&mut world, Vec2::new(30.0, 15.0));
    let (d, _) = squad(&mut world, Vec2::new(34.0, 15.0));
    let (e, _) = squad(&mut world, Vec2::new(90.0, 15.0));
    for (f, goal) in [(c, (30.0, 95.0)), (d, (34.0, 95.0)), (e, (32.0, 95.0))] {
        move_to(&mut world, f, goal.0, goal.1);
    }
    world.step(DT);
    let goal = |f| world.formation(f).and_then(|f| f.goal).expect("goal");
    assert_eq!(goal(a), Vec2::new(90.0, 60.0));
    assert_eq!(goal(b), Vec2::new(30.0, 60.0));
    assert_eq!(goal(c), Vec2::new(30.0, 95.0));
    assert_eq!(goal(d), Vec2::new(34.0, 95.0));
    let ge = goal(e);
    assert!(
        (ge.x - 32.0).abs() >= 5.5 + 1.5 - 0.01 || (ge.y - 95.0).abs() >= 5.5 + 1.5 - 0.01,
        "{ge}"
    );
}

/// Two platoons (a line of two squads of two fire teams each) ordered to one point from 30 m
/// apart: the second stands beside the first, facing the same way, on ground inside the map;
/// everyone arrives and settles.
#[test]
fn two_platoons_ordered_to_one_point_stand_side_by_side_facing_alike() {
    let platoon = |name: &str, y: f32| {
        format!(
            r#"(name: "{name}", pattern: Kind(Line), position: (20.0, {y:.1}), facing: (1.0, 0.0),
                children: [
                    (name: "1st", pattern: Kind(Column), children: [
                        (name: "a", pattern: Kind(Wedge), units: 4, template: "rifleman"),
                        (name: "b", pattern: Kind(Wedge), units: 4, template: "rifleman"),
                    ]),
                    (name: "2nd", pattern: Kind(Column), children: [
                        (name: "a", pattern: Kind(Wedge), units: 4, template: "rifleman"),
                        (name: "b", pattern: Kind(Wedge), units: 4, template: "rifleman"),
                    ]),
                ]),"#
        )
    };
    let text = format!(
        r#"(name: "two platoons", seed: 5, dt: 0.1, duration: 1200,
            map: (min: (0.0, 0.0), max: (120.0, 80.0)),
            templates: {{ "rifleman": (radius: 0.5, max_speed: 3.2, max_force: 7.0) }},
            formations: [{}{}],
            timeline: [
                (tick: 0, formation: "first", order: MoveTo(goal: (90.0, 40.0))),
                (tick: 0, formation: "second", order: MoveTo(goal: (90.0, 40.0))),
            ])"#,
        platoon("first", 40.0),
        platoon("second", 10.0)
    );
    let scenario =
        cohort_demos::scenario::Scenario::from_ron_str(&text, "two_platoons").expect("scenario");
    let built = scenario
        .validate("two_platoons", &[])
        .and_then(|l| l.build())
        .expect("built");
    let roots = roots(&built.world);
    let mut runner = Runner::new(built, false);
    runner.run(runner.duration(), |_| {}).expect("run");
    let r = runner.report();
    assert_eq!(r.arrived, r.units, "{r:?}");
    assert_eq!(r.penetrations, 0, "{r:?}");
    let w = runner.world();
    let facing: Vec<Vec2> = roots
        .iter()
        .map(|&id| w.formation(id).expect("formation").anchor.orientation)
        .collect();
    assert!(facing[0].dot(facing[1]) > 0.999, "{facing:?}");
    let (mean, most) = speeds(w);
    assert!(mean < 0.005 && most < 0.05, "speeds {mean} {most}");
    for (_, u) in w.units() {
        let p = u.body.position;
        assert!(p.x > 0.5 && p.y > 0.5 && p.x < 119.5 && p.y < 79.5, "{p}");
    }
}

/// A squad ordered onto one filling a small map, where no free ground lies inside the map:
/// it keeps the goal it was given rather than stand partly off the map.
#[test]
fn no_place_off_the_map() {
    let mut world = World::new(
        Map::with_bounds(Vec2::ZERO, Vec2::splat(18.0)),
        WorldSettings::default(),
        1,
    )
    .expect("world");
    squad(&mut world, Vec2::new(9.0, 9.0));
    let (b, _) = squad(&mut world, Vec2::new(9.0, 15.0));
    move_to(&mut world, b, 9.0, 9.0);
    world.step(DT);
    let goal = world.formation(b).and_then(|f| f.goal).expect("goal");
    assert_eq!(goal, Vec2::new(9.0, 9.0));
}

/// Four squads rallied and settled, then ordered to the same point again (in the other
/// order): each keeps the ground it stands on.
#[test]
fn a_repeated_order_leaves_settled_formations_where_they_stand() {
    let mut world = open_world();
    let starts = [(20.0, 20.0), (100.0, 20.0), (20.0, 100.0), (100.0, 100.0)];
    let squads: Vec<FormationId> = starts
        .iter()
        .map(|&(x, y)| squad(&mut world, Vec2::new(x, y)).0)
        .collect();
    let point = Vec2::new(60.0, 60.0);
    for &f in &squads {
        world.order(f, Order::move_to(point)).expect("order");
    }
    for _ in 0..1500 {
        world.step(DT);
    }
    let goals = |w: &World| goals_of(w, &squads);
    let before = goals(&world);

    let positions: Vec<Vec2> = world.units().map(|(_, u)| u.body.position).collect();
    for &f in squads.iter().rev() {
        world.order(f, Order::move_to(point)).expect("order");
    }
    world.step(DT);
    for (g, b) in goals(&world).into_iter().zip(&before) {
        assert!((g - *b).length() < 0.01, "{g} {b}");
    }
    for _ in 0..300 {
        world.step(DT);
    }
    for ((_, u), p) in world.units().zip(positions) {
        assert!((u.body.position - p).length() < 0.05);
    }
}

/// The rally ordered again, in the other order, while its formations walk (a player clicking
/// the rally point once more), and again once they have settled: each of the 30 keeps the
/// ground it was placed on, in every ring of the crowd (walking, along the path it had), and
/// nobody walks off.
#[test]
fn a_repeated_rally_leaves_every_ring_where_it_stands() {
    let built = rally();
    let roots = roots(&built.world);
    let mut runner = Runner::new(built, false);
    let point = Vec2::new(80.0, 80.0);
    let goals = |w: &World| goals_of(w, &roots);
    // The rally's orders given again, in the other order: every goal as it was.
    let again = |runner: &mut Runner, when: &str| {
        let before = goals(runner.world());
        for &f in roots.iter().rev() {
            let order = rally_order(runner.world(), f, point);
            runner.order(f, order).expect("order");
        }
        runner.step().expect("tick");
        for (g, b) in goals(runner.world()).into_iter().zip(&before) {
            assert!((g - *b).length() < 0.01, "{when}: {g} {b}");
        }
        before
    };
    runner.run(150, |_| {}).expect("run");
    // Walking there already, each walks on along the path it had (not planned again).
    let paths = |w: &World| -> Vec<Vec<Vec2>> {
        roots
            .iter()
            .filter_map(|&f| w.formation(f))
            .map(|f| f.path.clone())
            .collect()
    };
    let walking = paths(runner.world());
    again(&mut runner, "walking");
    assert_eq!(paths(runner.world()), walking, "paths planned again");
    runner.run(750, |_| {}).expect("run");
    let positions: Vec<Vec2> = runner
        .world()
        .units()
        .map(|(_, u)| u.body.position)
        .collect();
    let before = again(&mut runner, "settled");
    let rings = before
        .iter()
        .filter(|g| (**g - point).length() > 12.0)
        .count();
    assert!(rings >= 6, "the crowd stands in several rings: {before:?}");
    runner.run(300, |_| {}).expect("run");
    for ((_, u), p) in runner.world().units().zip(positions) {
        let d = (u.body.position - p).length();
        assert!(d < 0.05, "a unit moved {d} m");
    }
}

/// The settled rally ordered again to spots drifting away a little at a time: a click within
/// 0.5 m of the first leaves every formation in place, but a run of such clicks does not carry
/// the remembered spot along (0.8 m off, formations are placed anew); the first spot given
/// again with a facing of its own places them anew, facing that way.
#[test]
fn a_move_to_another_spot_or_facing_is_placed_anew() {
    let built = rally();
    let roots = roots(&built.world);
    let mut runner = Runner::new(built, false);
    runner.run(900, |_| {}).expect("run");
    let point = Vec2::new(80.0, 80.0);
    let goals = |w: &World| goals_of(w, &roots);
    let before = goals(runner.world());
    let order_all = |runner: &mut Runner, goal: Vec2, facing: Option<Vec2>| {
        for &f in roots.iter().rev() {
            let order = match (facing, rally_order(runner.world(), f, goal)) {
                (Some(facing), Order::MoveTo { goal, .. }) => Order::MoveTo {
                    goal,
                    facing: Some(facing),
                    pattern: None,
                    at_slowest: true,
                },
                (_, order) => order,
            };
            runner.order(f, order).expect("order");
        }
        runner.step().expect("tick");
    };
    order_all(&mut runner, point + Vec2::new(0.4, 0.0), None);
    for (g, b) in goals(runner.world()).into_iter().zip(&before) {
        assert!((g - *b).length() < 0.01, "0.4 m off: {g} {b}");
    }
    order_all(&mut runner, point + Vec2::new(0.8, 0.0), None);
    let moved = goals(runner.world())
        .into_iter()
        .zip(&before)
        .filter(|(g, b)| (*g - **b).length() > 0.1)
        .count();
    assert!(moved > 0, "0.8 m off, every formation kept its place");
    let facing = Vec2::Y;
    order_all(&mut runner, point, Some(facing));
    let w = runner.world();
    for &f in &roots {
        let form = w.formation(f).expect("formation");
        let faces = form.goal_facing.expect("a goal facing");
        assert!(faces.dot(facing) > 0.999, "{} faces {faces}", form.name);
    }
}

/// Squads ordered onto a point on the map's edge, and onto one against a building, stand
/// side by side there (the lattice is laid round the nearest point a unit can stand on).
#[test]
fn goals_on_the_edge_and_against_a_building_are_spread() {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(120.0));
    map.polygons.push(cohort::pathing::PolygonObstacle {
        points: vec![
            Vec2::new(50.0, 80.0),
            Vec2::new(70.0, 80.0),
            Vec2::new(70.0, 100.0),
            Vec2::new(50.0, 100.0),
        ],
    });
    let mut world = World::new(map, WorldSettings::default(), 1).expect("world");
    let edge: Vec<FormationId> = [20.0, 100.0]
        .into_iter()
        .map(|x| squad(&mut world, Vec2::new(x, 20.0)).0)
        .collect();
    let wall: Vec<FormationId> = [20.0, 100.0]
        .into_iter()
        .map(|x| squad(&mut world, Vec2::new(x, 60.0)).0)
        .collect();
    for &f in &edge {
        move_to(&mut world, f, 60.0, -5.0);
    }
    for &f in &wall {
        move_to(&mut world, f, 60.0, 80.0);
    }
    world.step(DT);
    for pair in [&edge, &wall] {
        let g: Vec<Vec2> = pair
            .iter()
            .map(|&f| world.formation(f).and_then(|f| f.goal).expect("goal"))
            .collect();
        assert!((g[0] - g[1]).length() > 5.5, "{g:?}");
    }
}

/// A formation ordered twice in one tick claims only its last goal, and one ordered to
/// move and then halted in the same tick claims where it stands.
#[test]
fn only_the_last_order_of_a_tick_claims_ground() {
    let mut world = open_world();
    let (a, _) = squad(&mut world, Vec2::new(60.0, 60.0));
    let (b, _) = squad(&mut world, Vec2::new(20.0, 20.0));
    let (c, _) = squad(&mut world, Vec2::new(100.0, 20.0));
    let (d, _) = squad(&mut world, Vec2::new(100.0, 100.0));
    // a: to (30, 100), then on to (90, 100); b to (30, 100): free by then.
    move_to(&mut world, a, 30.0, 100.0);
    move_to(&mut world, a, 90.0, 60.0);
    move_to(&mut world, b, 30.0, 100.0);
    // c: to (60, 20), then halted where it stands; d to (100, 20), where c still stands.
    move_to(&mut world, c, 60.0, 20.0);
    world.order(c, Order::Halt).expect("order");
    move_to(&mut world, d, 100.0, 20.0);
    world.step(DT);
    let goal = |f| world.formation(f).and_then(|f| f.goal);
    assert_eq!(goal(b), Some(Vec2::new(30.0, 100.0)));
    let gd = goal(d).expect("goal");
    assert!((gd - Vec2::new(100.0, 20.0)).length() > 5.5, "{gd}");
}

/// A squad standing on a point, ordered onto it and then elsewhere in one tick, does not keep
/// the point: only its last order counts, and a squad ordered onto the point takes it.
#[test]
fn a_formation_ordered_away_in_the_same_tick_leaves_its_ground() {
    let mut world = open_world();
    let (a, _) = squad(&mut world, Vec2::new(60.0, 60.0));
    let (b, _) = squad(&mut world, Vec2::new(20.0, 60.0));
    move_to(&mut world, a, 60.0, 60.0);
    move_to(&mut world, a, 100.0, 100.0);
    move_to(&mut world, b, 60.0, 60.0);
    world.step(DT);
    let goal = |f| world.formation(f).and_then(|f| f.goal);
    assert_eq!(goal(b), Some(Vec2::new(60.0, 60.0)));
}
