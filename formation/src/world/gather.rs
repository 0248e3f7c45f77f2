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
    /// Units that reach a take-off point launch afterwards (and leave the arrays when they
    /// fly).
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
                launches.push((id, dense.ids.len()));
            }
            dense.push(id, unit);
        }
        if launches.is_empty() {
            return;
        }
        // A launch (or a refused one, which may drop the unit's jump and detour) changes what
        // was gathered of the unit: it leaves the arrays when it flies, else its entry is
        // gathered again. Rare: only ticks in which a unit stands at a take-off.
        let mut launches = std::mem::take(&mut self.scratch.launches);
        for &(id, _) in &launches {
            self.launch(id);
        }
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
        // From the back, so the indices of those still to do stay valid.
        for &(id, k) in launches.iter().rev() {
            match self.units.get(id) {
                Some(unit) if unit.flight.is_none() => dense.set(k, unit),
                _ => dense.remove(k),
            }
        }
        launches.clear();
        self.scratch.launches = launches;
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
        self.goals.push(goal_of(u));
    }

    /// Gathers unit `u` again into entry `k`.
    fn set(&mut self, k: usize, u: &Unit) {
        if let (Some(b), Some(p), Some(r), Some(g)) = (
            self.bodies.get_mut(k),
            self.positions.get_mut(k),
            self.radii.get_mut(k),
            self.goals.get_mut(k),
        ) {
            (*b, *p, *r, *g) = (u.body, u.body.position, u.body.radius, goal_of(u));
        }
    }

    /// Takes entry `k` (a unit that took off) out of the arrays.
    fn remove(&mut self, k: usize) {
        if k >= self.ids.len() {
            return;
        }
        self.ids.remove(k);
        self.bodies.remove(k);
        self.positions.remove(k);
        self.radii.remove(k);
        self.goals.remove(k);
        if k < self.zones.len() {
            self.zones.remove(k);
        }
        *self.airborne += 1;
    }
}

/// Where arrive takes a unit: the next detour point, else its slot, else where it stands
/// (and at what velocity).
fn goal_of(u: &Unit) -> (Vec2, Vec2) {
    match (u.detour.first(), u.slot_target) {
        (Some(&p), _) => (p, Vec2::ZERO),
        (None, Some(t)) => (t.position, t.velocity),
        (None, None) => (u.body.position, Vec2::ZERO),
    }
}
