#![doc = include_str!("../README.md")]

pub mod behaviours;
pub mod body;
pub mod capacity;
pub mod combine;
pub mod context;
pub mod error;
pub mod geometry;
pub mod grid;
pub mod limits;
pub mod locomotion;
pub mod ops;
pub mod orca;
pub mod penetration;
pub mod pipeline;
pub mod random;
pub mod vector;

pub use body::Body;
pub use error::SteeringError;
pub use geometry::{CircleObstacle, Wall};
pub use random::SimRng;
pub use vector::truncate;

/// The vector type of the whole crate: 2D, `f32`.
pub use glam::Vec2;

/// The `mint` interoperability types (feature `mint`): [`Vec2`] converts to and from
/// `mint::Vector2<f32>` and `mint::Point2<f32>` with `.into()`, and so does the `Vec2` of any
/// glam version built with its own `mint` feature.
#[cfg(feature = "mint")]
pub use mint;
