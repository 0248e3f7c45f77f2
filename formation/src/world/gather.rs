//! The gather stage of a tick: one walk over the units plans their detours and copies those
//! on the ground into a [`UnitFrame`], the dense per-unit arrays the unit stages pass on
//! (steering, constraints, flight).

use cohort_steering::{Body, Vec2};

use super::World;
use super::detours::DetourPlanner;
use super::free_zone::FreeZone;
use super::separation::Heading;
use super::unit_store::{Details, UnitMotion, UnitStore};
use crate::ids::UnitId;

/// The units on the ground, densely and in key order: what the gather stage returns and the
/// steering, constraint and flight stages read and write in turn. The world keeps the frame
/// between ticks so that its buffers are reused (a warm tick allocates nothing), and so that
/// the velocities steering chose can be read after the tick ([`World::desired_velocity`]).
/// A clone or a restored world starts with an empty frame (it is not state).
#[derive(Default)]
pub(crate) struct UnitFrame {
    /// Per unit: its key. Overwritten in place by each gather, so the key an entry held last
    /// tick says whose free zone (`zones`) the entry holds.
    pub(crate) ids: Vec<UnitId>,
    /// Per unit: its body; steering moves it, the constraints correct it and write it back.
    pub(crate) bodies: Vec<Body>,
    /// Per unit: where it stood before this tick's move (filled by steering).
    pub(crate) previous: Vec<Vec2>,
    /// Per unit: where it stands (gathered), then where steering moved it.
    pub(crate) positions: Vec<Vec2>,
    pub(crate) radii: Vec<f32>,
    /// Per unit: where arrive takes it (first detour point, else the slot, else where it
    /// stands) and at what velocity.
    pub(crate) goals: Vec<(Vec2, Vec2)>,
    /// Per unit: what its goal is, as separation's turn round a squad-mate in the way reads
    /// it (see [`round_blocker`](super::separation::round_blocker)).
    pub(crate) headings: Vec<Heading>,
    /// Per unit: its avoidance group (see `world/avoidance.rs`).
    pub(crate) groups: Vec<u32>,
    /// Per unit: a ball known to hold no static geometry, kept between ticks while the unit
    /// keeps its place in these arrays; steering and the constraints skip their geometry
    /// queries inside it.
    pub(crate) zones: Vec<FreeZone>,
    /// Per unit: the velocity steering and avoidance chose this tick, before the constraints.
    pub(crate) desired: Vec<Vec2>,
    /// Units in the air when the gather looked (the flight stage has nothing to do at 0).
    pub(crate) airborne: usize,
    /// Largest radius and top speed over all units, those in the air included (they size the
    /// neighbour grid).
    pub(crate) unit_limits: (f32, f32),
    /// Units that reached a take-off point this tick, with their index in the arrays.
    launches: Vec<(UnitId, usize)>,
}

impl Clone for UnitFrame {
    /// The frame is not state: a clone starts empty.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for UnitFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnitFrame")
            .field("units", &self.ids.len())
            .field("airborne", &self.airborne)
            .finish_non_exhaustive()
    }
}

impl World {
    /// Gather stage: the frame of the unit stages, from one walk over the units that also
    /// plans their detours (see [`DetourPlanner::plan`]): every unit on the ground, in key
    /// order. Units that reach a take-off point launch afterwards (and leave the frame when
    /// they fly). `frame` is last tick's, whose buffers are reused.
    pub(super) fn gather_units(&mut self, mut frame: UnitFrame) -> UnitFrame {
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
            ids: &mut frame.ids,
            bodies: &mut frame.bodies,
            positions: &mut frame.positions,
            radii: &mut frame.radii,
            goals: &mut frame.goals,
            headings: &mut frame.headings,
            groups: &mut frame.groups,
            zones: &mut frame.zones,
            airborne: &mut frame.airborne,
        };
        let (unit_limits, launches) = (&mut frame.unit_limits, &mut frame.launches);
        *unit_limits = (0.0, 0.0);
        let mut planner = DetourPlanner {
            terrain,
            settings,
            tick: *tick,
            path: &mut scratch.path,
            detour_path: &mut scratch.detour_path,
            plan: &mut scratch.detour_plan,
            slanted: &mut scratch.detour_slanted,
            slanted_left: super::detours::SLANTED_DETOURS_PER_TICK,
        };
        planner.reserve();
        launches.clear();
        dense.clear();
        let UnitStore {
            motion, details, ..
        } = units;
        dense.make_room(motion.len());
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
            return frame;
        }
        // A launch (or a refused one, which may drop the unit's jump and detour) changes what
        // was gathered of the unit: it leaves the arrays when it flies, else its entry is
        // gathered again. Rare: only ticks in which a unit stands at a take-off.
        let mut launches = std::mem::take(&mut frame.launches);
        for &(id, _) in &launches {
            self.launch(id);
        }
        // Refused launches are gathered again in place; the units in the air leave the
        // arrays, all in one pass over each array.
        let units = &self.units;
        launches.retain(|&(id, k)| match units.get(id) {
            Some(unit) if !unit.airborne => {
                regather(&mut frame, k, id, unit, &units.details);
                false
            }
            _ => true,
        });
        remove_launched(&mut frame, &launches);
        launches.clear();
        frame.launches = launches;
        frame
    }
}

/// The frame's per-unit arrays, filled by [`World::gather_units`].
struct DenseUnits<'a> {
    ids: &'a mut Vec<UnitId>,
    bodies: &'a mut Vec<Body>,
    positions: &'a mut Vec<Vec2>,
    radii: &'a mut Vec<f32>,
    goals: &'a mut Vec<(Vec2, Vec2)>,
    headings: &'a mut Vec<Heading>,
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
        self.headings.clear();
        self.groups.clear();
        *self.airborne = 0;
    }

    /// Makes room for `n` units in every array: exactly `n` the first time (an army built
    /// at once holds no slack), then a quarter more than needed at each growth (units
    /// added a few at a time do not copy the arrays each tick).
    fn make_room(&mut self, n: usize) {
        fn room<T>(v: &mut Vec<T>, n: usize) {
            let cap = v.capacity();
            if cap < n {
                let want = if cap == 0 { n } else { n.max(cap + cap / 4) };
                v.reserve_exact(want - v.len());
            }
        }
        room(self.ids, n);
        room(self.bodies, n);
        room(self.positions, n);
        room(self.radii, n);
        room(self.goals, n);
        room(self.headings, n);
        room(self.groups, n);
        room(self.zones, n);
    }

    /// Appends a unit on the ground; counts one in the air (units in the air neither steer
    /// nor collide; the flight stage moves them).
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
        self.headings.push(heading_of(u));
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

/// Gathers unit `u` again into entry `k` of the frame.
fn regather(s: &mut UnitFrame, k: usize, id: UnitId, u: &UnitMotion, details: &Details) {
    if let (Some(b), Some(p), Some(r), Some(g), Some(heading), Some(group)) = (
        s.bodies.get_mut(k),
        s.positions.get_mut(k),
        s.radii.get_mut(k),
        s.goals.get_mut(k),
        s.headings.get_mut(k),
        s.groups.get_mut(k),
    ) {
        (*b, *p, *r, *g) = entry_of(id, u, details);
        *heading = heading_of(u);
        *group = u.group;
    }
}

/// Takes the entries `gone` (units that took off, by ascending index) out of the frame.
fn remove_launched(s: &mut UnitFrame, gone: &[(UnitId, usize)]) {
    if gone.is_empty() {
        return;
    }
    remove_sorted(&mut s.ids, gone);
    remove_sorted(&mut s.bodies, gone);
    remove_sorted(&mut s.positions, gone);
    remove_sorted(&mut s.radii, gone);
    remove_sorted(&mut s.goals, gone);
    remove_sorted(&mut s.headings, gone);
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

/// What unit `u`'s goal is (see [`Heading`]): its slot moving or not, and whether it walks a
/// detour to it.
#[inline]
fn heading_of(u: &UnitMotion) -> Heading {
    use super::separation::STRAGGLE_DISTANCE;
    match u.slot_target {
        Some(t)
            if t.velocity != Vec2::ZERO
                && (t.position - u.body.position).length_squared()
                    > STRAGGLE_DISTANCE * STRAGGLE_DISTANCE =>
        {
            Heading::Straggling
        }
        Some(t) if t.velocity != Vec2::ZERO && u.routed => Heading::Detour,
        Some(t) if t.velocity != Vec2::ZERO => Heading::MovingSlot,
        _ => Heading::StillSlot,
    }
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
