//! Anchor motion: the pseudo-character (or centre of mass, or leader) moves along its path,
//! child formations' anchors follow their parent's slot, and members get their slot targets.

use cohort_steering::{Vec2, ops, truncate};

use super::World;
use super::single_walk::walk_single;
use crate::anchor::{AnchorMode, drift_corrected_anchor, lag_speed_factor, moving_anchor};
use crate::formation::{Formation, Member, Motion, SlotTarget};
use crate::ids::FormationId;

/// Time constant (seconds) with which an anchor arrives at its goal or its parent's slot.
const ANCHOR_ARRIVE_TIME: f32 = 1.0;

/// How far (in its radii) a standing single's unit must be pushed from both its spot and its
/// slot target (which a lane may have moved aside) before it walks back as to a goal.
const PUSHED_FAR_RADII: f32 = 3.0;

/// Seconds a standing single's unit is held far from its spot before it walks back.
const HELD_AWAY_SECONDS: f32 = 1.0;

/// A standing single's unit making its way back to its spot slower than this fraction of its
/// top speed is held where it was pushed.
const HELD_SPEED_FRACTION: f32 = 0.25;

/// A child anchor this close to its still parent's slot (and slower than [`SETTLE_SPEED`])
/// settles exactly on it.
const SETTLE_DISTANCE: f32 = 0.02;

/// Speed below which a child anchor near its still parent's slot settles.
const SETTLE_SPEED: f32 = 0.05;

impl World {
    /// The mean lag of formation `id`'s unit members, `lag` as tallied, leaving out the
    /// members whose slot target lies in an obstacle (a wide pattern beside a block, or past
    /// the map's edge): they cannot reach it, and counting them would slow the anchor to a
    /// stop, holding the whole formation (and whoever gives way to it) where it is. With no
    /// member able to reach its slot it counts as not lagging: the leash still holds the
    /// anchor to its members. Looked at only when the formation lags more than its tolerance
    /// (one geometry test per member then).
    fn lag_of_reachable(&self, id: FormationId, lag: f32) -> f32 {
        let Some(f) = self.formations.get(id) else {
            return lag;
        };
        if !(lag > f.settings.lag_tolerance) || f.motion != Motion::Moving {
            return lag;
        }
        let map = self.terrain.valid_map();
        let (mut sum, mut count) = (0.0f32, 0usize);
        for m in &f.members {
            let Member::Unit(u) = *m else {
                return lag;
            };
            let Some(unit) = self.units.get(u) else {
                continue;
            };
            let Some(t) = unit.slot_target else {
                continue;
            };
            if map.is_blocked(t.position, unit.body.radius) {
                continue;
            }
            sum += (t.position - unit.body.position).length();
            count += 1;
        }
        if count > 0 { sum / count as f32 } else { 0.0 }
    }

    /// Moves formation `id`'s anchor one tick; `stats` are what the stage's member tallies
    /// found of its members.
    pub(super) fn move_anchor(
        &mut self,
        id: FormationId,
        stats: super::tally::MemberStats,
        dt: f32,
    ) {
        let (p_c, v_c, lag) = (stats.centre, stats.velocity, stats.lag);
        let lag = self.lag_of_reachable(id, lag);
        let leader = self.leader_of(id);
        // A single that lost sight of its path, and where it stands.
        let mut lost = None;
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        f.mean_lag = lag;
        let reach = slot_reach(f);
        // Slots must never outrun the members: limit the turn rate by the pattern's size.
        let turn_rate = if reach > 0.0 {
            f.settings
                .turn_rate
                .min(0.5 * f.slowest_speed / reach.max(1.0))
        } else {
            f.settings.turn_rate
        };
        if let Some(target) = f.target {
            follow_parent_slot(f, target, turn_rate, dt);
            return;
        }
        match f.motion {
            Motion::Holding if f.is_single() && f.settings.anchor_mode != AnchorMode::Leader => {
                // A unit standing on its own, pushed far from its spot by a crowd and held
                // there (not on its way back), walks back to it as to a goal (with a lane,
                // which standing units step out of) instead of pressing into the crowd from
                // where it was left.
                let radius = f.half_extent.y.max(0.0);
                let unit = match f.members.as_slice() {
                    [Member::Unit(u)] => self.units.get(*u),
                    _ => None,
                };
                let target = unit.and_then(|u| u.slot_target.map(|t| (t, u.body)));
                if let (Some(at), Some((t, body))) = (p_c, target) {
                    let far = PUSHED_FAR_RADII * radius.max(0.1);
                    let home = (f.anchor.position - at).normalize_or_zero();
                    let held = body.velocity.dot(home) < HELD_SPEED_FRACTION * body.max_speed;
                    let away = held
                        && (at - t.position).length() > far
                        && (at - f.anchor.position).length() > far;
                    f.held_away = if away { f.held_away + dt } else { 0.0 };
                    if f.held_away >= HELD_AWAY_SECONDS {
                        f.held_away = 0.0;
                        let spot = f.anchor.position;
                        f.path.clear();
                        f.path.extend_from_slice(&[at, spot]);
                        f.path_clearance.clear();
                        f.path_clearance.push(radius);
                        f.path_index = 1;
                        f.goal = Some(spot);
                        f.motion = Motion::Moving;
                        f.delay = 0.0;
                        lost = Some(at);
                    }
                }
                f.anchor.velocity = Vec2::ZERO;
            }
            Motion::Holding => {
                let slots = f.slots.iter().map(|s| (s.offset, s.facing));
                if let Some(a) = drift_corrected_anchor(&f.anchor, slots) {
                    // Keep the orientation when the slots average to it (no spin).
                    f.anchor.position = a.position;
                }
                f.anchor.velocity = Vec2::ZERO;
            }
            Motion::Turning => {
                let want = f.goal_facing.unwrap_or(f.anchor.orientation);
                f.anchor.orientation = turn_towards(f.anchor.orientation, want, turn_rate * dt);
                if f.anchor.orientation.dot(want) > 0.99995 {
                    f.anchor.orientation = want;
                    f.motion = Motion::Holding;
                }
            }
            Motion::Loose => {
                if lag < f.settings.lag_tolerance.min(0.5) {
                    f.motion = Motion::Holding;
                }
            }
            Motion::Moving if f.is_single() && f.settings.anchor_mode != AnchorMode::Leader => {
                if let Some(pc) = p_c {
                    let small = self.settings.small_obstacle_radius;
                    let nav = self
                        .formation_nav
                        .terrain(self.terrain.map(), small)
                        .unwrap_or(&self.terrain);
                    lost = walk_single(f, pc, nav, turn_rate, dt).then_some(pc);
                }
            }
            Motion::Moving => {
                let base = f.slowest_speed
                    * if f.settings.fixed_half_speed {
                        0.5
                    } else if f.hurried || f.delay > 0.0 {
                        // Others give way to it: it clears their way at its top speed. Or it
                        // gave way to others: it makes up the time it lost.
                        1.0
                    } else {
                        f.cruise_fraction()
                    };
                let factor = if f.settings.fixed_half_speed {
                    1.0
                } else {
                    lag_speed_factor(
                        lag,
                        f.settings.lag_tolerance
                            + if f.in_column {
                                COLUMN_LAG_TOLERANCE
                            } else {
                                0.0
                            },
                        f.settings.lag_range,
                        f.settings.min_speed_factor,
                    )
                };
                // Ease the factor so the anchor does not jerk.
                f.speed_factor += (factor - f.speed_factor) * (2.0 * dt).min(1.0);
                let cruise = base * f.speed_factor;
                // Queueing behind a formation ahead (see `make_way/following.rs`).
                let cruise = f.follow_speed.map_or(cruise, |v| cruise.min(v));
                let accel = (0.5 * f.weakest_accel).max(0.1);
                if f.settings.anchor_mode == AnchorMode::CentreOfMass {
                    if let Some((pc, vc)) = p_c.zip(v_c) {
                        f.anchor.position = moving_anchor(pc, vc, f.settings.k_offset);
                    }
                }
                let (desired, last, dist) = path_velocity(f, cruise);
                // Keeping right of an oncoming formation (zero otherwise).
                let desired = truncate(desired + f.pass_velocity, cruise.max(desired.length()));
                f.anchor.velocity += truncate(desired - f.anchor.velocity, accel * dt);
                let before = f.anchor.position;
                let mut next = f.anchor.position + f.anchor.velocity * dt;
                if f.settings.anchor_mode == AnchorMode::PseudoCharacter {
                    let centre = lead_centre(f.anchor.position, p_c, stats.behind);
                    if let Some((pc, vc)) = centre.zip(v_c) {
                        let held = moving_anchor(pc, vc, f.settings.k_offset);
                        next = leashed(
                            f.anchor.position,
                            next,
                            f.anchor.velocity,
                            held,
                            f.settings.leash,
                        );
                    }
                }
                f.anchor.position = next;
                // Time lost giving way is counted, and paid back while it walks faster than
                // its cruise.
                let nominal = f.slowest_speed * f.cruise_fraction();
                let speed = (next - before).length() / dt.max(1e-6);
                f.delay = if f.give_way.is_some() {
                    f.delay + (nominal - speed).max(0.0) * dt
                } else {
                    (f.delay - (speed - nominal).max(0.0) * dt).max(0.0)
                };
                // It faces its way along the path, not its sidestep: a column many ranks deep
                // turned by a sidestep would sweep its rear across the passage.
                let along = f.anchor.velocity - f.pass_velocity;
                if let Some(dir) = along.try_normalize() {
                    if along.length() > 0.05 * base.max(0.01) {
                        f.anchor.orientation =
                            turn_towards(f.anchor.orientation, dir, turn_rate * dt);
                    }
                }
                arrive_if_there(f, last, dist);
            }
        }
        if f.settings.anchor_mode == AnchorMode::Leader {
            if let Some((pos, heading, offset)) = leader {
                // Everybody keeps station on the leader: the anchor is where the leader's slot
                // offset says it must be.
                if f.motion == Motion::Moving {
                    f.anchor.orientation = heading;
                    f.anchor.position = pos - heading.rotate(offset);
                }
            }
        }
        if let Some(at) = lost {
            self.replan_single(id, at, turn_rate, dt);
        }
    }

    /// The leader unit of a leader-anchored formation: its position, heading and slot offset.
    fn leader_of(&self, id: FormationId) -> Option<(Vec2, Vec2, Vec2)> {
        let f = self.formations.get(id)?;
        if f.settings.anchor_mode != AnchorMode::Leader {
            return None;
        }
        let i = f
            .members
            .iter()
            .position(|m| matches!(m, Member::Unit(_)))?;
        let Member::Unit(u) = f.members[i] else {
            return None;
        };
        let u = self.units.get(u)?;
        Some((u.body.position, u.body.heading, f.slots.get(i)?.offset))
    }

    /// Writes each member's slot target: units get `slot_target`, child formations `target`;
    /// records in `scratch.tallies[k]` the circle the units' targets lie in (for make way).
    /// Units take `group` (their top-level formation's place among the roots) as their
    /// avoidance group.
    pub(super) fn write_slot_targets(&mut self, id: FormationId, k: usize, group: u32) {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        let Some(f) = formations.get(id) else {
            return;
        };
        let anchor = f.anchor;
        // Closed up into ranks on the move, each rank stands on the path.
        let frame = super::ranks_along::SlotFrame::of(f);
        let leader_mode =
            f.settings.anchor_mode == AnchorMode::Leader && f.motion == Motion::Moving;
        let carrot = if leader_mode { leader_carrot(f) } else { None };
        // Members beyond the slots (none once assigned) keep old targets: no bound then.
        let mut reach: f32 = if f.members.len() > f.slots.len() {
            f32::INFINITY
        } else {
            0.0
        };
        // Units are written at once; child formations after the walk (the walk borrows the
        // formations).
        let targets = &mut scratch.targets;
        targets.clear();
        let mut leader_seen = false;
        for (m, slot) in f.members.iter().zip(&f.slots) {
            let (position, velocity, facing) = frame.place(slot.offset, slot.facing);
            let mut target = SlotTarget {
                position,
                velocity,
                facing,
            };
            if let (true, false, Some(c), Member::Unit(_)) = (leader_mode, leader_seen, carrot, m) {
                target = c;
            }
            match *m {
                Member::Unit(u) => {
                    leader_seen = true;
                    if let Some(u) = units.get_mut(u) {
                        u.slot_target = Some(target);
                        u.group = group;
                        let r = (target.position - anchor.position).length() + u.body.radius;
                        reach = reach.max(r);
                    }
                }
                Member::Formation(_) => targets.push((*m, target)),
            }
        }
        for &(m, target) in targets.iter() {
            if let Member::Formation(c) = m {
                if let Some(c) = formations.get_mut(c) {
                    c.target = Some(target);
                }
            }
        }
        if let Some(t) = scratch.tallies.get_mut(k) {
            t.target_centre = anchor.position;
            t.target_reach = reach;
        }
    }
}

/// Largest distance of a slot from the anchor.
fn slot_reach(f: &Formation) -> f32 {
    f.slots
        .iter()
        .map(|s| s.offset.length())
        .fold(0.0, f32::max)
}

/// Desired anchor velocity along the path at `cruise` speed, advancing the waypoint index:
/// `(velocity, heading for the last point, distance to the current point)`.
pub(super) fn path_velocity(f: &mut Formation, cruise: f32) -> (Vec2, bool, f32) {
    if f.path.is_empty() {
        return (Vec2::ZERO, true, 0.0);
    }
    let advance = (0.5 * cruise).max(0.75);
    while f.path_index + 1 < f.path.len()
        && (f.path[f.path_index] - f.anchor.position).length() < advance
    {
        f.path_index += 1;
    }
    let idx = f.path_index.min(f.path.len() - 1);
    let last = idx + 1 == f.path.len();
    let to = f.path[idx] - f.anchor.position;
    let dist = to.length();
    let speed = if last {
        cruise.min(dist / ANCHOR_ARRIVE_TIME)
    } else {
        cruise
    };
    (to.normalize_or_zero() * speed, last, dist)
}

/// Ends a move whose anchor is `dist` from its current path point when that is the `last` one
/// and within the arrival radius: the anchor stands on the goal and the formation turns to
/// the facing asked for, or holds.
pub(super) fn arrive_if_there(f: &mut Formation, last: bool, dist: f32) {
    if !(last && dist < f.settings.arrival_radius.max(0.05)) {
        return;
    }
    if let Some(g) = f.goal {
        f.anchor.position = g;
    }
    f.anchor.velocity = Vec2::ZERO;
    f.delay = 0.0;
    f.path_index = f.path.len().saturating_sub(1);
    f.motion = if f.goal_facing.is_some() {
        Motion::Turning
    } else {
        Motion::Holding
    };
}

/// The leader's own target in leader mode: a point ahead on the path.
fn leader_carrot(f: &Formation) -> Option<SlotTarget> {
    let idx = f.path_index.min(f.path.len().checked_sub(1)?);
    let p = f.path[idx];
    let dir = (p - f.anchor.position)
        .try_normalize()
        .unwrap_or(f.anchor.orientation);
    Some(SlotTarget {
        position: p,
        velocity: dir * f.anchor.velocity.length(),
        facing: dir,
    })
}

/// A child formation's anchor arrives at its slot in the parent, matching its velocity.
fn follow_parent_slot(f: &mut Formation, target: SlotTarget, turn_rate: f32, dt: f32) {
    let to = target.position - f.anchor.position;
    let speed_cap = f.slowest_speed.max(0.01);
    let desired = truncate(target.velocity + to / ANCHOR_ARRIVE_TIME, speed_cap);
    let accel = f.weakest_accel.max(0.1);
    f.anchor.velocity += truncate(desired - f.anchor.velocity, accel * dt);
    f.anchor.position += f.anchor.velocity * dt;
    f.anchor.orientation = turn_towards(f.anchor.orientation, target.facing, turn_rate * dt);
    let parent_still = target.velocity.length_squared() == 0.0;
    // The arrive converges only asymptotically: once close and slow, settle exactly on the
    // slot so the velocity handed down to this formation's members is exactly zero.
    if parent_still
        && (target.position - f.anchor.position).length_squared()
            < SETTLE_DISTANCE * SETTLE_DISTANCE
        && f.anchor.velocity.length_squared() < SETTLE_SPEED * SETTLE_SPEED
    {
        f.anchor.position = target.position;
        f.anchor.velocity = Vec2::ZERO;
    }
    f.motion = if parent_still {
        Motion::Holding
    } else {
        Motion::Moving
    };
}

/// Rotates unit vector `from` toward unit vector `to` by at most `max_angle` radians.
pub(crate) fn turn_towards(from: Vec2, to: Vec2, max_angle: f32) -> Vec2 {
    let angle = ops::angle_between(from, to);
    if !angle.is_finite() || angle.abs() <= max_angle.max(0.0) {
        return to.try_normalize().unwrap_or(from);
    }
    let step = max_angle.max(0.0).copysign(angle);
    from.rotate(ops::from_angle(step))
        .try_normalize()
        .unwrap_or(from)
}

/// Metres of lag a formation closed up into ranks (`Formation::in_column`: for a passage, or
/// to pass an oncoming formation in one) tolerates beyond its `lag_tolerance` before it
/// slows: its rear ranks file in through the passage's mouth after its front ranks, and a
/// column that slowed for them would hold the passage longer (those waiting their turn
/// behind it wait that much longer).
const COLUMN_LAG_TOLERANCE: f32 = 2.0;

/// The centre of a formation's members as its leash measures it: where their centre would be
/// if their slot targets were laid around it as they are around the `anchor`, that is the
/// anchor less `behind`, their mean lag vector (slot target less position); their plain
/// centre `p_c` when none has a slot target. The plain centre lies off the anchor whenever the
/// slot targets do not average to it (targets moved out of a lane or off a wall, stand-ins
/// along a wall the formation follows), and a leash on it would hold the anchor back for good
/// by that offset while the members stand on their slots.
fn lead_centre(anchor: Vec2, p_c: Option<Vec2>, behind: Option<Vec2>) -> Option<Vec2> {
    match behind {
        Some(behind) => Some(anchor - behind),
        None => p_c,
    }
}

/// Where an anchor at `anchor` moving at `velocity` goes instead of `next` so as to lead
/// `held` (its members' centre pushed on by their velocity) by at most `leash` along its way:
/// pulled back to the leash's length, but never backwards (it then stays).
fn leashed(anchor: Vec2, next: Vec2, velocity: Vec2, held: Vec2, leash: f32) -> Vec2 {
    let lead = next - held;
    if lead.length() > leash && lead.dot(velocity) > 0.0 {
        let pulled = held + lead.clamp_length_max(leash);
        // Keep the anchor from jumping backwards.
        if (pulled - anchor).dot(velocity) < 0.0 {
            return anchor;
        }
        return pulled;
    }
    next
}

#[cfg(test)]
mod tests;
