//! Slot assignment timings: exact solver at 16, 64 and 256 members, greedy at 1024.
//!
//! `cargo bench -p cohort-formation --bench assignment`
#![allow(missing_docs)]

use cohort_formation::assignment::{Assignment, AssignmentConfig, Located, SlotAssignment};
use cohort_formation::pattern::{Pattern, PatternKind, Role};
use cohort_steering::SimRng;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::Vec2;
use std::hint::black_box;

/// `n` members scattered over a square, and the `n` slots of a box pattern.
fn problem(n: usize) -> (Vec<Located>, Vec<Located>) {
    let mut rng = SimRng::seed_from(n as u64);
    let half = (n as f32).sqrt() * 2.0;
    let members = (0..n)
        .map(|_| {
            let p = Vec2::new(rng.range(-half, half), rng.range(-half, half));
            Located::new(p, Role::Any)
        })
        .collect();
    let mut layout = Vec::new();
    if let Ok(pattern) = Pattern::for_radius(PatternKind::Box, 0.5).validate() {
        pattern.layout(n, &mut layout);
    }
    let slots = layout
        .iter()
        .map(|s| Located::new(s.offset + Vec2::new(half, 0.0), s.role))
        .collect();
    (members, slots)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("assignment");
    let exact = AssignmentConfig {
        greedy_above: usize::MAX,
        ..AssignmentConfig::default()
    };
    let greedy = AssignmentConfig {
        greedy_above: 0,
        ..AssignmentConfig::default()
    };
    for (name, config, sizes) in [
        ("exact", exact, &[16usize, 64, 256, 1024][..]),
        ("greedy", greedy, &[256, 1024][..]),
    ] {
        for &n in sizes {
            let (members, slots) = problem(n);
            let Ok(mut solver) = SlotAssignment::new(config) else {
                continue;
            };
            let mut assignment = Assignment::default();
            if n >= 1024 && name == "exact" {
                group.sample_size(10);
            } else {
                group.sample_size(50);
            }
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| {
                    solver.solve_fresh(black_box(&members), black_box(&slots), &mut assignment)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
