//! [`ContextConfig`]: the plain-data configuration of a
//! [`ContextSteering`](super::ContextSteering).

use serde::{Deserialize, Serialize};

use super::decision::{CombineMode, Interpolation};
use super::map::{MAX_SLOTS, MIN_SLOTS};
use crate::error::{SteeringError, check_non_negative, check_positive};

/// Configuration of a [`ContextSteering`](super::ContextSteering): plain data, RON-friendly, with a working `Default`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextConfig {
    /// Number of direction slots, `4..=256` (16).
    pub slots: usize,
    /// How interest and danger combine (danger masks interest, threshold 0.15).
    pub combine: CombineMode,
    /// How the direction is read from the decision map (Catmull-Rom).
    pub interpolation: Interpolation,
    /// Share of last frame's maps carried into the new ones, `[0, 1)` (0.5).
    pub damping: f32,
    /// Per-call lerp factor from the current direction of motion towards the decision, `(0, 1]`
    /// (1 turns at once) (0.5).
    pub turn_factor: f32,
    /// Length of the obstacle ray casts and the distance danger is normalized by (5).
    pub look_distance: f32,
    /// Seek interest kept for the direction straight away from the goal, `[0, 1]` (0.1).
    pub backward_interest: f32,
    /// How far ahead collisions with moving bodies are predicted, seconds (3).
    pub prediction_horizon: f32,
    /// Clearance added to the radii when predicting collisions (0.3).
    pub collision_margin: f32,
    /// Within this distance of the goal speed falls off linearly (2).
    pub slowing_radius: f32,
    /// Within this distance of the goal the body has arrived and only brakes (0.05).
    pub arrive_distance: f32,
    /// Clearance kept from static geometry (added to the body radius in the ray casts), and
    /// danger nearer than the stopping distance plus this blocks a slot outright (0.25).
    pub clearance: f32,
    /// How much danger in the chosen direction or the current direction of motion slows the
    /// body, `[0, 1]` (0.5).
    pub danger_slowdown: f32,
    /// Gap between edges under which neighbours disperse the body (1).
    pub separation_radius: f32,
    /// Weight of the dispersion vector added to interest; 0 turns dispersion off (0.3).
    pub separation_weight: f32,
    /// How much the decision favours the direction currently steered in (see
    /// [`favour`](super::decision::favour)), so the body commits to one way round instead of
    /// dithering; `[0, 1]`, fading out inside the slowing radius; 0 turns it off (0.2).
    pub persistence: f32,
    /// Longest time a decision is reused, seconds; 0 re-steers on every call (0.25).
    pub max_validity: f32,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            slots: 16,
            combine: CombineMode::default(),
            interpolation: Interpolation::default(),
            damping: 0.5,
            turn_factor: 0.5,
            look_distance: 5.0,
            backward_interest: 0.1,
            prediction_horizon: 3.0,
            collision_margin: 0.3,
            slowing_radius: 2.0,
            arrive_distance: 0.05,
            clearance: 0.25,
            danger_slowdown: 0.5,
            separation_radius: 1.0,
            separation_weight: 0.3,
            persistence: 0.2,
            max_validity: 0.25,
        }
    }
}

/// Checks `value` is finite and in `[0, 1]` (or `[0, 1)` when `open`).
fn check_unit(what: &'static str, value: f32, open: bool) -> Result<(), SteeringError> {
    let ok = value >= 0.0 && if open { value < 1.0 } else { value <= 1.0 };
    if ok {
        Ok(())
    } else {
        Err(SteeringError::OutOfRange {
            what,
            range: if open { "[0, 1)" } else { "[0, 1]" },
            value,
        })
    }
}

impl ContextConfig {
    /// Checks every field against the ranges in its documentation.
    pub fn validate(&self) -> Result<(), SteeringError> {
        if !(MIN_SLOTS..=MAX_SLOTS).contains(&self.slots) {
            return Err(SteeringError::OutOfRange {
                what: "context slot count",
                range: "4..=256",
                value: self.slots as f32,
            });
        }
        if let CombineMode::DangerMask { threshold } = self.combine {
            check_unit("danger mask threshold", threshold, false)?;
        }
        check_unit("damping", self.damping, true)?;
        check_positive("turn factor", self.turn_factor)?;
        check_unit("turn factor", self.turn_factor, false)?;
        check_positive("look distance", self.look_distance)?;
        check_unit("backward interest", self.backward_interest, false)?;
        check_non_negative("prediction horizon", self.prediction_horizon)?;
        check_non_negative("collision margin", self.collision_margin)?;
        check_non_negative("slowing radius", self.slowing_radius)?;
        check_non_negative("arrive distance", self.arrive_distance)?;
        check_non_negative("clearance", self.clearance)?;
        check_unit("danger slowdown", self.danger_slowdown, false)?;
        check_non_negative("separation radius", self.separation_radius)?;
        check_non_negative("separation weight", self.separation_weight)?;
        check_unit("persistence", self.persistence, false)?;
        check_non_negative("max validity", self.max_validity)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ContextSteering;

    #[test]
    fn config_validates_and_round_trips() {
        assert!(ContextConfig::default().validate().is_ok());
        let bad = [
            ContextConfig {
                slots: 2,
                ..Default::default()
            },
            ContextConfig {
                damping: 1.0,
                ..Default::default()
            },
            ContextConfig {
                turn_factor: 0.0,
                ..Default::default()
            },
            ContextConfig {
                look_distance: f32::NAN,
                ..Default::default()
            },
            ContextConfig {
                combine: CombineMode::DangerMask { threshold: 1.5 },
                ..Default::default()
            },
        ];
        for c in bad {
            assert!(ContextSteering::new(c).is_err(), "{c:?}");
        }
        let text = ron::to_string(&ContextConfig::default()).unwrap();
        let back: ContextConfig = ron::from_str(&text).unwrap();
        assert_eq!(back, ContextConfig::default());
        let partial: ContextConfig = ron::from_str("(slots: 32, combine: Multiply)").unwrap();
        assert_eq!(partial.slots, 32);
        assert_eq!(partial.damping, 0.5);
    }
}
