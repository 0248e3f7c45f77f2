//! Path smoothing by line of sight (string pulling): drop every waypoint the unit can skip
//! because the straight segment from the last kept waypoint to a later one is clear for its
//! radius. Grid paths lose their zig-zags; a kept segment never comes closer than the radius to
//! an obstacle, never crosses a wall or walks over a gap.

use glam::Vec2;

use crate::valid_map::ValidMap;

/// Smooths a walked polyline for a body of `radius`: the first and last points stay, and from
/// each kept point the next kept one is the farthest the body can reach in a straight line
/// while every point in between is skippable. A segment of the input that is itself blocked is
/// kept as it is (smoothing never makes a path worse).
pub fn smooth_path(map: &ValidMap, points: &[Vec2], radius: f32) -> Vec<Vec2> {
    let mut out = Vec::new();
    smooth_path_into(map, points, radius, &mut out);
    out
}

/// [`smooth_path`] into the caller's buffer: `out` is cleared and refilled (it keeps its
/// capacity, so a warm buffer is not reallocated).
pub fn smooth_path_into(map: &ValidMap, points: &[Vec2], radius: f32, out: &mut Vec<Vec2>) {
    out.clear();
    string_pull(
        map,
        points,
        |_| true,
        radius,
        |i| {
            if let Some(&p) = points.get(i) {
                out.push(p);
            }
        },
    );
}

/// [`kept_indices_into`] into a new vector.
#[cfg(test)]
pub(crate) fn kept_indices(
    map: &ValidMap,
    points: &[Vec2],
    walk: impl Fn(usize) -> bool,
    radius: f32,
) -> Vec<usize> {
    let mut kept = Vec::new();
    kept_indices_into(map, points, walk, radius, &mut kept);
    kept
}

/// The indices of `points` kept by string pulling, written into `out` (cleared first; it keeps
/// its capacity). `walk(i)` says whether the leg from point `i` to point `i + 1` is walked;
/// other legs (jumps) are kept as they are and nothing is skipped across them.
pub(crate) fn kept_indices_into(
    map: &ValidMap,
    points: &[Vec2],
    walk: impl Fn(usize) -> bool,
    radius: f32,
    out: &mut Vec<usize>,
) {
    out.clear();
    string_pull(map, points, walk, radius, |i| out.push(i));
}

/// String pulling: calls `keep` with each kept index of `points` in order (see
/// [`kept_indices_into`]).
fn string_pull(
    map: &ValidMap,
    points: &[Vec2],
    walk: impl Fn(usize) -> bool,
    radius: f32,
    mut keep: impl FnMut(usize),
) {
    let n = points.len();
    if n == 0 {
        return;
    }
    keep(0);
    let mut anchor = 0usize;
    while anchor + 1 < n {
        if !walk(anchor) {
            anchor += 1;
            keep(anchor);
            continue;
        }
        let Some(&from) = points.get(anchor) else {
            break;
        };
        let mut reach = anchor + 1;
        // Extend while the leg into the next point is walked and the shortcut is clear.
        while reach + 1 < n
            && walk(reach)
            && points
                .get(reach + 1)
                .is_some_and(|&to| map.line_of_sight(from, to, radius))
        {
            reach += 1;
        }
        keep(reach);
        anchor = reach;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Map;
    use cohort_steering::CircleObstacle;

    #[test]
    fn staircase_becomes_a_straight_line() {
        let map = Map::with_bounds(Vec2::ZERO, Vec2::splat(20.0))
            .validate()
            .unwrap();
        let stairs: Vec<Vec2> = (0..10)
            .map(|i| Vec2::new(1.0 + (i / 2 + i % 2) as f32, 1.0 + (i / 2) as f32))
            .collect();
        let s = smooth_path(&map, &stairs, 0.5);
        assert_eq!(s, vec![stairs[0], stairs[9]]);
    }

    #[test]
    fn corners_around_an_obstacle_stay() {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::splat(20.0));
        m.circles
            .push(CircleObstacle::new(Vec2::new(10.0, 10.0), 3.0).unwrap());
        let map = m.validate().unwrap();
        let around = [
            Vec2::new(2.0, 10.0),
            Vec2::new(6.0, 10.0),
            Vec2::new(7.0, 14.0),
            Vec2::new(10.0, 14.5),
            Vec2::new(13.0, 14.0),
            Vec2::new(14.0, 10.0),
            Vec2::new(18.0, 10.0),
        ];
        let s = smooth_path(&map, &around, 0.5);
        assert!(s.len() >= 3 && s.len() < around.len(), "{s:?}");
        assert_eq!(s.first(), around.first());
        assert_eq!(s.last(), around.last());
        for w in s.windows(2) {
            assert!(map.line_of_sight(w[0], w[1], 0.5), "{w:?}");
        }
    }

    #[test]
    fn jump_legs_are_kept() {
        let map = Map::with_bounds(Vec2::ZERO, Vec2::splat(20.0))
            .validate()
            .unwrap();
        let pts: Vec<Vec2> = (0..6).map(|i| Vec2::new(1.0 + i as f32, 5.0)).collect();
        // The leg 2 -> 3 is a jump: 2 and 3 stay.
        let kept = kept_indices(&map, &pts, |i| i != 2, 0.5);
        assert_eq!(kept, vec![0, 2, 3, 5]);
    }

    #[test]
    fn into_a_used_buffer_gives_the_same_points() {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::splat(20.0));
        m.circles
            .push(CircleObstacle::new(Vec2::new(10.0, 10.0), 3.0).unwrap());
        let map = m.validate().unwrap();
        let zigzag: Vec<Vec2> = (0..30)
            .map(|i| Vec2::new(1.0 + 0.6 * i as f32, if i % 2 == 0 { 1.0 } else { 2.0 }))
            .collect();
        let around: Vec<Vec2> = (0..=16)
            .map(|k| {
                let a = core::f32::consts::PI * k as f32 / 16.0;
                let d = cohort_steering::ops::from_angle(a);
                Vec2::new(10.0, 10.0) - Vec2::new(d.x, -d.y) * 4.0
            })
            .collect();
        let mut out = vec![Vec2::NAN; 40];
        let mut kept = vec![99; 40];
        for points in [&zigzag[..], &around[..], &[][..], &zigzag[..1], &around[..]] {
            smooth_path_into(&map, points, 0.5, &mut out);
            assert_eq!(out, smooth_path(&map, points, 0.5));
            let walk = |i: usize| i % 5 != 3;
            kept_indices_into(&map, points, walk, 0.5, &mut kept);
            assert_eq!(kept, kept_indices(&map, points, walk, 0.5));
        }
        // Round the circle, some corners stay; the zig-zag is one leg.
        smooth_path_into(&map, &around, 0.5, &mut out);
        assert!(out.len() > 2 && out.len() < around.len(), "{out:?}");
        smooth_path_into(&map, &zigzag, 0.5, &mut out);
        assert_eq!(out, vec![zigzag[0], zigzag[29]]);
    }
}
