//! Writes the traffic scenarios to `scenarios/traffic/` (`cargo run --example
//! traffic_scenarios`); `tests/traffic.rs` checks the files are what it makes.

#[path = "../tests/traffic_support/mod.rs"]
mod traffic_support;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/traffic");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for (name, text) in traffic_support::scenarios() {
        let path = dir.join(format!("{name}.ron"));
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}
