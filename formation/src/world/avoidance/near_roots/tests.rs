use cohort_steering::grid::{CellGrid, NeighbourSearch};
use cohort_steering::{SimRng, Vec2};

use super::{NearRoots, NearRootsInput, SearchScope};
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

/// The lists for units at `positions` of the top-level formations `roots` (per unit) in the
/// avoidance groups `clusters` (per formation), over `grid` (rebuilt here), for `reach`.
fn lists(
    grid: &mut CellGrid,
    positions: &[Vec2],
    roots: &[u32],
    clusters: &[u32],
    reach: f32,
) -> NearRoots {
    grid.rebuild(positions);
    let mut runs = GroupRuns::default();
    runs.rebuild(grid.order(), UnitGroups { roots, clusters });
    let mut near = NearRoots::default();
    near.rebuild(&NearRootsInput {
        grid,
        runs: &runs,
        positions,
        roots,
        clusters,
        reach,
    });
    near
}

/// Every unit of another avoidance group within a unit's reach (by the search's own distance
/// test) is found where the unit's scope says to look: nobody is within reach of a unit
/// whose scope is `Nobody`, and all of them are among the candidates of a unit whose scope is
/// `Candidates`; over many fields, reaches and query points, half of them thousands of
/// metres from the origin (where a float's step is a good part of a millimetre). And every
/// scope is met, or the test would spare no search.
#[test]
fn every_unit_within_reach_is_where_the_scope_looks() {
    let (mut nobody, mut candidates, mut everywhere) = (0usize, 0usize, 0usize);
    for seed in 0..80 {
        let mut rng = SimRng::seed_from(seed);
        let loose = seed % 3 == 0;
        let count = 6 + rng.index(30) as u32;
        let mut f = field(&mut rng, count, loose);
        let offset = if seed % 2 == 1 {
            Vec2::new(rng.range(4000.0, 16000.0), rng.range(1000.0, 9000.0))
        } else {
            Vec2::ZERO
        };
        for p in &mut f.positions {
            *p += offset;
        }
        let groups = UnitGroups {
            roots: &f.roots,
            clusters: &f.clusters,
        };
        let (min, max) = (offset - Vec2::splat(20.0), offset + Vec2::splat(140.0));
        let cell = rng.range(0.8, 2.0);
        let mut grid = CellGrid::new(min, max, cell).unwrap();
        let longest = rng.range(1.0, 12.0);
        let near = lists(&mut grid, &f.positions, &f.roots, &f.clusters, longest);
        for (i, &at) in f.positions.iter().enumerate() {
            let reach = if i % 2 == 0 {
                longest
            } else {
                rng.range(0.0, longest)
            };
            let own = groups.of(i);
            let mut others = Vec::new();
            grid.for_each_in_radius(at, reach, |j, _| {
                let g = groups.of(j as usize);
                if j as usize != i && (own == NO_GROUP || g != own) {
                    others.push(j);
                }
            });
            match near.scope(f.roots[i], at, reach) {
                SearchScope::Nobody => {
                    nobody += 1;
                    assert!(
                        others.is_empty(),
                        "seed {seed}: unit {i} has {others:?} near"
                    );
                }
                SearchScope::Candidates => {
                    candidates += 1;
                    let mut found = Vec::new();
                    near.for_each_candidate_run(f.roots[i], at, reach, |group, run| {
                        for &(j, p) in run {
                            assert_eq!(groups.of(j as usize), group);
                            assert_eq!(p, f.positions[j as usize]);
                            found.push(j);
                        }
                    });
                    for j in &others {
                        assert!(
                            found.contains(j),
                            "seed {seed}: unit {i} within {reach} of {j}, not a candidate"
                        );
                    }
                }
                SearchScope::Everywhere => everywhere += 1,
            }
        }
    }
    assert!(nobody > 1000, "{nobody} units found nobody near");
    assert!(
        candidates > 1000,
        "{candidates} units looked among candidates"
    );
    assert!(everywhere > 100, "{everywhere} units searched the grid");
}

/// Without lists (the grid was not built this tick) every unit searches the grid; so do the
/// units of a formation with a unit of no formation near it, or too small to list.
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
        let mut grid = CellGrid::new(Vec2::splat(-20.0), Vec2::splat(140.0), 1.5).unwrap();
        lists(&mut grid, positions, roots, &clusters, 5.0)
    };
    let mut near = build(&positions, &roots);
    assert_eq!(near.scope(0, Vec2::new(5.0, 0.0), 5.0), SearchScope::Nobody);
    assert_eq!(
        near.scope(1, Vec2::new(105.0, 0.0), 5.0),
        SearchScope::Nobody
    );
    // A unit of no formation is never clear.
    assert_eq!(
        near.scope(NO_GROUP, Vec2::new(5.0, 0.0), 5.0),
        SearchScope::Everywhere
    );
    near.invalidate();
    assert_eq!(
        near.scope(0, Vec2::new(5.0, 0.0), 5.0),
        SearchScope::Everywhere
    );
    // A loose unit 3 m past the first formation's end: its units search.
    positions.push(Vec2::new(12.0, 0.0));
    roots.push(NO_GROUP);
    let near = build(&positions, &roots);
    assert_eq!(
        near.scope(0, Vec2::new(5.0, 0.0), 5.0),
        SearchScope::Everywhere
    );
    assert_eq!(
        near.scope(1, Vec2::new(105.0, 0.0), 5.0),
        SearchScope::Nobody
    );
    // Formations 3 m apart: a unit at the near end looks among the candidates, which are
    // the other's units within the longest reach of its formation's box.
    let mut close = Vec::new();
    let mut close_roots = Vec::new();
    for k in 0..10 {
        close.push(Vec2::new(k as f32, 0.0));
        close_roots.push(0);
        close.push(Vec2::new(12.0 + k as f32, 0.0));
        close_roots.push(1);
    }
    let near = build(&close, &close_roots);
    assert_eq!(
        near.scope(0, Vec2::new(9.0, 0.0), 5.0),
        SearchScope::Candidates
    );
    assert_eq!(near.scope(0, Vec2::new(0.0, 0.0), 5.0), SearchScope::Nobody);
    let mut found = Vec::new();
    near.for_each_candidate_run(0, Vec2::new(9.0, 0.0), 5.0, |group, run| {
        assert_eq!(group, 1);
        found.extend(run.iter().map(|&(j, _)| close[j as usize].x));
    });
    found.sort_by(f32::total_cmp);
    assert_eq!(found, [12.0, 13.0, 14.0]);
    // A formation of fewer units than are listed: its units search.
    let near = build(&positions[..4], &roots[..4]);
    assert_eq!(
        near.scope(0, Vec2::new(1.0, 0.0), 5.0),
        SearchScope::Everywhere
    );
}

/// Thousands of metres from the origin a float's step is about half a millimetre: a formation
/// whose box was scanned by a square round its centre (the centre and half-side rounded
/// again) passed over a unit of another group standing just within a unit's reach beyond the
/// box's west edge, where a grid cell begins, and its unit found nobody near. The box's own
/// corners are looked up now.
#[test]
fn far_from_the_origin_a_unit_just_within_reach_is_a_candidate() {
    let (lo, hi) = (
        Vec2::new(7625.3145, 1661.1097),
        Vec2::new(7681.1753, 1664.7825),
    );
    let reach = 11.336434;
    // Eight units of formation 0 spanning the box, its first at the box's west edge.
    let mut positions: Vec<Vec2> = (0..8).map(|k| lo + (hi - lo) * (k as f32 / 7.0)).collect();
    let mut roots = vec![0; 8];
    // One of formation 1 due west of the first.
    let other = Vec2::new(7613.978, lo.y);
    positions.push(other);
    roots.push(1);
    assert!(
        cohort_steering::grid::within_radius(other, lo, reach),
        "the other unit stands within reach of the first"
    );
    // Cells of a metre, a cell (and block) edge where a square round the grown box's centre
    // would begin: rounded twice, a hair east of the grown box's own west edge.
    let pad = Vec2::splat(reach * (1.0 + 1e-5) + 1e-4);
    let (grown_lo, grown_hi) = (lo - pad, hi + pad);
    let centre = (grown_lo + grown_hi) * 0.5;
    let edge = centre.x - ((grown_hi - grown_lo) * 0.5).max_element();
    assert!(
        edge > other.x,
        "the square would begin east of the other unit"
    );
    let min = Vec2::new(edge - 192.0, lo.y - 100.0);
    let mut grid = CellGrid::new(min, min + Vec2::splat(400.0), 1.0).unwrap();
    let near = lists(&mut grid, &positions, &roots, &[0, 1], reach);
    assert_eq!(near.scope(0, lo, reach), SearchScope::Candidates);
    let mut found = Vec::new();
    near.for_each_candidate_run(0, lo, reach, |_, run| found.extend(run.iter().map(|c| c.0)));
    assert_eq!(found, [8]);
}
