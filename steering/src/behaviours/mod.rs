//! Steering behaviours: small pure functions from a [`Body`](crate::Body) and plain data to a
//! steering force.
//!
//! Every behaviour returns a force that is **not** truncated to `max_force` (combiners do
//! that), is `Vec2::ZERO` when there is nothing to do or the input is degenerate, and is never
//! NaN. Most return `desired velocity - velocity`; [`arrive`] and the behaviours built on it
//! return a mass-scaled velocity error tuned to stop without overshoot (see
//! [`arrive_moving`]). State that lives across ticks ([`WanderState`], [`PathFollower`]) is a
//! small serializable struct passed `&mut`; randomness comes only from
//! [`SimRng`](crate::SimRng).
//!
//! Other agents are described by plain data, [`MovingTarget`] (a `&Body` converts into one),
//! and tuning lives in serializable parameter structs with working defaults.
//!
//! ```
//! use cohort_steering::behaviours::{ArriveParams, arrive, seek};
//! use cohort_steering::{Body, Vec2, truncate};
//!
//! let mut body = Body::new(Vec2::ZERO, 0.5, 3.0, 6.0).expect("valid limits");
//! let target = Vec2::new(10.0, 0.0);
//!
//! // Seek: full speed towards the target.
//! assert_eq!(seek(&body, target), Vec2::new(3.0, 0.0));
//!
//! // Arrive: drive there and stop.
//! let dt = 1.0 / 60.0;
//! for _ in 0..600 {
//!     let force = truncate(arrive(&body, target, &ArriveParams::default()), body.max_force);
//!     body.velocity = truncate(body.velocity + force / body.mass * dt, body.max_speed);
//!     body.position += body.velocity * dt;
//! }
//! assert!(body.position.distance(target) < 0.05);
//! assert!(body.speed() < 0.05);
//! ```

pub mod avoidance;
pub mod group;
pub mod hide;
pub mod path;
pub mod pursuit;
pub mod seek;
pub mod target;
pub mod velocity;
pub mod wander;

#[cfg(test)]
mod props;
#[cfg(test)]
mod test_support;

pub use avoidance::{
    ObstacleAvoidanceParams, WallAvoidanceParams, obstacle_avoidance, wall_avoidance,
};
pub use group::{
    FlockingParams, FlockingWeights, MIN_SEPARATION_DISTANCE, Neighbourhood, SeparationFalloff,
    alignment, cohesion, flocking, separation, separation_with,
};
pub use hide::{HideParams, best_hiding_spot, hide, hiding_spot};
pub use path::{Path, PathFollower, follow_path};
pub use pursuit::{FACING_COS, evade, interpose, offset_pursuit, pursuit};
pub use seek::{
    ArriveParams, Deceleration, MIN_DECELERATION_TIME, arrive, arrive_moving, flee, seek,
};
pub use target::MovingTarget;
pub use velocity::velocity_match;
pub use wander::{WanderParams, WanderState, wander};
