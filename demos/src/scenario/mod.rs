//! Scenario files: the documented RON format (`docs/scenario-format.md`), loading with errors
//! that name `file:line:col` or the offending field, and building a
//! [`World`](cohort_formation::World) and its [`Timeline`] from a scenario.

mod build;
mod error;
mod files;
mod format;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cohort_formation::pattern::ValidPattern;
use cohort_formation::tactics::ValidPlaybook;
use ron::extensions::Extensions;

pub use build::{Built, SpawnedUnit, Timeline, TimelineAction, TimelineEvent};
pub use error::ScenarioError;
pub use files::AssetRoots;
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

/// Reads a text file of at most [`MAX_FILE_BYTES`]: a regular file (FIFOs and devices are
/// refused without being opened), read through a bounded reader.
pub fn read_text(path: &Path) -> Result<String, ScenarioError> {
    cohort_formation::text_file::read_text_file(path, MAX_FILE_BYTES).map_err(|message| {
        ScenarioError::Io {
            origin: path.display().to_string(),
            message,
        }
    })
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
    /// Playbook files it names, loaded and validated, by the path the scenario gives.
    pub playbooks: BTreeMap<String, ValidPlaybook>,
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
    /// names (from the scenario's directory, its `patterns/` subdirectory, or `../patterns/`)
    /// and the playbooks, all inside the scenario's [`AssetRoots`].
    pub fn load(path: impl AsRef<Path>) -> Result<LoadedScenario, ScenarioError> {
        Self::load_with_assets(path, None)
    }

    /// [`Scenario::load`] also allowing files under `assets` (the command line's
    /// `--assets DIR`), where patterns are looked up too.
    pub fn load_with_assets(
        path: impl AsRef<Path>,
        assets: Option<&Path>,
    ) -> Result<LoadedScenario, ScenarioError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = read_text(path)?;
        let scenario = Scenario::from_ron_str(&text, &origin)?;
        scenario.validate_in(
            &origin,
            &lookup_dirs(path, assets),
            &AssetRoots::for_scenario(path, assets),
        )
    }

    /// Validates a parsed scenario (see `docs/scenario-format.md` for every rule), looking for
    /// pattern files in `pattern_dirs`; referenced files must lie in the asset roots of a
    /// scenario file at `origin`.
    pub fn validate(
        self,
        origin: &str,
        pattern_dirs: &[PathBuf],
    ) -> Result<LoadedScenario, ScenarioError> {
        let roots = AssetRoots::for_scenario(Path::new(origin), None);
        self.validate_in(origin, pattern_dirs, &roots)
    }

    /// [`Scenario::validate`] with explicit asset roots.
    pub fn validate_in(
        self,
        origin: &str,
        pattern_dirs: &[PathBuf],
        roots: &AssetRoots,
    ) -> Result<LoadedScenario, ScenarioError> {
        let loaded = validate::check(&self, origin, pattern_dirs, roots)?;
        Ok(LoadedScenario {
            scenario: self,
            origin: origin.to_owned(),
            patterns: loaded.patterns,
            playbooks: loaded.playbooks,
        })
    }
}

/// Directories searched for `File("name")` patterns of a scenario at `path`, with the
/// command line's `--assets DIR` (and its `patterns/`) last.
pub fn lookup_dirs(path: &Path, assets: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = pattern_dirs(path);
    if let Some(a) = assets {
        dirs.push(a.join("patterns"));
        dirs.push(a.to_path_buf());
    }
    dirs
}

/// Directories searched for `File("name")` patterns of a scenario at `path`.
pub fn pattern_dirs(path: &Path) -> Vec<PathBuf> {
    let dir = files::directory_of(path);
    vec![dir.join("patterns"), dir.join("../patterns"), dir]
}

#[cfg(test)]
mod tests;
