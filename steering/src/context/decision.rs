//! From interest and danger to one direction: combining the maps into a decision map
//! ([`combine`]) and picking a direction from it with sub-slot interpolation ([`decide`]).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::map::{ContextMap, NO_DISTANCE, unit};

/// How interest and danger combine into the decision map.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CombineMode {
    /// Danger masks interest (Fray): a slot whose danger exceeds the lowest danger of the map
    /// plus `threshold` is masked out (decision 0); an unmasked slot scores
    /// `interest × (1 − danger)`.
    DangerMask {
        /// How much more dangerous than the safest slot a slot may be and stay open, in `[0, 1]`.
        threshold: f32,
    },
    /// Normalized scores multiplied: every slot scores `interest × (1 − danger)`, nothing is
    /// masked outright.
    Multiply,
}

impl Default for CombineMode {
    /// `DangerMask { threshold: 0.15 }`.
    fn default() -> Self {
        Self::DangerMask { threshold: 0.15 }
    }
}

/// How the decision direction is read from the decision map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interpolation {
    /// The direction of the best slot.
    None,
    /// A parabola through the best slot and its two neighbours; its vertex.
    Parabolic,
    /// A Catmull-Rom spline through all slots (central-difference tangents, wrapping); the
    /// maximum over the whole spline, found from the roots of its derivative.
    #[default]
    CatmullRom,
}

/// The chosen direction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Unit world direction.
    pub direction: Vec2,
    /// Decision value there (interpolated, clamped to `[0, 1]`).
    pub value: f32,
    /// Fractional slot index of the direction, in `[0, N)`.
    pub slot_position: f32,
}

/// Combines `interest` and `danger` into `out` (which takes the interest map's layout; danger is
/// sampled by world direction when its layout differs). Distance rules in both modes: where the
/// interest lies nearer than the danger in a slot, the slot is accepted with its full interest;
/// otherwise a slot whose danger lies within `min_clearance` (e.g. the stopping distance) is
/// blocked (decision 0). The decision distance of a slot is its danger distance.
pub fn combine(
    interest: &ContextMap,
    danger: &ContextMap,
    mode: CombineMode,
    min_clearance: f32,
    out: &mut ContextMap,
) {
    if out.slot_count() != interest.slot_count() {
        *out = ContextMap::with_slots_clamped(interest.slot_count());
    }
    out.align(interest.alignment());
    let same = danger.same_layout(interest);
    let danger_at = |i: usize| -> (f32, f32) {
        if same {
            (danger.value(i), danger.distance(i))
        } else {
            interest
                .direction(i)
                .map_or((0.0, NO_DISTANCE), |d| danger.sample(d))
        }
    };
    let limit = match mode {
        CombineMode::DangerMask { threshold } => {
            let lowest = (0..interest.slot_count())
                .map(|i| danger_at(i).0)
                .fold(1.0_f32, f32::min);
            lowest + unit(threshold)
        }
        CombineMode::Multiply => f32::INFINITY,
    };
    for i in 0..interest.slot_count() {
        let (dv, dd) = danger_at(i);
        let iv = interest.value(i);
        let value = if iv > 0.0 && interest.distance(i) < dd {
            iv
        } else if dv > limit || (dv > 0.0 && dd < min_clearance) {
            0.0
        } else {
            iv * (1.0 - dv)
        };
        out.set(i, value, dd);
    }
}

/// Favours the direction currently steered in: scales every slot `s` of the decision map by
/// `1 − weight × (1 − s·d) / 2` (`d` the unit current direction, `weight` clamped to `[0, 1]`),
/// so a slot straight behind loses `weight` of its value and the current direction nothing.
/// Breaks ties between equally good ways round a symmetric obstacle, so the body commits to one
/// side instead of dithering. Does nothing for a zero direction.
pub fn favour(decision: &mut ContextMap, direction: Vec2, weight: f32) {
    let Some(d) = direction.try_normalize() else {
        return;
    };
    let weight = unit(weight);
    for i in 0..decision.slot_count() {
        if let Some(s) = decision.direction(i) {
            let factor = 1.0 - weight * 0.5 * (1.0 - s.dot(d));
            decision.set(i, decision.value(i) * factor, decision.distance(i));
        }
    }
}

/// The direction to move in, read from a decision map with `mode`; `None` when no slot has a
/// positive value (nothing is worth moving for).
pub fn decide(decision: &ContextMap, mode: Interpolation) -> Option<Decision> {
    let values = decision.values();
    let (best, best_value) = values.iter().copied().enumerate().fold(
        (0, 0.0_f32),
        |acc, (i, v)| if v > acc.1 { (i, v) } else { acc },
    );
    if best_value <= 0.0 {
        return None;
    }
    let (pos, value) = match mode {
        Interpolation::None => (best as f32, best_value),
        Interpolation::Parabolic => parabolic_peak(values, best),
        Interpolation::CatmullRom => catmull_rom_peak(values).unwrap_or((best as f32, best_value)),
    };
    let n = values.len() as f32;
    let pos = pos.rem_euclid(n);
    let pos = if pos.is_finite() && pos < n { pos } else { 0.0 };
    Some(Decision {
        direction: decision.direction_at(pos),
        value: unit(value),
        slot_position: pos,
    })
}

/// Value at wrapped index `i`.
#[inline]
fn wrapped(values: &[f32], i: isize) -> f32 {
    let n = values.len() as isize;
    if n == 0 {
        return 0.0;
    }
    values.get(i.rem_euclid(n) as usize).copied().unwrap_or(0.0)
}

/// Vertex of the parabola through slots `best - 1`, `best`, `best + 1`: (position, value). The
/// best slot itself when the three are not concave.
fn parabolic_peak(values: &[f32], best: usize) -> (f32, f32) {
    let b = best as isize;
    let (y0, y1, y2) = (
        wrapped(values, b - 1),
        wrapped(values, b),
        wrapped(values, b + 1),
    );
    let denom = y0 - 2.0 * y1 + y2;
    if denom >= -1e-7 {
        return (best as f32, y1);
    }
    let offset = (0.5 * (y0 - y2) / denom).clamp(-0.5, 0.5);
    (best as f32 + offset, y1 - 0.25 * (y0 - y2) * offset)
}

/// Cubic Hermite coefficients `(a, b, c, d)` of the Catmull-Rom segment from knot `k` to
/// `k + 1`: `h(t) = a t³ + b t² + c t + d`, `t` in `[0, 1]`.
fn segment(values: &[f32], k: isize) -> (f32, f32, f32, f32) {
    let (p0, p1, p2, p3) = (
        wrapped(values, k - 1),
        wrapped(values, k),
        wrapped(values, k + 1),
        wrapped(values, k + 2),
    );
    let m1 = 0.5 * (p2 - p0);
    let m2 = 0.5 * (p3 - p1);
    (
        2.0 * p1 + m1 - 2.0 * p2 + m2,
        -3.0 * p1 - 2.0 * m1 + 3.0 * p2 - m2,
        m1,
        p1,
    )
}

/// Maximum of the wrapping Catmull-Rom spline through `values`: (position, value). Each segment
/// is checked at its start knot and at the roots in `(0, 1)` of its derivative.
fn catmull_rom_peak(values: &[f32]) -> Option<(f32, f32)> {
    let mut best: Option<(f32, f32)> = None;
    let mut consider = |pos: f32, v: f32| {
        if v.is_finite() && best.is_none_or(|(_, bv)| v > bv) {
            best = Some((pos, v));
        }
    };
    for k in 0..values.len() {
        let (a, b, c, d) = segment(values, k as isize);
        let eval = |t: f32| ((a * t + b) * t + c) * t + d;
        consider(k as f32, d);
        // h'(t) = 3a t² + 2b t + c
        let (qa, qb, qc) = (3.0 * a, 2.0 * b, c);
        let mut roots = [f32::NAN; 2];
        if qa.abs() <= 1e-7 {
            if qb.abs() > 1e-7 {
                roots[0] = -qc / qb;
            }
        } else {
            let disc = qb * qb - 4.0 * qa * qc;
            if disc >= 0.0 {
                let s = disc.sqrt();
                roots = [(-qb - s) / (2.0 * qa), (-qb + s) / (2.0 * qa)];
            }
        }
        for t in roots {
            if t > 0.0 && t < 1.0 {
                consider(k as f32 + t, eval(t));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_with(values: &[f32]) -> ContextMap {
        let mut m = ContextMap::new(values.len()).unwrap();
        for (i, v) in values.iter().enumerate() {
            m.set(i, *v, NO_DISTANCE);
        }
        m
    }

    /// A triangular bump of half-width 2 slots peaking at fractional slot `peak`.
    fn bump(n: usize, peak: f32) -> Vec<f32> {
        (0..n)
            .map(|i| (1.0 - (i as f32 - peak).abs() / 2.0).max(0.0))
            .collect()
    }

    #[test]
    fn interpolated_direction_lies_between_slots_nearer_the_higher() {
        let m = map_with(&bump(16, 2.3));
        let none = decide(&m, Interpolation::None).unwrap();
        assert_eq!(none.slot_position, 2.0);
        for mode in [Interpolation::Parabolic, Interpolation::CatmullRom] {
            let d = decide(&m, mode).unwrap();
            assert!(
                d.slot_position > 2.05 && d.slot_position < 2.5,
                "{mode:?}: {}",
                d.slot_position
            );
            // The direction really is that far round the circle.
            let angle = crate::ops::angle_between(Vec2::X, d.direction);
            assert!((angle - d.slot_position * m.angle_step()).abs() < 1e-4);
        }
        // Mirrored: peak at 2.7 lies nearer slot 3.
        let m = map_with(&bump(16, 2.7));
        for mode in [Interpolation::Parabolic, Interpolation::CatmullRom] {
            let d = decide(&m, mode).unwrap();
            assert!(d.slot_position > 2.5 && d.slot_position < 2.95, "{mode:?}");
        }
    }

    #[test]
    fn parabolic_recovers_an_exact_parabola() {
        let values: Vec<f32> = (0..8)
            .map(|i| (0.9 - 0.1 * (i as f32 - 5.3).powi(2)).max(0.0))
            .collect();
        let d = decide(&map_with(&values), Interpolation::Parabolic).unwrap();
        assert!((d.slot_position - 5.3).abs() < 1e-4, "{}", d.slot_position);
        assert!((d.value - 0.9).abs() < 1e-4);
    }

    #[test]
    fn catmull_rom_wraps_and_keeps_symmetric_peaks_on_the_knot() {
        // Peak on slot 0 with symmetric neighbours on both sides of the wrap.
        let mut values = vec![0.0; 8];
        values[0] = 1.0;
        values[1] = 0.5;
        values[7] = 0.5;
        let d = decide(&map_with(&values), Interpolation::CatmullRom).unwrap();
        assert!(d.slot_position.min(8.0 - d.slot_position) < 1e-4);
        // Peak between the last slot and slot 0 (across the wrap).
        let mut values = vec![0.0; 8];
        values[7] = 1.0;
        values[0] = 0.8;
        let d = decide(&map_with(&values), Interpolation::CatmullRom).unwrap();
        assert!(
            d.slot_position > 7.0 && d.slot_position < 7.5,
            "{}",
            d.slot_position
        );
    }

    #[test]
    fn nothing_to_decide() {
        let m = ContextMap::new(8).unwrap();
        for mode in [
            Interpolation::None,
            Interpolation::Parabolic,
            Interpolation::CatmullRom,
        ] {
            assert!(decide(&m, mode).is_none());
        }
    }

    proptest::proptest! {
        #[test]
        fn decisions_are_unit_and_in_range(
            values in proptest::collection::vec(0.0_f32..=1.0, 4..64),
            align in -3.0_f32..3.0,
        ) {
            let mut m = map_with(&values);
            m.align(crate::ops::from_angle(align));
            for mode in [Interpolation::None, Interpolation::Parabolic, Interpolation::CatmullRom] {
                if let Some(d) = decide(&m, mode) {
                    proptest::prop_assert!((d.direction.length() - 1.0).abs() < 1e-4);
                    proptest::prop_assert!((0.0..=1.0).contains(&d.value));
                    proptest::prop_assert!(d.slot_position >= 0.0);
                    proptest::prop_assert!(d.slot_position < values.len() as f32);
                } else {
                    proptest::prop_assert!(values.iter().all(|v| *v <= 0.0));
                }
            }
        }
    }

    #[test]
    fn danger_masks_interest() {
        let interest = map_with(&[1.0, 0.8, 0.5, 0.2, 0.1, 0.2, 0.5, 0.8]);
        let mut danger = ContextMap::new(8).unwrap();
        danger.set(0, 0.6, 2.0);
        danger.set(1, 0.1, 4.0);
        danger.set(7, 0.3, 3.0);
        let mut out = ContextMap::new(8).unwrap();
        combine(
            &interest,
            &danger,
            CombineMode::DangerMask { threshold: 0.2 },
            0.0,
            &mut out,
        );
        // Lowest danger 0 → limit 0.2: slots 0 and 7 masked, slot 1 weighed.
        assert_eq!(out.value(0), 0.0);
        assert_eq!(out.value(7), 0.0);
        assert!((out.value(1) - 0.72).abs() < 1e-6);
        assert_eq!(out.value(2), 0.5);
        assert_eq!(out.distance(0), 2.0);
        let d = decide(&out, Interpolation::None).unwrap();
        assert_eq!(d.slot_position, 1.0);

        // Multiply masks nothing.
        combine(&interest, &danger, CombineMode::Multiply, 0.0, &mut out);
        assert!((out.value(0) - 0.4).abs() < 1e-6);
        assert!((out.value(7) - 0.56).abs() < 1e-6);
    }

    #[test]
    fn interest_nearer_than_danger_is_accepted() {
        let mut interest = ContextMap::new(8).unwrap();
        interest.set(0, 1.0, 1.5); // goal 1.5 ahead
        interest.set(1, 0.5, NO_DISTANCE);
        let mut danger = ContextMap::new(8).unwrap();
        danger.set(0, 0.9, 2.0); // wall just behind the goal
        let mut out = ContextMap::new(8).unwrap();
        for mode in [CombineMode::default(), CombineMode::Multiply] {
            combine(&interest, &danger, mode, 0.0, &mut out);
            assert_eq!(out.value(0), 1.0, "{mode:?}");
        }
        // Wall in front of the goal: masked.
        danger.set(0, 0.9, 1.0);
        combine(&interest, &danger, CombineMode::default(), 0.0, &mut out);
        assert_eq!(out.value(0), 0.0);
    }

    #[test]
    fn danger_within_clearance_is_blocked() {
        let interest = map_with(&[1.0; 8]);
        let mut danger = ContextMap::new(8).unwrap();
        danger.set(3, 0.05, 0.4);
        let mut out = ContextMap::new(8).unwrap();
        combine(&interest, &danger, CombineMode::Multiply, 0.5, &mut out);
        assert_eq!(out.value(3), 0.0);
        combine(&interest, &danger, CombineMode::Multiply, 0.3, &mut out);
        assert!((out.value(3) - 0.95).abs() < 1e-6);
    }

    #[test]
    fn favour_breaks_symmetric_ties_towards_the_current_direction() {
        let mut m = map_with(&[0.0, 0.8, 0.5, 0.2, 0.1, 0.2, 0.5, 0.8]);
        favour(&mut m, Vec2::new(1.0, -1.0), 0.2);
        // Slot 7 (−45°) is the current direction and keeps its value; slot 1 (+45°) is square
        // to it and loses a tenth.
        assert!((m.value(7) - 0.8).abs() < 1e-6);
        assert!((m.value(1) - 0.72).abs() < 1e-5);
        assert_eq!(decide(&m, Interpolation::None).unwrap().slot_position, 7.0);
        favour(&mut m, Vec2::ZERO, 0.2);
        assert!((m.value(7) - 0.8).abs() < 1e-6);
    }

    #[test]
    fn combine_resamples_danger_with_another_layout() {
        let mut interest = map_with(&[1.0; 8]);
        interest.align(Vec2::Y);
        let mut danger = ContextMap::new(8).unwrap(); // slot 2 is world +y
        danger.set(2, 1.0, 1.0);
        let mut out = ContextMap::new(4).unwrap();
        combine(&interest, &danger, CombineMode::default(), 0.0, &mut out);
        assert_eq!(out.slot_count(), 8);
        assert_eq!(out.value(0), 0.0);
        assert_eq!(out.value(4), 1.0);
    }
}
