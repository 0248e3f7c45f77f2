//! Patterns in RON files: parse errors name `file:line:col`.

use std::path::Path;

use super::{Pattern, PatternError, ValidPattern};

impl Pattern {
    /// Parses a pattern from RON `text`; `origin` names the text in errors (a file name).
    /// Errors display as `origin:line:col: message`. The result is not validated yet.
    pub fn from_ron_str(text: &str, origin: &str) -> Result<Pattern, PatternError> {
        ron::from_str(text).map_err(|e| PatternError::Parse {
            origin: origin.to_owned(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: crate::text_file::ron_message_without_content(&e.code),
        })
    }

    /// The pattern as pretty RON text (what [`Pattern::from_ron_str`] reads back).
    pub fn to_ron_string(&self) -> Result<String, PatternError> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| PatternError::Write(e.to_string()))
    }
}

/// Reads (a regular file of at most [`crate::text_file::MAX_ASSET_BYTES`]), parses and
/// validates the pattern file at `path`. Parse errors display as
/// `path:line:col: message`, validation errors as `path: message`.
pub fn load_pattern(path: impl AsRef<Path>) -> Result<ValidPattern, PatternError> {
    let path = path.as_ref();
    let origin = path.display().to_string();
    let text = crate::text_file::read_text_file(path, crate::text_file::MAX_ASSET_BYTES).map_err(
        |message| PatternError::Io {
            origin: origin.clone(),
            message,
        },
    )?;
    Pattern::from_ron_str(&text, &origin)?
        .validate()
        .map_err(|e| PatternError::InFile {
            origin,
            source: Box::new(e),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{PatternKind, Role};

    fn patterns_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../patterns")
    }

    #[test]
    fn error_names_file_line_and_column() {
        let text = "(\n    kind: Wedge,\n    spacing: 1.5\n    unit_radius: 0.5,\n)\n";
        let err = Pattern::from_ron_str(text, "wedge.ron").unwrap_err();
        let PatternError::Parse { line, col, .. } = &err else {
            panic!("not a parse error: {err:?}");
        };
        // The missing comma is noticed at the start of line 4.
        assert_eq!(*line, 4, "{err}");
        assert!(*col >= 1 && *col <= 5, "{err}");
        assert!(err.to_string().starts_with("wedge.ron:4:"), "{err}");
    }

    #[test]
    fn unknown_kind_is_a_parse_error() {
        let err = Pattern::from_ron_str("(kind: Blob)", "x.ron").unwrap_err();
        assert!(err.to_string().starts_with("x.ron:1:"), "{err}");
    }

    #[test]
    fn round_trip_through_ron() {
        let pattern = Pattern {
            kind: PatternKind::Custom(vec![
                crate::pattern::Slot::new(glam::Vec2::new(1.0, 0.0), Role::Leader),
                crate::pattern::Slot::new(glam::Vec2::new(0.0, 1.0), Role::Custom(7)),
            ]),
            spacing: 2.0,
            unit_radius: 0.5,
        };
        let text = pattern.to_ron_string().unwrap();
        assert_eq!(Pattern::from_ron_str(&text, "t").unwrap(), pattern);
    }

    #[test]
    fn every_shipped_pattern_file_loads() {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(patterns_dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ron") {
                let pattern = load_pattern(&path).unwrap_or_else(|e| panic!("{e}"));
                let mut slots = Vec::new();
                pattern.layout(12, &mut slots);
                assert_eq!(slots.len(), 12);
                names.push(path.file_stem().unwrap().to_string_lossy().into_owned());
            }
        }
        names.sort();
        for expected in [
            "box",
            "column",
            "defensive_circle",
            "echelon_left",
            "echelon_right",
            "finger_four",
            "line",
            "two_abreast",
            "wedge",
        ] {
            assert!(
                names.iter().any(|n| n == expected),
                "missing {expected}.ron"
            );
        }
    }

    #[test]
    fn invalid_file_contents_name_the_file() {
        let dir = std::env::temp_dir().join(format!("cohort-pattern-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.ron");
        std::fs::write(&path, "(kind: Line, spacing: -1.0)").unwrap();
        let err = load_pattern(&path).unwrap_err();
        assert!(matches!(err, PatternError::InFile { .. }), "{err:?}");
        assert!(err.to_string().contains("bad.ron: spacing"), "{err}");
        let missing = load_pattern(dir.join("missing.ron")).unwrap_err();
        assert!(matches!(missing, PatternError::Io { .. }));
        std::fs::remove_dir_all(&dir).ok();
    }
}
