//! A unit moved on its own (a formation of one unit) walks its path from where it stands, as
//! a crowd agent does: its anchor is put a short lead ahead of it towards the next waypoint, so
//! a unit pushed aside by traffic goes on from there instead of being pulled back onto the
//! line its path was planned along, and no lane or slot holds it in place. It cruises at its
//! top speed (it has no one to wait for).
//!
//! Where the unit is pushed so far off its path that neither the next waypoint nor the way
//! back to the path is in sight (round the far side of a block), its path is planned again
//! from where it stands, at most [`REPLANS_PER_TICK`] singles a tick.

use cohort_steering::Vec2;

use super::World;
use super::anchor_motion::{arrive_if_there, path_velocity, turn_towards};
use super::detours::PLAN_RESERVE;
use super::terrain::Terrain;
use crate::formation::{Formation, Member, Motion};
use crate::ids::FormationId;
use cohort_steering::capacity::ReserveTotal;

/// Most singles whose paths are planned again in one tick (the others keep their target on
/// the path, where their detours find the way, and are planned in a later tick).
pub(super) const REPLANS_PER_TICK: u32 = 16;

/// Ticks a single whose path planned again stopped short (and was refused) waits before it
/// plans again (see [`World::replan_single`]).
const REFUSED_REPLAN_TICKS: u64 = 20;

/// Points a single's path has room for from its order on: a path planned again round several
/// blocks fits without growing it (a longer one is cut to its first points and its goal).
pub(super) const SINGLE_PATH_ROOM: usize = 24;

/// How far ahead of a single unit its anchor leads, seconds of cruise (plus
/// [`SINGLE_LEAD_MIN`]): the unit arrives at a target moving at its own speed, so the lead only
/// sets how firmly it is pulled on.
const SINGLE_LEAD_TIME: f32 = 0.5;

/// Within this distance (metres) of its goal a single walks straight to it, keeping to no
/// side.
const PASS_NEAR_GOAL: f32 = 3.0;

/// Metres of clearance a single's path keeps beyond its unit's radius: a single plans only
/// through gaps a tenth of a metre wider than its unit. Through a slit a few centimetres
/// wider than the unit, one that came to the slit's mouth along a wall pressed into the corner
/// beside it for good: its steering, its avoidance of the slit's two walls and the map's
/// constraints leave no velocity that lines it up with the slit from there. (A tenth of the
/// radius instead kept a vehicle of radius 2 a fifth of a metre further from a block's corner,
/// where it met a column of other vehicles head-on and neither got by.)
pub(super) const SINGLE_FIT: f32 = 0.05;

/// Least lead of a single's anchor, metres.
const SINGLE_LEAD_MIN: f32 = 0.5;

/// Moves a single's anchor one tick (see the module docs); `unit` is where the unit stands and
/// `terrain` the one its path was planned on. Returns whether it has lost sight of its path
/// (its path should be planned again).
pub(super) fn walk_single(
    f: &mut Formation,
    unit: Vec2,
    terrain: &Terrain,
    turn_rate: f32,
    dt: f32,
) -> bool {
    let mut lost = false;
    let cruise = f.slowest_speed * f.cruise_fraction();
    // The unit's radius (a single's half-width).
    let radius = f.half_extent.y.max(0.0);
    // Skipping ahead costs one line-of-sight test a tick, while there is a waypoint after the
    // next; the way back below costs up to two more, only for a unit pushed off its path.
    if f.path
        .get(f.path_index + 1)
        .is_some_and(|&next| terrain.line_of_sight(unit, next, radius))
    {
        f.path_index += 1;
    }
    f.anchor.position = unit;
    let (desired, last, dist) = path_velocity(f, cruise);
    // Keeping to its side of a passage (see `make_way.rs`; zero otherwise).
    let desired = if last && dist < PASS_NEAR_GOAL {
        desired
    } else {
        (desired + f.pass_velocity).clamp_length_max(cruise.max(desired.length()))
    };
    let mut dir = desired.normalize_or_zero();
    let lead = SINGLE_LEAD_MIN + SINGLE_LEAD_TIME * cruise;
    f.anchor.velocity = desired;
    f.anchor.position = unit + dir * if last { dist.min(lead) } else { lead };
    // Pushed off its path where the way on is out of sight (round the far side of a block),
    // it heads back to the path first: for a point a lead along the leg from the leg's
    // nearest point.
    let idx = f.path_index.min(f.path.len().saturating_sub(1));
    if let (Some(&to), Some(&from)) = (f.path.get(idx), f.path.get(idx.saturating_sub(1))) {
        let on_leg = closest_on_segment(from, to, unit);
        if (unit - on_leg).length() > radius && !terrain.line_of_sight(unit, to, radius) {
            let along = (to - from).normalize_or_zero();
            let left = (to - on_leg).length();
            let pursuit = on_leg + along * lead.min(left);
            let back = pursuit - unit;
            dir = back.normalize_or_zero();
            f.anchor.velocity = dir * desired.length();
            f.anchor.position = if terrain.line_of_sight(unit, pursuit, radius) {
                unit + back.clamp_length_max(lead)
            } else {
                // Out of sight as well: the target is put on the path itself (where the
                // unit's detour, planned to a slot far and out of sight, finds the way) until
                // the path is planned again.
                lost = true;
                pursuit
            };
        }
    }
    if dir != Vec2::ZERO && desired.length() > 0.05 * cruise.max(0.01) {
        f.anchor.orientation = turn_towards(f.anchor.orientation, dir, turn_rate * dt);
    }
    arrive_if_there(f, last, dist);
    lost
}

/// The point of segment `a`–`b` nearest `p`.
fn closest_on_segment(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if !(len2 > 0.0) {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
}

impl World {
    /// Plans single `id`'s path again from `from` (where its unit stands) to its goal, into
    /// the world's planning buffers (no allocation once they are warm, but a longer path than
    /// the single had before grows its own), and walks it this tick. At most
    /// [`REPLANS_PER_TICK`] a tick; the rest wait for a later tick.
    pub(super) fn replan_single(&mut self, id: FormationId, from: Vec2, turn_rate: f32, dt: f32) {
        let Some(f) = self.formations.get(id) else {
            return;
        };
        if self.tick < f.replan_after || self.scratch.single_replans >= REPLANS_PER_TICK {
            return;
        }
        self.scratch.single_replans += 1;
        let (Some(goal), [Member::Unit(u)]) = (f.goal, f.members.as_slice()) else {
            return;
        };
        let Some(unit) = self.units.get(*u) else {
            return;
        };
        let radius = unit.body.radius;
        let jump = unit.jump_ability(self.settings.gravity);
        let small = self.settings.small_obstacle_radius;
        let terrain = self
            .formation_nav
            .terrain(self.terrain.map(), small)
            .unwrap_or(&self.terrain);
        let query = Terrain::plan_query(from, goal, radius, radius + SINGLE_FIT, jump);
        let scratch = &mut self.scratch;
        // The buffers the unit stage's detours use, grown for this graph (no-ops once warm).
        scratch.path.reserve_for(terrain.navgraph());
        scratch.detour_plan.reserve(PLAN_RESERVE);
        scratch.detour_path.waypoints.reserve_total(PLAN_RESERVE);
        let slanted = &mut scratch.detour_slanted;
        slanted.reserve(PLAN_RESERVE);
        let plan = &mut scratch.detour_plan;
        terrain.plan_path_into(&query, &mut scratch.path, &mut scratch.detour_path, plan);
        // Through a gap it fits but meets at a slant, as its order's plan would be.
        let buffers = super::slanted_gaps::Buffers {
            search: &mut scratch.path,
            path: &mut scratch.detour_path,
            slanted,
        };
        if super::slanted_gaps::plan_through_slanted_gaps(terrain, &query, plan, radius, buffers) {
            std::mem::swap(plan, &mut scratch.detour_slanted.alt);
        }
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        if plan.points.len() < 2 || f.motion != Motion::Moving {
            return;
        }
        // A plan that stops short of the goal does not replace the path: planned from where
        // the unit was pushed to (beside a gap's mouth, off its middle line), it can find no
        // way that a plan from a step further on finds. The unit walks on towards its path
        // and plans again once it is lost there [`REFUSED_REPLAN_TICKS`] later (each such
        // plan costs up to 19 searches). (Taking the plan made its end the single's goal,
        // and a vehicle stood at a wall for good beside the gap it had been routed through.)
        if super::slanted_gaps::stops_short(&plan.points, goal) {
            f.replan_after = self.tick.saturating_add(REFUSED_REPLAN_TICKS);
            return;
        }
        // A single's path has room for SINGLE_PATH_ROOM points from its order on (see
        // `plan_move`), and a path planned again in a tick never grows it: a longer one keeps
        // its first points and its goal (the leg from the last kept point to the goal is
        // walked as any leg out of sight is: by detours, or by planning again from there).
        let room = f
            .path
            .capacity()
            .min(f.path_clearance.capacity())
            .max(SINGLE_PATH_ROOM);
        let keep = plan.points.len().min(room);
        f.path.clear();
        f.path_clearance.clear();
        if let (Some(head), Some(head_clearance)) = (
            plan.points.get(..keep.saturating_sub(1)),
            plan.clearance.get(..keep.saturating_sub(1)),
        ) {
            f.path.extend_from_slice(head);
            f.path_clearance.extend_from_slice(head_clearance);
        }
        if let Some(&goal) = plan.points.last() {
            f.path.push(goal);
            // The narrowest of the legs the kept goal's leg stands for.
            let rest = plan.clearance.get(keep.saturating_sub(1)..).unwrap_or(&[]);
            f.path_clearance.push(
                rest.iter()
                    .copied()
                    .fold(f32::INFINITY, f32::min)
                    .min(f32::MAX),
            );
        }
        f.path_index = 1;
        f.goal = f.path.last().copied();
        walk_single(f, from, terrain, turn_rate, dt);
    }
}
