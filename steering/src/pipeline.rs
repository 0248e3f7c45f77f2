//! The steering pipeline (Millington's cooperative arbitration).
//!
//! Four stages: **targeters** say where the top-level goal is (each fills some channels of a
//! [`Goal`]; later targeters override the channels they set), **decomposers** turn it into a
//! nearer sub-goal (e.g. the next waypoint of a path), **constraints** check the path the
//! actuator would take and may propose a new goal (e.g. beside an obstacle), for at most
//! `max_constraint_iterations` rounds, and the **actuator** turns the final goal into a force.
//! When no goal satisfies every constraint the `fallback` behaviour steers instead.
//!
//! The stages are boxed trait objects built once; a run allocates nothing. They may read a
//! caller context `C` (the world state: moving targets, dynamic obstacles).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::body::Body;
use crate::geometry::{CircleObstacle, closest_point_on_segment, segment_hits_circle};
use crate::vector::{finite_or_zero, truncate};

/// What a character wants this tick; every channel is optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Goal {
    /// Where to be.
    pub position: Option<Vec2>,
    /// Which way to face (a unit heading); carried for the caller, the basic actuator ignores it.
    pub orientation: Option<Vec2>,
    /// How fast to be moving there (`Some(ZERO)` means arrive and stop).
    pub velocity: Option<Vec2>,
}

impl Goal {
    /// A goal with only a position: go there at full speed.
    pub fn at(position: Vec2) -> Self {
        Self {
            position: Some(position),
            ..Self::default()
        }
    }

    /// A goal to arrive and stop at `position` (position plus zero velocity).
    pub fn arrive_at(position: Vec2) -> Self {
        Self {
            velocity: Some(Vec2::ZERO),
            ..Self::at(position)
        }
    }

    /// Whether no channel is set.
    pub fn is_empty(&self) -> bool {
        self.position.is_none() && self.orientation.is_none() && self.velocity.is_none()
    }

    /// Takes every channel `later` sets (non-finite values are ignored); keeps the others.
    pub fn merge(&mut self, later: &Goal) {
        let pick = |mine: &mut Option<Vec2>, theirs: Option<Vec2>| {
            if let Some(v) = theirs.filter(|v| v.is_finite()) {
                *mine = Some(v);
            }
        };
        pick(&mut self.position, later.position);
        pick(&mut self.orientation, later.orientation);
        pick(&mut self.velocity, later.velocity);
    }
}

/// The straight line an actuator intends to follow towards a goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlannedPath {
    /// Where the body is.
    pub start: Vec2,
    /// Where the actuator heads.
    pub end: Vec2,
}

/// A constraint's answer about a planned path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The path is fine.
    Satisfied,
    /// The path is not fine; try this goal instead.
    Suggest(Goal),
    /// No goal close to this one can be fine (e.g. the goal is inside an obstacle).
    Unsatisfiable,
}

/// Stage 1: where the top-level goal is.
pub trait Targeter<C: ?Sized = ()> {
    /// The channels this targeter sets.
    fn goal(&self, body: &Body, ctx: &C) -> Goal;
}

/// Stage 2: turns a goal into a nearer sub-goal.
pub trait Decomposer<C: ?Sized = ()> {
    /// The sub-goal for `goal`.
    fn decompose(&self, body: &Body, ctx: &C, goal: Goal) -> Goal;
}

/// Stage 3: limits how a goal may be reached.
pub trait Constraint<C: ?Sized = ()> {
    /// Checks the path the actuator would take towards `goal`.
    fn check(&self, body: &Body, ctx: &C, path: &PlannedPath, goal: &Goal) -> Verdict;
}

/// Stage 4: turns a goal into a force within the body's limits.
pub trait Actuator {
    /// The path the body would take towards `goal`.
    fn plan(&self, body: &Body, goal: &Goal) -> PlannedPath;
    /// The steering force towards `goal` (at most `body.max_force`).
    fn force(&self, body: &Body, goal: &Goal) -> Vec2;
}

/// A targeter with a fixed goal (set its field to move it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GoalTargeter {
    /// The goal it reports.
    pub goal: Goal,
}

impl<C: ?Sized> Targeter<C> for GoalTargeter {
    fn goal(&self, _: &Body, _: &C) -> Goal {
        self.goal
    }
}

/// A targeter chasing something in the context: `target(ctx)` gives its position and velocity
/// (`None` when there is nothing to chase); the goal position is where it will be after
/// `lead_time` seconds.
pub struct ChaseTargeter<F> {
    /// Reads the chased thing's `(position, velocity)` from the context.
    pub target: F,
    /// Seconds of prediction.
    pub lead_time: f32,
}

impl<C: ?Sized, F: Fn(&C) -> Option<(Vec2, Vec2)>> Targeter<C> for ChaseTargeter<F> {
    fn goal(&self, _: &Body, ctx: &C) -> Goal {
        match (self.target)(ctx) {
            Some((p, v)) => Goal::at(p + finite_or_zero(v * self.lead_time.max(0.0))),
            None => Goal::default(),
        }
    }
}

/// A decomposer following a polyline: the sub-goal is the next waypoint after the path segment
/// nearest the body (the one after that once within `reach_radius`). The goal's own position,
/// when set, is the path's last point; only the last point keeps the goal's velocity.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PathDecomposer {
    /// The waypoints, in order.
    pub waypoints: Vec<Vec2>,
    /// Distance at which a waypoint counts as reached.
    pub reach_radius: f32,
}

impl<C: ?Sized> Decomposer<C> for PathDecomposer {
    fn decompose(&self, body: &Body, _: &C, goal: Goal) -> Goal {
        let len = self.waypoints.len() + usize::from(goal.position.is_some());
        let point = |k: usize| self.waypoints.get(k).copied().or(goal.position);
        let mut next = 0;
        let mut best = f32::INFINITY;
        for k in 1..len {
            if let (Some(a), Some(b)) = (point(k - 1), point(k)) {
                let d = (closest_point_on_segment(body.position, a, b) - body.position).length();
                if d < best {
                    best = d;
                    next = k;
                }
            }
        }
        let reached =
            |k: usize| point(k).is_some_and(|p| (p - body.position).length() <= self.reach_radius);
        if next + 1 < len && reached(next) {
            next += 1;
        }
        match point(next) {
            Some(p) if next + 1 < len => Goal {
                position: Some(p),
                velocity: None,
                ..goal
            },
            Some(p) => Goal {
                position: Some(p),
                ..goal
            },
            None => goal,
        }
    }
}

/// Keeps the body's centre `obstacle radius + body radius + margin` away from every obstacle.
/// If the planned line passes closer, suggests a sub-goal beside the first such obstacle: on
/// the tangent from the body, past the tangent point, on the side the line already passes (for
/// a line through the centre, the side the body is drifting to, else its left). A goal inside
/// that clearance is unsatisfiable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AvoidObstacles {
    /// The obstacles.
    pub obstacles: Vec<CircleObstacle>,
    /// Extra clearance.
    pub margin: f32,
}

/// How much further than the clearance the detour aims.
const DETOUR_SLACK: f32 = 1.02;

impl AvoidObstacles {
    fn clearance(&self, body: &Body, o: &CircleObstacle) -> f32 {
        o.radius + body.radius + self.margin.max(0.0)
    }

    /// The sub-goal beside `o` for the line `path`.
    fn detour(&self, body: &Body, path: &PlannedPath, o: &CircleObstacle) -> Vec2 {
        let r = self.clearance(body, o) * DETOUR_SLACK;
        let u = (path.end - path.start).normalize_or(body.heading);
        let offset = path.start - o.center;
        let dist = offset.length();
        let w = offset.normalize_or(-u);
        if dist <= r {
            // Too close for a tangent: step straight out.
            return o.center + w * r;
        }
        let cross = u.perp_dot(o.center - path.start);
        let drift = u.perp_dot(body.velocity);
        let side = if cross.abs() > 1e-6 * dist {
            -cross.signum()
        } else if drift.abs() > 1e-6 {
            drift.signum()
        } else {
            1.0
        };
        let (cos, sin) = (r / dist, (1.0 - (r / dist).powi(2)).max(0.0).sqrt());
        let candidates = [w * cos + w.perp() * sin, w * cos - w.perp() * sin];
        let left = u.perp() * side;
        let dir = if candidates[0].dot(left) >= candidates[1].dot(left) {
            candidates[0]
        } else {
            candidates[1]
        };
        let tangent = o.center + dir * r;
        tangent + (tangent - path.start).normalize_or_zero() * r
    }
}

impl<C: ?Sized> Constraint<C> for AvoidObstacles {
    fn check(&self, body: &Body, _: &C, path: &PlannedPath, goal: &Goal) -> Verdict {
        let mut first: Option<(f32, &CircleObstacle)> = None;
        for o in &self.obstacles {
            let r = self.clearance(body, o);
            if goal.position.is_some_and(|g| (g - o.center).length() < r) {
                return Verdict::Unsatisfiable;
            }
            if !segment_hits_circle(path.start, path.end, o.center, r) {
                continue;
            }
            let inside = (path.start - o.center).length() < r;
            if inside && (path.end - path.start).dot(path.start - o.center) >= 0.0 {
                continue; // Already too close but moving away: fine.
            }
            let along =
                (closest_point_on_segment(o.center, path.start, path.end) - path.start).length();
            if first.is_none_or(|(best, _)| along < best) {
                first = Some((along, o));
            }
        }
        match first {
            None => Verdict::Satisfied,
            Some((_, o)) => Verdict::Suggest(Goal {
                position: Some(self.detour(body, path, o)),
                velocity: None,
                ..*goal
            }),
        }
    }
}

/// Seeks the goal position at full speed, or arrives there matching the goal velocity when one
/// is set (slowing down linearly inside `slowing_radius`); with only a velocity, matches it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BasicActuator {
    /// Distance from the goal at which arriving starts slowing down.
    pub slowing_radius: f32,
    /// Seconds ahead a velocity-only goal is planned.
    pub lookahead: f32,
}

impl Default for BasicActuator {
    /// Slowing radius 2, lookahead 1 s.
    fn default() -> Self {
        Self {
            slowing_radius: 2.0,
            lookahead: 1.0,
        }
    }
}

impl Actuator for BasicActuator {
    fn plan(&self, body: &Body, goal: &Goal) -> PlannedPath {
        let ahead = goal.velocity.unwrap_or(Vec2::ZERO) * self.lookahead;
        let end = goal.position.unwrap_or(body.position + ahead);
        PlannedPath {
            start: body.position,
            end: if end.is_finite() { end } else { body.position },
        }
    }

    fn force(&self, body: &Body, goal: &Goal) -> Vec2 {
        let desired = match (goal.position, goal.velocity) {
            (Some(p), arrive) => {
                let to = p - body.position;
                let full = to.normalize_or_zero() * body.max_speed;
                match arrive {
                    Some(v) if to.length() < self.slowing_radius => {
                        let k = to.length() / self.slowing_radius;
                        full * k + v * (1.0 - k)
                    }
                    _ => full,
                }
            }
            (None, Some(v)) => v,
            (None, None) => return Vec2::ZERO,
        };
        truncate(
            body.steer_towards_velocity(finite_or_zero(desired)),
            body.max_force,
        )
    }
}

/// The fallback when no goal satisfies the constraints: a force from the body and context.
pub type Fallback<C> = Box<dyn Fn(&Body, &C) -> Vec2>;

/// Brake: the force that cancels the current velocity, truncated to max force.
pub fn brake(body: &Body) -> Vec2 {
    truncate(-body.velocity, body.max_force)
}

/// How a pipeline run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The actuator steered, after this many constraint rounds (0 without constraints).
    Actuated {
        /// Rounds of planning and checking used.
        rounds: usize,
    },
    /// No goal satisfied the constraints; the fallback steered.
    Fallback,
}

/// The result of a run, for callers and debug drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineOutput {
    /// The steering force (at most `body.max_force`).
    pub force: Vec2,
    /// The last goal considered.
    pub goal: Goal,
    /// How the run ended.
    pub outcome: Outcome,
}

/// A steering pipeline: targeters → decomposers → constraints → actuator, with a fallback.
pub struct SteeringPipeline<C: ?Sized = ()> {
    /// Fill the goal, in order (later ones override channels they set).
    pub targeters: Vec<Box<dyn Targeter<C>>>,
    /// Refine the goal, in order.
    pub decomposers: Vec<Box<dyn Decomposer<C>>>,
    /// Checked in order each round; the first violation's suggestion starts the next round.
    pub constraints: Vec<Box<dyn Constraint<C>>>,
    /// Turns the final goal into a force.
    pub actuator: Box<dyn Actuator>,
    /// Steers when no goal satisfies the constraints (default: [`brake`]).
    pub fallback: Fallback<C>,
    /// Most rounds of plan-and-check before giving up (default 8).
    pub max_constraint_iterations: usize,
}

impl<C: ?Sized> SteeringPipeline<C> {
    /// A pipeline with only an actuator, braking as fallback, 8 constraint rounds.
    pub fn new(actuator: impl Actuator + 'static) -> Self {
        Self {
            targeters: Vec::new(),
            decomposers: Vec::new(),
            constraints: Vec::new(),
            actuator: Box::new(actuator),
            fallback: Box::new(|b, _| brake(b)),
            max_constraint_iterations: 8,
        }
    }

    /// Adds a targeter after the existing ones.
    pub fn with_targeter(mut self, t: impl Targeter<C> + 'static) -> Self {
        self.targeters.push(Box::new(t));
        self
    }

    /// Adds a decomposer after the existing ones.
    pub fn with_decomposer(mut self, d: impl Decomposer<C> + 'static) -> Self {
        self.decomposers.push(Box::new(d));
        self
    }

    /// Adds a constraint after the existing ones.
    pub fn with_constraint(mut self, c: impl Constraint<C> + 'static) -> Self {
        self.constraints.push(Box::new(c));
        self
    }

    /// Replaces the fallback.
    pub fn with_fallback(mut self, f: impl Fn(&Body, &C) -> Vec2 + 'static) -> Self {
        self.fallback = Box::new(f);
        self
    }

    /// Sets the bound on constraint rounds.
    pub fn with_max_constraint_iterations(mut self, n: usize) -> Self {
        self.max_constraint_iterations = n;
        self
    }

    /// The steering force this tick.
    pub fn steer(&self, body: &Body, ctx: &C) -> Vec2 {
        self.run(body, ctx).force
    }

    /// Runs every stage and reports how it went.
    pub fn run(&self, body: &Body, ctx: &C) -> PipelineOutput {
        let mut goal = Goal::default();
        for t in &self.targeters {
            goal.merge(&t.goal(body, ctx));
        }
        for d in &self.decomposers {
            goal = d.decompose(body, ctx, goal);
        }
        let actuated = |goal: Goal, rounds| PipelineOutput {
            force: truncate(self.actuator.force(body, &goal), body.max_force),
            goal,
            outcome: Outcome::Actuated { rounds },
        };
        if self.constraints.is_empty() {
            return actuated(goal, 0);
        }
        'rounds: for round in 1..=self.max_constraint_iterations {
            let path = self.actuator.plan(body, &goal);
            for c in &self.constraints {
                match c.check(body, ctx, &path, &goal) {
                    Verdict::Satisfied => {}
                    Verdict::Suggest(next) => {
                        goal = next;
                        continue 'rounds;
                    }
                    Verdict::Unsatisfiable => break 'rounds,
                }
            }
            return actuated(goal, round);
        }
        PipelineOutput {
            force: truncate(finite_or_zero((self.fallback)(body, ctx)), body.max_force),
            goal,
            outcome: Outcome::Fallback,
        }
    }
}

#[cfg(test)]
mod tests;
