//! Context steering timings: one full evaluation (interest, danger, combine, decide) of a body
//! among 6 obstacles, 2 walls and 8 moving neighbours, at 16 and 64 slots. Time slicing is off
//! (`max_validity` 0), so every call evaluates.
//!
//! `cargo bench -p cohort-steering --bench context`
#![allow(missing_docs)]

use cohort_steering::context::{ContextConfig, ContextSteering};
use cohort_steering::{Body, CircleObstacle, SimRng, Vec2, Wall};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

struct Scene {
    body: Body,
    goal: Vec2,
    obstacles: Vec<CircleObstacle>,
    walls: Vec<Wall>,
    movers: Vec<Body>,
}

fn scene() -> Scene {
    let mut rng = SimRng::seed_from(42);
    let mut around =
        |spread: f32| Vec2::new(rng.range(-spread, spread), rng.range(-spread, spread));
    let body = Body::default().moving(Vec2::new(2.0, 0.5));
    let obstacles = (0..6)
        .filter_map(|k| CircleObstacle::new(around(8.0) + Vec2::X * k as f32, 1.0).ok())
        .collect();
    let walls = [
        (Vec2::new(-10.0, 4.0), Vec2::new(10.0, 4.0)),
        (Vec2::new(-10.0, -4.0), Vec2::new(10.0, -4.0)),
    ]
    .into_iter()
    .filter_map(|(a, b)| Wall::new(a, b).ok())
    .collect();
    let movers = (0..8)
        .map(|_| {
            let p = around(5.0);
            Body {
                position: p,
                ..Body::default()
            }
            .moving(-p.normalize_or_zero())
        })
        .collect();
    Scene {
        body,
        goal: Vec2::new(30.0, 2.0),
        obstacles,
        walls,
        movers,
    }
}

fn bench(c: &mut Criterion) {
    let s = scene();
    let mut group = c.benchmark_group("context_steering");
    for slots in [16usize, 64] {
        let config = ContextConfig {
            slots,
            max_validity: 0.0,
            ..ContextConfig::default()
        };
        let Ok(mut steering) = ContextSteering::new(config) else {
            continue;
        };
        group.bench_with_input(BenchmarkId::from_parameter(slots), &slots, |b, _| {
            b.iter(|| {
                black_box(steering.steer(
                    black_box(&s.body),
                    s.goal,
                    &s.obstacles,
                    &s.walls,
                    &s.movers,
                    1.0 / 30.0,
                ))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
