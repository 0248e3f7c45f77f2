//! Keeping right in a passage: a single walking in a corridor keeps to the corridor's right
//! half while anyone comes the other way in it, so two flows of singles sort into two halves
//! before they meet (the way pedestrians keep to one side), and a unit that set out on the
//! wrong side crosses over early instead of meeting the oncoming crowd head-on and being swept
//! back by it. Pairs of singles meeting in the open pass by their avoidance alone.

use cohort_steering::Vec2;

use super::root_index::{RootEntry, RootIndex};
use super::{Lane, PASS_MARGIN, PASS_TIME};

/// Widest passage (metres from a single to the geometry on either side) in which singles keep
/// to the right half while others come the other way: in the open they pass one by one.
const PASSAGE_WIDTH: f32 = 24.0;
/// Seconds of closing ahead within which a single sees traffic coming the other way in its
/// passage, and moves to its right half.
const PASSAGE_HORIZON: f32 = 40.0;

/// The sideways velocity that takes single `a` (moving in `lane`) into the right half of the
/// passage it walks in, while a mover comes the other way in it within
/// [`PASSAGE_HORIZON`]: each direction then keeps its own half, and a single starting on the
/// wrong side crosses over before the two flows meet instead of being swept back by the
/// oncoming one. Zero in the open (either side free for [`PASSAGE_WIDTH`]), already in the
/// right half, or with no one coming.
pub(super) fn keep_right_in_passage(
    index: &RootIndex,
    map: &cohort_pathing::ValidMap,
    a: &RootEntry,
    lane: &Lane,
) -> Vec2 {
    // The passage first: in the open a few clearance samples tell, where the search for
    // traffic coming the other way looks 40 s of closing ahead, a square hundreds of metres
    // wide, whose wedges of heading a crowd of singles walking every way fills.
    let right = -lane.left;
    let to_right = crate::world::narrows::free_run(map, a.position, right, PASSAGE_WIDTH);
    if to_right >= PASSAGE_WIDTH {
        return Vec2::ZERO;
    }
    if !index.oncoming_ahead(a, lane, PASSAGE_HORIZON, PASSAGE_WIDTH) {
        return Vec2::ZERO;
    }
    let to_left = crate::world::narrows::free_run(map, a.position, lane.left, PASSAGE_WIDTH);
    if to_left >= PASSAGE_WIDTH {
        return Vec2::ZERO;
    }
    let half = 0.5 * (to_right + to_left);
    // How far the single's side stands left of the passage's centre line.
    let over = to_right - half + lane.half_width + 0.5 * PASS_MARGIN;
    if !(over > 0.0)
        || !(half >= PASSAGE_WIDTH || index.oncoming_ahead(a, lane, PASSAGE_HORIZON, half))
    {
        return Vec2::ZERO;
    }
    right * (over / PASS_TIME)
}

/// Whether `b` moves against `a` (moving in `lane`) and is ahead of it in its lane within
/// `horizon` seconds of the two closing, at most `half_width` to either side of `a`'s line.
pub(super) fn oncoming_in_lane(
    a: &RootEntry,
    lane: &Lane,
    b: &RootEntry,
    horizon: f32,
    half_width: f32,
) -> bool {
    if !b.moving {
        return false;
    }
    let Some(other) = b.lane else {
        return false;
    };
    if lane.forward.dot(other.forward) > -0.5 {
        return false;
    }
    let rel = b.position - a.position;
    let along = rel.dot(lane.forward);
    let closing = (a.velocity - b.velocity).dot(lane.forward);
    along > -(lane.behind + other.behind)
        && along < closing.max(0.0) * horizon + lane.behind + other.behind
        && rel.dot(lane.left).abs() < half_width
}
