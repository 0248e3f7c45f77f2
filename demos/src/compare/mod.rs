//! `cohort compare`: one scenario through Cohort and through a reciprocal-avoidance baseline
//! (`dodgy_2d`, RVO2's ORCA) with the same units, side by side.
//!
//! Both sides get the same start positions, radii, top speeds, time step, ticks and static
//! obstacles. Each baseline agent walks to a fixed goal: where its unit's slot lies once its
//! formation stands at the goal of its move order (see [`goals_of`]), along a path planned on
//! the scenario's navigation graph when the map has obstacles (ORCA alone has no route
//! planner and would press into a wall between a unit and its goal). Both are measured the
//! same way: arrived units, time until all arrived, colliding pair-steps (pairs closer than
//! the sum of their radii, once per tick), the deepest overlap and thread CPU time per
//! unit-step (the simulation's step only, without the measuring).

pub mod dodgy;

use std::fmt;
use std::path::Path;

use cohort_formation::{FormationId, Order, World};
use cohort_pathing::{PathQuery, SearchScratch, ValidMap, find_path};
use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::metrics::pairs::PairCounter;
use crate::metrics::{Metrics, UnitSample};
use crate::runner::{Runner, shapes_of};
use crate::scenario::{Built, Scenario, TimelineAction};

pub use dodgy::{AgentSpec, DodgyParams, DodgySim};

/// The figures of one side of a comparison; the field names are the JSON keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SideFigures {
    /// Units at the end within their radius of their goal (Cohort: of their slot, their
    /// formation at its goal).
    pub arrived: u64,
    /// Units.
    pub units: u64,
    /// Seconds until every unit had arrived and stayed so to the end, or `null`.
    pub time_to_arrive: Option<f64>,
    /// Tick-pair events: two units closer than the sum of their radii.
    pub colliding_pair_steps: u64,
    /// Worst `(r1 + r2 - d) / (r1 + r2)` seen.
    pub max_overlap_depth: f64,
    /// Units that made no progress for 5 s while away from their goal.
    pub stuck: u64,
    /// Tick-unit events inside an obstacle, out of bounds or through a wall.
    pub penetrations: u64,
    /// Thread CPU time of the simulation's steps per unit per tick, microseconds.
    pub cpu_us_per_unit_step: f64,
}

/// A whole comparison; the field names are the JSON keys of `cohort compare --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The scenario's name.
    pub scenario: String,
    /// Units on each side.
    pub units: u64,
    /// Ticks run on each side.
    pub ticks: u64,
    /// Seconds per tick.
    pub dt: f64,
    /// The baseline's tuning.
    pub dodgy_params: DodgyParams,
    /// Cohort's figures.
    pub cohort: SideFigures,
    /// The baseline's figures.
    pub dodgy: SideFigures,
}

impl Comparison {
    /// One JSON object on one line.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// How one row of the table shows a side's figure.
type Cell = fn(&SideFigures) -> String;

fn time(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1} s"))
}

impl fmt::Display for Comparison {
    /// A three-column table: metric, Cohort, dodgy.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} units, {} ticks of {:.3} s",
            self.scenario, self.units, self.ticks, self.dt
        )?;
        writeln!(f, "{:<22} {:>14} {:>14}", "", "cohort", "dodgy")?;
        let rows: [(&str, Cell); 7] = [
            ("arrived", |s| format!("{} / {}", s.arrived, s.units)),
            ("time_to_arrive", |s| time(s.time_to_arrive)),
            ("colliding_pair_steps", |s| {
                s.colliding_pair_steps.to_string()
            }),
            ("max_overlap_depth", |s| {
                format!("{:.3}", s.max_overlap_depth)
            }),
            ("stuck", |s| s.stuck.to_string()),
            ("penetrations", |s| s.penetrations.to_string()),
            ("cpu_us_per_unit_step", |s| {
                format!("{:.2}", s.cpu_us_per_unit_step)
            }),
        ];
        for (name, cell) in rows {
            writeln!(
                f,
                "{name:<22} {:>14} {:>14}",
                cell(&self.cohort),
                cell(&self.dodgy)
            )?;
        }
        Ok(())
    }
}

/// Loads, validates and builds the scenario at `path`.
pub fn load_built(path: &Path) -> Result<Built, String> {
    let text = crate::scenario::read_text(path).map_err(|e| e.to_string())?;
    let origin = path.display().to_string();
    let scenario = Scenario::from_ron_str(&text, &origin).map_err(|e| e.to_string())?;
    scenario
        .validate(&origin, &crate::scenario::pattern_dirs(path))
        .and_then(|l| l.build())
        .map_err(|e| e.to_string())
}

/// The last move order each formation gets in the timeline: (goal, facing).
fn last_moves(built: &Built) -> Vec<(FormationId, Vec2, Option<Vec2>)> {
    let mut moves: Vec<(FormationId, Vec2, Option<Vec2>)> = Vec::new();
    for ev in &built.timeline.events {
        if let TimelineAction::Order(Order::MoveTo { goal, facing, .. }) = &ev.action {
            moves.retain(|m| m.0 != ev.formation);
            moves.push((ev.formation, *goal, *facing));
        }
    }
    moves
}

/// Each unit's goal, in spawn order: where its slot lies once the nearest formation above it
/// that is ordered to move stands at the goal of its last move order. The unit's slot at the
/// start is taken relative to that formation's anchor (in the anchor's frame) and placed the
/// same way around the goal, turned to the order's facing (or, without one, to the direction
/// from the start anchor to the goal). Exact for a move that keeps the pattern and does not
/// reassign slots; a unit of no moving formation keeps its start slot.
pub fn goals_of(built: &Built) -> Vec<Vec2> {
    let moves = last_moves(built);
    built
        .units
        .iter()
        .map(|u| {
            let Some(unit) = built.world.unit(u.id) else {
                return Vec2::ZERO;
            };
            let slot = unit
                .slot_target
                .map(|t| t.position)
                .filter(|p| p.is_finite())
                .unwrap_or(unit.body.position);
            let Some((form, goal, facing)) = moving_ancestor(&built.world, unit.formation, &moves)
            else {
                return slot;
            };
            let anchor = form.anchor;
            let from = anchor.orientation.normalize_or(Vec2::X);
            let to = facing
                .and_then(|f| f.try_normalize())
                .or_else(|| (goal - anchor.position).try_normalize())
                .unwrap_or(from);
            let local = Vec2::new(from.x, -from.y).rotate(slot - anchor.position);
            goal + to.rotate(local)
        })
        .collect()
}

/// The nearest formation from `start` up that has a move order, with its goal and facing.
fn moving_ancestor<'w>(
    world: &'w World,
    start: Option<FormationId>,
    moves: &[(FormationId, Vec2, Option<Vec2>)],
) -> Option<(&'w cohort_formation::Formation, Vec2, Option<Vec2>)> {
    let mut cursor = start;
    for _ in 0..64 {
        let id = cursor?;
        let form = world.formation(id)?;
        if let Some(&(_, goal, facing)) = moves.iter().find(|m| m.0 == id) {
            return Some((form, goal, facing));
        }
        cursor = form.parent;
    }
    None
}

/// The baseline's agents for a built scenario, in spawn order: start, goal (see [`goals_of`]),
/// radius, top speed and a route (straight to the goal in the open; around obstacles, the
/// smoothed path the pathing crate plans for the unit's radius).
pub fn agents_of(built: &Built, map: &ValidMap) -> Vec<AgentSpec> {
    let goals = goals_of(built);
    let m = built.world.map();
    let open = m.polygons.is_empty() && m.circles.is_empty() && m.walls.is_empty();
    let open = open && m.gaps.is_empty();
    let mut scratch = SearchScratch::new();
    built
        .units
        .iter()
        .zip(goals)
        .filter_map(|(u, goal)| {
            let body = built.world.unit(u.id)?.body;
            let mut route = Vec::new();
            if !open {
                let query = PathQuery::new(body.position, goal, body.radius);
                if let Ok(path) = find_path(map, built.world.navgraph(), &query, &mut scratch) {
                    route.extend(path.waypoints.iter().map(|w| w.position).skip(1));
                }
            }
            if route.last() != Some(&goal) {
                route.push(goal);
            }
            Some(AgentSpec {
                start: body.position,
                goal,
                radius: body.radius,
                max_speed: body.max_speed,
                route,
            })
        })
        .collect()
}

/// Length of an agent's route from its start (its free walk).
pub fn route_length(agent: &AgentSpec) -> f32 {
    let mut at = agent.start;
    let mut length = 0.0;
    for &p in &agent.route {
        length += (p - at).length();
        at = p;
    }
    length
}

/// Counts colliding pairs (closer than the radii sum) per tick and the deepest overlap.
struct Collisions {
    counter: PairCounter,
    pair_steps: u64,
    max_depth: f32,
}

impl Collisions {
    fn observe(&mut self, samples: &[UnitSample]) {
        let found = self.counter.count(samples, 1.0);
        self.pair_steps += found.overlaps;
        self.max_depth = self.max_depth.max(found.max_depth);
    }
}

fn per_unit_step_us(cpu: std::time::Duration, units: usize, ticks: u64) -> f64 {
    let steps = units as f64 * ticks as f64;
    if steps > 0.0 {
        cpu.as_secs_f64() * 1e6 / steps
    } else {
        0.0
    }
}

/// Runs the scenario at `path` for `ticks` (default: its duration) through Cohort and through
/// the baseline. Errors are the scenario's (bad input) or a refused order.
pub fn compare_file(
    path: &Path,
    ticks: Option<u64>,
    params: DodgyParams,
) -> Result<Comparison, String> {
    params.check()?;
    let built = load_built(path)?;
    let map = built
        .world
        .map()
        .clone()
        .validate()
        .map_err(|e| format!("{}: map: {e}", path.display()))?;
    let agents = agents_of(&built, &map);
    let scenario = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let shapes = shapes_of(built.world.map());
    let dt = built.dt;
    let n = ticks.unwrap_or(built.duration);
    if n > crate::scenario::MAX_DURATION {
        return Err(format!(
            "--ticks must be at most {}, got {n}",
            crate::scenario::MAX_DURATION
        ));
    }
    let (lo, hi) = (shapes.min, shapes.max);
    let new_collisions = || Collisions {
        counter: PairCounter::new(lo, hi),
        pair_steps: 0,
        max_depth: 0.0,
    };

    // Cohort.
    let mut runner = Runner::new(built, false);
    let mut hits = new_collisions();
    for _ in 0..n {
        runner.step().map_err(|e| e.to_string())?;
        hits.observe(runner.samples());
    }
    let report = runner.report();
    let cohort = SideFigures {
        arrived: report.arrived,
        units: report.units,
        time_to_arrive: report.time_to_arrive,
        colliding_pair_steps: hits.pair_steps,
        max_overlap_depth: f64::from(hits.max_depth),
        stuck: report.stuck,
        penetrations: report.penetrations,
        cpu_us_per_unit_step: per_unit_step_us(runner.step_cpu_time(), report.units as usize, n),
    };

    // The baseline.
    let units = agents.len();
    let mut sim = DodgySim::new(agents, &dodgy::obstacles_of(map.map()), params);
    let mut metrics = Metrics::new(shapes, dt);
    let mut hits = new_collisions();
    let mut samples = baseline_samples(&sim, Vec::new());
    metrics.start(&samples);
    let mut cpu = std::time::Duration::ZERO;
    for _ in 0..n {
        let start = cpu_time::ThreadTime::try_now().ok();
        sim.step(dt, &map);
        if let Some(s) = start {
            cpu += s.elapsed();
        }
        samples = baseline_samples(&sim, samples);
        metrics.observe(&samples);
        hits.observe(&samples);
    }
    let r = metrics.report(0);
    let dodgy = SideFigures {
        arrived: r.arrived,
        units: units as u64,
        time_to_arrive: r.time_to_arrive,
        colliding_pair_steps: hits.pair_steps,
        max_overlap_depth: f64::from(hits.max_depth),
        stuck: r.stuck,
        penetrations: r.penetrations,
        cpu_us_per_unit_step: per_unit_step_us(cpu, units, n),
    };
    Ok(Comparison {
        scenario,
        units: units as u64,
        ticks: n,
        dt: f64::from(dt),
        dodgy_params: params,
        cohort,
        dodgy,
    })
}

/// The baseline's agents as metric samples: each its own formation of one, always at its goal
/// (so it counts as arrived whenever it is within its radius of it), always ordered to move.
fn baseline_samples(sim: &DodgySim, mut out: Vec<UnitSample>) -> Vec<UnitSample> {
    out.clear();
    out.extend(sim.states().zip(sim.specs()).enumerate().map(
        |(index, ((position, velocity), spec))| UnitSample {
            index,
            position,
            velocity,
            heading: velocity.try_normalize().unwrap_or(Vec2::X),
            radius: spec.radius,
            slot_target: Some(spec.goal),
            ordered_to_move: true,
            formation_at_goal: true,
            single: false,
            airborne: false,
        },
    ));
    out
}

#[cfg(test)]
mod tests;
