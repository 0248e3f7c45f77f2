//! `cohort bench`: the standard army ([`cohort_formation::army`]) stepped for a number of
//! ticks, timed, with its heap measured, and the same world stepped again with brute-force
//! neighbour search so the grid's speed-up is a measured ratio.
//!
//! Memory is measured with a counting global allocator (the `allocation-counter` crate, which
//! counts the allocations of the calling thread): `peak_bytes` is the heap high-water mark
//! from building the world to the end of the timed ticks, `bytes_per_unit` the heap the warm
//! world holds, less what the terrain alone (map, navigation graph) takes, divided by the
//! unit count. The process's peak resident set (`VmHWM` from
//! `/proc/self/status`, Linux only) is printed beside it for comparison; it also counts the
//! binary, the allocator's slack and the brute-force copy of the world.

use std::time::Instant;

use cohort_formation::army::{ArmySpec, MAX_GROUP_SIZE, build_army};
use cohort_formation::world::{STAGE_COUNT, Stage};
use cohort_formation::{World, WorldSettings};
use serde::Serialize;

mod display;
#[cfg(test)]
mod tests;

/// Largest army `cohort bench` builds.
pub const MAX_BENCH_UNITS: usize = 1_000_000;

/// Most timed ticks.
pub const MAX_BENCH_TICKS: u64 = 100_000;

/// Time step of one tick (one world sub-step, [`cohort_formation::world::MAX_STEP`]).
pub const BENCH_DT: f32 = cohort_formation::world::MAX_STEP;

/// Budget of unit-pair distance tests for the brute-force pass: it runs
/// `min(ticks, BRUTE_FORCE_PAIR_BUDGET / units²)` ticks (at least one).
pub const BRUTE_FORCE_PAIR_BUDGET: f64 = 5e9;

/// The JSON keys of a report that the benchmark's specification names (all numbers; the
/// brute-force figure is `null` only when that pass is skipped).
pub const SPECIFIED_KEYS: [&str; 6] = [
    "ns_per_unit_tick",
    "ms_per_tick",
    "peak_bytes",
    "bytes_per_unit",
    "brute_force_ns_per_unit_tick",
    "state_hash_ns_per_unit",
];

/// Smallest `--map-size`, metres (the army's map is at least this big).
pub const MIN_MAP_SIZE: f32 = 100.0;

/// Largest `--map-size`, metres.
pub const MAX_MAP_SIZE: f32 = 100_000.0;

/// Times [`World::state_hash`] is taken on the warm world (the fastest is reported).
pub const STATE_HASH_RUNS: usize = 5;

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchOptions {
    /// Units in the army.
    pub units: usize,
    /// Timed ticks.
    pub ticks: u64,
    /// Untimed ticks first (the army sets off, buffers grow to size).
    pub warmup: u64,
    /// Seed of the army.
    pub seed: u64,
    /// Skip the brute-force pass.
    pub skip_brute_force: bool,
    /// March on the same map without obstacles (no trees, buildings or walls): what the army
    /// costs when it meets nothing, to tell the growth of the data from the obstacles' work.
    pub open_field: bool,
    /// Whether units avoid each other (`WorldSettings::avoidance`, on by default).
    pub avoidance: bool,
    /// Also time every run of this many ticks on its own (`None`: the whole run only), to see
    /// how the cost changes along the march.
    pub window: Option<u64>,
    /// Units per top-level formation (`None`: squads in platoons; see
    /// [`ArmySpec::group_size`]).
    pub group_size: Option<usize>,
    /// Side of the army's square map, metres ([`ArmySpec::map_size`]; 1 km by default).
    pub map_size: f32,
    /// Threads of the pool the world steps in (`None`: one per core). More than one needs
    /// the formation crate's `parallel` feature ([`cohort_formation::world::PARALLEL`]).
    pub threads: Option<usize>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            units: 10_000,
            ticks: 100,
            warmup: 20,
            seed: 1,
            skip_brute_force: false,
            open_field: false,
            avoidance: true,
            window: None,
            group_size: None,
            map_size: ArmySpec::default().map_size,
            threads: None,
        }
    }
}

/// The cost of one run of timed ticks (see [`BenchOptions::window`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchWindow {
    /// Ticks stepped before the window, warm-up included.
    pub from_tick: u64,
    /// Ticks in the window.
    pub ticks: u64,
    /// Wall-clock nanoseconds per unit-tick.
    pub ns_per_unit_tick: f64,
    /// Thread CPU time per unit-tick, nanoseconds, where the platform has a thread clock.
    pub cpu_ns_per_unit_tick: Option<f64>,
}

/// One stage of the tick over the timed ticks ([`World::timings`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchStage {
    /// The stage's name ([`Stage::name`]), in tick order.
    pub stage: &'static str,
    /// Mean wall-clock milliseconds per tick.
    pub ms_per_tick: f64,
    /// Its share of the time of all stages.
    pub share: f64,
}

/// What `cohort bench` measured (the JSON keys are the field names).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchReport {
    /// Units stepped.
    pub units: usize,
    /// Timed ticks.
    pub ticks: u64,
    /// Untimed warm-up ticks before them.
    pub warmup_ticks: u64,
    /// Whether the army marched on an open field (no obstacles).
    pub open_field: bool,
    /// Whether units avoided each other.
    pub avoidance: bool,
    /// Units per top-level formation, when the army was grouped so (`null`: squads in
    /// platoons).
    pub group_size: Option<usize>,
    /// Side of the square map, metres.
    pub map_size: f32,
    /// Threads the world stepped on (1 when the formation crate is built without its
    /// `parallel` feature).
    pub threads: usize,
    /// Formations in the world (top-level and nested).
    pub formations: usize,
    /// Milliseconds to build the world from nothing: the terrain (map, navigation graphs)
    /// and the army, ready for its first tick.
    pub build_ms: f64,
    /// Thread CPU time of [`BenchReport::build_ms`], milliseconds, where the platform has a
    /// thread clock (not inflated when other processes share the cores).
    pub build_cpu_ms: Option<f64>,
    /// Milliseconds the terrain alone takes to build (a world without units on the same map:
    /// the map checked, its navigation graphs and indexes built).
    pub terrain_build_ms: f64,
    /// Thread CPU time of [`BenchReport::terrain_build_ms`], milliseconds.
    pub terrain_build_cpu_ms: Option<f64>,
    /// Nodes of the world's navigation graph.
    pub nav_nodes: usize,
    /// Directed edges of the world's navigation graph.
    pub nav_edges: usize,
    /// Nanoseconds per unit per tick (all layers).
    pub ns_per_unit_tick: f64,
    /// Milliseconds per tick.
    pub ms_per_tick: f64,
    /// CPU time of the stepping thread per unit-tick, nanoseconds (the thread's CPU clock, where
    /// the platform has one): unlike the wall clock, not inflated when other processes share
    /// the cores.
    pub cpu_ns_per_unit_tick: Option<f64>,
    /// Heap high-water mark, bytes (counting allocator; building the world included).
    pub peak_bytes: u64,
    /// Heap held by the terrain alone (map, navigation graph, caches) in a world without units.
    pub terrain_bytes: u64,
    /// Heap held by the warm world less the terrain's, per unit.
    pub bytes_per_unit: f64,
    /// Peak resident set of the process (`VmHWM`), bytes, where the OS reports it.
    pub peak_rss_bytes: Option<u64>,
    /// Heap allocations during the timed ticks (0 once warm).
    pub allocations_per_tick: f64,
    /// Nanoseconds per unit-tick of the same world with brute-force neighbour search.
    pub brute_force_ns_per_unit_tick: Option<f64>,
    /// Ticks the brute-force pass ran (fewer than `ticks` for large armies).
    pub brute_force_ticks: u64,
    /// `brute_force_ns_per_unit_tick / ns_per_unit_tick`.
    pub grid_speedup: Option<f64>,
    /// The timed ticks window by window, when asked for (else empty).
    pub windows: Vec<BenchWindow>,
    /// The timed ticks stage by stage, in tick order (zeros when the formation crate is built
    /// without its `timings` feature).
    pub stages: Vec<BenchStage>,
    /// Nanoseconds per unit of [`World::state_hash`] on the warm world after the timed ticks
    /// (the fastest of [`STATE_HASH_RUNS`]).
    pub state_hash_ns_per_unit: f64,
    /// Heap allocations of one state hash (0).
    pub state_hash_allocations: u64,
    /// [`World::state_hash`] of the world after the timed ticks: the same options give the
    /// same hash on any build that steps the world bit for bit alike.
    pub state_hash: u64,
    /// Size of the warm world's binary state snapshot ([`World::to_binary_snapshot`]), bytes.
    pub snapshot_bytes: u64,
    /// Milliseconds to write the binary snapshot and load it back into the world.
    pub snapshot_round_trip_ms: f64,
    /// Whether the world loaded back has the state hash it was saved with.
    pub snapshot_round_trip_exact: bool,
}

/// Errors of `cohort bench`.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An option out of range.
    #[error("{what} must be {range}, got {value}")]
    OutOfRange {
        /// The option.
        what: &'static str,
        /// The allowed range.
        range: String,
        /// The value given.
        value: u64,
    },
    /// The army could not be built.
    #[error("building the army: {0}")]
    Build(#[from] cohort_formation::WorldError),
    /// More than one thread asked of a build without the `parallel` feature.
    #[error(
        "--threads {0} needs the parallel feature (build with `--features parallel`); this \
         build steps on one thread"
    )]
    NotParallel(usize),
    /// The thread pool could not be made.
    #[error("making a pool of {threads} threads: {why}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// Why it failed.
        why: String,
    },
}

/// Ticks the brute-force pass runs for `units` when the grid pass ran `ticks`.
pub fn brute_force_ticks(units: usize, ticks: u64) -> u64 {
    let n = units.max(1) as f64;
    let affordable = (BRUTE_FORCE_PAIR_BUDGET / (n * n)).floor() as u64;
    ticks.min(affordable).max(1)
}

/// Most threads `cohort bench --threads` takes.
pub const MAX_BENCH_THREADS: usize = 256;

/// Builds the army, warms it up, times `ticks` ticks, then times the brute-force pass; all
/// of it inside a rayon pool of [`BenchOptions::threads`] threads.
pub fn run_bench(options: &BenchOptions) -> Result<BenchReport, BenchError> {
    let threads = match options.threads {
        Some(n) if !(1..=MAX_BENCH_THREADS).contains(&n) => {
            return Err(BenchError::OutOfRange {
                what: "--threads",
                range: format!("1..={MAX_BENCH_THREADS}"),
                value: n as u64,
            });
        }
        Some(n) if n > 1 && !cohort_formation::world::PARALLEL => {
            return Err(BenchError::NotParallel(n));
        }
        Some(n) => n,
        // One per core where the stages run in parallel.
        None if cohort_formation::world::PARALLEL => 0,
        None => 1,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BenchError::ThreadPool {
            threads,
            why: e.to_string(),
        })?;
    pool.install(|| bench_in_pool(options))
}

/// [`run_bench`] inside its thread pool.
fn bench_in_pool(options: &BenchOptions) -> Result<BenchReport, BenchError> {
    if options.units == 0 || options.units > MAX_BENCH_UNITS {
        return Err(BenchError::OutOfRange {
            what: "--units",
            range: format!("1..={MAX_BENCH_UNITS}"),
            value: options.units as u64,
        });
    }
    if options.ticks == 0 || options.ticks > MAX_BENCH_TICKS {
        return Err(BenchError::OutOfRange {
            what: "--ticks",
            range: format!("1..={MAX_BENCH_TICKS}"),
            value: options.ticks,
        });
    }
    if let Some(n) = options
        .group_size
        .filter(|n| !(1..=MAX_GROUP_SIZE).contains(n))
    {
        return Err(BenchError::OutOfRange {
            what: "--group-size",
            range: format!("1..={MAX_GROUP_SIZE}"),
            value: n as u64,
        });
    }
    if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&options.map_size) {
        return Err(BenchError::OutOfRange {
            what: "--map-size",
            range: format!("{MIN_MAP_SIZE}..={MAX_MAP_SIZE}"),
            value: options.map_size as u64,
        });
    }
    if options.window == Some(0) {
        return Err(BenchError::OutOfRange {
            what: "--window",
            range: format!("1..={MAX_BENCH_TICKS}"),
            value: 0,
        });
    }
    let mut settings = WorldSettings::default();
    settings.avoidance.enabled = options.avoidance;
    let spec = ArmySpec {
        units: options.units,
        seed: options.seed,
        obstacles: !options.open_field,
        group_size: options.group_size,
        map_size: options.map_size,
        ..ArmySpec::default()
    };
    // The heap of the terrain alone (map, navigation graph, geometry index), to leave out of
    // the per-unit figure.
    let mut empty = None;
    let mut terrain_build = (0.0, None);
    let terrain = allocation_counter::measure(|| {
        let clock = Clock::start();
        empty = World::new(spec.map(), WorldSettings::default(), spec.seed).ok();
        terrain_build = clock.ms();
    });
    let (nav_nodes, nav_edges) = empty.as_ref().map_or((0, 0), |w| {
        (w.navgraph().node_count(), w.navgraph().edge_count())
    });
    drop(empty);
    let terrain_bytes = terrain.bytes_current.max(0) as u64;
    // Build and warm up inside one count: what it still holds at the end is the world.
    let mut built = None;
    let mut build = (0.0, None);
    let building = allocation_counter::measure(|| {
        let clock = Clock::start();
        let army = build_army(&spec, settings);
        build = clock.ms();
        built = Some(army.map(|army| {
            let mut world = army.world;
            for _ in 0..options.warmup {
                world.step(BENCH_DT);
            }
            world
        }));
    });
    let mut world = match built {
        Some(Ok(world)) => world,
        Some(Err(e)) => return Err(BenchError::Build(e)),
        // `measure` always runs its closure; kept as an error rather than a panic.
        None => {
            return Err(BenchError::Build(cohort_formation::WorldError::Invalid {
                what: "army",
                why: "was not built".into(),
            }));
        }
    };
    // The brute-force copy is made outside the counts: it is not part of this world.
    let brute_world = (!options.skip_brute_force).then(|| world.clone());
    let mut seconds = 0.0f64;
    let mut cpu_ns = None;
    // Made before the count: reading the clocks between windows allocates nothing.
    let window = options.window.unwrap_or(options.ticks).min(options.ticks);
    let mut windows = Vec::with_capacity(match options.window {
        Some(_) => options.ticks.div_ceil(window) as usize,
        None => 0,
    });
    let units = options.units as f64;
    let mut stage_times = [std::time::Duration::ZERO; STAGE_COUNT];
    let running = allocation_counter::measure(|| {
        let cpu_start = cpu_time::ThreadTime::try_now().ok();
        let start = Instant::now();
        let mut done = 0;
        while done < options.ticks {
            let n = window.min(options.ticks - done);
            let cpu_at = cpu_time::ThreadTime::try_now().ok();
            let at = Instant::now();
            for _ in 0..n {
                world.step(BENCH_DT);
                for (total, (_, t)) in stage_times.iter_mut().zip(world.timings().stages()) {
                    *total += t;
                }
            }
            if options.window.is_some() {
                let unit_ticks = units * n as f64;
                windows.push(BenchWindow {
                    from_tick: options.warmup + done,
                    ticks: n,
                    ns_per_unit_tick: at.elapsed().as_secs_f64() * 1e9 / unit_ticks,
                    cpu_ns_per_unit_tick: cpu_at
                        .and_then(|t| t.try_elapsed().ok())
                        .map(|d| d.as_nanos() as f64 / unit_ticks),
                });
            }
            done += n;
        }
        seconds = start.elapsed().as_secs_f64();
        cpu_ns = cpu_start
            .and_then(|t| t.try_elapsed().ok())
            .map(|d| d.as_nanos() as f64);
    });
    let formations = world.formations().count();
    let (state_hash_ns_per_unit, state_hash_allocations) = time_state_hash(&world);
    let state_hash = world.state_hash();
    let snapshot = time_snapshot(&mut world)?;
    drop(world);
    let warm_bytes = building.bytes_current.max(0) as u64;
    let peak_bytes = building.bytes_max.max(warm_bytes + running.bytes_max);
    let unit_ticks = options.units as f64 * options.ticks as f64;
    let ns_per_unit_tick = seconds * 1e9 / unit_ticks;
    let bf_ticks = brute_force_ticks(options.units, options.ticks);
    let brute = brute_world.map(|mut w| {
        let _ = w.update_settings(|s| s.brute_force_neighbours = true);
        // One untimed tick so the copy's scratch buffers grow first.
        w.step(BENCH_DT);
        let start = Instant::now();
        for _ in 0..bf_ticks {
            w.step(BENCH_DT);
        }
        start.elapsed().as_secs_f64() * 1e9 / (options.units as f64 * bf_ticks as f64)
    });
    Ok(BenchReport {
        units: options.units,
        ticks: options.ticks,
        warmup_ticks: options.warmup,
        open_field: options.open_field,
        avoidance: options.avoidance,
        group_size: options.group_size,
        map_size: spec.map_size,
        threads: if cohort_formation::world::PARALLEL {
            rayon::current_num_threads()
        } else {
            1
        },
        formations,
        build_ms: build.0,
        build_cpu_ms: build.1,
        terrain_build_ms: terrain_build.0,
        terrain_build_cpu_ms: terrain_build.1,
        nav_nodes,
        nav_edges,
        ns_per_unit_tick,
        ms_per_tick: seconds * 1e3 / options.ticks as f64,
        cpu_ns_per_unit_tick: cpu_ns.map(|ns| ns / unit_ticks),
        peak_bytes,
        terrain_bytes,
        bytes_per_unit: warm_bytes.saturating_sub(terrain_bytes) as f64 / options.units as f64,
        peak_rss_bytes: peak_rss_bytes(),
        allocations_per_tick: running.count_total as f64 / options.ticks as f64,
        brute_force_ns_per_unit_tick: brute,
        brute_force_ticks: if brute.is_some() { bf_ticks } else { 0 },
        grid_speedup: brute.map(|b| b / ns_per_unit_tick),
        windows,
        stages: stage_report(&stage_times, options.ticks),
        state_hash_ns_per_unit,
        state_hash_allocations,
        state_hash,
        snapshot_bytes: snapshot.bytes,
        snapshot_round_trip_ms: snapshot.round_trip_ms,
        snapshot_round_trip_exact: snapshot.exact,
    })
}

/// Each stage's mean time per tick and share, from its total over `ticks` ticks.
fn stage_report(totals: &[std::time::Duration; STAGE_COUNT], ticks: u64) -> Vec<BenchStage> {
    let all: f64 = totals.iter().map(|t| t.as_secs_f64()).sum();
    Stage::ALL
        .iter()
        .zip(totals)
        .map(|(stage, t)| BenchStage {
            stage: stage.name(),
            ms_per_tick: t.as_secs_f64() * 1e3 / ticks.max(1) as f64,
            share: if all > 0.0 {
                t.as_secs_f64() / all
            } else {
                0.0
            },
        })
        .collect()
}

/// A wall clock and the thread's CPU clock, started together.
struct Clock {
    wall: Instant,
    cpu: Option<cpu_time::ThreadTime>,
}

impl Clock {
    fn start() -> Self {
        Self {
            cpu: cpu_time::ThreadTime::try_now().ok(),
            wall: Instant::now(),
        }
    }

    /// Milliseconds since the start: wall clock, and thread CPU time where there is one.
    fn ms(&self) -> (f64, Option<f64>) {
        (
            self.wall.elapsed().as_secs_f64() * 1e3,
            self.cpu
                .and_then(|t| t.try_elapsed().ok())
                .map(|d| d.as_secs_f64() * 1e3),
        )
    }
}

/// The fastest of [`STATE_HASH_RUNS`] state hashes of `world`, nanoseconds per unit, and the
/// allocations of one.
fn time_state_hash(world: &World) -> (f64, u64) {
    let units = world.unit_count().max(1) as f64;
    let mut best = f64::INFINITY;
    let mut hash = 0;
    for _ in 0..STATE_HASH_RUNS {
        let start = Instant::now();
        hash ^= std::hint::black_box(world.state_hash());
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / units);
    }
    std::hint::black_box(hash);
    let counted = allocation_counter::measure(|| {
        std::hint::black_box(world.state_hash());
    });
    (best, counted.count_total)
}

/// What a binary snapshot round trip of the warm world measured.
struct SnapshotTiming {
    bytes: u64,
    round_trip_ms: f64,
    exact: bool,
}

/// Writes the world's binary snapshot and loads it back into the world, timed.
fn time_snapshot(world: &mut World) -> Result<SnapshotTiming, BenchError> {
    let before = world.state_hash();
    let start = Instant::now();
    let bytes = world.to_binary_snapshot()?;
    world.load_state(&bytes)?;
    let round_trip_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(SnapshotTiming {
        bytes: bytes.len() as u64,
        round_trip_ms,
        exact: world.state_hash() == before,
    })
}

/// The process's peak resident set size (`VmHWM` in `/proc/self/status`), where available.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

impl BenchReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
