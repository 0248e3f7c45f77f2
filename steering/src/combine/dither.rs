//! Prioritised dithering (Reynolds): each behaviour, in priority order, gets control with its
//! own probability.

use glam::Vec2;

use super::is_active;
use crate::random::SimRng;
use crate::vector::truncate;

/// A source of uniform draws in `[0, 1)` for [`prioritised_dithering`].
///
/// [`SimRng`] is the one the simulation uses; any `FnMut() -> f32` closure is one too, so tests
/// can script the draws.
pub trait Draw {
    /// The next uniform number in `[0, 1)`.
    fn draw(&mut self) -> f32;
}

impl Draw for SimRng {
    #[inline]
    fn draw(&mut self) -> f32 {
        self.next_f32()
    }
}

impl<F: FnMut() -> f32> Draw for F {
    #[inline]
    fn draw(&mut self) -> f32 {
        self()
    }
}

/// Prioritised dithering: `(probability, behaviour)` pairs in priority order. For each, one
/// number is drawn; if it is below the probability the behaviour is called, and if its force is
/// non-zero (and finite) that force, truncated to `max_force`, is the result and nothing further
/// is drawn or called. A behaviour whose draw fails is not called. Zero when none wins.
///
/// Probabilities are clamped to `[0, 1]` (NaN counts as 0): 1 always tries the behaviour, 0
/// never does. Exactly one draw is consumed per behaviour considered, so a seeded [`SimRng`]
/// gives the same run every time.
pub fn prioritised_dithering<I, F, D>(behaviours: I, draws: &mut D, max_force: f32) -> Vec2
where
    I: IntoIterator<Item = (f32, F)>,
    F: FnOnce() -> Vec2,
    D: Draw + ?Sized,
{
    for (probability, behaviour) in behaviours {
        let p = if probability.is_nan() {
            0.0
        } else {
            probability.clamp(0.0, 1.0)
        };
        if draws.draw() < p {
            let force = behaviour();
            if is_active(force) {
                return truncate(force, max_force);
            }
        }
    }
    Vec2::ZERO
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    #[test]
    fn first_passing_non_zero_behaviour_wins() {
        let calls = Cell::new([0; 3]);
        let count = |i: usize| {
            let mut c = calls.get();
            c[i] += 1;
            calls.set(c);
        };
        let a = || {
            count(0);
            Vec2::new(1.0, 4.0)
        };
        let b = || {
            count(1);
            Vec2::ZERO
        };
        let c = || {
            count(2);
            Vec2::new(30.0, 40.0)
        };
        let list: [(f32, &dyn Fn() -> Vec2); 3] = [(0.5, &a), (1.0, &b), (0.5, &c)];
        // A fails its draw (0.7 ≥ 0.5), B passes but is zero, C passes: C, truncated to 10.
        let mut script = [0.7f32, 0.0, 0.2].into_iter();
        let f = prioritised_dithering(list, &mut || script.next().unwrap_or(1.0), 10.0);
        assert!((f - Vec2::new(6.0, 8.0)).length() < 1e-5);
        assert_eq!(calls.get(), [0, 1, 1]);
        // All draws fail: zero, and nothing is called.
        let f = prioritised_dithering(list, &mut || 0.99f32, 10.0);
        assert_eq!(f, Vec2::ZERO);
        assert_eq!(calls.get(), [0, 2, 1]);
    }

    #[test]
    fn probabilities_are_clamped() {
        let list: [(f32, fn() -> Vec2); 3] = [
            (f32::NAN, || Vec2::X),
            (-1.0, || Vec2::Y),
            (7.0, || Vec2::NEG_X),
        ];
        assert_eq!(
            prioritised_dithering(list, &mut || 0.0f32, 5.0),
            Vec2::NEG_X
        );
    }

    #[test]
    fn seeded_rng_is_deterministic_and_respects_probability() {
        let run = |seed: u64| {
            let hits = Cell::new(0u32);
            let top = || {
                hits.set(hits.get() + 1);
                Vec2::X
            };
            let list: [(f32, &dyn Fn() -> Vec2); 2] = [(0.25, &top), (1.0, &|| Vec2::Y)];
            let mut rng = SimRng::seed_from(seed);
            let out: Vec<Vec2> = (0..4000)
                .map(|_| prioritised_dithering(list, &mut rng, 1.0))
                .collect();
            (out, hits.get())
        };
        let (a, hits) = run(3);
        let (b, _) = run(3);
        assert_eq!(a, b);
        // The top behaviour wins about a quarter of the time.
        assert!((900..1100).contains(&hits), "{hits}");
        assert_eq!(a.iter().filter(|f| **f == Vec2::X).count() as u32, hits);
    }
}
