//! A squad closed up into ranks for a gap stands its ranks along its path: coming to a gap in
//! a wall from the side, its rear ranks follow the front ones through the gap's mouth, as a
//! column of march does, instead of swinging round with the anchor like the end of a bar
//! and sweeping across the wall's face beside the gap.

mod gap_support;

use cohort::formation::{FormationId, Motion, World};
use cohort::steering::Vec2;
use gap_support::{arrived, deepest_overlap, squad, walled};

const DT: f32 = 0.1;

/// Distance from `p` to the polyline `path`, its first leg continued backwards and its last
/// forwards (ranks stand on those lines beyond the path's ends).
fn distance_to_path(p: Vec2, path: &[Vec2]) -> f32 {
    let legs = path.len().saturating_sub(1);
    path.windows(2)
        .enumerate()
        .map(|(k, leg)| {
            let (a, b) = (leg[0], leg[1]);
            let ab = b - a;
            let t = (p - a).dot(ab) / ab.length_squared().max(1e-9);
            let lo = if k == 0 { f32::NEG_INFINITY } else { 0.0 };
            let hi = if k + 1 == legs { f32::INFINITY } else { 1.0 };
            (a + ab * t.clamp(lo, hi) - p).length()
        })
        .fold(f32::INFINITY, f32::min)
}

/// The farthest any member's slot target stands from the formation's path, beyond the ranks'
/// half-width and the anchor's own distance from the path.
fn farthest_slot_off_path(world: &World, f: FormationId) -> f32 {
    let form = world.formation(f).expect("squad");
    let half = form
        .slots()
        .iter()
        .map(|s| s.offset.y.abs())
        .fold(0.0, f32::max);
    let anchor_off = distance_to_path(form.anchor.position, &form.path);
    world
        .units()
        .filter(|(_, u)| u.formation == Some(f))
        .filter_map(|(_, u)| u.slot_target)
        .map(|t| distance_to_path(t.position, &form.path) - half - anchor_off)
        .fold(0.0, f32::max)
}

#[test]
fn a_squad_coming_to_a_gap_from_the_side_files_its_ranks_through_along_its_path() {
    // The gap (4 m, three abreast) is at (60, 60); the squad of 50 stands 12 m west of the
    // wall and 16 m south of the gap, and is ordered 48 m beyond the wall.
    let mut world = walled(4.0);
    let f = squad(
        &mut world,
        50,
        Vec2::new(48.0, 44.0),
        Vec2::new(108.0, 44.0),
        1.3,
    );
    let (mut in_ranks, mut farthest, mut deepest) = (0, 0.0f32, 0.0f32);
    for tick in 0..3000 {
        world.step(DT);
        let form = world.formation(f).expect("squad");
        if form.in_column && form.motion == Motion::Moving && form.path.len() >= 2 {
            in_ranks += 1;
            farthest = farthest.max(farthest_slot_off_path(&world, f));
        }
        if tick % 10 == 0 {
            deepest = deepest.max(deepest_overlap(&world));
        }
        if arrived(&world, f) {
            break;
        }
    }
    assert!(arrived(&world, f), "the squad did not arrive");
    assert!(in_ranks > 100, "the squad closed up for {in_ranks} ticks");
    // Each rank stands across the path where it is: within the difference the chord a rank
    // faces along at a corner makes (about half a metre here; 7.6 m with the ranks laid out
    // round the anchor as a bar, its rear swinging across the wall's face).
    assert!(farthest < 1.0, "a slot stood {farthest:.2} m off the path");
    // Closed up, members keep close company (`world/separation.rs`, `CLOSED_UP_RANGE`): the
    // ranks press a little deeper at the gap's mouth (2.0 %).
    assert!(deepest <= 0.025, "deepest overlap {deepest:.3}");
}
