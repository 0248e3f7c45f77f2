//! Detours: a unit far from a slot it cannot see plans a path to it (through jump links when
//! the unit can jump), instead of pushing on into the obstacle. Where the graph finds no
//! route (a gap the unit fits through but meets at a slant), the detour is planned again down
//! the gap's middle line, as a formation's path is (`slanted_gaps.rs`). A detour planned
//! again (every [`DETOUR_REPLAN_TICKS`]) that stops short of the slot does not replace one
//! that reaches it.

use super::WorldSettings;
use super::jumps::first_jump;
use super::slanted_gaps::{Buffers, SlantedScratch, plan_through_slanted_gaps, stops_short};
use super::terrain::{PathPlan, Terrain};
use super::unit_store::{Details, UnitMotion};
use crate::ids::UnitId;
use cohort_steering::capacity::ReserveTotal;

/// Ticks between re-planning a detour around an obstacle to the slot.
pub(crate) const DETOUR_REPLAN_TICKS: u64 = 60;

/// Points every unit's detour has room for: a detour to a slot is a few legs (in 40 ticks of
/// the 100,000-unit bench army, 6,822 detours, none with more than 7 points after the
/// start); a longer one grows its vector once.
const DETOUR_CAPACITY: usize = 8;

/// Waypoints the world's detour plan buffers hold before growing.
pub(super) const PLAN_RESERVE: usize = 32;

/// Most units a tick whose detours, stopping short of their slots, are planned again through
/// gaps met at a slant (`slanted_gaps.rs`: up to 18 more searches each). A unit whose slot
/// cannot be reached at all plans its detour again each time it reaches the point where the
/// last one stopped; the others are planned so in a later tick.
pub(super) const SLANTED_DETOURS_PER_TICK: u32 = 16;

/// How close (beyond its radius) a unit must be to a take-off point to jump.
const TAKEOFF_TOLERANCE: f32 = 0.35;

/// What planning a unit's detour reads and the buffers it plans into, borrowed from the world
/// for one walk over the units (the steering stage's gather, see `world/units.rs`).
pub(super) struct DetourPlanner<'a> {
    pub(super) terrain: &'a Terrain,
    pub(super) settings: &'a WorldSettings,
    pub(super) tick: u64,
    pub(super) path: &'a mut cohort_pathing::SearchScratch,
    pub(super) detour_path: &'a mut cohort_pathing::Path,
    pub(super) plan: &'a mut PathPlan,
    /// The plan made again through gaps met at a slant, when the plain one stops short.
    pub(super) slanted: &'a mut SlantedScratch,
    /// How many more detours may be planned again so this tick.
    pub(super) slanted_left: u32,
}

impl DetourPlanner<'_> {
    /// Grows the search and plan buffers before the first plan (a no-op once warm).
    pub(super) fn reserve(&mut self) {
        self.path.reserve_for(self.terrain.navgraph());
        self.plan.reserve(PLAN_RESERVE);
        let waypoints = &mut self.detour_path.waypoints;
        waypoints.reserve_total(PLAN_RESERVE);
        self.slanted.reserve(PLAN_RESERVE);
    }

    /// A unit far from a slot it cannot see plans a path to it (re-planned at most once a
    /// second); a unit whose slot is in sight drops its detour. Returns whether the unit has
    /// reached the take-off point of a jump on its detour (it then launches, see
    /// `World::launch`). Units in the air are not to be passed. The unit's details are read
    /// only when it has a route (see [`UnitMotion::routed`]) or needs one.
    pub(super) fn plan(
        &mut self,
        id: UnitId,
        unit: &mut UnitMotion,
        details: &mut Details,
    ) -> bool {
        let (terrain, settings) = (self.terrain, self.settings);
        let Some(t) = unit.slot_target else {
            drop_route(id, unit, details);
            return false;
        };
        let pos = unit.body.position;
        if let Some(d) = unit.details_in_mut(id, details) {
            if let Some(j) = d.next_jump {
                // A take-off point is reached more closely than a walking waypoint: the unit
                // must stand on it to make the jump.
                if (j.takeoff - pos).length() < unit.body.radius + TAKEOFF_TOLERANCE {
                    return true;
                }
            }
            if let Some(&p) = d.detour.first() {
                let is_takeoff = d.next_jump.is_some_and(|j| j.takeoff == p);
                // Drop a reached waypoint only once the next one is in sight (else a unit
                // cuts the corner it was rounding and walks into the wall's end).
                let next_in_sight = d
                    .detour
                    .get(1)
                    .is_none_or(|&q| terrain.line_of_sight(pos, q, 0.9 * unit.body.radius));
                if !is_takeoff && next_in_sight && (p - pos).length() < unit.body.radius * 2.0 + 0.5
                {
                    d.detour.remove(0);
                }
            }
            unit.routed = d.routed();
        }
        // A unit that can jump looks for a way round sooner: a slot just across a ditch
        // is only reached through the jump.
        let reach = if unit.jump_speed > 0.0 {
            settings.detour_distance.min(unit.body.radius * 3.0)
        } else {
            settings.detour_distance
        };
        let far = (t.position - pos).length() > reach;
        if !far || terrain.line_of_sight(pos, t.position, unit.body.radius) {
            drop_route(id, unit, details);
            return false;
        }
        let Some(d) = details.get_mut(id) else {
            return false;
        };
        if d.detour.is_empty() || self.tick >= d.detour_tick + DETOUR_REPLAN_TICKS {
            let query = Terrain::plan_query(
                pos,
                t.position,
                unit.body.radius,
                unit.body.radius,
                unit.jump_ability(settings.gravity),
            );
            terrain.plan_path_into(&query, self.path, self.detour_path, self.plan);
            // No route for the unit (the plan stops short of its slot): maybe one through a
            // gap it fits but meets at a slant, as its formation's own plan was routed (a
            // member left on the far side of a gap a vehicle wide stood at the wall for good).
            // (At most SLANTED_DETOURS_PER_TICK a tick: the others are planned so when they
            // plan again.)
            if self.slanted_left > 0 && stops_short(&self.plan.points, t.position) {
                self.slanted_left -= 1;
                let buffers = Buffers {
                    search: self.path,
                    path: self.detour_path,
                    slanted: self.slanted,
                };
                let radius = unit.body.radius;
                if plan_through_slanted_gaps(terrain, &query, self.plan, radius, buffers) {
                    std::mem::swap(self.plan, &mut self.slanted.alt);
                }
            }
            // A plan that stops short of the slot does not replace a detour that reaches it:
            // planned from where the unit was pushed to (in a gap's mouth, off its middle
            // line), it finds no way that the detour it walks does. (Taking it, a member at
            // the mouth of a gap a vehicle wide turned back to the wall's end of its side
            // and planned its way through again, by turns, for good.)
            if stops_short(&self.plan.points, t.position) && !stops_short(&d.detour, t.position) {
                d.detour_tick = self.tick;
                unit.routed = d.routed();
                return false;
            }
            // Refilled in place: the unit's detour keeps its capacity.
            d.detour.clear();
            d.detour.extend(self.plan.points.iter().skip(1).copied());
            d.next_jump = first_jump(&self.plan.points, &self.plan.legs);
            d.detour_tick = self.tick;
        }
        unit.routed = d.routed();
        false
    }
}

/// Forgets a unit's detour and planned jump (its details are read only if it has one).
fn drop_route(id: UnitId, unit: &mut UnitMotion, details: &mut Details) {
    if let Some(d) = unit.details_in_mut(id, details) {
        d.drop_route();
    }
    unit.routed = false;
}

/// Gives a unit's `detour` room for [`DETOUR_CAPACITY`] points (more if it holds more
/// already), from its first tick on: paid when the unit is added, cloned or restored from a
/// snapshot, so a detour planned later is written in place.
pub(super) fn reserve_detour(detour: &mut Vec<cohort_steering::Vec2>) {
    detour.reserve_total_exact(DETOUR_CAPACITY);
}
