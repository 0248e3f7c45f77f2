//! Static constraints: bodies pushed out of circle obstacles and walls, and stopped where
//! they would tunnel through a wall in one step.

use glam::Vec2;

use super::{penetration, sane_radius};
use crate::body::Body;
use crate::geometry::{CircleObstacle, Wall, segment_intersection};

/// `velocity` without its component into a surface whose outward unit normal is `normal`
/// (the component along `normal` is kept if it points away from the surface).
#[inline]
pub fn remove_velocity_into(velocity: Vec2, normal: Vec2) -> Vec2 {
    velocity - normal * velocity.dot(normal).min(0.0)
}

/// The wall normal pointing to the side a point at signed distance `offset` (along
/// `wall.normal`) is on; for a point on the wall's line, the side opposite `velocity` (where the
/// body came from), else the facing side.
fn side_normal(wall: &Wall, offset: f32, velocity: Vec2) -> Vec2 {
    if offset < 0.0 || (offset == 0.0 && velocity.dot(wall.normal) > 0.0) {
        -wall.normal
    } else {
        wall.normal
    }
}

/// Pushes `body` out of `obstacle` to the nearest point where they just touch, and removes
/// the velocity component into the obstacle. A body exactly at the centre leaves back the way
/// it came (`-velocity`), else behind it (`-heading`), else along `+x`. Returns whether it
/// was moved.
pub fn push_out_of_circle(body: &mut Body, obstacle: &CircleObstacle) -> bool {
    let clearance = sane_radius(body.radius) + sane_radius(obstacle.radius);
    let d = body.position - obstacle.center;
    let exit = || {
        let back = (-body.velocity).try_normalize();
        back.or((-body.heading).try_normalize()).unwrap_or(Vec2::X)
    };
    let Some((normal, _)) = penetration(d, clearance, exit) else {
        return false;
    };
    body.position = obstacle.center + normal * clearance;
    body.velocity = remove_velocity_into(body.velocity, normal);
    true
}

/// Pushes `body` away from `wall` (a segment of no thickness) so its centre is at least its
/// radius from the segment, on the side it is already on, and removes the velocity component
/// into the wall. Near an end the segment is rounded (the push is away from the end point).
/// A centre exactly on the segment leaves along the wall normal, to the side opposite its
/// velocity (the side it came from), else the wall's facing side. Returns whether it moved.
pub fn push_out_of_wall(body: &mut Body, wall: &Wall) -> bool {
    let r = sane_radius(body.radius);
    let closest = wall.closest_point(body.position);
    let on_line = || side_normal(wall, 0.0, body.velocity);
    let Some((normal, _)) = penetration(body.position - closest, r, on_line) else {
        return false;
    };
    body.position = closest + normal * r;
    body.velocity = remove_velocity_into(body.velocity, normal);
    true
}

/// Where the straight move `from → to` of a body's centre crosses `wall`: the fraction of the
/// move and the point. `None` when it does not cross (or the move is degenerate).
#[inline]
pub fn crosses_wall(from: Vec2, to: Vec2, wall: &Wall) -> Option<(f32, Vec2)> {
    segment_intersection(from, to, wall.from, wall.to)
}

/// Stops a body that tunnelled through `wall` in one step: if the move from `previous` to
/// `body.position` crosses the wall, the centre is put back on `previous`'s side, one radius
/// from the crossing point along the wall normal, and the velocity component into the wall is
/// removed. Returns whether the body was stopped.
pub fn stop_at_wall(body: &mut Body, previous: Vec2, wall: &Wall) -> bool {
    let Some((_, hit)) = crosses_wall(previous, body.position, wall) else {
        return false;
    };
    let side = (previous - wall.from).dot(wall.normal);
    let normal = side_normal(wall, side, body.velocity);
    body.position = hit + normal * sane_radius(body.radius);
    body.velocity = remove_velocity_into(body.velocity, normal);
    true
}

/// Applies every static constraint to one body, in a fixed order: [`stop_at_wall`] for each
/// wall (against `previous`, the position before this step), then [`push_out_of_wall`] for
/// each wall, then [`push_out_of_circle`] for each obstacle. Returns whether anything moved
/// the body. One pass: in a tight corner a later push can undo an earlier one by a little.
pub fn constrain_to_static(
    body: &mut Body,
    previous: Vec2,
    obstacles: &[CircleObstacle],
    walls: &[Wall],
) -> bool {
    let mut moved = false;
    for wall in walls {
        moved |= stop_at_wall(body, previous, wall);
    }
    for wall in walls {
        moved |= push_out_of_wall(body, wall);
    }
    for obstacle in obstacles {
        moved |= push_out_of_circle(body, obstacle);
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::super::tests::{at, close};
    use super::*;

    #[test]
    fn pushed_out_of_circle() {
        let obstacle = CircleObstacle::new(Vec2::ZERO, 2.0).unwrap();
        let mut b = at(Vec2::new(1.0, 0.0), Vec2::new(-1.0, 1.0));
        assert!(push_out_of_circle(&mut b, &obstacle));
        assert!(close(b.position, Vec2::new(2.5, 0.0)));
        assert!(close(b.velocity, Vec2::new(0.0, 1.0)));
        assert!(!push_out_of_circle(&mut b, &obstacle));
        // At the very centre: back the way it came.
        let mut b = at(Vec2::ZERO, Vec2::new(0.0, 2.0));
        assert!(push_out_of_circle(&mut b, &obstacle));
        assert!(close(b.position, Vec2::new(0.0, -2.5)));
        assert!(close(b.velocity, Vec2::ZERO));
    }

    #[test]
    fn pushed_out_of_wall_on_its_own_side() {
        let wall = Wall::new(Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
        let end = Vec2::new(10.0, 0.0);
        for (start, velocity, want) in [
            (
                Vec2::new(5.0, 0.2),
                Vec2::new(1.0, -1.0),
                Vec2::new(5.0, 0.5),
            ),
            (Vec2::new(5.0, -0.2), Vec2::ZERO, Vec2::new(5.0, -0.5)),
            // On the segment, moving up: came from below, goes back below.
            (Vec2::new(5.0, 0.0), Vec2::Y, Vec2::new(5.0, -0.5)),
            // Rounded end.
            (
                Vec2::new(10.3, 0.3),
                Vec2::ZERO,
                end + Vec2::ONE.normalize() * 0.5,
            ),
            (Vec2::new(10.3, 0.0), Vec2::ZERO, Vec2::new(10.5, 0.0)),
        ] {
            let mut b = at(start, velocity);
            assert!(push_out_of_wall(&mut b, &wall));
            assert!(close(b.position, want), "{start} -> {}", b.position);
            assert!(b.velocity.dot(b.position - wall.closest_point(b.position)) >= 0.0);
        }
        let mut far = at(Vec2::new(12.0, 0.0), Vec2::ZERO);
        assert!(!push_out_of_wall(&mut far, &wall));
    }

    #[test]
    fn tunnelling_is_stopped() {
        let wall = Wall::new(Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
        let (hit_t, hit) = crosses_wall(Vec2::new(5.0, 1.0), Vec2::new(5.0, -3.0), &wall).unwrap();
        assert!((hit_t - 0.25).abs() < 1e-6 && close(hit, Vec2::new(5.0, 0.0)));
        assert!(crosses_wall(Vec2::new(5.0, 1.0), Vec2::new(5.0, 0.1), &wall).is_none());
        assert!(crosses_wall(Vec2::new(11.0, 1.0), Vec2::new(11.0, -1.0), &wall).is_none());
        let mut b = at(Vec2::new(5.0, -3.0), Vec2::new(1.0, -4.0));
        let previous = Vec2::new(5.0, 1.0);
        assert!(constrain_to_static(&mut b, previous, &[], &[wall]));
        assert!(close(b.position, Vec2::new(5.0, 0.5)));
        assert!(close(b.velocity, Vec2::new(1.0, 0.0)));
        // From below, through the back of the wall.
        let mut b = at(Vec2::new(2.0, 3.0), Vec2::ZERO);
        assert!(stop_at_wall(&mut b, Vec2::new(2.0, -1.0), &wall));
        assert!(close(b.position, Vec2::new(2.0, -0.5)));
    }
}
