//! Which files a scenario may name, and how they are read.
//!
//! A scenario names pattern files (`File("wedge")`) and playbook files (`RunPlay(playbook:
//! "../playbooks/drill.ron")`). Such a file is read only if, once every `..` and symbolic
//! link is resolved, it lies inside one of the scenario's *asset roots*:
//!
//! - the directory holding the scenario file;
//! - the `patterns/` and `playbooks/` directories beside that directory (the bundled layout:
//!   `scenarios/x.ron` names `../patterns/` and `../playbooks/`);
//! - a directory the user names (`--assets DIR` on the command line), if any.
//!
//! It must also be a regular file (checked before it is opened: FIFOs, devices and
//! directories are refused without being opened) of at most
//! [`cohort_formation::text_file::MAX_ASSET_BYTES`], read through a bounded reader.

use std::path::{Path, PathBuf};

/// The directories a scenario's pattern and playbook files must lie in (canonical paths).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssetRoots {
    roots: Vec<PathBuf>,
}

/// The directory holding `path` (`.` for a bare file name).
pub(super) fn directory_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

impl AssetRoots {
    /// The roots of the scenario at `scenario` (see the module's documentation), plus
    /// `assets` if given. Directories that do not exist are left out.
    pub fn for_scenario(scenario: &Path, assets: Option<&Path>) -> Self {
        let dir = directory_of(scenario);
        let mut candidates = vec![
            dir.clone(),
            dir.join("../patterns"),
            dir.join("../playbooks"),
        ];
        candidates.extend(assets.map(Path::to_path_buf));
        let mut roots: Vec<PathBuf> = Vec::new();
        for c in candidates {
            if let Ok(canon) = c.canonicalize()
                && !roots.contains(&canon)
            {
                roots.push(canon);
            }
        }
        Self { roots }
    }

    /// The canonical roots.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The canonical path of `candidate` if it exists inside a root, else why not.
    pub fn resolve(&self, candidate: &Path) -> Result<PathBuf, String> {
        let canon = candidate
            .canonicalize()
            .map_err(|e| format!("{}: {e}", candidate.display()))?;
        if self.roots.iter().any(|r| canon.starts_with(r)) {
            Ok(canon)
        } else {
            Err(format!(
                "{} is outside the scenario's asset directories (the scenario's directory, \
                 ../patterns, ../playbooks, or --assets DIR)",
                candidate.display()
            ))
        }
    }

    /// Reads the file at `candidate` after [`Self::resolve`]: a regular file of at most
    /// `MAX_ASSET_BYTES`. Returns the text; messages name `candidate`.
    pub fn read(&self, candidate: &Path) -> Result<String, String> {
        let canon = self.resolve(candidate)?;
        cohort_formation::text_file::read_text_file(
            &canon,
            cohort_formation::text_file::MAX_ASSET_BYTES,
        )
        .map_err(|e| format!("{}: {e}", candidate.display()))
    }
}
