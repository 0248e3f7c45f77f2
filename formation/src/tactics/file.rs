//! Playbooks in RON files (`playbooks/*.ron`): parse errors name `file:line:col`, validation
//! errors `file: field: what`.

use std::path::Path;

use ron::extensions::Extensions;

use super::error::TacticsError;
use super::playbook::{Playbook, ValidPlaybook};

/// Largest playbook file read, bytes.
pub const MAX_PLAYBOOK_BYTES: u64 = 16 << 20;

impl Playbook {
    /// Parses a playbook from RON `text` (`Some(..)` may be left out of optional fields);
    /// `origin` names the text in errors, which display as `origin:line:col: message`. Not
    /// validated yet.
    pub fn from_ron_str(text: &str, origin: &str) -> Result<Playbook, TacticsError> {
        ron::Options::default()
            .with_default_extension(Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| TacticsError::Parse {
                origin: origin.to_owned(),
                line: e.span.start.line,
                col: e.span.start.col,
                message: crate::text_file::ron_message_without_content(&e.code),
            })
    }

    /// The playbook as pretty RON text (what [`Playbook::from_ron_str`] reads back).
    pub fn to_ron_string(&self) -> Result<String, TacticsError> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| TacticsError::invalid("playbook", e.to_string()))
    }
}

/// Reads, parses and validates the playbook file at `path` (at most
/// [`MAX_PLAYBOOK_BYTES`]).
pub fn load_playbook(path: impl AsRef<Path>) -> Result<ValidPlaybook, TacticsError> {
    let path = path.as_ref();
    let origin = path.display().to_string();
    let io = |message: String| TacticsError::Io {
        origin: origin.clone(),
        message,
    };
    let text = crate::text_file::read_text_file(path, MAX_PLAYBOOK_BYTES).map_err(io)?;
    Playbook::from_ron_str(&text, &origin)?
        .validate()
        .map_err(|e| TacticsError::InFile {
            origin,
            source: Box::new(e),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn playbooks_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../playbooks")
    }

    #[test]
    fn parse_error_names_file_line_and_column() {
        let text = "(\n  name: \"x\",\n  plays: [\n    (name: \"a\" phases: []),\n  ],\n)\n";
        let e = Playbook::from_ron_str(text, "book.ron").unwrap_err();
        let TacticsError::Parse { line, .. } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(*line, 4, "{e}");
        assert!(e.to_string().starts_with("book.ron:4:"), "{e}");
    }

    #[test]
    fn validation_error_names_file_and_field() {
        let dir = std::env::temp_dir().join(format!("cohort-playbook-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.ron");
        std::fs::write(
            &path,
            "(name: \"b\", plays: [(name: \"a\", phases: [(duration: -1.0, slots: [Fixed(offset: (0.0, 0.0))])])])",
        )
        .unwrap();
        let e = load_playbook(&path).unwrap_err().to_string();
        assert!(e.contains("bad.ron: plays[0].phases[0].duration"), "{e}");
        assert!(matches!(
            load_playbook(dir.join("missing.ron")),
            Err(TacticsError::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn every_bundled_playbook_loads() {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(playbooks_dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ron") {
                let book = load_playbook(&path).unwrap_or_else(|e| panic!("{e}"));
                assert!(!book.playbook().plays.is_empty());
                names.push(path.file_stem().unwrap().to_string_lossy().into_owned());
            }
        }
        names.sort();
        assert!(names.iter().any(|n| n == "corner_kick"), "{names:?}");
        assert!(names.iter().any(|n| n == "fire_team_drill"), "{names:?}");
    }

    #[test]
    fn round_trip_through_ron() {
        let book = load_playbook(playbooks_dir().join("corner_kick.ron")).unwrap();
        let text = book.playbook().to_ron_string().unwrap();
        let back = Playbook::from_ron_str(&text, "t").unwrap();
        assert_eq!(&back, book.playbook());
    }
}
