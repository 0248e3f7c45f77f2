//! What is wrong with a scenario (or pattern, or playbook) file.

use thiserror::Error;

/// A scenario that cannot be read, is invalid, or cannot be built. Every message starts with
/// the file it is about.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{origin}: {message}")]
    Io {
        /// The file.
        origin: String,
        /// Why.
        message: String,
    },
    /// The text is not valid RON for the format: `file:line:col: what`.
    #[error("{origin}:{line}:{col}: {message}")]
    Parse {
        /// The file.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// A value is out of range or refers to something that does not exist: `file: field: what`.
    #[error("{origin}: {field}: {message}")]
    Invalid {
        /// The file.
        origin: String,
        /// Path of the offending field, e.g. `formations[0].children[1].units`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The world refused the scenario while it was being built.
    #[error("{origin}: building the world: {message}")]
    Build {
        /// The file.
        origin: String,
        /// The world's error.
        message: String,
    },
}

impl ScenarioError {
    /// A parse error from ron's spanned error.
    pub fn from_ron(origin: &str, e: &ron::error::SpannedError) -> Self {
        Self::Parse {
            origin: origin.to_owned(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: e.code.to_string(),
        }
    }

    /// An invalid field.
    pub fn invalid(origin: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            origin: origin.to_owned(),
            field: field.into(),
            message: message.into(),
        }
    }
}
