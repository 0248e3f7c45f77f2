//! What is wrong with a playbook or a tactical order.

use thiserror::Error;

/// A playbook that cannot be read or is invalid, or a tactical order with bad values.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum TacticsError {
    /// The file could not be read.
    #[error("{origin}: {message}")]
    Io {
        /// The file.
        origin: String,
        /// Why.
        message: String,
    },
    /// The text is not valid RON for a playbook: `file:line:col: what`.
    #[error("{origin}:{line}:{col}: {message}")]
    Parse {
        /// The file (or other origin of the text).
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// A value is out of range or refers to something that does not exist.
    #[error("{field}: {why}")]
    Invalid {
        /// Path of the offending field, e.g. `plays[1].phases[0].slots[2]`.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// An invalid value in a file: `file: field: what`.
    #[error("{origin}: {source}")]
    InFile {
        /// The file.
        origin: String,
        /// What is wrong in it.
        source: Box<TacticsError>,
    },
    /// A play name the playbook does not have.
    #[error("playbook {playbook:?} has no play {play:?}")]
    NoSuchPlay {
        /// The playbook.
        playbook: String,
        /// The name asked for.
        play: String,
    },
}

impl TacticsError {
    /// An invalid field.
    pub fn invalid(field: impl Into<String>, why: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            why: why.into(),
        }
    }
}
