//! The top-level formations by position, for make way and passing.
//!
//! Both look for the formations near a moving one; a dense army has many of those, so each
//! query is pruned to what can possibly pass its test, and no further:
//!
//! - **Passing** concerns only movers heading against each other (headings at least 120
//!   degrees apart). The movers are indexed by heading in eight 45-degree wedges: two
//!   headings in the same or neighbouring wedges are at most 90 degrees apart, so a query
//!   looks only at the five wedges that can oppose its own (an army marching one way looks
//!   at empty ones).
//! - **Making way** concerns the formations whose bounding circle meets the mover's lane, a
//!   rectangle in the mover's frame: a query covers that rectangle's bounding box (grown by
//!   the largest circle), not a square round the mover.
//!
//! The entries are refreshed in place from one use to the next (the roots rarely change;
//! anchors move a little, so the x order needs few swaps).

use cohort_steering::Vec2;

use super::{LANE_BEHIND, LANE_MARGIN, Lane, PASS_HORIZON, PASS_MARGIN, pass_shift};
use crate::formation::Formation;
use crate::ids::FormationId;
use classes::ReachClasses;
use strips::Strips;

pub(crate) use entry::RootEntry;
use headings::{HEADINGS, NO_HEADING, heading_class, may_oppose};

type Formations = slotmap::SlotMap<FormationId, Formation>;

/// Height (metres) of the strips of y the top-level formations are bucketed in.
const STRIP_HEIGHT: f32 = 8.0;
/// Metres of path ahead of its anchor within which a passage counts as the one a formation is
/// bound for (see [`RootEntry::bound_for_one_passage`]).
pub(super) const PASSAGE_LOOK: f32 = 60.0;
/// Metres beyond both half-widths within which the passages two formations are bound for
/// count as one.
const PASSAGE_MARGIN: f32 = 1.0;

/// The top-level formations sorted by anchor x (ties by key, so the order is deterministic),
/// bucketed in strips of y (see [`Strips`]): all of them for make way, the movers by heading
/// for passing.
#[derive(Clone, Debug, Default)]
pub(crate) struct RootIndex {
    pub(super) entries: Vec<RootEntry>,
    /// Whether `entries` holds every root it was read from (so it can be refreshed in place).
    complete: bool,
    /// Each root's entry, by its place among the roots (`u32::MAX` for none).
    places: Vec<u32>,
    /// Every root (built by [`Self::index_all`]).
    all: Strips,
    /// Every root by reach class (built by [`Self::index_all`]).
    classes: ReachClasses,
    /// The roots a lane can reach by reach class: every root but the singles on the move,
    /// which [`Lane::reaches`] never takes (built by [`Self::index_all`] when there are such
    /// singles; `classes` serves otherwise).
    lane_classes: ReachClasses,
    /// Whether `lane_classes` was built this tick (else `classes` holds the same roots).
    lane_classes_apart: bool,
    /// The movers per heading class (built by [`Self::index_headings`]).
    headings: [Strips; HEADINGS],
    /// The movers' indices into `entries`, grouped by heading class.
    movers: Vec<u32>,
    /// Each root's tracks for right of way this tick, by its place among the roots.
    pub(super) movers_of: Vec<Option<super::right_of_way::Mover>>,
    /// The movers' tracks by place (built with `movers_of`).
    pub(super) tracks: super::track_grid::TrackGrid,
    /// Each entry's place in the order [`Self::for_each_near`] visits (built with
    /// `movers_of`, see [`Self::visit_ranks`]).
    pub(super) ranks: Vec<u32>,
    /// Whether [`Self::in_window`] is exact this tick (built with `movers_of`).
    pub(super) exact: bool,
    /// The pairs of movers whose tracks meet (built by [`Self::cache_meetings`]).
    pub(super) meetings: super::meetings::Meetings,
    /// Largest half-extent length among the roots.
    max_reach: f32,
    /// Largest anchor speed among the roots.
    max_speed: f32,
    /// Whether every root is a small group (`following::is_small_group`).
    all_small: bool,
    /// Each entry's passing plan this tick (see `World::plan_passing`), in entry order.
    pub(super) plans: Vec<super::PassingPlan>,
    /// The buffers of [`Self::break_rings`].
    pub(super) rings: super::rings::RingScratch,
    /// Per group of roots moving alike, the bounds of their velocities (the buffers of
    /// [`Self::cluster_alike`]).
    velocity_bounds: (Vec<Vec2>, Vec<Vec2>),
}

impl RootIndex {
    /// The roots, by anchor x.
    pub(super) fn entries(&self) -> &[RootEntry] {
        &self.entries
    }

    /// Reads the roots' anchors and extents from `formations` and sorts them by x: in place
    /// when `roots` are the ones last read (one pass, and an almost sorted order re-sorted),
    /// from scratch otherwise. Allocates nothing once the buffers are as large as the roots.
    pub(super) fn update(&mut self, roots: &[(FormationId, u32, u32)], formations: &Formations) {
        if !self.refresh(roots, formations) {
            self.entries.clear();
            self.complete = true;
            for (k, &(id, start, end)) in roots.iter().enumerate() {
                match formations.get(id) {
                    Some(f) => self
                        .entries
                        .push(RootEntry::of(f, id, k as u32, (start, end))),
                    None => self.complete = false,
                }
            }
        }
        self.sorted();
    }

    /// Re-reads the entries in place if they are exactly `roots` (every one of them, each a
    /// live formation); `false` (entries in no particular state) otherwise.
    fn refresh(&mut self, roots: &[(FormationId, u32, u32)], formations: &Formations) -> bool {
        if !self.complete || self.entries.len() != roots.len() || self.places.len() != roots.len() {
            return false;
        }
        // In the roots' order, which is the formations' order in memory (the entries are in
        // x order): each formation's record is read where the last one ended, not fetched
        // from anywhere in a large army's store. Every root is matched when each root's
        // entry is its own.
        for (k, &(id, start, end)) in roots.iter().enumerate() {
            let Some(e) = self
                .places
                .get(k)
                .and_then(|&i| self.entries.get_mut(i as usize))
                .filter(|e| e.root as usize == k && e.id == id)
            else {
                return false;
            };
            let Some(f) = formations.get(id) else {
                return false;
            };
            *e = RootEntry::of(f, id, e.root, (start, end));
        }
        true
    }

    /// Sorts the entries by (x, key) and measures the largest reach and speed.
    fn sorted(&mut self) {
        sort_by_x(&mut self.entries);
        self.places.clear();
        self.places.resize(self.entries.len(), u32::MAX);
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(p) = self.places.get_mut(e.root as usize) {
                *p = i as u32;
            }
        }
        let (mut reach, mut speed) = (0.0f32, 0.0f32);
        let mut all_small = true;
        for e in &self.entries {
            reach = reach.max(e.circle_radius);
            speed = speed.max(e.velocity.length());
            all_small &= e.small_group;
        }
        self.max_reach = reach;
        self.max_speed = speed;
        self.all_small = all_small;
    }

    /// Buckets every root by position (for [`Self::for_each_in_way`]).
    pub(super) fn index_all(&mut self) {
        self.all.build(
            &self.entries,
            0..self.entries.len() as u32,
            self.entries.len(),
        );
        self.classes.build(&self.entries, |_| true);
        // In a crowd of singles most roots are singles on the move, which no lane takes:
        // the lane queries look among the others only.
        self.lane_classes_apart = self.entries.iter().any(walks_alone);
        if self.lane_classes_apart {
            self.lane_classes.build(&self.entries, |e| !walks_alone(e));
        }
    }

    /// Classes the movers by heading and buckets each class by position (for
    /// [`Self::passing_velocity`]).
    pub(super) fn index_headings(&mut self) {
        let mut counts = [0u32; HEADINGS + 1];
        for e in &mut self.entries {
            e.heading = e
                .lane
                .map_or(NO_HEADING, |lane| heading_class(lane.forward));
            if let Some(c) = counts.get_mut(usize::from(e.heading) + 1) {
                *c += 1;
            }
        }
        for h in 0..HEADINGS {
            counts[h + 1] += counts[h];
        }
        // Counting sort by class, stable, so each class stays sorted by x.
        // Room for every root, so the buffer does not grow in the tick where more of them
        // start moving than ever before.
        self.movers.clear();
        self.movers.reserve(self.entries.len());
        self.movers.resize(counts[HEADINGS] as usize, 0);
        let mut cursor = counts;
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(c) = cursor.get_mut(usize::from(e.heading)) {
                if let Some(slot) = self.movers.get_mut(*c as usize) {
                    *slot = i as u32;
                }
                *c += 1;
            }
        }
        for (h, strips) in self.headings.iter_mut().enumerate() {
            let class = self
                .movers
                .get(counts[h] as usize..counts[h + 1] as usize)
                .unwrap_or(&[]);
            strips.build(&self.entries, class.iter().copied(), self.entries.len());
        }
    }

    /// The sideways velocity with which mover `a` (in `lane`) keeps right of oncoming
    /// formations: the largest [`pass_shift`] among all the roots, looking only at the
    /// movers whose heading can oppose `a`'s and whose anchors lie in the box where
    /// `pass_shift` can find one ([`Self::passing_box`], twice both depths ahead, once where
    /// every root is a small group). Also the oncoming formation that asks for the largest
    /// shift, if any.
    pub(super) fn passing_velocity(
        &self,
        a: &RootEntry,
        lane: &Lane,
    ) -> (Vec2, Option<FormationId>) {
        // Twice both depths unless both are small groups: at most twice, whatever `b` is.
        let deep = if a.small_group && self.all_small {
            1.0
        } else {
            2.0
        };
        let (x, y) = self.passing_box(a, lane, deep);
        let mut shift: f32 = 0.0;
        let mut oncoming = None;
        self.for_each_opposing_in(lane, x, y, |b| {
            if let Some(s) = pass_shift(a, lane, b) {
                if oncoming.is_none() || s > shift {
                    oncoming = Some(b.id);
                }
                shift = shift.max(s);
            }
        });
        (super::passing_velocity(lane, shift), oncoming)
    }

    /// The box (x and y ranges, padded for rounding) round every anchor of an oncoming root
    /// for which [`pass_shift`] can find room to leave mover `a` in `lane`, looking `deep`
    /// times both depths ahead beyond the horizon's closing (at least what `pass_shift`
    /// looks): `b`'s anchor lies, in the lane's frame, no further behind than both `behind`s
    /// (`b`'s at most the largest reach plus [`LANE_BEHIND`]), no further ahead than the
    /// closing speed (at most the lane's speed plus the fastest root's) times the horizon
    /// plus `deep` times both `behind`s, and no further to either side than both half-widths
    /// (`b`'s at most the largest reach) plus the margin. The box bounds that rectangle: in
    /// an army marching along an axis, a strip ahead instead of a square round the mover.
    fn passing_box(&self, a: &RootEntry, lane: &Lane, deep: f32) -> ((f32, f32), (f32, f32)) {
        let back = lane.behind + self.max_reach + LANE_BEHIND;
        let ahead = (lane.speed + self.max_speed) * PASS_HORIZON + deep * back;
        let side = lane.half_width + self.max_reach + PASS_MARGIN;
        let half_length = 0.5 * (ahead + back);
        let centre = a.position + lane.forward * (0.5 * (ahead - back));
        let (f, l) = (lane.forward.abs(), lane.left.abs());
        let pad = 1e-4 * (half_length + side + a.position.abs().element_sum()) + 1e-3;
        let ex = half_length * f.x + side * l.x + pad;
        let ey = half_length * f.y + side * l.y + pad;
        // An infinite reach or speed (nothing bounds a root's) looks everywhere, as the
        // square did, not at a box of NaN.
        if !(centre.is_finite() && ex.is_finite() && ey.is_finite()) {
            let all = (f32::NEG_INFINITY, f32::INFINITY);
            return (all, all);
        }
        (
            (centre.x - ex, centre.x + ex),
            (centre.y - ey, centre.y + ey),
        )
    }

    /// Calls `visit` with every mover whose heading may oppose `lane`'s (at least 120 degrees
    /// apart) and whose anchor lies within the square of half-side `r` round `at` (and maybe
    /// a few more: the square is padded for rounding; the caller decides).
    fn for_each_opposing(&self, at: Vec2, lane: &Lane, r: f32, visit: impl FnMut(&RootEntry)) {
        let r = r + 1e-4 * (r + at.abs().element_sum()) + 1e-3;
        self.for_each_opposing_in(lane, (at.x - r, at.x + r), (at.y - r, at.y + r), visit);
    }

    /// Calls `visit` with every mover whose heading may oppose `lane`'s (at least 120 degrees
    /// apart) and whose anchor lies within the ranges `x` and `y` (bounds included).
    fn for_each_opposing_in(
        &self,
        lane: &Lane,
        x: (f32, f32),
        y: (f32, f32),
        mut visit: impl FnMut(&RootEntry),
    ) {
        // The lane's wedge, as `index_headings` classes it (not read from the entry, so the
        // result does not depend on when the entry was classed).
        let heading = heading_class(lane.forward);
        for (h, strips) in self.headings.iter().enumerate() {
            if !may_oppose(heading, h as u8) {
                continue;
            }
            strips.for_each_in(&self.entries, x, y, &mut visit);
        }
    }

    /// Whether a mover heading the other way (headings at least 120 degrees apart) is ahead
    /// of `a` in its lane within `horizon` seconds of the two closing, at most `half_width`
    /// to either side of `a`'s line.
    pub(super) fn oncoming_ahead(
        &self,
        a: &RootEntry,
        lane: &Lane,
        horizon: f32,
        half_width: f32,
    ) -> bool {
        let r = (lane.speed + self.max_speed) * horizon
            + lane.behind
            + 2.0 * self.max_reach
            + half_width;
        let mut found = false;
        self.for_each_opposing(a.position, lane, r, |b| {
            if !found && b.id != a.id {
                found = super::keep_right::oncoming_in_lane(a, lane, b, horizon, half_width);
            }
        });
        found
    }

    /// Calls `visit` with every root whose anchor lies within the square of half-side `r`
    /// round `at` (and maybe a few more), from the index of [`Self::index_all`].
    pub(super) fn for_each_near(&self, at: Vec2, r: f32, visit: impl FnMut(&RootEntry)) {
        // Padded for rounding (a superset: the caller decides).
        let r = r + 1e-4 * (r + at.abs().element_sum()) + 1e-3;
        self.all.for_each_in(
            &self.entries,
            (at.x - r, at.x + r),
            (at.y - r, at.y + r),
            visit,
        );
    }

    /// Every root but the singles on the move, by reach class.
    fn lane_classes(&self) -> &ReachClasses {
        if self.lane_classes_apart {
            &self.lane_classes
        } else {
            &self.classes
        }
    }

    /// Calls `visit` with every root but the singles on the move (which neither make way nor
    /// queue) whose anchor lies within the square round `at` of half-side `r(reach)`, `reach`
    /// being the largest reach (half-extent length) among roots of its size (and maybe a few
    /// more: the squares are padded for rounding). Each reach class is searched with a square
    /// as wide as its own largest root needs, so one large root does not make every query
    /// of a crowd of small ones look at most of them.
    pub(super) fn for_each_within_reach(
        &self,
        at: Vec2,
        r: impl Fn(f32) -> f32,
        mut visit: impl FnMut(&RootEntry),
    ) {
        let classes = self.lane_classes();
        if !classes.usable() {
            self.for_each_near(at, r(self.max_reach), visit);
            return;
        }
        classes.for_each_class(|strips, reach| {
            let r = r(reach);
            let r = r + 1e-4 * (r + at.abs().element_sum()) + 1e-3;
            strips.for_each_in(
                &self.entries,
                (at.x - r, at.x + r),
                (at.y - r, at.y + r),
                &mut visit,
            );
        });
    }

    /// The window [`Self::for_each_near`] looks in round `at` for half-side `r`: with
    /// [`Self::in_window`], exactly the roots it visits (unless an anchor's x is NaN, see
    /// [`Self::exact_windows`]).
    pub(super) fn near_window(&self, at: Vec2, r: f32) -> Window {
        let r = r + 1e-4 * (r + at.abs().element_sum()) + 1e-3;
        let n = self.all.starts.len().saturating_sub(1);
        Window {
            x: (at.x - r, at.x + r),
            strips: (
                self.all.strip_of(at.y - r, n) as u32,
                self.all.strip_of(at.y + r, n) as u32,
            ),
        }
    }

    /// Whether [`Self::for_each_near`] for `w` visits `b` (see [`Self::near_window`]).
    pub(super) fn in_window(&self, w: &Window, b: &RootEntry) -> bool {
        let n = self.all.starts.len().saturating_sub(1);
        if n == 0 || self.all.cells.is_empty() {
            return false;
        }
        let s = self.all.strip_of(b.position.y, n) as u32;
        let x = b.position.x;
        // The strip's cells are sorted by x: the binary searches of `for_each_in` take
        // exactly those with `x.0 <= x <= x.1`.
        (w.strips.0..=w.strips.1).contains(&s) && !(x < w.x.0) && x <= w.x.1
    }

    /// Whether [`Self::in_window`] tells exactly what [`Self::for_each_near`] visits: no
    /// anchor's x is NaN (which would break the x order the binary searches rely on).
    pub(super) fn exact_windows(&self) -> bool {
        self.all.cells.iter().all(|c| !c.0.is_nan())
    }

    /// Each entry's place in the order [`Self::for_each_near`] visits entries in (strip by
    /// strip, by x within each), by entry index, into `out`.
    pub(super) fn visit_ranks(&self, out: &mut Vec<u32>) {
        out.clear();
        out.resize(self.entries.len(), u32::MAX);
        for (k, &(_, i)) in self.all.cells.iter().enumerate() {
            if let Some(r) = out.get_mut(i as usize) {
                *r = k as u32;
            }
        }
    }

    /// Largest half-extent length among the roots (the farthest a root's body reaches from
    /// its anchor).
    pub(super) fn max_reach(&self) -> f32 {
        self.max_reach
    }

    /// Largest anchor speed among the roots.
    pub(super) fn max_speed(&self) -> f32 {
        self.max_speed
    }

    /// Calls `visit` with every other root in mover `a`'s `lane` ([`Lane::reaches`]).
    pub(super) fn for_each_in_way(
        &self,
        a: &RootEntry,
        lane: &Lane,
        mut visit: impl FnMut(&RootEntry),
    ) {
        let mut visit = |b: &RootEntry| {
            if b.id != a.id && lane.reaches(b) {
                visit(b);
            }
        };
        let classes = self.lane_classes();
        if classes.usable() {
            classes.for_each_class(|strips, reach| {
                let (x, y) = lane_box(a, lane, reach + LANE_MARGIN);
                strips.for_each_in(&self.entries, x, y, &mut visit);
            });
        } else {
            let (x, y) = lane_box(a, lane, self.max_reach + LANE_MARGIN);
            self.all.for_each_in(&self.entries, x, y, visit);
        }
    }
}

/// Whether root `e` is a single unit on the move, which no lane takes ([`Lane::reaches`]).
fn walks_alone(e: &RootEntry) -> bool {
    e.moving && e.single
}

/// The box (x and y ranges) round every anchor of a root whose circle, of radius at most
/// `grow` less the lane's margin, `lane` (mover `a`'s) reaches: the lane grown by `grow` is a
/// rectangle in the lane's frame, and this is its bounding box (padded for rounding).
fn lane_box(a: &RootEntry, lane: &Lane, grow: f32) -> ((f32, f32), (f32, f32)) {
    let half_length = 0.5 * (lane.ahead + lane.behind) + grow;
    let half_width = lane.half_width + grow;
    let centre = a.position + lane.forward * (0.5 * (lane.ahead - lane.behind));
    let (f, l) = (lane.forward.abs(), lane.left.abs());
    let pad = 1e-4 * (half_length + half_width + a.position.abs().element_sum()) + 1e-3;
    let ex = half_length * f.x + half_width * l.x + pad;
    let ey = half_length * f.y + half_width * l.y + pad;
    (
        (centre.x - ex, centre.x + ex),
        (centre.y - ey, centre.y + ey),
    )
}

/// The anchors [`RootIndex::for_each_near`] looks at for one query: an x range (bounds
/// included) and a range of strips of y.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    x: (f32, f32),
    strips: (u32, u32),
}

/// Sorts `entries` by (x, key): by insertion while that takes few moves (the order of the
/// last tick is almost right), by a full sort otherwise. The keys are unique, so either way
/// gives the same order.
fn sort_by_x(entries: &mut [RootEntry]) {
    let before =
        |a: &RootEntry, b: &RootEntry| a.position.x.total_cmp(&b.position.x).then(a.id.cmp(&b.id));
    let mut budget = 4 * entries.len() + 16;
    for i in 1..entries.len() {
        let mut j = i;
        while j > 0 && before(&entries[j], &entries[j - 1]).is_lt() {
            if budget == 0 {
                entries.sort_unstable_by(before);
                return;
            }
            budget -= 1;
            entries.swap(j, j - 1);
            j -= 1;
        }
    }
}

mod alike;
mod classes;
mod entry;
mod headings;
mod near;
mod strips;
#[cfg(test)]
mod tests;
