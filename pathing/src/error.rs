//! Errors of the pathing crate.

use cohort_steering::SteeringError;
use glam::Vec2;
use thiserror::Error;

use crate::jump::JumpRefusal;

/// Everything the pathing crate can refuse: invalid maps, graphs and queries, and path queries
/// whose start or goal cannot be used (when the caller asked for an error rather than the
/// closest reachable point).
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PathingError {
    /// A value that must be finite was NaN or infinite.
    #[error("{what} must be finite, got {value}")]
    NonFinite {
        /// Which value.
        what: &'static str,
        /// The offending value (the first non-finite component for vectors).
        value: f32,
    },
    /// A value that must be strictly positive was zero or negative.
    #[error("{what} must be greater than zero, got {value}")]
    NotPositive {
        /// Which value.
        what: &'static str,
        /// The offending value.
        value: f32,
    },
    /// A value that must not be negative was negative.
    #[error("{what} must not be negative, got {value}")]
    Negative {
        /// Which value.
        what: &'static str,
        /// The offending value.
        value: f32,
    },
    /// A value outside its documented range (see `cohort_steering::limits`).
    #[error("{what} must be in {range}, got {value}")]
    OutOfRange {
        /// Which value.
        what: &'static str,
        /// The allowed range, for the message.
        range: &'static str,
        /// The offending value.
        value: f32,
    },
    /// The map bounds are empty (`max` not greater than `min` on both axes).
    #[error("map bounds are empty: min {min}, max {max}")]
    EmptyBounds {
        /// Lower corner.
        min: Vec2,
        /// Upper corner.
        max: Vec2,
    },
    /// A shape of the map or grid is degenerate (too few points, zero area, self-crossing...).
    #[error("{what} #{index} is degenerate: {reason}")]
    Degenerate {
        /// Which kind of shape.
        what: &'static str,
        /// Its index in the map's list.
        index: usize,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// A grid or graph is larger than this crate indexes (more than `limit` cells or nodes).
    #[error("{what} has {count} elements, more than the limit {limit}")]
    TooLarge {
        /// What is too large.
        what: &'static str,
        /// Its size.
        count: usize,
        /// The largest accepted size.
        limit: usize,
    },
    /// A node index that is not in the graph.
    #[error("node {index} is not in the navigation graph")]
    NoSuchNode {
        /// The index.
        index: usize,
    },
    /// The start of a path query is inside an obstacle (or outside the map bounds).
    #[error("path start {position} is inside an obstacle")]
    StartBlocked {
        /// The requested start.
        position: Vec2,
    },
    /// The goal of a path query is inside an obstacle (or outside the map bounds).
    #[error("path goal {position} is inside an obstacle")]
    GoalBlocked {
        /// The requested goal.
        position: Vec2,
    },
    /// No walkable graph node can be reached in a straight line from this point.
    #[error("no walkable node near {position}")]
    NoWalkableNode {
        /// The point.
        position: Vec2,
    },
    /// The goal cannot be reached from the start.
    #[error("goal {goal} is unreachable from {start}")]
    Unreachable {
        /// Start of the query.
        start: Vec2,
        /// Goal of the query.
        goal: Vec2,
    },
    /// A jump the unit cannot make.
    #[error("jump refused: {0}")]
    JumpRefused(JumpRefusal),
}

impl From<SteeringError> for PathingError {
    fn from(e: SteeringError) -> Self {
        match e {
            SteeringError::NonFinite { what, value } => Self::NonFinite { what, value },
            SteeringError::NotPositive { what, value } => Self::NotPositive { what, value },
            // The steering crate's "not negative" check reports [0, inf).
            SteeringError::OutOfRange {
                what,
                range: "[0, inf)",
                value,
            } => Self::Negative { what, value },
            SteeringError::OutOfRange { what, range, value } => {
                Self::OutOfRange { what, range, value }
            }
        }
    }
}

impl From<JumpRefusal> for PathingError {
    fn from(r: JumpRefusal) -> Self {
        Self::JumpRefused(r)
    }
}

/// Checks that a float is finite.
pub(crate) fn finite(what: &'static str, value: f32) -> Result<f32, PathingError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(PathingError::NonFinite { what, value })
    }
}

/// Checks that a vector is finite.
pub(crate) fn finite_vec(what: &'static str, v: Vec2) -> Result<Vec2, PathingError> {
    finite(what, v.x)?;
    finite(what, v.y)?;
    Ok(v)
}

/// Checks that a point is finite and within `cohort_steering::limits::MAX_COORD`.
pub(crate) fn coord(what: &'static str, v: Vec2) -> Result<Vec2, PathingError> {
    Ok(cohort_steering::limits::check_coord(what, v)?)
}

/// Checks that a length is finite, positive and at most `max` (`range` spells the interval).
pub(crate) fn length_in(
    what: &'static str,
    value: f32,
    min: f32,
    max: f32,
    range: &'static str,
) -> Result<f32, PathingError> {
    positive(what, value)?;
    Ok(cohort_steering::limits::check_in_range(
        what, value, min, max, range,
    )?)
}

/// Checks that a float is finite and strictly positive.
pub(crate) fn positive(what: &'static str, value: f32) -> Result<f32, PathingError> {
    finite(what, value)?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(PathingError::NotPositive { what, value })
    }
}

/// Checks that a float is finite and not negative.
pub(crate) fn non_negative(what: &'static str, value: f32) -> Result<f32, PathingError> {
    finite(what, value)?;
    if value >= 0.0 {
        Ok(value)
    } else {
        Err(PathingError::Negative { what, value })
    }
}
