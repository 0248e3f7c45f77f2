//! The steering stage's gather: one walk over the units plans their detours and copies those
//! on the ground into the dense per-unit arrays the rest of the unit stages work on.

use cohort_steering::{Body, Vec2};

use super::detours::{DetourPlanner, reserve_detour};
use super::units::FreeZone;
use super::{Scratch, Unit, World};
use crate::ids::UnitId;

impl World {
    /// The dense arrays of the steering stage, from one walk over the units that also plans
    /// their detours (see [`DetourPlanner::plan`]): every unit on the ground, in key order.
    /// Units that reach a take-off point launch afterwards, and the arrays are gathered again
    /// (without those now in the air).
    pub(super) fn gather_planning_detours(&mut self) {
        let Self {
            units,
            terrain,
            settings,
            tick,
            scratch,
            ..
        } = self;
        let Scratch {
            ids,
            bodies,
            positions,
            radii,
            goals,
            zones,
            airborne,
            launches,
            path,
            detour_path,
            detour_plan,
            ..
        } = scratch;
        let mut dense = DenseUnits {
            ids,
            bodies,
            positions,
            radii,
            goals,
            zones,
            airborne,
        };
        let mut planner = DetourPlanner {
            terrain,
            settings,
            tick: *tick,
            path,
            detour_path,
            plan: detour_plan,
        };
        planner.reserve();
        launches.clear();
        dense.clear();
        for (id, unit) in units.iter_mut() {
            reserve_detour(unit);
            if unit.flight.is_none() && planner.plan(unit) {
                launches.push(id);
            }
            dense.push(id, unit);
        }
        if self.scratch.launches.is_empty() {
            return;
        }
        // A launch (or a refused one, which may drop the unit's jump and detour) changes what
        // was gathered: gather again. Rare: only ticks in which a unit stands at a take-off.
        let mut launches = std::mem::take(&mut self.scratch.launches);
        for &id in &launches {
            self.launch(id);
        }
        launches.clear();
        self.scratch.launches = launches;
        let s = &mut self.scratch;
        let mut dense = DenseUnits {
            ids: &mut s.ids,
            bodies: &mut s.bodies,
            positions: &mut s.positions,
            radii: &mut s.radii,
            goals: &mut s.goals,
            zones: &mut s.zones,
            airborne: &mut s.airborne,
        };
        dense.clear();
        for (id, unit) in self.units.iter() {
            dense.push(id, unit);
        }
    }
}

/// The steering stage's per-unit arrays, filled by [`World::gather_planning_detours`].
struct DenseUnits<'a> {
    ids: &'a mut Vec<UnitId>,
    bodies: &'a mut Vec<Body>,
    positions: &'a mut Vec<Vec2>,
    radii: &'a mut Vec<f32>,
    goals: &'a mut Vec<(Vec2, Vec2)>,
    zones: &'a mut Vec<FreeZone>,
    airborne: &'a mut usize,
}

impl DenseUnits<'_> {
    fn clear(&mut self) {
        self.ids.clear();
        self.bodies.clear();
        self.positions.clear();
        self.radii.clear();
        self.goals.clear();
        *self.airborne = 0;
    }

    /// Appends a unit on the ground; counts one in the air (units in the air neither steer
    /// nor collide; `World::fly_units` moves them).
    #[inline]
    fn push(&mut self, id: UnitId, u: &Unit) {
        if u.flight.is_some() {
            *self.airborne += 1;
            return;
        }
        // A free zone stays with its unit while the unit keeps its place in the arrays.
        let k = self.ids.len();
        match self.zones.get_mut(k) {
            Some(zone) if zone.unit == Some(id) => {}
            Some(zone) => *zone = FreeZone::unclaimed(id),
            None => self.zones.push(FreeZone::unclaimed(id)),
        }
        self.ids.push(id);
        self.bodies.push(u.body);
        self.positions.push(u.body.position);
        self.radii.push(u.body.radius);
        // Arrive at the next detour point, else the slot, else stop where it is.
        self.goals.push(match (u.detour.first(), u.slot_target) {
            (Some(&p), _) => (p, Vec2::ZERO),
            (None, Some(t)) => (t.position, t.velocity),
            (None, None) => (u.body.position, Vec2::ZERO),
        });
    }
}
