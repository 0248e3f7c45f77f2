//! The `cohort` command line: `run`, `render`, `check`, `bench`, `view` and `compare`.
//!
//! Exit status: 0 on success, 2 for bad input (an invalid file or argument), 1 when something
//! else fails (for example an output file cannot be written).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::render;
use crate::runner::Runner;
use crate::scenario::MAX_DURATION;

/// Formation and squad movement: run, draw and check scenarios.
#[derive(Debug, Parser)]
#[command(name = "cohort", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario headless and print its metrics.
    Run {
        /// The scenario file.
        file: PathBuf,
        /// Ticks to run (default: the scenario's duration; after --snapshot-in, ticks more).
        #[arg(long)]
        ticks: Option<u64>,
        /// Seed instead of the scenario's.
        #[arg(long)]
        seed: Option<u64>,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Save the run's final state here (to continue it with --snapshot-in): RON text for
        /// a `.ron` file, compact binary for any other name.
        #[arg(long, value_name = "PATH")]
        snapshot_out: Option<PathBuf>,
        /// Continue from a state saved with --snapshot-out from the same scenario (either
        /// format, told apart by its content).
        #[arg(long, value_name = "PATH")]
        snapshot_in: Option<PathBuf>,
        /// Record the world's state hash every N ticks (listed under `hashes`).
        #[arg(long, value_name = "N")]
        hash_every: Option<u64>,
        /// Also read pattern and playbook files from this directory (see docs/robustness.md).
        #[arg(long, value_name = "DIR")]
        assets: Option<PathBuf>,
    },
    /// Run a scenario and draw the map, trails, units, slots and anchors to a PNG.
    Render {
        /// The scenario file.
        file: PathBuf,
        /// The PNG to write.
        #[arg(long)]
        out: PathBuf,
        /// Ticks to run (default: the scenario's duration).
        #[arg(long)]
        ticks: Option<u64>,
        /// Image width in pixels.
        #[arg(long, default_value_t = 1200)]
        width: u32,
        /// Also read pattern and playbook files from this directory (see docs/robustness.md).
        #[arg(long, value_name = "DIR")]
        assets: Option<PathBuf>,
    },
    /// Validate a scenario, pattern or playbook file.
    Check {
        /// The file.
        file: PathBuf,
        /// Also read pattern and playbook files from this directory (see docs/robustness.md).
        #[arg(long, value_name = "DIR")]
        assets: Option<PathBuf>,
    },
    /// Time the standard army (squads in platoons marching over a 1 km map with obstacles).
    Bench {
        /// Units in the army.
        #[arg(long, default_value_t = 10_000)]
        units: usize,
        /// Ticks to time (after 20 warm-up ticks).
        #[arg(long, default_value_t = 100)]
        ticks: u64,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Skip the brute-force neighbour search pass.
        #[arg(long)]
        no_brute_force: bool,
        /// March on the map without its obstacles (the data's growth without their work).
        #[arg(long)]
        open_field: bool,
        /// March with reciprocal avoidance off (to measure what it costs).
        #[arg(long)]
        no_avoidance: bool,
        /// Also report every run of this many timed ticks on its own.
        #[arg(long, value_name = "TICKS")]
        window: Option<u64>,
        /// The same units, spots and orders in flat top-level formations of N units instead
        /// of squads in platoons (what the number of formations costs).
        #[arg(long, value_name = "N")]
        group_size: Option<usize>,
        /// Side of the army's square map, metres (the same trees, buildings and walls per
        /// square kilometre).
        #[arg(long, value_name = "METRES", default_value_t = 1000.0)]
        map_size: f32,
        /// Step the world on a pool of N threads (default: one per core; more than one
        /// needs a build with the `parallel` feature).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Run a scenario through Cohort and through ORCA (`dodgy_2d`) with the same units.
    Compare {
        /// The scenario file.
        file: PathBuf,
        /// Ticks to run (default: the scenario's duration).
        #[arg(long)]
        ticks: Option<u64>,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// ORCA: agents farther apart than this (m) are not neighbours.
        #[arg(long, default_value_t = 15.0)]
        neighbour_distance: f32,
        /// ORCA: the nearest this many neighbours are avoided.
        #[arg(long, default_value_t = 10)]
        max_neighbours: usize,
        /// ORCA: seconds ahead collisions with other agents are avoided.
        #[arg(long, default_value_t = 5.0)]
        time_horizon: f32,
        /// ORCA: seconds ahead collisions with obstacles are avoided.
        #[arg(long, default_value_t = 5.0)]
        obstacle_time_horizon: f32,
    },
    /// Watch a scenario in a window: pause, step, order, inspect (press H for the keys).
    View {
        /// The scenario file.
        file: PathBuf,
        /// Run this many frames (one tick each), draw one more and exit (for automation).
        #[arg(long)]
        frames: Option<u64>,
        /// Save the last frame to this PNG (needs --frames).
        #[arg(long, value_name = "PNG")]
        screenshot: Option<PathBuf>,
        /// Inspect the unit with this spawn index from the start.
        #[arg(long, value_name = "INDEX")]
        pick: Option<usize>,
        /// Also read pattern and playbook files from this directory (see docs/robustness.md).
        #[arg(long, value_name = "DIR")]
        assets: Option<PathBuf>,
    },
}

/// Exit status for bad input.
pub const EXIT_BAD_INPUT: u8 = 2;

/// A failure: the message and the exit status.
#[derive(Debug)]
pub struct Failure {
    /// What went wrong.
    pub message: String,
    /// 1 or [`EXIT_BAD_INPUT`].
    pub status: u8,
}

fn bad(message: impl ToString) -> Failure {
    Failure {
        message: message.to_string(),
        status: EXIT_BAD_INPUT,
    }
}

fn failed(message: impl ToString) -> Failure {
    Failure {
        message: message.to_string(),
        status: 1,
    }
}

/// Runs a parsed command line; prints results to stdout and errors to stderr.
pub fn main_with(cli: Cli) -> ExitCode {
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("cohort: {}", f.message);
            ExitCode::from(f.status)
        }
    }
}

fn execute(command: Command) -> Result<(), Failure> {
    match command {
        Command::Run {
            file,
            ticks,
            seed,
            json,
            snapshot_out,
            snapshot_in,
            hash_every,
            assets,
        } => {
            if hash_every == Some(0) {
                return Err(bad("--hash-every must be at least 1"));
            }
            if let Some(path) = &snapshot_out {
                check_out_path(path)?;
            }
            let mut runner = prepare(&file, seed, false, assets.as_deref())?;
            if let Some(path) = &snapshot_in {
                let data = crate::runner::read_snapshot(path).map_err(bad)?;
                runner
                    .restore(&data)
                    .map_err(|e| bad(format!("{}: {e}", path.display())))?;
            }
            runner.hash_every(hash_every);
            let n = ticks_to_run(&runner, ticks, snapshot_in.is_some())?;
            advance(&mut runner, n)?;
            if let Some(path) = &snapshot_out {
                let format = crate::runner::snapshot_format_for(path);
                let bytes = runner
                    .snapshot_as(format)
                    .map_err(|e| failed(format!("{}: {e}", path.display())))?;
                write_atomic(path, &bytes)
                    .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            }
            let report = runner.report();
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{report}");
            }
            Ok(())
        }
        Command::Render {
            file,
            out,
            ticks,
            width,
            assets,
        } => {
            if width == 0 || width > render::MAX_SIDE {
                return Err(bad(format!(
                    "--width must be 1..={}, got {width}",
                    render::MAX_SIDE
                )));
            }
            let mut runner = prepare(&file, None, true, assets.as_deref())?;
            let n = ticks_to_run(&runner, ticks, false)?;
            advance(&mut runner, n)?;
            let pixmap = render::draw(&runner.scene(), width).map_err(failed)?;
            render::save_png(&pixmap, &out).map_err(failed)?;
            println!(
                "{}: {} × {} after {} ticks",
                out.display(),
                pixmap.width(),
                pixmap.height(),
                runner.tick()
            );
            Ok(())
        }
        Command::Bench {
            units,
            ticks,
            json,
            no_brute_force,
            open_field,
            no_avoidance,
            window,
            group_size,
            map_size,
            threads,
        } => {
            let options = crate::bench::BenchOptions {
                units,
                ticks,
                skip_brute_force: no_brute_force,
                open_field,
                avoidance: !no_avoidance,
                window,
                group_size,
                map_size,
                threads,
                ..crate::bench::BenchOptions::default()
            };
            let report = crate::bench::run_bench(&options).map_err(bad)?;
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{report}");
            }
            Ok(())
        }
        Command::Compare {
            file,
            ticks,
            json,
            neighbour_distance,
            max_neighbours,
            time_horizon,
            obstacle_time_horizon,
        } => {
            let params = crate::compare::DodgyParams {
                neighbour_distance,
                max_neighbours,
                time_horizon,
                obstacle_time_horizon,
            };
            let comparison = crate::compare::compare_file(&file, ticks, params).map_err(bad)?;
            if json {
                println!("{}", comparison.to_json());
            } else {
                print!("{comparison}");
            }
            Ok(())
        }
        Command::Check { file, assets } => {
            let summary =
                crate::check::check_file_with_assets(&file, assets.as_deref()).map_err(bad)?;
            println!("{summary}");
            Ok(())
        }
        Command::View {
            file,
            frames,
            screenshot,
            pick,
            assets,
        } => {
            let shot = screenshot.clone();
            crate::viewer::run(crate::viewer::ViewOptions {
                file,
                frames,
                screenshot,
                pick,
                assets,
            })
            .map_err(|e| {
                if e.is_bad_input() {
                    bad(&e)
                } else {
                    failed(&e)
                }
            })?;
            if let Some(path) = shot {
                println!("{}", path.display());
            }
            Ok(())
        }
    }
}

/// Refuses, before the run, a `--snapshot-out` path that cannot be written: a folder, or a
/// file in a folder that does not exist.
fn check_out_path(path: &Path) -> Result<(), Failure> {
    let shown = path.display();
    if path.is_dir() {
        return Err(bad(format!(
            "--snapshot-out {shown}: is a folder, not a file"
        )));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(bad(format!(
                "--snapshot-out {shown}: the folder {} does not exist",
                dir.display()
            )));
        }
    }
    Ok(())
}

fn prepare(
    file: &Path,
    seed: Option<u64>,
    trails: bool,
    assets: Option<&Path>,
) -> Result<Runner, Failure> {
    crate::runner::load_runner_with_assets(file, seed, trails, assets).map_err(bad)
}

fn ticks_to_run(runner: &Runner, ticks: Option<u64>, resumed: bool) -> Result<u64, Failure> {
    let n = match ticks {
        Some(n) => n,
        None if resumed => runner.duration().saturating_sub(runner.tick()),
        None => runner.duration(),
    };
    if n > MAX_DURATION {
        return Err(bad(format!(
            "--ticks must be at most {MAX_DURATION}, got {n}"
        )));
    }
    Ok(n)
}

/// Runs `n` ticks with a progress bar when stdout is a terminal.
fn advance(runner: &mut Runner, n: u64) -> Result<(), Failure> {
    let bar = std::io::stdout().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(n);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} ticks ({per_sec}, eta {eta})",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let result = runner.run(n, |_| {
        if let Some(b) = &bar {
            b.inc(1);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    result.map_err(bad)
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "out".to_owned(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
