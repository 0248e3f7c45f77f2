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
