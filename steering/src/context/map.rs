//! [`ContextMap`]: a ring of evenly spaced direction slots, each with a value in `[0, 1]` and the
//! distance at which that value lies, aligned so that slot 0 points at a chosen direction.

use core::f32::consts::TAU;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::SteeringError;
use crate::ops;

/// Fewest slots a context map may have.
pub const MIN_SLOTS: usize = 4;
/// Most slots a context map may have.
pub const MAX_SLOTS: usize = 256;
/// The distance of a slot that holds nothing ("infinitely far", but finite so it serializes).
pub const NO_DISTANCE: f32 = f32::MAX;

/// A context map: `N` unit directions evenly spaced around the circle, slot 0 along
/// [`alignment`](Self::alignment) and slot `i` at `i * 2π / N` counter-clockwise from it, each
/// slot holding a value in `[0, 1]` (interest, danger or decision) and the distance along its
/// direction at which that value lies ([`NO_DISTANCE`] when empty).
///
/// Values are always finite and in `[0, 1]`; distances are finite and not negative.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ContextMapData", into = "ContextMapData")]
pub struct ContextMap {
    alignment: Vec2,
    /// Unaligned unit directions: slot `i` at angle `i * 2π / N` from +x.
    base: Vec<Vec2>,
    directions: Vec<Vec2>,
    values: Vec<f32>,
    distances: Vec<f32>,
}

/// The serialized form of a [`ContextMap`] (directions are rebuilt on load).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ContextMapData {
    alignment: Vec2,
    values: Vec<f32>,
    distances: Vec<f32>,
}

impl TryFrom<ContextMapData> for ContextMap {
    type Error = SteeringError;

    fn try_from(data: ContextMapData) -> Result<Self, Self::Error> {
        let mut map = Self::new(data.values.len())?;
        if data.distances.len() != data.values.len() {
            return Err(SteeringError::OutOfRange {
                what: "context map distance count",
                range: "equal to the value count",
                value: data.distances.len() as f32,
            });
        }
        map.align(data.alignment);
        for (i, (v, d)) in data.values.iter().zip(&data.distances).enumerate() {
            map.set(i, *v, *d);
        }
        Ok(map)
    }
}

impl From<ContextMap> for ContextMapData {
    fn from(map: ContextMap) -> Self {
        Self {
            alignment: map.alignment,
            values: map.values,
            distances: map.distances,
        }
    }
}

/// A value clamped to `[0, 1]`; NaN gives 0.
#[inline]
pub(crate) fn unit(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// A distance made finite and not negative; NaN gives [`NO_DISTANCE`].
#[inline]
fn sane_distance(d: f32) -> f32 {
    if d.is_nan() {
        NO_DISTANCE
    } else {
        d.clamp(0.0, NO_DISTANCE)
    }
}

impl ContextMap {
    /// An empty map with `slots` directions, slot 0 along +x. Errors unless
    /// `MIN_SLOTS <= slots <= MAX_SLOTS`.
    pub fn new(slots: usize) -> Result<Self, SteeringError> {
        if !(MIN_SLOTS..=MAX_SLOTS).contains(&slots) {
            return Err(SteeringError::OutOfRange {
                what: "context slot count",
                range: "4..=256",
                value: slots as f32,
            });
        }
        Ok(Self::with_slots_clamped(slots))
    }

    /// An empty map with `slots` clamped into `MIN_SLOTS..=MAX_SLOTS`.
    pub(crate) fn with_slots_clamped(slots: usize) -> Self {
        let n = slots.clamp(MIN_SLOTS, MAX_SLOTS);
        let step = TAU / n as f32;
        let base: Vec<Vec2> = (0..n).map(|i| ops::from_angle(i as f32 * step)).collect();
        Self {
            alignment: Vec2::X,
            directions: base.clone(),
            base,
            values: vec![0.0; n],
            distances: vec![NO_DISTANCE; n],
        }
    }

    /// Number of slots.
    #[inline]
    pub fn slot_count(&self) -> usize {
        self.values.len()
    }

    /// Angle between neighbouring slots, radians.
    #[inline]
    pub fn angle_step(&self) -> f32 {
        TAU / self.slot_count() as f32
    }

    /// Unit direction of slot 0.
    #[inline]
    pub fn alignment(&self) -> Vec2 {
        self.alignment
    }

    /// Unit world direction of every slot.
    #[inline]
    pub fn directions(&self) -> &[Vec2] {
        &self.directions
    }

    /// Value of every slot, each in `[0, 1]`.
    #[inline]
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Distance of every slot ([`NO_DISTANCE`] where nothing was written).
    #[inline]
    pub fn distances(&self) -> &[f32] {
        &self.distances
    }

    /// Direction of slot `i`, if it exists.
    #[inline]
    pub fn direction(&self, i: usize) -> Option<Vec2> {
        self.directions.get(i).copied()
    }

    /// Value of slot `i` (0 when it does not exist).
    #[inline]
    pub fn value(&self, i: usize) -> f32 {
        self.values.get(i).copied().unwrap_or(0.0)
    }

    /// Distance of slot `i` ([`NO_DISTANCE`] when it does not exist).
    #[inline]
    pub fn distance(&self, i: usize) -> f32 {
        self.distances.get(i).copied().unwrap_or(NO_DISTANCE)
    }

    /// Whether `other` has the same slot count and alignment (so slot `i` means the same world
    /// direction in both).
    #[inline]
    pub fn same_layout(&self, other: &ContextMap) -> bool {
        self.slot_count() == other.slot_count() && self.alignment == other.alignment
    }

    /// Rotates the slots so that slot 0 points along `direction` (normalized). A zero or
    /// non-finite direction keeps the current alignment. Values are kept per slot index.
    pub fn align(&mut self, direction: Vec2) {
        let Some(a) = direction.try_normalize() else {
            return;
        };
        self.alignment = a;
        for (d, b) in self.directions.iter_mut().zip(&self.base) {
            *d = a.rotate(*b);
        }
    }

    /// Aligns slot 0 to the direction from `position` to `goal`, or to `heading` when the goal
    /// is degenerate (coincident or non-finite), or to +x when both are.
    pub fn align_to_goal(&mut self, position: Vec2, goal: Vec2, heading: Vec2) {
        let dir = (goal - position)
            .try_normalize()
            .or_else(|| heading.try_normalize())
            .unwrap_or(Vec2::X);
        self.align(dir);
    }

    /// Sets every value to 0 and every distance to [`NO_DISTANCE`].
    pub fn clear(&mut self) {
        self.values.fill(0.0);
        self.distances.fill(NO_DISTANCE);
    }

    /// Overwrites slot `i` (value clamped to `[0, 1]`, distance made finite and not negative;
    /// a missing slot is ignored).
    pub fn set(&mut self, i: usize, value: f32, distance: f32) {
        if let (Some(v), Some(d)) = (self.values.get_mut(i), self.distances.get_mut(i)) {
            *v = unit(value);
            *d = sane_distance(distance);
        }
    }

    /// Writes a contribution into slot `i`: the slot keeps the larger value, and the distance of
    /// the strongest contribution (the nearer one on a tie). Zero, negative or NaN values leave
    /// the slot untouched.
    pub fn write(&mut self, i: usize, value: f32, distance: f32) {
        let value = unit(value);
        if value <= 0.0 {
            return;
        }
        let distance = sane_distance(distance);
        if let (Some(v), Some(d)) = (self.values.get_mut(i), self.distances.get_mut(i)) {
            if value > *v {
                *v = value;
                *d = distance;
            } else if value == *v && distance < *d {
                *d = distance;
            }
        }
    }

    /// Adds `delta` to the value of slot `i`, clamping to `[0, 1]` (distance unchanged; NaN
    /// ignored).
    pub fn add(&mut self, i: usize, delta: f32) {
        if !delta.is_finite() {
            return;
        }
        if let Some(v) = self.values.get_mut(i) {
            *v = unit(*v + delta);
        }
    }

    /// Fractional slot index in `[0, N)` of the world direction `dir` (0 for a degenerate one).
    pub fn slot_position(&self, dir: Vec2) -> f32 {
        if !dir.is_finite() {
            return 0.0;
        }
        let mut angle = ops::angle_between(self.alignment, dir);
        if angle < 0.0 {
            angle += TAU;
        }
        let n = self.slot_count() as f32;
        let pos = angle / self.angle_step();
        if !pos.is_finite() || pos < 0.0 || pos >= n {
            0.0
        } else {
            pos
        }
    }

    /// World direction at fractional slot position `pos` (wrapping; 0 for non-finite).
    pub fn direction_at(&self, pos: f32) -> Vec2 {
        let pos = if pos.is_finite() { pos } else { 0.0 };
        self.alignment
            .rotate(ops::from_angle(pos * self.angle_step()))
    }

    /// Value and distance in world direction `dir`: the value linearly interpolated between the
    /// two nearest slots, the distance of the nearer slot.
    pub fn sample(&self, dir: Vec2) -> (f32, f32) {
        let n = self.slot_count();
        let pos = self.slot_position(dir);
        let i0 = (pos as usize) % n;
        let i1 = (i0 + 1) % n;
        let t = pos - pos.floor();
        let v = self.value(i0) * (1.0 - t) + self.value(i1) * t;
        let d = if t < 0.5 {
            self.distance(i0)
        } else {
            self.distance(i1)
        };
        (unit(v), d)
    }

    /// Fills this map (in its current alignment) from `previous` damped by `damping`
    /// (clamped to `[0, 1]`): each slot gets `damping ×` the previous map's value sampled in the
    /// slot's world direction, and that sample's distance while the value is above zero. This is
    /// the start of a frame; evaluators then [`write`](Self::write) over it, so sudden danger
    /// shows at full strength while old danger fades.
    pub fn damp_from(&mut self, previous: &ContextMap, damping: f32) {
        let damping = unit(damping);
        for i in 0..self.slot_count() {
            let Some(dir) = self.direction(i) else {
                continue;
            };
            let (v, d) = previous.sample(dir);
            let v = v * damping;
            self.set(i, v, if v > 0.0 { d } else { NO_DISTANCE });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_count_is_validated() {
        assert!(ContextMap::new(3).is_err());
        assert!(ContextMap::new(257).is_err());
        for n in [4, 8, 16, 64, 256] {
            assert_eq!(ContextMap::new(n).unwrap().slot_count(), n);
        }
    }

    #[test]
    fn directions_are_even_and_aligned() {
        let mut m = ContextMap::new(8).unwrap();
        m.align_to_goal(Vec2::new(1.0, 1.0), Vec2::new(1.0, 5.0), Vec2::X);
        assert!((m.direction(0).unwrap() - Vec2::Y).length() < 1e-6);
        // Slot 2 is a quarter turn counter-clockwise from slot 0.
        assert!((m.direction(2).unwrap() + Vec2::X).length() < 1e-6);
        for w in m.directions().windows(2) {
            assert!((w[0].dot(w[1]) - core::f32::consts::FRAC_1_SQRT_2).abs() < 1e-5);
        }
        // Degenerate goal aligns to the heading.
        m.align_to_goal(Vec2::ONE, Vec2::ONE, Vec2::new(0.0, -2.0));
        assert!((m.alignment() + Vec2::Y).length() < 1e-6);
        m.align_to_goal(Vec2::ONE, Vec2::new(f32::NAN, 0.0), Vec2::ZERO);
        assert_eq!(m.alignment(), Vec2::X);
    }

    #[test]
    fn write_keeps_strongest_and_its_distance() {
        let mut m = ContextMap::new(8).unwrap();
        m.write(1, 0.4, 3.0);
        m.write(1, 0.2, 1.0);
        assert_eq!((m.value(1), m.distance(1)), (0.4, 3.0));
        m.write(1, 0.9, 5.0);
        assert_eq!((m.value(1), m.distance(1)), (0.9, 5.0));
        m.write(1, 0.9, 4.0);
        assert_eq!(m.distance(1), 4.0);
        m.write(2, f32::NAN, 1.0);
        m.write(2, 7.0, f32::NAN);
        assert_eq!((m.value(2), m.distance(2)), (1.0, NO_DISTANCE));
        m.add(1, -0.5);
        assert!((m.value(1) - 0.4).abs() < 1e-6);
        m.add(1, -5.0);
        assert_eq!(m.value(1), 0.0);
        m.write(99, 1.0, 1.0); // ignored, no panic
    }

    #[test]
    fn sample_interpolates_between_slots() {
        let mut m = ContextMap::new(8).unwrap();
        m.align(Vec2::Y);
        m.set(0, 1.0, 2.0);
        m.set(1, 0.5, 4.0);
        // A quarter of the way from slot 0 to slot 1 (45° apart).
        let dir = m.direction_at(0.25);
        let (v, d) = m.sample(dir);
        assert!((v - 0.875).abs() < 1e-5, "{v}");
        assert_eq!(d, 2.0);
        assert!((m.slot_position(m.direction(7).unwrap()) - 7.0).abs() < 1e-4);
    }

    #[test]
    fn damping_resamples_previous_frame() {
        let mut prev = ContextMap::new(8).unwrap();
        prev.set(2, 0.8, 3.0); // world +y when aligned to +x
        let mut next = ContextMap::new(8).unwrap();
        next.align(Vec2::Y); // now slot 0 is world +y
        next.damp_from(&prev, 0.5);
        assert!((next.value(0) - 0.4).abs() < 1e-5);
        assert_eq!(next.distance(0), 3.0);
        assert_eq!(next.value(2), 0.0);
        assert_eq!(next.distance(2), NO_DISTANCE);
    }

    #[test]
    fn serde_round_trip_validates() {
        let mut m = ContextMap::new(16).unwrap();
        m.align(Vec2::new(0.0, -1.0));
        m.set(3, 0.25, 1.5);
        let text = ron::to_string(&m).unwrap();
        let back: ContextMap = ron::from_str(&text).unwrap();
        assert_eq!(back, m);
        let bad = "(alignment:(1.0,0.0),values:[0.0,0.0],distances:[1.0,1.0])";
        assert!(ron::from_str::<ContextMap>(bad).is_err());
    }
}
