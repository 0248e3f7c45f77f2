//! Context steering (Fray; see also "Smarter Steering"): instead of summing forces, every
//! evaluator scores a ring of direction slots, and one decision looks at all of them.
//!
//! - [`ContextMap`] ([`map`]): `N` evenly spaced slots aligned so that slot 0 points at the goal,
//!   each with a value in `[0, 1]` and the distance at which it lies.
//! - [`evaluators`], [`prediction`], [`speed`]: seek, flee, ray-cast static obstacles, predicted
//!   collisions with moving bodies, flock dispersion and speed scores. Each writes into an
//!   interest or danger map and returns how long its scores stay valid.
//! - [`decision`]: danger masks interest or scores multiply ([`CombineMode`]), then the best
//!   direction with parabolic or Catmull-Rom sub-slot interpolation ([`Interpolation`]).
//! - [`timeslice`]: the shortest validity wins; the steerer re-steers only when it has elapsed.
//! - [`ContextSteering`] ([`steerer`], configured by [`ContextConfig`] in [`config`]): all of it
//!   for one body, with last frame's maps damped
//!   into the next, a gentle turn towards the decision and a steering force out.
//!
//! ```
//! use cohort_steering::context::{ContextConfig, ContextSteering, Interpolation};
//! use cohort_steering::{Body, CircleObstacle, Vec2};
//!
//! let config = ContextConfig { slots: 16, interpolation: Interpolation::CatmullRom, ..Default::default() };
//! let mut steering = ContextSteering::new(config).expect("valid config");
//! let body = Body::new(Vec2::ZERO, 0.5, 3.0, 6.0).expect("valid body");
//! let rock = CircleObstacle::new(Vec2::new(3.0, 0.0), 1.0).expect("valid obstacle");
//!
//! let force = steering.steer(&body, Vec2::new(10.0, 0.0), &[rock], &[], &[], 1.0 / 60.0);
//! // The rock blocks the straight line to the goal, so the body heads off to one side.
//! assert!(force.x > 0.0 && force.y.abs() > 0.1);
//! // The maps are there to be drawn: slot 0 points at the goal and sees the rock (inflated by
//! // the body radius 0.5 and the clearance 0.25) 1.25 ahead.
//! assert_eq!(steering.danger().slot_count(), 16);
//! assert!((steering.danger().distance(0) - 1.25).abs() < 1e-4);
//! ```

pub mod config;
pub mod decision;
pub mod evaluators;
pub mod map;
pub mod prediction;
pub mod speed;
pub mod steerer;
pub mod timeslice;

#[cfg(test)]
mod scenarios;

pub use config::ContextConfig;
pub use decision::{CombineMode, Decision, Interpolation, combine, decide, favour};
pub use map::{ContextMap, MAX_SLOTS, MIN_SLOTS, NO_DISTANCE};
pub use steerer::ContextSteering;
pub use timeslice::{FOREVER, SliceClock, Validity};
