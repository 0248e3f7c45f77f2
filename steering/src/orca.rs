//! Optimal reciprocal collision avoidance (ORCA): the crowd layer's velocity solver.
//!
//! For one agent, [`solve`] turns each neighbour into a half-plane of permitted velocities
//! (van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance", 2011): the
//! velocity obstacle of the pair is the cone of relative velocities that bring them into
//! contact within [`OrcaParams::time_horizon`], and the agent takes its
//! [`OrcaNeighbour::share`] of the smallest change that leaves it (half of it when both sides
//! run ORCA, all of it when the other will not move aside). Static [`OrcaSegment`]s add hard
//! half-planes over [`OrcaParams::obstacle_time_horizon`]. A linear program then picks the
//! permitted velocity closest to the preferred one within the speed limit; when the
//! half-planes leave no room, a second program picks the velocity that violates the
//! neighbours' half-planes least, never relaxing the segments'. The programs follow RVO2's.
//!
//! ORCA alone only slows two agents meeting exactly head-on, and a ring of agents crossing
//! to the far side jams in the middle; [`OrcaParams::right_hand`] breaks the symmetry: an
//! agent approaching a neighbour head-on builds its half-plane from the velocity obstacle's
//! right side, so both step aside the same way (each to its own right) and pass.
//!
//! The solver is pure `f32` arithmetic (`+ - * /` and `sqrt`), so results are bit-identical
//! wherever the inputs are; it neither panics nor returns a non-finite velocity, and once the
//! caller's [`OrcaBuffers`] have grown to the largest neighbour and segment counts it
//! allocates nothing. The caller gathers neighbours (for instance with a
//! [`crate::grid::CellGrid`]).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::ops::{positive_finite, positive_or_zero};
use crate::vector::{finite_or_zero, truncate};

mod lines;
mod program;

#[cfg(test)]
mod crowd_tests;
#[cfg(test)]
mod dodgy_tests;
#[cfg(test)]
mod tests;

use program::{Objective, program2, program3};

/// The agent whose velocity is solved for.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrcaAgent {
    /// Centre.
    pub position: Vec2,
    /// Current velocity: the half-planes are built around it.
    pub velocity: Vec2,
    /// Radius of its disc.
    pub radius: f32,
    /// Largest speed of the result.
    pub max_speed: f32,
}

/// Another agent to keep clear of.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrcaNeighbour {
    /// Centre.
    pub position: Vec2,
    /// Current velocity.
    pub velocity: Vec2,
    /// Radius of its disc.
    pub radius: f32,
    /// Share of the avoidance this agent takes, in `0..=1`: 0.5 when the neighbour runs ORCA
    /// too (reciprocal), 1.0 when it will not avoid (standing, static, or ignoring us). Zero,
    /// negative or NaN ignores the neighbour; above 1 counts as 1.
    pub share: f32,
}

/// An edge of static geometry the agent must not cross or touch: a hard constraint, never
/// relaxed when the neighbours' half-planes leave no room.
///
/// Each segment stands alone, blocking from either side: its velocity obstacle is the cone
/// of velocities that bring the agent's disc onto it within
/// [`OrcaParams::obstacle_time_horizon`] (the capsule of the agent's radius around it, seen
/// from the agent, truncated at the horizon), and the half-plane touches that cone at the
/// point nearest the agent's current velocity. This is RVO2's obstacle edge without a
/// polygon's neighbouring-edge information: the segments of a polyline or polygon are
/// constrained one by one (a segment whose obstacle earlier segments' half-planes already
/// cover is skipped), which is as safe, if at concave corners a little more cautious.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrcaSegment {
    /// One end.
    pub from: Vec2,
    /// The other end.
    pub to: Vec2,
}

/// Tuning of [`solve`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrcaParams {
    /// Seconds ahead that collisions with neighbours are avoided. Longer is safer but shyer:
    /// agents react earlier and need more room. Not positive or not finite: the default.
    pub time_horizon: f32,
    /// Seconds ahead that collisions with segments are avoided; shorter than
    /// `time_horizon` so that agents can walk along walls. Not positive or not finite: the
    /// default.
    pub obstacle_time_horizon: f32,
    /// Strength of the right-hand rule, a deterministic symmetry breaker: ORCA alone only
    /// slows two agents meeting exactly head-on, and a ring of agents crossing to the far
    /// side jams in the middle. With it, each neighbour's half-plane is built from the point
    /// of the velocity obstacle's boundary nearest the relative velocity shifted to the
    /// agent's right (clockwise of the line of centres) by `right_hand` × the relative speed ×
    /// how head-on the approach is (squared cosine between relative velocity and line of
    /// centres) × how close contact is (1 at contact, 0 once the time to contact reaches
    /// `time_horizon`): head-on, the agent steps to its right instead of braking. The
    /// neighbour sees the mirrored situation and steps to its own right, so the two
    /// half-planes still fit together (and against a neighbour that does not avoid, the
    /// half-plane still only touches the velocity obstacle): the avoidance guarantee stays.
    /// Zero (or negative, or NaN) is plain ORCA.
    pub right_hand: f32,
}

impl Default for OrcaParams {
    /// For units of radius about 0.5 at 1.3–3 m/s: 2 s for neighbours, 0.5 s for segments,
    /// right-hand rule 1.
    fn default() -> Self {
        Self {
            time_horizon: 2.0,
            obstacle_time_horizon: 0.5,
            right_hand: 1.0,
        }
    }
}

/// A half-plane of permitted velocities: those on the left of the line through `point` along
/// `direction` (a unit vector), boundary included.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrcaLine {
    /// A point on the boundary.
    pub point: Vec2,
    /// Unit direction of the boundary; permitted velocities are on its left
    /// (counter-clockwise side).
    pub direction: Vec2,
}

impl OrcaLine {
    /// Whether `velocity` is permitted, allowing `slack` of violation.
    #[inline]
    pub fn permits(&self, velocity: Vec2, slack: f32) -> bool {
        self.direction.perp_dot(velocity - self.point) >= -slack
    }
}

/// What a half-plane came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// The neighbour at this index of the `neighbours` given to [`solve`].
    Neighbour(usize),
    /// The segment at this index of the `segments` given to [`solve`].
    Segment(usize),
}

/// The result of [`solve`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrcaOutcome {
    /// The new velocity: finite, no faster than the agent's `max_speed`.
    pub velocity: Vec2,
    /// The neighbour or segment whose half-plane bounds the velocity: the last one the
    /// velocity was moved onto, or when infeasible the one whose violation was minimised
    /// last. `None` when the preferred velocity (within the speed limit) was permitted.
    pub binding: Option<Binding>,
    /// Whether the half-planes left no permitted velocity, so the velocity is the one that
    /// violates the neighbours' half-planes least (or, when even the segments' could not all
    /// be met, zero).
    pub infeasible: bool,
}

impl OrcaOutcome {
    /// An outcome unconstrained by anything.
    fn free(velocity: Vec2) -> Self {
        Self {
            velocity,
            binding: None,
            infeasible: false,
        }
    }
}

/// Scratch space of [`solve`], kept by the caller between calls (one per thread) so that a
/// warm solve allocates nothing. After a call it holds that call's half-planes.
#[derive(Clone, Debug, Default)]
pub struct OrcaBuffers {
    /// The half-planes: segments' first, then neighbours'.
    lines: Vec<OrcaLine>,
    /// What each of `lines` came from.
    sources: Vec<Binding>,
    /// The 3D program's projected half-planes.
    projected: Vec<OrcaLine>,
}

impl OrcaBuffers {
    /// Buffers with room for `constraints` neighbours and segments together.
    pub fn with_capacity(constraints: usize) -> Self {
        Self {
            lines: Vec::with_capacity(constraints),
            sources: Vec::with_capacity(constraints),
            projected: Vec::with_capacity(constraints),
        }
    }

    /// The half-planes of the last [`solve`] (for inspection and debug drawing): segments'
    /// first, then neighbours', in the order given; none for skipped neighbours, for segments
    /// already covered by earlier ones, or for coincident neighbours moving alike.
    pub fn lines(&self) -> &[OrcaLine] {
        &self.lines
    }

    /// What each of [`Self::lines`] came from.
    pub fn sources(&self) -> &[Binding] {
        &self.sources
    }

    fn push(&mut self, line: OrcaLine, source: Binding) {
        self.lines.push(line);
        self.sources.push(source);
    }
}

/// `1 / x` when `x` is positive and that is finite, else `1 / fallback`.
#[inline]
fn inverse_or(x: f32, fallback: f32) -> f32 {
    let inv = 1.0 / x;
    if positive_finite(x) && inv.is_finite() {
        inv
    } else {
        1.0 / fallback
    }
}

/// The velocity for `agent`, as close to `preferred` as `neighbours` and `segments` permit,
/// for a tick of `dt` seconds. `buffers` is scratch space (see [`OrcaBuffers`]).
///
/// Segment half-planes come first, in the order given, skipping any segment an earlier one
/// already keeps the agent off (give nearer segments first); then one half-plane per
/// neighbour in the order given. The order matters only when the half-planes leave no room
/// (and for exact ties); the result is a pure function of the inputs either way. Neighbours
/// already overlapping the agent get a half-plane that separates them within `dt`.
///
/// Garbage in gives a safe velocity out: a non-finite `preferred` counts as zero, a non-finite
/// agent velocity as zero, non-finite or negative radii as zero; neighbours and segments with
/// non-finite coordinates are skipped; a `dt` not positive and finite makes overlapping
/// neighbours separate over the time horizon instead. A `max_speed` not positive and finite
/// gives zero; a non-finite agent position gives `preferred` clamped to `max_speed`.
pub fn solve(
    agent: &OrcaAgent,
    preferred: Vec2,
    neighbours: &[OrcaNeighbour],
    segments: &[OrcaSegment],
    params: &OrcaParams,
    dt: f32,
    buffers: &mut OrcaBuffers,
) -> OrcaOutcome {
    buffers.lines.clear();
    buffers.sources.clear();
    let max_speed = positive_or_zero(agent.max_speed);
    let preferred = finite_or_zero(preferred);
    if max_speed == 0.0 {
        return OrcaOutcome::free(Vec2::ZERO);
    }
    if !agent.position.is_finite() {
        return OrcaOutcome::free(truncate(preferred, max_speed));
    }
    let position = agent.position;
    let velocity = finite_or_zero(agent.velocity);
    let radius = positive_or_zero(agent.radius);
    let defaults = OrcaParams::default();
    let inv_horizon = inverse_or(params.time_horizon, defaults.time_horizon);
    let inv_obstacle = inverse_or(params.obstacle_time_horizon, defaults.obstacle_time_horizon);
    let tuning = lines::NeighbourTuning {
        inv_horizon,
        inv_dt: if positive_finite(dt) && (1.0 / dt).is_finite() {
            1.0 / dt
        } else {
            inv_horizon
        },
        right_hand: positive_or_zero(params.right_hand),
    };

    for (index, segment) in segments.iter().enumerate() {
        let a = segment.from - position;
        let b = segment.to - position;
        if !(a.is_finite() && b.is_finite()) {
            continue;
        }
        if let Some(line) =
            lines::segment_line(a, b, radius, inv_obstacle, velocity, &buffers.lines)
        {
            buffers.push(line, Binding::Segment(index));
        }
    }
    let fixed = buffers.lines.len();
    for (index, neighbour) in neighbours.iter().enumerate() {
        if !(neighbour.share > 0.0)
            || !neighbour.position.is_finite()
            || !neighbour.velocity.is_finite()
        {
            continue;
        }
        let line = lines::neighbour_line(
            velocity,
            neighbour.position - position,
            velocity - neighbour.velocity,
            radius + positive_or_zero(neighbour.radius),
            neighbour.share.min(1.0),
            &tuning,
        );
        if let Some(line) = line {
            buffers.push(line, Binding::Neighbour(index));
        }
    }

    let first = program2(&buffers.lines, max_speed, Objective::Closest(preferred));
    let (result, bound, infeasible) = match first.failed_at {
        None => (first.velocity, first.bound, false),
        // The segments' half-planes all permit standing still (up to rounding).
        Some(failed) if failed < fixed => (Vec2::ZERO, Some(failed), true),
        Some(failed) => {
            let (v, bound) = program3(
                &buffers.lines,
                fixed,
                failed,
                max_speed,
                first.velocity,
                &mut buffers.projected,
            );
            (v, bound, true)
        }
    };
    OrcaOutcome {
        // The programs stay in the speed disk up to rounding; `truncate` also maps a
        // non-finite result (only reachable from extreme inputs) to zero.
        velocity: truncate(result, max_speed),
        binding: bound.and_then(|i| buffers.sources.get(i).copied()),
        infeasible,
    }
}
