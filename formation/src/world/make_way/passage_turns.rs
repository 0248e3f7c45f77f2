//! Turns at a passage walked both ways: a formation does not walk into a passage that holds
//! only one file of its units each way while an oncoming formation fills the end it would
//! enter by.
//!
//! Two formations that enter a passage from its two ends at about the same time close up to
//! their halves of it and pass each other in it (`narrows.rs`, passing in `make_way.rs`):
//! each is in its ranks, on its side, by the time their fronts meet. One that comes to the
//! passage while an oncoming one is already deep in it would meet that one's front at its
//! own mouth, where its rear is still filing in from its pattern, spread across the passage:
//! the oncoming ranks push into the crowd, neither gets by, and the formations behind them
//! both ways close in (three squads of 50 from each end of a 3 m corridor stood for good).
//!
//! So a formation bound for a passage at most [`MAX_FILES`] of its units wide (measured
//! across the passage at its middle), its front not in it yet, waits short of its mouth while
//! an oncoming formation is in the passage with its front nearer that mouth than the first
//! one's own front is from where its rear would be once in ranks (its distance to the mouth
//! plus the depth of its ranks in half the passage, plus [`ROOM`]): that one comes out
//! first. One already in the passage is never held by this rule, so two formations never
//! wait for each other by it; formations that reach a passage's two ends about together
//! still pass each other. Where a third file fits, units squeeze past each other at the
//! mouth, and waiting there made formations meeting in corridors 4 to 6 m wide slower, not
//! faster.
//!
//! Formations bound the same way for one passage, with none bound for it the other way,
//! queue right behind each other at its mouth ([`queue_cap`], used by right of way).

use cohort_pathing::ValidMap;
use cohort_steering::Vec2;

use super::PASS_MARGIN;
use super::right_of_way::{GiveWay, STOP_TIME};
use super::root_index::{PASSAGE_LOOK, RootEntry, RootIndex};
use crate::formation::Formation;
use crate::ids::FormationId;
use crate::pattern::PatternKind;

type Formations = slotmap::SlotMap<FormationId, Formation>;

/// Metres of passage beyond where its rear would be in ranks that an oncoming front must
/// still be from its mouth for a formation to walk in.
const ROOM: f32 = 5.0;
/// Most files of its units abreast the whole passage holds for the rule to hold: one each way.
const MAX_FILES: u16 = 2;
/// Metres a waiting formation keeps its front short of the passage's mouth.
const STOP_GAP: f32 = 2.0;
/// Farthest (metres) a passage's width is measured from its middle line.
const WIDTH_CAP: f32 = 64.0;
/// Most cosine between the ways two formations go through one passage for them to count as
/// oncoming.
const ONCOMING_COS: f32 = -0.5;

impl RootIndex {
    /// The oncoming formation mover `a` waits for short of the passage it is bound for, and
    /// the speed it keeps meanwhile (see the module doc); `None` when it may walk in. Needs
    /// [`Self::cache_movers`].
    pub(super) fn wait_at_passage(
        &self,
        a: &RootEntry,
        formations: &Formations,
        map: &ValidMap,
    ) -> Option<GiveWay> {
        let (Some(middle), me) = (a.passage, self.mover(a)?) else {
            return None;
        };
        let way = a.passage_way;
        let half_length = a.passage_half_length;
        let along = |p: Vec2| (p - middle).dot(way);
        let f = formations.get(a.id)?;
        let n = f.members.len().max(1);
        // Its front's distance to the passage's mouth, in the pattern it was ordered in (a
        // column it closed up to reaches far ahead of where its units stand); in the passage,
        // it goes on.
        let half_depth = 0.5 * f.base_pattern().depth(n);
        let to_mouth = -half_length - (along(a.position) + half_depth);
        if !(to_mouth > 0.0) {
            return None;
        }
        // Across the passage at its middle, both ways (the path may run off its middle line).
        let across = way.perp();
        let width = crate::world::narrows::free_run(map, middle, across, WIDTH_CAP)
            + crate::world::narrows::free_run(map, middle, -across, WIDTH_CAP);
        // Room for a third file: units squeeze past each other at the mouth.
        let files = match f.base_pattern().narrowed(n, width, 0.0).pattern().kind {
            PatternKind::Ranks(k) => k,
            _ => u16::MAX,
        };
        if files > MAX_FILES {
            return None;
        }
        let half = (0.5 * (width - PASS_MARGIN)).max(0.0);
        let ranks = f.base_pattern().narrowed(n, half, 0.0).depth(n);
        let enough = to_mouth + ranks + ROOM;
        let reach = half_length + 2.0 * self.max_reach() + 1.0;
        // The oncoming one whose front is nearest the mouth (ties by key).
        let mut nearest: Option<(f32, FormationId, u32)> = None;
        self.for_each_near(middle, reach, |b| {
            if b.id == a.id
                || !b.moving
                || b.small_group
                || !(b.passage_way.dot(way) < ONCOMING_COS)
                || !a.bound_for_one_passage(b)
                || self.mover(b).is_none()
            {
                return;
            }
            let (at, depth) = (along(b.position), b.half_extent.x.abs());
            // Its front (it walks the passage the other way) has entered the far end, and
            // its rear has not yet come out of this one.
            let (front, rear) = (at - depth, at + depth);
            if !(front < half_length && rear > -half_length) {
                return;
            }
            let from_mouth = front + half_length;
            if !(from_mouth < enough) {
                return;
            }
            if nearest.is_none_or(|(d, id, _)| from_mouth < d || (from_mouth == d && b.id < id)) {
                nearest = Some((from_mouth, b.id, b.root()));
            }
        });
        let (_, to, to_root) = nearest?;
        let gap = (to_mouth - STOP_GAP).max(0.0);
        Some(GiveWay {
            to,
            speed: gap / STOP_TIME,
            to_root,
            eta: to_mouth / me.cruise().max(0.01),
        })
    }

    /// Whether mover `a` may queue right behind another formation at the passage it is bound
    /// for ([`queue_cap`]): no formation is bound for that passage the other way. Where one
    /// is, the two streams take turns and pass each other at the passage (see the module
    /// doc), and a stream that follows on close behind its leader leaves an oncoming one no
    /// turn: three squads from each end of a 4 m corridor stood for good at its mouths.
    pub(super) fn queues_at_passage(&self, a: &RootEntry) -> bool {
        let Some(middle) = a.passage else {
            return false;
        };
        // An oncoming formation bound for the passage has it within `PASSAGE_LOOK` of path
        // ahead of its anchor.
        let reach = PASSAGE_LOOK + 2.0 * a.passage_half_length + 2.0 * self.max_reach();
        let mut oncoming = false;
        self.for_each_near(middle, reach, |b| {
            oncoming |= b.id != a.id
                && b.moving
                && b.passage_way.dot(a.passage_way) < ONCOMING_COS
                && a.bound_for_one_passage(b);
        });
        !oncoming
    }
}

/// The speed cap of formation `a` (half as deep as `a_depth`) queueing for the passage it is
/// bound for behind `b` (half as deep as `b_depth`), which goes through it the same way
/// first: `a` may close until its front is its follow gap further from the passage's mouth
/// than `b`'s rear, whatever the angle their paths meet the mouth at. `b`'s rear is its
/// slots' depth behind its anchor, or its farthest member's distance from the anchor if that
/// is further (members still filing into the passage from its pattern, left behind: queued
/// behind `b`'s slots alone, `a`'s members pressed into them). Every unit of `a` is then
/// further from the mouth than every unit of `b`, so the two cannot touch, and `a` reaches
/// the mouth right behind `b`'s rear instead of standing where its box would first have come
/// near `b`'s track (tens of metres out where paths meet the mouth at a shallow angle).
pub(super) fn queue_cap(a: &RootEntry, a_depth: f32, b: &RootEntry, b_depth: f32) -> f32 {
    let Some(middle) = a.passage else {
        return 0.0;
    };
    let way = a.passage_way;
    let mouth = middle - way * a.passage_half_length;
    // Metres to go to the mouth (negative once in the passage).
    let to_go = |p: Vec2| {
        let into = (p - mouth).dot(way);
        if into < 0.0 {
            (p - mouth).length()
        } else {
            -into
        }
    };
    let gap = (to_go(a.position) - a_depth) - (to_go(b.position) + b_depth.max(b.spread));
    (b.velocity.length() + (gap - a.follow_gap) / super::following::FOLLOW_TIME).max(0.0)
}
