use cohort_steering::grid::{CellGrid, NeighbourSearch, within_radius};
use cohort_steering::{SimRng, Vec2};

use super::GroupRuns;
use crate::world::avoidance::NO_GROUP;

/// Units in blocks of one group each (as formations stand), a few of no group.
fn crowd(rng: &mut SimRng) -> (Vec<Vec2>, Vec<u32>) {
    let mut positions = Vec::new();
    let mut groups = Vec::new();
    for g in 0..30u32 {
        let corner = Vec2::new(rng.range(-40.0, 30.0), rng.range(-40.0, 30.0));
        for _ in 0..20 {
            positions.push(corner + Vec2::new(rng.range(0.0, 8.0), rng.range(0.0, 8.0)));
            groups.push(if rng.next_f32() < 0.05 { NO_GROUP } else { g });
        }
    }
    (positions, groups)
}

/// Stepping over runs finds what the plain query and the group test find, in the same order.
#[test]
fn runs_find_what_the_plain_query_finds() {
    let mut rng = SimRng::seed_from(11);
    let (positions, groups) = crowd(&mut rng);
    let mut grid = CellGrid::new(Vec2::splat(-50.0), Vec2::splat(50.0), 1.5).unwrap();
    grid.rebuild(&positions);
    let mut runs = GroupRuns::default();
    assert!(!runs.fits(grid.len()));
    runs.rebuild(grid.order(), &groups);
    assert!(runs.fits(grid.len()));
    let (mut total, mut refused) = (0, 0);
    for _ in 0..300 {
        // Around a unit, searching for others than its own group.
        let k = rng.index(groups.len());
        let centre = positions[k] + Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
        let radius = rng.range(0.0, 12.0);
        let own = groups[k];
        let lane = rng.index(30) as u32;
        let rejects = |g: u32| (own != NO_GROUP && g == own) || g == lane;
        let mut plain = Vec::new();
        grid.for_each_in_radius(centre, radius, |j, p| {
            if rejects(groups[j as usize]) {
                refused += 1;
            } else {
                plain.push((j, p));
            }
        });
        let mut stepped = Vec::new();
        runs.for_each_accepted(&grid, centre, radius, rejects, |j, p| {
            assert!(within_radius(p, centre, radius));
            stepped.push((j, p));
        });
        assert_eq!(stepped, plain);
        total += plain.len();
    }
    assert!(
        total > 1000 && refused > 1000,
        "{total} found, {refused} refused"
    );
    runs.invalidate();
    assert!(!runs.fits(grid.len()));
}
