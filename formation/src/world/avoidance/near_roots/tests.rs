use cohort_steering::grid::{CellGrid, NeighbourSearch};
use cohort_steering::{SimRng, Vec2};

use super::{NearRoots, NearRootsInput};
use crate::world::avoidance::{GroupRuns, NO_GROUP, UnitGroups};

/// A field of formations: `formations` blocks of units (some as small as three), on a grid
/// of places with jitter so that some stand apart and some press into each other; every
/// fourth formation shares a cluster with the one before it; with `loose`, a few units
/// belong to no formation.
struct Field {
    positions: Vec<Vec2>,
    roots: Vec<u32>,
    clusters: Vec<u32>,
}

fn field(rng: &mut SimRng, formations: u32, loose: bool) -> Field {
    let mut positions = Vec::new();
    let mut roots = Vec::new();
    let mut clusters = Vec::new();
    for f in 0..formations {
        let place = Vec2::new((f % 6) as f32 * 18.0, (f / 6) as f32 * 16.0);
        let corner = place + Vec2::new(rng.range(-4.0, 4.0), rng.range(-4.0, 4.0));
        let units = if f % 7 == 3 { 3 } else { 12 + rng.index(40) };
        let side = rng.range(4.0, 14.0);
        for _ in 0..units {
            positions.push(corner + Vec2::new(rng.range(0.0, side), rng.range(0.0, side)));
            roots.push(if loose && rng.next_f32() < 0.01 {
                NO_GROUP
            } else {
                f
            });
        }
        clusters.push(if f % 4 == 1 { f - 1 } else { f });
    }
    Field {
        positions,
        roots,
        clusters,
    }
}

/// A unit found clear of others has no unit of another avoidance group within its reach (by
/// the search's own distance test), over many fields, reaches and query points; and the test
/// does find units clear, or it would spare no search.
#[test]
fn a_unit_found_clear_has_no_one_of_another_group_within_reach() {
    let (mut clear, mut searched) = (0usize, 0usize);
    for seed in 0..40 {
        let mut rng = SimRng::seed_from(seed);
        let loose = seed % 3 == 0;
        let count = 6 + rng.index(30) as u32;
        let f = field(&mut rng, count, loose);
        let groups = UnitGroups {
            roots: &f.roots,
            clusters: &f.clusters,
        };
        let mut grid = CellGrid::new(Vec2::splat(-20.0), Vec2::splat(140.0), 1.5).unwrap();
        grid.rebuild(&f.positions);
        let mut runs = GroupRuns::default();
        runs.rebuild(grid.order(), groups);
        let longest = rng.range(1.0, 12.0);
        let mut near = NearRoots::default();
        near.rebuild(&NearRootsInput {
            grid: &grid,
            runs: &runs,
            positions: &f.positions,
            roots: &f.roots,
            clusters: &f.clusters,
            reach: longest,
        });
        for (i, &at) in f.positions.iter().enumerate() {
            let reach = if i % 2 == 0 {
                longest
            } else {
                rng.range(0.0, longest)
            };
            let own = groups.of(i);
            let mut other = false;
            grid.for_each_in_radius(at, reach, |j, _| {
                let g = groups.of(j as usize);
                other |= j as usize != i && (own == NO_GROUP || g != own);
            });
            if near.clear_of_others(f.roots[i], at, reach) {
                clear += 1;
                assert!(
                    !other,
                    "seed {seed}: unit {i} found clear has a unit of another group within {reach}"
                );
            } else {
                searched += 1;
            }
        }
    }
    assert!(clear > 1000, "{clear} units found clear");
    assert!(searched > 1000, "{searched} units searched");
}

/// Without lists (the grid was not built this tick) nobody is found clear; a formation with
/// a unit of no formation near it, or too small to list, leaves its units to search.
#[test]
fn unlisted_formations_and_invalid_lists_leave_every_unit_to_search() {
    // Two formations far apart: each clear of the other; a loose unit beside the first.
    let mut positions = Vec::new();
    let mut roots = Vec::new();
    for k in 0..10 {
        positions.push(Vec2::new(k as f32, 0.0));
        roots.push(0);
        positions.push(Vec2::new(100.0 + k as f32, 0.0));
        roots.push(1);
    }
    let clusters = [0, 1];
    let build = |positions: &[Vec2], roots: &[u32]| {
        let groups = UnitGroups {
            roots,
            clusters: &clusters,
        };
        let mut grid = CellGrid::new(Vec2::splat(-20.0), Vec2::splat(140.0), 1.5).unwrap();
        grid.rebuild(positions);
        let mut runs = GroupRuns::default();
        runs.rebuild(grid.order(), groups);
        let mut near = NearRoots::default();
        near.rebuild(&NearRootsInput {
            grid: &grid,
            runs: &runs,
            positions,
            roots,
            clusters: &clusters,
            reach: 5.0,
        });
        near
    };
    let mut near = build(&positions, &roots);
    assert!(near.clear_of_others(0, Vec2::new(5.0, 0.0), 5.0));
    assert!(near.clear_of_others(1, Vec2::new(105.0, 0.0), 5.0));
    // A unit of no formation is never clear.
    assert!(!near.clear_of_others(NO_GROUP, Vec2::new(5.0, 0.0), 5.0));
    near.invalidate();
    assert!(!near.clear_of_others(0, Vec2::new(5.0, 0.0), 5.0));
    // A loose unit 3 m past the first formation's end: its units search.
    positions.push(Vec2::new(12.0, 0.0));
    roots.push(NO_GROUP);
    let near = build(&positions, &roots);
    assert!(!near.clear_of_others(0, Vec2::new(5.0, 0.0), 5.0));
    assert!(near.clear_of_others(1, Vec2::new(105.0, 0.0), 5.0));
    // A formation of fewer units than are listed: its units search.
    let near = build(&positions[..4], &roots[..4]);
    assert!(!near.clear_of_others(0, Vec2::new(1.0, 0.0), 5.0));
}
