#![doc = include_str!("../README.md")]

pub mod body;
pub mod error;
pub mod geometry;
pub mod ops;
pub mod vector;

pub use body::Body;
pub use error::SteeringError;
pub use geometry::{CircleObstacle, Wall};
pub use vector::truncate;

/// The vector type of the whole crate: 2D, `f32`.
pub use glam::Vec2;
