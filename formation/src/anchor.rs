//! The anchor point of a formation: the pseudo-character that lays out the pattern.
//!
//! Two-level formation steering (Millington): a strict pattern is laid out around an anchor
//! point, and each member steers individually (arrive, separation, avoidance) to its slot. The
//! anchor is a pseudo-character that moves along the formation's path, ignoring small obstacles
//! but respecting walls and large obstacles (its path is clearance-aware). Information also flows
//! back up: when members lag, the anchor is held near `p_c + k_offset · v_c` (their average
//! position plus a look-ahead along their average velocity) and its speed is moderated, so the
//! formation never runs away from its stragglers. When the formation stops, the anchor is the
//! average of the occupied slots' positions and its orientation their average orientation, so a
//! standing formation neither drifts nor spins.

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

/// How a formation's anchor is driven.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnchorMode {
    /// A pseudo-character with its own kinematics moves along the path (the default: members
    /// sidestepping small obstacles do not make the other slots lurch).
    #[default]
    PseudoCharacter,
    /// Anchor reset every tick to the members' centre of mass plus `k_offset` times their
    /// average velocity, then advanced along the path (the formation moves as its members do).
    CentreOfMass,
    /// A designated leader unit: the anchor is the leader's position and heading, and the
    /// leader itself steers along the path like an individual.
    Leader,
}

/// The kinematic state of a formation's anchor.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorPoint {
    /// Position in world space.
    pub position: Vec2,
    /// Velocity in world units per second.
    pub velocity: Vec2,
    /// Unit facing: the pattern's +x axis in world space.
    pub orientation: Vec2,
}

impl Default for AnchorPoint {
    fn default() -> Self {
        Self {
            position: Vec2::ZERO,
            velocity: Vec2::ZERO,
            orientation: Vec2::X,
        }
    }
}

impl AnchorPoint {
    /// An anchor at rest at `position` facing `orientation` (normalized; +x if zero).
    pub fn at(position: Vec2, orientation: Vec2) -> Self {
        Self {
            position,
            velocity: Vec2::ZERO,
            orientation: orientation.try_normalize().unwrap_or(Vec2::X),
        }
    }

    /// World position of a slot whose pattern-space offset is `offset` (+x forward, +y left):
    /// `position + R(orientation) · offset`.
    #[inline]
    pub fn slot_position(&self, offset: Vec2) -> Vec2 {
        self.position + self.orientation.rotate(offset)
    }

    /// World facing of a slot whose pattern-space facing is `facing`.
    #[inline]
    pub fn slot_facing(&self, facing: Vec2) -> Vec2 {
        self.orientation
            .rotate(facing)
            .try_normalize()
            .unwrap_or(self.orientation)
    }
}

/// The moving formation's anchor from its members (Millington's moderation):
/// `p_anchor = p_c + k_offset · v_c`.
#[inline]
pub fn moving_anchor(centre: Vec2, average_velocity: Vec2, k_offset: f32) -> Vec2 {
    centre + average_velocity * k_offset
}

/// Running means of member positions and velocities, with no allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemberAverage {
    sum_position: Vec2,
    sum_velocity: Vec2,
    count: u32,
}

impl MemberAverage {
    /// Adds one member.
    #[inline]
    pub fn add(&mut self, position: Vec2, velocity: Vec2) {
        self.sum_position += position;
        self.sum_velocity += velocity;
        self.count += 1;
    }

    /// Number of members added.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// `(p_c, v_c)`, or `None` when empty.
    pub fn mean(&self) -> Option<(Vec2, Vec2)> {
        (self.count > 0).then(|| {
            let inv = 1.0 / self.count as f32;
            (self.sum_position * inv, self.sum_velocity * inv)
        })
    }
}

/// The stationary (drift-corrected) anchor: the average of the occupied slots' world
/// positions and the normalized average of their world facings. `None` when no slot is
/// occupied. Using slots, not members, is what stops a standing formation from drifting as
/// members jostle; using their orientation stops it from spinning.
pub fn drift_corrected_anchor(
    anchor: &AnchorPoint,
    occupied: impl IntoIterator<Item = (Vec2, Vec2)>,
) -> Option<AnchorPoint> {
    let mut sum_pos = Vec2::ZERO;
    let mut sum_facing = Vec2::ZERO;
    let mut n = 0u32;
    for (offset, facing) in occupied {
        sum_pos += anchor.slot_position(offset);
        sum_facing += anchor.slot_facing(facing);
        n += 1;
    }
    if n == 0 {
        return None;
    }
    let position = sum_pos / n as f32;
    // Slot facings are relative to the pattern's +x; the anchor's orientation is their
    // average rotated back by the average pattern-space facing, which for symmetric patterns
    // is +x. Keep the current orientation when the average is degenerate.
    let orientation = sum_facing.try_normalize().unwrap_or(anchor.orientation);
    Some(AnchorPoint {
        position,
        velocity: Vec2::ZERO,
        orientation,
    })
}

/// Speed factor in `[min_factor, 1]` from how far members lag behind their slots: 1 while the
/// mean lag is within `tolerance`, falling linearly to `min_factor` at `tolerance + range`.
pub fn lag_speed_factor(mean_lag: f32, tolerance: f32, range: f32, min_factor: f32) -> f32 {
    if !mean_lag.is_finite() || range.is_nan() || range <= 0.0 {
        return 1.0;
    }
    let over = (mean_lag - tolerance).max(0.0);
    (1.0 - over / range).clamp(min_factor.clamp(0.0, 1.0), 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    /// The worked example of the reference text (004, "Example").
    #[test]
    fn worked_example_anchor_and_slot() {
        let p_c = Vec2::new(24.25, 9.25);
        let v_c = Vec2::new(2.25, 4.0);
        let anchor = moving_anchor(p_c, v_c, 1.0);
        assert!(close(anchor, Vec2::new(26.5, 13.25)), "{anchor}");
        // Default orientation (+x): the slot is the anchor plus the unrotated offset.
        let a = AnchorPoint::at(anchor, Vec2::X);
        let slot = a.slot_position(Vec2::new(-14.25, 0.75));
        assert!(close(slot, Vec2::new(12.25, 14.0)), "{slot}");
    }

    #[test]
    fn member_average_matches_example() {
        let mut avg = MemberAverage::default();
        assert!(avg.mean().is_none());
        for (p, v) in [
            (Vec2::new(20.0, 10.0), Vec2::new(2.0, 4.0)),
            (Vec2::new(28.5, 8.5), Vec2::new(2.5, 4.0)),
        ] {
            avg.add(p, v);
        }
        let (p_c, v_c) = avg.mean().unwrap();
        assert!(close(p_c, Vec2::new(24.25, 9.25)));
        assert!(close(v_c, Vec2::new(2.25, 4.0)));
    }

    #[test]
    fn slot_position_rotates_with_orientation() {
        let a = AnchorPoint::at(Vec2::new(1.0, 1.0), Vec2::Y);
        // +x offset (ahead) now points along +y.
        assert!(close(
            a.slot_position(Vec2::new(2.0, 0.0)),
            Vec2::new(1.0, 3.0)
        ));
        // +y offset (left) now points along -x.
        assert!(close(
            a.slot_position(Vec2::new(0.0, 2.0)),
            Vec2::new(-1.0, 1.0)
        ));
    }

    #[test]
    fn drift_correction_is_average_of_occupied_slots() {
        let a = AnchorPoint::at(Vec2::new(5.0, 5.0), Vec2::X);
        // Only the two right-hand slots of a line are occupied: the anchor moves to their mean.
        let slots = [
            (Vec2::new(0.0, -1.0), Vec2::X),
            (Vec2::new(0.0, -3.0), Vec2::X),
        ];
        let c = drift_corrected_anchor(&a, slots).unwrap();
        assert!(close(c.position, Vec2::new(5.0, 3.0)));
        assert!(close(c.orientation, Vec2::X));
        assert!(drift_corrected_anchor(&a, []).is_none());
    }

    #[test]
    fn lag_factor_moderates() {
        assert_eq!(lag_speed_factor(0.2, 0.5, 2.0, 0.1), 1.0);
        assert!((lag_speed_factor(1.5, 0.5, 2.0, 0.1) - 0.5).abs() < 1e-6);
        assert_eq!(lag_speed_factor(10.0, 0.5, 2.0, 0.1), 0.1);
        assert_eq!(lag_speed_factor(f32::NAN, 0.5, 2.0, 0.1), 1.0);
    }
}
