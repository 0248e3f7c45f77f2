//! Time-sliced steering: every evaluator says how long its scores stay valid, the decision keeps
//! the shortest of those times, and a [`SliceClock`] re-steers only once it has elapsed.

use serde::{Deserialize, Serialize};

/// "Valid forever": the validity of an evaluator that found nothing that could change soon.
pub const FOREVER: f32 = f32::MAX;

/// A validity time, in seconds, given by an evaluator: finite and not negative (NaN and negative
/// become 0, infinity [`FOREVER`]).
#[inline]
pub fn sane_validity(seconds: f32) -> f32 {
    if seconds.is_nan() {
        0.0
    } else {
        seconds.clamp(0.0, FOREVER)
    }
}

/// The shortest validity among the evaluators of one decision.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Validity(f32);

impl Default for Validity {
    /// [`Validity::forever`].
    fn default() -> Self {
        Self::forever()
    }
}

impl Validity {
    /// No evaluator has limited the validity yet.
    #[inline]
    pub fn forever() -> Self {
        Self(FOREVER)
    }

    /// Takes an evaluator's validity into account (keeps the minimum).
    #[inline]
    pub fn include(&mut self, seconds: f32) {
        self.0 = self.0.min(sane_validity(seconds));
    }

    /// The shortest validity seen, seconds.
    #[inline]
    pub fn seconds(self) -> f32 {
        self.0
    }
}

/// When the cached decision of a time-sliced steerer runs out. Plain, serializable state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SliceClock {
    /// Seconds since the last evaluation.
    pub elapsed: f32,
    /// How long the last evaluation stays valid, seconds.
    pub valid_for: f32,
    /// Number of evaluations so far (0: never evaluated, so the next call must evaluate).
    pub evaluations: u64,
}

impl SliceClock {
    /// Advances by `dt` (non-finite or negative counts as 0) and says whether the cached decision
    /// has run out, i.e. whether the caller must evaluate again (always before the first
    /// evaluation).
    pub fn advance(&mut self, dt: f32) -> bool {
        if self.evaluations == 0 {
            return true;
        }
        let dt = crate::ops::positive_or_zero(dt);
        self.elapsed = (self.elapsed + dt).min(FOREVER);
        // Anything but "still less than the validity" (NaN included) re-evaluates.
        self.elapsed.partial_cmp(&self.valid_for) != Some(core::cmp::Ordering::Less)
    }

    /// Records a fresh evaluation valid for `seconds`.
    pub fn restart(&mut self, seconds: f32) {
        self.elapsed = 0.0;
        self.valid_for = sane_validity(seconds);
        self.evaluations = self.evaluations.saturating_add(1);
    }

    /// Makes the next [`advance`](Self::advance) ask for an evaluation.
    pub fn invalidate(&mut self) {
        self.valid_for = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_keeps_the_minimum() {
        let mut v = Validity::forever();
        v.include(0.5);
        v.include(FOREVER);
        v.include(0.25);
        v.include(f32::INFINITY);
        assert_eq!(v.seconds(), 0.25);
        v.include(f32::NAN);
        assert_eq!(v.seconds(), 0.0);
    }

    #[test]
    fn clock_runs_out_after_validity() {
        let mut c = SliceClock::default();
        assert!(c.advance(0.1)); // never evaluated
        c.restart(0.125);
        let dt = 1.0 / 64.0;
        for _ in 0..7 {
            assert!(!c.advance(dt));
        }
        assert!(c.advance(dt)); // 8/64 = 0.125 elapsed
        c.restart(0.125);
        assert!(!c.advance(f32::NAN));
        c.invalidate();
        assert!(c.advance(0.0));
        assert_eq!(c.evaluations, 2);
    }
}
