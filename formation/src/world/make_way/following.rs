//! Queueing: a moving top-level formation that has another one wholly ahead of it in its lane,
//! going its way (or across it), slows to that one's speed and keeps a gap behind it instead
//! of pressing into it; of two crossing formations each wholly ahead of the other, the one
//! further ahead in the other's frame goes first. Two formations side by side (their extents
//! overlapping along the heading) do not queue: neighbours in parallel lanes march on
//! together; but of two bound for one passage, one whose box already overlaps the side of the
//! other's, ahead of it and held back, does not press further in ([`pressing_cap`]). Where
//! two headings meet near at hand, wherever the two formations stand, the one whose front is
//! further from the meeting point waits behind where the other's rear will be, and the other
//! does not wait for it: two streams merge in turn
//! (`make_way/zipper.rs`). (Before, a neighbour a metre ahead in the next lane counted as
//! ahead, with a negative gap and so a cap of zero: in the army bench whole rows stood still
//! behind such a neighbour, a chain of 14 to 26 platoons; `docs/performance.md`.)
//!
//! Without it, rows of platoons that meet at the end of a wall all make for the same point:
//! the make-way lanes of each push the others' members aside into a third, and the crowd
//! never clears (the army bench's 100,000 units stood in such jams at a dozen wall ends; see
//! `docs/performance.md`).
//!
//! Single units and small flat groups neither queue nor are queued behind
//! ([`is_small_group`]): they slip past others by avoidance.

use cohort_steering::Vec2;

use crate::formation::{Formation, Member};

use super::PASS_MARGIN;
use super::root_index::{RootEntry, RootIndex};
use super::zipper::{MERGE_HORIZON, MergeOrder, merge_order};

/// Fewest units of a flat formation (one whose members are all units) that is not a small
/// group ([`is_small_group`]).
pub(super) const SMALL_GROUP_UNITS: usize = 8;

/// Whether top-level formation `f` is a small group: a single unit, or a flat formation of
/// fewer than [`SMALL_GROUP_UNITS`] units. A small group neither queues nor is queued behind,
/// and takes no part in right of way (`make_way/right_of_way.rs`): like a single unit, it
/// slips past others by avoidance. In a dense crowd of small groups, queues and turns chain
/// into a standstill: the standard army's 10,000 units in flat groups of 4 had 98 % of the
/// groups held up after 1,000 ticks with queueing and right of way, 85 % with right of way
/// alone; see `docs/performance.md`.
pub(super) fn is_small_group(f: &Formation) -> bool {
    f.members.len() < SMALL_GROUP_UNITS && f.members.iter().all(|m| matches!(m, Member::Unit(_)))
}

/// Seconds over which a follower closes (or opens) the gap to the one ahead.
pub(super) const FOLLOW_TIME: f32 = 2.0;
/// Anchor speed (m/s) below which a formation that is not queueing itself is not waited for
/// (lag moderation alone never slows a moving anchor this much: it keeps at least
/// `min_speed_factor` of its cruise speed).
const STUCK_SPEED: f32 = 0.05;

/// A top-level formation in its heading's frame, as queueing sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub(super) forward: Vec2,
    left: Vec2,
    /// Half its depth along `forward` and half its width across it.
    pub(super) half: Vec2,
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
    /// 0), when that is below `a`'s top speed (a cap at or above it holds nothing back).
    /// `None` when nothing holds it back, queueing is off, or `a` is a small group
    /// ([`is_small_group`]). Needs [`Self::index_all`].
    #[cfg(test)]
    pub(super) fn following_speed(&self, a: &RootEntry) -> Option<f32> {
        self.following(a, |_| true).map(|(v, _)| v)
    }

    /// [`Self::following_speed`] among the formations `counts` keeps, with the place among
    /// the roots of the formation that sets it (the first found of equal caps).
    pub(super) fn following(
        &self,
        a: &RootEntry,
        counts: impl Fn(&RootEntry) -> bool,
    ) -> Option<(f32, u32)> {
        if a.small_group || !a.moving || !(a.follow_gap > 0.0) || !a.follow_gap.is_finite() {
            return None;
        }
        let frame = Frame::of(a)?;
        let top = a.top_speed_or_zero();
        // How far from `a`'s anchor a formation `b` whose half-extent is `reach` long can set
        // a cap below the top speed. Queued behind, `b` lies ahead in `a`'s lane: less than
        // `a`'s half-depth, `b`'s seen along it, the gap and the top speed's travel over
        // `FOLLOW_TIME` ahead, and less than the two half-widths and the margin aside. The two
        // half-extents together (`b`'s turned into `a`'s frame, at most √2 its length) make
        // at most `own + 1.5 reach`, the rest at most their sum: `own + 1.5 reach + gap + top
        // FOLLOW_TIME + margin`. Merging, `b` lies within the merge's reach (`merge_order`:
        // `a`'s depth and width, at most 1.5 `own`, `b`'s depth, the gap and the horizon's
        // travel). Both are within `r(reach)`.
        let own = a.circle_radius;
        let r = |reach: f32| {
            1.5 * (own + reach) + a.follow_gap + top * FOLLOW_TIME.max(MERGE_HORIZON) + PASS_MARGIN
        };
        let mut cap: Option<(f32, u32)> = None;
        self.for_each_within_reach(a.position, r, |b| {
            // The same bound for `b` itself, a circle: the squares' corners cost nothing more.
            let far = r(b.circle_radius);
            if (b.position - a.position).length_squared() > far * far || !counts(b) {
                return;
            }
            if let Some(v) = follow_cap(a, &frame, b).filter(|&v| v < top) {
                if cap.is_none_or(|(c, _)| v < c) {
                    cap = Some((v, b.root()));
                }
            }
        });
        cap
    }
}

/// The speed cap `b` sets `a` (in `frame`), if `b` is a moving formation `a` must wait for:
/// one whose heading converges with `a`'s on a point near at hand that `b`'s front is nearer
/// to (a merge, taken in turn: see `make_way/zipper.rs`), or one wholly ahead of `a` in its
/// lane that is not merging with it (a queue).
pub(super) fn follow_cap(a: &RootEntry, frame: &Frame, b: &RootEntry) -> Option<f32> {
    // Small groups (single units among them) neither queue nor are queued behind.
    if b.id == a.id || !b.moving || a.small_group || b.small_group {
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
    let ahead_speed = b.velocity.dot(frame.forward).max(0.0);
    let cap = |gap: f32| (ahead_speed + (gap - a.follow_gap) / FOLLOW_TIME).max(0.0);
    // Where their headings meet near at hand, the order of their fronts decides, wherever
    // the two stand (side by side, in each other's lane or not yet).
    match merge_order(a, frame, b, &other) {
        Some(MergeOrder::Waits(gap)) => {
            // It walks on until it is about to reach the other's lane (unless both are bound
            // for one passage, where they wait their turns clear of each other), so that it
            // waits beside the stream, near where their headings meet, rather than tens of
            // metres short of it: nearer that point than the stream's next formation, it gets
            // the next turn.
            let room = if a.bound_for_one_passage(b) {
                0.0
            } else {
                lane_room(frame, &other, a.position - b.position, a.follow_gap)
            };
            return Some(cap(gap).max(room / FOLLOW_TIME));
        }
        Some(MergeOrder::GoesFirst) => return None,
        None => {}
    }
    let rel = frame.local(b.position - a.position);
    let seen = frame.extent_of(&other);
    if rel.y.abs() >= frame.half.y + seen.y + PASS_MARGIN {
        return None;
    }
    // Side by side (their extents overlap along `a`'s heading), or wholly behind `a`: no
    // queue. Neighbours in parallel lanes never wait for each other.
    let gap = rel.x - frame.half.x - seen.x;
    // How `b` sees `a`:
    let back = other.local(a.position - b.position);
    if !(gap >= 0.0) {
        return pressing_cap(a, (frame, rel, seen), b, back, ahead_speed);
    }
    // `b` is ahead in `a`'s lane.
    let mine = other.extent_of(frame);
    let in_band = back.y.abs() < other.half.y + mine.y + PASS_MARGIN;
    let gap_b = back.x - other.half.x - mine.x;
    // Each ahead of the other (crossing): the one further ahead goes first (ties by key), so
    // that exactly one of two waits.
    if in_band && gap_b >= 0.0 && (back.x > rel.x || (back.x == rel.x && a.id < b.id)) {
        return None;
    }
    Some(cap(gap))
}

/// Fraction of its top speed below which a formation counts as held back (waiting its turn,
/// or slowing for it) for [`pressing_cap`].
const HELD_FRACTION: f32 = 0.5;

/// The speed cap of `a` (in `frame`, `b`'s anchor at `rel` in it and `b`'s extent seen as
/// `seen`) beside `b`, whose view of `a`'s anchor is `back`: when both are bound for one
/// passage, `b` is held back (slower than [`HELD_FRACTION`] of its top speed: waiting its
/// turn, or slowing for it) and their boxes overlap (across and along `a`'s heading, not
/// merely within the margin) with `b`'s anchor ahead of `a`'s, `a` keeps to `b`'s speed along
/// its heading, `ahead_speed`, and presses no further into it. Squads converging on a gap are
/// nearly parallel near its mouth, side by side rather than in each other's lanes: one walked
/// into the side of another waiting its turn (or both into each other as they slowed for
/// their turns), and the units of the two boxes, each making for its own slot in the other's,
/// shuffled round each other for as long as both waited. Elsewhere neighbours in parallel
/// lanes march on together (held back by this, the standard army's march and streams merging
/// at a wall's end were slower; squads converging on a corridor's mouth at their cruise are
/// not held either). Each ahead of the other (crossing), the one further ahead goes on (ties
/// by key), so that exactly one of two waits.
fn pressing_cap(
    a: &RootEntry,
    (frame, rel, seen): (&Frame, Vec2, Vec2),
    b: &RootEntry,
    back: Vec2,
    ahead_speed: f32,
) -> Option<f32> {
    let overlapping = rel.y.abs() < frame.half.y + seen.y && rel.x > 0.0;
    let held = HELD_FRACTION * b.top_speed_or_zero();
    let slow = b.velocity.length_squared() < held * held;
    if !overlapping || !slow || !a.bound_for_one_passage(b) {
        return None;
    }
    if back.x > 0.0 && (back.x > rel.x || (back.x == rel.x && a.id < b.id)) {
        return None;
    }
    Some(ahead_speed)
}

/// How far a formation in `frame` whose anchor stands `from_other` from the anchor of one in
/// `other`, merging into that one's lane, may still walk along its heading before its box
/// comes within `gap` and the margin of the lane (0 when it is there already, or barely
/// closes on the lane).
fn lane_room(frame: &Frame, other: &Frame, from_other: Vec2, gap: f32) -> f32 {
    let lateral = other.local(from_other).y;
    let across = other.extent_of(frame).y;
    let clear = lateral.abs() - across - other.half.y - PASS_MARGIN - gap;
    let closing = -lateral.signum() * frame.forward.dot(other.left);
    if closing > 0.2 && clear > 0.0 {
        clear / closing
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests;
