//! The tuning of reciprocal avoidance: plain data a scenario file or a game sets.

use cohort_steering::orca::OrcaParams;
use serde::{Deserialize, Serialize};

/// Tuning of reciprocal avoidance between units (plain data, defaults that work).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AvoidanceSettings {
    /// Whether units avoid each other by choosing collision-free velocities (off: separation
    /// and the non-penetration solver alone keep them apart).
    pub enabled: bool,
    /// Seconds ahead within which a unit's velocity must not collide with a neighbour's.
    /// Longer: earlier, gentler avoidance; shorter: units pass closer and later.
    pub time_horizon: f32,
    /// Seconds ahead within which a unit's velocity must not reach a wall or obstacle edge.
    pub obstacle_time_horizon: f32,
    /// Farthest a neighbour is looked for, metres of gap between the unit and the largest
    /// unit touching it (the search also stops at what the horizon can reach: the horizon's
    /// travel at the unit's and the fastest unit's top speeds).
    pub neighbour_distance: f32,
    /// Most neighbours a unit avoids at once (the nearest ones).
    pub max_neighbours: u32,
    /// Strength of the right-hand rule, 0 to 1: how far a unit met head-on tilts its preferred
    /// velocity to its right (0 turns the rule off).
    pub right_hand: f32,
}

impl Default for AvoidanceSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            time_horizon: 2.0,
            obstacle_time_horizon: 0.5,
            neighbour_distance: 6.0,
            max_neighbours: 10,
            right_hand: 1.0,
        }
    }
}

impl AvoidanceSettings {
    /// Every tuning number by field name; each must be finite and not negative.
    pub fn tuning(&self) -> [(&'static str, f32); 5] {
        [
            ("avoidance.time_horizon", self.time_horizon),
            (
                "avoidance.obstacle_time_horizon",
                self.obstacle_time_horizon,
            ),
            ("avoidance.neighbour_distance", self.neighbour_distance),
            ("avoidance.max_neighbours", self.max_neighbours as f32),
            ("avoidance.right_hand", self.right_hand),
        ]
    }

    /// The solver's parameters.
    pub(in crate::world) fn params(&self) -> OrcaParams {
        OrcaParams {
            time_horizon: self.time_horizon.max(1e-3),
            obstacle_time_horizon: self.obstacle_time_horizon.max(1e-3),
            right_hand: self.right_hand.clamp(0.0, 1.0),
        }
    }
}
