//! The indexed queries against the linear scans of `polygon`, on long rings.

use super::*;
use crate::polygon::{closest_boundary_point, contains, segment_ring, signed_distance};
use cohort_steering::ops;

/// A wavy lake outline of `n` points around `centre` (simple: the radius stays positive).
fn lake(n: usize, centre: Vec2, r: f32) -> Vec<Vec2> {
    (0..n)
        .map(|k| {
            let t = core::f32::consts::TAU * k as f32 / n as f32;
            let rr = r + 0.1 * r * ops::sin(7.0 * t) + 0.04 * r * ops::sin(23.0 * t);
            centre + ops::from_angle(t) * rr
        })
        .collect()
}

/// Query points on a lattice over and around the ring, including points on its corners.
fn probes(points: &[Vec2]) -> Vec<Vec2> {
    let (lo, hi) = polygon::aabb(points);
    let pad = (hi - lo) * 0.2;
    let mut out: Vec<Vec2> = (0..=40)
        .flat_map(|i| {
            (0..=40).map(move |j| {
                lo - pad + (hi - lo + pad * 2.0) * Vec2::new(i as f32, j as f32) / 40.0
            })
        })
        .collect();
    out.extend(points.iter().step_by(7).copied());
    out
}

#[test]
fn short_rings_are_not_indexed() {
    assert!(RingIndex::build(&lake(INDEX_FROM_EDGES, Vec2::ZERO, 10.0)).is_none());
    assert!(RingIndex::build(&lake(INDEX_FROM_EDGES + 1, Vec2::ZERO, 10.0)).is_some());
}

#[test]
fn point_queries_match_the_linear_scan() {
    let ring = lake(600, Vec2::new(50.0, -20.0), 40.0);
    let index = RingIndex::build(&ring).unwrap();
    let mut inside = 0;
    for p in probes(&ring) {
        assert_eq!(index.contains(&ring, p), contains(&ring, p), "{p}");
        inside += usize::from(contains(&ring, p));
        let exact = closest_boundary_point(&ring, p);
        assert_eq!(
            index.closest_boundary_point(&ring, p, f32::INFINITY),
            Some(exact),
            "{p}"
        );
        assert_eq!(
            index.signed_distance(&ring, p, f32::INFINITY),
            signed_distance(&ring, p),
            "{p}"
        );
        for cap in [0.0, 0.5, 3.0, 20.0] {
            let d = index.signed_distance(&ring, p, cap);
            let e = signed_distance(&ring, p);
            if e.abs() < cap {
                assert_eq!(d, e, "{p} {cap}");
            } else {
                let inside = d.is_sign_negative();
                assert!(
                    d.abs() >= cap && inside == e.is_sign_negative(),
                    "{p} {cap} {d} {e}"
                );
            }
        }
    }
    assert!(inside > 100, "{inside}");
    assert!(!index.contains(&ring, Vec2::NAN));
}

#[test]
fn segment_queries_match_the_linear_scan() {
    let ring = lake(400, Vec2::ZERO, 30.0);
    let index = RingIndex::build(&ring).unwrap();
    let ps = probes(&ring);
    let mut touching = 0;
    for (k, &a) in ps.iter().enumerate().step_by(3) {
        let b = ps[(k * 7 + 13) % ps.len()];
        let short = a + (b - a).clamp_length_max(6.0);
        for b in [b, short, a] {
            let exact = segment_ring(&ring, a, b);
            touching += usize::from(exact.0 == 0.0);
            for cap in [0.0, 1.0, 8.0, f32::INFINITY] {
                let got = index.segment_distance(&ring, a, b, cap);
                if exact.0 <= cap {
                    assert_eq!(got, exact, "{a} {b} {cap}");
                } else {
                    assert_eq!(got, (f32::INFINITY, a), "{a} {b} {cap}");
                }
            }
        }
    }
    assert!(touching > 100, "{touching}");
}

#[test]
fn crossings_are_found_as_the_pairwise_scan_finds_them() {
    let ring = lake(500, Vec2::ZERO, 30.0);
    assert!(!RingIndex::build(&ring).unwrap().any_crossing(&ring));
    // Swapping two far-apart corners makes the ring cross itself.
    let mut crossed = ring.clone();
    crossed.swap(10, 260);
    assert!(RingIndex::build(&crossed).unwrap().any_crossing(&crossed));
    // Two neighbouring corners swapped: a small bow tie.
    let mut bow = ring;
    bow.swap(100, 101);
    assert!(RingIndex::build(&bow).unwrap().any_crossing(&bow));
}

#[test]
fn segment_crossings_match_the_linear_scan() {
    let ring = lake(700, Vec2::new(-15.0, 40.0), 30.0);
    let index = RingIndex::build(&ring).unwrap();
    let ps = probes(&ring);
    let (mut scan, mut got) = (Vec::new(), Vec::new());
    let (mut crossed, mut through_corners) = (0, 0);
    let mut check = |a: Vec2, b: Vec2| {
        polygon::crossings(&ring, a, b, &mut scan);
        index.crossings(&ring, a, b, &mut got);
        assert_eq!(got, scan, "{a} {b}");
        crossed += usize::from(!scan.is_empty());
    };
    for (k, &a) in ps.iter().enumerate().step_by(3) {
        let b = ps[(k * 7 + 13) % ps.len()];
        check(a, b);
        check(a, a + (b - a).clamp_length_max(6.0));
        check(a, a);
    }
    // Segments from corner to corner of the ring (crossing at both ends, and often between).
    let mut corners = Vec::new();
    for k in (0..ring.len()).step_by(11) {
        let (a, b) = (ring[k], ring[(k * 5 + 3) % ring.len()]);
        polygon::crossings(&ring, a, b, &mut corners);
        through_corners += usize::from(corners.len() >= 2);
        check(a, b);
    }
    check(Vec2::NAN, Vec2::ZERO);
    check(Vec2::new(-1e30, 40.0), Vec2::new(1e30, 40.0));
    assert!(crossed > 300, "{crossed}");
    assert!(through_corners > 20, "{through_corners}");
}
