//! Watching the files a view depends on: the scenario, the pattern files and the playbook
//! files beside it. Modification times are polled (no platform file-watcher needed for a
//! handful of files); the pattern library is what `P` cycles through.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use cohort_formation::pattern::{ValidPattern, load_pattern};

/// Directories of pattern files for the scenario at `scenario`: `patterns/` beside it and
/// `../patterns/` from it (the same places scenario `File("name")` patterns come from).
pub fn pattern_library_dirs(scenario: &Path, assets: Option<&Path>) -> Vec<PathBuf> {
    let dir = parent_dir(scenario);
    let mut dirs = vec![dir.join("patterns"), dir.join("../patterns")];
    dirs.extend(assets.map(|a| a.join("patterns")));
    dirs
}

/// Directories of playbook files: `playbooks/` beside the scenario and `../playbooks/`.
pub fn playbook_dirs(scenario: &Path, assets: Option<&Path>) -> Vec<PathBuf> {
    let dir = parent_dir(scenario);
    let mut dirs = vec![dir.join("playbooks"), dir.join("../playbooks")];
    dirs.extend(assets.map(|a| a.join("playbooks")));
    dirs
}

fn parent_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// `*.ron` files directly in `dir`, sorted (none if it cannot be read).
pub fn ron_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron") && p.is_file())
        .collect();
    files.sort();
    files
}

/// What changed since the last poll.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The scenario file changed.
    pub scenario: bool,
    /// A pattern file appeared, changed or went away.
    pub patterns: bool,
    /// A playbook file appeared, changed or went away.
    pub playbooks: bool,
}

impl Changes {
    /// Whether anything changed.
    pub fn any(&self) -> bool {
        self.scenario || self.patterns || self.playbooks
    }
}

/// Modification times of the watched files.
#[derive(Clone, Debug)]
pub struct Watcher {
    scenario: PathBuf,
    pattern_dirs: Vec<PathBuf>,
    playbook_dirs: Vec<PathBuf>,
    seen: BTreeMap<PathBuf, Option<SystemTime>>,
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Watcher {
    /// Watches the scenario at `scenario` and the pattern and playbook files near it (and
    /// under `assets`, the command line's `--assets DIR`).
    pub fn new(scenario: &Path, assets: Option<&Path>) -> Self {
        let mut w = Self {
            scenario: scenario.to_path_buf(),
            pattern_dirs: pattern_library_dirs(scenario, assets),
            playbook_dirs: playbook_dirs(scenario, assets),
            seen: BTreeMap::new(),
        };
        w.seen = w.scan();
        w
    }

    fn scan(&self) -> BTreeMap<PathBuf, Option<SystemTime>> {
        let mut seen = BTreeMap::new();
        seen.insert(self.scenario.clone(), mtime(&self.scenario));
        for dir in self.pattern_dirs.iter().chain(&self.playbook_dirs) {
            for f in ron_files(dir) {
                let t = mtime(&f);
                seen.insert(f, t);
            }
        }
        seen
    }

    /// Looks at the files again and says what changed.
    pub fn poll(&mut self) -> Changes {
        let now = self.scan();
        let mut changes = Changes::default();
        for path in now.keys().chain(self.seen.keys()) {
            if self.seen.get(path) == now.get(path) {
                continue;
            }
            if *path == self.scenario {
                changes.scenario = true;
            } else if self.pattern_dirs.iter().any(|d| path.starts_with(d)) {
                changes.patterns = true;
            } else {
                changes.playbooks = true;
            }
        }
        self.seen = now;
        changes
    }
}

/// The patterns `P` cycles through: every valid pattern file in the library directories, by
/// name (a name in `patterns/` beside the scenario hides the same name further out), and the
/// errors of the files that did not load.
#[derive(Clone, Debug, Default)]
pub struct PatternLibrary {
    /// Valid patterns by file stem, sorted by name.
    pub patterns: Vec<(String, ValidPattern)>,
    /// Files that did not load, with their error (`file:line:col: what`).
    pub errors: BTreeMap<PathBuf, String>,
}

impl PatternLibrary {
    /// Loads the library of the scenario at `scenario` (and of `assets`, `--assets DIR`).
    pub fn load(scenario: &Path, assets: Option<&Path>) -> Self {
        let mut by_name: BTreeMap<String, ValidPattern> = BTreeMap::new();
        let mut errors = BTreeMap::new();
        for dir in pattern_library_dirs(scenario, assets) {
            for file in ron_files(&dir) {
                let Some(name) = file.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                    continue;
                };
                if by_name.contains_key(&name) {
                    continue;
                }
                match load_pattern(&file) {
                    Ok(p) => {
                        by_name.insert(name, p);
                    }
                    Err(e) => {
                        errors.insert(file, e.to_string());
                    }
                }
            }
        }
        Self {
            patterns: by_name.into_iter().collect(),
            errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cohort-watch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("scenarios")).expect("temp dir");
        std::fs::create_dir_all(d.join("patterns")).expect("temp dir");
        d
    }

    #[test]
    fn library_loads_valid_patterns_and_reports_broken_ones() {
        let d = temp_dir("lib");
        let scenario = d.join("scenarios/s.ron");
        std::fs::write(&scenario, "()").expect("write");
        std::fs::write(d.join("patterns/wedge.ron"), "(kind: Wedge, spacing: 2.0)").expect("write");
        std::fs::write(
            d.join("patterns/broken.ron"),
            "(kind: Wedge,, spacing: 2.0)",
        )
        .expect("write");
        let lib = PatternLibrary::load(&scenario, None);
        let names: Vec<&str> = lib.patterns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["wedge"]);
        assert_eq!(lib.errors.len(), 1);
        let msg = lib.errors.values().next().expect("an error");
        assert!(msg.contains("broken.ron:1:"), "{msg}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn poll_reports_scenario_and_pattern_changes_separately() {
        let d = temp_dir("poll");
        let scenario = d.join("scenarios/s.ron");
        std::fs::write(&scenario, "()").expect("write");
        let mut w = Watcher::new(&scenario, None);
        assert!(!w.poll().any());
        std::fs::write(d.join("patterns/line.ron"), "(kind: Line)").expect("write");
        let c = w.poll();
        assert!(c.patterns && !c.scenario && !c.playbooks, "{c:?}");
        std::fs::remove_file(&scenario).expect("remove");
        let c = w.poll();
        assert!(c.scenario && !c.patterns, "{c:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
