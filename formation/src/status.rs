//! What a formation is doing, as a game asks it ([`crate::World::formation_status`]), and the
//! one rule for when a unit has arrived (used by the world's queries and by the scenario
//! runner's `arrived` metric alike).

use cohort_steering::Vec2;
use serde::{Deserialize, Serialize};

/// What a formation is doing this tick ([`crate::World::formation_status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormationStatus {
    /// Stopped at its goal (or never moved) with every unit of its subtree arrived (see
    /// [`has_arrived`]) and every sub-formation's anchor within its arrival radius of its
    /// slot; an empty formation that holds counts as arrived.
    Arrived,
    /// Stopped at its goal, some units (or a sub-formation's anchor) still closing up on their
    /// slots.
    Settling,
    /// Following its path (or, for a member formation, its parent's slot while the parent
    /// moves).
    Moving,
    /// Members running to their final slots at their own speed (a move with
    /// `at_slowest: false`).
    Forming,
    /// Turning in place to a new facing.
    Turning,
    /// Moving, but slowed to the pace of another formation ahead in its lane (queueing; see
    /// `FormationSettings::follow_gap`).
    Waiting,
    /// Moving, but its anchor stands still while its members are far behind their slots:
    /// something holds them up (see [`BLOCKED_SPEED_FRACTION`]).
    Blocked,
    /// Running a play (its own, or its parent's).
    RunningPlay,
    /// Advancing by bounding overwatch (its own, or as a squad of its parent's advance).
    Overwatch,
}

/// A moving formation is [`FormationStatus::Blocked`] when its anchor's speed is below this
/// fraction of its slowest member's top speed and its members' mean distance from their
/// slots exceeds `lag_tolerance + lag_range` of its settings.
pub const BLOCKED_SPEED_FRACTION: f32 = 0.05;

/// Distance from a unit at `position` to its slot, when it has a finite one.
pub fn slot_error(position: Vec2, slot: Option<Vec2>) -> Option<f32> {
    slot.filter(|t| t.is_finite())
        .map(|t| (t - position).length())
}

/// The arrival rule: a unit has arrived when its formation, and every formation above it, is
/// holding at its goal (`formation_at_goal`) and the unit is within its own `radius` of its
/// slot (`slot_error`, from [`slot_error`]).
pub fn has_arrived(formation_at_goal: bool, slot_error: f32, radius: f32) -> bool {
    formation_at_goal && slot_error <= radius
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_arrives_within_its_radius_of_its_slot_once_its_formation_holds() {
        let e = slot_error(Vec2::new(1.0, 1.0), Some(Vec2::new(4.0, 5.0)));
        assert_eq!(e, Some(5.0));
        assert!(has_arrived(true, 5.0, 5.0));
        assert!(!has_arrived(true, 5.01, 5.0));
        assert!(!has_arrived(false, 0.0, 0.5));
        assert_eq!(slot_error(Vec2::ZERO, None), None);
        assert_eq!(slot_error(Vec2::ZERO, Some(Vec2::new(f32::NAN, 0.0))), None);
    }
}
