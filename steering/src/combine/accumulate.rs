//! Weighted prioritised truncated running sum (Buckland's `AccumulateForce`).
//!
//! Forces are added in priority order to a running total that never exceeds the maximum force;
//! once the budget is spent, lower-priority behaviours are not computed at all.

use glam::Vec2;
use serde::{Deserialize, Serialize};

/// A force budget usable in arithmetic: negative, NaN and infinite become 0.
use crate::ops::positive_or_zero as sanitize_max;
use crate::vector::{finite_or_zero, truncate};

/// Relative tolerance under which the remaining budget counts as spent.
const SPENT_TOLERANCE: f32 = 1e-6;

/// A squared length below `max_force² ×` this is certainly within the budget, whatever the
/// rounding of the two squares (a few parts in 10⁷ each).
const CLEARLY_INSIDE: f32 = 0.99999;

/// How much of a new force still fits into a running total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BudgetRule {
    /// Buckland's `AccumulateForce`: what is left is the scalar `max_force − |total|`; a force
    /// longer than that is cut to that length before it is added.
    #[default]
    Magnitude,
    /// Geometric: the new force is cut where the running total would cross the max-force circle,
    /// i.e. the largest fraction `t ∈ [0, 1]` with `|total + t·force| ≤ max_force` is added.
    /// Forces that partly cancel the total always fit; this is the rule the worked example of
    /// the combining article follows (A and B fit exactly, C is then left out).
    Circle,
}

/// A running total of steering forces limited to a maximum force.
///
/// Reuse one per body (call [`ForceAccumulator::reset`] each tick); it is plain data. It
/// keeps `|total|` beside the total, so asking whether the budget is spent costs no square
/// root and an addition takes one (two when the added force must be cut).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "AccumulatorData", into = "AccumulatorData")]
pub struct ForceAccumulator {
    total: Vec2,
    /// `total.length()`, kept up to date by every change of `total`.
    length: f32,
    max_force: f32,
    rule: BudgetRule,
}

/// The serialized form of a [`ForceAccumulator`]: its length is recomputed on load.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct AccumulatorData {
    total: Vec2,
    max_force: f32,
    rule: BudgetRule,
}

impl From<AccumulatorData> for ForceAccumulator {
    fn from(d: AccumulatorData) -> Self {
        let max_force = sanitize_max(d.max_force);
        let total = truncate(finite_or_zero(d.total), max_force);
        Self {
            total,
            length: total.length(),
            max_force,
            rule: d.rule,
        }
    }
}

impl From<ForceAccumulator> for AccumulatorData {
    fn from(a: ForceAccumulator) -> Self {
        Self {
            total: a.total,
            max_force: a.max_force,
            rule: a.rule,
        }
    }
}

impl Default for ForceAccumulator {
    /// An empty accumulator with no budget (`max_force` 0): accepts nothing until reset.
    fn default() -> Self {
        Self::new(0.0)
    }
}

impl ForceAccumulator {
    /// An empty accumulator with Buckland's [`BudgetRule::Magnitude`]. A non-finite or negative
    /// `max_force` is treated as 0 (nothing is ever accepted).
    #[inline]
    pub fn new(max_force: f32) -> Self {
        Self::with_rule(max_force, BudgetRule::Magnitude)
    }

    /// An empty accumulator using `rule`.
    #[inline]
    pub fn with_rule(max_force: f32, rule: BudgetRule) -> Self {
        Self {
            total: Vec2::ZERO,
            length: 0.0,
            max_force: sanitize_max(max_force),
            rule,
        }
    }

    /// Empties the total and sets a new budget, keeping the rule.
    pub fn reset(&mut self, max_force: f32) {
        self.total = Vec2::ZERO;
        self.length = 0.0;
        self.max_force = sanitize_max(max_force);
    }

    /// The force accumulated so far (`|total| ≤ max_force`).
    #[inline]
    pub fn total(&self) -> Vec2 {
        self.total
    }

    /// The budget.
    #[inline]
    pub fn max_force(&self) -> f32 {
        self.max_force
    }

    /// The budget rule.
    #[inline]
    pub fn rule(&self) -> BudgetRule {
        self.rule
    }

    /// `max_force − |total|`, never negative.
    #[inline]
    pub fn remaining(&self) -> f32 {
        (self.max_force - self.length).max(0.0)
    }

    /// Whether nothing more can be added (the remaining budget is within a relative `1e-6` of
    /// zero).
    #[inline]
    pub fn is_spent(&self) -> bool {
        self.remaining() <= self.max_force * SPENT_TOLERANCE
    }

    /// Adds `force` (a non-finite force counts as zero), cut to what is left by the budget rule.
    /// Returns whether more force can still be accepted afterwards.
    #[inline]
    pub fn add(&mut self, force: Vec2) -> bool {
        let Some(total) = self.unclamped_total_with(force) else {
            return false;
        };
        (self.total, self.length) = self.clamped(total);
        !self.is_spent()
    }

    /// `total` and its length, brought back onto the budget's circle when rounding left it a
    /// hair outside.
    #[inline]
    fn clamped(&self, total: Vec2) -> (Vec2, f32) {
        let length = total.length();
        if length > self.max_force {
            (total * (self.max_force / length), self.max_force)
        } else {
            (total, length)
        }
    }

    /// The total after adding `force` as the last force: exactly [`Self::add`] then
    /// [`Self::total`], but the total's length, which only a further addition would need,
    /// is measured only when the total may lie outside the budget.
    #[inline]
    pub fn total_with(self, force: Vec2) -> Vec2 {
        let Some(total) = self.unclamped_total_with(force) else {
            return self.total;
        };
        // Clearly inside the circle (the margin dwarfs the rounding of both squares), the
        // clamp of `add` would leave the total alone. Not finite or near the edge: measure.
        let inside = self.max_force * self.max_force * CLEARLY_INSIDE;
        if total.length_squared() < inside {
            return total;
        }
        self.clamped(total).0
    }

    /// The running total plus `force` cut by the budget rule (before the clamp against
    /// rounding); `None` when the budget is spent.
    #[inline]
    fn unclamped_total_with(&self, force: Vec2) -> Option<Vec2> {
        if self.is_spent() {
            return None;
        }
        let force = finite_or_zero(force);
        let added = match self.rule {
            BudgetRule::Magnitude => truncate(force, self.remaining()),
            BudgetRule::Circle => force * self.circle_fraction(force),
        };
        Some(self.total + added)
    }

    /// Adds `weight · force` (see [`ForceAccumulator::add`]).
    #[inline]
    pub fn add_weighted(&mut self, weight: f32, force: Vec2) -> bool {
        self.add(finite_or_zero(force * weight))
    }

    /// Lazily adds `weight · behaviour()`: the behaviour is not called when the budget is
    /// already spent. Returns whether more force can still be accepted.
    pub fn add_with(&mut self, weight: f32, behaviour: impl FnOnce() -> Vec2) -> bool {
        if self.is_spent() {
            return false;
        }
        self.add_weighted(weight, behaviour())
    }

    /// Adds forces from `forces` in order until the budget is spent, pulling no further items
    /// from the iterator after that (so a `.map(...)` over behaviours is evaluated lazily).
    /// Returns the total.
    pub fn accumulate(&mut self, forces: impl IntoIterator<Item = Vec2>) -> Vec2 {
        let mut forces = forces.into_iter();
        while !self.is_spent() {
            match forces.next() {
                Some(force) => {
                    self.add(force);
                }
                None => break,
            }
        }
        self.total
    }

    /// The largest `t ∈ [0, 1]` with `|total + t·force| ≤ max_force`.
    fn circle_fraction(&self, force: Vec2) -> f32 {
        let a = force.length_squared();
        if a <= 0.0 {
            return 0.0;
        }
        if (self.total + force).length_squared() <= self.max_force * self.max_force {
            return 1.0;
        }
        // Solve a t² + 2 b t + c = 0 for the positive root, c ≤ 0 because |total| ≤ max.
        let b = self.total.dot(force);
        let c = (self.total.length_squared() - self.max_force * self.max_force).min(0.0);
        let disc = (b * b - a * c).max(0.0).sqrt();
        let t = if b >= 0.0 {
            let denom = b + disc;
            if denom > 0.0 { -c / denom } else { 0.0 }
        } else {
            (disc - b) / a
        };
        if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// Weighted prioritised truncated running sum: `(weight, behaviour)` pairs in priority order,
/// each behaviour called only while budget remains, its weighted force added and cut by `rule`.
///
/// Lazy: once `max_force` is spent, no later behaviour is called.
pub fn weighted_prioritised_truncated_sum<I, F>(
    behaviours: I,
    max_force: f32,
    rule: BudgetRule,
) -> Vec2
where
    I: IntoIterator<Item = (f32, F)>,
    F: FnOnce() -> Vec2,
{
    let mut acc = ForceAccumulator::with_rule(max_force, rule);
    for (weight, behaviour) in behaviours {
        if !acc.add_with(weight, behaviour) {
            break;
        }
    }
    acc.total()
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    /// A saved accumulator comes back with its length recomputed: the same remaining budget,
    /// and a hand-edited total outside the budget is cut to it.
    #[test]
    fn serialized_accumulator_keeps_its_budget() {
        let mut acc = ForceAccumulator::new(5.0);
        acc.add(Vec2::new(3.0, 0.0));
        let text = ron::to_string(&acc).unwrap();
        let back: ForceAccumulator = ron::from_str(&text).unwrap();
        assert_eq!(back, acc);
        assert_eq!(back.remaining(), 2.0);
        let edited = text.replace("3.0", "30.0");
        let cut: ForceAccumulator = ron::from_str(&edited).unwrap();
        assert!(close(cut.total(), Vec2::new(5.0, 0.0)));
        assert!(cut.is_spent());
    }

    #[test]
    fn magnitude_rule_is_bucklands() {
        // max 5: (3,0) fits (2 left), (0,4) is cut to length 2, then 5 - |(3,2)| is left.
        let mut acc = ForceAccumulator::new(5.0);
        assert!(acc.add(Vec2::new(3.0, 0.0)));
        assert!((acc.remaining() - 2.0).abs() < 1e-6);
        assert!(acc.add(Vec2::new(0.0, 4.0)));
        assert!(close(acc.total(), Vec2::new(3.0, 2.0)));
        assert!((acc.remaining() - (5.0 - 13f32.sqrt())).abs() < 1e-5);
        // A collinear force fills the rest exactly and spends the budget.
        let dir = Vec2::new(3.0, 2.0).normalize();
        assert!(!acc.add(dir * 10.0));
        assert!((acc.total().length() - 5.0).abs() < 1e-5);
        assert!(acc.is_spent());
        // Nothing more is accepted.
        let before = acc.total();
        assert!(!acc.add(Vec2::new(-1.0, 0.0)));
        assert_eq!(acc.total(), before);
    }

    #[test]
    fn circle_rule_cuts_at_the_circle() {
        // Total (3,0), max 5: (0,10) fits up to (3,4), i.e. t = 0.4.
        let mut acc = ForceAccumulator::with_rule(5.0, BudgetRule::Circle);
        acc.add(Vec2::new(3.0, 0.0));
        assert!(!acc.add(Vec2::new(0.0, 10.0)));
        assert!(close(acc.total(), Vec2::new(3.0, 4.0)));
        // A force that points back into the circle fits whole, even when "spent" scalarly.
        let mut acc = ForceAccumulator::with_rule(5.0, BudgetRule::Circle);
        acc.add(Vec2::new(4.0, 0.0));
        assert!(acc.add(Vec2::new(-2.0, 3.0)));
        assert!(close(acc.total(), Vec2::new(2.0, 3.0)));
    }

    #[test]
    fn later_behaviours_are_not_called_once_spent() {
        let called = Cell::new(0);
        let behaviours: [(f32, &dyn Fn() -> Vec2); 3] = [
            (1.0, &|| Vec2::new(2.0, 0.0)),
            (2.0, &|| Vec2::new(5.0, 0.0)),
            (1.0, &|| {
                called.set(called.get() + 1);
                Vec2::X
            }),
        ];
        for rule in [BudgetRule::Magnitude, BudgetRule::Circle] {
            let f = weighted_prioritised_truncated_sum(behaviours, 4.0, rule);
            assert!((f.length() - 4.0).abs() < 1e-5, "{rule:?} {f}");
        }
        assert_eq!(called.get(), 0);
        // With room left, the third one is called.
        let f = weighted_prioritised_truncated_sum(behaviours, 100.0, BudgetRule::Magnitude);
        assert_eq!(called.get(), 1);
        assert!(close(f, Vec2::new(13.0, 0.0)));
    }

    #[test]
    fn accumulate_pulls_lazily_from_an_iterator() {
        let pulled = Cell::new(0);
        let forces = [
            Vec2::new(0.0, 3.0),
            Vec2::new(0.0, 3.0),
            Vec2::new(5.0, 0.0),
        ];
        let mut acc = ForceAccumulator::new(4.0);
        let total = acc.accumulate(forces.iter().map(|f| {
            pulled.set(pulled.get() + 1);
            *f
        }));
        assert!(close(total, Vec2::new(0.0, 4.0)));
        assert_eq!(pulled.get(), 2);
        acc.reset(10.0);
        assert_eq!(acc.total(), Vec2::ZERO);
        assert_eq!(acc.max_force(), 10.0);
    }

    #[test]
    fn degenerate_inputs_never_give_nan() {
        let mut acc = ForceAccumulator::new(f32::NAN);
        assert!(!acc.add(Vec2::ONE));
        assert_eq!(acc.total(), Vec2::ZERO);
        for rule in [BudgetRule::Magnitude, BudgetRule::Circle] {
            let mut acc = ForceAccumulator::with_rule(3.0, rule);
            acc.add(Vec2::new(f32::NAN, 1.0));
            acc.add_weighted(f32::INFINITY, Vec2::ONE);
            acc.add(Vec2::new(f32::MAX, f32::MAX));
            assert!(acc.total().is_finite());
            assert!(acc.total().length() <= 3.0 + 1e-5);
        }
    }

    proptest::proptest! {
        #[test]
        fn total_stays_within_budget(
            max in 0.0f32..20.0,
            forces in proptest::collection::vec((-50.0f32..50.0, -50.0f32..50.0, -3.0f32..3.0), 0..8),
        ) {
            for rule in [BudgetRule::Magnitude, BudgetRule::Circle] {
                let mut acc = ForceAccumulator::with_rule(max, rule);
                for &(x, y, w) in &forces {
                    let before = acc.total();
                    let open = !acc.is_spent();
                    acc.add_weighted(w, Vec2::new(x, y));
                    proptest::prop_assert!(acc.total().is_finite());
                    proptest::prop_assert!(acc.total().length() <= max * (1.0 + 1e-5) + 1e-6);
                    if !open {
                        proptest::prop_assert_eq!(acc.total(), before);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// `total_with` is `add` then `total`, bit for bit, whatever the forces before it
        /// (totals near, on and past the budget's edge included) and for both rules.
        #[test]
        fn total_with_is_add_then_total(
            max_force in proptest::prop_oneof![0.0f32..20.0, proptest::strategy::Just(5.0f32)],
            circle in proptest::bool::ANY,
            before in proptest::collection::vec((-12.0f32..12.0, -12.0f32..12.0), 0..4),
            last in (-12.0f32..12.0, -12.0f32..12.0),
            scale in proptest::prop_oneof![
                proptest::strategy::Just(1.0f32),
                1e-3f32..1e3,
                proptest::strategy::Just(f32::INFINITY),
            ],
        ) {
            let rule = if circle { BudgetRule::Circle } else { BudgetRule::Magnitude };
            let mut acc = ForceAccumulator::with_rule(max_force, rule);
            for &(x, y) in &before {
                acc.add(Vec2::new(x, y));
            }
            let last = Vec2::new(last.0, last.1) * scale;
            let mut added = acc;
            added.add(last);
            let fast = acc.total_with(last);
            proptest::prop_assert_eq!(fast.x.to_bits(), added.total().x.to_bits());
            proptest::prop_assert_eq!(fast.y.to_bits(), added.total().y.to_bits());
        }
    }

    #[test]
    fn total_with_clamps_a_total_at_the_edge_as_add_does() {
        // The last force fills the budget exactly (colinear with the total, cut to what is
        // left, or cut where it crosses the circle): the total lands on the circle, up to
        // rounding, and is measured and clamped as `add` clamps it.
        for rule in [BudgetRule::Magnitude, BudgetRule::Circle] {
            for max in [5.0f32, 1.0, 3.3, 1e-3, 7.77] {
                for first in [
                    Vec2::new(0.6, 0.0),
                    Vec2::new(0.3, -0.4),
                    Vec2::new(0.1, 0.7),
                ] {
                    let mut acc = ForceAccumulator::with_rule(max, rule);
                    acc.add(first * max);
                    let last = first * (10.0 * max);
                    let mut added = acc;
                    added.add(last);
                    let fast = acc.total_with(last);
                    assert_eq!(fast, added.total(), "{rule:?} {max} {first}");
                    // On the edge: the squared test alone cannot decide.
                    let edge = max * max * CLEARLY_INSIDE;
                    assert!(fast.length_squared() >= edge, "{rule:?} {max} {first}");
                    assert!(fast.length() <= max);
                }
            }
        }
        // A spent accumulator adds nothing.
        let mut full = ForceAccumulator::new(1.0);
        full.add(Vec2::new(3.0, 0.0));
        assert_eq!(full.total_with(Vec2::new(0.0, 5.0)), Vec2::new(1.0, 0.0));
    }
}
