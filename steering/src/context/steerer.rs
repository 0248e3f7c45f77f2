//! [`ContextSteering`]: configuration, the maps of the last frame and the time-sliced decision of
//! one body, and the `steer` call that runs the evaluators and turns the decision into a force.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::config::ContextConfig;
use super::decision::{Decision, combine, decide, favour};
use super::evaluators::{
    dispersion, dispersion_validity, seek, separation_vector, static_obstacles,
};
use super::map::{ContextMap, MAX_SLOTS, MIN_SLOTS, unit};
use super::prediction::{PredictionParams, moving_bodies};
use super::speed::{arrive_speed, clearance_speed};
use super::timeslice::{SliceClock, Validity};
use crate::body::Body;
use crate::error::SteeringError;
use crate::geometry::{CircleObstacle, Wall};
use crate::vector::finite_or_zero;

/// Context steering for one body: the configuration, last frame's interest, danger and decision
/// maps (damped into the next frame), and the cached, time-sliced decision. Serializable; the
/// buffers are allocated once and reused by every [`steer`](Self::steer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextSteering {
    config: ContextConfig,
    interest: ContextMap,
    danger: ContextMap,
    decision: ContextMap,
    /// Copy of last frame's map while the new one is damped from it (not state).
    #[serde(skip, default = "scratch_map")]
    scratch: ContextMap,
    choice: Option<Decision>,
    /// The steered direction: turns towards the decision by the turn factor on every call.
    direction: Option<Vec2>,
    speed_scale: f32,
    clock: SliceClock,
}

/// Speed score kept when the decision points straight against the current motion.
const MIN_TURN_SPEED: f32 = 0.25;

fn scratch_map() -> ContextMap {
    ContextMap::with_slots_clamped(MIN_SLOTS)
}

impl Default for ContextSteering {
    /// Steering with [`ContextConfig::default`].
    fn default() -> Self {
        Self::build(ContextConfig::default())
    }
}

impl ContextSteering {
    /// Steering with a validated configuration.
    pub fn new(config: ContextConfig) -> Result<Self, SteeringError> {
        config.validate()?;
        Ok(Self::build(config))
    }

    fn build(config: ContextConfig) -> Self {
        let map = ContextMap::with_slots_clamped(config.slots);
        Self {
            config,
            interest: map.clone(),
            danger: map.clone(),
            scratch: map.clone(),
            decision: map,
            choice: None,
            direction: None,
            speed_scale: 0.0,
            clock: SliceClock::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ContextConfig {
        &self.config
    }

    /// Replaces the configuration (validated); the maps are rebuilt if the slot count changed,
    /// and the next call re-steers.
    pub fn set_config(&mut self, config: ContextConfig) -> Result<(), SteeringError> {
        config.validate()?;
        self.config = config;
        self.ensure_layout();
        self.clock.invalidate();
        Ok(())
    }

    /// Interest map of the last evaluation.
    pub fn interest(&self) -> &ContextMap {
        &self.interest
    }

    /// Danger map of the last evaluation.
    pub fn danger(&self) -> &ContextMap {
        &self.danger
    }

    /// Decision map of the last evaluation.
    pub fn decision(&self) -> &ContextMap {
        &self.decision
    }

    /// The cached decision (`None`: nothing worth moving for, the body brakes).
    pub fn choice(&self) -> Option<Decision> {
        self.choice
    }

    /// The direction the body is being steered in (lags the decision by the turn factor).
    pub fn steered_direction(&self) -> Option<Vec2> {
        self.direction
    }

    /// The cached speed score in `[0, 1]` (fraction of top speed).
    pub fn speed_scale(&self) -> f32 {
        self.speed_scale
    }

    /// The time-slicing clock (how long the cached decision is valid, evaluations so far).
    pub fn clock(&self) -> &SliceClock {
        &self.clock
    }

    /// Makes the next [`steer`](Self::steer) evaluate again (e.g. after a new order).
    pub fn invalidate(&mut self) {
        self.clock.invalidate();
    }

    fn ensure_layout(&mut self) {
        let n = self.config.slots.clamp(MIN_SLOTS, MAX_SLOTS);
        for map in [&mut self.interest, &mut self.danger, &mut self.decision] {
            if map.slot_count() != n {
                *map = ContextMap::with_slots_clamped(n);
            }
        }
    }

    /// The steering force towards `goal` around `obstacles`, `walls` and `movers` (neighbouring
    /// bodies, not including `body`; one at `body`'s exact position is ignored), after `dt`
    /// seconds since the last call. Re-evaluates the maps only when the cached decision's
    /// validity has run out; otherwise turns towards the cached decision. The force is
    /// `desired velocity − velocity` (not truncated). The desired velocity points along the
    /// steered direction, which every call lerps from its previous value (at first the direction
    /// of motion) towards the decision by the turn factor; its speed is top speed × the cached
    /// speed score × a turn score (`(1 + cos θ) / 2` for the angle θ between the motion and the
    /// decision, at least 0.25: slow down to turn). With no decision the body brakes
    /// (`−velocity`).
    pub fn steer(
        &mut self,
        body: &Body,
        goal: Vec2,
        obstacles: &[CircleObstacle],
        walls: &[Wall],
        movers: &[Body],
        dt: f32,
    ) -> Vec2 {
        if !body.position.is_finite() || !body.velocity.is_finite() {
            return Vec2::ZERO;
        }
        if self.clock.advance(dt) {
            self.evaluate(body, goal, obstacles, walls, movers);
        }
        self.force(body)
    }

    /// Runs every evaluator, combines, decides and restarts the clock.
    fn evaluate(
        &mut self,
        body: &Body,
        goal: Vec2,
        obstacles: &[CircleObstacle],
        walls: &[Wall],
        movers: &[Body],
    ) {
        self.ensure_layout();
        let cfg = self.config;
        let goal = if goal.is_finite() {
            goal
        } else {
            body.position
        };
        for map in [&mut self.interest, &mut self.danger] {
            self.scratch.clone_from(map);
            map.align_to_goal(body.position, goal, body.heading);
            map.damp_from(&self.scratch, cfg.damping);
        }
        let mut validity = Validity::forever();
        let distance_to_goal = (goal - body.position).length();
        if distance_to_goal > cfg.arrive_distance {
            validity.include(seek(&mut self.interest, body, goal, cfg.backward_interest));
        }
        validity.include(static_obstacles(
            &mut self.danger,
            body,
            obstacles,
            walls,
            cfg.look_distance,
            cfg.clearance,
        ));
        let params = PredictionParams {
            look_distance: cfg.look_distance,
            horizon: cfg.prediction_horizon,
            margin: cfg.collision_margin,
        };
        validity.include(moving_bodies(&mut self.danger, body, movers, &params));
        if cfg.separation_weight > 0.0 && distance_to_goal > cfg.arrive_distance {
            let sep = separation_vector(body, movers, cfg.separation_radius);
            dispersion(&mut self.interest, sep * cfg.separation_weight);
            validity.include(dispersion_validity(body, movers, cfg.separation_radius));
        }
        // Danger nearer than the stopping distance (plus a little) blocks a slot outright.
        let decel = body.max_force / body.mass.max(f32::EPSILON);
        let stopping = if decel > 0.0 {
            body.velocity.length_squared() / (2.0 * decel)
        } else {
            0.0
        };
        combine(
            &self.interest,
            &self.danger,
            cfg.combine,
            stopping + cfg.clearance,
            &mut self.decision,
        );
        if let Some(dir) = self.direction {
            // Fades out on arrival, where committing to a direction means overshooting.
            let weight = cfg.persistence * arrive_speed(distance_to_goal, cfg.slowing_radius);
            favour(&mut self.decision, dir, weight);
        }
        self.choice = decide(&self.decision, cfg.interpolation);
        self.speed_scale = match self.choice {
            Some(choice) => {
                // Danger where we are going and where we are heading now: slow for both.
                let (danger_choice, _) = self.danger.sample(choice.direction);
                let danger_motion = body
                    .velocity
                    .try_normalize()
                    .map_or(0.0, |v| self.danger.sample(v).0);
                let danger_ahead = danger_choice.max(danger_motion);
                arrive_speed(distance_to_goal, cfg.slowing_radius)
                    .min(clearance_speed(danger_ahead, cfg.danger_slowdown))
            }
            None => 0.0,
        };
        self.clock.restart(validity.seconds().min(cfg.max_validity));
    }

    /// The force from the cached decision, the steered direction and the body's motion.
    fn force(&mut self, body: &Body) -> Vec2 {
        let Some(choice) = self.choice else {
            self.direction = None;
            return finite_or_zero(-body.velocity);
        };
        let motion = body
            .velocity
            .try_normalize()
            .or_else(|| body.heading.try_normalize())
            .unwrap_or(choice.direction);
        let current = self.direction.unwrap_or(motion);
        let turn = unit(self.config.turn_factor);
        let dir = current
            .lerp(choice.direction, turn)
            .try_normalize()
            .unwrap_or(choice.direction);
        self.direction = Some(dir);
        // Slow down to turn: full speed when moving along the decision, half when it is square
        // to the motion, a floor so a body facing away still gets going.
        let turn_speed = (0.5 + 0.5 * motion.dot(choice.direction)).max(MIN_TURN_SPEED);
        let desired = dir * body.max_speed * unit(self.speed_scale) * turn_speed;
        finite_or_zero(body.steer_towards_velocity(desired))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_field_steers_straight_at_the_goal() {
        let mut s = ContextSteering::default();
        let body = Body::default().facing(Vec2::Y);
        let f = s.steer(&body, Vec2::new(0.0, 10.0), &[], &[], &[], 1.0 / 60.0);
        // Full speed (3) straight up from rest.
        assert!((f - Vec2::new(0.0, 3.0)).length() < 1e-4, "{f}");
        let choice = s.choice().unwrap();
        assert!((choice.direction - Vec2::Y).length() < 1e-4);
        assert!((s.interest().alignment() - Vec2::Y).length() < 1e-6);
    }

    #[test]
    fn gentle_turn_lerps_from_current_motion() {
        let cfg = ContextConfig {
            turn_factor: 0.5,
            ..Default::default()
        };
        let mut s = ContextSteering::new(cfg).unwrap();
        let body = Body::default().moving(Vec2::new(3.0, 0.0));
        let f = s.steer(&body, Vec2::new(0.0, 10.0), &[], &[], &[], 1.0 / 60.0);
        let desired = f + body.velocity;
        // Halfway between +x and +y: 45°, at half speed (decision square to the motion).
        assert!((desired.normalize() - Vec2::new(1.0, 1.0).normalize()).length() < 1e-3);
        assert!((desired.length() - 1.5).abs() < 1e-3);
        // Next call turns on from the steered direction: 67.5°.
        s.steer(&body, Vec2::new(0.0, 10.0), &[], &[], &[], 1.0 / 60.0);
        let dir = s.steered_direction().unwrap();
        let angle = crate::ops::angle_between(Vec2::X, dir);
        assert!(
            (angle - 1.5 * core::f32::consts::FRAC_PI_4).abs() < 1e-3,
            "{angle}"
        );
    }

    #[test]
    fn arrived_or_degenerate_goal_brakes() {
        let mut s = ContextSteering::default();
        let body = Body::default().moving(Vec2::new(1.0, 0.5));
        let f = s.steer(&body, Vec2::new(0.01, 0.0), &[], &[], &[], 0.1);
        assert_eq!(f, -body.velocity);
        s.invalidate();
        let f = s.steer(&body, Vec2::new(f32::NAN, 1.0), &[], &[], &[], 0.1);
        assert_eq!(f, -body.velocity);
        let broken = Body {
            position: Vec2::new(f32::INFINITY, 0.0),
            ..body
        };
        assert_eq!(s.steer(&broken, Vec2::ONE, &[], &[], &[], 0.1), Vec2::ZERO);
    }

    #[test]
    fn slows_inside_slowing_radius() {
        let mut s = ContextSteering::default();
        let body = Body::default();
        let f = s.steer(&body, Vec2::new(1.0, 0.0), &[], &[], &[], 0.1);
        // 1 of 2 → half of top speed 3.
        assert!((f - Vec2::new(1.5, 0.0)).length() < 1e-4, "{f}");
    }

    #[test]
    fn re_evaluates_only_after_validity() {
        let cfg = ContextConfig {
            max_validity: 0.125,
            ..Default::default()
        };
        let mut s = ContextSteering::new(cfg).unwrap();
        let body = Body::default();
        let goal = Vec2::new(50.0, 0.0); // seek valid for 50/3/4 s: the cap decides
        let dt = 1.0 / 64.0;
        let mut evaluated_at = Vec::new();
        for frame in 0..20 {
            let before = s.clock().evaluations;
            s.steer(&body, goal, &[], &[], &[], dt);
            if s.clock().evaluations > before {
                evaluated_at.push(frame);
            }
        }
        assert_eq!(evaluated_at, vec![0, 8, 16]);
        // A nearby obstacle shortens the validity: hit at 2 − 1.25 → 0.5 × 0.75 / 3 s.
        let near = CircleObstacle::new(Vec2::new(2.0, 0.0), 0.5).unwrap();
        let cfg = ContextConfig {
            max_validity: 1.0,
            ..Default::default()
        };
        let mut s = ContextSteering::new(cfg).unwrap();
        s.steer(&body, goal, &[near], &[], &[], dt);
        assert!(
            (s.clock().valid_for - 0.125).abs() < 1e-5,
            "{}",
            s.clock().valid_for
        );
        // Cached: the maps do not change while valid, even if the world does.
        let danger_before = s.danger().clone();
        s.steer(&body, goal, &[], &[], &[], dt);
        assert_eq!(s.danger(), &danger_before);
        assert_eq!(s.clock().evaluations, 1);
    }

    #[test]
    fn damping_carries_danger_into_the_next_frame() {
        let cfg = ContextConfig {
            damping: 0.5,
            max_validity: 0.0,
            ..Default::default()
        };
        let mut s = ContextSteering::new(cfg).unwrap();
        let body = Body::default();
        let goal = Vec2::new(20.0, 0.0);
        let wall = CircleObstacle::new(Vec2::new(3.5, 0.0), 0.5).unwrap();
        s.steer(&body, goal, &[wall], &[], &[], 0.1);
        let first = s.danger().value(0);
        // Inflated by body radius and clearance to 1.25: hit at 2.25 of 5.
        assert!((first - 0.55).abs() < 1e-5);
        s.steer(&body, goal, &[], &[], &[], 0.1);
        assert!((s.danger().value(0) - 0.275).abs() < 1e-5);
        s.steer(&body, goal, &[], &[], &[], 0.1);
        assert!((s.danger().value(0) - 0.1375).abs() < 1e-5);
        let text = ron::to_string(&s).unwrap();
        let back: ContextSteering = ron::from_str(&text).unwrap();
        assert_eq!(back.danger(), s.danger());
        assert_eq!(back.clock(), s.clock());
    }
}
