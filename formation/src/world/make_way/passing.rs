//! Passing an oncoming formation: how far a formation steps to its right, at what speed, and
//! how narrow it closes up while the two pass in a passage too narrow for both side by side.

use cohort_steering::Vec2;

use super::root_index::RootEntry;
use super::{LANE_BEHIND, Lane, PASS_HORIZON, PASS_MARGIN, PASS_TIME};

/// How many times their depths two formations passing each other look ahead beyond the
/// horizon's closing (see [`pass_shift`]): 1 when both are small groups, else 2.
fn pass_depth(both_small: bool) -> f32 {
    if both_small { 1.0 } else { 2.0 }
}

/// The room formation `b` leaves `a` (moving in `lane`) to its right: half what they lack to
/// pass side by side if `b` comes the other way (headings at least 120 degrees apart), from
/// [`PASS_HORIZON`] of the two closing ahead of `a` until their rears are past each other;
/// `None` if it does not.
pub(super) fn pass_shift(a: &RootEntry, lane: &Lane, b: &RootEntry) -> Option<f32> {
    if b.id == a.id || !b.moving {
        return None;
    }
    let rel = b.position - a.position;
    if b.velocity.dot(lane.forward) >= 0.0 {
        return None;
    }
    let other = b.lane?;
    if lane.forward.dot(other.forward) > -0.5 {
        return None;
    }
    // Converging on one passage from either side of its mouth, to go through it the same
    // way: they take turns at it (right of way), they do not pass each other.
    if a.through_one_passage_alike(b) {
        return None;
    }
    // Until the two rears are past each other: formations alongside each other stay apart.
    let along = rel.dot(lane.forward);
    let closing = (a.velocity - b.velocity).dot(lane.forward);
    // Looked for as far ahead as if both were twice as deep (unless both are small groups,
    // a few units deep whatever they do): closing up to pass in a passage, a formation's
    // ranks may grow twice as deep, its front that much further ahead, and a sidestep begun
    // only then came too late (two squads of 50 closing up to one file each in a 3 m
    // corridor met front to front before they stepped aside).
    let deep = pass_depth(a.small_group && b.small_group);
    let horizon = closing.max(0.0) * PASS_HORIZON + deep * (lane.behind + other.behind);
    if along < -(lane.behind + other.behind) || along > horizon {
        return None;
    }
    // b's offset to a's left; both keep right, so each needs half the missing room.
    let lat = rel.dot(lane.left);
    let need = lane.half_width + other.half_width + PASS_MARGIN;
    (lat.abs() < need).then_some(0.5 * (need - lat))
}

/// The width formation `a` narrows to while it passes the oncoming `b` (see
/// `narrows.rs`): where the passage along `a`'s path up to `b` is too narrow for both
/// patterns side by side with [`PASS_MARGIN`] between them, each takes half of what the
/// margin leaves; `None` where both fit (or `a` is a single unit, which has nothing to close
/// up).
pub(super) fn pass_width(
    formations: &slotmap::SlotMap<crate::ids::FormationId, crate::formation::Formation>,
    a: crate::ids::FormationId,
    b: crate::ids::FormationId,
    map: &cohort_pathing::ValidMap,
) -> Option<f32> {
    let (fa, fb) = (formations.get(a)?, formations.get(b)?);
    if fa.is_single() {
        return None;
    }
    let half_width =
        |f: &crate::formation::Formation| 0.5 * f.base_pattern().width(f.members.len().max(1));
    let need = 2.0 * (half_width(fa) + half_width(fb)) + PASS_MARGIN;
    let ahead = (fb.anchor.position - fa.anchor.position).length();
    let room = crate::world::narrows::passage_room(fa, map, ahead, need);
    (room < need).then(|| (0.5 * (room - PASS_MARGIN)).max(0.0))
}

/// Whether moving formation `a` is still passing `b`: `b` is moving the other way and its
/// rear is not yet past `a`'s.
pub(super) fn still_passing(
    formations: &slotmap::SlotMap<crate::ids::FormationId, crate::formation::Formation>,
    a: crate::ids::FormationId,
    b: crate::ids::FormationId,
) -> bool {
    use crate::formation::Motion;
    let (Some(fa), Some(fb)) = (formations.get(a), formations.get(b)) else {
        return false;
    };
    if fa.motion != Motion::Moving || fb.motion != Motion::Moving {
        return false;
    }
    let forward = fa.anchor.orientation;
    if !(fb.anchor.orientation.dot(forward) < -0.5) {
        return false;
    }
    let along = (fb.anchor.position - fa.anchor.position).dot(forward);
    along > -(fa.half_extent.x.abs() + fb.half_extent.x.abs() + LANE_BEHIND)
}

/// The sideways velocity that shifts formation `a` (moving in `lane`) by `shift` metres to its
/// right over [`PASS_TIME`] (zero for no shift).
pub(super) fn passing_velocity(lane: &Lane, shift: f32) -> Vec2 {
    if shift <= 0.0 {
        return Vec2::ZERO;
    }
    // Limited to half the slowest member's speed once the formation stage has tallied it.
    -lane.left * (shift / PASS_TIME)
}
