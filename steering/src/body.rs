//! The moving body every behaviour reads: position, velocity, heading and limits.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{SteeringError, check_finite_vec, check_positive};
use crate::vector::truncate;

/// A moving body: what steering behaviours read and locomotion writes.
///
/// `heading` is a unit vector decoupled from `velocity` (it is smoothed by
/// [`crate::locomotion`]); `side` is always `heading.perp()`. Forces are accelerations divided by
/// `mass`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Body {
    /// Position in world units.
    pub position: Vec2,
    /// Velocity in world units per second.
    pub velocity: Vec2,
    /// Unit facing direction.
    pub heading: Vec2,
    /// Bounding radius.
    pub radius: f32,
    /// Mass; a force `f` gives acceleration `f / mass`.
    pub mass: f32,
    /// Top speed.
    pub max_speed: f32,
    /// Largest steering force.
    pub max_force: f32,
    /// Largest turn rate of the heading, radians per second.
    pub max_turn_rate: f32,
}

impl Default for Body {
    /// A man-sized body: radius 0.5, speed 3, force 6, at the origin facing +x.
    fn default() -> Self {
        Self {
            position: Vec2::ZERO,
            velocity: Vec2::ZERO,
            heading: Vec2::X,
            radius: 0.5,
            mass: 1.0,
            max_speed: 3.0,
            max_force: 6.0,
            max_turn_rate: core::f32::consts::TAU,
        }
    }
}

impl Body {
    /// A body at `position` with the given limits, validated: radius, max speed and max force
    /// must be finite and positive, the position finite.
    pub fn new(
        position: Vec2,
        radius: f32,
        max_speed: f32,
        max_force: f32,
    ) -> Result<Self, SteeringError> {
        let body = Self {
            position,
            radius,
            max_speed,
            max_force,
            ..Self::default()
        };
        body.validate()?;
        Ok(body)
    }

    /// The same body facing `heading` (normalized; a zero vector keeps the old heading).
    pub fn facing(mut self, heading: Vec2) -> Self {
        self.heading = heading.try_normalize().unwrap_or(self.heading);
        self
    }

    /// The same body moving at `velocity`.
    pub fn moving(mut self, velocity: Vec2) -> Self {
        self.velocity = velocity;
        self
    }

    /// Checks every field against the documented ranges of [`crate::limits`]: a position
    /// within [`crate::limits::MAX_COORD`], finite velocity and heading, and radius, mass,
    /// speed, force and turn rate each within its bounds; and a unit heading.
    pub fn validate(&self) -> Result<(), SteeringError> {
        use crate::limits::*;
        check_coord("position", self.position)?;
        check_finite_vec("velocity", self.velocity)?;
        check_finite_vec("heading", self.heading)?;
        // Zero, negative and non-finite values keep their own errors; then the ranges.
        for (what, v) in [
            ("radius", self.radius),
            ("mass", self.mass),
            ("max_speed", self.max_speed),
            ("max_force", self.max_force),
            ("max_turn_rate", self.max_turn_rate),
        ] {
            check_positive(what, v)?;
        }
        check_in_range("radius", self.radius, MIN_RADIUS, MAX_RADIUS, "[1e-4, 1e4]")?;
        check_in_range("mass", self.mass, MIN_MASS, MAX_MASS, "[1e-6, 1e6]")?;
        check_in_range(
            "max_speed",
            self.max_speed,
            MIN_SPEED,
            MAX_SPEED,
            "[1e-6, 1e4]",
        )?;
        check_in_range(
            "max_force",
            self.max_force,
            MIN_FORCE,
            MAX_FORCE,
            "[1e-6, 1e6]",
        )?;
        check_in_range(
            "max_turn_rate",
            self.max_turn_rate,
            MIN_TURN_RATE,
            MAX_TURN_RATE,
            "[1e-6, 1e4]",
        )?;
        let len = self.heading.length();
        if (len - 1.0).abs() > 1e-3 {
            return Err(SteeringError::OutOfRange {
                what: "heading length",
                range: "1 ± 0.001",
                value: len,
            });
        }
        Ok(())
    }

    /// Current speed.
    #[inline]
    pub fn speed(&self) -> f32 {
        self.velocity.length()
    }

    /// The unit vector to the left of the heading (`heading.perp()`).
    #[inline]
    pub fn side(&self) -> Vec2 {
        self.heading.perp()
    }

    /// Converts a world point into this body's local frame (+x along the heading, +y to the
    /// side).
    #[inline]
    pub fn to_local(&self, world: Vec2) -> Vec2 {
        let d = world - self.position;
        Vec2::new(d.dot(self.heading), d.dot(self.side()))
    }

    /// Converts a local point (+x heading, +y side) into world space.
    #[inline]
    pub fn to_world(&self, local: Vec2) -> Vec2 {
        self.position + self.local_dir_to_world(local)
    }

    /// Rotates a local direction into world space.
    #[inline]
    pub fn local_dir_to_world(&self, local: Vec2) -> Vec2 {
        self.heading * local.x + self.side() * local.y
    }

    /// Desired velocity `v` turned into a steering force: `truncate(v, max_speed) - velocity`.
    #[inline]
    pub fn steer_towards_velocity(&self, desired: Vec2) -> Vec2 {
        truncate(desired, self.max_speed) - self.velocity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_validates() {
        assert!(Body::new(Vec2::ZERO, 0.5, 3.0, 6.0).is_ok());
        assert!(matches!(
            Body::new(Vec2::ZERO, -1.0, 3.0, 6.0),
            Err(SteeringError::NotPositive { what: "radius", .. })
        ));
        assert!(matches!(
            Body::new(Vec2::new(f32::NAN, 0.0), 1.0, 3.0, 6.0),
            Err(SteeringError::NonFinite {
                what: "position",
                ..
            })
        ));
        assert!(Body::new(Vec2::ZERO, 1.0, 0.0, 6.0).is_err());
        assert!(Body::new(Vec2::ZERO, 1.0, 1.0, f32::INFINITY).is_err());
    }

    #[test]
    fn local_world_round_trip() {
        let b = Body::default()
            .facing(Vec2::new(1.0, 1.0))
            .moving(Vec2::ONE);
        let p = Vec2::new(3.0, -2.0);
        assert!((b.to_world(b.to_local(p)) - p).length() < 1e-5);
        // A point straight ahead is on the local +x axis.
        let ahead = b.to_local(b.position + b.heading * 2.0);
        assert!((ahead - Vec2::new(2.0, 0.0)).length() < 1e-5);
    }

    #[test]
    fn facing_zero_keeps_heading() {
        let b = Body::default().facing(Vec2::ZERO);
        assert_eq!(b.heading, Vec2::X);
    }
}
