//! Jump links: designer jump points with a minimum velocity, and jump points paired with landing
//! pads whose take-off velocity comes from trajectory prediction with the unit's own limits.
//!
//! The world is 2D with a height per jump end: a unit runs on the plane, takes off at
//! `takeoff` (height `takeoff_height`) with a horizontal velocity and a vertical speed, flies a
//! ballistic arc under `gravity` and comes down at the landing height. Steering reaches the
//! take-off point at the required velocity through a [`VelocityTarget`] (velocity matching), and
//! the world emits a [`JumpEvent`] when the unit leaves the ground.

use core::fmt;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{PathingError, coord, finite, finite_vec, length_in, positive};

/// Where a jump comes down.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LandingPad {
    /// Centre of the landing area.
    pub center: Vec2,
    /// Radius of the landing area.
    pub radius: f32,
    /// Ground height of the landing area.
    pub height: f32,
}

/// How the take-off velocity of a jump link is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum TakeOff {
    /// Computed per unit by trajectory prediction to come down on the pad's centre.
    #[default]
    Predicted,
    /// Set by the level designer: the horizontal take-off velocity (direction and minimum
    /// speed). A unit that cannot run that fast does not take the jump.
    Designer {
        /// The horizontal velocity needed at take-off.
        min_velocity: Vec2,
    },
}

/// A jump point and where it lands: an edge of kind [`crate::EdgeKind::Jump`] in the graph,
/// one-way from `takeoff` to the pad.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpLink {
    /// The take-off point (the jump point).
    pub takeoff: Vec2,
    /// Ground height at the take-off point.
    pub takeoff_height: f32,
    /// The landing pad.
    pub pad: LandingPad,
    /// How the take-off velocity is chosen.
    pub velocity: TakeOff,
}

impl JumpLink {
    /// Checks the numbers: finite points and heights, a positive pad radius, a finite non-zero
    /// designer velocity.
    pub fn check(&self) -> Result<(), PathingError> {
        coord("jump takeoff", self.takeoff)?;
        finite("jump takeoff height", self.takeoff_height)?;
        coord("landing pad center", self.pad.center)?;
        length_in(
            "landing pad radius",
            self.pad.radius,
            0.0,
            cohort_steering::limits::MAX_COORD,
            "(0, 1e6]",
        )?;
        finite("landing pad height", self.pad.height)?;
        if let TakeOff::Designer { min_velocity } = self.velocity {
            finite_vec("jump min velocity", min_velocity)?;
            positive("jump min speed", min_velocity.length())?;
        }
        Ok(())
    }
}

/// What a unit's body can do in a jump.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpAbility {
    /// Top horizontal (running) speed, kept through the flight.
    pub max_run_speed: f32,
    /// Vertical speed at take-off (the jump's strength).
    pub jump_speed: f32,
    /// Downward acceleration.
    pub gravity: f32,
}

impl Default for JumpAbility {
    /// A soldier: runs at 6, jumps at 5, under 9.81.
    fn default() -> Self {
        Self {
            max_run_speed: 6.0,
            jump_speed: 5.0,
            gravity: 9.81,
        }
    }
}

impl JumpAbility {
    /// A validated ability: every value finite and positive.
    pub fn new(max_run_speed: f32, jump_speed: f32, gravity: f32) -> Result<Self, PathingError> {
        let a = Self {
            max_run_speed,
            jump_speed,
            gravity,
        };
        a.check()?;
        Ok(a)
    }

    /// Checks every value: finite and positive.
    pub fn check(&self) -> Result<(), PathingError> {
        positive("max run speed", self.max_run_speed)?;
        positive("jump speed", self.jump_speed)?;
        positive("gravity", self.gravity)?;
        Ok(())
    }

    /// Time in the air of a jump that comes down `drop` lower than it started (negative `drop`
    /// for a jump up); `None` when the unit cannot rise that high.
    pub fn flight_time(&self, rise: f32) -> Option<f32> {
        let disc = self.jump_speed * self.jump_speed - 2.0 * self.gravity * rise;
        if disc.is_nan() || disc < 0.0 || self.gravity.is_nan() || self.gravity <= 0.0 {
            return None;
        }
        // The later root: the unit lands on the way down.
        Some((self.jump_speed + disc.sqrt()) / self.gravity)
    }

    /// How far the unit can leap on flat ground at full speed.
    pub fn flat_range(&self) -> f32 {
        self.flight_time(0.0)
            .map_or(0.0, |t| t * self.max_run_speed)
    }
}

/// Why a unit refuses a jump.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum JumpRefusal {
    /// The landing is higher than the unit can rise.
    TooHigh {
        /// Height of the landing above the take-off.
        rise: f32,
        /// The highest the unit can rise.
        max_rise: f32,
    },
    /// The landing is farther than the unit can fly at its top speed.
    TooFar {
        /// Horizontal speed the jump needs.
        required_speed: f32,
        /// The unit's top speed.
        max_speed: f32,
    },
    /// The unit cannot be given the value it needs (non-finite or non-positive ability).
    InvalidAbility,
}

impl fmt::Display for JumpRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooHigh { rise, max_rise } => {
                write!(
                    f,
                    "landing {rise} higher, the unit rises at most {max_rise}"
                )
            }
            Self::TooFar {
                required_speed,
                max_speed,
            } => write!(
                f,
                "needs speed {required_speed}, the unit runs at most {max_speed}"
            ),
            Self::InvalidAbility => write!(f, "invalid jump ability"),
        }
    }
}

/// What steering needs to reach a point at a given velocity (velocity matching).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VelocityTarget {
    /// Where to be.
    pub position: Vec2,
    /// The velocity to have there.
    pub velocity: Vec2,
}

/// A planned jump: how to take off and where the unit will come down.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpPlan {
    /// The take-off point.
    pub takeoff: Vec2,
    /// Horizontal take-off velocity.
    pub velocity: Vec2,
    /// Vertical take-off speed.
    pub vertical_speed: f32,
    /// Time in the air.
    pub flight_time: f32,
    /// Predicted touch-down point.
    pub landing: Vec2,
}

/// What started a jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum JumpSource {
    /// A jump link of the map (index into [`crate::Map::jump_links`]).
    Link(usize),
    /// A jumpable gap of the map (index into [`crate::Map::gaps`]).
    Gap(usize),
}

/// Emitted by the world when a unit leaves the ground.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpEvent {
    /// What the unit jumps over or along.
    pub source: JumpSource,
    /// Where it took off.
    pub position: Vec2,
    /// Its horizontal velocity, kept during the flight.
    pub velocity: Vec2,
    /// Its vertical take-off speed.
    pub vertical_speed: f32,
    /// Time until it lands.
    pub flight_time: f32,
    /// Where it will land.
    pub landing: Vec2,
}

/// Plans the jump of a link for a unit: the take-off velocity for a designer jump point (refused
/// when the unit is too slow), or by trajectory prediction for a landing pad: the unit jumps at
/// its full vertical speed, the flight time follows from the height difference and gravity, and
/// the horizontal speed is what covers the distance in that time (refused when higher than the
/// unit can rise or faster than it can run).
pub fn plan_jump(link: &JumpLink, ability: &JumpAbility) -> Result<JumpPlan, JumpRefusal> {
    if ability.check().is_err() {
        return Err(JumpRefusal::InvalidAbility);
    }
    let rise = link.pad.height - link.takeoff_height;
    let flight_time = ability.flight_time(rise).ok_or(JumpRefusal::TooHigh {
        rise,
        max_rise: ability.jump_speed * ability.jump_speed / (2.0 * ability.gravity),
    })?;
    let velocity = match link.velocity {
        TakeOff::Designer { min_velocity } => min_velocity,
        TakeOff::Predicted => (link.pad.center - link.takeoff) / flight_time,
    };
    let speed = velocity.length();
    if !speed.is_finite() || speed > ability.max_run_speed {
        return Err(JumpRefusal::TooFar {
            required_speed: speed,
            max_speed: ability.max_run_speed,
        });
    }
    Ok(JumpPlan {
        takeoff: link.takeoff,
        velocity,
        vertical_speed: ability.jump_speed,
        flight_time,
        landing: link.takeoff + velocity * flight_time,
    })
}

impl JumpPlan {
    /// The velocity-matching target for steering: be at the take-off point with the take-off
    /// velocity.
    pub fn steering_target(&self) -> VelocityTarget {
        VelocityTarget {
            position: self.takeoff,
            velocity: self.velocity,
        }
    }

    /// Position on the ground plane and height above the take-off `t` seconds after take-off.
    pub fn at(&self, t: f32, gravity: f32) -> (Vec2, f32) {
        let t = t.clamp(0.0, self.flight_time);
        (
            self.takeoff + self.velocity * t,
            self.vertical_speed * t - 0.5 * gravity * t * t,
        )
    }

    /// The jump event when a unit at `position` moving at `velocity` is ready to leave the
    /// ground: within `tolerance` of the take-off point and at least the take-off speed along
    /// the take-off direction (minus 5 %). It jumps with its own velocity (at least the
    /// planned one). `None` while it is not ready.
    pub fn ready(
        &self,
        source: JumpSource,
        position: Vec2,
        velocity: Vec2,
        tolerance: f32,
    ) -> Option<JumpEvent> {
        if (position - self.takeoff).length() > tolerance {
            return None;
        }
        let speed = self.velocity.length();
        let dir = self.velocity.try_normalize();
        let along = dir.map_or(speed, |d| velocity.dot(d));
        if along < speed * 0.95 {
            return None;
        }
        let fly = dir.map_or(Vec2::ZERO, |d| d * along);
        Some(JumpEvent {
            source,
            position,
            velocity: fly,
            vertical_speed: self.vertical_speed,
            flight_time: self.flight_time,
            landing: position + fly * self.flight_time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad_link(to: Vec2, rise: f32) -> JumpLink {
        JumpLink {
            takeoff: Vec2::ZERO,
            takeoff_height: 1.0,
            pad: LandingPad {
                center: to,
                radius: 0.5,
                height: 1.0 + rise,
            },
            velocity: TakeOff::Predicted,
        }
    }

    /// Integrates the flight with small semi-implicit Euler steps until the unit comes down
    /// through the pad's height; returns the touch-down point.
    fn simulate(plan: &JumpPlan, start_height: f32, pad_height: f32, g: f32) -> Vec2 {
        let dt = 1e-4;
        let (mut p, mut h) = (plan.takeoff, start_height);
        let mut vz = plan.vertical_speed;
        for _ in 0..1_000_000 {
            vz -= g * dt;
            p += plan.velocity * dt;
            h += vz * dt;
            if vz < 0.0 && h <= pad_height {
                return p;
            }
        }
        p
    }

    #[test]
    fn predicted_velocity_lands_inside_the_pad() {
        let ability = JumpAbility::default();
        for (to, rise) in [
            (Vec2::new(4.0, 0.0), 0.0),
            (Vec2::new(3.0, 2.0), 0.8),
            (Vec2::new(-2.0, 5.0), -3.0),
            (Vec2::new(0.5, 0.5), 1.2),
        ] {
            let link = pad_link(to, rise);
            let plan = plan_jump(&link, &ability).unwrap();
            assert!(plan.velocity.length() <= ability.max_run_speed);
            let landed = simulate(&plan, link.takeoff_height, link.pad.height, ability.gravity);
            assert!(
                (landed - link.pad.center).length() < link.pad.radius,
                "landed at {landed}, pad {to}"
            );
            assert!((plan.landing - link.pad.center).length() < 1e-4);
        }
    }

    #[test]
    fn flat_jump_numbers() {
        // Vertical 5 under 10: 1 s in the air; 4 m away needs 4 m/s.
        let ability = JumpAbility::new(6.0, 5.0, 10.0).unwrap();
        let plan = plan_jump(&pad_link(Vec2::new(4.0, 0.0), 0.0), &ability).unwrap();
        assert!((plan.flight_time - 1.0).abs() < 1e-6);
        assert!((plan.velocity - Vec2::new(4.0, 0.0)).length() < 1e-5);
        assert!((ability.flat_range() - 6.0).abs() < 1e-5);
        let (p, h) = plan.at(0.5, 10.0);
        assert!((p.x - 2.0).abs() < 1e-6 && (h - 1.25).abs() < 1e-6);
    }

    #[test]
    fn impossible_jumps_are_refused() {
        let ability = JumpAbility::new(6.0, 5.0, 10.0).unwrap();
        // Max rise 1.25.
        assert!(matches!(
            plan_jump(&pad_link(Vec2::new(1.0, 0.0), 2.0), &ability),
            Err(JumpRefusal::TooHigh { .. })
        ));
        // 1 s of flight, 8 m away: needs 8 m/s.
        match plan_jump(&pad_link(Vec2::new(8.0, 0.0), 0.0), &ability) {
            Err(JumpRefusal::TooFar {
                required_speed,
                max_speed,
            }) => {
                assert!((required_speed - 8.0).abs() < 1e-5);
                assert_eq!(max_speed, 6.0);
            }
            other => panic!("{other:?}"),
        }
        let bad = JumpAbility {
            gravity: f32::NAN,
            ..ability
        };
        assert_eq!(
            plan_jump(&pad_link(Vec2::X, 0.0), &bad),
            Err(JumpRefusal::InvalidAbility)
        );
    }

    #[test]
    fn designer_jump_points_need_their_minimum_velocity() {
        let link = JumpLink {
            velocity: TakeOff::Designer {
                min_velocity: Vec2::new(5.0, 0.0),
            },
            ..pad_link(Vec2::new(5.0, 0.0), 0.0)
        };
        let slow = JumpAbility::new(4.0, 5.0, 10.0).unwrap();
        assert!(matches!(
            plan_jump(&link, &slow),
            Err(JumpRefusal::TooFar { .. })
        ));
        let fast = JumpAbility::new(7.0, 5.0, 10.0).unwrap();
        let plan = plan_jump(&link, &fast).unwrap();
        assert_eq!(plan.velocity, Vec2::new(5.0, 0.0));
        assert_eq!(plan.steering_target().velocity, Vec2::new(5.0, 0.0));
    }

    #[test]
    fn jump_event_fires_at_the_takeoff_with_speed() {
        let ability = JumpAbility::new(6.0, 5.0, 10.0).unwrap();
        let plan = plan_jump(&pad_link(Vec2::new(4.0, 0.0), 0.0), &ability).unwrap();
        let src = JumpSource::Link(0);
        assert!(
            plan.ready(src, Vec2::new(-2.0, 0.0), Vec2::new(4.0, 0.0), 0.2)
                .is_none()
        );
        assert!(
            plan.ready(src, Vec2::ZERO, Vec2::new(2.0, 0.0), 0.2)
                .is_none()
        );
        let ev = plan
            .ready(src, Vec2::new(0.1, 0.0), Vec2::new(4.0, 0.0), 0.2)
            .unwrap();
        assert_eq!(ev.source, src);
        assert!((ev.landing - Vec2::new(4.1, 0.0)).length() < 1e-4);
    }
}
