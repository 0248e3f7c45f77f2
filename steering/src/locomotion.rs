//! Locomotion: turning a steering force into motion, and a smoothed heading.
//!
//! [`integrate`] applies a force with semi-implicit Euler (velocity first, then position with the
//! new velocity). It leaves `heading` alone: the heading is decoupled from the velocity and
//! smoothed over several ticks by a [`HeadingSmoother`] (Robin Green's fix for judder, where
//! conflicting behaviours make the velocity direction flick back and forth each tick), then
//! turned towards that average at most `max_turn_rate` radians per second.
//! [`integrate_with_heading`] does both.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::body::Body;
use crate::ops;
use crate::vector::truncate;

/// Longest time step [`integrate`] takes, in seconds; a larger `dt` is clamped to it. The world
/// sub-steps long frames, so this only guards against runaway values (a huge `dt` would throw a
/// body across the map or overflow its position).
pub const MAX_DT: f32 = 1.0;

/// Speeds at or below this (world units per second) count as standing still: the heading
/// smoother records no direction and the heading stays as it was.
pub const MIN_HEADING_SPEED: f32 = 1e-3;

/// Number of recent velocity directions a [`HeadingSmoother`] averages.
pub const HEADING_SAMPLES: usize = 8;

/// `dt` made safe: NaN, infinite-negative, zero and negative steps become 0; a step above
/// [`MAX_DT`] (including `+inf`) becomes `MAX_DT`.
#[inline]
pub fn sanitize_dt(dt: f32) -> f32 {
    if dt > 0.0 { dt.min(MAX_DT) } else { 0.0 }
}

/// Applies `force` to `body` for `dt` seconds.
///
/// The force is truncated to `max_force`, divided by `mass` to give an acceleration, then
/// semi-implicit Euler: `velocity += a * dt`, truncated to `max_speed`, then
/// `position += velocity * dt`. The heading is not changed (see [`HeadingSmoother`]).
///
/// Degenerate input never produces NaN:
/// - `dt` of 0, negative or NaN: the body is not changed at all.
/// - `dt` above [`MAX_DT`] (or infinite): clamped to `MAX_DT`.
/// - a non-finite `force`: treated as zero (the body coasts at its current velocity).
/// - a non-positive or non-finite `mass`: treated as 1.
/// - if the new velocity or position would not be finite, the body keeps its old one.
#[inline]
pub fn integrate(body: &mut Body, force: Vec2, dt: f32) {
    let dt = sanitize_dt(dt);
    if dt == 0.0 {
        return;
    }
    let force = truncate(force, body.max_force);
    let mass = if crate::ops::positive_finite(body.mass) {
        body.mass
    } else {
        1.0
    };
    let velocity = truncate(body.velocity + force / mass * dt, body.max_speed);
    if !velocity.is_finite() {
        return;
    }
    let position = body.position + velocity * dt;
    if !position.is_finite() {
        return;
    }
    body.velocity = velocity;
    body.position = position;
}

/// [`integrate`], then [`HeadingSmoother::update`]: one locomotion tick.
pub fn integrate_with_heading(
    body: &mut Body,
    smoother: &mut HeadingSmoother,
    force: Vec2,
    dt: f32,
) {
    integrate(body, force, dt);
    smoother.update(body, dt);
}

/// Turns the unit vector `from` towards the unit vector `to` by at most `max_angle` radians.
///
/// Returns a unit vector. A zero or non-finite `to` keeps `from`; a zero or non-finite `from`
/// jumps to `to` (or `+x` when both are degenerate). A negative or NaN `max_angle` is 0.
#[inline]
pub fn turn_towards(from: Vec2, to: Vec2, max_angle: f32) -> Vec2 {
    let from_n = from.try_normalize();
    let to_n = to.try_normalize();
    let (from, to) = match (from_n, to_n) {
        (Some(f), Some(t)) => (f, t),
        (Some(f), None) => return f,
        (None, Some(t)) => return t,
        (None, None) => return Vec2::X,
    };
    turn_unit_towards(from, to, max_angle)
}

/// [`turn_towards`] for unit vectors `from` and `to` (not checked): no normalization.
#[inline]
fn turn_unit_towards(from: Vec2, to: Vec2, max_angle: f32) -> Vec2 {
    let max_angle = if max_angle > 0.0 { max_angle } else { 0.0 };
    // Cheap test first: the angle is atan(|cross| / dot) ≤ |cross| / dot when dot > 0, so a
    // turn this small is within the limit without an atan2 (the common case: a marching
    // unit's heading changes by a hair each tick).
    let (dot, cross) = (from.dot(to), from.perp_dot(to));
    if dot > 0.0 && cross.abs() <= max_angle * dot {
        return to;
    }
    let angle = ops::angle_between(from, to);
    if angle.abs() <= max_angle {
        return to;
    }
    let step = ops::from_angle(max_angle.copysign(angle));
    step.rotate(from).try_normalize().unwrap_or(from)
}

/// `heading` unchanged when it is already unit length (within 1e-5), else normalized (`+x`
/// when it cannot be).
fn unit_heading(heading: Vec2) -> Vec2 {
    if (heading.length_squared() - 1.0).abs() <= 1e-5 {
        heading
    } else {
        heading.try_normalize().unwrap_or(Vec2::X)
    }
}

/// Smooths a body's heading: a fixed ring of the last [`HEADING_SAMPLES`] velocity directions,
/// whose average the heading turns towards at most `max_turn_rate` radians per second.
///
/// Plain state kept per body between ticks; no allocation, serializable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadingSmoother {
    /// Recent unit velocity directions (only the first `len` slots are meaningful).
    samples: [Vec2; HEADING_SAMPLES],
    /// Slot the next sample goes in.
    next: u8,
    /// How many slots hold samples (up to `HEADING_SAMPLES`).
    len: u8,
}

impl HeadingSmoother {
    /// An empty smoother (the same as [`HeadingSmoother::default`], usable in constants).
    pub const fn new() -> Self {
        Self {
            samples: [Vec2::ZERO; HEADING_SAMPLES],
            next: 0,
            len: 0,
        }
    }

    /// Forgets all recorded directions (for example after a teleport or a long stop).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The whole state, for hashing it bit for bit: every slot of the ring (recorded or not),
    /// the slot the next sample goes in, and how many slots hold samples.
    pub fn raw_parts(&self) -> (&[Vec2; HEADING_SAMPLES], u8, u8) {
        (&self.samples, self.next, self.len)
    }

    /// Number of directions currently recorded.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether no direction is recorded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records a velocity: its unit direction when its speed is above [`MIN_HEADING_SPEED`]
    /// and finite; otherwise nothing.
    #[inline]
    pub fn record(&mut self, velocity: Vec2) {
        let speed_sq = velocity.length_squared();
        if speed_sq <= MIN_HEADING_SPEED * MIN_HEADING_SPEED || !speed_sq.is_finite() {
            return;
        }
        let dir = velocity / speed_sq.sqrt();
        let slot = usize::from(self.next) % HEADING_SAMPLES;
        if let Some(s) = self.samples.get_mut(slot) {
            *s = dir;
        }
        self.next = ((slot + 1) % HEADING_SAMPLES) as u8;
        self.len = (usize::from(self.len) + 1).min(HEADING_SAMPLES) as u8;
    }

    /// The unit average of the recorded directions, or `None` when nothing is recorded or the
    /// directions cancel out.
    #[inline]
    pub fn average(&self) -> Option<Vec2> {
        let sum: Vec2 = self.samples.iter().take(self.len()).copied().sum();
        if sum.length_squared() > 1e-6 {
            sum.try_normalize()
        } else {
            None
        }
    }

    /// Records `body.velocity`, then turns `body.heading` towards the average direction by at
    /// most `body.max_turn_rate * dt` radians. When the body stands still (or the directions
    /// cancel) the heading turns towards nothing and only gets re-normalized. The heading
    /// always stays a unit vector (`+x` if it was degenerate). `dt` is sanitized as in
    /// [`integrate`]; a `dt` of 0 records nothing. A non-finite `max_turn_rate` means no limit;
    /// a negative one means no turning.
    #[inline]
    pub fn update(&mut self, body: &mut Body, dt: f32) {
        let dt = sanitize_dt(dt);
        let heading = unit_heading(body.heading);
        if dt == 0.0 {
            body.heading = heading;
            return;
        }
        self.record(body.velocity);
        let Some(target) = self.average() else {
            body.heading = heading;
            return;
        };
        let rate = if body.max_turn_rate.is_finite() {
            body.max_turn_rate
        } else {
            core::f32::consts::PI / dt
        };
        // Both are unit vectors: `unit_heading` and `average` normalized them.
        body.heading = turn_unit_towards(heading, target, rate * dt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimRng;

    fn body() -> Body {
        Body {
            mass: 2.0,
            ..Body::default()
        }
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn semi_implicit_euler() {
        let mut b = body();
        integrate(&mut b, Vec2::new(4.0, 0.0), 0.5);
        // a = 4 / 2 = 2; v = 2 * 0.5 = 1; p = v * dt with the new velocity = 0.5.
        assert!(close(b.velocity, Vec2::new(1.0, 0.0)));
        assert!(close(b.position, Vec2::new(0.5, 0.0)));
        assert_eq!(b.heading, Vec2::X);
    }

    #[test]
    fn force_and_speed_truncated() {
        let mut b = Body::default();
        integrate(&mut b, Vec2::new(0.0, 100.0), 0.1);
        // Force limited to max_force 6, mass 1: v = 0.6.
        assert!(close(b.velocity, Vec2::new(0.0, 0.6)));
        let mut b = Body::default().moving(Vec2::new(2.9, 0.0));
        integrate(&mut b, Vec2::new(6.0, 0.0), 1.0);
        assert!(close(b.velocity, Vec2::new(3.0, 0.0)));
        assert!(close(b.position, Vec2::new(3.0, 0.0)));
    }

    #[test]
    fn degenerate_dt_and_force() {
        let start = Body::default().moving(Vec2::new(1.0, 0.0));
        for dt in [0.0, -1.0, f32::NAN, f32::NEG_INFINITY] {
            let mut b = start;
            integrate(&mut b, Vec2::new(3.0, 3.0), dt);
            assert_eq!(b, start, "dt {dt}");
        }
        let mut b = start;
        integrate(&mut b, Vec2::new(f32::NAN, 1.0), 1.0);
        assert_eq!(b.velocity, Vec2::new(1.0, 0.0));
        assert_eq!(b.position, Vec2::new(1.0, 0.0));
        let mut b = start;
        integrate(&mut b, Vec2::new(f32::INFINITY, 0.0), 0.5);
        assert_eq!(b.position, Vec2::new(0.5, 0.0));
        // Huge dt is clamped to MAX_DT: no NaN, bounded motion.
        for dt in [1e30, f32::INFINITY] {
            let mut b = start;
            integrate(&mut b, Vec2::new(0.0, 6.0), dt);
            assert!(b.position.is_finite() && b.velocity.is_finite());
            assert!(b.velocity.length() <= b.max_speed + 1e-5);
            assert!(b.position.length() <= b.max_speed * MAX_DT + 1e-4);
        }
        // Broken mass is treated as 1.
        let mut b = Body { mass: 0.0, ..start };
        integrate(&mut b, Vec2::new(0.0, 1.0), 1.0);
        assert!(close(b.velocity, Vec2::new(1.0, 1.0)));
    }

    #[test]
    fn turn_towards_limits_angle() {
        let h = turn_towards(Vec2::X, Vec2::Y, 0.1);
        assert!((ops::to_angle(h) - 0.1).abs() < 1e-5);
        assert!((h.length() - 1.0).abs() < 1e-6);
        let h = turn_towards(Vec2::X, -Vec2::Y, 0.1);
        assert!((ops::to_angle(h) + 0.1).abs() < 1e-5);
        assert_eq!(
            turn_towards(Vec2::X, Vec2::new(1.0, 0.01), 0.1),
            Vec2::new(1.0, 0.01).normalize()
        );
        assert_eq!(turn_towards(Vec2::X, Vec2::ZERO, 1.0), Vec2::X);
        assert_eq!(turn_towards(Vec2::NAN, Vec2::Y, 0.0), Vec2::Y);
        assert_eq!(turn_towards(Vec2::Y, Vec2::X, f32::NAN), Vec2::Y);
    }

    /// Angle (radians) of `v` relative to +x.
    fn angle(v: Vec2) -> f32 {
        ops::to_angle(v)
    }

    #[test]
    fn judder_is_smoothed() {
        let mut b = Body::default();
        let mut s = HeadingSmoother::new();
        let dt = 1.0 / 30.0;
        let a30 = 30f32.to_radians();
        let (mut raw_lo, mut raw_hi) = (f32::MAX, f32::MIN);
        let (mut head_lo, mut head_hi) = (f32::MAX, f32::MIN);
        for tick in 0..60 {
            let a = if tick % 2 == 0 { a30 } else { -a30 };
            b.velocity = ops::from_angle(a) * 2.0;
            s.update(&mut b, dt);
            assert!((b.heading.length() - 1.0).abs() < 1e-5);
            if tick >= HEADING_SAMPLES {
                raw_lo = raw_lo.min(angle(b.velocity));
                raw_hi = raw_hi.max(angle(b.velocity));
                head_lo = head_lo.min(angle(b.heading));
                head_hi = head_hi.max(angle(b.heading));
            }
        }
        let raw = raw_hi - raw_lo;
        let head = head_hi - head_lo;
        assert!((raw - 2.0 * a30).abs() < 1e-4, "raw swing {raw}");
        assert!(head < 0.1 * raw, "heading swing {head} vs raw {raw}");
        // The average of ±30° is straight ahead.
        assert!(angle(b.heading).abs() < 0.02);
    }

    #[test]
    fn turn_rate_limited() {
        let mut b = Body {
            max_turn_rate: 1.0,
            velocity: Vec2::new(0.0, 2.0),
            ..Body::default()
        };
        let mut s = HeadingSmoother::new();
        let mut prev = angle(b.heading);
        for _ in 0..10 {
            s.update(&mut b, 0.1);
            let now = angle(b.heading);
            assert!(now - prev <= 0.1 + 1e-5, "turned {}", now - prev);
            assert!(now - prev >= 0.1 - 1e-5, "should turn at full rate");
            prev = now;
        }
        for _ in 0..10 {
            s.update(&mut b, 0.1);
        }
        assert!(close(b.heading, Vec2::Y));
    }

    #[test]
    fn standing_still_keeps_heading() {
        let mut b = Body::default().facing(Vec2::new(1.0, 1.0));
        let h = b.heading;
        let mut s = HeadingSmoother::new();
        for _ in 0..5 {
            s.update(&mut b, 0.1);
        }
        assert_eq!(b.heading, h);
        assert!(s.is_empty());
        b.velocity = Vec2::new(1e-5, 0.0);
        s.update(&mut b, 0.1);
        assert_eq!(b.heading, h);
        // dt of 0 records nothing.
        b.velocity = Vec2::X;
        s.update(&mut b, 0.0);
        assert_eq!(b.heading, h);
        assert!(s.is_empty());
        // Opposite directions cancel: keep the heading.
        s.record(-Vec2::X);
        b.velocity = Vec2::X;
        s.update(&mut b, 0.1);
        assert_eq!(s.average(), None);
        assert_eq!(b.heading, h);
    }

    #[test]
    fn heading_stays_unit_under_random_motion() {
        let mut rng = SimRng::seed_from(9);
        let mut b = Body::default();
        let mut s = HeadingSmoother::new();
        for _ in 0..2000 {
            let f = Vec2::new(rng.range(-10.0, 10.0), rng.range(-10.0, 10.0));
            integrate_with_heading(&mut b, &mut s, f, rng.range(0.0, 0.1));
            assert!((b.heading.length() - 1.0).abs() < 1e-5);
            assert!(b.position.is_finite() && b.velocity.length() <= b.max_speed + 1e-5);
        }
        assert_eq!(s.len(), HEADING_SAMPLES);
    }

    #[test]
    fn smoother_round_trips_through_ron() {
        let mut s = HeadingSmoother::new();
        s.record(Vec2::new(3.0, 4.0));
        let text = ron::to_string(&s).unwrap();
        let back: HeadingSmoother = ron::from_str(&text).unwrap();
        assert_eq!(back, s);
        assert!(close(back.average().unwrap(), Vec2::new(0.6, 0.8)));
    }
}
