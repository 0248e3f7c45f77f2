#![doc = include_str!("../README.md")]

/// Steering behaviours, combiners, context steering, locomotion and neighbour search.
pub use cohort_steering as steering;

/// Navigation graph, A*, smoothing, clearance, cover points and jumping.
pub use cohort_pathing as pathing;

/// Formation patterns, slot assignment, anchors, the formation tree and the `World`.
pub use cohort_formation as formation;
