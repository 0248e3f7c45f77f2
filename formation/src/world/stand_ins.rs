//! Stand-ins for slots in obstacles: where a formation's pattern is wider than the ground
//! beside its path (a box rounding the corner of a block its path was planned round with less
//! clearance than its half-width), some of its slots fall inside the obstacle. A member
//! cannot stand there; steering it at the slot holds it against the obstacle's face (or
//! slides it along the face away from its formation). Each such slot target is replaced by a
//! stand-in at the obstacle's edge on the formation's side (see [`stand_in`]), moving with the
//! slot along that edge. Only the obstacles the
//! formation's path goes round count (see `world/formation_nav.rs`): a member whose slot is
//! in a small obstacle steers round it as before.

use cohort_pathing::ValidMap;
use cohort_steering::Vec2;

use super::World;
use crate::formation::{Member, SlotTarget};

/// A slot the member's disc can come within this fraction of its radius of needs no
/// stand-in: standing against the geometry, the member is as good as on it.
const REACH_TOLERANCE: f32 = 0.1;

/// Halvings of the anchor-to-slot line in the search for the stand-in: the stand-in lies
/// within 1/4096 of that line's length of the farthest point reachable on it.
const SEARCH_STEPS: u32 = 12;

impl World {
    /// Replaces the slot targets that lie in an obstacle (for the member's radius) with
    /// stand-ins, for every formation of the tick's order: the formation stage's last step,
    /// after lanes moved targets aside. A formation whose targets all lie within open ground
    /// around its anchor (one clearance query, the usual case) is not looked at further;
    /// a formation of one unit neither (its target is a point of its path, see
    /// `world/single_walk.rs`). The clearance queries, one per formation reading nothing any
    /// other writes, run first on the pool's threads; then the few formations they leave
    /// have their targets replaced, in order.
    pub(super) fn stand_in_blocked_slots(&mut self) {
        let Self {
            units,
            formations,
            scratch,
            terrain,
            formation_nav,
            settings,
            ..
        } = self;
        let map = formation_nav
            .valid_map(terrain.map(), settings.small_obstacle_radius)
            .unwrap_or(terrain.valid_map());
        let (order, tallies, formations_ref) = (&scratch.order, &scratch.tallies, &*formations);
        let blocked = &mut scratch.stand_in_blocked;
        super::par::map_indexed_into(order.len(), blocked, CHECKS_PER_TASK, |k| {
            let (Some(f), Some(t)) = (
                order.get(k).and_then(|&id| formations_ref.get(id)),
                tallies.get(k),
            ) else {
                return false;
            };
            let (centre, reach) = (t.target_centre, t.target_reach);
            !(f.is_single() || !(reach > 0.0) || map.clearance_capped(centre, reach) >= reach)
        });
        for (&id, _) in order.iter().zip(blocked.iter()).filter(|(_, b)| **b) {
            let Some(f) = formations.get(id) else {
                continue;
            };
            let from = f.anchor.position;
            for m in &f.members {
                let Member::Unit(u) = *m else {
                    continue;
                };
                let Some(unit) = units.get_mut(u) else {
                    continue;
                };
                if let Some(target) = unit.slot_target {
                    unit.slot_target = Some(stand_in(map, from, target, unit.body.radius));
                }
            }
        }
    }
}

/// Formations per task of the clearance queries on several threads.
const CHECKS_PER_TASK: usize = 256;

/// The target a member of radius `radius` steers to for slot `target` of a formation whose
/// anchor stands at `from`: the slot itself when the disc fits there (or within
/// [`REACH_TOLERANCE`] of its radius); else the nearest point to the slot where the disc
/// fits, if the anchor sees it (a slot just inside a wall's face stands just outside it),
/// else the farthest point on the line from the anchor to the slot that the disc can sweep
/// to from the anchor (the nearest free point of a slot deep in a block's corner may lie
/// round the corner, on the far side of the block from the formation). The stand-in moves
/// with the slot, less the slot's motion into the geometry. Should the anchor itself stand
/// in the geometry, the nearest free point to the slot; the slot itself when there is none.
/// Never a non-finite point.
pub(super) fn stand_in(map: &ValidMap, from: Vec2, target: SlotTarget, radius: f32) -> SlotTarget {
    let slot = target.position;
    if !map.is_blocked(slot, radius * (1.0 - REACH_TOLERANCE)) {
        return target;
    }
    let anchor_free = !map.is_blocked(from, radius);
    let position = match map.nearest_free_point(slot, radius) {
        Some(q) if !anchor_free || map.line_of_sight(from, q, radius) => q,
        _ if anchor_free => farthest_in_sight(map, from, slot, radius),
        _ => return target,
    };
    // The slot's velocity without its part into the geometry.
    let out = (position - slot).normalize_or_zero();
    let into = target.velocity.dot(out).min(0.0);
    let velocity = target.velocity - out * into;
    if !position.is_finite() || !velocity.is_finite() {
        return target;
    }
    SlotTarget {
        position,
        velocity,
        facing: target.facing,
    }
}

/// The farthest point on the line from `from` (where a disc of `radius` is free) towards
/// `to` that the disc can sweep to from `from`.
fn farthest_in_sight(map: &ValidMap, from: Vec2, to: Vec2, radius: f32) -> Vec2 {
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..SEARCH_STEPS {
        let mid = 0.5 * (lo + hi);
        if map.line_of_sight(from, from + (to - from) * mid, radius) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    from + (to - from) * lo
}

#[cfg(test)]
mod tests;
