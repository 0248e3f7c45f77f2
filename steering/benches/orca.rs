//! ORCA timings: one `solve` for an agent among 8 neighbours (and 2 wall segments), over 256
//! random neighbourhoods cycled through so that no branch is always predicted, with the
//! right-hand rule on. `infeasible` counts the neighbourhoods where the 3D program ran.
//!
//! `cargo bench -p cohort-steering --bench orca`
#![allow(missing_docs)]

use cohort_steering::orca::{
    OrcaAgent, OrcaBuffers, OrcaNeighbour, OrcaParams, OrcaSegment, solve,
};
use cohort_steering::{SimRng, Vec2};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

struct Case {
    agent: OrcaAgent,
    preferred: Vec2,
    neighbours: Vec<OrcaNeighbour>,
}

fn cases(count: usize, neighbours: usize, spread: f32) -> Vec<Case> {
    let mut rng = SimRng::seed_from(7);
    let mut around = |s: f32| Vec2::new(rng.range(-s, s), rng.range(-s, s));
    (0..count)
        .map(|_| {
            let agent = OrcaAgent {
                position: around(50.0),
                velocity: around(1.5),
                radius: 0.5,
                max_speed: 2.0,
            };
            let neighbours = (0..neighbours)
                .map(|k| OrcaNeighbour {
                    position: agent.position + around(spread),
                    velocity: around(1.5),
                    radius: 0.5,
                    share: if k % 4 == 3 { 1.0 } else { 0.5 },
                })
                .collect();
            Case {
                agent,
                preferred: Vec2::new(2.0, 0.0),
                neighbours,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let params = OrcaParams::default();
    let mut buffers = OrcaBuffers::with_capacity(16);
    let mut group = c.benchmark_group("orca_solve");
    for (name, spread) in [("8_neighbours_sparse", 4.0), ("8_neighbours_dense", 1.8)] {
        let cases = cases(256, 8, spread);
        let infeasible = cases
            .iter()
            .filter(|k| {
                solve(
                    &k.agent,
                    k.preferred,
                    &k.neighbours,
                    &[],
                    &params,
                    0.1,
                    &mut buffers,
                )
                .infeasible
            })
            .count();
        eprintln!("{name}: {infeasible} of {} infeasible", cases.len());
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                let k = &cases[i % cases.len()];
                i += 1;
                black_box(solve(
                    black_box(&k.agent),
                    k.preferred,
                    &k.neighbours,
                    &[],
                    &params,
                    0.1,
                    &mut buffers,
                ))
            })
        });
    }
    let cases = cases(256, 8, 4.0);
    let mut i = 0;
    group.bench_function("8_neighbours_2_segments", |b| {
        b.iter(|| {
            let k = &cases[i % cases.len()];
            i += 1;
            let p = k.agent.position;
            let walls = [
                OrcaSegment {
                    from: p + Vec2::new(-5.0, 1.5),
                    to: p + Vec2::new(5.0, 1.5),
                },
                OrcaSegment {
                    from: p + Vec2::new(-5.0, -1.5),
                    to: p + Vec2::new(5.0, -1.5),
                },
            ];
            black_box(solve(
                black_box(&k.agent),
                k.preferred,
                &k.neighbours,
                &walls,
                &params,
                0.1,
                &mut buffers,
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
