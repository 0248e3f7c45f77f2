//! Errors of the steering crate.

use thiserror::Error;

/// A user-supplied value that the steering crate cannot accept.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SteeringError {
    /// A value that must be finite was NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NonFinite {
        /// Which parameter.
        what: &'static str,
        /// The offending value (the first non-finite component for vectors).
        value: f32,
    },
    /// A value that must be strictly positive was zero or negative.
    #[error("{what} must be greater than zero, got {value}")]
    NotPositive {
        /// Which parameter.
        what: &'static str,
        /// The offending value.
        value: f32,
    },
    /// A value outside its allowed range.
    #[error("{what} must be in {range}, got {value}")]
    OutOfRange {
        /// Which parameter.
        what: &'static str,
        /// The allowed range, for the message.
        range: &'static str,
        /// The offending value.
        value: f32,
    },
}

/// Checks that `value` is finite and strictly positive.
pub fn check_positive(what: &'static str, value: f32) -> Result<f32, SteeringError> {
    if !value.is_finite() {
        Err(SteeringError::NonFinite { what, value })
    } else if value <= 0.0 {
        Err(SteeringError::NotPositive { what, value })
    } else {
        Ok(value)
    }
}

/// Checks that `value` is finite and not negative.
pub fn check_non_negative(what: &'static str, value: f32) -> Result<f32, SteeringError> {
    if !value.is_finite() {
        Err(SteeringError::NonFinite { what, value })
    } else if value < 0.0 {
        Err(SteeringError::OutOfRange {
            what,
            range: "[0, inf)",
            value,
        })
    } else {
        Ok(value)
    }
}

/// Checks that both components of a vector are finite.
pub fn check_finite_vec(what: &'static str, v: glam::Vec2) -> Result<glam::Vec2, SteeringError> {
    if !v.x.is_finite() {
        Err(SteeringError::NonFinite { what, value: v.x })
    } else if !v.y.is_finite() {
        Err(SteeringError::NonFinite { what, value: v.y })
    } else {
        Ok(v)
    }
}
