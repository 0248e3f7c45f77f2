#![doc = include_str!("../README.md")]

pub mod metrics;
pub mod render;
pub mod shapes;

pub use metrics::{Metrics, Report, UnitSample};
pub use shapes::MapShapes;
