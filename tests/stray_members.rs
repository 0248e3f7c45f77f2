//! A member left beyond another formation's standing box (pushed there in a crowd, or ending
//! on the wrong side of a neighbour at the goal) walks through that box to its own slot: the
//! standing units step aside for it, as for a single opening a lane. So does a member held in
//! the middle of a standing box while its own squad marches on, or in the middle of a box
//! marching the other way.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

const DT: f32 = 0.1;
const RADIUS: f32 = 0.5;

/// Adds a box formation of the units at `at`, facing +x, at rest there; returns its units.
fn squad(
    world: &mut World,
    centre: Vec2,
    at: &[Vec2],
) -> (cohort::formation::FormationId, Vec<UnitId>) {
    let spec = FormationSpec {
        pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
        ..FormationSpec::default()
    };
    let f = world
        .add_formation(spec, None, centre, Vec2::X)
        .expect("formation");
    let units = at
        .iter()
        .map(|&p| {
            let u = world
                .add_unit(Body::new(p, RADIUS, 1.3, 3.0).expect("body"))
                .expect("unit");
            world.add_member(f, Member::Unit(u)).expect("member");
            u
        })
        .collect();
    (f, units)
}

/// A block of `side` × `side` points `spacing` apart centred on `centre`.
fn block(centre: Vec2, side: usize, spacing: f32) -> Vec<Vec2> {
    let half = (side as f32 - 1.0) * 0.5 * spacing;
    (0..side * side)
        .map(|k| {
            centre + Vec2::new((k % side) as f32, (k / side) as f32) * spacing - Vec2::splat(half)
        })
        .collect()
}

/// A world `width` m by 60 m with a squad of 49 standing at (50, 30), packed at 1.5 m.
fn world_with_standing_box(width: f32) -> World {
    let map = Map {
        max: Vec2::new(width, 60.0),
        ..Map::default()
    };
    let mut world = World::new(map, WorldSettings::default(), 3).expect("world");
    let (standing, _) = squad(
        &mut world,
        Vec2::new(50.0, 30.0),
        &block(Vec2::new(50.0, 30.0), 7, 1.5),
    );
    world
        .order(standing, Order::move_to(Vec2::new(50.0, 30.0)))
        .expect("order");
    world
}

/// The deepest overlap of any two units (a fraction of the sum of their radii).
fn deepest_overlap(world: &World) -> f32 {
    let at: Vec<Vec2> = world.units().map(|(_, u)| u.body.position).collect();
    let mut deepest: f32 = 0.0;
    for (i, a) in at.iter().enumerate() {
        for b in &at[i + 1..] {
            deepest = deepest.max(1.0 - (*a - *b).length() / (2.0 * RADIUS));
        }
    }
    deepest
}

/// What [`run`] measured: the deepest overlap of any two units, the first second its `out`
/// test held and the first second all of its `units` had arrived.
struct Run {
    deepest: f32,
    out_at: Option<f32>,
    arrived_at: Option<f32>,
}

/// Steps `world` `ticks` times, measuring after each step (see [`Run`]).
fn run(
    world: &mut World,
    units: &[UnitId],
    ticks: u32,
    mut out: impl FnMut(&World) -> bool,
) -> Run {
    let mut r = Run {
        deepest: 0.0,
        out_at: None,
        arrived_at: None,
    };
    for tick in 0..ticks {
        world.step(DT);
        let now = tick as f32 * DT;
        r.deepest = r.deepest.max(deepest_overlap(world));
        if r.out_at.is_none() && out(world) {
            r.out_at = Some(now);
        }
        if r.arrived_at.is_none() && units.iter().all(|&u| world.unit_arrived(u)) {
            r.arrived_at = Some(now);
        }
    }
    r
}

#[test]
fn a_member_beyond_a_standing_box_walks_through_it_to_its_slot() {
    let mut world = world_with_standing_box(100.0);
    // A squad of 9 west of it; one of its members stands just east of the standing box.
    let mut mine = block(Vec2::new(35.0, 30.0), 3, 1.5);
    mine[4] = Vec2::new(55.8, 30.2);
    let (f, units) = squad(&mut world, Vec2::new(35.0, 30.0), &mine);
    world
        .order(f, Order::move_to(Vec2::new(35.0, 30.0)))
        .expect("order");
    let stray = units[4];
    let Run {
        deepest,
        arrived_at,
        ..
    } = run(&mut world, &units, 1200, |_| false);
    let p = world.unit(stray).expect("alive").body.position;
    assert!(
        arrived_at.is_some_and(|t| t < 60.0),
        "the stray's squad arrived at {arrived_at:?}; the stray stands at {p}"
    );
    assert!(deepest <= 0.05, "deepest overlap {deepest}");
}

#[test]
fn a_member_left_in_a_standing_box_catches_up_with_its_marching_squad() {
    let mut world = world_with_standing_box(120.0);
    // A squad of 9 east of it, marching east; one of its members was left between four
    // units in the middle of the standing box.
    let mut mine = block(Vec2::new(62.0, 30.0), 3, 1.5);
    mine[4] = Vec2::new(50.75, 30.75);
    let (f, units) = squad(&mut world, Vec2::new(62.0, 30.0), &mine);
    world
        .order(f, Order::move_to(Vec2::new(100.0, 30.0)))
        .expect("order");
    let left = units[4];
    let Run {
        deepest,
        out_at,
        arrived_at,
    } = run(&mut world, &units, 900, |w| {
        // Out of the standing box (its units stand up to 54.5 m east).
        w.unit(left).is_some_and(|u| u.body.position.x > 56.0)
    });
    let p = world.unit(left).expect("alive").body.position;
    eprintln!("left behind: out of the box at {out_at:?} s, squad arrived at {arrived_at:?} s");
    // The squad walks 38 m at 0.975 m/s (about 39 s); the member must not wait for it to
    // arrive before it walks out of the box. (Held like a member standing in the box until
    // its squad arrived, it walked out after 15.3 s and the squad arrived after 60.4 s.)
    assert!(
        out_at.is_some_and(|t| t < 10.0),
        "out of the box at {out_at:?}; it stands at {p}"
    );
    assert!(
        arrived_at.is_some_and(|t| t < 55.0),
        "the squad arrived at {arrived_at:?}; the member stands at {p}"
    );
    assert!(deepest <= 0.05, "deepest overlap {deepest}");
}

#[test]
fn a_member_swept_along_by_a_marching_box_walks_out_of_it() {
    let map = Map {
        max: Vec2::new(160.0, 60.0),
        ..Map::default()
    };
    let mut world = World::new(map, WorldSettings::default(), 3).expect("world");
    // A box of 49 marching east, and a squad of 9 north-west of it marching west; one of the
    // squad's members was left between four units in the middle of the box, which pushes it
    // east, away from its slot, while it walks.
    let (marching, _) = squad(
        &mut world,
        Vec2::new(60.0, 30.0),
        &block(Vec2::new(60.0, 30.0), 7, 1.5),
    );
    world
        .order(marching, Order::move_to(Vec2::new(140.0, 30.0)))
        .expect("order");
    let mut mine = block(Vec2::new(48.0, 42.0), 3, 1.5);
    mine[4] = Vec2::new(60.75, 30.75);
    let (f, units) = squad(&mut world, Vec2::new(48.0, 42.0), &mine);
    world
        .order(f, Order::move_to(Vec2::new(10.0, 42.0)))
        .expect("order");
    let left = units[4];
    let mut farthest_east: f32 = 0.0;
    let Run {
        deepest,
        out_at,
        arrived_at,
    } = run(&mut world, &units, 1500, |w| {
        let (Some(u), Some(f)) = (w.unit(left), w.formation(marching)) else {
            return false;
        };
        let p = u.body.position;
        farthest_east = farthest_east.max(p.x);
        // Out of the marching box (its units stand up to 4.5 m from its centre).
        (p - f.anchor.position).abs().max_element() > 6.0
    });
    let p = world.unit(left).expect("alive").body.position;
    eprintln!(
        "swept along: out of the box at {out_at:?} s, carried to x = {farthest_east}, squad \
         arrived at {arrived_at:?} s"
    );
    // The squad walks about 38 m at 0.975 m/s (about 39 s). The member gets out of the box
    // after 7.5 s, carried some 2 m east first, and its squad arrives after 54.2 s.
    assert!(
        out_at.is_some_and(|t| t < 15.0),
        "out of the box at {out_at:?}; it stands at {p}"
    );
    assert!(
        arrived_at.is_some_and(|t| t < 57.0),
        "the squad arrived at {arrived_at:?}; the member stands at {p}"
    );
    assert!(deepest <= 0.05, "deepest overlap {deepest}");
}
