//! Patience: a formation does not wait for ever for one that stands still.
//!
//! A formation gives way to another where their tracks meet (right of way) or short of a
//! passage the other is in (`passage_turns.rs`), until the other's rear has cleared the
//! meeting. That rear includes the members the other left behind, and those may be held by
//! the very formation that waits: two formations met in a gap, the one going first got its
//! anchor through, and its last members stood at the gap's mouth, pressed against the wall
//! beside it by the column of the waiting formation standing in the gap. The first one's
//! anchor waited for its members, the waiting one waited for the first one's rear, and
//! neither moved again (two of fifteen hundred random gap crossings of walkers).
//!
//! So the formation that waits keeps a watch on the one it gives way to ([`WaitWatch`]):
//! where that one's anchor stood when the watch began, and for how long it has stood within
//! [`PROGRESS`] of there while no rule of the road held it (it gave way to nobody and queued
//! behind nobody in the last tick: standing in a queue, it is waiting its own turn; one whose
//! own wait ran out counts as going). After [`PATIENCE`] seconds of that, the waiting
//! formation goes on as if it had the way: the one it waited for is held by its own members,
//! not by the traffic it would meet, and what holds them may be the waiting formation itself.
//! The watch begins again when the other's anchor has moved [`PROGRESS`] from where it stood,
//! when a rule of the road holds the other, or when the formation gives way to another or to
//! nobody, so a formation that only walks slowly is still given the way, and once the held
//! members are free the turns are taken as before. A new order, or joining another formation
//! as its member, ends the watch.

use cohort_steering::Vec2;

use super::right_of_way::GiveWay;
use super::root_index::RootIndex;
use crate::formation::WaitWatch;

type Formations = slotmap::SlotMap<crate::ids::FormationId, crate::formation::Formation>;

/// Seconds a formation waits for one that stands, held by no rule of the road, before it goes
/// on.
const PATIENCE: f32 = 30.0;
/// Metres the anchor of the formation given way to must move from where it stood for the watch
/// to begin again.
const PROGRESS: f32 = 1.0;

impl RootIndex {
    /// Updates each formation's watch on the one it gives way to (by `gives`, this tick's
    /// gives by entry), over `dt` seconds, and drops from `gives` each give the formation has
    /// run out of patience for. The other's hold is read as last tick wrote it, so the result
    /// does not depend on the order the formations are visited in.
    pub(super) fn run_out_of_patience(
        &self,
        formations: &mut Formations,
        gives: &mut [Option<GiveWay>],
        dt: f32,
    ) {
        for (a, give) in self.entries().iter().zip(gives.iter_mut()) {
            let Some(g) = *give else {
                if let Some(f) = formations.get_mut(a.id) {
                    f.wait_watch = None;
                }
                continue;
            };
            // Whether a rule of the road held the other in the last tick (then it waited its
            // own turn: the holds as they were written after last tick's waivers and broken
            // rings, so a formation whose own wait ran out counts as going), and where its
            // anchor stands.
            let other = formations.get(g.to).map(|b| {
                (
                    b.give_way.is_some() || b.follow_speed.is_some(),
                    b.anchor.position,
                )
            });
            let Some(f) = formations.get_mut(a.id) else {
                continue;
            };
            let Some((held, at)) = other else {
                f.wait_watch = None;
                continue;
            };
            let watch = match f.wait_watch {
                Some(w) if w.to == g.to && !held && stood(w.at, at) => WaitWatch {
                    seconds: (w.seconds + dt).min(PATIENCE),
                    ..w
                },
                _ => WaitWatch {
                    to: g.to,
                    at,
                    seconds: 0.0,
                },
            };
            f.wait_watch = Some(watch);
            if watch.seconds >= PATIENCE {
                *give = None;
            }
        }
    }
}

/// Whether an anchor now at `now` still stands where it stood at `then`.
fn stood(then: Vec2, now: Vec2) -> bool {
    (now - then).length_squared() <= PROGRESS * PROGRESS
}
