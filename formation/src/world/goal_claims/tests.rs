use super::ground::{MOST_RINGS, TOLERANCE, ring};
use super::*;
use proptest::prelude::*;
use slotmap::SlotMap;

fn ids(n: usize) -> Vec<FormationId> {
    let mut map: SlotMap<FormationId, ()> = SlotMap::with_key();
    (0..n).map(|_| map.insert(())).collect()
}

fn ground(x: f32, y: f32, angle: f32, hx: f32, hy: f32) -> Footprint {
    Footprint::new(
        Vec2::new(x, y),
        Vec2::new(
            cohort_steering::ops::cos(angle),
            cohort_steering::ops::sin(angle),
        ),
        Vec2::new(hx, hy),
    )
    .expect("finite")
}

fn corners(g: &Footprint) -> [Vec2; 4] {
    let (f, s) = (g.facing * g.half.x, g.facing.perp() * g.half.y);
    let c = g.centre;
    [c + f + s, c + f - s, c - f - s, c - f + s]
}

fn segment_distance(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f32 {
    let point = |p: Vec2, a: Vec2, b: Vec2| {
        let ab = b - a;
        let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
        (a + ab * t - p).length()
    };
    let cross = |o: Vec2, p: Vec2, q: Vec2| (p - o).perp_dot(q - o);
    let proper = cross(a, b, c) * cross(a, b, d) < 0.0 && cross(c, d, a) * cross(c, d, b) < 0.0;
    if proper {
        return 0.0;
    }
    point(a, c, d)
        .min(point(b, c, d))
        .min(point(c, a, b))
        .min(point(d, a, b))
}

fn inside(p: Vec2, g: &Footprint) -> bool {
    let d = p - g.centre;
    d.dot(g.facing).abs() <= g.half.x && d.dot(g.facing.perp()).abs() <= g.half.y
}

/// The distance between two rectangles (0 when they touch or overlap).
fn distance(a: &Footprint, b: &Footprint) -> f32 {
    if inside(a.centre, b) || inside(b.centre, a) {
        return 0.0;
    }
    let (ca, cb) = (corners(a), corners(b));
    let mut d = f32::INFINITY;
    for i in 0..4 {
        for j in 0..4 {
            d = d.min(segment_distance(
                ca[i],
                ca[(i + 1) % 4],
                cb[j],
                cb[(j + 1) % 4],
            ));
        }
    }
    d
}

proptest! {
    /// Rectangles closer than the gap (by more than the tolerance) overlap; rectangles
    /// farther apart than the gap's diagonal do not (the test grows each side by the gap,
    /// so at a corner it is stricter than the distance).
    #[test]
    fn overlap_follows_the_distance_between_rectangles(
        x in -20.0f32..20.0, y in -20.0f32..20.0, a in 0.0f32..6.3, b in 0.0f32..6.3,
        hx in 0.2f32..8.0, hy in 0.2f32..8.0, kx in 0.2f32..8.0, ky in 0.2f32..8.0,
        gap in 0.0f32..2.0,
    ) {
        let one = ground(0.0, 0.0, a, hx, hy);
        let two = ground(x, y, b, kx, ky);
        let d = distance(&one, &two);
        prop_assert_eq!(one.overlaps(&two, gap), two.overlaps(&one, gap));
        if d < gap - TOLERANCE - 1e-3 {
            prop_assert!(one.overlaps(&two, gap), "distance {d} gap {gap}");
        }
        if d > gap * std::f32::consts::SQRT_2 + 1e-3 {
            prop_assert!(!one.overlaps(&two, gap), "distance {d} gap {gap}");
        }
    }

    /// A place found is free of every other claim and usable; none is found only when the
    /// wanted ground is free or every tried place is taken or unusable. Claims filed by cell
    /// are found as a scan of every claim finds them.
    #[test]
    fn a_free_place_is_free(
        spots in prop::collection::vec((-30.0f32..30.0, -30.0f32..30.0, 0.0f32..6.3, 0.3f32..6.0, 0.3f32..6.0), 1..40),
        want in (-30.0f32..30.0, -30.0f32..30.0, 0.0f32..6.3, 0.3f32..6.0, 0.3f32..6.0),
        wall in -20.0f32..20.0,
    ) {
        let owners = ids(spots.len() + 1);
        let mut claims = GoalClaims::default();
        claims.clear(0.5);
        let grounds: Vec<Footprint> = spots.iter().map(|&(x, y, a, hx, hy)| ground(x, y, a, hx, hy)).collect();
        for (o, g) in owners.iter().zip(&grounds) {
            claims.add(*o, *g, None);
        }
        prop_assert_eq!(claims.len(), grounds.len());
        let me = owners[spots.len()];
        let wanted = ground(want.0, want.1, want.2, want.3, want.4);
        let scan = |g: &Footprint| grounds.iter().any(|c| c.overlaps(g, 0.5));
        prop_assert_eq!(claims.overlaps((me, None), &wanted, 0.5), scan(&wanted));
        let sharing = grounds.iter().any(|c| c.overlaps(&wanted, 0.0));
        prop_assert_eq!(claims.overlaps((me, None), &wanted, 0.0), sharing);
        // Only places west of the "wall" are usable.
        let usable = |p: Vec2| p.x < wall;
        let from = Vec2::new(0.0, -50.0);
        match claims.free_place((me, None), (wanted, wanted.centre, from), 1, usable) {
            Some((p, k)) => {
                prop_assert!(sharing);
                prop_assert!(usable(p));
                prop_assert!(!scan(&wanted.at(p)));
                prop_assert!((1..=MOST_RINGS).contains(&k));
            }
            None => {
                if sharing {
                    // Every place of the first rings is taken or unusable.
                    let across = 2.0 * wanted.half.y + 0.5;
                    let along = 2.0 * wanted.half.x + 0.5;
                    let right = -wanted.facing.perp();
                    let mut places = [(0.0f32, 0i32, 0i32); 8 * MOST_RINGS as usize];
                    for k in 1..=3 {
                        let n = ring(k, |_| 0.0, &mut places);
                        for &(_, i, j) in &places[..n] {
                            let at = wanted.centre + right * (i as f32 * across) + wanted.facing * (j as f32 * along);
                            prop_assert!(!usable(at) || scan(&wanted.at(at)));
                        }
                    }
                }
            }
        }
    }
}

/// The first place free of claims, ring by ring, for formation `owner` coming from `from`.
fn place(claims: &GoalClaims, owner: FormationId, wanted: Footprint, from: Vec2) -> Option<Vec2> {
    claims
        .free_place((owner, None), (wanted, wanted.centre, from), 1, |_| true)
        .map(|(p, _)| p)
}

#[test]
fn a_formation_ordered_onto_another_stands_beside_it_on_its_own_side() {
    let owners = ids(4);
    let mut claims = GoalClaims::default();
    claims.clear(0.5);
    // A 4 m wide, 2 m deep formation facing east at the origin.
    let first = ground(0.0, 0.0, 0.0, 1.0, 2.0);
    claims.add(owners[0], first, None);
    // The same ordered there, coming from the south-west: the first ring's place nearest
    // its way, south-west of the first (2.5 m deep and 4.5 m wide steps).
    let p = place(&claims, owners[1], first, Vec2::new(-30.0, -40.0)).expect("a place");
    assert!((p - Vec2::new(-2.5, -4.5)).length() < 1e-4, "{p}");
    claims.add(owners[1], first.at(p), None);
    // Another from the north: north of the first.
    let p = place(&claims, owners[2], first, Vec2::new(0.0, 50.0)).expect("a place");
    assert!((p - Vec2::new(0.0, 4.5)).length() < 1e-4, "{p}");
    // One for which the first ring is unusable: the second ring.
    let (p, k) = claims
        .free_place(
            (owners[3], None),
            (first, Vec2::ZERO, Vec2::new(0.0, 50.0)),
            1,
            |p| p.length() > 6.0,
        )
        .expect("a place");
    assert!((p - Vec2::new(0.0, 9.0)).length() < 1e-4, "{p}");
    assert_eq!(k, 2);
    // Starting from the third ring skips the second.
    let (_, k) = claims
        .free_place(
            (owners[3], None),
            (first, Vec2::ZERO, Vec2::ZERO),
            3,
            |_| true,
        )
        .expect("a place");
    assert_eq!(k, 3);
    // Its own claim is no obstacle to a formation; a withdrawn claim is none to anyone.
    assert!(place(&claims, owners[0], first, Vec2::ZERO).is_none());
    claims.remove(owners[0]);
    claims.remove(owners[1]);
    assert!(place(&claims, owners[3], first, Vec2::ZERO).is_none());
    assert_eq!(claims.len(), 0);
}

#[test]
fn a_ring_holds_its_places_once_each_nearer_side_first() {
    let mut places = [(0.0f32, 0i32, 0i32); 8 * MOST_RINGS as usize];
    let n = ring(
        1,
        |(i, j)| ((i - 10) * (i - 10) + j * j) as f32,
        &mut places,
    );
    assert_eq!(n, 8);
    let first: Vec<(i32, i32)> = places[..3].iter().map(|p| (p.1, p.2)).collect();
    assert_eq!(first, vec![(1, 0), (1, -1), (1, 1)]);
    for k in 1..=MOST_RINGS {
        let n = ring(k, |_| 0.0, &mut places);
        assert_eq!(n, 8 * k as usize);
        let mut cells: Vec<(i32, i32)> = places[..n].iter().map(|p| (p.1, p.2)).collect();
        assert!(cells.iter().all(|&(i, j)| i.abs().max(j.abs()) == k));
        cells.sort_unstable();
        cells.dedup();
        assert_eq!(cells.len(), n);
    }
}

#[test]
fn a_footprint_needs_finite_numbers_and_a_facing() {
    assert!(Footprint::new(Vec2::ZERO, Vec2::ZERO, Vec2::ONE).is_none());
    assert!(Footprint::new(Vec2::NAN, Vec2::X, Vec2::ONE).is_none());
    assert!(Footprint::new(Vec2::ZERO, Vec2::X, Vec2::splat(f32::INFINITY)).is_none());
    assert!(Footprint::new(Vec2::ZERO, Vec2::X, Vec2::new(-1.0, 1.0)).is_none());
    // A huge claim is kept on the list every test reads.
    let owners = ids(2);
    let mut claims = GoalClaims::default();
    claims.clear(0.0);
    let huge = ground(0.0, 0.0, 0.3, 500.0, 400.0);
    claims.add(owners[0], huge, None);
    assert!(claims.overlaps((owners[1], None), &ground(300.0, 100.0, 0.0, 1.0, 1.0), 0.0));
    assert!(!claims.overlaps((owners[1], None), &ground(900.0, 900.0, 0.0, 1.0, 1.0), 0.0));
}

#[test]
fn formations_moved_alike_keep_their_places_relative_to_each_other() {
    let owners = ids(3);
    let mut claims = GoalClaims::default();
    claims.clear(1.5);
    // Two groups standing interlocked (their rectangles overlap), both ordered 300 m east.
    let shift = Some(Vec2::new(300.0, 0.0));
    let a = ground(300.0, 0.0, 0.0, 1.0, 2.0);
    let b = ground(300.5, 1.0, 0.0, 1.0, 2.0);
    claims.add(owners[0], a, shift);
    let free = |claims: &GoalClaims, owner, shift, g: Footprint| {
        claims
            .free_place((owner, shift), (g, g.centre, Vec2::ZERO), 1, |_| true)
            .map(|(p, _)| p)
    };
    assert!(free(&claims, owners[1], shift, b).is_none());
    // Ordered by another move, the second finds ground of its own.
    let other = Some(Vec2::new(280.0, 0.0));
    let p = free(&claims, owners[1], other, b).expect("a place");
    assert!(!a.overlaps(&b.at(p), 1.5 - TOLERANCE));
    // Far from the origin, coordinates are coarser: the same move still counts as alike.
    let far = Some(Vec2::new(300_000.0, 0.0));
    let mut wide = GoalClaims::default();
    wide.clear(1.5);
    let off = Vec2::new(299_700.0, 0.0);
    wide.add(
        owners[0],
        a.at(a.centre + off),
        far.map(|s| s + Vec2::new(0.0, 0.004)),
    );
    assert!(free(&wide, owners[1], far, b.at(b.centre + off)).is_none());
    // A standing formation's ground is never passed over.
    claims.add(owners[2], ground(0.0, 50.0, 0.0, 1.0, 1.0), None);
    let onto = ground(0.0, 50.0, 0.0, 1.0, 1.0);
    assert!(free(&claims, owners[1], shift, onto).is_some());
}

/// A claim filed again round the same centre, as large and facing the same way, withdraws
/// nothing (the places searched so far stay taken); moved, turned or removed, it does.
#[test]
fn a_claim_filed_again_in_place_withdraws_nothing() {
    let id = ids(1)[0];
    let mut claims = GoalClaims::default();
    claims.clear(1.5);
    claims.add(id, ground(10.0, 10.0, 0.3, 2.0, 3.0), None);
    assert_eq!(claims.withdrawn(), 0);
    claims.add(id, ground(10.0, 10.0, 0.3, 2.0, 3.0), None);
    assert_eq!(claims.withdrawn(), 0, "filed again in place");
    claims.add(id, ground(10.5, 10.0, 0.3, 2.0, 3.0), None);
    assert_eq!(claims.withdrawn(), 1, "moved");
    claims.add(id, ground(10.5, 10.0, 0.8, 2.0, 3.0), None);
    assert_eq!(claims.withdrawn(), 2, "turned");
    claims.remove(id);
    assert_eq!(claims.withdrawn(), 3, "removed");
    assert_eq!(claims.len(), 0);
}
