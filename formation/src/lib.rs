#![doc = include_str!("../README.md")]

pub mod anchor;
pub mod error;
pub mod ids;

pub use anchor::{AnchorMode, AnchorPoint};
pub use error::WorldError;
pub use ids::{FormationId, UnitId};
