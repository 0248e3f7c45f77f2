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
//! track no longer meets). The order is strict, so two formations never wait for each other, nor does
//! a ring of them.
//!
//! Two formations each in the other's way ahead walk one route both ways: stopping on it
//! would block the other, so that is left to passing. Formations of one unit are left to
//! avoidance: the rule is for groups, which cannot squeeze
//! past each other. Tracks heading within [`SAME_WAY_COS`] of each other are queueing's
//! business, tracks meeting head-on passing's (`make_way/following.rs`, [`super::pass_shift`]).

use cohort_steering::Vec2;

use super::root_index::{RootEntry, RootIndex};
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
/// Least seconds over which a waiting formation closes to its stop line.
const STOP_TIME: f32 = 2.0;
/// Cosine of the widest angle between two tracks at their meeting that counts as going the
/// same way (queueing's business).
const SAME_WAY_COS: f32 = 0.95;
/// Cosine below which two tracks meet head-on (passing's business).
const HEAD_ON_COS: f32 = -0.7;
/// Most points in a track.
const TRACK_POINTS: usize = 12;
/// Iterations of the searches for the first meeting on a segment.
const SEARCH_STEPS: usize = 24;

/// The formation a moving top-level formation gives way to, and the speed it keeps meanwhile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct GiveWay {
    /// The formation that goes first.
    pub(super) to: FormationId,
    /// The anchor's speed cap (m/s, at least 0).
    pub(super) speed: f32,
}

/// A stretch of a formation's path as a polyline, with each point's arc length from the
/// anchor (negative behind it).
#[derive(Clone, Copy, Debug)]
pub(super) struct Track {
    points: [Vec2; TRACK_POINTS],
    arc: [f32; TRACK_POINTS],
    /// `dirs[i]`: the unit direction of the leg from point `i - 1` to point `i` (zero for a
    /// leg of no length, and at 0).
    dirs: [Vec2; TRACK_POINTS],
    len: usize,
    /// The corners of the box round the points.
    lo: Vec2,
    hi: Vec2,
}

impl Track {
    /// From `behind` metres behind the anchor (along the path already walked) to `ahead`
    /// metres in front of it (along the path still to walk), through the anchor itself.
    fn of(f: &Formation, behind: f32, ahead: f32) -> Option<Self> {
        if f.path.len() < 2 || !f.anchor.position.is_finite() {
            return None;
        }
        let idx = f.path_index.clamp(1, f.path.len() - 1);
        let at = f.anchor.position;
        // Behind: back through the points already passed, nearest first.
        let mut back = [Vec2::ZERO; TRACK_POINTS];
        let mut back_arc = [0.0f32; TRACK_POINTS];
        let mut nb = 0;
        let (mut prev, mut s) = (at, 0.0f32);
        for &p in f.path[..idx].iter().rev() {
            if nb + 2 >= TRACK_POINTS / 2 || s >= behind {
                break;
            }
            let step = (p - prev).length();
            let (p, step) = if s + step > behind && step > 0.0 {
                (prev.lerp(p, (behind - s) / step), behind - s)
            } else {
                (p, step)
            };
            s += step;
            back[nb] = p;
            back_arc[nb] = -s;
            nb += 1;
            prev = p;
        }
        let mut t = Track {
            points: [Vec2::ZERO; TRACK_POINTS],
            arc: [0.0; TRACK_POINTS],
            dirs: [Vec2::ZERO; TRACK_POINTS],
            len: 0,
            lo: Vec2::splat(f32::INFINITY),
            hi: Vec2::splat(f32::NEG_INFINITY),
        };
        for k in (0..nb).rev() {
            t.push(back[k], back_arc[k]);
        }
        t.push(at, 0.0);
        let (mut prev, mut s) = (at, 0.0f32);
        for &p in &f.path[idx..] {
            if t.len >= TRACK_POINTS || s >= ahead {
                break;
            }
            let step = (p - prev).length();
            let (p, step) = if s + step > ahead && step > 0.0 {
                (prev.lerp(p, (ahead - s) / step), ahead - s)
            } else {
                (p, step)
            };
            s += step;
            t.push(p, s);
            prev = p;
        }
        (t.len >= 2).then_some(t)
    }

    fn push(&mut self, p: Vec2, s: f32) {
        if self.len < TRACK_POINTS {
            if self.len > 0 {
                self.dirs[self.len] = (p - self.points[self.len - 1]).normalize_or_zero();
            }
            self.points[self.len] = p;
            self.arc[self.len] = s;
            self.lo = self.lo.min(p);
            self.hi = self.hi.max(p);
            self.len += 1;
        }
    }

    /// Whether the track in front of the anchor comes closer than `d` to `p`.
    fn ahead_passes(&self, p: Vec2, d: f32) -> bool {
        (1..self.len)
            .filter(|&i| self.arc[i] > 0.0)
            .any(|i| to_segment(p, self.points[i - 1], self.points[i]) < d)
    }

    /// The corners of the box round the track's points.
    fn bounds(&self) -> (Vec2, Vec2) {
        (self.lo, self.hi)
    }

    /// Where along this track a formation `own` wide (half-width) first comes within `margin`
    /// of one `theirs` wide walking `other`, where the two run at an angle (neither the same
    /// way nor head-on): the arc length of the first point closer than
    /// `d = theirs + margin + own |cos|` to `other`, `cos` being that of the angle between
    /// the two legs (a front edge crossing the other's track square on reaches it with its
    /// centre; at a slant, its leading corner first), and that `d`. Pairs of legs that run the
    /// same way or head-on, or whose boxes lie further than `own + theirs + margin` apart, are
    /// passed over at the cost of a comparison.
    fn first_meeting(
        &self,
        other: &Track,
        own: f32,
        theirs: f32,
        margin: f32,
    ) -> Option<(f32, f32)> {
        let most = own + theirs + margin;
        let (lo, hi) = self.bounds();
        let (olo, ohi) = other.bounds();
        if (lo - Vec2::splat(most)).cmpgt(ohi).any() || (olo - Vec2::splat(most)).cmpgt(hi).any() {
            return None;
        }
        for i in 1..self.len {
            let (a0, a1) = (self.points[i - 1], self.points[i]);
            let dir_a = self.dirs[i];
            let (alo, ahi) = (
                a0.min(a1) - Vec2::splat(most),
                a0.max(a1) + Vec2::splat(most),
            );
            let mut best: Option<(f32, f32)> = None;
            for j in 1..other.len {
                let (b0, b1) = (other.points[j - 1], other.points[j]);
                if alo.cmpgt(b0.max(b1)).any() || b0.min(b1).cmpgt(ahi).any() {
                    continue;
                }
                let cos = dir_a.dot(other.dirs[j]);
                if !(HEAD_ON_COS..=SAME_WAY_COS).contains(&cos) {
                    continue;
                }
                let d = theirs + margin + own * cos.abs();
                if let Some(t) = first_within(a0, a1, b0, b1, d) {
                    if best.is_none_or(|(bt, _)| t < bt) {
                        best = Some((t, d));
                    }
                }
            }
            if let Some((t, d)) = best {
                return Some((self.arc[i - 1] + t * (self.arc[i] - self.arc[i - 1]), d));
            }
        }
        None
    }
}

/// Distance from `p` to the segment `b0 b1`.
fn to_segment(p: Vec2, b0: Vec2, b1: Vec2) -> f32 {
    let e = b1 - b0;
    let len2 = e.length_squared();
    let t = if len2 > 0.0 {
        ((p - b0).dot(e) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (b0 + e * t)).length()
}

/// The smallest `t` in `[0, 1]` at which `a0 + t (a1 - a0)` is closer than `d` to the
/// segment `b0 b1`, if any. The distance is convex in `t`: its least value is found by a
/// ternary search, then the first crossing of `d` before it by bisection.
fn first_within(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2, d: f32) -> Option<f32> {
    let at = |t: f32| to_segment(a0.lerp(a1, t), b0, b1);
    if at(0.0) < d {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..SEARCH_STEPS {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if at(m1) <= at(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let least = 0.5 * (lo + hi);
    if !(at(least) < d) {
        return None;
    }
    let (mut out, mut inside) = (0.0f32, least);
    for _ in 0..SEARCH_STEPS {
        let m = 0.5 * (out + inside);
        if at(m) < d {
            inside = m;
        } else {
            out = m;
        }
    }
    Some(inside)
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
        let f = formations.get(entry.id)?;
        if !entry.moving || f.motion != Motion::Moving || f.members.len() < 2 {
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

    /// Seconds until the front reaches arc length `s` (negative when it is past it).
    fn eta(&self, s: f32) -> f32 {
        (s - self.half_depth) / self.cruise.max(0.01)
    }
}

impl RootIndex {
    /// Whom moving formation `a` gives way to (see the module doc), and the speed it keeps:
    /// the tightest of the caps every formation that goes before it sets. Needs
    /// [`Self::index_all`].
    /// Every root's [`Mover`] this tick, by its place among the roots: each is read by every
    /// nearby root's [`Self::give_way`], so it is made once (no allocation once warm).
    pub(super) fn cache_movers(&mut self, formations: &Formations) {
        self.movers_of.clear();
        self.movers_of.resize(self.entries.len(), None);
        for e in &self.entries {
            if let Some(m) = self.movers_of.get_mut(e.root() as usize) {
                *m = Mover::of(e, formations);
            }
        }
    }

    /// Root `e`'s cached [`Mover`] (see [`Self::cache_movers`]).
    fn mover(&self, e: &RootEntry) -> Option<&Mover> {
        self.movers_of.get(e.root() as usize)?.as_ref()
    }

    pub(super) fn give_way(&self, a: &RootEntry) -> Option<GiveWay> {
        let me = self.mover(a)?;
        let reach = me.half_depth + (me.cruise * LOOK_AHEAD).max(MIN_AHEAD);
        // Another's track lies within its own reach (at most the largest extent plus the
        // fastest root's look-ahead) of its anchor.
        let r = reach
            + a.half_extent.y.abs()
            + 2.0 * self.max_reach()
            + (self.max_speed() * LOOK_AHEAD).max(MIN_AHEAD)
            + MEET_MARGIN;
        let mut out: Option<GiveWay> = None;
        self.for_each_near(a.position, r, |b| {
            if b.id == a.id || !b.moving {
                return;
            }
            let Some(other) = self.mover(b) else {
                return;
            };
            let (own, theirs) = (a.half_extent.y.abs(), b.half_extent.y.abs());
            let d = own + theirs + MEET_MARGIN;
            let Some((sa, _)) = me
                .track
                .first_meeting(&other.track, own, theirs, MEET_MARGIN)
            else {
                return;
            };
            let Some((sb, db)) = other
                .track
                .first_meeting(&me.track, theirs, own, MEET_MARGIN)
            else {
                return;
            };
            // Each in the other's way ahead: one route walked both ways (passing's business,
            // and stopping on it would stand in the other's way).
            if other.track.ahead_passes(a.position, d) && me.track.ahead_passes(b.position, d) {
                return;
            }
            let (ta, tb) = (me.eta(sa), other.eta(sb));
            // Already at the meeting: no stopping there.
            if ta <= 0.0 {
                return;
            }
            let first = tb < ta || (tb == ta && b.id < a.id);
            if !first {
                return;
            }
            // Seconds until the other's rear clears the meeting (its band is about `2 db`
            // long), at its cruise speed; the front comes to its stop line no sooner, so a
            // formation that is early slows instead of stopping.
            let clear = (sb + other.half_depth + 2.0 * db) / other.cruise.max(0.01);
            let gap = sa - me.half_depth - STOP_GAP;
            let speed = (gap / clear.max(STOP_TIME)).max(0.0);
            if out.is_none_or(|g| speed < g.speed) {
                out = Some(GiveWay { to: b.id, speed });
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_within_finds_the_entry_into_the_band() {
        // Along x from -10 to 10, a vertical segment at x = 0: within 2 from x = -2.
        let t = first_within(
            Vec2::new(-10.0, 0.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(0.0, -5.0),
            Vec2::new(0.0, 5.0),
            2.0,
        )
        .unwrap();
        assert!((t - 0.4).abs() < 1e-4, "{t}");
        // Parallel and 3 apart: never within 2.
        assert!(
            first_within(
                Vec2::new(-10.0, 0.0),
                Vec2::new(10.0, 0.0),
                Vec2::new(-10.0, 3.0),
                Vec2::new(10.0, 3.0),
                2.0,
            )
            .is_none()
        );
        // Already within at the start.
        assert_eq!(
            first_within(
                Vec2::ZERO,
                Vec2::X,
                Vec2::new(0.0, 1.0),
                Vec2::new(1.0, 1.0),
                2.0
            ),
            Some(0.0)
        );
    }
}
