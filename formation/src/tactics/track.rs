//! Keyframed slot tracks: a slot's offset (and facing) as a function of time, interpolated
//! between keyframes, with the exact time derivative so members can be fed the slot's velocity.
//!
//! Offsets are in the frame of whatever owns the track (a play's frame: `+x` forward, `+y`
//! left). Before the first keyframe the track holds the first offset, after the last it holds
//! the last one (velocity zero).

use glam::Vec2;
use serde::{Deserialize, Serialize};

use super::error::TacticsError;

/// Most keyframes one track may have.
pub const MAX_KEYFRAMES: usize = 4096;
/// Largest keyframe time and offset component accepted.
pub const MAX_TRACK_VALUE: f32 = 1.0e5;

/// How a track moves between keyframes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interpolation {
    /// Holds each keyframe until the next one (a jump; members arrive at the new place).
    Step,
    /// Straight lines at constant speed between keyframes.
    #[default]
    Linear,
    /// A Catmull-Rom spline through the keyframes (non-uniform times: tangents are central
    /// differences `(p[i+1] − p[i−1]) / (t[i+1] − t[i−1])`, one-sided at the ends): smooth
    /// curves with continuous velocity.
    CatmullRom,
}

/// One keyframe: where the slot is at `time` seconds into its phase.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Keyframe {
    /// Seconds from the start of the phase (finite, not negative, strictly increasing).
    pub time: f32,
    /// Offset in the owner's frame.
    pub offset: Vec2,
    /// Facing in the owner's frame; `None` faces the direction of travel (or forward when the
    /// slot is still).
    pub facing: Option<Vec2>,
}

impl Default for Keyframe {
    fn default() -> Self {
        Self {
            time: 0.0,
            offset: Vec2::ZERO,
            facing: None,
        }
    }
}

/// A slot track as authored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SlotTrack {
    /// How to move between keyframes.
    pub interpolation: Interpolation,
    /// The keyframes, in time order.
    pub keys: Vec<Keyframe>,
}

/// Where a slot is at one instant, in its owner's frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotPose {
    /// Offset.
    pub offset: Vec2,
    /// Rate of change of the offset (per second).
    pub velocity: Vec2,
    /// Unit facing.
    pub facing: Vec2,
}

impl SlotPose {
    /// A still slot at `offset` facing `facing` (+x when zero).
    pub fn still(offset: Vec2, facing: Vec2) -> Self {
        Self {
            offset,
            velocity: Vec2::ZERO,
            facing: facing.try_normalize().unwrap_or(Vec2::X),
        }
    }
}

impl SlotTrack {
    /// Checks the track: 1 to [`MAX_KEYFRAMES`] keyframes, finite times within
    /// [`MAX_TRACK_VALUE`], not negative and strictly increasing, finite offsets within
    /// [`MAX_TRACK_VALUE`], facings finite and non-zero. `what` names the track in errors.
    pub fn check(&self, what: &str) -> Result<(), TacticsError> {
        let bad = |why: String| TacticsError::Invalid {
            field: what.to_owned(),
            why,
        };
        if self.keys.is_empty() {
            return Err(bad("a track needs at least one keyframe".into()));
        }
        if self.keys.len() > MAX_KEYFRAMES {
            return Err(bad(format!(
                "{} keyframes; at most {MAX_KEYFRAMES}",
                self.keys.len()
            )));
        }
        let mut last = f32::NEG_INFINITY;
        for (i, k) in self.keys.iter().enumerate() {
            if !(k.time.is_finite() && (0.0..=MAX_TRACK_VALUE).contains(&k.time)) {
                return Err(bad(format!("keys[{i}].time {} is not in [0, 1e5]", k.time)));
            }
            if k.time <= last {
                return Err(bad(format!(
                    "keys[{i}].time {} does not come after {last}",
                    k.time
                )));
            }
            last = k.time;
            if !k.offset.is_finite() || k.offset.abs().max_element() > MAX_TRACK_VALUE {
                return Err(bad(format!("keys[{i}].offset is not finite or too large")));
            }
            if let Some(f) = k.facing
                && !(f.is_finite() && f.length_squared() > 0.0)
            {
                return Err(bad(format!("keys[{i}].facing must be finite and non-zero")));
            }
        }
        Ok(())
    }

    /// Time of the last keyframe (0 for an empty track).
    pub fn end_time(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.time)
    }

    /// The slot at `time`: offset, its derivative and facing. A checked track never gives a
    /// non-finite result; an empty one gives a still slot at the origin.
    pub fn sample(&self, time: f32) -> SlotPose {
        let keys = &self.keys;
        let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
            return SlotPose::still(Vec2::ZERO, Vec2::X);
        };
        if !(time > first.time) {
            return SlotPose::still(first.offset, first.facing.unwrap_or(Vec2::X));
        }
        if time >= last.time {
            let facing = last.facing.unwrap_or_else(|| self.end_direction());
            return SlotPose::still(last.offset, facing);
        }
        // keys[i].time < time < keys[i + 1].time
        let i = keys.partition_point(|k| k.time <= time).saturating_sub(1);
        let (Some(a), Some(b)) = (keys.get(i), keys.get(i + 1)) else {
            return SlotPose::still(last.offset, Vec2::X);
        };
        let h = b.time - a.time;
        let s = ((time - a.time) / h).clamp(0.0, 1.0);
        let (offset, velocity) = match self.interpolation {
            Interpolation::Step => (a.offset, Vec2::ZERO),
            Interpolation::Linear => (a.offset.lerp(b.offset, s), (b.offset - a.offset) / h),
            Interpolation::CatmullRom => {
                let (ma, mb) = (self.tangent(i), self.tangent(i + 1));
                hermite(a.offset, ma, b.offset, mb, h, s)
            }
        };
        let facing = match (a.facing, b.facing) {
            (Some(fa), Some(fb)) => {
                let fa = fa.try_normalize().unwrap_or(Vec2::X);
                let fb = fb.try_normalize().unwrap_or(Vec2::X);
                fa.lerp(fb, s).try_normalize().unwrap_or(fb)
            }
            _ => velocity
                .try_normalize()
                .or_else(|| (b.offset - a.offset).try_normalize())
                .unwrap_or(Vec2::X),
        };
        SlotPose {
            offset,
            velocity,
            facing,
        }
    }

    /// Catmull-Rom tangent at key `i` (central difference; one-sided at the ends).
    fn tangent(&self, i: usize) -> Vec2 {
        let k = &self.keys;
        let lo = k.get(i.saturating_sub(1));
        let hi = k.get(i + 1).or_else(|| k.get(i));
        match (lo, hi) {
            (Some(a), Some(b)) if b.time > a.time => (b.offset - a.offset) / (b.time - a.time),
            _ => Vec2::ZERO,
        }
    }

    /// Direction of the last leg (forward when the track never moves).
    fn end_direction(&self) -> Vec2 {
        self.keys
            .windows(2)
            .rev()
            .find_map(|w| (w[1].offset - w[0].offset).try_normalize())
            .unwrap_or(Vec2::X)
    }
}

/// Cubic Hermite segment from `a` (tangent `ma`) to `b` (tangent `mb`) over `h` seconds at
/// `s ∈ [0, 1]`: position and time derivative.
fn hermite(a: Vec2, ma: Vec2, b: Vec2, mb: Vec2, h: f32, s: f32) -> (Vec2, Vec2) {
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    let d00 = 6.0 * s2 - 6.0 * s;
    let d10 = 3.0 * s2 - 4.0 * s + 1.0;
    let d01 = -6.0 * s2 + 6.0 * s;
    let d11 = 3.0 * s2 - 2.0 * s;
    let p = a * h00 + ma * (h * h10) + b * h01 + mb * (h * h11);
    let v = (a * d00 + b * d01) / h + ma * d10 + mb * d11;
    (p, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(interpolation: Interpolation, keys: &[(f32, Vec2)]) -> SlotTrack {
        SlotTrack {
            interpolation,
            keys: keys
                .iter()
                .map(|&(time, offset)| Keyframe {
                    time,
                    offset,
                    facing: None,
                })
                .collect(),
        }
    }

    fn zigzag(i: Interpolation) -> SlotTrack {
        track(
            i,
            &[
                (0.0, Vec2::ZERO),
                (1.0, Vec2::new(2.0, 0.0)),
                (3.0, Vec2::new(2.0, 4.0)),
                (4.0, Vec2::new(6.0, 4.0)),
            ],
        )
    }

    #[test]
    fn linear_moves_at_constant_speed_between_keys() {
        let t = zigzag(Interpolation::Linear);
        let p = t.sample(2.0);
        assert!((p.offset - Vec2::new(2.0, 2.0)).length() < 1e-6);
        assert!((p.velocity - Vec2::new(0.0, 2.0)).length() < 1e-6);
        assert!((p.facing - Vec2::Y).length() < 1e-6);
        // Held before the first and after the last key, with zero velocity.
        assert_eq!(t.sample(-1.0).offset, Vec2::ZERO);
        assert_eq!(t.sample(9.0).offset, Vec2::new(6.0, 4.0));
        assert_eq!(t.sample(9.0).velocity, Vec2::ZERO);
        assert_eq!(t.sample(9.0).facing, Vec2::X);
    }

    #[test]
    fn catmull_rom_passes_through_keys_with_continuous_velocity() {
        let t = zigzag(Interpolation::CatmullRom);
        for k in &t.keys {
            let p = t.sample(k.time + 1e-6);
            assert!((p.offset - k.offset).length() < 1e-4, "{k:?} {p:?}");
        }
        // Velocity is continuous across key 1 and matches the central-difference tangent.
        let before = t.sample(1.0 - 1e-4).velocity;
        let after = t.sample(1.0 + 1e-4).velocity;
        assert!((before - after).length() < 0.01, "{before} {after}");
        let tangent = (Vec2::new(2.0, 4.0) - Vec2::ZERO) / 3.0;
        assert!((after - tangent).length() < 0.01, "{after} {tangent}");
    }

    #[test]
    fn velocity_is_the_derivative_of_the_offset() {
        for i in [Interpolation::Linear, Interpolation::CatmullRom] {
            let t = zigzag(i);
            let mut time = 0.05;
            while time < 3.95 {
                let h = 1e-3;
                let numeric = (t.sample(time + h).offset - t.sample(time - h).offset) / (2.0 * h);
                let exact = t.sample(time).velocity;
                // Away from the linear track's corners the two agree.
                if (time - 1.0).abs() > 2.0 * h && (time - 3.0).abs() > 2.0 * h {
                    assert!((numeric - exact).length() < 0.02, "{i:?} t={time}");
                }
                time += 0.1;
            }
        }
    }

    #[test]
    fn step_holds_each_key() {
        let t = zigzag(Interpolation::Step);
        assert_eq!(t.sample(2.9).offset, Vec2::new(2.0, 0.0));
        assert_eq!(t.sample(2.9).velocity, Vec2::ZERO);
        assert_eq!(t.sample(3.0).offset, Vec2::new(2.0, 4.0));
    }

    #[test]
    fn authored_facings_are_blended() {
        let mut t = track(
            Interpolation::Linear,
            &[(0.0, Vec2::ZERO), (2.0, Vec2::new(4.0, 0.0))],
        );
        t.keys[0].facing = Some(Vec2::Y * 3.0);
        t.keys[1].facing = Some(Vec2::X);
        let f = t.sample(1.0).facing;
        assert!((f.length() - 1.0).abs() < 1e-5);
        assert!((f - Vec2::new(1.0, 1.0).normalize()).length() < 1e-5, "{f}");
    }

    #[test]
    fn check_refuses_bad_tracks() {
        assert!(SlotTrack::default().check("t").is_err());
        let unordered = track(Interpolation::Linear, &[(1.0, Vec2::ZERO), (1.0, Vec2::X)]);
        assert!(
            unordered
                .check("t")
                .unwrap_err()
                .to_string()
                .contains("keys[1].time")
        );
        let nan = track(Interpolation::Linear, &[(0.0, Vec2::new(f32::NAN, 0.0))]);
        assert!(nan.check("t").is_err());
        let mut zero_facing = track(Interpolation::Linear, &[(0.0, Vec2::ZERO)]);
        zero_facing.keys[0].facing = Some(Vec2::ZERO);
        assert!(zero_facing.check("t").is_err());
        assert!(zigzag(Interpolation::CatmullRom).check("t").is_ok());
    }

    #[test]
    fn samples_are_finite_for_checked_tracks() {
        let t = zigzag(Interpolation::CatmullRom);
        for time in [f32::NAN, f32::INFINITY, -f32::INFINITY, 0.0, 1.0, 3.999_999] {
            let p = t.sample(time);
            assert!(p.offset.is_finite() && p.velocity.is_finite() && p.facing.is_finite());
        }
    }
}
