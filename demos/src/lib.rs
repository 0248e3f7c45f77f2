#![doc = include_str!("../README.md")]

pub mod bench;
pub mod check;
pub mod cli;
pub mod compare;
pub mod fuzzing;
pub mod metrics;
pub mod render;
pub mod runner;
pub mod scenario;
pub mod shapes;
pub mod viewer;

pub use metrics::{Metrics, Report, UnitSample};
pub use runner::Runner;
pub use scenario::{LoadedScenario, Scenario, ScenarioError};
pub use shapes::MapShapes;
