//! `cohort check`: validates a scenario, pattern or playbook file and says what is wrong.

use std::path::Path;

use cohort_formation::pattern::load_pattern;
use cohort_formation::tactics::load_playbook;

use crate::scenario::{Scenario, read_text};

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
    check_file_with_assets(path, None)
}

/// [`check_file`] also allowing a scenario's pattern and playbook files under `assets`
/// (`--assets DIR`). A scenario is checked as `cohort run` would run it: validated, built
/// (the world refuses what validation cannot know, such as a unit placed beyond the
/// coordinate range by its slot) and every timeline order handed to the built world, so a
/// file this accepts is not refused by `run` at the start.
pub fn check_file_with_assets(path: &Path, assets: Option<&Path>) -> Result<String, String> {
    let origin = path.display().to_string();
    let text = read_text(path).map_err(|e| e.to_string())?;
    match detect(path, &text) {
        FileKind::Scenario => {
            let loaded = Scenario::from_ron_str(&text, &origin)
                .and_then(|s| {
                    s.validate_in(
                        &origin,
                        &crate::scenario::lookup_dirs(path, assets),
                        &crate::scenario::AssetRoots::for_scenario(path, assets),
                    )
                })
                .map_err(|e| e.to_string())?;
            let mut built = loaded.build().map_err(|e| e.to_string())?;
            for ev in &built.timeline.events {
                if let crate::scenario::TimelineAction::Order(order) = &ev.action {
                    built
                        .world
                        .order(ev.formation, order.clone())
                        .map_err(|e| format!("{}.order: {e}", ev.source))?;
                }
            }
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
            let book = load_playbook(path).map_err(|e| e.to_string())?;
            let plays = &book.playbook().plays;
            Ok(format!(
                "{origin}: valid playbook {:?}: {} play(s) ({})",
                book.name(),
                plays.len(),
                plays
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
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

    #[test]
    fn playbooks_are_validated_with_file_line_col_errors() {
        let dir = std::env::temp_dir().join(format!("cohort-check-{}", std::process::id()));
        let books = dir.join("playbooks");
        std::fs::create_dir_all(&books).unwrap();
        let bad_syntax = books.join("syntax.ron");
        std::fs::write(
            &bad_syntax,
            "(\n  name: \"x\",\n  plays: [(name: \"a\" phases: [])],\n)\n",
        )
        .unwrap();
        let e = check_file(&bad_syntax).unwrap_err();
        assert!(e.contains("syntax.ron:3:"), "{e}");
        let bad_value = books.join("value.ron");
        std::fs::write(
            &bad_value,
            "(name: \"x\", plays: [(name: \"a\", phases: [(duration: 0.0, slots: [Fixed(offset: (0.0, 0.0))])])])",
        )
        .unwrap();
        let e = check_file(&bad_value).unwrap_err();
        assert!(e.contains("value.ron: plays[0].phases[0].duration"), "{e}");
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../playbooks/corner_kick.ron");
        let ok = check_file(&shipped).unwrap();
        assert!(
            ok.contains("valid playbook \"corner_kick\": 3 play(s)"),
            "{ok}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
