//! Running a built scenario headless: timeline events, world steps, metrics and (optionally)
//! trails for the picture; saving and restoring the run to split it across invocations.

use std::collections::BTreeMap;

use cohort_formation::{FormationId, Motion, Order, UnitId, World};
use glam::Vec2;
use thiserror::Error;

use crate::metrics::{Metrics, Report, UnitSample};
use crate::render::{AnchorMark, Scene, UnitMark};
use crate::scenario::{Built, Scenario, ScenarioError, SpawnedUnit, Timeline, TimelineAction};
use crate::shapes::{MapShapes, PolygonShape};

/// First line of a run snapshot file.
const SNAPSHOT_HEADER: &str = "cohort-run-snapshot v1 tick=";

/// Most points kept per trail (older points are thinned out).
const TRAIL_POINTS: usize = 512;

/// What can go wrong running.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RunError {
    /// A snapshot could not be written or read.
    #[error("snapshot: {0}")]
    Snapshot(String),
    /// An order from the timeline was refused.
    #[error("tick {tick}: order refused: {message}")]
    Order {
        /// The tick.
        tick: u64,
        /// The world's error.
        message: String,
    },
}

/// The map's shapes, for metrics and pictures.
pub fn shapes_of(map: &cohort_pathing::Map) -> MapShapes {
    MapShapes {
        min: map.min,
        max: map.max,
        circles: map.circles.iter().map(|c| (c.center, c.radius)).collect(),
        polygons: map
            .polygons
            .iter()
            .map(|p| PolygonShape {
                points: p.points.clone(),
            })
            .chain(map.gaps.iter().map(|g| PolygonShape {
                points: g.points.clone(),
            }))
            .collect(),
        walls: map.walls.iter().map(|w| (w.from, w.to)).collect(),
        cover: map.cover_points.iter().map(|c| c.position).collect(),
        jumps: map
            .jump_links
            .iter()
            .map(|j| (j.takeoff, j.pad.center))
            .collect(),
    }
}

/// Loads, validates and builds the scenario at `path` (with `seed` instead of its own, if
/// given) and returns a runner at tick 0; `record_trails` keeps trails for pictures.
pub fn load_runner(
    path: &std::path::Path,
    seed: Option<u64>,
    record_trails: bool,
) -> Result<Runner, ScenarioError> {
    load_runner_with_assets(path, seed, record_trails, None)
}

/// [`load_runner`] also allowing pattern and playbook files under `assets` (`--assets DIR`).
pub fn load_runner_with_assets(
    path: &std::path::Path,
    seed: Option<u64>,
    record_trails: bool,
    assets: Option<&std::path::Path>,
) -> Result<Runner, ScenarioError> {
    let text = crate::scenario::read_text(path)?;
    let origin = path.display().to_string();
    let mut scenario = Scenario::from_ron_str(&text, &origin)?;
    if let Some(s) = seed {
        scenario.seed = s;
    }
    let built = scenario
        .validate_in(
            &origin,
            &crate::scenario::lookup_dirs(path, assets),
            &crate::scenario::AssetRoots::for_scenario(path, assets),
        )?
        .build()?;
    Ok(Runner::new(built, record_trails))
}

/// A trail: sampled positions, thinned to at most [`TRAIL_POINTS`].
#[derive(Clone, Debug, Default)]
struct Trail {
    points: Vec<Vec2>,
    every: u64,
    seen: u64,
}

impl Trail {
    fn push(&mut self, p: Vec2) {
        self.seen += 1;
        if self.every == 0 {
            self.every = 1;
        }
        if self.seen % self.every != 0 {
            return;
        }
        self.points.push(p);
        if self.points.len() >= TRAIL_POINTS {
            let mut keep = false;
            self.points.retain(|_| {
                keep = !keep;
                keep
            });
            self.every *= 2;
        }
    }
}

/// A scenario being run.
#[derive(Debug)]
pub struct Runner {
    world: World,
    timeline: Timeline,
    units: Vec<SpawnedUnit>,
    index_of: BTreeMap<UnitId, usize>,
    tick: u64,
    dt: f32,
    duration: u64,
    metrics: Metrics,
    trails: Option<Vec<Trail>>,
    samples: Vec<UnitSample>,
}

impl Runner {
    /// A runner at tick 0 of a built scenario; `record_trails` keeps trails for [`Self::scene`].
    pub fn new(built: Built, record_trails: bool) -> Self {
        let shapes = shapes_of(built.world.map());
        let index_of = built
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.id, i))
            .collect();
        let mut runner = Self {
            metrics: Metrics::new(shapes, built.dt),
            trails: record_trails.then(|| vec![Trail::default(); built.units.len()]),
            world: built.world,
            timeline: built.timeline,
            units: built.units,
            index_of,
            tick: 0,
            dt: built.dt,
            duration: built.duration,
            samples: Vec::new(),
        };
        runner.sample();
        let samples = std::mem::take(&mut runner.samples);
        runner.metrics.start(&samples);
        runner.samples = samples;
        runner.record_trails();
        runner
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Ticks run (including those before a restored snapshot).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Seconds per tick.
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// The scenario's duration in ticks.
    pub fn duration(&self) -> u64 {
        self.duration
    }

    /// Applies the events of the current tick, steps the world once and measures.
    pub fn step(&mut self) -> Result<(), RunError> {
        for ev in self.timeline.at(self.tick) {
            match &ev.action {
                TimelineAction::Order(order) => self
                    .world
                    .order(ev.formation, order.clone())
                    .map_err(|e| RunError::Order {
                        tick: self.tick,
                        message: format!("{}.order: {e}", ev.source),
                    })?,
                TimelineAction::Kill(ids) => {
                    for &id in ids {
                        self.world.kill_unit(id);
                    }
                }
            }
        }
        self.world.step(self.dt);
        self.tick += 1;
        self.sample();
        let samples = std::mem::take(&mut self.samples);
        self.metrics.observe(&samples);
        self.samples = samples;
        self.record_trails();
        Ok(())
    }

    /// Gives `order` to `formation` now, between steps (it takes effect on the next step): the
    /// viewer's orders go through here so they reach the world the way timeline orders do.
    pub fn order(&mut self, formation: FormationId, order: Order) -> Result<(), RunError> {
        self.world
            .order(formation, order)
            .map_err(|e| RunError::Order {
                tick: self.tick,
                message: e.to_string(),
            })
    }

    /// Kills a unit now (its formation reassigns the others); `false` if it is not alive.
    pub fn kill_unit(&mut self, id: UnitId) -> bool {
        self.world.kill_unit(id).is_some()
    }

    /// The recorded trail of a unit (empty without trails or for an unknown unit).
    pub fn trail(&self, id: UnitId) -> &[Vec2] {
        self.index_of
            .get(&id)
            .and_then(|&i| self.trails.as_ref()?.get(i))
            .map_or(&[], |t| t.points.as_slice())
    }

    /// Runs to the scenario's duration (from wherever the run is).
    pub fn run_to_end(&mut self) -> Result<(), RunError> {
        self.run(self.duration.saturating_sub(self.tick), |_| {})
    }

    /// Runs `ticks` steps, calling `progress` after each.
    pub fn run(&mut self, ticks: u64, mut progress: impl FnMut(u64)) -> Result<(), RunError> {
        for _ in 0..ticks {
            self.step()?;
            progress(self.tick);
        }
        Ok(())
    }

    /// The metrics so far.
    pub fn report(&self) -> Report {
        self.metrics.report(self.world.state_hash())
    }

    /// Whether the formation and all its ancestors satisfy `f`.
    fn chain_all(&self, start: Option<FormationId>, f: impl Fn(Motion) -> bool) -> bool {
        let mut cursor = start;
        let mut depth = 0;
        while let Some(id) = cursor {
            let Some(form) = self.world.formation(id) else {
                break;
            };
            if !f(form.motion) {
                return false;
            }
            cursor = form.parent;
            depth += 1;
            if depth > 64 {
                break;
            }
        }
        true
    }

    fn sample(&mut self) {
        let mut samples = std::mem::take(&mut self.samples);
        samples.clear();
        for (id, unit) in self.world.units() {
            let Some(&index) = self.index_of.get(&id) else {
                continue;
            };
            let holding = self.chain_all(unit.formation, |m| m == Motion::Holding);
            samples.push(UnitSample {
                index,
                position: unit.body.position,
                velocity: unit.body.velocity,
                heading: unit.body.heading,
                radius: unit.body.radius,
                slot_target: unit.slot_target.map(|t| t.position),
                ordered_to_move: !holding,
                formation_at_goal: holding,
                airborne: unit.is_airborne(),
            });
        }
        self.samples = samples;
    }

    fn record_trails(&mut self) {
        if let Some(trails) = &mut self.trails {
            for s in &self.samples {
                if let Some(t) = trails.get_mut(s.index) {
                    t.push(s.position);
                }
            }
        }
    }

    /// What a picture of the run shows now.
    pub fn scene(&self) -> Scene {
        let group_of = |id: UnitId| {
            self.index_of
                .get(&id)
                .and_then(|&i| self.units.get(i))
                .map_or(0, |u| u.group)
        };
        let trails = self
            .trails
            .iter()
            .flatten()
            .zip(&self.units)
            .map(|(t, u)| (u.group, t.points.clone()))
            .collect();
        let units = self
            .world
            .units()
            .map(|(id, u)| UnitMark {
                position: u.body.position,
                heading: u.body.heading,
                radius: u.body.radius,
                group: group_of(id),
            })
            .collect();
        let slots = self
            .world
            .units()
            .filter_map(|(_, u)| u.slot_target.map(|t| t.position))
            .collect();
        let anchors = self
            .world
            .formations()
            .map(|(id, f)| AnchorMark {
                position: f.anchor.position,
                orientation: f.anchor.orientation,
                path: f.path.get(f.path_index..).unwrap_or(&[]).to_vec(),
                group: self.root_group(id),
            })
            .collect();
        Scene {
            shapes: self.metrics.shapes().clone(),
            trails,
            units,
            slots,
            anchors,
        }
    }

    fn root_group(&self, id: FormationId) -> usize {
        let root = self.world.root_of(id);
        self.world
            .formations()
            .filter(|(_, f)| f.parent.is_none())
            .position(|(fid, _)| fid == root)
            .unwrap_or(0)
    }

    /// The run's state as text: the tick and the world's snapshot.
    pub fn snapshot(&self) -> Result<String, RunError> {
        let world = self
            .world
            .to_snapshot()
            .map_err(|e| RunError::Snapshot(e.to_string()))?;
        Ok(format!("{SNAPSHOT_HEADER}{}\n{world}", self.tick))
    }

    /// Replaces the world with a snapshot of a run of the same scenario, and continues from its
    /// tick. Metrics start over from the restored state.
    pub fn restore(&mut self, text: &str) -> Result<(), RunError> {
        let bad = |m: &str| RunError::Snapshot(m.to_owned());
        let (header, world) = text.split_once('\n').ok_or_else(|| bad("no header line"))?;
        let tick: u64 = header
            .strip_prefix(SNAPSHOT_HEADER)
            .and_then(|t| t.trim().parse().ok())
            .ok_or_else(|| bad("not a cohort run snapshot"))?;
        let world = World::from_snapshot(world).map_err(|e| RunError::Snapshot(e.to_string()))?;
        if world
            .units()
            .any(|(id, _)| !self.index_of.contains_key(&id))
        {
            return Err(bad("the snapshot is of another scenario"));
        }
        self.world = world;
        self.tick = tick;
        self.metrics = Metrics::new(self.metrics.shapes().clone(), self.dt);
        self.sample();
        let samples = std::mem::take(&mut self.samples);
        self.metrics.start(&samples);
        self.samples = samples;
        Ok(())
    }
}
