//! Errors of patterns, pattern files and slot assignment.

use thiserror::Error;

/// A pattern, pattern file or assignment setting that cannot be used.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PatternError {
    /// A number that must be finite and positive (or not negative) was not.
    #[error("{what} must be {expected}, got {value}")]
    BadValue {
        /// Which parameter.
        what: &'static str,
        /// What it must be, for the message (`"finite and > 0"`).
        expected: &'static str,
        /// The offending value.
        value: f32,
    },
    /// A custom pattern without slots.
    #[error("a custom pattern needs at least one slot")]
    EmptyCustom,
    /// A custom slot whose offset or facing is NaN or infinite.
    #[error("slot {index}: {what} must be finite")]
    NonFiniteSlot {
        /// Index of the slot in the authored list.
        index: usize,
        /// `"offset"` or `"facing"`.
        what: &'static str,
    },
    /// A custom slot whose facing is the zero vector.
    #[error("slot {index}: facing must not be the zero vector")]
    ZeroFacing {
        /// Index of the slot in the authored list.
        index: usize,
    },
    /// More authored slots (or polyline points) than allowed.
    #[error("{what}: {count} is more than the limit of {max}")]
    TooMany {
        /// What was counted (`"custom slots"`).
        what: &'static str,
        /// How many there were.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A polyline without points, or with a non-finite point.
    #[error("polyline: {0}")]
    BadPolyline(&'static str),
    /// RON text that does not parse as a pattern; displays as `origin:line:col: message`.
    #[error("{origin}:{line}:{col}: {message}")]
    Parse {
        /// The file name (or another name for the text's origin).
        origin: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        col: usize,
        /// What the parser says.
        message: String,
    },
    /// A pattern that could not be written as RON.
    #[error("cannot write RON: {0}")]
    Write(String),
    /// A pattern file that could not be read.
    #[error("{origin}: {message}")]
    Io {
        /// The path.
        origin: String,
        /// The operating system's message.
        message: String,
    },
    /// A pattern file that parses but does not validate.
    #[error("{origin}: {source}")]
    InFile {
        /// The file name.
        origin: String,
        /// What is wrong with the pattern.
        source: Box<PatternError>,
    },
}

/// Checks that `value` is finite and strictly positive.
pub(crate) fn check_positive(what: &'static str, value: f32) -> Result<f32, PatternError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(PatternError::BadValue {
            what,
            expected: "finite and > 0",
            value,
        })
    }
}

/// Checks that `value` is finite and not negative.
pub(crate) fn check_non_negative(what: &'static str, value: f32) -> Result<f32, PatternError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(PatternError::BadValue {
            what,
            expected: "finite and >= 0",
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_and_messages() {
        assert_eq!(check_positive("spacing", 2.0), Ok(2.0));
        assert!(check_positive("spacing", 0.0).is_err());
        assert!(check_positive("spacing", f32::NAN).is_err());
        assert_eq!(check_non_negative("radius", 0.0), Ok(0.0));
        assert!(check_non_negative("radius", -1.0).is_err());
        let e = PatternError::Parse {
            origin: "patterns/wedge.ron".into(),
            line: 3,
            col: 7,
            message: "Expected a comma".into(),
        };
        assert_eq!(e.to_string(), "patterns/wedge.ron:3:7: Expected a comma");
    }
}
