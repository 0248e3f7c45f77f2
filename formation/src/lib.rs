#![doc = include_str!("../README.md")]

pub mod anchor;
pub mod army;
pub mod assignment;
pub mod emergent;
pub mod error;
pub mod formation;
pub mod ids;
pub mod order;
pub mod pattern;
pub mod status;
pub mod tactics;
pub mod text_file;
pub mod world;

pub use anchor::{AnchorMode, AnchorPoint};
/// The vector type of every crate: 2D, `f32` (glam's).
pub use cohort_steering::Vec2;
pub use error::WorldError;
pub use formation::{Formation, FormationSettings, FormationSpec, Member, Motion, SlotTarget};
pub use ids::{FormationId, UnitId};
pub use order::Order;
pub use pattern::{Pattern, PatternKind, ValidPattern};
pub use status::FormationStatus;
pub use world::{
    AvoidanceReport, AvoidanceSettings, Binding, MAX_PENETRATION_ITERATIONS, Unit, UnitOptions,
    UnitRef, World, WorldSettings,
};
