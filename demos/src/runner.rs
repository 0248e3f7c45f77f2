//! Running a built scenario headless: timeline events, world steps, metrics and (optionally)
//! trails for the picture; saving and restoring the run to split it across invocations.

use std::collections::BTreeMap;

use cohort_formation::world::SnapshotFormat;
use cohort_formation::{FormationId, Order, UnitId, World};
use glam::Vec2;
use thiserror::Error;

use crate::metrics::{Metrics, Report, TickHash, UnitSample};
use crate::render::{AnchorMark, Scene, UnitMark};
use crate::scenario::{Built, Scenario, ScenarioError, SpawnedUnit, Timeline, TimelineAction};
use crate::shapes::{MapShapes, PolygonShape};

/// First line of a run snapshot file holding the whole world as RON (still read).
const SNAPSHOT_HEADER_V1: &str = "cohort-run-snapshot v1 tick=";

/// First line of a run snapshot file holding the world's state without its terrain (RON text
/// or binary, see [`World::save_state`]).
const SNAPSHOT_HEADER: &str = "cohort-run-snapshot v2 tick=";

/// Largest run snapshot read, bytes; [`Runner::snapshot_as`] refuses to make a larger one, so
/// every snapshot the runner writes can be read back.
pub const MAX_SNAPSHOT_BYTES: u64 = 1 << 30;

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

/// The CPU clock of a step: the calling thread's, or with the formation crate's `parallel`
/// feature the process's (the step then runs on rayon's pool, whose threads do its work while
/// the caller waits). `None` where the clock cannot be read.
enum StepClock {
    Thread(Option<cpu_time::ThreadTime>),
    Process(Option<cpu_time::ProcessTime>),
}

impl StepClock {
    fn start() -> Self {
        if cohort_formation::world::PARALLEL {
            Self::Process(cpu_time::ProcessTime::try_now().ok())
        } else {
            Self::Thread(cpu_time::ThreadTime::try_now().ok())
        }
    }

    /// CPU time since [`StepClock::start`] (zero where the clock cannot be read).
    fn elapsed(&self) -> std::time::Duration {
        match self {
            Self::Thread(t) => t.as_ref().map(|t| t.elapsed()),
            Self::Process(t) => t.as_ref().map(|t| t.elapsed()),
        }
        .unwrap_or_default()
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
    /// CPU time spent in the world's steps (not in metrics or trails), see [`StepClock`].
    step_cpu: std::time::Duration,
    /// Record the state hash every this many ticks (see [`Runner::hash_every`]).
    hash_every: Option<u64>,
    hashes: Vec<TickHash>,
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
            step_cpu: std::time::Duration::ZERO,
            hash_every: None,
            hashes: Vec::new(),
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

    /// Records unit `id`'s avoidance each tick (see `World::watch_unit`), for inspecting it.
    pub fn watch_unit(&mut self, id: Option<UnitId>) {
        self.world.watch_unit(id);
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

    /// Records the world's state hash after every tick whose number is a multiple of `n`
    /// (`None` or 0: none); the report lists them under `hashes`.
    pub fn hash_every(&mut self, n: Option<u64>) {
        self.hash_every = n.filter(|&n| n > 0);
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
                        self.world.remove_unit(id);
                    }
                }
            }
        }
        let cpu_start = StepClock::start();
        self.world.step(self.dt);
        self.step_cpu += cpu_start.elapsed();
        self.tick += 1;
        if self.hash_every.is_some_and(|n| self.tick % n == 0) {
            self.hashes
                .push(TickHash::new(self.tick, self.world.state_hash()));
        }
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

    /// Takes formation `formation` out of its parent now (see `World::detach_formation`), so
    /// that it can be ordered on its own; the parent it left, `None` when it had none.
    pub fn detach_formation(
        &mut self,
        formation: FormationId,
    ) -> Result<Option<FormationId>, RunError> {
        self.world
            .detach_formation(formation)
            .map_err(|e| RunError::Order {
                tick: self.tick,
                message: e.to_string(),
            })
    }

    /// Removes a unit now (its formation reassigns the others); `false` if there is no such unit.
    pub fn remove_unit(&mut self, id: UnitId) -> bool {
        self.world.remove_unit(id).is_some()
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

    /// The units as the metrics saw them at the end of the last tick (spawn-order indices).
    pub fn samples(&self) -> &[UnitSample] {
        &self.samples
    }

    /// CPU time spent inside the world's steps since the runner was made: the simulation's
    /// own cost, without the metrics, trails and timeline around it. The calling thread's
    /// CPU time; with the formation crate's `parallel` feature, the whole process's, since
    /// the steps then run on rayon's threads.
    pub fn step_cpu_time(&self) -> std::time::Duration {
        self.step_cpu
    }

    /// The longest any unit has stood away from where it is bound so far, seconds (see
    /// [`crate::metrics::Metrics::longest_stand`]).
    pub fn longest_stand(&self) -> f32 {
        self.metrics.longest_stand()
    }

    /// The metrics so far.
    pub fn report(&self) -> Report {
        let mut report = self.metrics.report(self.world.state_hash());
        report.hashes = self.hashes.clone();
        report
    }

    fn sample(&mut self) {
        let mut samples = std::mem::take(&mut self.samples);
        samples.clear();
        for (id, unit) in self.world.units() {
            let Some(&index) = self.index_of.get(&id) else {
                continue;
            };
            let holding = self.world.formation_at_goal(unit.formation);
            // A top-level formation of one unit (one inside a parent keeps a slot in it).
            let single = unit
                .formation
                .and_then(|f| self.world.formation(f))
                .is_some_and(|f| f.is_single() && f.parent.is_none());
            samples.push(UnitSample {
                index,
                position: unit.body.position,
                velocity: unit.body.velocity,
                heading: unit.body.heading,
                radius: unit.body.radius,
                slot_target: unit.slot_target.map(|t| t.position),
                ordered_to_move: !holding,
                formation_at_goal: holding,
                single,
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

    /// The run's state as RON text: a header line with the tick, then the world's state
    /// without its terrain ([`World::save_state`]).
    pub fn snapshot(&self) -> Result<String, RunError> {
        let bytes = self.snapshot_as(SnapshotFormat::Ron)?;
        String::from_utf8(bytes).map_err(|e| RunError::Snapshot(e.to_string()))
    }

    /// The run's state in `format`: the header line `cohort-run-snapshot v2 tick=N`, then the
    /// world's state without its terrain (the scenario rebuilds the terrain; the snapshot
    /// carries its hash). Refused when larger than [`MAX_SNAPSHOT_BYTES`], which could not be
    /// read back.
    pub fn snapshot_as(&self, format: SnapshotFormat) -> Result<Vec<u8>, RunError> {
        let mut out = format!("{SNAPSHOT_HEADER}{}\n", self.tick).into_bytes();
        let world = self
            .world
            .save_state(format)
            .map_err(|e| RunError::Snapshot(e.to_string()))?;
        out.extend_from_slice(&world);
        if out.len() as u64 > MAX_SNAPSHOT_BYTES {
            return Err(RunError::Snapshot(format!(
                "the snapshot would be {} bytes; at most {MAX_SNAPSHOT_BYTES} can be read back",
                out.len()
            )));
        }
        Ok(out)
    }

    /// Replaces the world with a snapshot of a run of the same scenario (either format, or a
    /// whole-world RON snapshot of the first version), and continues from its tick. Metrics
    /// start over from the restored state. A snapshot made on another map, of other units, or
    /// holding anything the world refuses is refused and the run is left as it was.
    pub fn restore(&mut self, data: impl AsRef<[u8]>) -> Result<(), RunError> {
        let data = data.as_ref();
        let bad = |m: &str| RunError::Snapshot(m.to_owned());
        let at = data
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| bad("not a cohort run snapshot (no header line)"))?;
        let (header, body) = (&data[..at], &data[at + 1..]);
        let header = std::str::from_utf8(header).map_err(|_| bad("not a cohort run snapshot"))?;
        let tick =
            |prefix: &str| -> Option<u64> { header.strip_prefix(prefix)?.trim().parse().ok() };
        let world_err = |e: cohort_formation::WorldError| RunError::Snapshot(e.to_string());
        let foreign = |w: &World| w.units().any(|(id, _)| !self.index_of.contains_key(&id));
        let another = "the snapshot is of another scenario (its units are not this one's)";
        if let Some(tick) = tick(SNAPSHOT_HEADER) {
            // Loaded in place (the terrain stays); put back if its units are not ours.
            let before = self
                .world
                .save_state(SnapshotFormat::Binary)
                .map_err(world_err)?;
            self.world.load_state(body).map_err(world_err)?;
            if foreign(&self.world) {
                self.world.load_state(&before).map_err(world_err)?;
                return Err(bad(another));
            }
            self.tick = tick;
        } else if let Some(tick) = tick(SNAPSHOT_HEADER_V1) {
            let text = std::str::from_utf8(body).map_err(|_| bad("the snapshot is not text"))?;
            let world = World::from_snapshot(text).map_err(world_err)?;
            if world.terrain_hash() != self.world.terrain_hash() {
                return Err(bad("the snapshot was made on another map"));
            }
            if foreign(&world) {
                return Err(bad(another));
            }
            self.world = world;
            self.tick = tick;
        } else {
            return Err(bad("not a cohort run snapshot"));
        }
        self.hashes.clear();
        self.metrics = Metrics::new(self.metrics.shapes().clone(), self.dt);
        self.sample();
        let samples = std::mem::take(&mut self.samples);
        self.metrics.start(&samples);
        self.samples = samples;
        Ok(())
    }
}

/// Reads a run snapshot file of at most [`MAX_SNAPSHOT_BYTES`]; errors name the path.
pub fn read_snapshot(path: &std::path::Path) -> Result<Vec<u8>, RunError> {
    let err = |m: String| RunError::Snapshot(format!("{}: {m}", path.display()));
    let len = std::fs::metadata(path)
        .map_err(|e| err(e.to_string()))?
        .len();
    if len > MAX_SNAPSHOT_BYTES {
        return Err(err(format!(
            "file is {len} bytes; the limit is {MAX_SNAPSHOT_BYTES}"
        )));
    }
    std::fs::read(path).map_err(|e| err(e.to_string()))
}

/// The format a snapshot is written in at `path`: RON for a `.ron` extension (any case),
/// binary otherwise. Reading looks at the content instead, so either file loads whatever
/// its name.
pub fn snapshot_format_for(path: &std::path::Path) -> SnapshotFormat {
    match path.extension() {
        Some(e) if e.eq_ignore_ascii_case("ron") => SnapshotFormat::Ron,
        _ => SnapshotFormat::Binary,
    }
}
