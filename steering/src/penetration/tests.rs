use super::*;
use crate::SimRng;
use proptest::prelude::*;

fn solver() -> PenetrationSolver {
    PenetrationSolver::new(Vec2::splat(-20.0), Vec2::splat(20.0), 1.0).unwrap()
}

/// A man-sized body at `position` moving at `velocity` (also used by the tests of
/// `static_geometry`).
pub(super) fn at(position: Vec2, velocity: Vec2) -> Body {
    Body::new(position, 0.5, 3.0, 6.0).unwrap().moving(velocity)
}

/// Whether two vectors agree within 1e-5.
pub(super) fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).length() < 1e-5
}

#[test]
fn split_directions_are_unit_and_antisymmetric() {
    let mut quadrants = [0; 4];
    for j in 1..40 {
        let d = split_direction(0, j);
        assert!((d.length() - 1.0).abs() < 1e-6);
        assert_eq!(d, -split_direction(j, 0));
        quadrants[usize::from(d.x < 0.0) * 2 + usize::from(d.y < 0.0)] += 1;
    }
    assert!(quadrants.iter().all(|&q| q >= 4), "{quadrants:?}");
}

#[test]
fn overlapping_pair_moves_half_each() {
    let mut pos = [Vec2::ZERO, Vec2::new(0.6, 0.0), Vec2::new(5.0, 5.0)];
    let stats = solver().resolve(&mut pos, &[0.5, 0.5, 0.5], 1);
    assert!(close(pos[0], Vec2::new(-0.2, 0.0)));
    assert!(close(pos[1], Vec2::new(0.8, 0.0)));
    assert_eq!(pos[2], Vec2::new(5.0, 5.0));
    assert_eq!(stats.pairs, 1);
    assert!((stats.last_max_overlap - 0.4).abs() < 1e-5);
    // Touching is not overlapping: nothing more to do.
    let stats = solver().resolve(&mut pos, &[0.5, 0.5, 0.5], 10);
    assert_eq!(stats, ResolveStats::default());
}

#[test]
fn coincident_bodies_separate() {
    let mut pos = [Vec2::ONE; 2];
    solver().resolve(&mut pos, &[0.5, 0.25], 1);
    assert!(((pos[1] - pos[0]).length() - 0.75).abs() < 1e-5);
    assert!(close(pos[1] - pos[0], split_direction(0, 1) * 0.75));
    assert!(close((pos[0] + pos[1]) * 0.5, Vec2::ONE));
    // Many coincident bodies: finite, deterministic, and separated.
    let run = || {
        let mut pos = [Vec2::new(3.0, -2.0); 7];
        let mut s = solver();
        s.resolve(&mut pos, &[0.5; 7], 200);
        (pos, s.deepest_overlap(&pos, &[0.5; 7]))
    };
    let (a, depth) = run();
    assert!(a.iter().all(|p| p.is_finite()));
    assert!(depth < 1e-3, "{depth}");
    assert_eq!(a, run().0);
}

#[test]
fn degenerate_inputs_are_ignored() {
    let mut pos = [Vec2::NAN, Vec2::ZERO, Vec2::new(0.1, 0.0)];
    solver().resolve(&mut pos, &[0.5, f32::NAN, -1.0], 5);
    assert_eq!(pos[1..], [Vec2::ZERO, Vec2::new(0.1, 0.0)]);
    let mut pos = [Vec2::ZERO, Vec2::ZERO];
    solver().resolve(&mut pos, &[0.5], 5); // length mismatch: only body 0
    assert_eq!(pos, [Vec2::ZERO, Vec2::ZERO]);
}

#[test]
fn resolve_bodies_writes_back_without_reallocating() {
    let mut rng = SimRng::seed_from(5);
    let mut p = || Vec2::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0));
    let mut bodies: Vec<Body> = (0..300).map(|_| at(p(), Vec2::ZERO)).collect();
    let mut s = solver();
    s.resolve_bodies(&mut bodies, 3);
    let caps = |s: &PenetrationSolver| (s.pairs.capacity(), s.positions.capacity());
    let warm = caps(&s);
    s.resolve_bodies(&mut bodies, 3);
    assert_eq!(caps(&s), warm);
    let before = bodies.iter().map(|b| b.position).collect::<Vec<_>>();
    let stats = s.resolve_bodies(&mut bodies, 1);
    assert!(stats.pairs > 0 && bodies.iter().zip(&before).any(|(b, p)| b.position != *p));
}

/// 200 bodies spawned at nearly one point spread out until none overlaps more than 1%.
#[test]
fn crowd_spawned_on_one_point_spreads_out() {
    let mut rng = SimRng::seed_from(11);
    let n = 200;
    let radii: Vec<f32> = (0..n).map(|_| rng.range(0.4, 0.6)).collect();
    let mut jitter = || Vec2::new(rng.range(-1e-3, 1e-3), rng.range(-1e-3, 1e-3));
    let mut pos: Vec<Vec2> = (0..n).map(|_| jitter()).collect();
    // Every tenth body exactly on the same point.
    pos.iter_mut().step_by(10).for_each(|p| *p = Vec2::ZERO);
    let mut s = solver();
    for _ in 0..40 {
        s.resolve(&mut pos, &radii, 10);
    }
    let depth = s.deepest_overlap(&pos, &radii);
    assert!(pos.iter().all(|p| p.is_finite()));
    assert!(depth < 0.01 * 0.4, "deepest overlap {depth}");
}

/// The pairs a caller collects with a grid of the same cell size, at positions every
/// circle then moves less than half the margin from.
fn seeded(s: &mut PenetrationSolver, anchors: &[Vec2], radii: &[f32], margin: f32) {
    let mut grid = CellGrid::new(Vec2::splat(-20.0), Vec2::splat(20.0), 1.0).unwrap();
    grid.rebuild(anchors);
    let max_r = radii.iter().fold(0.0f32, |m, &r| m.max(r));
    let pairs = s.seed_candidates(anchors, margin);
    for (i, &p) in anchors.iter().enumerate() {
        let i = i as u32;
        grid.for_each_in_radius(p, radii[i as usize] + max_r + margin, |j, q| {
            let sum = radii[i as usize] + radii[j as usize] + margin;
            if j > i && (q - p).length_squared() < sum * sum {
                pairs.push((i, j));
            }
        });
    }
}

/// Handed-in candidates give the same separation as the solver's own collection, and
/// a circle moved farther than half their margin makes the solver collect its own.
#[test]
fn seeded_candidates_separate_like_collected_ones() {
    let mut rng = SimRng::seed_from(5);
    let n = 150;
    let radii: Vec<f32> = (0..n).map(|_| rng.range(0.4, 0.6)).collect();
    let anchors: Vec<Vec2> = (0..n)
        .map(|_| Vec2::new(rng.range(-6.0, 6.0), rng.range(-6.0, 6.0)))
        .collect();
    let margin = 0.5;
    let moved: Vec<Vec2> = anchors
        .iter()
        .map(|&p| p + Vec2::new(rng.range(-0.17, 0.17), rng.range(-0.17, 0.17)))
        .collect();
    let (mut own, mut handed) = (solver(), solver());
    let mut a = moved.clone();
    own.resolve(&mut a, &radii, 6);
    let mut b = moved.clone();
    seeded(&mut handed, &anchors, &radii, margin);
    handed.resolve(&mut b, &radii, 6);
    let (da, db) = (
        own.deepest_overlap(&a, &radii),
        handed.deepest_overlap(&b, &radii),
    );
    assert!(db <= da.max(1e-3) * 1.5, "seeded {db} vs own {da}");
    // Seeded from positions 2 m away: every circle drifted, the seed is ignored.
    let far: Vec<Vec2> = moved.iter().map(|&p| p + Vec2::new(2.0, 0.0)).collect();
    let mut c = moved.clone();
    handed.seed_candidates(&far, margin);
    handed.resolve(&mut c, &radii, 6);
    let mut d = moved.clone();
    solver().resolve(&mut d, &radii, 6);
    assert_eq!(c, d, "a stale seed must give the solver's own result");
    // A seed for another number of circles is ignored too.
    let mut e = moved.clone();
    handed.seed_candidates(&anchors[..10], margin);
    handed.resolve(&mut e, &radii, 6);
    assert_eq!(e, d);
}

/// A row pressed against a held circle gives way down the line: the held circle stays
/// put and each one behind it ends just touching its neighbour; against the candidate
/// order a pass moves the row back by one circle.
#[test]
fn a_row_gives_way_to_a_held_circle() {
    let radii = [0.5; 4];
    // Along +x, so the grid's pair order is the row's order.
    let start = [
        Vec2::ZERO,
        Vec2::new(0.9, 0.0),
        Vec2::new(1.8, 0.0),
        Vec2::new(2.7, 0.0),
    ];
    let mut s = solver();
    // The candidates `resolve` collects at the start positions (neighbours in the row).
    let mut pos = start;
    s.resolve(&mut pos, &radii, 1);
    assert_eq!(s.candidates(), &[(0, 1), (1, 2), (2, 3)]);
    pos = start;
    let mut held = [true, false, false, false];
    assert!(s.separate_from_held(&mut pos, &radii, &mut held, 4));
    assert_eq!(pos[0], Vec2::ZERO);
    for k in 1..4 {
        let gap = (pos[k - 1] - pos[k]).length();
        assert!((gap - 1.0).abs() < 1e-5, "gap {k}: {gap}");
    }
    assert_eq!(held, [true; 4]);
    // Held at the other end of the row, against the candidate order: one pass moves only
    // the circle next to it, enough passes the whole row.
    let mut one = start;
    let mut held = [false, false, false, true];
    s.separate_from_held(&mut one, &radii, &mut held, 1);
    assert!(close(one[2], Vec2::new(1.7, 0.0)), "{:?}", one[2]);
    assert_eq!(
        &one[..2],
        &start[..2],
        "only the next one gives way in one pass"
    );
    let mut all = start;
    s.separate_from_held(&mut all, &radii, &mut [false, false, false, true], 4);
    for k in 1..4 {
        assert!(((all[k - 1] - all[k]).length() - 1.0).abs() < 1e-5);
    }
    assert_eq!(all[3], start[3]);
    // Nobody held, or everybody: nothing moves.
    let mut none = start;
    assert!(!s.separate_from_held(&mut none, &radii, &mut [false; 4], 4));
    assert!(!s.separate_from_held(&mut none, &radii, &mut [true; 4], 4));
    assert_eq!(none, start);
}

/// Pairs with a held circle that overlap by more than the tolerance are separated: a free
/// circle by the whole overlap, two held ones by half each; pairs of free circles by half
/// each when they overlap by more than the free tolerance; shallow overlaps and apart pairs
/// are left; nobody becomes held. The deepest overlap moved is returned.
#[test]
fn pairs_near_held_circles_are_separated_again() {
    let radii = [0.5; 6];
    // Three pairs along +x, far apart: held-free, held-held, free-free.
    let start = [
        Vec2::ZERO,
        Vec2::new(0.8, 0.0),
        Vec2::new(10.0, 0.0),
        Vec2::new(10.8, 0.0),
        Vec2::new(20.0, 0.0),
        Vec2::new(20.8, 0.0),
    ];
    let mut s = solver();
    let mut pos = start;
    s.resolve(&mut pos, &radii, 1);
    assert_eq!(s.candidates(), &[(0, 1), (2, 3), (4, 5)]);
    let held = [true, false, true, true, false, false];
    let mut pos = start;
    // The deepest pair it moved overlapped by a fifth of the radii.
    let deepest = s.separate_near_held(&mut pos, &radii, &held, (0.01, 0.5));
    assert!((deepest - 0.2).abs() < 1e-5, "{deepest}");
    assert_eq!(pos[0], start[0]);
    assert!(close(pos[1], Vec2::new(1.0, 0.0)), "{:?}", pos[1]);
    assert!(close(pos[2], Vec2::new(9.9, 0.0)), "{:?}", pos[2]);
    assert!(close(pos[3], Vec2::new(10.9, 0.0)), "{:?}", pos[3]);
    // The free pair overlaps by a fifth of its radii: within half, it is left.
    assert_eq!(&pos[4..], &start[4..]);
    // With a free tolerance below that, it moves apart by half the overlap each.
    let mut pos = start;
    assert!(s.separate_near_held(&mut pos, &radii, &held, (0.01, 0.03)) > 0.0);
    assert!(close(pos[4], Vec2::new(19.9, 0.0)), "{:?}", pos[4]);
    assert!(close(pos[5], Vec2::new(20.9, 0.0)), "{:?}", pos[5]);
    // Nobody held: only the free pairs move, and their depth is what is returned.
    let mut pos = start;
    let deepest = s.separate_near_held(&mut pos, &radii, &[false; 6], (0.01, 0.03));
    assert!((deepest - 0.2).abs() < 1e-5, "{deepest}");
    assert!(close(pos[0], Vec2::new(-0.1, 0.0)), "{:?}", pos[0]);
    assert!(close(pos[5], Vec2::new(20.9, 0.0)), "{:?}", pos[5]);
    // Overlaps within the tolerance (a tenth of the radii sum here) are left.
    let mut shallow = start;
    shallow[1] = Vec2::new(0.95, 0.0);
    assert_eq!(
        s.separate_near_held(
            &mut shallow,
            &radii,
            &[true, false, false, false, false, false],
            (0.1, 0.5)
        ),
        0.0
    );
    assert_eq!(shallow[1], Vec2::new(0.95, 0.0));
}

proptest! {
    #[test]
    fn skipping_unmoved_pairs_changes_nothing(
        bodies in prop::collection::vec((-5.0f32..5.0, -5.0f32..5.0, 0.2f32..1.0), 1..60),
        iterations in 1u32..12,
        rounds in 1usize..4,
    ) {
        let mut fast: Vec<Vec2> = bodies.iter().map(|b| Vec2::new(b.0, b.1)).collect();
        let mut full = fast.clone();
        let radii: Vec<f32> = bodies.iter().map(|b| b.2).collect();
        let (mut a, mut b) = (solver(), solver());
        let bits = |v: &[Vec2]| v.iter().map(|p| (p.x.to_bits(), p.y.to_bits())).collect::<Vec<_>>();
        // Several calls on the same solvers, so bits of earlier calls are about.
        for round in 0..rounds {
            let sa = a.resolve(&mut fast, &radii, iterations);
            let sb = b.resolve_checking::<CellGrid>(&mut full, &radii, iterations, true, None);
            prop_assert_eq!(
                (sa.iterations, sa.pairs, sa.last_max_overlap.to_bits()),
                (sb.iterations, sb.pairs, sb.last_max_overlap.to_bits()),
                "round {}", round
            );
            prop_assert_eq!(bits(&fast), bits(&full));
            for p in fast.iter_mut().chain(full.iter_mut()) {
                *p = Vec2::new(p.y * 0.9, -p.x * 0.9);
            }
        }
    }

    #[test]
    fn random_sets_end_without_overlap(
        bodies in prop::collection::vec((-6.0f32..6.0, -6.0f32..6.0, 0.2f32..1.0), 1..40),
    ) {
        let mut pos: Vec<Vec2> = bodies.iter().map(|b| Vec2::new(b.0, b.1)).collect();
        let radii: Vec<f32> = bodies.iter().map(|b| b.2).collect();
        let mut s = solver();
        s.resolve(&mut pos, &radii, 500);
        for i in 0..pos.len() {
            for j in i + 1..pos.len() {
                let gap = (pos[j] - pos[i]).length() - radii[i] - radii[j];
                prop_assert!(gap > -1e-3, "pair {i} {j} overlaps by {}", -gap);
            }
        }
    }
}

/// Near the edge of the coordinate range positions are 1/16 m apart: half of a shallow overlap
/// rounds away, so the pair is moved by a position's spacing instead and ends apart.
#[test]
fn shallow_overlaps_far_from_the_origin_are_resolved() {
    let far = Vec2::new(999_990.0, -999_990.0);
    let mut s = PenetrationSolver::new(far - 10.0, far + 10.0, 2.0).unwrap();
    for depth in [0.0625f32, 0.03, 0.01, 0.002] {
        let mut pos = [far, far + Vec2::new(1.0 - depth, 0.0)];
        s.resolve(&mut pos, &[0.5, 0.5], 4);
        assert_eq!(s.deepest_overlap(&pos, &[0.5, 0.5]), 0.0, "{depth}");
        // By no more than two spacings each.
        assert!((pos[1] - pos[0]).length() <= 1.0 + 0.25, "{depth}: {pos:?}");
    }
    // Shallower than the slack (a thousandth of the radii sum): left as it is.
    let mut pos = [far, far + Vec2::new(1.0 - 0.0625 / 128.0, 0.0)];
    let before = pos;
    s.resolve(&mut pos, &[0.5, 0.5], 4);
    assert_eq!(pos, before);
}

/// A row of `n` circles of radius 0.5 along x, `spacing` apart.
fn row(n: usize, spacing: f32) -> Vec<Vec2> {
    (0..n)
        .map(|k| Vec2::new(k as f32 * spacing - 8.0, 0.0))
        .collect()
}

#[test]
fn deep_overlaps_get_more_iterations_shallow_ones_do_not() {
    let radii = [0.5; 16];
    let deeper = |extra| {
        let mut s = solver();
        s.set_deep_iterations(extra);
        s
    };
    // Pressed 20 % into each other: two iterations leave pairs deeper than `DEEP_FRACTION`,
    // so the solver goes on, up to twice as many.
    let mut deep = row(16, 0.8);
    let stats = deeper(2).resolve(&mut deep, &radii, 2);
    assert!(stats.iterations > 2 && stats.iterations <= 4, "{stats:?}");
    // Without deep iterations it stops at its count.
    let mut plain = row(16, 0.8);
    let stats = solver().resolve(&mut plain, &radii, 2);
    assert_eq!(stats.iterations, 2, "{stats:?}");
    // Pressed half a per cent into each other (well under `DEEP_FRACTION`, however the
    // separations pass along the row): it stops at its count.
    let mut shallow = row(16, 0.995);
    let stats = deeper(4).resolve(&mut shallow, &radii, 1);
    assert_eq!(stats.iterations, 1, "{stats:?}");
}
