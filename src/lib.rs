#![doc = include_str!("../README.md")]

/// Steering behaviours, combiners, context steering, locomotion and neighbour search.
pub use cohort_steering as steering;

/// Navigation graph, A*, smoothing, clearance, cover points and jumping.
pub use cohort_pathing as pathing;

/// Formation patterns, slot assignment, anchors, the formation tree and the `World`.
pub use cohort_formation as formation;

/// The vector type of every crate: 2D, `f32` (glam's).
pub use cohort_steering::Vec2;

pub use cohort_formation::{Pattern, PatternKind, ValidPattern};

/// The `mint` interoperability types (feature `mint`): [`Vec2`] converts to and from
/// `mint::Vector2<f32>` with `.into()`, and so does the `Vec2` of any glam version built with
/// glam's own `mint` feature.
#[cfg(feature = "mint")]
pub use cohort_steering::mint;

/// What a game embedding Cohort needs in scope: `use cohort::prelude::*;`.
pub mod prelude {
    pub use cohort_formation::{
        FormationId, FormationSettings, FormationSpec, FormationStatus, Member, Motion, Order,
        Pattern, PatternKind, UnitId, UnitOptions, UnitRef, ValidPattern, World, WorldError,
        WorldSettings,
        pattern::{PatternError, Role},
    };
    pub use cohort_pathing::Map;
    pub use cohort_steering::{Body, Vec2};
}
