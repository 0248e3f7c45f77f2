//! A warm world steps without touching the heap on several threads too. The process's global
//! allocator counts every allocation of every thread (rayon's workers included, unlike the
//! calling-thread counter of `tests/alloc_free.rs`), and the standard army and two traffic
//! scenarios are stepped inside rayon pools of two and four threads: after a warm-up, every
//! world step must make zero allocations, whatever thread makes them. The army stepped from a
//! thread outside the pool may allocate only in rayon's global job queue, once in 63 steps.
//!
//! Only the world's steps are counted (orders and bookkeeping between steps are not), and
//! everything runs in one test so that no other test's thread allocates while a step is
//! counted.
//!
//! `cargo test --features parallel --test parallel_alloc_free` (without the feature this file
//! has no tests).
#![cfg(feature = "parallel")]

use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::world::MAX_STEP;
use cohort::formation::{AnchorPoint, FormationSpec, Member, Order, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::{Body, Vec2};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;

/// The system allocator with process-wide atomic counters: every thread's allocations count.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Pool sizes checked.
const THREADS: [usize; 2] = [2, 4];

/// A world to step, with the orders to give it before its first step.
struct Run {
    world: World,
    /// Formations and their orders, given before the first counted or uncounted step.
    orders: Vec<(cohort::formation::FormationId, Order)>,
    dt: f32,
}

impl Run {
    /// One step of the world; returns its allocations (and reallocations) and the bytes they
    /// took, all threads.
    fn step(&mut self) -> (usize, usize) {
        for (f, order) in self.orders.drain(..) {
            self.world.order(f, order).expect("order");
        }
        let region = Region::new(GLOBAL);
        self.world.step(self.dt);
        let change = region.change();
        (
            change.allocations + change.reallocations,
            change.bytes_allocated,
        )
    }
}

/// The standard army of 3,000 units on the army's 1 km map (trees, buildings, walls), each
/// platoon ordered 150 m east: twelve chunks of units, dozens of top-level formations, spans
/// of the separation sweep, detours round the obstacles.
fn army() -> Run {
    let spec = ArmySpec {
        units: 3000,
        map_size: 1000.0,
        march: 150.0,
        ..ArmySpec::default()
    };
    Run {
        world: build_army(&spec, WorldSettings::default())
            .expect("army")
            .world,
        orders: Vec::new(),
        dt: MAX_STEP,
    }
}

/// Walkers of the traffic scenarios: radius 0.5, 1.3 m/s.
fn walker(position: Vec2, facing: Vec2) -> Body {
    Body {
        position,
        radius: 0.5,
        max_speed: 1.3,
        ..Body::default()
    }
    .facing(facing)
}

/// Box formations of walkers on `map`, each `(anchor, facing, goal, units)` standing on its
/// slots and ordered to its goal, built with the world's API like the traffic scenarios of
/// `scenarios/traffic/` (their loader is in `cohort-demos`, which brings its own global
/// allocator, one that counts the calling thread only).
fn boxes(map: Map, squads: &[(Vec2, Vec2, Vec2, usize)]) -> Run {
    let mut world = World::new(map, WorldSettings::default(), 1).expect("world");
    let mut orders = Vec::new();
    let mut slots = Vec::new();
    for &(at, facing, goal, units) in squads {
        let pattern = Pattern::for_radius(PatternKind::Box, 0.5);
        let valid = pattern.clone().validate().expect("pattern");
        let spec = FormationSpec {
            pattern,
            ..FormationSpec::default()
        };
        let f = world
            .add_formation(spec, None, at, facing)
            .expect("formation");
        valid.layout(units, &mut slots);
        let anchor = AnchorPoint::at(at, facing);
        for slot in &slots {
            let body = walker(anchor.slot_position(slot.offset), facing);
            let u = world.add_unit(body).expect("unit");
            world.add_member(f, Member::Unit(u)).expect("member");
        }
        let order = Order::MoveTo {
            goal,
            facing: Some(facing),
            pattern: None,
            at_slowest: true,
        };
        orders.push((f, order));
    }
    Run {
        world,
        orders,
        dt: 0.1,
    }
}

/// Like `scenarios/traffic/crossing.ron`: two boxes of 100 cross at right angles on an open
/// field.
fn crossing() -> Run {
    let map = Map {
        max: Vec2::splat(160.0),
        ..Map::default()
    };
    boxes(
        map,
        &[
            (Vec2::new(30.0, 80.0), Vec2::X, Vec2::new(130.0, 80.0), 100),
            (Vec2::new(80.0, 30.0), Vec2::Y, Vec2::new(80.0, 130.0), 100),
        ],
    )
}

/// Like `scenarios/traffic/chokepoint.ron`: 20 boxes of 50 (1,000 units, four chunks) west of
/// a wall, all through one 4 m gap.
fn chokepoint() -> Run {
    let block = |y0: f32, y1: f32| PolygonObstacle {
        points: vec![
            Vec2::new(99.0, y0),
            Vec2::new(101.0, y0),
            Vec2::new(101.0, y1),
            Vec2::new(99.0, y1),
        ],
    };
    let map = Map {
        max: Vec2::new(200.0, 120.0),
        polygons: vec![block(0.0, 58.0), block(62.0, 120.0)],
        ..Map::default()
    };
    let mut squads = Vec::new();
    for (column, x) in [88.0, 74.0, 60.0, 46.0].into_iter().enumerate() {
        for y in [28.0, 44.0, 60.0, 76.0, 92.0] {
            let goal = Vec2::new(168.0 - 14.0 * column as f32, y);
            squads.push((Vec2::new(x, y), Vec2::X, goal, 50));
        }
    }
    boxes(map, &squads)
}

/// What the counted ticks of one run saw.
#[derive(Debug, Default)]
struct Counted {
    /// Ticks counted.
    ticks: u64,
    /// Allocations and reallocations in them, all threads.
    allocations: usize,
    /// Bytes allocated in them.
    bytes: usize,
    /// The first tick that allocated and its allocations.
    first: Option<(u64, usize)>,
}

/// Steps `run` `warm` ticks, then counts the allocations of `ticks` more.
fn steps(run: &mut Run, warm: u64, ticks: u64) -> Counted {
    for _ in 0..warm {
        run.step();
    }
    let mut counted = Counted {
        ticks,
        ..Counted::default()
    };
    for tick in warm..warm + ticks {
        let (n, bytes) = run.step();
        counted.allocations += n;
        counted.bytes += bytes;
        if n > 0 {
            counted.first.get_or_insert((tick, n));
        }
    }
    counted
}

/// Builds a run with `make` and [`steps`] it, all inside a pool of `threads` threads.
fn in_pool(threads: usize, make: &(dyn Fn() -> Run + Sync), warm: u64, ticks: u64) -> Counted {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        assert_eq!(rayon::current_num_threads(), threads);
        steps(&mut make(), warm, ticks)
    })
}

#[test]
fn warm_worlds_step_without_allocating_on_two_and_four_threads() {
    // The counter sees allocations made on another thread.
    let region = Region::new(GLOBAL);
    let v = std::thread::spawn(|| std::hint::black_box(vec![1_u8; 64]).len())
        .join()
        .expect("thread");
    assert!(region.change().allocations >= 1 && v == 64);

    // A world stepped from a thread outside the pool (rayon's global pool, two threads, the
    // test's own thread stepping): each step enters the pool once, through rayon's global
    // job queue, which allocates a block of 63 job slots every 63 jobs. So at most about one
    // allocation in 63 steps (one per stage, before the step entered the pool once, was one
    // in 9).
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect("rayon's global pool, built first");
    let outside = steps(&mut army(), 100, 320);
    assert!(
        outside.allocations <= 320 / 32,
        "stepped from outside the pool: {outside:?}"
    );

    // Inside the pool: nothing at all.
    let cases: [(&str, &(dyn Fn() -> Run + Sync), u64, u64); 3] = [
        ("army of 3,000", &army, 100, 300),
        ("chokepoint", &chokepoint, 200, 400),
        ("crossing", &crossing, 200, 400),
    ];
    let mut failures = Vec::new();
    for (name, make, warm, ticks) in cases {
        for threads in THREADS {
            let counted = in_pool(threads, make, warm, ticks);
            assert_eq!(counted.ticks, ticks);
            if counted.allocations > 0 {
                failures.push(format!("{name} on {threads} threads: {counted:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "warm ticks allocated: {failures:#?}");
}
