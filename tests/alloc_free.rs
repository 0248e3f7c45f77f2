//! A warm world steps without touching the heap. Worlds are stepped with a counting global
//! allocator (`allocation-counter`, which counts the calling thread's allocations) and every
//! tick after the warm-up must make zero allocations: ticks in which units plan detours round
//! obstacles (pathing's `find_path_into` and `Terrain::plan_path_into` into reused buffers),
//! periodic slot re-assignments, and the cover updates of a bounding-overwatch advance
//! included. The warm-up is what grows the buffers: the orders are planned and the first
//! detours grow the search and path buffers. docs/performance.md ("Allocation") says what
//! allocates and when.

use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::pattern::Pattern;
use cohort::formation::tactics::{OverwatchSettings, Tactic};
use cohort::formation::world::MAX_STEP;
use cohort::formation::{FormationSpec, Member, Order, World, WorldSettings};
use cohort::steering::{Body, Vec2};

mod overwatch_support;

use overwatch_support::walled_lanes;

/// Runs a test on the calling thread alone, which is what `allocation-counter` sees: with the
/// `parallel` feature the world's stages would otherwise run on rayon's pool (and a step from
/// outside it enter it through rayon's global job queue, which allocates now and then), so
/// the test runs inside a pool of one thread. `tests/parallel_alloc_free.rs` counts the
/// allocations of several threads.
fn on_this_thread(test: impl FnOnce() + Send) {
    #[cfg(feature = "parallel")]
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool")
        .install(test);
    #[cfg(not(feature = "parallel"))]
    test();
}

/// What a measured run saw.
#[derive(Debug, Default)]
struct Measured {
    /// Ticks stepped.
    ticks: usize,
    /// Ticks in which at least one unit planned a detour.
    detour_ticks: usize,
    /// Detours planned.
    detours: usize,
    /// The first tick that allocated: (tick, allocations, bytes).
    first_allocating: Option<(u64, usize, usize)>,
    /// Ticks that allocated.
    allocating_ticks: usize,
}

/// Steps `world` `ticks` times counting each tick's allocations and the detours planned in it.
fn measure(world: &mut World, ticks: usize) -> Measured {
    let mut m = Measured::default();
    for _ in 0..ticks {
        let tick = world.tick();
        let info = allocation_counter::measure(|| world.step(MAX_STEP));
        // A unit that planned this tick has a detour stamped with the tick.
        let planned = world
            .units()
            .filter(|(_, u)| u.detour_tick == tick && !u.detour.is_empty())
            .count();
        m.ticks += 1;
        m.detours += planned;
        m.detour_ticks += usize::from(planned > 0);
        if info.count_total > 0 {
            m.allocating_ticks += 1;
            m.first_allocating.get_or_insert((
                tick,
                info.count_total as usize,
                info.bytes_total as usize,
            ));
        }
    }
    m
}

fn army(units: usize, obstacles: bool) -> World {
    let spec = ArmySpec {
        units,
        map_size: 1000.0,
        march: 150.0,
        obstacles,
        ..ArmySpec::default()
    };
    build_army(&spec, WorldSettings::default())
        .expect("army")
        .world
}

#[test]
fn warm_world_steps_without_allocating() {
    on_this_thread(warm_world_steps_without_allocating_here);
}

fn warm_world_steps_without_allocating_here() {
    // An open field: the army marches and re-assigns its slots (every 120 ticks: tick 120
    // is among the measured ones).
    let mut world = army(600, false);
    let warm = measure(&mut world, 40);
    let start: Vec<_> = world.units().map(|(_, u)| u.body.position).collect();
    let first = world.tick();
    let m = measure(&mut world, 100);
    assert!(
        first < 120 && world.tick() > 120,
        "no re-assignment tick measured"
    );
    eprintln!("open field: warm-up {warm:?}; measured {m:?}");
    assert_eq!(
        m.first_allocating, None,
        "warm ticks allocated (tick, count, bytes): {m:?}"
    );
    // The army really moved while being measured (the count is of real work).
    let moved = world
        .units()
        .zip(&start)
        .filter(|((_, u), s)| (u.body.position - **s).length() > 2.0)
        .count();
    assert!(moved > 500, "only {moved} of 600 units moved");
}

#[test]
fn warm_singles_step_without_allocating() {
    on_this_thread(warm_singles_step_without_allocating_here);
}

fn warm_singles_step_without_allocating_here() {
    // The standard army as 10,000 formations of one unit each: singles pushed out of sight of
    // their paths plan them again, into paths with room for a route round a few obstacles,
    // and units far from their targets plan detours (one in the first hundred ticks grew the
    // search's open list when its buckets all had the same room).
    let spec = ArmySpec {
        units: 10_000,
        group_size: Some(1),
        ..ArmySpec::default()
    };
    let mut world = build_army(&spec, WorldSettings::default())
        .expect("army")
        .world;
    let warm = measure(&mut world, 20);
    let m = measure(&mut world, 120);
    eprintln!("singles: warm-up {warm:?}; measured {m:?}");
    assert_eq!(
        m.first_allocating, None,
        "warm ticks allocated (tick, count, bytes): {m:?}"
    );
}

#[test]
fn warm_army_among_obstacles_plans_detours_without_allocating() {
    on_this_thread(warm_army_among_obstacles_plans_detours_without_allocating_here);
}

fn warm_army_among_obstacles_plans_detours_without_allocating_here() {
    // The standard army's map (trees, buildings, walls): units whose slot is behind an
    // obstacle plan detours every few ticks. The warm-up (orders, the first detours) grows the
    // buffers; every later tick, detour ticks included, makes no allocation.
    let warm = detours_without_allocating(&mut army(2000, true), "obstacles");
    // A sanity check of the warm-up (the counter itself is checked in the helper).
    assert!(
        warm.allocating_ticks > 0,
        "the warm-up grows buffers: {warm:?}"
    );
}

#[test]
fn a_cloned_army_plans_detours_without_allocating_once_warm() {
    on_this_thread(a_cloned_army_plans_detours_without_allocating_once_warm_here);
}

fn a_cloned_army_plans_detours_without_allocating_once_warm_here() {
    // A clone starts with empty per-tick buffers (they are not state) and must keep each
    // unit's room for a detour, so that once its buffers are warm its units' first detours
    // are written in place as the original's are.
    let original = army(2000, true);
    let mut world = original.clone();
    drop(original);
    detours_without_allocating(&mut world, "cloned");
}

/// Steps `world` 200 ticks of warm-up, then 400 measured ticks in which units plan detours in
/// good number (what the callers are about) and nothing allocates; returns the warm-up.
fn detours_without_allocating(world: &mut World, what: &str) -> Measured {
    let warm = measure(world, 200);
    let m = measure(world, 400);
    eprintln!("{what}: warm-up {warm:?}; measured {m:?}");
    assert!(
        m.detour_ticks >= 20 && m.detours >= 40,
        "too few detours to check: {m:?}"
    );
    assert_eq!(
        m.first_allocating, None,
        "warm ticks allocated (tick, count, bytes): {m:?}"
    );
    warm
}

/// The platoon's advance: east along two lanes toward a threat beyond the goal.
fn overwatch_order() -> Order {
    Order::BoundingOverwatch {
        goal: Vec2::new(90.0, 30.0),
        threat: Vec2::new(135.0, 30.0),
        settings: OverwatchSettings {
            bound_length: 20.0,
            cover_radius: 6.0,
            ..OverwatchSettings::default()
        },
    }
}

/// A platoon of two 4-man squads (not yet ordered).
fn overwatch_world() -> (World, cohort::formation::FormationId) {
    let mut w = World::new(walled_lanes(), WorldSettings::default(), 5).unwrap();
    let spec = FormationSpec {
        pattern: Pattern {
            spacing: 8.0,
            ..Pattern::default()
        },
        ..FormationSpec::default()
    };
    let p = w
        .add_formation(spec, None, Vec2::new(10.0, 30.0), Vec2::X)
        .unwrap();
    for y in [20.0, 40.0] {
        let s = w
            .add_formation(
                FormationSpec::default(),
                Some(p),
                Vec2::new(10.0, y),
                Vec2::X,
            )
            .unwrap();
        for i in 0..4 {
            let pos = Vec2::new(10.0, y - 3.0 + 2.0 * i as f32);
            let u = w.add_unit(Body::new(pos, 0.5, 3.0, 8.0).unwrap()).unwrap();
            w.add_member(s, Member::Unit(u)).unwrap();
        }
    }
    (w, p)
}

#[test]
fn bounding_overwatch_steps_without_allocating_once_warm() {
    on_this_thread(bounding_overwatch_steps_without_allocating_once_warm_here);
}

fn bounding_overwatch_steps_without_allocating_once_warm_here() {
    let (mut w, p) = overwatch_world();
    let run = |w: &World| w.tactic(p).and_then(Tactic::as_overwatch).cloned();
    let finished = |w: &World| run(w).is_none_or(|r| r.is_finished());
    // Warm-up: two whole advances, each back to the start afterwards (cover updates,
    // detours round the walls and bound hand-overs grow the buffers; the second grows the
    // penetration solver's pair list a little past the first's).
    let mut warm = 0;
    for _ in 0..2 {
        w.order(p, overwatch_order()).unwrap();
        w.step(MAX_STEP);
        warm += 1;
        while !finished(&w) {
            w.step(MAX_STEP);
            warm += 1;
            assert!(warm < 20_000, "the warm-up advance never finished");
        }
        w.order(p, Order::move_to(Vec2::new(10.0, 30.0))).unwrap();
        for _ in 0..1500 {
            w.step(MAX_STEP);
        }
        warm += 1500;
    }
    // The same advance again, measured from the tick after the order's (an order allocates
    // its route and slots) to the end.
    w.order(p, overwatch_order()).unwrap();
    w.step(MAX_STEP);
    let (mut ticks, mut bounding_ticks, mut allocating) = (0, 0, Vec::new());
    while !finished(&w) && ticks < 20_000 {
        let tick = w.tick();
        let info = allocation_counter::measure(|| w.step(MAX_STEP));
        ticks += 1;
        bounding_ticks += usize::from(run(&w).and_then(|r| r.bounding()).is_some());
        if info.count_total > 0 {
            allocating.push((tick, info.count_total, info.bytes_total));
        }
    }
    let bounds = run(&w).map_or(0, |r| r.bounds().len());
    eprintln!(
        "overwatch: warm-up {warm} ticks; measured {ticks}, {bounding_ticks} bounding, {bounds} bounds"
    );
    assert!(finished(&w), "the measured advance never finished");
    assert!(
        bounding_ticks >= 1000 && bounds >= 4,
        "too little bounding measured: {bounding_ticks} ticks, {bounds} bounds"
    );
    assert!(
        allocating.is_empty(),
        "warm overwatch ticks allocated (tick, count, bytes): {allocating:?}"
    );
}

#[test]
fn the_counter_sees_allocations() {
    on_this_thread(the_counter_sees_allocations_here);
}

fn the_counter_sees_allocations_here() {
    // The instrument works: a fresh world's first tick (planning paths) allocates.
    let mut world = army(100, false);
    let info = allocation_counter::measure(|| world.step(MAX_STEP));
    assert!(info.count_total > 0);
}
