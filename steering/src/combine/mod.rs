//! Ways to combine steering behaviours into one force.
//!
//! Behaviours return untruncated forces; every combiner here returns a force no longer than the
//! maximum force it is given, never NaN (non-finite inputs count as zero), and is deterministic.
//!
//! | combiner | idea |
//! |---|---|
//! | [`weighted_truncated_sum`] | blend everything: `Σ wᵢ·fᵢ`, truncated |
//! | [`weighted_prioritised_truncated_sum`] / [`ForceAccumulator`] | Buckland's running sum in priority order; lazy |
//! | [`prioritised_dithering`] | each behaviour in priority order wins with its probability |
//! | [`priority_arbitration`] | the highest-priority non-zero behaviour wins; lazy |
//! | [`priority_groups`] / [`PriorityGroups`] | blended groups, first group above a threshold wins; variable priorities |
//!
//! Behaviours are passed as closures (or lazy iterators) in priority order so that the
//! prioritised combiners do not compute what they will not use.
//!
//! ```
//! use cohort_steering::Vec2;
//! use cohort_steering::combine::{
//!     BudgetRule, priority_arbitration, weighted_prioritised_truncated_sum,
//!     weighted_truncated_sum,
//! };
//!
//! let (a, b, c) = (Vec2::new(1.0, 4.0), Vec2::new(3.0, 2.0), Vec2::new(1.0, -2.0));
//! // Blending with weights (0.25, 0.5, 0.25).
//! let blended = weighted_truncated_sum([(0.25, a), (0.5, b), (0.25, c)], 10.0);
//! assert_eq!(blended, Vec2::new(2.0, 1.5));
//! // Arbitration: A has the highest priority and is non-zero.
//! assert_eq!(priority_arbitration([Vec2::ZERO, a, b], 10.0), a);
//! // Running sum in priority order: the budget is spent after B, so C is never computed.
//! let max = Vec2::new(1.75, 2.0).length();
//! let behaviours: [(f32, &dyn Fn() -> Vec2); 3] =
//!     [(0.25, &|| a), (0.5, &|| b), (0.25, &|| unreachable!("C is not evaluated"))];
//! let sum = weighted_prioritised_truncated_sum(behaviours, max, BudgetRule::Circle);
//! assert!((sum - Vec2::new(1.75, 2.0)).length() < 1e-5);
//! ```

mod accumulate;
mod dither;
mod groups;

pub use accumulate::{BudgetRule, ForceAccumulator, weighted_prioritised_truncated_sum};
pub use dither::{Draw, prioritised_dithering};
pub use groups::{
    GroupBehaviour, GroupPriority, PriorityGroups, SteeringGroup, order_by_priority,
    priority_groups,
};

use glam::Vec2;

use crate::vector::{finite_or_zero, truncate};

/// A force shorter than this counts as zero for arbitration and dithering.
pub const NEGLIGIBLE_FORCE: f32 = 1e-6;

/// Whether `force` is finite and longer than [`NEGLIGIBLE_FORCE`].
#[inline]
pub fn is_active(force: Vec2) -> bool {
    force.is_finite() && force.length_squared() > NEGLIGIBLE_FORCE * NEGLIGIBLE_FORCE
}

/// Weighted truncated sum: `Σ wᵢ·fᵢ` over `(weight, force)` pairs, truncated to `max_force`.
/// A non-finite weighted term counts as zero.
pub fn weighted_truncated_sum(
    forces: impl IntoIterator<Item = (f32, Vec2)>,
    max_force: f32,
) -> Vec2 {
    let sum = forces
        .into_iter()
        .fold(Vec2::ZERO, |acc, (w, f)| acc + finite_or_zero(f * w));
    truncate(sum, max_force)
}

/// Priority arbitration: the first (highest-priority) active force of `forces`, truncated to
/// `max_force`; zero when none is active. Stops pulling from the iterator at the winner, so a
/// `.map(...)` over behaviours evaluates only up to it.
pub fn priority_arbitration(forces: impl IntoIterator<Item = Vec2>, max_force: f32) -> Vec2 {
    forces
        .into_iter()
        .find(|f| is_active(*f))
        .map_or(Vec2::ZERO, |f| truncate(f, max_force))
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    const A: Vec2 = Vec2::new(1.0, 4.0);
    const B: Vec2 = Vec2::new(3.0, 2.0);
    const C: Vec2 = Vec2::new(1.0, -2.0);

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    /// The worked example of the combining article: A=(1,4), B=(3,2), C=(1,-2) in priority order.
    #[test]
    fn worked_example() {
        let big = 100.0;
        // 1. Priority arbitration: A.
        assert_eq!(priority_arbitration([A, B, C], big), Vec2::new(1.0, 4.0));
        // 2. Weighted blending (0.25, 0.5, 0.25): (2, 1.5).
        let blended = weighted_truncated_sum([(0.25, A), (0.5, B), (0.25, C)], big);
        assert!(close(blended, Vec2::new(2.0, 1.5)));
        // 3. Prioritised dithering, A not chosen then B chosen: (3, 2).
        let mut draws = [0.9f32, 0.1, 0.0].into_iter();
        let list: [(f32, &dyn Fn() -> Vec2); 3] = [(0.5, &|| A), (0.5, &|| B), (0.5, &|| C)];
        let dithered = prioritised_dithering(list, &mut || draws.next().unwrap_or(0.0), big);
        assert_eq!(dithered, Vec2::new(3.0, 2.0));
        assert_eq!(draws.next(), Some(0.0), "C's draw is never taken");
        // 4. Weighted prioritised truncated sum, max force reached after B: (1.75, 2), C unused.
        let max = Vec2::new(1.75, 2.0).length();
        let c_called = Cell::new(false);
        let c = || {
            c_called.set(true);
            C
        };
        let list: [(f32, &dyn Fn() -> Vec2); 3] = [(0.25, &|| A), (0.5, &|| B), (0.25, &c)];
        let sum = weighted_prioritised_truncated_sum(list, max, BudgetRule::Circle);
        assert!(close(sum, Vec2::new(1.75, 2.0)), "{sum}");
        assert!(!c_called.get());
        // Buckland's scalar budget cannot give (1.75, 2) with this max: after A (|A/4| ≈ 1.031)
        // only ≈ 1.627 is left for B/2 (length ≈ 1.803), so B is cut, and C adds the rest.
        let bucklands = weighted_prioritised_truncated_sum(list, max, BudgetRule::Magnitude);
        assert!(c_called.get());
        let after_b =
            Vec2::new(0.25, 1.0) + Vec2::new(1.5, 1.0).normalize() * (max - 17f32.sqrt() / 4.0);
        let left = max - after_b.length();
        let expect = after_b + Vec2::new(0.25, -0.5).normalize() * left;
        assert!(close(bucklands, expect), "{bucklands} vs {expect}");
        assert!(bucklands.length() <= max + 1e-5);
    }

    #[test]
    fn weighted_sum_truncates_and_ignores_non_finite() {
        let f = weighted_truncated_sum(
            [(2.0, Vec2::new(3.0, 0.0)), (1.0, Vec2::new(0.0, 8.0))],
            5.0,
        );
        assert!(close(f, Vec2::new(3.0, 4.0)));
        let f = weighted_truncated_sum(
            [
                (f32::NAN, Vec2::X),
                (1.0, Vec2::new(f32::INFINITY, 0.0)),
                (1.0, Vec2::Y),
            ],
            5.0,
        );
        assert_eq!(f, Vec2::Y);
        assert_eq!(
            weighted_truncated_sum([(1.0, Vec2::X)], f32::NAN),
            Vec2::ZERO
        );
        // Weights need not sum to one.
        let f = weighted_truncated_sum([(3.0, Vec2::X), (-1.0, Vec2::X)], 10.0);
        assert!(close(f, Vec2::new(2.0, 0.0)));
    }

    #[test]
    fn arbitration_skips_zero_and_is_lazy() {
        let evaluated = Cell::new(0);
        let behaviours: [&dyn Fn() -> Vec2; 4] = [
            &|| Vec2::ZERO,
            &|| Vec2::new(f32::NAN, 0.0),
            &|| Vec2::new(0.0, 30.0),
            &|| Vec2::X,
        ];
        let f = priority_arbitration(
            behaviours.iter().map(|b| {
                evaluated.set(evaluated.get() + 1);
                b()
            }),
            6.0,
        );
        assert_eq!(f, Vec2::new(0.0, 6.0));
        assert_eq!(evaluated.get(), 3);
        assert_eq!(
            priority_arbitration([Vec2::ZERO, Vec2::splat(1e-9)], 6.0),
            Vec2::ZERO
        );
    }
}
