//! The state hash and the binary snapshot of the standard army ([`cohort_formation::army`])
//! at 10,000 units, warmed up for 20 ticks: [`World::state_hash`] (budget: 20 ns per unit)
//! and a binary snapshot written and loaded back (budget: 50 ms).
//!
//! `cargo bench -p cohort-formation --bench state_hash` (see docs/performance.md).
#![allow(missing_docs)]

use cohort_formation::army::{ArmySpec, build_army};
use cohort_formation::world::MAX_STEP;
use cohort_formation::{World, WorldSettings};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;

fn warm_army(units: usize) -> Option<World> {
    let spec = ArmySpec {
        units,
        ..ArmySpec::default()
    };
    let mut world = build_army(&spec, WorldSettings::default()).ok()?.world;
    for _ in 0..20 {
        world.step(MAX_STEP);
    }
    Some(world)
}

fn bench(c: &mut Criterion) {
    let units = 10_000;
    let Some(mut world) = warm_army(units) else {
        return;
    };
    let mut group = c.benchmark_group("state_hash");
    group.throughput(Throughput::Elements(units as u64));
    group.bench_with_input(BenchmarkId::from_parameter(units), &units, |b, _| {
        b.iter(|| world.state_hash());
    });
    group.finish();
    let mut group = c.benchmark_group("snapshot_round_trip");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_with_input(BenchmarkId::from_parameter(units), &units, |b, _| {
        b.iter(|| {
            if let Ok(bytes) = world.to_binary_snapshot() {
                let _ = world.load_state(&bytes);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
