//! Slot assignment timings: exact solver at 16, 64, 128, 256 and 1024 members and greedy at
//! 256 and 1024, for a fresh form-up (members scattered over a square, slots of a box pattern
//! beside it); `near/256` re-solves with every member within a spacing of its slot (the usual
//! re-assignment after a death or a pattern change).
//!
//! The `assignment_cpu` group times the exact solver at 128 and 256 members and `near/256` in
//! thread CPU time (the `cpu-time` crate's thread clock; wall clock where there is none)
//! rather than wall clock: on a shared, loaded machine the wall clock also counts the time the
//! thread waits for a core.
//!
//! `cargo bench -p cohort-formation --bench assignment`
#![allow(missing_docs)]

use cohort_formation::assignment::{Assignment, AssignmentConfig, Located, SlotAssignment};
use cohort_formation::pattern::{Pattern, PatternKind, Role};
use cohort_steering::SimRng;
use cpu_time::ThreadTime;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::Vec2;
use std::hint::black_box;
use std::time::{Duration, Instant};

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

/// 256 members each off a slot of [`problem`]'s box by up to 1 m on each axis (as at a
/// re-assignment after a death, a join or a pattern change).
fn near_problem() -> (Vec<Located>, Vec<Located>) {
    let (_, slots) = problem(256);
    let mut rng = SimRng::seed_from(9);
    let members = slots
        .iter()
        .map(|s| {
            Located::new(
                s.position + Vec2::new(rng.clamped(), rng.clamped()),
                Role::Any,
            )
        })
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
        ("exact", exact, &[16usize, 64, 128, 256, 1024][..]),
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
    // Members already near their slots.
    let (members, slots) = near_problem();
    if let Ok(mut solver) = SlotAssignment::new(exact) {
        let mut assignment = Assignment::default();
        group.sample_size(50);
        group.bench_function("near/256", |b| {
            b.iter(|| solver.solve_fresh(black_box(&members), black_box(&slots), &mut assignment))
        });
    }
    group.finish();
}

/// Runs `f` `iters` times and returns the thread CPU time it took (wall clock where the
/// platform has no thread CPU clock). The runs are repeated until at least 50 ms of CPU time
/// have passed (a few runs are too short for a coarse clock) and the mean of a repetition is
/// returned.
fn cpu_time(iters: u64, mut f: impl FnMut()) -> Duration {
    let wall = Instant::now();
    let Ok(start) = ThreadTime::try_now() else {
        for _ in 0..iters {
            f();
        }
        return wall.elapsed();
    };
    let mut repetitions = 0u32;
    loop {
        for _ in 0..iters {
            f();
        }
        repetitions += 1;
        // The clock failing after it worked once: no CPU time to measure, stop at once.
        let Ok(spent) = start.try_elapsed() else {
            return Duration::ZERO;
        };
        if spent >= Duration::from_millis(50) || repetitions >= 10_000 {
            return spent / repetitions;
        }
    }
}

fn bench_cpu(c: &mut Criterion) {
    let mut group = c.benchmark_group("assignment_cpu");
    group.sample_size(50);
    let exact = AssignmentConfig {
        greedy_above: usize::MAX,
        ..AssignmentConfig::default()
    };
    let (near_members, near_slots) = near_problem();
    let cases = [
        ("exact/128", problem(128)),
        ("exact/256", problem(256)),
        ("near/256", (near_members, near_slots)),
    ];
    for (name, (members, slots)) in &cases {
        let Ok(mut solver) = SlotAssignment::new(exact) else {
            continue;
        };
        let mut assignment = Assignment::default();
        group.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                cpu_time(iters, || {
                    solver.solve_fresh(black_box(members), black_box(slots), &mut assignment);
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_cpu);
criterion_main!(benches);
