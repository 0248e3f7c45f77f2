//! World stepping timings: one tick of the standard army ([`cohort_formation::army`]: squads
//! of 8 to 16 in platoons marching over a 1 km map with obstacles) at 1,000, 10,000 and
//! 100,000 units, all layers (orders, formations, steering, locomotion, constraints). The
//! army is warmed up for 20 ticks first; each sample steps on from where the last stopped.
//!
//! The same 10,000 units are also stepped in flat top-level formations of 1 and of 4 units
//! ([`ArmySpec::group_size`]: same spots, same march) to see what the number of formations
//! costs.
//!
//! `cargo bench -p cohort-formation --bench world` (budget: 10,000 units ≤ 2 ms a tick;
//! 100,000 units ≤ 12× the 10,000 figure; see docs/performance.md).
#![allow(missing_docs)]

use cohort_formation::WorldSettings;
use cohort_formation::army::{ArmySpec, build_army};
use cohort_formation::world::MAX_STEP;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_step");
    for units in [1_000usize, 10_000, 100_000] {
        let spec = ArmySpec {
            units,
            ..ArmySpec::default()
        };
        let Ok(army) = build_army(&spec, WorldSettings::default()) else {
            continue;
        };
        let mut world = army.world;
        for _ in 0..20 {
            world.step(MAX_STEP);
        }
        group.throughput(Throughput::Elements(units as u64));
        if units >= 100_000 {
            group.sample_size(10);
            group.measurement_time(Duration::from_secs(20));
        }
        group.bench_with_input(BenchmarkId::from_parameter(units), &units, |b, _| {
            b.iter(|| world.step(MAX_STEP));
        });
    }
    group.finish();
}

fn bench_groups(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_step_groups");
    let units = 10_000;
    group.throughput(Throughput::Elements(units as u64));
    for size in [1usize, 4] {
        let spec = ArmySpec {
            units,
            group_size: Some(size),
            ..ArmySpec::default()
        };
        let Ok(army) = build_army(&spec, WorldSettings::default()) else {
            continue;
        };
        let mut world = army.world;
        for _ in 0..20 {
            world.step(MAX_STEP);
        }
        group.bench_with_input(BenchmarkId::new("group_size", size), &size, |b, _| {
            b.iter(|| world.step(MAX_STEP));
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_groups);
criterion_main!(benches);
