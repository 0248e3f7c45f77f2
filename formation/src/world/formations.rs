//! The formation stage of a tick: orders take effect, then every formation, parents before
//! children, moves its anchor and hands its members their slot targets. The concepts live in
//! sibling modules: [`super::narrows`] (column in narrow passages), [`super::anchor_motion`]
//! (anchors on paths, slot targets), [`super::assign`] (slot assignment) and
//! [`super::formation_order`] (the order formations are visited in).

use cohort_steering::{Vec2, truncate};

use super::narrows::narrow_stretches;
use super::single_walk::{SINGLE_FIT, SINGLE_PATH_ROOM};
use super::tally::tally_formation;
use super::{World, member_position};
use crate::formation::{Member, Motion};
use crate::ids::FormationId;
use crate::order::Order;
use cohort_steering::capacity::ReserveTotal;

/// Units up to which the formations are all tallied first, on the pool's threads (see
/// `world/tally.rs`). In a larger army the units' records no longer stay in the cores'
/// caches between that tally and the slot targets written into them, and tallying each
/// subtree just before it moves (in cache when its targets are written) is faster on two
/// threads too.
const PARALLEL_TALLY_UNITS: usize = 20_000;

/// Ticks between stability-checked re-optimizations of a formation's slot assignment.
pub(super) const REASSIGN_TICKS: u64 = 120;

impl World {
    /// Stage 1: orders queued since the last tick take effect, in the order they were given.
    pub(super) fn apply_orders(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        // Move orders are placed where their formations find ground of their own (see
        // `world/goal_claims.rs`).
        let spread = self.settings.spread_goals && self.claim_goals(&pending);
        for (id, order) in pending.drain(..) {
            let given = match &order {
                Order::MoveTo { goal, facing, .. } if spread => Some((*goal, *facing)),
                _ => None,
            };
            // A move that repeats the last keeps the goal first given (a run of clicks, each
            // near the last, does not carry the remembered spot away).
            let given = given.map(|g| self.first_given(id, g));
            let order = if spread {
                self.place_move(id, order)
            } else {
                order
            };
            // (A move given again that the formation already walks as ordered is not applied
            // again: see `World::place_move`.)
            if self.scratch.walks_on.take() != Some(id) {
                self.apply_order(id, order);
            }
            if spread {
                self.claim_placed(id);
            }
            self.remember_move(id, given);
        }
        self.pending = pending;
    }

    fn apply_order(&mut self, id: FormationId, order: Order) {
        // An attached member takes only a change of pattern, in its slot (anything else was
        // refused when given; a queue put together otherwise skips it).
        if self.formations.get(id).is_some_and(|f| f.parent.is_some())
            && !super::membership::member_may_take(&order)
        {
            return;
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
                if let Some(p) = pattern {
                    f.base_pattern = p.clone();
                    f.pattern = p;
                    f.in_column = false;
                    f.narrowed = None;
                    f.needs_assignment = true;
                }
                f.goal_facing = facing.and_then(|v| v.try_normalize());
                if at_slowest {
                    self.plan_move(id, goal);
                } else {
                    // The anchor is put at the goal at once: never off the map (where no later
                    // path could start), however far the goal.
                    let goal = self.terrain.clamp_to_map(goal);
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
                f.base_pattern = p.clone();
                f.pattern = p;
                f.in_column = false;
                f.narrowed = None;
                f.needs_assignment = true;
            }
            Order::Face(dir) => {
                f.goal_facing = dir.try_normalize();
                if f.motion == Motion::Holding {
                    f.motion = Motion::Turning;
                }
            }
            // Started by `route_tactical_order` above, or turned into a move; never reach here.
            Order::RunPlay { .. } | Order::BoundingOverwatch { .. } | Order::FormAlong { .. } => {}
            // Withdraws queued orders when given (`World::order`); one found in a restored
            // queue changes nothing.
            Order::Cancel => {}
            Order::Halt => {
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
        // A single keeps room to line up with a gap (see `SINGLE_FIT`).
        let fit = if f.is_single() { SINGLE_FIT } else { 0.0 };
        // Small obstacles do not bend the anchor's path (members steer round them).
        let mut plan = self.plan_formation_path(from, goal, half_width, unit_radius + fit, jump);
        // No path keeps the pattern's half-width: the formation closes up into ranks for the
        // narrow stretches (see `narrows.rs`). A path down the middle of the passages lets
        // those ranks be as wide as the passages, where one hugging the corners at a unit's
        // clearance leaves room for a column only; so ask for half the clearance, and half
        // again, while that still leaves room for two abreast, and take the first path that
        // keeps it without going much further.
        let mut want = 0.5 * half_width;
        while narrowest(&plan) + 1e-3 < half_width && want >= NARROW_MIN_RADII * unit_radius {
            let alt = self.plan_formation_path(from, goal, want, unit_radius, jump);
            if narrowest(&alt) + 1e-3 >= want
                && alt.points.last() == plan.points.last()
                && length(&alt.points) <= NARROW_DETOUR * length(&plan.points)
            {
                plan = alt;
                break;
            }
            want *= 0.5;
        }
        // No route at all for the unit (the plan stops short of the goal): maybe one through
        // a gap it fits but meets at a slant, which the graph's nodes are too coarse for.
        let query =
            super::terrain::Terrain::plan_query(from, goal, half_width, unit_radius + fit, jump);
        let small = self.settings.small_obstacle_radius;
        let terrain = self
            .formation_nav
            .terrain(self.terrain.map(), small)
            .unwrap_or(&self.terrain);
        let slanted = &mut self.scratch.detour_slanted;
        let buffers = super::slanted_gaps::Buffers {
            search: &mut self.scratch.path,
            path: &mut self.scratch.detour_path,
            slanted,
        };
        if super::slanted_gaps::plan_through_slanted_gaps(
            terrain, &query, &plan, half_width, buffers,
        ) {
            plan.clone_from(&self.scratch.detour_slanted.alt);
        }
        let map = self
            .formation_nav
            .valid_map(self.terrain.map(), self.settings.small_obstacle_radius)
            .unwrap_or(self.terrain.valid_map());
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        // Down the middle of the passages, and straight in and out of them: the ranks it
        // closes up into there are as wide as the passages allow.
        let narrows_found = !f.is_single()
            && super::passages::centre_in_passages(
                map,
                &mut plan,
                half_width,
                unit_radius,
                &mut f.narrows,
            );
        f.path.clear();
        f.path_clearance.clear();
        if f.is_single() {
            // Room for a path planned again in the tick (see `single_walk.rs`).
            f.path.reserve_total(SINGLE_PATH_ROOM);
            f.path_clearance.reserve_total(SINGLE_PATH_ROOM);
        }
        f.path.extend_from_slice(&plan.points);
        f.path_clearance.extend_from_slice(&plan.clearance);
        // Found already for this path (unless centring changed it).
        if !narrows_found {
            narrow_stretches(
                |p, cap| map.clearance_capped(p, cap),
                &f.path,
                half_width,
                &mut f.narrows,
            );
        }
        f.path_index = 1.min(f.path.len().saturating_sub(1));
        f.goal = f.path.last().copied().or(Some(goal));
        f.motion = Motion::Moving;
        f.delay = 0.0;
        f.held_away = 0.0;
        f.wait_watch = None;
        f.replan_after = 0;
        f.speed_factor = f.speed_factor.clamp(0.0, 1.0);
    }

    /// The radius of the largest unit in the formation's subtree (0.5 when it has none).
    pub(super) fn largest_radius(&self, id: FormationId) -> f32 {
        largest_radius(&self.units, &self.formations, id)
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
    ///
    /// Passing oncoming formations is planned before any of them moves, from the anchors as
    /// they stand and last tick's extents. Then every formation is tallied (its members'
    /// centre, velocity and lag, its subtree's speed and extent; see `world/tally.rs`: all of
    /// them first on the pool's threads when there are several and the army is small (up to
    /// [`PARALLEL_TALLY_UNITS`] units), else each subtree just before it moves), and the
    /// top-level formations are done one at a time: each subtree's anchors moved and targets
    /// handed out, parents first. Last, make way opens lanes and slot targets inside
    /// obstacles are replaced by stand-ins (`world/stand_ins.rs`).
    pub(super) fn update_formations(&mut self, dt: f32) {
        self.scratch.single_replans = 0;
        self.collect_formation_order();
        self.plan_passing(dt);
        let order = std::mem::take(&mut self.scratch.order);
        let roots = std::mem::take(&mut self.scratch.roots);
        let tallied =
            self.units.len() <= PARALLEL_TALLY_UNITS && self.tally_formations(&order, &roots);
        for (r, &(root, start, end)) in roots.iter().enumerate() {
            let span = start as usize..end as usize;
            if !tallied {
                self.tally_subtree(&order, span.clone());
            }
            if let Some(f) = self.formations.get_mut(root) {
                f.pass_velocity = truncate(f.pass_velocity, 0.5 * f.slowest_speed);
            }
            for k in span {
                let Some(&id) = order.get(k) else {
                    continue;
                };
                let reassigned = match self.formations.get(id) {
                    Some(f) if f.needs_assignment => Some(self.assign_slots(id, true)),
                    Some(_) if self.tick % REASSIGN_TICKS == 0 => {
                        Some(self.assign_slots(id, false))
                    }
                    _ => None,
                };
                let stale = &mut self.scratch.stale_subtrees;
                if reassigned == Some(true) && stale.last() != Some(&(r as u32)) {
                    stale.push(r as u32);
                }
                self.switch_for_narrows(id);
                // A re-assignment reorders the members, and the sums depend on the order:
                // walk them again in the new order.
                let stats = match self.scratch.tallies.get(k) {
                    Some(t) if reassigned.is_none() => t.stats(),
                    _ => tally_formation(&self.units, &mut self.formations, id).stats(),
                };
                self.move_anchor(id, stats, dt);
                self.write_slot_targets(id, k, r as u32);
            }
        }
        // Kept for make way: each top-level formation's subtree is a run of the order.
        self.scratch.roots = roots;
        self.scratch.order = order;
        self.open_lanes();
        self.stand_in_blocked_slots();
    }
}

/// Least clearance asked for a narrowed formation's path, in unit radii: room for two
/// abreast (two radii each, a closed-up spacing between them and a margin).
const NARROW_MIN_RADII: f32 = 2.75;
/// How much longer than the shortest path a path down the middle of the passages may be.
const NARROW_DETOUR: f32 = 1.25;

/// The least clearance along a plan's legs (0 for none).
fn narrowest(plan: &super::terrain::PathPlan) -> f32 {
    let least = plan.clearance.iter().copied().fold(f32::INFINITY, f32::min);
    if least.is_finite() { least } else { 0.0 }
}

/// The length of a polyline.
fn length(points: &[Vec2]) -> f32 {
    points.windows(2).map(|w| (w[1] - w[0]).length()).sum()
}

/// The radius of the largest unit in formation `id`'s subtree (0.5 when it has none): what
/// [`World::largest_radius`] gives, for callers holding the stores apart.
pub(super) fn largest_radius(
    units: &super::unit_store::UnitStore,
    formations: &slotmap::SlotMap<FormationId, crate::formation::Formation>,
    id: FormationId,
) -> f32 {
    let mut r: f32 = 0.0;
    if let Some(f) = formations.get(id) {
        for m in &f.members {
            match *m {
                Member::Unit(u) => {
                    if let Some(u) = units.get(u) {
                        r = r.max(u.body.radius);
                    }
                }
                Member::Formation(c) => r = r.max(largest_radius(units, formations, c)),
            }
        }
    }
    if r > 0.0 { r } else { 0.5 }
}
