//! Formations meeting formations: making way and passing head-on.
//!
//! - **Make way.** A moving top-level formation (or a single unit in a formation of its own)
//!   needs a lane as wide as itself through any other top-level formation in its way. The
//!   members of the other formation whose slots lie in that lane, from a little behind the
//!   mover's rear to a few metres ahead of its front, have their slot targets moved aside,
//!   perpendicular to the mover's heading, to the nearer edge of the lane. Once the mover has
//!   passed, their slots are the pattern's again and the formation closes behind it. Nothing
//!   changes in the unit stage: members simply steer to the moved slots.
//! - **No head-on deadlock.** A moving top-level formation that sees another one coming the
//!   other way with overlapping lanes steers its anchor to its right, just enough for both to
//!   pass (each takes half, each to its own right), and rejoins its path afterwards.

use cohort_steering::Vec2;

use super::World;
use super::scratch::Scratch;
use crate::formation::{Formation, Member, Motion};
use crate::ids::FormationId;

/// How far ahead of a mover's front (metres, plus one second of travel) the lane opens.
const LANE_AHEAD: f32 = 3.0;
/// How far behind a mover's rear the lane stays open.
const LANE_BEHIND: f32 = 1.0;
/// Gap left between a mover's side and a member standing aside.
const LANE_MARGIN: f32 = 0.3;
/// Slowest anchor speed at which a formation counts as moving through others.
const MOVING_SPEED: f32 = 0.2;
/// Look-ahead (seconds of the two formations closing) within which an oncoming formation
/// is passed.
const PASS_HORIZON: f32 = 6.0;
/// Lateral room (metres) left between two formations passing each other.
const PASS_MARGIN: f32 = 1.0;
/// Time constant (seconds) of the anchor's sidestep to its right.
const PASS_TIME: f32 = 1.5;

impl World {
    /// Sets each moving top-level formation's sideways velocity for passing an oncoming one,
    /// before any anchor moves this tick: from the anchors as they stand and last tick's
    /// extents (the formation stage then limits it by the slowest member's speed).
    pub(super) fn plan_passing(&mut self) {
        let Self {
            formations,
            scratch,
            ..
        } = self;
        let index = &mut scratch.roots_index;
        index.build(&scratch.roots, formations);
        for a in &index.entries {
            let v = match Lane::of(a) {
                Some(lane) => {
                    // Bounds the distance to any formation passed (see `passing_velocity`).
                    let r = (lane.speed + index.max_speed) * PASS_HORIZON
                        + lane.behind
                        + lane.half_width
                        + 2.0 * index.max_reach
                        + LANE_BEHIND
                        + PASS_MARGIN;
                    passing_velocity(a, &lane, index, r)
                }
                None => Vec2::ZERO,
            };
            if let Some(f) = formations.get_mut(a.id) {
                f.pass_velocity = v;
            }
        }
    }

    /// Moves the slot targets of members standing in a moving formation's lane aside.
    pub(super) fn open_lanes(&mut self) {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        let Scratch {
            roots,
            roots_index: index,
            order,
            tallies,
            ..
        } = scratch;
        index.build(roots, formations);
        // Lanes open in the order of the movers' x (a member in two lanes is moved by both).
        for a in &index.entries {
            let Some(lane) = Lane::of(a) else {
                continue;
            };
            let reach = lane.ahead.max(lane.behind) + lane.half_width;
            // Every formation in the way within `ry` (|along| + |lat| of `Lane::reaches`).
            let rx = reach + index.max_reach + LANE_MARGIN;
            let ry = reach + 2.0 * (index.max_reach + LANE_MARGIN);
            index.for_each_near(a.position, rx, ry, |b| {
                if b.id == a.id || !lane.reaches(b) {
                    return;
                }
                // Every unit of b's subtree (a run of the order), skipping formations whose
                // units' targets all lie clear of the lane.
                let (start, end) = (b.span.0 as usize, b.span.1 as usize);
                let (Some(ids), Some(tallies)) =
                    (order.get(start..end), tallies.get_mut(start..end))
                else {
                    return;
                };
                for (&id, t) in ids.iter().zip(tallies) {
                    if !t.lane_moved && lane.misses(t.target_centre, t.target_reach) {
                        continue;
                    }
                    let Some(f) = formations.get(id) else {
                        continue;
                    };
                    for m in &f.members {
                        let Member::Unit(u) = *m else {
                            continue;
                        };
                        if let Some(unit) = units.get_mut(u) {
                            if let Some(t_pos) = unit.slot_target.as_mut().map(|t| &mut t.position)
                            {
                                let moved = lane.aside(*t_pos, unit.body.radius);
                                if moved != *t_pos {
                                    *t_pos = moved;
                                    t.lane_moved = true;
                                }
                            }
                        }
                    }
                }
            });
        }
    }
}

/// The lane a moving top-level formation needs, in its heading's frame.
struct Lane {
    origin: Vec2,
    forward: Vec2,
    left: Vec2,
    half_width: f32,
    behind: f32,
    ahead: f32,
    speed: f32,
}

impl Lane {
    fn of(f: &RootEntry) -> Option<Self> {
        if !f.moving {
            return None;
        }
        let speed = f.velocity.length();
        if !(speed > MOVING_SPEED) {
            return None;
        }
        let forward = f.velocity / speed;
        // The pattern's extents are in the anchor's frame; the heading may differ a little.
        Some(Self {
            origin: f.position,
            forward,
            left: forward.perp(),
            half_width: f.half_extent.y,
            behind: f.half_extent.x + LANE_BEHIND,
            ahead: f.half_extent.x + LANE_AHEAD + speed,
            speed,
        })
    }

    /// Whether formation `b` is in the lane's way: its bounding circle overlaps the lane,
    /// and it is not going the same way at a similar speed (following is not passing).
    fn reaches(&self, b: &RootEntry) -> bool {
        let r = b.half_extent.length() + LANE_MARGIN;
        let rel = b.position - self.origin;
        let along = rel.dot(self.forward);
        if along < -self.behind - r || along > self.ahead + r {
            return false;
        }
        if rel.dot(self.left).abs() > self.half_width + r {
            return false;
        }
        !b.moving || b.velocity.dot(self.forward) < 0.5 * self.speed
    }

    /// Whether no body whose position plus radius lies within `reach` of `centre` stands
    /// in the lane, so [`Self::aside`] leaves all of them where they are (with a centimetre
    /// to spare for rounding).
    fn misses(&self, centre: Vec2, reach: f32) -> bool {
        let reach = reach + 0.01;
        let rel = centre - self.origin;
        let along = rel.dot(self.forward);
        along < -self.behind - reach
            || along > self.ahead + reach
            || rel.dot(self.left).abs() >= self.half_width + reach + LANE_MARGIN
    }

    /// `p` moved sideways to the nearer edge of the lane if a body of `radius` there would
    /// stand in it; `p` itself otherwise.
    fn aside(&self, p: Vec2, radius: f32) -> Vec2 {
        let rel = p - self.origin;
        let along = rel.dot(self.forward);
        if along < -self.behind || along > self.ahead {
            return p;
        }
        let lat = rel.dot(self.left);
        let need = self.half_width + radius + LANE_MARGIN;
        if lat.abs() >= need {
            return p;
        }
        let side = if lat < 0.0 { -1.0 } else { 1.0 };
        p + self.left * (side * need - lat)
    }
}

/// The sideways velocity with which top-level formation `a` keeps right of oncoming ones.
/// Every formation it passes lies within `r` of it: `along` is at most the closing speed
/// (`lane.speed` plus the fastest root's) times the horizon plus both `behind`s, and `|lat|`
/// at most both half-widths plus the margin.
fn passing_velocity(a: &RootEntry, lane: &Lane, index: &RootIndex, r: f32) -> Vec2 {
    let mut shift: f32 = 0.0;
    index.for_each_near(a.position, r, r, |b| {
        if b.id == a.id || !b.moving {
            return;
        }
        let rel = b.position - a.position;
        if rel.dot(lane.forward) <= 0.0 || b.velocity.dot(lane.forward) >= 0.0 {
            return;
        }
        let Some(other) = Lane::of(b) else {
            return;
        };
        if lane.forward.dot(other.forward) > -0.5 {
            return;
        }
        let along = rel.dot(lane.forward);
        let closing = (a.velocity - b.velocity).dot(lane.forward);
        let horizon = closing.max(0.0) * PASS_HORIZON + lane.behind + other.behind;
        if along <= 0.0 || along > horizon {
            return;
        }
        // b's offset to a's left; both keep right, so each needs half the missing room.
        let lat = rel.dot(lane.left);
        let need = lane.half_width + other.half_width + PASS_MARGIN;
        if lat.abs() < need {
            shift = shift.max(0.5 * (need - lat));
        }
    });
    if shift <= 0.0 {
        return Vec2::ZERO;
    }
    // Limited to half the slowest member's speed once the formation stage has tallied it.
    -lane.left * (shift / PASS_TIME)
}

type Formations = slotmap::SlotMap<FormationId, Formation>;

/// Height (metres) of the strips of y the top-level formations are bucketed in.
const STRIP_HEIGHT: f32 = 8.0;

/// A top-level formation as make way sees it (copied once per use, so the comparisons between
/// formations read a dense array instead of the formations' slot map).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootEntry {
    id: FormationId,
    /// The run of `scratch.order` its subtree fills.
    span: (u32, u32),
    position: Vec2,
    velocity: Vec2,
    half_extent: Vec2,
    moving: bool,
}

/// The top-level formations sorted by anchor x (ties by key, so the order is deterministic),
/// and bucketed in strips of y, by x within each strip: a query looks at the strips its
/// y-range covers and, in each, at the x-range only, so the comparisons between formations
/// grow with their density, not with the square of their number.
#[derive(Clone, Debug, Default)]
pub(crate) struct RootIndex {
    entries: Vec<RootEntry>,
    /// `(anchor x, index into entries)`, strip by strip.
    cells: Vec<(f32, u32)>,
    /// Strip `s` holds `cells[starts[s]..starts[s + 1]]`.
    starts: Vec<u32>,
    y0: f32,
    strip: f32,
    /// Largest half-extent length among the roots.
    max_reach: f32,
    /// Largest anchor speed among the roots.
    max_speed: f32,
}

impl RootIndex {
    /// Rebuilds the index from `roots` (allocates nothing once its buffers are as large as
    /// the number of roots).
    fn build(&mut self, roots: &[(FormationId, u32, u32)], formations: &Formations) {
        self.entries.clear();
        let (mut reach, mut speed) = (0.0f32, 0.0f32);
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for &(id, start, end) in roots {
            let Some(f) = formations.get(id) else {
                continue;
            };
            reach = reach.max(f.half_extent.length());
            speed = speed.max(f.anchor.velocity.length());
            let y = f.anchor.position.y;
            if y.is_finite() {
                lo = lo.min(y);
                hi = hi.max(y);
            }
            self.entries.push(RootEntry {
                id,
                span: (start, end),
                position: f.anchor.position,
                velocity: f.anchor.velocity,
                half_extent: f.half_extent,
                moving: f.motion == Motion::Moving,
            });
        }
        self.max_reach = reach;
        self.max_speed = speed;
        self.entries
            .sort_unstable_by(|a, b| a.position.x.total_cmp(&b.position.x).then(a.id.cmp(&b.id)));
        // At most one strip per root, so the buffers stay as large as the roots.
        let cap = self.entries.len().max(1);
        let span = if hi >= lo { hi - lo } else { 0.0 };
        self.y0 = if lo.is_finite() { lo } else { 0.0 };
        self.strip = STRIP_HEIGHT.max(span / cap as f32);
        let n = ((span / self.strip) as usize).saturating_add(1).min(cap);
        self.starts.clear();
        self.starts.resize(n + 1, 0);
        for e in &self.entries {
            let s = self.strip_of(e.position.y, n);
            self.starts[s + 1] += 1;
        }
        for s in 0..n {
            self.starts[s + 1] += self.starts[s];
        }
        // Counting sort by strip, stable, so each strip stays sorted by x; `starts[s]` is
        // strip s's cursor and ends as strip s + 1's start.
        self.cells.clear();
        self.cells.resize(self.entries.len(), (0.0, 0));
        for (i, e) in self.entries.iter().enumerate() {
            let s = self.strip_of(e.position.y, n);
            let at = self.starts[s] as usize;
            self.cells[at] = (e.position.x, i as u32);
            self.starts[s] += 1;
        }
        for s in (1..n).rev() {
            self.starts[s] = self.starts[s - 1];
        }
        self.starts[0] = 0;
    }

    /// The strip of `y` among `n` strips (the first for NaN, clamped to the last).
    fn strip_of(&self, y: f32, n: usize) -> usize {
        let t = (y - self.y0) / self.strip;
        // `as` saturates: negative and NaN give 0.
        (t as usize).min(n.saturating_sub(1))
    }

    /// Calls `visit` with every root whose anchor lies within `rx` of `at` in x and in a
    /// strip that meets `at.y ± ry` (so at least every root within `ry` in y).
    fn for_each_near(&self, at: Vec2, rx: f32, ry: f32, mut visit: impl FnMut(&RootEntry)) {
        let n = self.starts.len().saturating_sub(1);
        if n == 0 {
            return;
        }
        let first = self.strip_of(at.y - ry, n);
        let last = self.strip_of(at.y + ry, n);
        for s in first..=last {
            let strip = &self.cells[self.starts[s] as usize..self.starts[s + 1] as usize];
            let lo = strip.partition_point(|c| c.0 < at.x - rx);
            let hi = strip.partition_point(|c| c.0 <= at.x + rx).max(lo);
            for &(_, i) in &strip[lo..hi] {
                if let Some(e) = self.entries.get(i as usize) {
                    visit(e);
                }
            }
        }
    }
}
