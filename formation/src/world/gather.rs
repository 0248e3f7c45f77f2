//! The steering stage's gather: one walk over the units plans their detours and copies those
//! on the ground into the dense per-unit arrays the rest of the unit stages work on.

use cohort_steering::{Body, Vec2};

use super::detours::DetourPlanner;
use super::unit_store::{Details, UnitMotion, UnitStore};
use super::units::FreeZone;
use super::{Scratch, World};
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
        let mut dense = DenseUnits {
            count: 0,
            ids: &mut scratch.ids,
            bodies: &mut scratch.bodies,
            positions: &mut scratch.positions,
            radii: &mut scratch.radii,
            goals: &mut scratch.goals,
            groups: &mut scratch.groups,
            zones: &mut scratch.zones,
            airborne: &mut scratch.airborne,
        };
        let (unit_limits, launches) = (&mut scratch.unit_limits, &mut scratch.launches);
        *unit_limits = (0.0, 0.0);
        let mut planner = DetourPlanner {
            terrain,
            settings,
            tick: *tick,
            path: &mut scratch.path,
            detour_path: &mut scratch.detour_path,
            plan: &mut scratch.detour_plan,
        };
        planner.reserve();
        launches.clear();
        dense.clear();
        let UnitStore {
            motion, details, ..
        } = units;
        for (id, unit) in motion.iter_mut() {
            if !unit.airborne && planner.plan(id, unit, details) {
                launches.push((id, dense.count));
            }
            unit_limits.0 = unit_limits.0.max(unit.body.radius);
            unit_limits.1 = unit_limits.1.max(unit.body.max_speed);
            dense.push(id, unit, details);
        }
        dense.finish();
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
        // Refused launches are gathered again in place; the units in the air leave the
        // arrays, all in one pass over each array.
        let (units, s) = (&self.units, &mut self.scratch);
        launches.retain(|&(id, k)| match units.get(id) {
            Some(unit) if !unit.airborne => {
                regather(s, k, id, unit, &units.details);
                false
            }
            _ => true,
        });
        remove_launched(s, &launches);
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
    groups: &'a mut Vec<u32>,
    zones: &'a mut Vec<FreeZone>,
    airborne: &'a mut usize,
    /// Entries pushed so far (`ids` keeps the last gather's keys beyond it until `finish`).
    count: usize,
}

impl DenseUnits<'_> {
    /// Starts a gather; `ids` is overwritten in place (see [`DenseUnits::push`]).
    fn clear(&mut self) {
        self.count = 0;
        self.bodies.clear();
        self.positions.clear();
        self.radii.clear();
        self.goals.clear();
        self.groups.clear();
        *self.airborne = 0;
    }

    /// Appends a unit on the ground; counts one in the air (units in the air neither steer
    /// nor collide; `World::fly_units` moves them).
    #[inline]
    fn push(&mut self, id: UnitId, u: &UnitMotion, details: &Details) {
        if u.airborne {
            *self.airborne += 1;
            return;
        }
        // A free zone stays with its unit while the unit keeps its place in the arrays: the
        // last gather's key at this index says whose zone it is.
        let k = self.count;
        let kept = match self.ids.get_mut(k) {
            Some(owner) if *owner == id => true,
            Some(owner) => {
                *owner = id;
                false
            }
            None => {
                self.ids.push(id);
                false
            }
        };
        if !kept {
            match self.zones.get_mut(k) {
                Some(zone) => *zone = FreeZone::closed(),
                None => self.zones.push(FreeZone::closed()),
            }
        }
        self.count += 1;
        let (body, position, radius, goal) = entry_of(id, u, details);
        self.bodies.push(body);
        self.positions.push(position);
        self.radii.push(radius);
        self.goals.push(goal);
        self.groups.push(u.group);
    }

    /// Ends a gather: `ids` as long as the other arrays.
    fn finish(&mut self) {
        self.ids.truncate(self.count);
    }
}

/// What the steering arrays hold of unit `u`: body, position, radius and goal.
#[inline]
fn entry_of(id: UnitId, u: &UnitMotion, details: &Details) -> (Body, Vec2, f32, (Vec2, Vec2)) {
    (
        u.body,
        u.body.position,
        u.body.radius,
        goal_of(id, u, details),
    )
}

/// Gathers unit `u` again into entry `k` of the steering arrays.
fn regather(s: &mut Scratch, k: usize, id: UnitId, u: &UnitMotion, details: &Details) {
    if let (Some(b), Some(p), Some(r), Some(g), Some(group)) = (
        s.bodies.get_mut(k),
        s.positions.get_mut(k),
        s.radii.get_mut(k),
        s.goals.get_mut(k),
        s.groups.get_mut(k),
    ) {
        (*b, *p, *r, *g) = entry_of(id, u, details);
        *group = u.group;
    }
}

/// Takes the entries `gone` (units that took off, by ascending index) out of the steering
/// arrays.
fn remove_launched(s: &mut Scratch, gone: &[(UnitId, usize)]) {
    if gone.is_empty() {
        return;
    }
    remove_sorted(&mut s.ids, gone);
    remove_sorted(&mut s.bodies, gone);
    remove_sorted(&mut s.positions, gone);
    remove_sorted(&mut s.radii, gone);
    remove_sorted(&mut s.goals, gone);
    remove_sorted(&mut s.groups, gone);
    remove_sorted(&mut s.zones, gone);
    s.airborne += gone.len();
}

/// Removes the elements at the indices of `gone` (ascending) from `v`, in one pass.
fn remove_sorted<T>(v: &mut Vec<T>, gone: &[(UnitId, usize)]) {
    let (mut k, mut next) = (0usize, 0usize);
    v.retain(|_| {
        let drop = gone.get(next).is_some_and(|&(_, at)| at == k);
        next += usize::from(drop);
        k += 1;
        !drop
    });
}

/// Where arrive takes a unit: the next detour point, else its slot, else where it stands
/// (and at what velocity).
#[inline]
fn goal_of(id: UnitId, u: &UnitMotion, details: &Details) -> (Vec2, Vec2) {
    let waypoint = u.details_in(id, details).and_then(|d| d.detour.first());
    match (waypoint, u.slot_target) {
        (Some(&p), _) => (p, Vec2::ZERO),
        (None, Some(t)) => (t.position, t.velocity),
        (None, None) => (u.body.position, Vec2::ZERO),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_sorted_indices_keeps_the_rest_in_order() {
        let gone = |at: &[usize]| -> Vec<(UnitId, usize)> {
            at.iter().map(|&k| (UnitId::default(), k)).collect()
        };
        let mut v: Vec<u32> = (0..8).collect();
        remove_sorted(&mut v, &gone(&[0, 3, 4, 7]));
        assert_eq!(v, vec![1, 2, 5, 6]);
        remove_sorted(&mut v, &gone(&[]));
        assert_eq!(v, vec![1, 2, 5, 6]);
        // Indices past the end are ignored.
        remove_sorted(&mut v, &gone(&[1, 9]));
        assert_eq!(v, vec![1, 5, 6]);
    }
}
