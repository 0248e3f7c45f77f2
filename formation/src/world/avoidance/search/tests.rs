use cohort_steering::grid::{CellGrid, NeighbourSearch};
use cohort_steering::{SimRng, Vec2};

use super::{GroupRuns, NearKey, insert_nearest};
use crate::world::avoidance::NO_GROUP;

/// Units in blocks of one group each (as formations stand), a few of no group; with `split`
/// each block is four groups of five (small groups search nearest first).
fn crowd(rng: &mut SimRng, split: bool) -> (Vec<Vec2>, Vec<u32>) {
    let mut positions = Vec::new();
    let mut groups = Vec::new();
    for g in 0..30u32 {
        let corner = Vec2::new(rng.range(-40.0, 30.0), rng.range(-40.0, 30.0));
        for u in 0..20 {
            positions.push(corner + Vec2::new(rng.range(0.0, 8.0), rng.range(0.0, 8.0)));
            let group = if split { g * 4 + u % 4 } else { g };
            groups.push(if rng.next_f32() < 0.05 {
                NO_GROUP
            } else {
                group
            });
        }
    }
    (positions, groups)
}

/// Stepping over runs and searching nearest first keeps the nearest units the plain query,
/// the group test and the choice of the nearest keep.
#[test]
fn runs_keep_the_nearest_the_plain_query_finds() {
    for split in [false, true] {
        keep_the_nearest(split);
    }
}

fn keep_the_nearest(split: bool) {
    let mut rng = SimRng::seed_from(11);
    let (positions, groups) = crowd(&mut rng, split);
    let mut grid = CellGrid::new(Vec2::splat(-50.0), Vec2::splat(50.0), 1.5).unwrap();
    grid.rebuild(&positions);
    let mut runs = GroupRuns::default();
    assert!(!runs.fits(grid.len()));
    runs.rebuild(
        grid.order(),
        super::UnitGroups {
            roots: &groups,
            clusters: &[],
        },
    );
    assert!(runs.fits(grid.len()));
    let (mut total, mut refused, mut capped) = (0, 0, 0);
    for round in 0..600 {
        // Around a unit, searching for others than its own group.
        let k = rng.index(groups.len());
        let centre = if round % 2 == 0 {
            positions[k]
        } else {
            positions[k] + Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0))
        };
        let radius = rng.range(0.0, 12.0);
        let own = groups[k];
        let lane = rng.index(if split { 120 } else { 30 }) as u32;
        let cap = 1 + rng.index(if round % 3 == 0 { 40 } else { 12 });
        let rejects = |g: u32| (own != NO_GROUP && g == own) || g == lane;
        let mut plain = Vec::new();
        let mut found = 0;
        grid.for_each_in_radius(centre, radius, |j, p| {
            if rejects(groups[j as usize]) {
                refused += 1;
            } else if j as usize != k {
                found += 1;
                insert_nearest(
                    &mut plain,
                    cap,
                    NearKey::new((p - centre).length_squared(), j),
                );
            }
        });
        let mut kept = Vec::new();
        runs.nearest_accepted(
            &grid,
            centre,
            radius,
            rejects,
            (k as u32, own),
            cap,
            &mut kept,
        );
        assert_eq!(kept, plain);
        assert!(kept.iter().all(|k| k.distance_sq() <= radius * radius));
        total += plain.len();
        capped += usize::from(found > cap);
    }
    assert!(
        total > 1000 && refused > 1000 && capped > 100,
        "{total} kept, {refused} refused, {capped} capped"
    );
    runs.invalidate();
    assert!(!runs.fits(grid.len()));
}

/// The nearest are kept sorted by distance, ties by index, whatever order they come in.
#[test]
fn insert_nearest_keeps_the_nearest_sorted() {
    let mut rng = SimRng::seed_from(4);
    for _ in 0..200 {
        let cap = 1 + rng.index(10);
        let items: Vec<(f32, u32)> = (0..30).map(|j| ((rng.index(8)) as f32, j)).collect();
        let mut kept = Vec::new();
        for &(d, j) in items.iter().rev() {
            insert_nearest(&mut kept, cap, NearKey::new(d, j));
        }
        let mut wanted = items.clone();
        wanted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        wanted.truncate(cap);
        let kept: Vec<(f32, u32)> = kept.iter().map(|k| (k.distance_sq(), k.index())).collect();
        assert_eq!(kept, wanted);
    }
}
