//! The formation stage of a tick: orders, anchors on paths, slot targets top-down.

use cohort_steering::{Vec2, ops, truncate};

use super::{World, member_position};
use crate::anchor::{AnchorMode, drift_corrected_anchor, lag_speed_factor, moving_anchor};
use crate::assignment::{AssignmentConfig, Located, SlotAssignment};
use crate::formation::{Formation, Member, Motion, SlotTarget};
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::Role;

/// Time constant (seconds) with which an anchor arrives at its goal or its parent's slot.
const ANCHOR_ARRIVE_TIME: f32 = 1.0;

impl World {
    /// Stage 1: orders queued since the last tick take effect, in the order they were given.
    pub fn apply_orders(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        for (id, order) in pending.drain(..) {
            self.apply_order(id, order);
        }
        self.pending = pending;
    }

    fn apply_order(&mut self, id: FormationId, order: Order) {
        // An order to a child formation detaches it: it acts on its own from now on.
        if self.formations.get(id).is_some_and(|f| f.parent.is_some()) {
            self.remove_member(Member::Formation(id));
        }
        // Every order interrupts a running play or overwatch; tactical orders start one.
        let Some(order) = self.route_tactical_order(id, order) else {
            return;
        };
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        match order {
            Order::MoveTo {
                goal,
                facing,
                pattern,
                at_slowest,
            } => {
                if let Some(p) = pattern.and_then(|p| p.validate().ok()) {
                    f.base_pattern = p.clone();
                    f.pattern = p;
                    f.in_column = false;
                    f.needs_assignment = true;
                }
                f.goal_facing = facing.and_then(|v| v.try_normalize());
                if at_slowest {
                    self.plan_move(id, goal);
                } else {
                    let from = f.anchor.position;
                    let dir = f
                        .goal_facing
                        .or_else(|| (goal - from).try_normalize())
                        .unwrap_or(f.anchor.orientation);
                    f.anchor.position = goal;
                    f.anchor.velocity = Vec2::ZERO;
                    f.anchor.orientation = dir;
                    f.goal = Some(goal);
                    f.path.clear();
                    f.path_clearance.clear();
                    f.motion = Motion::Loose;
                    f.needs_assignment = true;
                }
            }
            Order::ChangePattern(p) => {
                if let Ok(p) = p.validate() {
                    f.base_pattern = p.clone();
                    f.pattern = p;
                    f.in_column = false;
                    f.needs_assignment = true;
                }
            }
            Order::Face(dir) => {
                f.goal_facing = dir.try_normalize();
                if f.motion == Motion::Holding {
                    f.motion = Motion::Turning;
                }
            }
            // Started by `route_tactical_order` above; never reach here.
            Order::RunPlay { .. } | Order::BoundingOverwatch { .. } => {}
            Order::Halt | Order::Cancel => {
                let centre = self.members_centre(id);
                if let Some(f) = self.formations.get_mut(id) {
                    if f.motion != Motion::Holding {
                        if let Some(c) = centre {
                            f.anchor.position = c;
                        }
                    }
                    f.anchor.velocity = Vec2::ZERO;
                    f.motion = Motion::Holding;
                    f.path.clear();
                    f.path_clearance.clear();
                    f.goal = None;
                }
            }
        }
    }

    /// Plans the anchor's path to `goal` with the clearance its pattern needs and starts moving.
    pub(crate) fn plan_move(&mut self, id: FormationId, goal: Vec2) {
        let Some(f) = self.formations.get(id) else {
            return;
        };
        let n = f.members.len().max(1);
        let half_width = 0.5 * f.base_pattern.width(n);
        let unit_radius = self.largest_radius(id);
        let from = f.anchor.position;
        let plan =
            self.terrain
                .plan_path(from, goal, half_width, unit_radius, &mut self.scratch.path);
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        f.path.clear();
        f.path_clearance.clear();
        f.path.extend_from_slice(&plan.points);
        f.path_clearance.extend_from_slice(&plan.clearance);
        narrow_stretches(
            |p, cap| self.terrain.valid_map().clearance_capped(p, cap),
            &f.path,
            half_width,
            &mut f.narrows,
        );
        f.path_index = 1.min(f.path.len().saturating_sub(1));
        f.goal = f.path.last().copied().or(Some(goal));
        f.motion = Motion::Moving;
        f.speed_factor = f.speed_factor.clamp(0.0, 1.0);
    }

    fn largest_radius(&self, id: FormationId) -> f32 {
        let mut r: f32 = 0.0;
        if let Some(f) = self.formations.get(id) {
            for m in &f.members {
                match *m {
                    Member::Unit(u) => {
                        if let Some(u) = self.units.get(u) {
                            r = r.max(u.body.radius);
                        }
                    }
                    Member::Formation(c) => r = r.max(self.largest_radius(c)),
                }
            }
        }
        if r > 0.0 { r } else { 0.5 }
    }

    fn members_centre(&self, id: FormationId) -> Option<Vec2> {
        let f = self.formations.get(id)?;
        let mut sum = Vec2::ZERO;
        let mut n = 0u32;
        for m in &f.members {
            if let Some((p, _)) = member_position(&self.units, &self.formations, *m) {
                sum += p;
                n += 1;
            }
        }
        (n > 0).then(|| sum / n as f32)
    }

    /// Stage 2: every formation, parents before children, moves its anchor and hands its
    /// members their slot targets.
    pub fn update_formations(&mut self, dt: f32) {
        self.collect_formation_order();
        self.collect_limits();
        let mut order = std::mem::take(&mut self.scratch.order);
        for &id in &order {
            match self.formations.get(id) {
                Some(f) if f.needs_assignment => self.assign_slots(id, true),
                Some(_) if self.tick % REASSIGN_TICKS == 0 => self.assign_slots(id, false),
                _ => {}
            }
            self.switch_for_narrows(id);
            self.move_anchor(id, dt);
            self.write_slot_targets(id);
        }
        order.clear();
        self.scratch.order = order;
    }

    /// Formations in top-down order (roots in key order, then each subtree depth first).
    fn collect_formation_order(&mut self) {
        let order = &mut self.scratch.order;
        order.clear();
        let stack = &mut self.scratch.stack;
        stack.clear();
        for (id, f) in self.formations.iter() {
            if f.parent.is_none() {
                stack.push(id);
                while let Some(top) = stack.pop() {
                    order.push(top);
                    if let Some(tf) = self.formations.get(top) {
                        for m in tf.members.iter().rev() {
                            if let Member::Formation(c) = *m {
                                stack.push(c);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Slowest top speed and weakest acceleration of each formation's subtree, bottom-up.
    fn collect_limits(&mut self) {
        for i in (0..self.scratch.order.len()).rev() {
            let id = self.scratch.order[i];
            let Some(f) = self.formations.get(id) else {
                continue;
            };
            let mut speed = f32::INFINITY;
            let mut accel = f32::INFINITY;
            for m in &f.members {
                match *m {
                    Member::Unit(u) => {
                        if let Some(u) = self.units.get(u) {
                            speed = speed.min(u.body.max_speed);
                            accel = accel.min(u.body.max_force / u.body.mass);
                        }
                    }
                    Member::Formation(c) => {
                        if let Some(c) = self.formations.get(c) {
                            speed = speed.min(c.slowest_speed);
                            accel = accel.min(c.weakest_accel);
                        }
                    }
                }
            }
            if let Some(f) = self.formations.get_mut(id) {
                f.slowest_speed = if speed.is_finite() { speed } else { 0.0 };
                f.weakest_accel = if accel.is_finite() { accel } else { 0.0 };
            }
        }
    }

    /// Switches a moving top-level formation into a column ahead of a passage narrower than
    /// its pattern, and back once the passage is behind it.
    fn switch_for_narrows(&mut self, id: FormationId) {
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        if !f.settings.column_in_narrows || f.parent.is_some() || f.path.len() < 2 {
            return;
        }
        let n = f.members.len().max(1);
        let depth = f.base_pattern.depth(n).max(f.pattern.depth(n));
        let ahead = 0.5 * depth + 6.0;
        let narrow = path_narrower_near(f, ahead, depth + 2.0);
        if narrow && !f.in_column && f.motion == Motion::Moving {
            f.pattern = f.base_pattern.as_column();
            f.in_column = true;
            f.needs_assignment = true;
        } else if !narrow && f.in_column {
            f.pattern = f.base_pattern.clone();
            f.in_column = false;
            f.needs_assignment = true;
        }
    }
}

/// Arc-length stretches of `path` where the clearance is below `need`, sampled every half
/// unit (computed once per plan, so the per-tick check is a few comparisons).
fn narrow_stretches(
    clearance: impl Fn(Vec2, f32) -> f32,
    path: &[Vec2],
    need: f32,
    out: &mut Vec<(f32, f32)>,
) {
    out.clear();
    let mut s0 = 0.0;
    let mut open: Option<f32> = None;
    for w in path.windows(2) {
        let len = (w[1] - w[0]).length();
        let steps = ((len / 0.5).ceil() as usize).clamp(1, 100_000);
        for k in 0..=steps {
            let t = k as f32 / steps as f32;
            let s = s0 + len * t;
            let narrow = clearance(w[0].lerp(w[1], t), need + 0.01) < need;
            match (narrow, open) {
                (true, None) => open = Some(s),
                (false, Some(a)) => {
                    out.push((a, s));
                    open = None;
                }
                _ => {}
            }
        }
        s0 += len;
    }
    if let Some(a) = open {
        out.push((a, s0));
    }
}

/// Whether a narrow stretch of the path lies within `ahead` in front of the anchor or `behind`
/// behind it (arc length along the path).
fn path_narrower_near(f: &Formation, ahead: f32, behind: f32) -> bool {
    if f.narrows.is_empty() || f.path.len() < 2 {
        return false;
    }
    let idx = f.path_index.clamp(1, f.path.len() - 1);
    let mut s = 0.0;
    for w in f.path[..idx].windows(2) {
        s += (w[1] - w[0]).length();
    }
    let (a, b) = (f.path[idx - 1], f.path[idx]);
    let dir = (b - a).normalize_or_zero();
    s += (f.anchor.position - a)
        .dot(dir)
        .clamp(0.0, (b - a).length());
    f.narrows
        .iter()
        .any(|&(n0, n1)| n1 >= s - behind && n0 <= s + ahead)
}

impl World {
    fn move_anchor(&mut self, id: FormationId, dt: f32) {
        let (p_c, v_c, lag) = self.member_stats(id);
        let leader = self.leader_of(id);
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
            Motion::Moving => {
                let base = f.slowest_speed
                    * if f.settings.fixed_half_speed {
                        0.5
                    } else {
                        f.settings.speed_fraction.clamp(0.05, 1.0)
                    };
                let factor = if f.settings.fixed_half_speed {
                    1.0
                } else {
                    lag_speed_factor(
                        lag,
                        f.settings.lag_tolerance,
                        f.settings.lag_range,
                        f.settings.min_speed_factor,
                    )
                };
                // Ease the factor so the anchor does not jerk.
                f.speed_factor += (factor - f.speed_factor) * (2.0 * dt).min(1.0);
                let cruise = base * f.speed_factor;
                let accel = (0.5 * f.weakest_accel).max(0.1);
                if f.settings.anchor_mode == AnchorMode::CentreOfMass {
                    if let Some((pc, vc)) = p_c.zip(v_c) {
                        f.anchor.position = moving_anchor(pc, vc, f.settings.k_offset);
                    }
                }
                let (desired, last, dist) = path_velocity(f, cruise);
                f.anchor.velocity += truncate(desired - f.anchor.velocity, accel * dt);
                let mut next = f.anchor.position + f.anchor.velocity * dt;
                if f.settings.anchor_mode == AnchorMode::PseudoCharacter {
                    if let Some((pc, vc)) = p_c.zip(v_c) {
                        let held = moving_anchor(pc, vc, f.settings.k_offset);
                        let lead = next - held;
                        if lead.length() > f.settings.leash && lead.dot(f.anchor.velocity) > 0.0 {
                            next = held + lead.clamp_length_max(f.settings.leash);
                            // Keep the anchor from jumping backwards.
                            if (next - f.anchor.position).dot(f.anchor.velocity) < 0.0 {
                                next = f.anchor.position;
                            }
                        }
                    }
                }
                f.anchor.position = next;
                if let Some(dir) = f.anchor.velocity.try_normalize() {
                    if f.anchor.velocity.length() > 0.05 * base.max(0.01) {
                        f.anchor.orientation =
                            turn_towards(f.anchor.orientation, dir, turn_rate * dt);
                    }
                }
                if last && dist < f.settings.arrival_radius.max(0.05) {
                    if let Some(g) = f.goal {
                        f.anchor.position = g;
                    }
                    f.anchor.velocity = Vec2::ZERO;
                    f.path_index = f.path.len().saturating_sub(1);
                    f.motion = if f.goal_facing.is_some() {
                        Motion::Turning
                    } else {
                        Motion::Holding
                    };
                }
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
    }

    /// `(p_c, v_c, mean lag)` of a formation's members.
    fn member_stats(&self, id: FormationId) -> (Option<Vec2>, Option<Vec2>, f32) {
        let Some(f) = self.formations.get(id) else {
            return (None, None, 0.0);
        };
        let mut avg = crate::anchor::MemberAverage::default();
        let mut lag = 0.0;
        for m in &f.members {
            if let Some((p, v)) = member_position(&self.units, &self.formations, *m) {
                avg.add(p, v);
            }
            lag += match *m {
                Member::Unit(u) => self
                    .units
                    .get(u)
                    .and_then(|u| {
                        u.slot_target
                            .map(|t| (t.position - u.body.position).length())
                    })
                    .unwrap_or(0.0),
                Member::Formation(c) => self.formations.get(c).map_or(0.0, |c| c.mean_lag),
            };
        }
        let n = avg.count();
        let mean = avg.mean();
        (
            mean.map(|m| m.0),
            mean.map(|m| m.1),
            if n > 0 { lag / n as f32 } else { 0.0 },
        )
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

    /// Writes each member's slot target: units get `slot_target`, child formations `target`.
    fn write_slot_targets(&mut self, id: FormationId) {
        let Some(f) = self.formations.get(id) else {
            return;
        };
        let anchor = f.anchor;
        let leader_mode =
            f.settings.anchor_mode == AnchorMode::Leader && f.motion == Motion::Moving;
        let carrot = if leader_mode { leader_carrot(f) } else { None };
        let targets = &mut self.scratch.targets;
        targets.clear();
        let mut leader_seen = false;
        for (m, slot) in f.members.iter().zip(&f.slots) {
            let mut target = SlotTarget {
                position: anchor.slot_position(slot.offset),
                velocity: anchor.velocity,
                facing: anchor.slot_facing(slot.facing),
            };
            if let (true, false, Some(c), Member::Unit(_)) = (leader_mode, leader_seen, carrot, m) {
                target = c;
            }
            leader_seen |= matches!(m, Member::Unit(_));
            targets.push((*m, target));
        }
        for &(m, target) in targets.iter() {
            match m {
                Member::Unit(u) => {
                    if let Some(u) = self.units.get_mut(u) {
                        u.slot_target = Some(target);
                    }
                }
                Member::Formation(c) => {
                    if let Some(c) = self.formations.get_mut(c) {
                        c.target = Some(target);
                    }
                }
            }
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
fn path_velocity(f: &mut Formation, cruise: f32) -> (Vec2, bool, f32) {
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
    f.motion = if target.velocity.length_squared() > 0.0 {
        Motion::Moving
    } else {
        Motion::Holding
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

/// Ticks between stability-checked re-optimizations of a formation's slot assignment.
const REASSIGN_TICKS: u64 = 120;

impl World {
    /// Lays the pattern out for the current member count and assigns members to slots at
    /// minimum total cost (roles respected), so that `members[i]` holds `slots[i]`. With
    /// `fresh == false` the current assignment is kept unless the optimum gains enough (the
    /// periodic stability-checked re-optimization).
    fn assign_slots(&mut self, id: FormationId, fresh: bool) {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        let Some(f) = formations.get(id) else {
            return;
        };
        let n = f.members.len();
        // An empty formation has no slots (some layouts index `count - 1`).
        if n == 0 {
            scratch.slots.clear();
        } else {
            f.pattern.layout(n, &mut scratch.slots);
        }
        scratch.located_members.clear();
        for m in &f.members {
            let (pos, role) = match *m {
                Member::Unit(u) => units.get(u).map_or((f.anchor.position, Role::Any), |u| {
                    (u.body.position, u.role)
                }),
                Member::Formation(c) => formations
                    .get(c)
                    .map_or((f.anchor.position, Role::Any), |c| {
                        (c.anchor.position, c.role)
                    }),
            };
            scratch.located_members.push(Located::new(pos, role));
        }
        scratch.located_slots.clear();
        scratch.located_slots.extend(
            scratch
                .slots
                .iter()
                .map(|s| Located::new(f.anchor.slot_position(s.offset), s.role)),
        );
        scratch.current.slot_of.clear();
        if !fresh && f.slots.len() == n {
            scratch.current.slot_of.extend((0..n).map(Some));
        }
        if scratch.assignment.is_none() {
            scratch.assignment = SlotAssignment::new(AssignmentConfig::default()).ok();
        }
        if let Some(solver) = scratch.assignment.as_mut() {
            solver.solve(
                &scratch.located_members,
                &scratch.located_slots,
                &mut scratch.current,
            );
        }
        // members[i] must hold slots[i]: place assigned members, then fill any slot left
        // empty with the unassigned members in order (the layout has one slot per member, so
        // normally every member is assigned).
        let Some(f) = formations.get_mut(id) else {
            return;
        };
        scratch.reordered.clear();
        scratch.reordered.resize(n, None);
        for (i, s) in scratch.current.slot_of.iter().enumerate() {
            if let Some(cell) = s.and_then(|s| scratch.reordered.get_mut(s)) {
                if cell.is_none() {
                    *cell = f.members.get(i).copied();
                }
            }
        }
        let mut spill = f
            .members
            .iter()
            .enumerate()
            .filter(|(i, _)| scratch.current.slot_of.get(*i).copied().flatten().is_none())
            .map(|(_, m)| *m);
        for cell in scratch.reordered.iter_mut() {
            if cell.is_none() {
                *cell = spill.next();
            }
        }
        f.members.clear();
        f.members
            .extend(scratch.reordered.iter().flatten().copied());
        std::mem::swap(&mut f.slots, &mut scratch.slots);
        f.needs_assignment = false;
    }
}
