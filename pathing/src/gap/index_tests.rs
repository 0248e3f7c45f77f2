//! The gap queries through the broad phase and the edge index against the linear scans they
//! replaced, on long outlines (a winding river of thousands of points) and several small gaps.

use super::*;
use crate::grid_build::gap_crossing;
use crate::map::Map;
use crate::polygon::{self, Crossing};
use cohort_steering::ops;

/// A river `2 * half` wide winding across a `size` square map, as a gap of `2 * n` points.
fn river(n: usize, size: f32, half: f32) -> JumpableGap {
    let centre =
        |x: f32| size * 0.5 + 0.3 * size * ops::sin(core::f32::consts::TAU * x / (size * 0.5));
    let mut right = Vec::with_capacity(n);
    let mut left = Vec::with_capacity(n);
    for k in 0..n {
        let x = 0.01 * size + 0.98 * size * k as f32 / (n - 1) as f32;
        let dx = 0.01 * size;
        let tangent = Vec2::new(dx, centre(x + dx) - centre(x - dx)).normalize();
        let normal = tangent.perp() * half;
        let p = Vec2::new(x, centre(x));
        right.push(p - normal);
        left.push(p + normal);
    }
    left.reverse();
    right.extend(left);
    JumpableGap { points: right }
}

/// A map with a long river and three small square gaps, two of them overlapping.
fn map() -> ValidMap {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::splat(200.0));
    m.gaps.push(river(3000, 200.0, 1.5));
    for (lo, side) in [
        (Vec2::new(20.0, 20.0), 4.0),
        (Vec2::new(22.0, 22.0), 4.0),
        (Vec2::new(150.0, 170.0), 3.0),
    ] {
        let hi = lo + side;
        m.gaps.push(JumpableGap {
            points: vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)],
        });
    }
    m.validate().unwrap()
}

/// `first_gap` as a scan of every gap and every edge.
fn first_gap_scan(
    map: &ValidMap,
    origin: Vec2,
    dir: Vec2,
    reach: f32,
) -> Option<(usize, f32, f32)> {
    let mut best: Option<(usize, f32, f32)> = None;
    let mut ts: Vec<Crossing> = Vec::new();
    for (i, g) in map.map().gaps.iter().enumerate() {
        let (lo, hi) = polygon::aabb(&g.points);
        let far = reach + (hi - lo).length();
        let end = origin + dir * far;
        if end.min(origin).cmple(hi).all() && end.max(origin).cmpge(lo).all() {
            polygon::crossings(&g.points, origin, end, &mut ts);
            let inside = polygon::contains(&g.points, origin);
            let (enter, exit) = if inside {
                (0.0, ts.first().map(|c| c.0))
            } else {
                (
                    ts.first().map_or(f32::INFINITY, |c| c.0),
                    ts.get(1).map(|c| c.0),
                )
            };
            let (enter, exit) = (enter * far, exit.map_or(far, |t| t * far));
            if enter <= reach && best.is_none_or(|b| enter < b.1) {
                best = Some((i, enter, exit));
            }
        }
    }
    best
}

/// `gap_crossing` as a scan of every gap and every edge.
fn gap_crossing_scan(map: &ValidMap, a: Vec2, b: Vec2) -> Option<(usize, f32)> {
    let len = (b - a).length();
    let mut ts: Vec<Crossing> = Vec::new();
    for (i, gap) in map.map().gaps.iter().enumerate() {
        polygon::crossings(&gap.points, a, b, &mut ts);
        if ts.len() >= 2 {
            return Some((i, (ts[ts.len() - 1].0 - ts[0].0) * len));
        }
    }
    None
}

/// Points on a lattice over the map, some on the river's corners.
fn probes(map: &ValidMap) -> Vec<Vec2> {
    let mut out: Vec<Vec2> = (0..40)
        .flat_map(|i| (0..40).map(move |j| Vec2::new(i as f32 + 0.37, j as f32 + 0.61) * 4.9))
        .collect();
    out.extend(map.map().gaps[0].points.iter().step_by(37).copied());
    out
}

#[test]
fn the_first_gap_ahead_is_the_one_the_scan_finds() {
    let map = map();
    let mut found = [0usize; 4];
    for (k, &p) in probes(&map).iter().enumerate() {
        for j in 0..6 {
            let dir = ops::from_angle(0.37 * (k * 6 + j) as f32);
            for reach in [2.0, 8.0, 30.0] {
                let got = first_gap(&map, p, dir, reach);
                assert_eq!(
                    got,
                    first_gap_scan(&map, p, dir, reach),
                    "{p} {dir} {reach}"
                );
                if let Some((g, _, _)) = got {
                    found[g] += 1;
                }
            }
        }
    }
    // The river and the small gaps are all met, the overlapping pair included.
    assert!(found.iter().all(|&n| n > 10), "{found:?}");
}

#[test]
fn graph_leaps_cross_the_gaps_the_scan_finds() {
    let map = map();
    let mut ts = Vec::new();
    let mut crossing = [0usize; 4];
    let ps = probes(&map);
    for (k, &a) in ps.iter().enumerate() {
        // Leaps of up to 8 in 8 directions, and longer segments across the map.
        let dir = ops::from_angle(core::f32::consts::FRAC_PI_4 * (k % 8) as f32);
        for b in [a + dir * 3.0, a + dir * 8.0, ps[(k * 13 + 5) % ps.len()]] {
            let got = gap_crossing(&map, a, b, &mut ts);
            assert_eq!(got, gap_crossing_scan(&map, a, b), "{a} {b}");
            if let Some((g, _)) = got {
                crossing[g] += 1;
            }
        }
    }
    assert!(crossing.iter().all(|&n| n >= 2), "{crossing:?}");
}
