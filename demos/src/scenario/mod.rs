//! Scenario files: the documented RON format (`docs/scenario-format.md`), loading with errors
//! that name `file:line:col` or the offending field, and building a [`World`] and its
//! [`Timeline`] from a scenario.

mod build;
mod error;
mod format;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cohort_formation::pattern::ValidPattern;
use ron::extensions::Extensions;

pub use build::{Built, SpawnedUnit, Timeline, TimelineAction, TimelineEvent};
pub use error::ScenarioError;
pub use format::{FormationNode, OrderSpec, PatternRef, Scenario, TimedEvent, UnitTemplate};

/// Most units a scenario may spawn (checked before anything is allocated).
pub const MAX_TOTAL_UNITS: u64 = 200_000;
/// Most ticks a scenario may last.
pub const MAX_DURATION: u64 = 10_000_000;
/// Largest time step, seconds.
pub const MAX_DT: f32 = 0.25;
/// Deepest formation tree.
pub const MAX_DEPTH: usize = 16;
/// Most members (units plus sub-formations) of one formation.
pub const MAX_MEMBERS: u64 = 65_536;
/// Most timeline events.
pub const MAX_EVENTS: usize = 1_000_000;
/// Largest scenario file read, bytes.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// RON options every Cohort file is read with: `Some(..)` may be left out of optional fields.
pub fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(Extensions::IMPLICIT_SOME)
}

/// Reads a text file of at most [`MAX_FILE_BYTES`].
pub fn read_text(path: &Path) -> Result<String, ScenarioError> {
    let origin = path.display().to_string();
    let io = |e: std::io::Error| ScenarioError::Io {
        origin: origin.clone(),
        message: e.to_string(),
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > MAX_FILE_BYTES {
        return Err(ScenarioError::Io {
            origin: origin.clone(),
            message: format!("file is {len} bytes; the limit is {MAX_FILE_BYTES}"),
        });
    }
    std::fs::read_to_string(path).map_err(io)
}

/// A scenario that has been parsed and validated, with its pattern files loaded.
#[derive(Clone, Debug)]
pub struct LoadedScenario {
    /// The scenario as written.
    pub scenario: Scenario,
    /// Where it came from (for messages).
    pub origin: String,
    /// Pattern files it names, loaded and validated, by name.
    pub patterns: BTreeMap<String, ValidPattern>,
}

impl Scenario {
    /// Parses RON `text`; `origin` names it in errors. Not validated.
    pub fn from_ron_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        ron_options()
            .from_str(text)
            .map_err(|e| ScenarioError::from_ron(origin, &e))
    }

    /// The scenario as pretty RON.
    pub fn to_ron_string(&self) -> Result<String, ScenarioError> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| ScenarioError::invalid(&self.name, "", format!("cannot write RON: {e}")))
    }

    /// Reads, parses and validates the scenario file at `path`, loading the pattern files it
    /// names (from the scenario's directory, its `patterns/` subdirectory, or `../patterns/`).
    pub fn load(path: impl AsRef<Path>) -> Result<LoadedScenario, ScenarioError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = read_text(path)?;
        let scenario = Scenario::from_ron_str(&text, &origin)?;
        let dirs = pattern_dirs(path);
        scenario.validate(&origin, &dirs)
    }

    /// Validates a parsed scenario (see `docs/scenario-format.md` for every rule), looking for
    /// pattern files in `pattern_dirs`.
    pub fn validate(
        self,
        origin: &str,
        pattern_dirs: &[PathBuf],
    ) -> Result<LoadedScenario, ScenarioError> {
        let patterns = validate::check(&self, origin, pattern_dirs)?;
        Ok(LoadedScenario {
            scenario: self,
            origin: origin.to_owned(),
            patterns,
        })
    }
}

/// Directories searched for `File("name")` patterns of a scenario at `path`.
pub fn pattern_dirs(path: &Path) -> Vec<PathBuf> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    vec![dir.join("patterns"), dir.join("../patterns"), dir]
}

#[cfg(test)]
mod tests;
