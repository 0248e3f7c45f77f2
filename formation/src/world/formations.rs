//! The formation stage of a tick: orders take effect, then every formation, parents before
//! children, moves its anchor and hands its members their slot targets. The concepts live in
//! sibling modules: [`super::narrows`] (column in narrow passages), [`super::anchor_motion`]
//! (anchors on paths, slot targets) and [`super::assign`] (slot assignment).

use cohort_steering::Vec2;

use super::narrows::narrow_stretches;
use super::{World, member_position};
use crate::formation::{Member, Motion};
use crate::ids::FormationId;
use crate::order::Order;

/// Ticks between stability-checked re-optimizations of a formation's slot assignment.
pub(super) const REASSIGN_TICKS: u64 = 120;

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
        // A drawn line is a move in a pattern laid out along it (refused when given if bad).
        let order = match order {
            Order::FormAlong {
                points,
                facing,
                at_slowest,
            } => match self.form_along_move(id, &points, facing, at_slowest) {
                Ok(order) => order,
                Err(_) => return,
            },
            other => other,
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
            // Started by `route_tactical_order` above, or turned into a move; never reach here.
            Order::RunPlay { .. } | Order::BoundingOverwatch { .. } | Order::FormAlong { .. } => {}
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
        let jump = self.formation_jump_ability(id);
        // Small obstacles do not bend the anchor's path (members steer round them).
        let plan = self.plan_formation_path(from, goal, half_width, unit_radius, jump);
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        f.path.clear();
        f.path_clearance.clear();
        f.path.extend_from_slice(&plan.points);
        f.path_clearance.extend_from_slice(&plan.clearance);
        let map = self
            .formation_nav
            .valid_map()
            .unwrap_or(self.terrain.valid_map());
        narrow_stretches(
            |p, cap| map.clearance_capped(p, cap),
            &f.path,
            half_width,
            &mut f.narrows,
        );
        f.path_index = 1.min(f.path.len().saturating_sub(1));
        f.goal = f.path.last().copied().or(Some(goal));
        f.motion = Motion::Moving;
        f.speed_factor = f.speed_factor.clamp(0.0, 1.0);
    }

    pub(super) fn largest_radius(&self, id: FormationId) -> f32 {
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

    /// Mean position of a formation's members (units and sub-formation anchors).
    pub(super) fn members_centre(&self, id: FormationId) -> Option<Vec2> {
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
        self.collect_extents();
        self.plan_passing();
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
        self.open_lanes();
    }

    /// Formations in top-down order (roots in key order, then each subtree depth first).
    fn collect_formation_order(&mut self) {
        let order = &mut self.scratch.order;
        order.clear();
        let stack = &mut self.scratch.stack;
        stack.clear();
        // Room for every formation up front: the depth-first walks here and in make_way.rs
        // never hold more, so the buffer does not grow on a new arrangement once warm.
        stack.reserve(self.formations.len());
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
                        // A sub-formation with no units left (slowest speed 0) sets no limit:
                        // it would stop its parent for good.
                        if let Some(c) = self.formations.get(c).filter(|c| c.slowest_speed > 0.0) {
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
}
