//! A tiny explicit-Euler integrator the behaviour tests use to check what a force does over
//! time (the real locomotion lives in `crate::locomotion`).

use glam::Vec2;

use crate::body::Body;
use crate::vector::truncate;

/// The test time step.
pub const DT: f32 = 1.0 / 60.0;

/// One Euler step: force truncated to `max_force`, acceleration `force / mass`, speed truncated
/// to `max_speed`, heading follows the velocity when moving.
pub fn step(body: &mut Body, force: Vec2, dt: f32) {
    assert!(
        force.is_finite(),
        "behaviour returned a non-finite force {force:?}"
    );
    let acc = truncate(force, body.max_force) / body.mass;
    body.velocity = truncate(body.velocity + acc * dt, body.max_speed);
    body.position += body.velocity * dt;
    if let Some(h) = body.velocity.try_normalize() {
        if body.velocity.length() > 1e-3 {
            body.heading = h;
        }
    }
}

/// A default body at `position`.
pub fn body_at(position: Vec2) -> Body {
    Body {
        position,
        ..Body::default()
    }
}
