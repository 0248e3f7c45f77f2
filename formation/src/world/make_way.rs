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

use cohort_steering::{Vec2, truncate};

use super::World;
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
    /// Half depth and half width of every formation, radii included, bottom-up (formations
    /// are in `scratch.order` top-down).
    pub(super) fn collect_extents(&mut self) {
        for i in (0..self.scratch.order.len()).rev() {
            let id = self.scratch.order[i];
            let Some(f) = self.formations.get(id) else {
                continue;
            };
            let mut ext = Vec2::ZERO;
            for (m, slot) in f.members.iter().zip(&f.slots) {
                let reach = match *m {
                    Member::Unit(u) => self.units.get(u).map_or(0.0, |u| u.body.radius),
                    Member::Formation(c) => self
                        .formations
                        .get(c)
                        .map_or(0.0, |c| c.half_extent.max_element()),
                };
                ext = ext.max(slot.offset.abs() + Vec2::splat(reach));
            }
            if let Some(f) = self.formations.get_mut(id) {
                f.half_extent = ext;
            }
        }
    }

    /// Sets each moving top-level formation's sideways velocity for passing an oncoming one.
    pub(super) fn plan_passing(&mut self) {
        let Self {
            formations,
            scratch,
            ..
        } = self;
        // The top-level formations by x (the stack is free until the formation loop).
        let roots = &mut scratch.stack;
        let (max_reach, max_speed) = sorted_roots(formations, roots);
        for k in 0..roots.len() {
            let id = roots[k];
            let Some(a) = formations.get(id) else {
                continue;
            };
            let v = match Lane::of(a) {
                Some(lane) => {
                    let r = (lane.speed + max_speed) * PASS_HORIZON
                        + lane.behind
                        + lane.half_width
                        + 2.0 * max_reach
                        + LANE_BEHIND
                        + PASS_MARGIN;
                    let near = x_range(roots, formations, a.anchor.position.x, r);
                    passing_velocity(id, a, &lane, &roots[near], formations)
                }
                None => Vec2::ZERO,
            };
            if let Some(f) = formations.get_mut(id) {
                f.pass_velocity = v;
            }
        }
        roots.clear();
    }

    /// Moves the slot targets of members standing in a moving formation's lane aside.
    pub(super) fn open_lanes(&mut self) {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        // The top-level formations by x (the order list is free after the formation loop).
        let roots = &mut scratch.order;
        let (max_reach, _) = sorted_roots(formations, roots);
        for &a_id in roots.iter() {
            let Some(lane) = formations.get(a_id).and_then(Lane::of) else {
                continue;
            };
            let r = lane.ahead.max(lane.behind) + lane.half_width + max_reach + LANE_MARGIN;
            let near = x_range(roots, formations, lane.origin.x, r);
            for &b_id in &roots[near] {
                let Some(b) = formations.get(b_id) else {
                    continue;
                };
                if b_id == a_id || !lane.reaches(b) {
                    continue;
                }
                // Every unit of b's subtree.
                let stack = &mut scratch.stack;
                stack.clear();
                stack.push(b_id);
                while let Some(top) = stack.pop() {
                    let Some(f) = formations.get(top) else {
                        continue;
                    };
                    for m in &f.members {
                        match *m {
                            Member::Formation(c) => stack.push(c),
                            Member::Unit(u) => {
                                if let Some(unit) = units.get_mut(u) {
                                    if let Some(t) = unit.slot_target.as_mut() {
                                        t.position = lane.aside(t.position, unit.body.radius);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        roots.clear();
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
    fn of(f: &Formation) -> Option<Self> {
        if f.parent.is_some() || f.motion != Motion::Moving {
            return None;
        }
        let speed = f.anchor.velocity.length();
        if !(speed > MOVING_SPEED) {
            return None;
        }
        let forward = f.anchor.velocity / speed;
        // The pattern's extents are in the anchor's frame; the heading may differ a little.
        Some(Self {
            origin: f.anchor.position,
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
    fn reaches(&self, b: &Formation) -> bool {
        let r = b.half_extent.length() + LANE_MARGIN;
        let rel = b.anchor.position - self.origin;
        let along = rel.dot(self.forward);
        if along < -self.behind - r || along > self.ahead + r {
            return false;
        }
        if rel.dot(self.left).abs() > self.half_width + r {
            return false;
        }
        b.motion != Motion::Moving || b.anchor.velocity.dot(self.forward) < 0.5 * self.speed
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
fn passing_velocity(
    a_id: FormationId,
    a: &Formation,
    lane: &Lane,
    roots: &[FormationId],
    formations: &Formations,
) -> Vec2 {
    let mut shift: f32 = 0.0;
    for &b_id in roots {
        let Some(b) = formations.get(b_id) else {
            continue;
        };
        if b_id == a_id || b.motion != Motion::Moving {
            continue;
        }
        let rel = b.anchor.position - a.anchor.position;
        if rel.dot(lane.forward) <= 0.0 || b.anchor.velocity.dot(lane.forward) >= 0.0 {
            continue;
        }
        let Some(other) = Lane::of(b) else {
            continue;
        };
        if lane.forward.dot(other.forward) > -0.5 {
            continue;
        }
        let along = rel.dot(lane.forward);
        let closing = (a.anchor.velocity - b.anchor.velocity).dot(lane.forward);
        let horizon = closing.max(0.0) * PASS_HORIZON + lane.behind + other.behind;
        if along <= 0.0 || along > horizon {
            continue;
        }
        // b's offset to a's left; both keep right, so each needs half the missing room.
        let lat = rel.dot(lane.left);
        let need = lane.half_width + other.half_width + PASS_MARGIN;
        if lat.abs() < need {
            shift = shift.max(0.5 * (need - lat));
        }
    }
    if shift <= 0.0 {
        return Vec2::ZERO;
    }
    truncate(-lane.left * (shift / PASS_TIME), 0.5 * a.slowest_speed)
}

type Formations = slotmap::SlotMap<FormationId, Formation>;

/// Fills `out` with the top-level formations sorted by anchor x (ties by key, so the order is
/// deterministic); returns the largest half-extent length and the largest anchor speed among
/// them.
fn sorted_roots(formations: &Formations, out: &mut Vec<FormationId>) -> (f32, f32) {
    out.clear();
    let (mut reach, mut speed) = (0.0f32, 0.0f32);
    for (id, f) in formations.iter() {
        if f.parent.is_none() {
            out.push(id);
            reach = reach.max(f.half_extent.length());
            speed = speed.max(f.anchor.velocity.length());
        }
    }
    let x = |id: &FormationId| formations.get(*id).map_or(0.0, |f| f.anchor.position.x);
    out.sort_unstable_by(|a, b| x(a).total_cmp(&x(b)).then(a.cmp(b)));
    (reach, speed)
}

/// The index range of `sorted` (by anchor x) whose anchors lie within `r` of `x` in x.
fn x_range(
    sorted: &[FormationId],
    formations: &Formations,
    x: f32,
    r: f32,
) -> std::ops::Range<usize> {
    let at = |id: &FormationId| formations.get(*id).map_or(0.0, |f| f.anchor.position.x);
    let lo = sorted.partition_point(|id| at(id) < x - r);
    let hi = sorted.partition_point(|id| at(id) <= x + r);
    lo..hi.max(lo)
}
