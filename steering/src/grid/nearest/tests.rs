use super::super::{BruteForceSearch, CellGrid, NeighbourSearch, within_radius};
use glam::Vec2;

/// Keeps the `cap` nearest `(distance², index)`, ties by index.
fn keep(nearest: &mut Vec<(f32, u32)>, cap: usize, item: (f32, u32)) {
    nearest.push(item);
    nearest.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    nearest.truncate(cap);
}

/// Narrowing rows and columns to what the caller still wants finds the same `k` nearest as
/// a search of the whole radius, on grids with items out of bounds and in clumps, with
/// cells large and small (blocks of many cells, whose ends are trimmed).
#[test]
fn nearest_first_finds_the_same_nearest_items() {
    for cell in [1.5, 0.3, 0.05] {
        nearest_first_on(cell);
    }
}

fn nearest_first_on(cell: f32) {
    let mut rng = crate::SimRng::seed_from(5);
    let mut g = CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), cell).unwrap();
    let mut positions: Vec<Vec2> = (0..600)
        .map(|_| Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0)))
        .collect();
    // Clumps on cell edges, and exact ties.
    for k in 0..40 {
        let p = Vec2::new(-10.0 + 1.5 * (k % 13) as f32, -10.0 + 1.5 * (k / 13) as f32);
        positions.push(p);
        positions.push(p);
    }
    g.rebuild(&positions);
    let mut brute = BruteForceSearch::new();
    brute.rebuild(&positions);
    let (mut pruned, mut total) = (0usize, 0usize);
    for round in 0..400 {
        let center = if round % 4 == 0 {
            positions[rng.index(positions.len())]
        } else {
            Vec2::new(rng.range(-13.0, 13.0), rng.range(-13.0, 13.0))
        };
        let radius = rng.range(0.0, 9.0);
        let cap = 1 + rng.index(12);
        let radius_sq = radius * radius;
        let mut near = Vec::new();
        let mut scanned = 0;
        g.for_each_row_run_nearest_first(center, radius, |first, items, run| {
            assert_eq!(items.len(), run.len());
            for (k, (&i, &p)) in items.iter().zip(run).enumerate() {
                assert_eq!(g.order()[first + k], i);
                scanned += 1;
                if within_radius(p, center, radius) {
                    keep(&mut near, cap, ((p - center).length_squared(), i));
                }
            }
            match near.last() {
                Some(&(d, _)) if near.len() >= cap => d,
                _ => radius_sq,
            }
        });
        let mut wanted = Vec::new();
        brute.for_each_in_radius(center, radius, |i, p| {
            keep(&mut wanted, cap, ((p - center).length_squared(), i));
        });
        assert_eq!(near, wanted, "centre {center} radius {radius} cap {cap}");
        let mut all = 0;
        g.for_each_row_run(center, radius, |_, items, _| all += items.len());
        pruned += all.saturating_sub(scanned);
        total += all;
    }
    // The narrowing does skip work.
    assert!(pruned * 4 > total, "{pruned} of {total} skipped");
    let mut calls = 0;
    g.for_each_row_run_nearest_first(Vec2::ZERO, f32::NAN, |_, _, _| {
        calls += 1;
        0.0
    });
    g.for_each_row_run_nearest_first(Vec2::ZERO, -1.0, |_, _, _| {
        calls += 1;
        0.0
    });
    assert_eq!(calls, 0);
}

/// A caller that keeps the whole radius sees every item within it exactly once.
#[test]
fn nearest_first_with_the_whole_radius_sees_every_item_once() {
    let mut rng = crate::SimRng::seed_from(8);
    let mut g = CellGrid::new(Vec2::new(0.0, 0.0), Vec2::new(40.0, 30.0), 2.0).unwrap();
    let positions: Vec<Vec2> = (0..500)
        .map(|_| Vec2::new(rng.range(-2.0, 42.0), rng.range(-2.0, 32.0)))
        .collect();
    g.rebuild(&positions);
    let mut brute = BruteForceSearch::new();
    brute.rebuild(&positions);
    for _ in 0..200 {
        let center = Vec2::new(rng.range(-5.0, 45.0), rng.range(-5.0, 35.0));
        let radius = rng.range(0.0, 12.0);
        let mut found = Vec::new();
        g.for_each_row_run_nearest_first(center, radius, |_, items, run| {
            for (&i, &p) in items.iter().zip(run) {
                if within_radius(p, center, radius) {
                    found.push(i);
                }
            }
            radius * radius
        });
        let mut wanted = Vec::new();
        brute.query_radius(center, radius, &mut wanted);
        let n = found.len();
        found.sort_unstable();
        found.dedup();
        assert_eq!(found.len(), n, "an item seen twice");
        assert_eq!(found, wanted);
    }
}
