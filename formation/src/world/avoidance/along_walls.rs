//! The right-hand rule beside a wall: a single pressed against a wall turns along it, not
//! into it (see [`along_walls`]; `choose` calls it for singles only).

use cohort_steering::{Vec2, Wall};

/// Gap (metres, beyond its radius) within which a unit touches a wall for [`along_walls`].
const WALL_TOUCH: f32 = 0.1;

/// The right-hand rule's turned preferred velocity `turned` (`preferred` turned clockwise) of
/// a unit of `radius` at `at`, stopped at each wall of `walls` the unit touches that the
/// turn would point it into: along that wall instead (the same speed), where `preferred`
/// itself kept off it. Two vehicles met side by side in the mouth of a corridor too narrow
/// for both, each pressed against the wall on its right: turned right, both pushed into
/// their walls and stood for good, where sliding along them took each past the other.
pub(super) fn along_walls(
    preferred: Vec2,
    turned: Vec2,
    at: Vec2,
    radius: f32,
    walls: &[Wall],
) -> Vec2 {
    let mut out = turned;
    for w in walls {
        let closest = cohort_steering::geometry::closest_point_on_segment(at, w.from, w.to);
        let away = at - closest;
        let d = away.length();
        if !(d > 1e-6 && d < radius + WALL_TOUCH) {
            continue;
        }
        let n = away / d;
        if preferred.dot(n) >= 0.0 && out.dot(n) < 0.0 {
            // Turning clockwise out of the half-plane facing away from the wall, the
            // direction leaves it along the wall at the normal turned a right angle clockwise.
            out = Vec2::new(n.y, -n.x) * turned.length();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(from: (f32, f32), to: (f32, f32)) -> Wall {
        Wall::new(Vec2::new(from.0, from.1), Vec2::new(to.0, to.1)).expect("a wall")
    }

    #[test]
    fn a_turn_into_a_touched_wall_runs_along_it_instead() {
        // A wall along x = 0, the unit of radius 1 touching it from the east, heading a
        // little east of south; turned 2 radians clockwise, it would head into the wall.
        let walls = [wall((0.0, -10.0), (0.0, 10.0))];
        let at = Vec2::new(1.05, 0.0);
        let preferred = Vec2::new(0.2, -1.0);
        let (sin, cos) = cohort_steering::ops::sin_cos(-2.0);
        let turned = Vec2::new(cos, sin).rotate(preferred);
        assert!(turned.x < 0.0, "turned into the wall: {turned:?}");
        let out = along_walls(preferred, turned, at, 1.0, &walls);
        // Along the wall (south, where the turn left the side away from it), at the same
        // speed.
        assert!(out.x.abs() < 1e-6, "{out:?}");
        assert!((out.length() - turned.length()).abs() < 1e-6);
        assert!(out.y < 0.0);
    }

    #[test]
    fn turns_away_from_walls_or_far_from_them_are_kept() {
        let walls = [wall((0.0, -10.0), (0.0, 10.0))];
        let preferred = Vec2::new(0.0, 1.0);
        // A small turn keeps it off the wall.
        let turned = Vec2::new(0.5, 0.8);
        assert_eq!(
            along_walls(preferred, turned, Vec2::new(1.05, 0.0), 1.0, &walls),
            turned
        );
        // Not touching: kept.
        let into = Vec2::new(-0.6, -0.8);
        assert_eq!(
            along_walls(preferred, into, Vec2::new(1.5, 0.0), 1.0, &walls),
            into
        );
        // Already heading into the wall before the turn: kept (the solver's walls decide).
        let west = Vec2::new(-1.0, 0.2);
        assert_eq!(
            along_walls(west, into, Vec2::new(1.05, 0.0), 1.0, &walls),
            into
        );
    }
}
