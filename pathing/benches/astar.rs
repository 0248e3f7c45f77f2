//! A* corner to corner on a 256 × 256 grid with 20 % random obstacles (fixed seed): Cohort's own
//! search, petgraph's `astar` on the same graph, and the `pathfinding` crate's `astar` on the same
//! grid (8-connected, no corner cutting, Euclidean heuristic), in one run.
//!
//! `cargo bench -p cohort-pathing --bench astar`

use std::hint::black_box;

use cohort_pathing::{NavGraph, OccupancyGrid, SearchFilter, SearchScratch};
use cohort_steering::SimRng;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec2;

const SIZE: u32 = 256;
const SEED: u64 = 0xC0407;

/// The benchmark grid: 20 % of the cells blocked, the two corners free.
fn grid() -> OccupancyGrid {
    let mut grid = OccupancyGrid::new(Vec2::ZERO, 1.0, SIZE, SIZE).expect("valid grid");
    let mut rng = SimRng::seed_from(SEED);
    for y in 0..SIZE {
        for x in 0..SIZE {
            grid.set_blocked(x, y, rng.next_f32() < 0.2);
        }
    }
    grid.set_blocked(0, 0, false);
    grid.set_blocked(SIZE - 1, SIZE - 1, false);
    grid
}

/// `pathfinding`'s A* on the raw grid, costs in thousandths (it needs integer costs).
fn pathfinding_astar(grid: &OccupancyGrid) -> Option<(Vec<(i64, i64)>, u32)> {
    let goal = (SIZE as i64 - 1, SIZE as i64 - 1);
    pathfinding::prelude::astar(
        &(0i64, 0i64),
        |&(x, y)| {
            const STEPS: [(i64, i64, u32); 8] = [
                (1, 0, 1000),
                (-1, 0, 1000),
                (0, 1, 1000),
                (0, -1, 1000),
                (1, 1, 1414),
                (-1, 1, 1414),
                (1, -1, 1414),
                (-1, -1, 1414),
            ];
            STEPS.into_iter().filter_map(move |(dx, dy, c)| {
                let (nx, ny) = (x + dx, y + dy);
                let free = !grid.is_blocked(nx, ny)
                    && (dx == 0 || dy == 0 || (!grid.is_blocked(nx, y) && !grid.is_blocked(x, ny)));
                free.then_some(((nx, ny), c))
            })
        },
        |&(x, y)| {
            let d = Vec2::new((goal.0 - x) as f32, (goal.1 - y) as f32).length();
            (d * 1000.0) as u32
        },
        |&p| p == goal,
    )
}

fn bench(c: &mut Criterion) {
    let grid = grid();
    let nav = NavGraph::from_occupancy_grid(&grid).expect("graph");
    let start = nav.nearest_node(Vec2::splat(0.5)).expect("start");
    let goal = nav
        .nearest_node(Vec2::splat(SIZE as f32 - 0.5))
        .expect("goal");
    let mut scratch = SearchScratch::new();
    let filter = SearchFilter::default();
    // The three find equally long routes.
    let ours = nav
        .find_route(start, goal, &filter, &mut scratch)
        .expect("reachable");
    let (theirs, cost) = pathfinding_astar(&grid).expect("reachable");
    let (pg, _) = nav.astar_petgraph(start, goal).expect("reachable");
    assert!((ours.cost - cost as f32 / 1000.0).abs() < ours.cost * 0.001);
    assert!((ours.cost - pg).abs() < 1e-2);
    assert!(theirs.len() > 256);

    let mut group = c.benchmark_group("astar_256x256_20pct");
    group.bench_function("cohort", |b| {
        b.iter(|| {
            black_box(
                nav.find_route(black_box(start), black_box(goal), &filter, &mut scratch)
                    .map(|r| r.cost),
            )
        })
    });
    group.bench_function("pathfinding", |b| {
        b.iter(|| black_box(pathfinding_astar(black_box(&grid)).map(|r| r.1)))
    });
    group.bench_function("petgraph", |b| {
        b.iter(|| {
            black_box(
                nav.astar_petgraph(black_box(start), black_box(goal))
                    .map(|r| r.0),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
