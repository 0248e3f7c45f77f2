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
    /// An order that would move a formation on its own, given to a formation that is a member
    /// of another: order the parent, or take the member out first with
    /// [`crate::World::detach_formation`]. (A change of pattern is carried out in the member's
    /// slot and is not refused.)
    #[error(
        "formation {formation:?} is a member of formation {parent:?} and follows its slot: order          the parent, or detach it first (World::detach_formation)"
    )]
    AttachedMember {
        /// The formation ordered.
        formation: FormationId,
        /// The formation it is a member of.
        parent: FormationId,
    },
    /// A world already holds as many units as it may.
    #[error("too many units: the limit is {limit}")]
    TooManyUnits {
        /// The limit.
        limit: usize,
    },
}
