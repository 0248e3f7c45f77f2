//! Merging in turn: two moving top-level formations whose headings converge on a point near
//! at hand (a stream and a formation joining it at a wall's end) take that point in the
//! order their fronts reach it, each keeping its gap behind where the other's rear will be.
//!
//! Of the two, the one whose front is further from the point where their headings meet waits
//! (ties by key); the other does not wait for it, wherever the two stand (side by side, one
//! ahead of the other, or still apart). The one that waits keeps its gap behind the other as
//! if that one were already in its lane: its *virtual gap* is its front's distance to the
//! point less the other's rear's. So it slows in good time rather than stopping dead beside
//! the other, and slots in right behind it; the next formation of the other stream, whose front
//! is then further from the point than the joiner's, waits for the joiner in turn. One from
//! each stream passes alternately, like the teeth of a zipper, instead of the joiner waiting
//! for a gap in a stream that keeps its followers close behind each other.
//!
//! The virtual gap alone held a joiner tens of metres short of a stream it met at a shallow
//! angle (where the two headings meet is far off then), and every next formation of the
//! stream was nearer that point than the joiner: no turn came. So a joiner walks on while
//! its box is more than its gap and a margin from the other's lane
//! (`following::follow_cap`), and waits beside the stream, near where the headings meet.
//! Formations bound for one passage do not: they wait their turns at it clear of each other.
//!
//! Without this rule a formation joining a stream queued behind whichever formation of the
//! stream lay ahead in its lane, one after another (`docs/traffic.md`).

use super::following::Frame;
use super::root_index::RootEntry;

/// Sine of the smallest angle between two headings that can make them merge (closer to
/// parallel, they are neighbours in parallel lanes).
const MERGE_SINE: f32 = 0.05;

/// Seconds of travel at the slower top speed, beyond both depths, the narrower width and the
/// smaller gap, within which the meeting point of two headings counts as near at hand.
pub(super) const MERGE_HORIZON: f32 = 4.0;

/// Which of two converging formations waits where their headings meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum MergeOrder {
    /// The first one waits: its front is this far (metres, possibly negative) behind where
    /// the other's rear will be once both are in one lane.
    Waits(f32),
    /// The other one waits for the first.
    GoesFirst,
}

/// The merge order of `a` (in `frame`) and `b` (in `other`), from `a`'s side, when their
/// headings converge on a point ahead of at least one of them and near at hand for both
/// (the point and the other's anchor each within the *reach*: both depths, the narrower
/// width, the smaller gap and [`MERGE_HORIZON`] at the slower top speed); `None` otherwise
/// (parallel lanes, headings apart, or the point far off or behind both).
///
/// The same pair seen the other way round gives the other answer (the test reads only what
/// both see alike: the point, both depths, the reach and the keys), so exactly one of two
/// converging formations waits. The reach is at most three times the larger extent plus
/// `a`'s own gap and horizon, which bounds where `a` looks (`RootIndex::following_speed`).
pub(super) fn merge_order(
    a: &RootEntry,
    frame: &Frame,
    b: &RootEntry,
    other: &Frame,
) -> Option<MergeOrder> {
    let cross = frame.forward.perp_dot(other.forward);
    if !(cross.abs() >= MERGE_SINE) {
        return None;
    }
    // `a.position + s_a * frame.forward == b.position + s_b * other.forward`.
    let d = b.position - a.position;
    let s_a = d.perp_dot(other.forward) / cross;
    let s_b = d.perp_dot(frame.forward) / cross;
    if !(s_a >= 0.0 || s_b >= 0.0) {
        return None;
    }
    let (depth_a, depth_b) = (frame.half.x, other.half.x);
    let reach = depth_a
        + depth_b
        + frame.half.y.min(other.half.y)
        + a.follow_gap.min(b.follow_gap)
        + MERGE_HORIZON * a.top_speed_or_zero().min(b.top_speed_or_zero());
    if !(s_a.abs().max(s_b.abs()) < reach && d.length() < reach) {
        return None;
    }
    let (front_a, front_b) = (s_a - depth_a, s_b - depth_b);
    let a_waits = front_a > front_b || (front_a == front_b && a.id > b.id);
    Some(if a_waits {
        MergeOrder::Waits(front_a - (s_b + depth_b))
    } else {
        MergeOrder::GoesFirst
    })
}
