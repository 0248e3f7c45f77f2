//! `cohort check`: validates a scenario, pattern or playbook file and says what is wrong.

use std::path::Path;

use cohort_formation::pattern::load_pattern;

use crate::scenario::{Scenario, ScenarioError, read_text, ron_options};

/// What kind of file a path holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A scenario (`scenarios/*.ron`, or any RON with `formations:`).
    Scenario,
    /// A formation pattern (`patterns/*.ron`, or RON with `kind:` and no `formations:`).
    Pattern,
    /// A playbook (`playbooks/*.ron`, or RON with `plays:`).
    Playbook,
}

/// Decides the kind of a file from its directory name, then its content.
pub fn detect(path: &Path, text: &str) -> FileKind {
    let dir = path
        .parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match dir.as_str() {
        "patterns" => return FileKind::Pattern,
        "playbooks" => return FileKind::Playbook,
        "scenarios" => return FileKind::Scenario,
        _ => {}
    }
    let has = |field: &str| {
        text.match_indices(field).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + field.len()..].trim_start().starts_with(':');
            after && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    if has("formations") {
        FileKind::Scenario
    } else if has("plays") {
        FileKind::Playbook
    } else if has("kind") {
        FileKind::Pattern
    } else {
        FileKind::Scenario
    }
}

/// Checks the file at `path`; `Ok` carries a one-line summary, `Err` the message
/// (`file:line:col: what` for syntax errors, `file: field: what` for values).
pub fn check_file(path: &Path) -> Result<String, String> {
    let origin = path.display().to_string();
    let text = read_text(path).map_err(|e| e.to_string())?;
    match detect(path, &text) {
        FileKind::Scenario => {
            let loaded = Scenario::from_ron_str(&text, &origin)
                .and_then(|s| s.validate(&origin, &crate::scenario::pattern_dirs(path)))
                .map_err(|e| e.to_string())?;
            let s = &loaded.scenario;
            let units: u64 = s.formations.iter().map(count_units).sum();
            Ok(format!(
                "{origin}: valid scenario {:?}: {} top-level formation(s), {units} units, {} \
                 timeline event(s), {} ticks",
                s.name,
                s.formations.len(),
                s.timeline.len(),
                s.duration
            ))
        }
        FileKind::Pattern => {
            let p = load_pattern(path).map_err(|e| e.to_string())?;
            Ok(format!(
                "{origin}: valid pattern {:?}, spacing {}",
                p.kind(),
                p.spacing()
            ))
        }
        FileKind::Playbook => {
            // The playbook schema belongs to the tactics layer; until it lands only the RON
            // syntax is checked.
            ron_options()
                .from_str::<ron::Value>(&text)
                .map_err(|e| ScenarioError::from_ron(&origin, &e).to_string())?;
            Ok(format!(
                "{origin}: RON syntax valid (playbook contents are not checked yet)"
            ))
        }
    }
}

fn count_units(n: &crate::scenario::FormationNode) -> u64 {
    n.children
        .iter()
        .fold(u64::from(n.units), |a, c| a.saturating_add(count_units(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_directory_then_content() {
        let p = Path::new("x/patterns/wedge.ron");
        assert_eq!(detect(p, "(formations: [])"), FileKind::Pattern);
        let p = Path::new("elsewhere/thing.ron");
        assert_eq!(
            detect(p, "(name: \"a\", formations: [])"),
            FileKind::Scenario
        );
        assert_eq!(detect(p, "(kind: Wedge, spacing: 1.5)"), FileKind::Pattern);
        assert_eq!(detect(p, "(plays: [])"), FileKind::Playbook);
        // `kind` inside another word does not count.
        assert_eq!(detect(p, "(mankind: 1)"), FileKind::Scenario);
    }
}
