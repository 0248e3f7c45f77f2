//! Right of way: two moving top-level formations whose tracks meet at an angle (crossing, or
//! converging on one gap) take turns instead of pressing into each other.
//!
//! A formation's *track* is its planned path from its rear (half its depth behind the anchor)
//! to [`LOOK_AHEAD`] seconds of cruise beyond its front. The *meeting* along a track is its
//! first point (from its rear) where the formation's front edge would come within
//! [`MEET_MARGIN`] of the other formation's side: closer to the other's track than the
//! other's half-width plus the margin, plus its own half-width times the cosine of the
//! angle between the tracks (nothing for a square crossing, where the edge's centre
//! arrives first; all of it for a shallow one, where a corner does). Of the two, the one whose front reaches its
//! meeting first at its cruise speed goes first (a front already at or past the meeting counts
//! as first; ties go to the lower key); the other slows so that its front comes to
//! [`STOP_GAP`] short of the meeting no sooner than the first one's rear clears it at its
//! cruise speed (closing over at least [`STOP_TIME`]), and stops there if it is not clear yet:
//! it passes behind. The rule ends when the first one's rear has cleared the meeting (its
//! track no longer meets). The order is strict, so two formations never wait for each other.
//! Pairs meet at different places, so the turns of several need not agree and can close a
//! ring; rings are broken after every formation's turn is decided (`make_way/rings.rs`).
//!
//! Tracks that first meet at a shallow angle (under [`MERGE_COS`]'s) are a merge, not a
//! crossing: where both formations queue, queueing lets them into one lane in turn
//! (`make_way/zipper.rs`), unless both are bound for one passage (a narrow stretch of their
//! paths, see `world/narrows.rs`), where they take turns at it by this rule. There the one
//! that waits may close up further, its front no nearer the passage's mouth than its follow
//! gap behind the other's rear (`passage_turns::queue_cap`): the stop line where their
//! tracks first meet lies metres out when they meet the mouth at a shallow angle, and the
//! squads bound for one gap stood 2 to 8 s apart in it, each walking up from its stop line
//! after the one before had gone through (twenty squads of 50 at a 4 m gap: 512 s on
//! average over thirteen copies against 445 s queueing at the mouth; `docs/traffic.md`).
//! Not while a formation is bound for the passage the other way
//! (`passage_turns::RootIndex::queues_at_passage`).
//!
//! Two formations each in the other's way ahead walk one route both ways: stopping on it
//! would block the other, so that is left to passing. Single units and small flat groups
//! (`following::is_small_group`) are left to avoidance: the rule is for larger formations,
//! which cannot squeeze past each other; in a dense crowd of small groups, turns chain into
//! a standstill (`docs/performance.md`). Tracks heading within
//! [`super::track::SAME_WAY_COS`] of each other are queueing's business, tracks meeting
//! head-on passing's (`make_way/following.rs`, [`super::pass_shift`]).

use cohort_steering::Vec2;

use super::root_index::{RootEntry, RootIndex};
use super::track::{MERGE_COS, Track};
use super::track_grid::TrackBox;
use crate::formation::{Formation, Motion};
use crate::ids::FormationId;

type Formations = slotmap::SlotMap<FormationId, Formation>;

/// Seconds of cruise a track reaches beyond the formation's front.
const LOOK_AHEAD: f32 = 12.0;
/// Metres of track beyond the front at the least (slow formations still look this far).
const MIN_AHEAD: f32 = 10.0;
/// Room (metres) added to the half-widths when telling whether two tracks meet.
const MEET_MARGIN: f32 = 1.0;
/// Metres a waiting formation keeps its front short of the meeting.
const STOP_GAP: f32 = 1.0;
/// Least seconds over which a waiting formation closes to its stop line (also short of a
/// passage, `passage_turns.rs`).
pub(super) const STOP_TIME: f32 = 2.0;

/// The formation a moving top-level formation gives way to, and the speed it keeps meanwhile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct GiveWay {
    /// The formation that goes first.
    pub(super) to: FormationId,
    /// The anchor's speed cap (m/s, at least 0).
    pub(super) speed: f32,
    /// The place among the roots of the formation that goes first.
    pub(super) to_root: u32,
    /// Seconds until this formation's front would reach the meeting at its cruise speed.
    pub(super) eta: f32,
}

/// A root as right of way sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mover {
    track: Track,
    /// Half the depth: the front is this far ahead of the anchor, the rear as far behind.
    half_depth: f32,
    cruise: f32,
}

impl Mover {
    fn of(entry: &RootEntry, formations: &Formations) -> Option<Self> {
        // The entry's flags first: most roots of a crowd of singles and small groups are not
        // movers, and their records are then never fetched.
        if !entry.moving || entry.small_group {
            return None;
        }
        let f = formations.get(entry.id)?;
        if f.motion != Motion::Moving {
            return None;
        }
        let half_depth = entry.half_extent.x.abs();
        let cruise = entry.top_speed_or_zero() * f.cruise_fraction();
        let ahead = half_depth + (cruise * LOOK_AHEAD).max(MIN_AHEAD);
        let track = Track::of(f, half_depth, ahead)?;
        Some(Self {
            track,
            half_depth,
            cruise,
        })
    }

    /// The box round the track grown by the half-width of `e` (whose mover this is): the
    /// ground the formation covers along its track.
    fn reach_box(&self, e: &RootEntry) -> (Vec2, Vec2) {
        let (lo, hi) = self.track.bounds();
        let w = Vec2::splat(e.half_extent.y.abs());
        (lo - w, hi + w)
    }

    /// Its cruise speed (m/s).
    pub(super) fn cruise(&self) -> f32 {
        self.cruise
    }

    /// Seconds until the front reaches arc length `s` (negative when it is past it).
    fn eta(&self, s: f32) -> f32 {
        (s - self.half_depth) / self.cruise.max(0.01)
    }
}

impl RootIndex {
    /// Every root's [`Mover`] this tick, by its place among the roots: each is read by every
    /// nearby root's [`Self::give_way`], so it is made once; and the grid of their tracks
    /// that finds them (no allocation once warm). Needs [`Self::index_all`].
    pub(super) fn cache_movers(&mut self, formations: &Formations) {
        self.movers_of.clear();
        self.movers_of.resize(self.entries.len(), None);
        for e in &self.entries {
            if let Some(m) = self.movers_of.get_mut(e.root() as usize) {
                *m = Mover::of(e, formations);
            }
        }
        let mut ranks = std::mem::take(&mut self.ranks);
        self.visit_ranks(&mut ranks);
        self.ranks = ranks;
        self.exact = self.exact_windows();
        let (entries, movers) = (&self.entries, &self.movers_of);
        let boxes = entries.iter().enumerate().filter_map(|(i, e)| {
            let m = movers.get(e.root() as usize)?.as_ref()?;
            let (lo, hi) = m.reach_box(e);
            Some(TrackBox {
                entry: i as u32,
                root: e.root(),
                lo,
                hi,
            })
        });
        self.tracks.build(movers.len(), boxes);
    }

    /// Root `e`'s cached [`Mover`] (see [`Self::cache_movers`]).
    pub(super) fn mover(&self, e: &RootEntry) -> Option<&Mover> {
        self.movers_of.get(e.root() as usize)?.as_ref()
    }

    /// Whom moving formation `a` gives way to (see the module doc), and the speed it keeps:
    /// the tightest of the caps every formation that goes before it sets (of equal caps, the
    /// first in [`Self::for_each_near`]'s order). Only formations whose anchors lie within
    /// its reach (its own look-ahead, the fastest root's and the largest extents) count.
    /// Needs [`Self::cache_movers`] and [`Self::cache_meetings`].
    pub(super) fn give_way(&self, a: &RootEntry) -> Option<GiveWay> {
        self.give_way_among(a, |_| true)
    }

    /// [`Self::give_way`] among the formations `counts` keeps (a ring of formations each
    /// giving way to the next is broken by looking past the ring: `make_way/rings.rs`).
    pub(super) fn give_way_among(
        &self,
        a: &RootEntry,
        counts: impl Fn(&RootEntry) -> bool,
    ) -> Option<GiveWay> {
        let me = self.mover(a)?;
        let r = self.give_way_radius(a, me);
        // Asked at most once, and only of a formation bound for a passage alike with another.
        let queues_once = std::cell::OnceCell::new();
        let queues = || *queues_once.get_or_init(|| self.queues_at_passage(a));
        // The tightest cap, and the rank of the formation that sets it: the same whatever
        // order the caps come in (no two formations share a rank).
        let mut out: Option<(GiveWay, u32)> = None;
        let mut consider = |b: &RootEntry, rank: u32, (speed, eta): (f32, f32)| {
            if out.is_none_or(|(g, k)| speed < g.speed || (speed == g.speed && rank < k)) {
                let to = b.id;
                let to_root = b.root();
                out = Some((
                    GiveWay {
                        to,
                        speed,
                        to_root,
                        eta,
                    },
                    rank,
                ));
            }
        };
        if !self.exact {
            // Visited in rank order.
            let mut rank = 0;
            self.for_each_near(a.position, r, |b| {
                if let Some(cap) = self.cap_from(a, me, b, &queues).filter(|_| counts(b)) {
                    consider(b, rank, cap);
                }
                rank += 1;
            });
            return out.map(|(g, _)| g);
        }
        // Only a formation whose track meets `a`'s and the other way round can go first:
        // [`Self::cache_meetings`] found each such pair once; the window keeps the ones
        // `for_each_near` would visit.
        let window = self.near_window(a.position, r);
        for seen in self.meetings_of(a) {
            let i = seen.other as usize;
            let (Some(b), Some(&rank)) = (self.entries.get(i), self.ranks.get(i)) else {
                continue;
            };
            if !self.in_window(&window, b) || !counts(b) {
                continue;
            }
            let Some(other) = self.mover(b) else {
                continue;
            };
            if let Some(cap) = cap((a, me, seen.own), (b, other, seen.theirs), false, &queues) {
                consider(b, rank, cap);
            }
        }
        out.map(|(g, _)| g)
    }

    /// The half-side of the square round mover `a` (whose mover is `me`) whose formations
    /// [`Self::give_way`] looks at.
    pub(super) fn give_way_radius(&self, a: &RootEntry, me: &Mover) -> f32 {
        let reach = me.half_depth + (me.cruise * LOOK_AHEAD).max(MIN_AHEAD);
        // Another's track lies within its own reach (at most the largest extent plus the
        // fastest root's look-ahead) of its anchor.
        reach
            + a.half_extent.y.abs()
            + 2.0 * self.max_reach()
            + (self.max_speed() * LOOK_AHEAD).max(MIN_AHEAD)
            + MEET_MARGIN
    }

    /// Calls `visit` with the entry index (`from` or above) of every mover whose track can
    /// meet the track of mover `a` (whose mover is `me`): those whose boxes, each grown by its
    /// half-width, come within the margin of `a`'s (and maybe a few more; `a` itself among
    /// them). Every mover whose track [`Track::first_meeting`] finds meeting `a`'s, either way
    /// round, is visited (the test that starts it is the same both ways round, and this is a
    /// superset of it).
    pub(super) fn for_each_track_near(
        &self,
        a: &RootEntry,
        me: &Mover,
        from: u32,
        visit: impl FnMut(u32),
    ) {
        let (lo, hi) = me.reach_box(a);
        // Padded for rounding (a superset: `first_meeting` decides).
        let grow = MEET_MARGIN + 1e-4 * (MEET_MARGIN + lo.abs().max(hi.abs()).max_element()) + 1e-3;
        self.tracks
            .for_each_near(a.root(), (lo, hi), grow, from, visit);
    }

    /// Where the tracks of movers `a` (whose mover is `me`) and `b` (`other`) first meet,
    /// each along its own ([`Track::first_meeting`], `a`'s first), if they meet both ways
    /// round and the meeting is right of way's: what [`Self::give_way`] needs of the pair from
    /// either end.
    ///
    /// A merge is queueing's, not right of way's: where both formations queue and are not
    /// bound for one passage, tracks that first meet at a shallow angle (under
    /// [`MERGE_COS`]'s, both ways round) are let into one lane in turn by queueing
    /// (`zipper.rs`), each keeping its gap behind where the other's rear will be. Taking
    /// turns there by right of way, the one that waits slows for a stop line up to
    /// [`LOOK_AHEAD`] seconds ahead, however slowly the other comes on: in a march of many
    /// formations whose paths fan in and out round obstacles, those waiting held up those
    /// behind them, and those others still (`docs/traffic.md`).
    pub(super) fn pair_meeting(
        a: &RootEntry,
        me: &Mover,
        b: &RootEntry,
        other: &Mover,
    ) -> Option<[(f32, f32); 2]> {
        let (own, theirs) = (a.half_extent.y.abs(), b.half_extent.y.abs());
        let along_a = me
            .track
            .first_meeting(&other.track, own, theirs, MEET_MARGIN)?;
        let along_b = other
            .track
            .first_meeting(&me.track, theirs, own, MEET_MARGIN)?;
        let merge = along_a.cos > MERGE_COS
            && along_b.cos > MERGE_COS
            && a.follow_gap > 0.0
            && b.follow_gap > 0.0
            && !a.bound_for_one_passage(b);
        (!merge).then_some([(along_a.arc, along_a.reach), (along_b.arc, along_b.reach)])
    }

    /// The speed cap formation `b` sets mover `a` (whose mover is `me`) if `b` goes first at
    /// the first meeting of their tracks, and `a`'s seconds to the meeting; `None` if `b` does
    /// not go first.
    pub(super) fn cap_from(
        &self,
        a: &RootEntry,
        me: &Mover,
        b: &RootEntry,
        queues: &dyn Fn() -> bool,
    ) -> Option<(f32, f32)> {
        if b.id == a.id || !b.moving {
            return None;
        }
        let other = self.mover(b)?;
        let [(sa, _), along_b] = Self::pair_meeting(a, me, b, other)?;
        cap((a, me, sa), (b, other, along_b), false, queues)
    }

    /// The speed cap formation `b` sets mover `a` as if `b` went first where their tracks
    /// meet, whoever would reach the meeting first: for breaking a ring of formations each
    /// giving way to the next (`make_way/rings.rs`). `None` where their tracks do not meet as
    /// right of way's, or `a` is already at the meeting.
    pub(super) fn cap_as_second(&self, a: &RootEntry, b: &RootEntry) -> Option<(f32, f32)> {
        if b.id == a.id || !b.moving {
            return None;
        }
        let (me, other) = (self.mover(a)?, self.mover(b)?);
        let [(sa, _), along_b] = Self::pair_meeting(a, me, b, other)?;
        cap((a, me, sa), (b, other, along_b), true, &|| {
            self.queues_at_passage(a)
        })
    }
}

/// The speed cap mover `b` (whose mover is `other`) sets mover `a` (`me`) if `b` goes first
/// where their tracks first meet, and `a`'s seconds to the meeting at its cruise speed; `None`
/// if `b` does not go first: `sa` is the meeting's arc length along `a`'s track, `along_b`
/// the arc length and distance of [`Track::first_meeting`] along `b`'s. With `second`, `b`
/// goes first whoever reaches the meeting first. `queues` tells whether `a` may queue right
/// behind `b` at a passage both are bound for ([`RootIndex::queues_at_passage`]; asked only
/// of such a pair).
fn cap(
    (a, me, sa): (&RootEntry, &Mover, f32),
    (b, other, along_b): (&RootEntry, &Mover, (f32, f32)),
    second: bool,
    queues: &dyn Fn() -> bool,
) -> Option<(f32, f32)> {
    let (sb, db) = along_b;
    let d = a.half_extent.y.abs() + b.half_extent.y.abs() + MEET_MARGIN;
    // Each in the other's way ahead: one route walked both ways (passing's business,
    // and stopping on it would stand in the other's way).
    if other.track.ahead_passes(a.position, d) && me.track.ahead_passes(b.position, d) {
        return None;
    }
    let (ta, tb) = (me.eta(sa), other.eta(sb));
    // Already at the meeting: no stopping there.
    if ta <= 0.0 {
        return None;
    }
    let first = second || tb < ta || (tb == ta && b.id < a.id);
    if !first {
        return None;
    }
    // Seconds until the other's rear clears the meeting (its band is about `2 db`
    // long), at its cruise speed; the front comes to its stop line no sooner, so a
    // formation that is early slows instead of stopping.
    let clear = (sb + other.half_depth + 2.0 * db) / other.cruise.max(0.01);
    let gap = sa - me.half_depth - STOP_GAP;
    let mut speed = (gap / clear.max(STOP_TIME)).max(0.0);
    // Bound the same way for one passage, it queues right behind the other's rear instead
    // (closer to the mouth than the stop line where their tracks meet at a shallow angle).
    if a.through_one_passage_alike(b) && queues() {
        speed = speed.max(super::passage_turns::queue_cap(
            a,
            me.half_depth,
            b,
            other.half_depth,
        ));
    }
    Some((speed, ta))
}
