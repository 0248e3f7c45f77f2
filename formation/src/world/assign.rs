//! Slot assignment inside the world: lay the pattern out for the members and match them to
//! the slots (fresh, or the periodic stability-checked re-optimization).

use super::World;
use super::unit_store::UnitStore;
use crate::assignment::{AssignmentConfig, CostMetric, Located, SlotAssignment};
use crate::formation::{Member, Motion};
use crate::ids::FormationId;
use crate::pattern::Role;

impl World {
    /// Lays the pattern out for the current member count and assigns members to slots at
    /// minimum total cost (roles respected), so that `members[i]` holds `slots[i]`. With
    /// `fresh == false` the current assignment is kept unless the optimum gains enough (the
    /// periodic stability-checked re-optimization). Returns whether the formation's
    /// sub-formations now stand in a different order (its subtree's run of the formation
    /// order is then stale).
    pub(super) fn assign_slots(&mut self, id: FormationId, fresh: bool) -> bool {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        let Some(f) = formations.get(id) else {
            return false;
        };
        // A member stuck far from its slot (pressed against neighbours whose slots cross its
        // own, as after a form-up from a clump) is not freed by the stability-checked
        // re-optimization, whose hysteresis keeps the crossing assignment: solve afresh.
        let for_stuck = !fresh && f.members.iter().any(|m| stuck(units, *m));
        let fresh = fresh || for_stuck;
        let n = f.members.len();
        // An empty formation has no slots (some layouts index `count - 1`).
        if n == 0 {
            scratch.slots.clear();
        } else {
            f.pattern().layout(n, &mut scratch.slots);
        }
        scratch.located_members.clear();
        // Closed up into ranks (for a passage, or to pass an oncoming formation in one): a
        // member out to the side of the ranks counts as
        // that much further back (it must first walk in from the side). The plain distance
        // ties many orders of members behind a file's slots, so this settles only some of
        // them towards the members in line with the passage.
        let flank = f.narrowed.as_ref().filter(|_| f.in_column).map(|p| {
            let half = 0.5 * p.width(n);
            (f.anchor.position, f.anchor.orientation, half)
        });
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
            let pos = match (flank, m) {
                (Some((anchor, facing, half)), Member::Unit(_)) => {
                    let side = (pos - anchor).dot(facing.perp()).abs() - half;
                    pos - facing * (FLANK_WEIGHT * side.max(0.0))
                }
                _ => pos,
            };
            scratch.located_members.push(Located::new(pos, role));
        }
        scratch.located_slots.clear();
        // Where the slots will stand: closed-up ranks on the move stand along the path.
        let frame = super::ranks_along::SlotFrame::of(f);
        scratch.located_slots.extend(
            scratch
                .slots
                .iter()
                .map(|s| Located::new(frame.position(s.offset), s.role)),
        );
        scratch.current.slot_of.clear();
        if !fresh && f.slots.len() == n {
            scratch.current.slot_of.extend((0..n).map(Some));
        }
        if scratch.assignment.is_none() {
            scratch.assignment = SlotAssignment::new(AssignmentConfig::default()).ok();
        }
        if let Some(solver) = scratch.assignment.as_mut() {
            // Solved afresh for a stuck member of a top-level formation that stands, by
            // squared distance: plain distance would as soon move that member across the whole
            // pattern as move a row of the others a slot each, and a member left outside its
            // formation's box at the goal, its slot on the far side, stood there for good
            // (squad-mates leave each other to separation, which never lets one through). By
            // squared distance it takes a slot at the near edge and the others each shift a
            // slot. (On the move, the others shifting slots held the formation back: the
            // chokepoint and its copies took 570.4 s on average instead of 560.7.)
            let stands = f.motion != Motion::Moving && f.parent.is_none();
            solver.set_metric(if for_stuck && stands {
                CostMetric::SquaredDistance
            } else {
                CostMetric::Distance
            });
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
            return false;
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
        // Sub-formations in a new order are walked in that order from the next tick on.
        let sub = |m: &Member| matches!(m, Member::Formation(_));
        let reordered = !f.members.iter().filter(|m| sub(m)).eq(scratch
            .reordered
            .iter()
            .flatten()
            .filter(|m| sub(m)));
        f.members.clear();
        f.members
            .extend(scratch.reordered.iter().flatten().copied());
        // Copy, not swap: each buffer keeps its own capacity, so re-assignments once warm do
        // not allocate (a swap would hand the scratch a formation's smaller buffer).
        f.slots.clear();
        f.slots.extend_from_slice(&scratch.slots);
        f.needs_assignment = false;
        reordered
    }
}

/// Metres a member of closed-up ranks (`Formation::in_column`) counts as further back per
/// metre it stands out to the side of them (see [`World::assign_slots`]).
const FLANK_WEIGHT: f32 = 1.5;

/// A unit member making no progress towards a slot well away: farther than two radii (and
/// 1 m) from it, slower than a tenth of its top speed relative to the slot, on no detour or
/// on the last leg of one, and not in the air.
fn stuck(units: &UnitStore, member: Member) -> bool {
    let Member::Unit(id) = member else {
        return false;
    };
    let Some(u) = units.get(id) else {
        return false;
    };
    let Some(t) = u.slot_target else {
        return false;
    };
    let far = (t.position - u.body.position).length() > (2.0 * u.body.radius).max(1.0);
    let still = (u.body.velocity - t.velocity).length() < 0.1 * u.body.max_speed;
    // On no detour, or on its last leg: one point left, the slot (a unit pressed against the
    // map's edge or a wall has its slot out of sight for its full width, and plans a detour
    // that is the straight way there), or the point nearest the slot a detour reached.
    // (Counting only detours whose one point is the slot was measured and not kept: two
    // random gap crossings of 1,500 then stood for good, a member far from its slot at the
    // end of its detour.)
    let walking = || {
        u.details_in(id, &units.details)
            .is_none_or(|d| d.detour.len() <= 1 && d.flight.is_none())
    };
    far && still && walking()
}
