//! Errors of the formation crate.

use thiserror::Error;

use crate::ids::{FormationId, UnitId};

/// What the [`crate::World`] refuses, and why.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum WorldError {
    /// No unit with this key (it was removed or never existed).
    #[error("no unit {0:?} in this world")]
    NoSuchUnit(UnitId),
    /// No formation with this key.
    #[error("no formation {0:?} in this world")]
    NoSuchFormation(FormationId),
    /// A body with bad limits or values.
    #[error("invalid body: {0}")]
    Body(#[from] cohort_steering::SteeringError),
    /// An order or setting with a bad value.
    #[error("invalid {what}: {why}")]
    Invalid {
        /// What was wrong.
        what: &'static str,
        /// Why.
        why: String,
    },
    /// Making a formation a child of itself or of one of its descendants.
    #[error("formation {0:?} cannot be nested inside its own subtree")]
    Cycle(FormationId),
    /// A world already holds as many units as it may.
    #[error("too many units: the limit is {limit}")]
    TooManyUnits {
        /// The limit.
        limit: usize,
    },
}
