//! The `cohort` command: run, render and check scenarios (see `cohort --help`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    cohort_demos::cli::main_with(cohort_demos::cli::Cli::parse())
}
