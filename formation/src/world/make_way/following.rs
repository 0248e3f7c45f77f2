//! Queueing: a moving top-level formation that has another one wholly ahead of it in its lane,
//! going its way (or across it), slows to that one's speed and keeps a gap behind it instead
//! of pressing into it; of two crossing formations each wholly ahead of the other, the one
//! further ahead in the other's frame goes first. Two formations side by side (their extents
//! overlapping along the heading) do not queue: neighbours in parallel lanes march on
//! together, and only where their headings meet close ahead does the one further from the
//! meeting point wait. (Before, a neighbour a metre ahead in the next lane counted as ahead,
//! with a negative gap and so a cap of zero: in the army bench whole rows stood still behind
//! such a neighbour, a chain of 14 to 26 platoons; `docs/performance.md`.)
//!
//! Without it, rows of platoons that meet at the end of a wall all make for the same point:
//! the make-way lanes of each push the others' members aside into a third, and the crowd
//! never clears (the army bench's 100,000 units stood in such jams at a dozen wall ends; see
//! `docs/performance.md`).

use cohort_steering::Vec2;

use super::PASS_MARGIN;
use super::root_index::{RootEntry, RootIndex};

/// Seconds over which a follower closes (or opens) the gap to the one ahead.
const FOLLOW_TIME: f32 = 2.0;
/// Anchor speed (m/s) below which a formation that is not queueing itself is not waited for
/// (lag moderation alone never slows a moving anchor this much: it keeps at least
/// `min_speed_factor` of its cruise speed).
const STUCK_SPEED: f32 = 0.05;

/// Sine of the smallest angle between two headings side by side that can make them merge.
const MERGE_SINE: f32 = 0.05;

/// A top-level formation in its heading's frame, as queueing sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    forward: Vec2,
    left: Vec2,
    /// Half its depth along `forward` and half its width across it.
    half: Vec2,
}

impl Frame {
    /// The frame of `e`: its heading when it moves faster than [`super::MOVING_SPEED`], where its
    /// anchor faces otherwise (a formation held up in a queue still faces its way).
    pub(super) fn of(e: &RootEntry) -> Option<Self> {
        let forward = match e.lane {
            Some(lane) => lane.forward,
            None => e.facing.try_normalize()?,
        };
        Some(Self {
            forward,
            left: forward.perp(),
            half: e.half_extent.abs(),
        })
    }

    /// Half the depth (x) and half the width (y) of a formation of frame `other` as seen
    /// along this frame's heading (its extent box turned into this frame).
    fn extent_of(&self, other: &Frame) -> Vec2 {
        let (c, s) = (
            other.forward.dot(self.forward).abs(),
            other.forward.dot(self.left).abs(),
        );
        Vec2::new(
            other.half.x * c + other.half.y * s,
            other.half.x * s + other.half.y * c,
        )
    }

    /// Where `rel` (a position relative to this formation's anchor) lies: `(along, lateral)`.
    fn local(&self, rel: Vec2) -> Vec2 {
        Vec2::new(rel.dot(self.forward), rel.dot(self.left))
    }
}

impl RootIndex {
    /// The speed moving formation `a` may keep this tick without closing to less than its
    /// `follow_gap` behind any formation ahead of it in its lane that goes its way: the
    /// other's speed along `a`'s heading plus the surplus gap over [`FOLLOW_TIME`] (at least
    /// 0). `None` when nothing is ahead, or queueing is off. Needs [`Self::index_all`].
    pub(super) fn following_speed(&self, a: &RootEntry) -> Option<f32> {
        if !a.moving || !(a.follow_gap > 0.0) || !a.follow_gap.is_finite() {
            return None;
        }
        let frame = Frame::of(a)?;
        // A formation that sets a cap below `a`'s top speed lies less than `a`'s depth, its
        // own depth, the gap and the top speed's travel over `FOLLOW_TIME` ahead, and less
        // than both widths and the margin aside: within `r` (each half-extent is at most
        // `max_reach` long, so its depth plus width is at most 1.5 times that).
        let top = a.top_speed_or_zero();
        let r = 3.0 * self.max_reach() + a.follow_gap + top * FOLLOW_TIME + PASS_MARGIN;
        let mut cap: Option<f32> = None;
        self.for_each_near(a.position, r, |b| {
            if let Some(v) = follow_cap(a, &frame, b) {
                cap = Some(cap.map_or(v, |c| c.min(v)));
            }
        });
        cap
    }
}

/// The speed cap `b` sets `a` (in `frame`), if `b` is a moving formation ahead of `a` in its
/// lane that `a` must wait for: wholly ahead of `a` (a queue), or side by side with it where
/// their headings meet close ahead and `a` is the further from that point (a merge).
pub(super) fn follow_cap(a: &RootEntry, frame: &Frame, b: &RootEntry) -> Option<f32> {
    if b.id == a.id || !b.moving {
        return None;
    }
    // Standing still on its own (blocked, or waiting for its members), not in a queue: `a`
    // does not wait for it for ever; make way takes `a` through it, as through a formation
    // that holds.
    if !b.queued && !(b.velocity.length_squared() >= STUCK_SPEED * STUCK_SPEED) {
        return None;
    }
    let other = Frame::of(b)?;
    // Coming the other way: passing's business (see `pass_shift`).
    if other.forward.dot(frame.forward) <= -0.5 {
        return None;
    }
    let rel = frame.local(b.position - a.position);
    let seen = frame.extent_of(&other);
    if rel.y.abs() >= frame.half.y + seen.y + PASS_MARGIN {
        return None;
    }
    // Wholly behind `a`: not `a`'s business.
    if !(rel.x > -(frame.half.x + seen.x)) {
        return None;
    }
    let gap = rel.x - frame.half.x - seen.x;
    if gap >= 0.0 {
        // `b` is ahead in `a`'s lane. How `b` sees `a`:
        let back = other.local(a.position - b.position);
        let mine = other.extent_of(frame);
        let in_band = back.y.abs() < other.half.y + mine.y + PASS_MARGIN;
        let gap_b = back.x - other.half.x - mine.x;
        // Each ahead of the other (crossing): the one further ahead goes first (ties by
        // key), so that exactly one of two waits.
        if in_band && gap_b >= 0.0 && (back.x > rel.x || (back.x == rel.x && a.id < b.id)) {
            return None;
        }
        // `b` sees `a` beside it and is the one that waits at their merge.
        if in_band
            && gap_b < 0.0
            && back.x > -(other.half.x + mine.x)
            && merge_waits(b, &other, a, frame, mine)
        {
            return None;
        }
    } else if !merge_waits(a, frame, b, &other, seen) {
        // Side by side (their extents overlap along `a`'s heading): no queue. Neighbours
        // in parallel lanes never wait for each other; only a merge near at hand makes one
        // of the two wait.
        return None;
    }
    let ahead_speed = b.velocity.dot(frame.forward).max(0.0);
    Some((ahead_speed + (gap - a.follow_gap) / FOLLOW_TIME).max(0.0))
}

/// Whether `a` (in `frame`), side by side with `b` (in `other`), is the one of the two that
/// waits where their headings meet: the one further from that point (ties by key). Only
/// when that point lies ahead of one of them and within `a`'s reach of both (their depths,
/// the gap and twice [`FOLLOW_TIME`] at top speed); never when their headings are all but
/// parallel (less than about 3 degrees apart): neighbours in parallel lanes. `seen` is `b`'s
/// extent in `a`'s frame (`frame.extent_of(other)`, which the caller has at hand).
fn merge_waits(a: &RootEntry, frame: &Frame, b: &RootEntry, other: &Frame, seen: Vec2) -> bool {
    let cross = frame.forward.perp_dot(other.forward);
    if !(cross.abs() >= MERGE_SINE) {
        return false;
    }
    // `a.position + s_a * frame.forward == b.position + s_b * other.forward`.
    let d = b.position - a.position;
    let s_a = d.perp_dot(other.forward) / cross;
    let s_b = d.perp_dot(frame.forward) / cross;
    if s_a < 0.0 && s_b < 0.0 {
        return false;
    }
    let reach = frame.half.x + seen.x + a.follow_gap + 2.0 * a.top_speed_or_zero() * FOLLOW_TIME;
    s_a.max(s_b) < reach && (s_a > s_b || (s_a == s_b && a.id > b.id))
}

#[cfg(test)]
mod tests;
