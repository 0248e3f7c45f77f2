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
mod tests {
    use super::*;
    use core::cell::Cell;
    use std::rc::Rc;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    /// Explicit Euler with the body's limits; returns every position visited.
    fn drive(pipeline: &SteeringPipeline, mut body: Body, seconds: f32) -> (Body, Vec<Vec2>) {
        let dt = 1.0 / 30.0;
        let mut trail = vec![body.position];
        for _ in 0..(seconds / dt) as usize {
            let out = pipeline.run(&body, &());
            assert!(out.force.is_finite() && out.force.length() <= body.max_force + 1e-4);
            assert_ne!(out.outcome, Outcome::Fallback, "at {}", body.position);
            body.velocity = truncate(body.velocity + out.force / body.mass * dt, body.max_speed);
            body.position += body.velocity * dt;
            trail.push(body.position);
        }
        (body, trail)
    }

    #[test]
    fn goal_channels_merge() {
        let mut g = Goal::arrive_at(Vec2::ONE);
        g.merge(&Goal {
            position: Some(Vec2::new(f32::NAN, 0.0)),
            orientation: Some(Vec2::Y),
            velocity: None,
        });
        assert_eq!(g.position, Some(Vec2::ONE));
        assert_eq!(
            (g.orientation, g.velocity),
            (Some(Vec2::Y), Some(Vec2::ZERO))
        );
        assert!(Goal::default().is_empty() && !g.is_empty());
        let chase = ChaseTargeter {
            target: |c: &(Vec2, Vec2)| Some(*c),
            lead_time: 0.5,
        };
        let goal = chase.goal(
            &Body::default(),
            &(Vec2::new(4.0, 0.0), Vec2::new(0.0, 2.0)),
        );
        assert_eq!(goal.position, Some(Vec2::new(4.0, 1.0)));
    }

    #[test]
    fn actuator_seeks_arrives_and_truncates() {
        let act = BasicActuator::default();
        let body = Body::default().moving(Vec2::new(0.0, 1.0));
        // Seek: desired (3, 0) minus velocity.
        assert!(close(
            act.force(&body, &Goal::at(Vec2::new(10.0, 0.0))),
            Vec2::new(3.0, -1.0)
        ));
        // Arrive 1 away (half the slowing radius) matching (0, 2): (1.5, 0) + (0, 1) - (0, 1).
        let goal = Goal {
            velocity: Some(Vec2::new(0.0, 2.0)),
            ..Goal::at(Vec2::X)
        };
        assert!(close(act.force(&body, &goal), Vec2::new(1.5, 0.0)));
        let fast = body.moving(Vec2::new(-30.0, 0.0));
        assert!((act.force(&fast, &Goal::at(Vec2::X)).length() - 6.0).abs() < 1e-4);
        assert_eq!(act.force(&body, &Goal::default()), Vec2::ZERO);
    }

    #[test]
    fn path_decomposer_picks_next_waypoint() {
        let path = PathDecomposer {
            waypoints: vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)],
            reach_radius: 0.5,
        };
        let goal = Goal::arrive_at(Vec2::new(10.0, 20.0));
        let at = |x: f32, y: f32| {
            let body = Body {
                position: Vec2::new(x, y),
                ..Body::default()
            };
            path.decompose(&body, &(), goal)
        };
        assert_eq!(at(3.0, 1.0), Goal::at(Vec2::new(10.0, 0.0)));
        assert_eq!(at(9.8, 0.1), Goal::at(Vec2::new(10.0, 10.0)));
        assert_eq!(at(10.0, 15.0), goal);
        let empty = PathDecomposer::default();
        assert_eq!(
            empty.decompose(&Body::default(), &(), Goal::default()),
            Goal::default()
        );
    }

    #[test]
    fn detour_is_beside_the_obstacle_and_clear_of_it() {
        let avoid = AvoidObstacles {
            obstacles: vec![CircleObstacle::new(Vec2::new(5.0, 0.0), 1.0).unwrap()],
            margin: 0.5,
        };
        let body = Body::default();
        let goal = Goal::arrive_at(Vec2::new(10.0, 0.0));
        let path = BasicActuator::default().plan(&body, &goal);
        let Verdict::Suggest(sub) = avoid.check(&body, &(), &path, &goal) else {
            panic!("the straight line crosses the obstacle");
        };
        let s = sub.position.unwrap();
        assert_eq!(sub.velocity, None);
        // Left of the line (tie-break), and the new line clears the 2-unit clearance tightly.
        assert!(s.y > 2.0, "{s}");
        let gap = (closest_point_on_segment(Vec2::new(5.0, 0.0), body.position, s)
            - Vec2::new(5.0, 0.0))
        .length();
        assert!(gap > 2.0 && gap < 2.1, "{gap}");
        let new_path = BasicActuator::default().plan(&body, &sub);
        assert_eq!(avoid.check(&body, &(), &new_path, &sub), Verdict::Satisfied);
        // Drifting right picks the right side.
        let drifting = body.moving(Vec2::new(0.0, -0.5));
        let Verdict::Suggest(sub) = avoid.check(&drifting, &(), &path, &goal) else {
            panic!()
        };
        assert!(sub.position.unwrap().y < -2.0);
    }

    #[test]
    fn drives_around_an_obstacle_to_the_goal() {
        let obstacle = CircleObstacle::new(Vec2::new(5.0, 0.0), 1.5).unwrap();
        let pipeline = SteeringPipeline::new(BasicActuator::default())
            .with_targeter(GoalTargeter {
                goal: Goal::arrive_at(Vec2::new(10.0, 0.0)),
            })
            .with_constraint(AvoidObstacles {
                obstacles: vec![obstacle],
                margin: 0.25,
            });
        let start = Body::default();
        let (end, trail) = drive(&pipeline, start, 12.0);
        assert!(
            (end.position - Vec2::new(10.0, 0.0)).length() < 0.2,
            "{}",
            end.position
        );
        assert!(end.speed() < 0.3);
        let nearest = trail
            .iter()
            .map(|p| obstacle.signed_distance(*p))
            .fold(f32::INFINITY, f32::min);
        assert!(
            nearest >= start.radius,
            "body overlapped the obstacle: {nearest}"
        );
        assert!(
            trail.iter().any(|p| p.y > 1.5),
            "it went round, not through"
        );
    }

    #[test]
    fn constraint_rounds_are_bounded_and_fallback_steers() {
        struct Restless(Rc<Cell<usize>>);
        impl Constraint for Restless {
            fn check(&self, _: &Body, _: &(), _: &PlannedPath, g: &Goal) -> Verdict {
                self.0.set(self.0.get() + 1);
                Verdict::Suggest(Goal::at(g.position.unwrap_or(Vec2::ZERO) + Vec2::Y))
            }
        }
        let checks = Rc::new(Cell::new(0));
        let pipeline = SteeringPipeline::new(BasicActuator::default())
            .with_targeter(GoalTargeter {
                goal: Goal::at(Vec2::new(10.0, 0.0)),
            })
            .with_constraint(Restless(Rc::clone(&checks)))
            .with_max_constraint_iterations(4)
            .with_fallback(|_, _| Vec2::new(0.0, -1.0));
        let out = pipeline.run(&Body::default(), &());
        assert_eq!(checks.get(), 4);
        assert_eq!(out.outcome, Outcome::Fallback);
        assert_eq!(out.force, Vec2::new(0.0, -1.0));
        assert_eq!(out.goal.position, Some(Vec2::new(10.0, 4.0)));
    }

    #[test]
    fn goal_inside_an_obstacle_brakes() {
        let pipeline = SteeringPipeline::new(BasicActuator::default())
            .with_targeter(GoalTargeter {
                goal: Goal::at(Vec2::new(5.2, 0.0)),
            })
            .with_constraint(AvoidObstacles {
                obstacles: vec![CircleObstacle::new(Vec2::new(5.0, 0.0), 1.0).unwrap()],
                margin: 0.0,
            });
        let body = Body::default().moving(Vec2::new(2.0, 1.0));
        let out = pipeline.run(&body, &());
        assert_eq!(out.outcome, Outcome::Fallback);
        assert_eq!(out.force, Vec2::new(-2.0, -1.0));
        // Without constraints the actuator always steers.
        let free = SteeringPipeline::<()>::new(BasicActuator::default());
        assert_eq!(
            free.run(&body, &()).outcome,
            Outcome::Actuated { rounds: 0 }
        );
    }
}
