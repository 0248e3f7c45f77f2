//! The formation stage of a tick: orders take effect, then every formation, parents before
//! children, moves its anchor and hands its members their slot targets. The concepts live in
//! sibling modules: [`super::narrows`] (column in narrow passages), [`super::anchor_motion`]
//! (anchors on paths, slot targets), [`super::assign`] (slot assignment) and
//! [`super::formation_order`] (the order formations are visited in).

use cohort_steering::{Vec2, truncate};
use slotmap::SlotMap;

use super::narrows::narrow_stretches;
use super::single_walk::SINGLE_PATH_ROOM;
use super::{World, member_position};
use crate::anchor::MemberAverage;
use crate::formation::{Formation, Member, Motion};
use crate::ids::FormationId;
use crate::order::Order;
use cohort_steering::capacity::ReserveTotal;

/// Ticks between stability-checked re-optimizations of a formation's slot assignment.
pub(super) const REASSIGN_TICKS: u64 = 120;

impl World {
    /// Stage 1: orders queued since the last tick take effect, in the order they were given.
    pub(super) fn apply_orders(&mut self) {
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
                    let (lo, hi) = self.terrain.bounds();
                    let goal = if lo.x <= hi.x && lo.y <= hi.y {
                        goal.clamp(lo, hi)
                    } else {
                        goal
                    };
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
        // Small obstacles do not bend the anchor's path (members steer round them).
        let mut plan = self.plan_formation_path(from, goal, half_width, unit_radius, jump);
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
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        f.path.clear();
        f.path_clearance.clear();
        if f.is_single() {
            // Room for a path planned again in the tick (see `single_walk.rs`).
            f.path.reserve_total(SINGLE_PATH_ROOM);
            f.path_clearance.reserve_total(SINGLE_PATH_ROOM);
        }
        f.path.extend_from_slice(&plan.points);
        f.path_clearance.extend_from_slice(&plan.clearance);
        let map = self
            .formation_nav
            .valid_map(self.terrain.map(), self.settings.small_obstacle_radius)
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
        f.delay = 0.0;
        f.held_away = 0.0;
        f.speed_factor = f.speed_factor.clamp(0.0, 1.0);
    }

    /// The radius of the largest unit in the formation's subtree (0.5 when it has none).
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
    ///
    /// Top-level formations are done one at a time: their subtree is tallied (see
    /// `tally_formation`), then moved and given its targets, so each member is looked up
    /// twice in quick succession (in cache the second time) instead of in two passes over the
    /// whole army. Passing oncoming formations is planned before any of them moves, from the
    /// anchors as they stand and last tick's extents.
    pub(super) fn update_formations(&mut self, dt: f32) {
        self.scratch.single_replans = 0;
        self.collect_formation_order();
        self.plan_passing();
        let order = std::mem::take(&mut self.scratch.order);
        let roots = std::mem::take(&mut self.scratch.roots);
        for (r, &(root, start, end)) in roots.iter().enumerate() {
            let span = start as usize..end as usize;
            // The next subtree's data, read while this one's is in cache (see `read_ahead`).
            if let Some(next) = roots
                .get(r + 1)
                .and_then(|&(_, s, e)| order.get(s as usize..e as usize))
            {
                std::hint::black_box(self.read_ahead(next));
            }
            self.tally_subtree(&order, span.clone());
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
    }

    /// Reads what tallying the formations `order` will read (their records, member lists,
    /// slots and units) in two flat walks, so that the cache misses of many formations are
    /// waited for together. The tally itself walks a chain per formation (record, then member
    /// list, then units), and with 100,000 units each link is a trip to memory that nothing
    /// overlaps; called one top-level formation ahead, the tally and this walk together take
    /// 19.4 % of the 100,000-unit tick where the tally alone took 25.4 % (see
    /// `docs/performance.md`). Stable Rust has no safe prefetch instruction, so
    /// the walks load the lines and return a sum of what they read, for the caller to hand to
    /// `std::hint::black_box`. It changes no state.
    fn read_ahead(&self, order: &[FormationId]) -> u32 {
        let mut sum = 0u32;
        // First the records and the first line of each member list, then the slots and the
        // units: walks whose loads do not wait on each other.
        for &id in order {
            if let Some(f) = self.formations.get(id) {
                let first = f.members.first().map_or(0, |m| match *m {
                    Member::Unit(_) => 1,
                    Member::Formation(_) => 2,
                });
                sum = sum.wrapping_add(first).wrapping_add(f.slots.len() as u32);
            }
        }
        for &id in order {
            let Some(f) = self.formations.get(id) else {
                continue;
            };
            for slot in &f.slots {
                sum = sum.wrapping_add(slot.offset.x.to_bits());
            }
            for m in &f.members {
                if let Member::Unit(u) = *m
                    && let Some(u) = self.units.get(u)
                {
                    sum = sum.wrapping_add(u.body.position.x.to_bits());
                }
            }
        }
        sum
    }

    /// Tallies the formations `order[span]` (one subtree, top-down) bottom-up into
    /// `scratch.tallies`.
    fn tally_subtree(&mut self, order: &[FormationId], span: std::ops::Range<usize>) {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        for k in span.rev() {
            if let (Some(&id), Some(t)) = (order.get(k), scratch.tallies.get_mut(k)) {
                *t = tally_formation(units, formations, id);
            }
        }
    }
}

/// One walk over a formation's members instead of one per quantity: writes the slowest top
/// speed and weakest acceleration of its subtree and its half depth and half width (radii
/// included) into it, and returns the centre, velocity and lag of its members for
/// [`World::move_anchor`]. Its sub-formations must be tallied already; their anchors have not
/// moved yet this tick and their `mean_lag` is last tick's, exactly as when the formation
/// loop reaches their parent.
fn tally_formation(
    units: &super::unit_store::UnitStore,
    formations: &mut SlotMap<FormationId, Formation>,
    id: FormationId,
) -> MemberTally {
    let mut tally = MemberTally::default();
    let Some(f) = formations.get(id) else {
        return tally;
    };
    let mut speed = f32::INFINITY;
    let mut accel = f32::INFINITY;
    let mut ext = Vec2::ZERO;
    for (i, m) in f.members.iter().enumerate() {
        let reach = match *m {
            Member::Unit(u) => match units.get(u) {
                Some(u) => {
                    speed = speed.min(u.body.max_speed);
                    accel = accel.min(u.body.max_force / u.body.mass);
                    tally.average.add(u.body.position, u.body.velocity);
                    if let Some(t) = u.slot_target {
                        tally.lag += (t.position - u.body.position).length();
                    }
                    u.body.radius
                }
                None => 0.0,
            },
            Member::Formation(c) => match formations.get(c) {
                Some(c) => {
                    // A sub-formation with no units left (slowest speed 0) is an empty
                    // anchor: it sets no limit (it would stop its parent for good) and counts
                    // neither in the centre nor in the lag.
                    if c.slowest_speed > 0.0 {
                        speed = speed.min(c.slowest_speed);
                        accel = accel.min(c.weakest_accel);
                        tally.average.add(c.anchor.position, c.anchor.velocity);
                        tally.lag += c.mean_lag;
                    }
                    c.half_extent.max_element()
                }
                None => 0.0,
            },
        };
        if let Some(slot) = f.slots.get(i) {
            ext = ext.max(slot.offset.abs() + Vec2::splat(reach));
        }
    }
    if let Some(f) = formations.get_mut(id) {
        f.slowest_speed = if speed.is_finite() { speed } else { 0.0 };
        f.weakest_accel = if accel.is_finite() { accel } else { 0.0 };
        f.half_extent = ext;
    }
    tally
}

/// Centre, velocity and summed lag of one formation's members (see
/// [`tally_formation`]), and where the slot targets it handed its units lie.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MemberTally {
    average: MemberAverage,
    lag: f32,
    /// The anchor the slot targets were laid out from this tick.
    pub(super) target_centre: Vec2,
    /// Largest distance from `target_centre` of a unit member's slot target plus its radius
    /// (infinite when some unit member was not given one this tick).
    pub(super) target_reach: f32,
    /// How far make way has moved the targets out of that circle so far this tick (see
    /// `open_lanes`).
    pub(super) lane_growth: f32,
}

impl MemberTally {
    /// `(p_c, v_c, mean lag)` of the members.
    fn stats(&self) -> (Option<Vec2>, Option<Vec2>, f32) {
        let n = self.average.count();
        let mean = self.average.mean();
        (
            mean.map(|m| m.0),
            mean.map(|m| m.1),
            if n > 0 { self.lag / n as f32 } else { 0.0 },
        )
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
