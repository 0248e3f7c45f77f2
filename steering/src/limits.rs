//! The documented ranges of every number a user gives Cohort (positions, goals, body limits),
//! and the checks that refuse values outside them.
//!
//! The ranges are chosen for what single-precision arithmetic tolerates. Coordinates stay
//! within [`MAX_COORD`] so that every difference of two points (up to 2e6) and its square
//! (up to 4e12) is finite with room to spare for sums of squares, and so that a position still
//! resolves to 1/16 m (the spacing of `f32` values near 1e6). Body limits are bounded so that
//! a force over a mass times a step, or a speed times a step, stays far from overflow. Values
//! outside a range are refused where they enter the library (`Body::validate`, map
//! validation, orders), so a game gets the same protection as the command line.

use glam::Vec2;

use crate::error::SteeringError;

/// Largest absolute coordinate of any position, goal, origin or map bound, metres.
pub const MAX_COORD: f32 = 1.0e6;
/// The range of [`MAX_COORD`] for messages.
pub const COORD_RANGE: &str = "[-1e6, 1e6]";

/// Smallest body radius, metres.
pub const MIN_RADIUS: f32 = 1.0e-4;
/// Largest body radius, metres.
pub const MAX_RADIUS: f32 = 1.0e4;
/// Smallest body mass.
pub const MIN_MASS: f32 = 1.0e-6;
/// Largest body mass.
pub const MAX_MASS: f32 = 1.0e6;
/// Smallest top speed, metres per second.
pub const MIN_SPEED: f32 = 1.0e-6;
/// Largest top speed, metres per second.
pub const MAX_SPEED: f32 = 1.0e4;
/// Smallest steering force.
pub const MIN_FORCE: f32 = 1.0e-6;
/// Largest steering force.
pub const MAX_FORCE: f32 = 1.0e6;
/// Smallest turn rate, radians per second.
pub const MIN_TURN_RATE: f32 = 1.0e-6;
/// Largest turn rate, radians per second.
pub const MAX_TURN_RATE: f32 = 1.0e4;

/// Checks that `v` is finite with both coordinates within [`MAX_COORD`].
pub fn check_coord(what: &'static str, v: Vec2) -> Result<Vec2, SteeringError> {
    for value in [v.x, v.y] {
        if !value.is_finite() {
            return Err(SteeringError::NonFinite { what, value });
        }
        if value.abs() > MAX_COORD {
            return Err(SteeringError::OutOfRange {
                what,
                range: COORD_RANGE,
                value,
            });
        }
    }
    Ok(v)
}

/// Checks that `value` is finite and within `[min, max]`; `range` spells the interval for
/// the message.
pub fn check_in_range(
    what: &'static str,
    value: f32,
    min: f32,
    max: f32,
    range: &'static str,
) -> Result<f32, SteeringError> {
    if !value.is_finite() {
        Err(SteeringError::NonFinite { what, value })
    } else if !(min..=max).contains(&value) {
        Err(SteeringError::OutOfRange { what, range, value })
    } else {
        Ok(value)
    }
}

/// Checks that `v` is a usable direction: finite, within [`MAX_COORD`] and not (nearly) the
/// zero vector, so that normalizing it gives a unit vector.
pub fn check_direction(what: &'static str, v: Vec2) -> Result<Vec2, SteeringError> {
    check_coord(what, v)?;
    let len_sq = v.length_squared();
    if len_sq > 1.0e-12 {
        Ok(v)
    } else {
        Err(SteeringError::OutOfRange {
            what,
            range: "directions of length > 1e-6",
            value: len_sq.sqrt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_directions_and_ranges() {
        assert!(check_coord("p", Vec2::splat(MAX_COORD)).is_ok());
        assert!(check_coord("p", Vec2::new(-3.4e38, 0.0)).is_err());
        assert!(check_coord("p", Vec2::new(0.0, f32::NAN)).is_err());
        assert!(check_direction("d", Vec2::ZERO).is_err());
        assert!(check_direction("d", Vec2::new(1e-30, 0.0)).is_err());
        assert!(check_direction("d", Vec2::Y).is_ok());
        assert!(check_in_range("r", 2.0, 1.0, 3.0, "[1, 3]").is_ok());
        assert!(check_in_range("r", 3.4e38, 1.0, 3.0, "[1, 3]").is_err());
    }
}
