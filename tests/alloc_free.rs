//! A warm world steps without touching the heap: the standard army marching over an open field
//! is stepped with a counting global allocator (`allocation-counter`, which counts the calling
//! thread's allocations) and every tick after the warm-up must make zero allocations.
//!
//! Path planning allocates the path it returns (pathing's `find_path`): formation orders, and
//! detours of units whose slot is out of sight (re-planned at most once a second per unit).
//! This test's army marches over an open field and gets its orders before the warm-up; a tick
//! in which some unit planned a detour is
//! counted but not checked (slot re-assignment ticks are checked), and at least 80 of the 100 measured ticks must be checked. docs/performance.md says what allocates and how often.

use cohort::formation::WorldSettings;
use cohort::formation::army::{ArmySpec, build_army};
use cohort::formation::world::MAX_STEP;

fn open_field_army(units: usize) -> cohort::formation::World {
    let spec = ArmySpec {
        units,
        map_size: 1000.0,
        march: 150.0,
        obstacles: false,
        ..ArmySpec::default()
    };
    build_army(&spec, WorldSettings::default())
        .expect("army")
        .world
}

#[test]
fn warm_world_steps_without_allocating() {
    let mut world = open_field_army(600);
    // Warm-up: orders planned, buffers grown to size.
    for _ in 0..40 {
        world.step(MAX_STEP);
    }
    let start: Vec<_> = world.units().map(|(_, u)| u.body.position).collect();
    let (mut checked, mut planning) = (0, 0);
    for _ in 0..100 {
        let tick = world.tick();
        let info = allocation_counter::measure(|| world.step(MAX_STEP));
        // A unit that planned a detour this tick (its path is a new allocation of pathing's
        // `find_path`): such ticks are counted, not checked.
        let planned = world.units().filter(|(_, u)| u.detour_tick == tick).count();
        // Ticks with a periodic slot re-assignment (every 120 ticks) are checked too: the
        // pattern is laid out into reused buffers.
        if planned > 0 {
            planning += 1;
            continue;
        }
        checked += 1;
        assert_eq!(
            info.count_total, 0,
            "tick {tick} (no path planned) allocated {} times ({} bytes)",
            info.count_total, info.bytes_total
        );
    }
    eprintln!("{checked} ticks checked allocation-free, {planning} planned or re-assigned");
    assert!(checked >= 80, "only {checked} of 100 ticks planned no path");
    // The army really moved while being measured (the count is of real work).
    let moved = world
        .units()
        .zip(&start)
        .filter(|((_, u), s)| (u.body.position - **s).length() > 2.0)
        .count();
    assert!(moved > 500, "only {moved} of 600 units moved");
}

#[test]
fn the_counter_sees_allocations() {
    // The instrument works: a fresh world's first tick (planning paths) allocates.
    let mut world = open_field_army(100);
    let info = allocation_counter::measure(|| world.step(MAX_STEP));
    assert!(info.count_total > 0);
}
