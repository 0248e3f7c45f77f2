//! Formations through passages: a squad coming at a gap at a slant goes straight down its
//! middle in ranks as wide as the gap holds, and a column does not wait for good for
//! members held far behind it.

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{FormationId, FormationSpec, Member, Order, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::{Body, Vec2};

const DT: f32 = 0.1;
const RADIUS: f32 = 0.5;

/// A box squad of `n` walkers (1.3 m/s) at `at`, facing its `goal`, ordered there.
fn squad(
    world: &mut World,
    n: usize,
    at: Vec2,
    goal: Vec2,
) -> (FormationId, Vec<cohort::formation::UnitId>) {
    let facing = (goal - at).normalize_or(Vec2::X);
    let spec = FormationSpec {
        pattern: Pattern::for_radius(PatternKind::Box, RADIUS),
        ..FormationSpec::default()
    };
    let f = world
        .add_formation(spec, None, at, facing)
        .expect("formation");
    let side = (n as f32).sqrt().ceil() as usize;
    let mut units = Vec::new();
    for i in 0..n {
        let offset = Vec2::new((i % side) as f32, (i / side) as f32) * 1.5;
        let p = at + offset - Vec2::splat(0.75 * side as f32);
        let body = Body::new(p, RADIUS, 1.3, 3.0).expect("body");
        let u = world.add_unit(body).expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
        units.push(u);
    }
    world.order(f, Order::move_to(goal)).expect("order");
    (f, units)
}

/// Whether every member of `f` is within its radius of its slot and the formation holds.
fn arrived(world: &World, f: FormationId) -> bool {
    let Some(form) = world.formation(f) else {
        return false;
    };
    form.is_holding()
        && form.members.iter().all(|m| match *m {
            Member::Unit(u) => world.unit(u).is_some_and(|u| {
                u.slot_target
                    .is_some_and(|t| (t.position - u.body.position).length() <= u.body.radius)
            }),
            Member::Formation(_) => true,
        })
}

/// A 120 m square world with a wall 2 m thick across x = 60 and one gap `gap` metres wide in
/// it, centred on y = 60.
fn walled(gap: f32) -> World {
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

/// A squad of 48 coming at a 4 m gap from the south-west, its path planned round the gap's
/// corner, walks straight down the gap's middle (its anchor within 0.2 m of the middle line
/// through the gap) closed up three abreast (at most 4 m wide), and arrives beyond the wall
/// within 90 s without a pair of units overlapping more than 5 %. With its path hugging the
/// corner, it closed up into a single file 1 m wide.
#[test]
fn a_squad_goes_three_abreast_down_the_middle_of_a_gap() {
    let mut world = walled(4.0);
    let (f, _) = squad(&mut world, 48, Vec2::new(35.0, 40.0), Vec2::new(90.0, 70.0));
    let (mut widest, mut off_middle, mut deepest) = (0u16, 0.0f32, 0.0f32);
    let mut done = None;
    for tick in 0..1500 {
        world.step(DT);
        let form = world.formation(f).expect("formation");
        if form.in_column {
            if let PatternKind::Ranks(k) = *form.pattern().kind() {
                widest = widest.max(k);
            }
            let width = form.pattern().width(form.members.len());
            assert!(width <= 4.0, "ranks {width:.2} m wide for a 4 m gap");
        }
        let a = form.anchor.position;
        if (59.0..=61.0).contains(&a.x) {
            off_middle = off_middle.max((a.y - 60.0).abs());
        }
        deepest = deepest.max(deepest_overlap(&world));
        if arrived(&world, f) {
            done = Some(tick as f32 * DT);
            break;
        }
    }
    eprintln!(
        "three abreast: widest ranks {widest}, off the middle {off_middle:.3} m, arrived {done:?} s, overlap {deepest:.3}"
    );
    assert_eq!(widest, 3, "closed up {widest} abreast");
    assert!(
        off_middle <= 0.2,
        "anchor {off_middle:.2} m off the gap's middle"
    );
    assert!(done.is_some_and(|t| t <= 90.0), "arrived at {done:?} s");
    assert!(deepest <= 0.05, "overlap {deepest:.3}");
}

/// Members held far behind a formation (here moved 20 m back, behind its march) count at
/// most 4 m in the leash: the anchor goes on, slowed by their lag, instead of standing until
/// they catch up (their mean lag of 5 m would hold a 2 m leash for good, as a column in a
/// passage was held by members stuck behind it), and they catch up all the same.
#[test]
fn a_formation_goes_on_while_members_are_held_far_behind() {
    let mut world = World::new(
        Map {
            max: Vec2::splat(200.0),
            ..Map::default()
        },
        WorldSettings::default(),
        5,
    )
    .expect("world");
    let (f, units) = squad(
        &mut world,
        12,
        Vec2::new(30.0, 100.0),
        Vec2::new(170.0, 100.0),
    );
    for _ in 0..100 {
        world.step(DT);
    }
    for &u in &units[..3] {
        let p = world.unit(u).expect("unit").body.position;
        world
            .set_unit_position(u, p - Vec2::new(20.0, 0.0))
            .expect("moved");
    }
    let start = world.formation(f).expect("formation").anchor.position;
    for _ in 0..20 {
        world.step(DT);
    }
    let moved = world.formation(f).expect("formation").anchor.position - start;
    eprintln!(
        "anchor moved {:.2} m in 2 s with three members 20 m behind",
        moved.x
    );
    assert!(moved.x > 0.1, "the anchor waited: moved {moved}");
    let mut done = false;
    for _ in 0..2000 {
        world.step(DT);
        if arrived(&world, f) {
            done = true;
            break;
        }
    }
    assert!(done, "did not arrive");
}
