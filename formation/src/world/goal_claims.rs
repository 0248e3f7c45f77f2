//! Goals that leave each formation its own ground: formations ordered to one spot, or onto
//! ground another formation stands on, take places side by side instead of all walking to
//! the same slots and shoving round them for good.
//!
//! Each top-level formation claims the rectangle it will stand on (its [`Footprint`]): round
//! the end of its planned path while it moves (turned to its goal facing, else along the
//! path's last leg), round its anchor otherwise. When a move order is applied
//! ([`super::World::apply_orders`]), the rectangle the formation would stand on at the ordered
//! goal (turned to the order's facing, else to the way from its anchor to the goal) is tested
//! against every other claim. If it overlaps one (shares ground with it: formations ordered to
//! stand close beside each other keep their places), the formation lines up with the one it
//! overlaps (the earliest filed: its facing, unless the order gave one), and its goal moves to
//! the first free place of a lattice round the goal (or round the nearest point to it a unit
//! can stand on), spaced by the formation's own depth and width plus
//! [`super::WorldSettings::goal_gap`]: ring by ring outwards, in a ring the places on the side
//! the formation comes from first, so formations arriving from all round do not walk through
//! each other to their places. A place is free when its rectangle keeps the gap from every
//! claim and lies inside the map, its centre is clear of obstacles and it is in sight of the
//! lattice's centre. The formation then faces the way its rectangle was laid out. A formation
//! whose own ground (turned to the order's facing, if it gives one) is free and no farther
//! from the goal stays on it. If no place is free, the goal stays.
//!
//! Each formation remembers the move it was last ordered and where it was placed
//! ([`OrderedMove`]). The same move given again (a click on the same spot: a goal within
//! [`REPEAT_DISTANCE`] of the first, the same facing, its own pattern) leaves it on that
//! ground while it is still bound for it or stands there, its claim filed before any other
//! formation of the tick is placed: a crowd of several rings round one point, ordered there
//! again in any order, stays as it is. One walking there already as it was ordered walks on:
//! the order is not applied again, and its path is not planned again.
//!
//! The gap leaves the units at the edges of two neighbours room: standing closer, units
//! settling on their slots were turned aside by the neighbour's units and slid about.
//!
//! Orders given in one tick are placed in the order they were given; each formation's claim is
//! filed once its order is applied (its path planned: a path that ends short of its goal, on
//! ground another claims, is placed and planned again round its end), and the next order is
//! placed against it. A formation ordered in the same tick is judged by its new goal, not by
//! where it stands (two formations ordered to each other's places swap them), one ordered onto
//! ground it stands on keeps it first, and formations whose orders move them alike (by the
//! same offset) keep their places relative to each other.

use cohort_steering::Vec2;

use super::World;
use crate::formation::{Member, Motion, OrderedMove};
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::ValidPattern;

mod ground;

pub(crate) use ground::{Footprint, GoalClaims};

/// Where the last placed formation found its place, for the next one of the batch ordered
/// to the same goal in the same size, facing and unit radius with no claim withdrawn since:
/// the ring to start from (every nearer ring was full for it, and only claims were added
/// since), so a crowd ordered to one point is placed in time proportional to its number times
/// a ring's places, not to its number squared.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RingHint {
    /// The ordered goal, the placed formation's facing, half size and unit radius, and the
    /// claims withdrawn before it was placed.
    key: (Vec2, Vec2, Vec2, f32, u32),
    /// The ring its place was found in.
    ring: i32,
}

/// How near a move's goal must be to the goal a formation was last ordered for the move to
/// repeat it (metres): a click on the same spot again. Also how far from the ground it was
/// placed on a standing formation may have drifted and still keep it.
const REPEAT_DISTANCE: f32 = 0.5;

/// The least cosine between two facings that repeat each other.
const SAME_FACING: f32 = 0.9999;

/// Deepest formation tree [`World::stand_half`] walks.
const MOST_DEPTH: u32 = 64;

impl World {
    /// Files the ground of every top-level formation not ordered to move in `pending` (the
    /// batch of orders about to be applied), for [`Self::place_move`]; a formation ordered to
    /// move onto ground it stands on (or is bound for) already keeps that ground first (a
    /// repeated order leaves settled formations where they stand). Returns whether the batch
    /// moves any top-level formation (nothing is filed otherwise).
    pub(super) fn claim_goals(&mut self, pending: &[(FormationId, Order)]) -> bool {
        let is_move = |(id, order): &(FormationId, Order)| {
            matches!(order, Order::MoveTo { .. })
                && self.formations.get(*id).is_some_and(|f| f.parent.is_none())
        };
        if !pending.iter().any(is_move) {
            return false;
        }
        let mut moving = std::mem::take(&mut self.scratch.moving_now);
        moving.clear();
        moving.extend(pending.iter().filter(|o| is_move(o)).map(|(id, _)| *id));
        moving.sort_unstable();
        moving.dedup();
        let mut claims = std::mem::take(&mut self.scratch.goal_claims);
        claims.clear(self.settings.goal_gap);
        for (id, f) in &self.formations {
            if f.parent.is_some() || moving.binary_search(&id).is_ok() {
                continue;
            }
            if let Some(ground) = self.standing_ground(id) {
                claims.add(id, ground, None);
            }
        }
        let mut seen = std::mem::take(&mut self.scratch.moving_seen);
        seen.clear();
        seen.resize(moving.len(), false);
        let mut repeats = std::mem::take(&mut self.scratch.moving_repeats);
        repeats.clear();
        repeats.resize(moving.len(), false);
        // The last move of each formation: given again as it was last ordered, the
        // formation keeps the ground it was placed on then (of two whose grounds now
        // overlap, the later given); else, ordered onto ground it stands on, it keeps that.
        for (id, order) in pending.iter().rev() {
            let Order::MoveTo {
                goal,
                facing,
                pattern,
                ..
            } = order
            else {
                continue;
            };
            let Ok(k) = moving.binary_search(id) else {
                continue;
            };
            match seen.get_mut(k) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            let Some(own) = self.standing_ground(*id) else {
                continue;
            };
            // (Its claim lies where the order will send it: the ground it was placed on.)
            let repeated = self.repeated_move(*id, *goal, *facing, pattern.as_ref());
            let kept = repeated.map(|m| own.at(m.placed));
            if let Some(kept) = kept.filter(|k| !claims.overlaps((*id, None), k, 0.0)) {
                claims.add(*id, kept, None);
                if let Some(r) = repeats.get_mut(k) {
                    *r = true;
                }
                continue;
            }
            let wanted = self.wanted_ground(*id, *goal, *facing, None);
            if let Some((wanted, _)) = wanted {
                if own.overlaps(&wanted, 0.0) {
                    claims.add(*id, own, None);
                }
            }
        }
        self.scratch.goal_claims = claims;
        self.scratch.moving_now = moving;
        self.scratch.moving_seen = seen;
        self.scratch.moving_repeats = repeats;
        self.scratch.ring_hint = None;
        true
    }

    /// `order` for formation `id`, its goal moved to ground of its own when it is a move of
    /// a top-level formation to ground another has claimed (see the module docs); the ground
    /// it will stand on is filed by [`Self::claim_placed`] once the order is applied. Any
    /// other order as it is.
    pub(super) fn place_move(&mut self, id: FormationId, order: Order) -> Order {
        let Order::MoveTo {
            goal,
            facing,
            pattern,
            at_slowest,
        } = order
        else {
            return order;
        };
        let unchanged = |pattern| Order::MoveTo {
            goal,
            facing,
            pattern,
            at_slowest,
        };
        // The move it was last ordered, given again: it keeps the ground it was placed on.
        let kept = self.scratch.moving_now.binary_search(&id).ok();
        if kept.and_then(|k| self.scratch.moving_repeats.get(k)) == Some(&true) {
            if let Some(m) = self.repeated_move(id, goal, facing, pattern.as_ref()) {
                self.scratch.placed = Some((id, None, m.placed));
                // Walking there already as it was ordered, it walks on, its path as it was
                // (planning it again would change nothing but cost a search).
                let walking = self.formations.get(id).is_some_and(|f| {
                    f.motion == Motion::Moving && f.goal_facing == m.placed_facing
                });
                if walking && at_slowest && pattern.is_none() {
                    self.scratch.walks_on = Some(id);
                }
                return Order::MoveTo {
                    goal: m.placed,
                    facing: m.placed_facing,
                    pattern,
                    at_slowest,
                };
            }
        }
        let Some((mut wanted, from)) = self.wanted_ground(id, goal, facing, pattern.as_ref())
        else {
            return unchanged(pattern);
        };
        let shift = wanted.centre - from;
        let owner = (id, Some(shift));
        // Ground no other formation claims: the order stands (nothing more to look up).
        let Some(first) = self.scratch.goal_claims.first_overlapped(owner, &wanted) else {
            self.scratch.placed = Some((id, Some(shift), wanted.centre));
            return unchanged(pattern);
        };
        // Without a facing of its own, it lines up with the formation whose ground it was
        // ordered onto (side by side, the same way).
        if facing.and_then(|v| v.try_normalize()).is_none() {
            wanted.facing = first.facing;
        }
        // The lattice round the goal, or round the nearest point to it a unit can stand on
        // (a goal on the map's edge or against an obstacle).
        let radius = self.largest_radius(id);
        let centre = self.terrain.push_out(wanted.centre, radius);
        let withdrawn = self.scratch.goal_claims.withdrawn();
        let key = (goal, wanted.facing, wanted.half, radius, withdrawn);
        let first_ring = self
            .scratch
            .ring_hint
            .filter(|h| h.key == key)
            .map_or(1, |h| h.ring);
        let usable = usable_places(&self.terrain, wanted, centre, radius);
        let claims = &self.scratch.goal_claims;
        let found = claims.free_place(owner, (wanted, centre, from), first_ring, &usable);
        // A formation whose own ground no other claims and that is no farther from the goal
        // stays on it (though a neighbour that turned on the spot came a little nearer than
        // the gap), turned the way the order says when it gives a facing.
        let ordered_facing = facing.and_then(|v| v.try_normalize());
        let own = self
            .standing_ground(id)
            .and_then(|own| match ordered_facing {
                Some(way) => Footprint::new(own.centre, way, own.half),
                None => Some(own),
            })
            .filter(|own| !claims.overlaps((id, None), own, 0.0) && usable(own.centre));
        let place = match (found, own) {
            (Some((p, _)), Some(own))
                if (own.centre - wanted.centre).length() <= (p - wanted.centre).length() + 1e-3 =>
            {
                wanted.facing = own.facing;
                Some(own.centre)
            }
            (Some((p, ring)), _) => {
                self.scratch.ring_hint = Some(RingHint { key, ring });
                Some(p)
            }
            (None, _) => {
                // No ring had room: nor will any for the next of the batch ordered alike.
                let ring = ground::MOST_RINGS + 1;
                self.scratch.ring_hint = Some(RingHint { key, ring });
                None
            }
        };
        match place {
            Some(p) => {
                self.scratch.placed = Some((id, None, p));
                Order::MoveTo {
                    goal: p,
                    facing: Some(wanted.facing),
                    pattern,
                    at_slowest,
                }
            }
            None => {
                self.scratch.placed = Some((id, Some(shift), wanted.centre));
                unchanged(pattern)
            }
        }
    }

    /// Files the claim of a top-level formation whose order was just applied, in place of any
    /// it had: the ground it will stand on (round the end of its planned path, turned along
    /// the path's last leg when its order gave no facing; where it stands when its order
    /// halted it), which later orders of the batch are placed against. `shift` is recorded
    /// for a move [`Self::place_move`] left where it was ordered.
    pub(super) fn claim_placed(&mut self, id: FormationId) {
        let (given, shift) = match self.scratch.placed.take() {
            Some((placed, shift, goal)) if placed == id => (Some(goal), shift),
            _ => (None, None),
        };
        if self.formations.get(id).is_none_or(|f| f.parent.is_some()) {
            return;
        }
        let Some(mut ground) = self.standing_ground(id) else {
            self.scratch.goal_claims.remove(id);
            return;
        };
        // Its path may end short of the goal it was given (a goal on an obstacle: the path
        // ends where the formation can stand nearest it), on ground another claims: it is
        // placed again round where its path ends.
        let planned = self
            .formations
            .get(id)
            .is_some_and(|f| f.motion == Motion::Moving);
        let ends_elsewhere = given.is_some_and(|g| (g - ground.centre).length() > 0.01);
        let claims = &self.scratch.goal_claims;
        // (Not moved alike with anyone once its path ends elsewhere than the move it shares.)
        let shift = if ends_elsewhere { None } else { shift };
        if planned && ends_elsewhere && claims.overlaps((id, shift), &ground, 0.0) {
            let radius = self.largest_radius(id);
            let from = self
                .formations
                .get(id)
                .map_or(ground.centre, |f| f.anchor.position);
            let usable = usable_places(&self.terrain, ground, ground.centre, radius);
            let found = claims.free_place((id, shift), (ground, ground.centre, from), 1, usable);
            if let Some((p, _)) = found {
                if let Some(f) = self.formations.get_mut(id) {
                    f.goal_facing = Some(ground.facing);
                }
                self.plan_move(id, p);
                ground = self.standing_ground(id).unwrap_or(ground.at(p));
            }
        }
        self.scratch.goal_claims.add(id, ground, shift);
    }

    /// The goal and facing a move to `given` for formation `id` is remembered by: those of the
    /// move it was last ordered when this one repeats it (see [`Self::repeated_move`]), else
    /// its own.
    pub(super) fn first_given(
        &self,
        id: FormationId,
        given: (Vec2, Option<Vec2>),
    ) -> (Vec2, Option<Vec2>) {
        let repeats = self.scratch.moving_now.binary_search(&id).ok();
        let repeated = repeats.and_then(|k| self.scratch.moving_repeats.get(k)) == Some(&true);
        match self.formations.get(id).and_then(|f| f.ordered_move) {
            Some(m) if repeated && repeats_goal(&m, given.0, given.1) => (m.goal, m.facing),
            _ => given,
        }
    }

    /// Records the move top-level formation `id` was just ordered (`given`: the goal and
    /// facing the order gave, `None` for any other order, or goals not spread) and where it
    /// was placed: its goal and goal facing once the order is applied.
    pub(super) fn remember_move(&mut self, id: FormationId, given: Option<(Vec2, Option<Vec2>)>) {
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        f.ordered_move = match (given, f.motion, f.goal) {
            (Some((goal, facing)), Motion::Moving, Some(placed)) if f.parent.is_none() => {
                Some(OrderedMove {
                    goal,
                    facing,
                    placed,
                    placed_facing: f.goal_facing,
                })
            }
            _ => None,
        };
    }

    /// The move formation `id` was last ordered, when a move to `goal` facing `facing` in
    /// `pattern` (its own when `None`) repeats it (the goal within [`REPEAT_DISTANCE`], the
    /// same facing or none again) and the formation is still bound for the ground it was
    /// placed on (or stands there).
    fn repeated_move(
        &self,
        id: FormationId,
        goal: Vec2,
        facing: Option<Vec2>,
        pattern: Option<&ValidPattern>,
    ) -> Option<OrderedMove> {
        let f = self.formations.get(id)?;
        let m = f.ordered_move?;
        let same_pattern = pattern.is_none_or(|p| *p == f.base_pattern);
        let on_ground = match (f.motion, f.goal) {
            (Motion::Moving, Some(g)) => (g - m.placed).length() <= 0.01,
            (Motion::Moving, None) => false,
            _ => (f.anchor.position - m.placed).length() <= REPEAT_DISTANCE,
        };
        (repeats_goal(&m, goal, facing) && same_pattern && on_ground).then_some(m)
    }

    /// The ground formation `id` (top-level) would stand on at `goal` (clamped to the map):
    /// in `pattern` (its own when `None`), turned to `facing`, else to the way from its anchor
    /// to the goal; and where its anchor is. `None` for a sub-formation, a formation of no
    /// members or numbers that are not finite.
    fn wanted_ground(
        &self,
        id: FormationId,
        goal: Vec2,
        facing: Option<Vec2>,
        pattern: Option<&ValidPattern>,
    ) -> Option<(Footprint, Vec2)> {
        let f = self.formations.get(id)?;
        if f.parent.is_some() {
            return None;
        }
        let half = match pattern {
            Some(p) => pattern_half(p, f.members.len(), self.members_reach(id, 0)),
            None => self.stand_half(id, 0),
        };
        if half == Vec2::ZERO {
            return None;
        }
        let at = self.terrain.clamp_to_map(goal);
        let from = f.anchor.position;
        let dir = facing
            .and_then(|v| v.try_normalize())
            .or_else(|| (at - from).try_normalize())
            .unwrap_or(f.anchor.orientation);
        Some((Footprint::new(at, dir, half)?, from))
    }

    /// The ground top-level formation `id` claims: round its goal while it moves there
    /// (facing its goal facing, else along its path's last leg), round its anchor otherwise.
    fn standing_ground(&self, id: FormationId) -> Option<Footprint> {
        let f = self.formations.get(id)?;
        let half = self.stand_half(id, 0);
        if half == Vec2::ZERO {
            return None;
        }
        let (centre, facing) = match (f.motion, f.goal) {
            (Motion::Moving, Some(goal)) => {
                let last_leg = match f.path.as_slice() {
                    [.., a, b] => (*b - *a).try_normalize(),
                    _ => None,
                };
                (goal, f.goal_facing.or(last_leg))
            }
            _ => (f.anchor.position, None),
        };
        Footprint::new(centre, facing.unwrap_or(f.anchor.orientation), half)
    }

    /// Half the depth and width formation `id` stands in, laid out in its own pattern (its
    /// members' radii, or its sub-formations' own halves, included); zero for none.
    fn stand_half(&self, id: FormationId, depth: u32) -> Vec2 {
        let Some(f) = self.formations.get(id) else {
            return Vec2::ZERO;
        };
        let reach = self.members_reach(id, depth);
        pattern_half(&f.base_pattern, f.members.len(), reach)
    }

    /// How far formation `id`'s largest member reaches from its slot: a unit's radius, or a
    /// sub-formation's larger half (0 for no members).
    fn members_reach(&self, id: FormationId, depth: u32) -> f32 {
        let Some(f) = self.formations.get(id) else {
            return 0.0;
        };
        let mut reach: f32 = 0.0;
        for m in &f.members {
            let r = match *m {
                Member::Unit(u) => self.units.get(u).map_or(0.0, |u| u.body.radius),
                Member::Formation(c) if depth < MOST_DEPTH => {
                    self.stand_half(c, depth + 1).max_element()
                }
                Member::Formation(_) => 0.0,
            };
            reach = reach.max(r);
        }
        reach
    }
}

/// Whether a move to `goal` facing `facing` gives the goal and facing of `m` again: the goal
/// within [`REPEAT_DISTANCE`], the same facing or none again.
fn repeats_goal(m: &OrderedMove, goal: Vec2, facing: Option<Vec2>) -> bool {
    let way = |v: Option<Vec2>| v.and_then(|v| v.try_normalize());
    let same_facing = match (way(facing), way(m.facing)) {
        (None, None) => true,
        (Some(a), Some(b)) => a.dot(b) >= SAME_FACING,
        _ => false,
    };
    (goal - m.goal).length() <= REPEAT_DISTANCE && same_facing
}

/// Whether a place at `p` suits ground like `wanted`: all of the rectangle round it in the
/// map, a unit of `radius` free to stand at `p`, and `p` in sight of `centre`.
fn usable_places(
    terrain: &super::terrain::Terrain,
    wanted: Footprint,
    centre: Vec2,
    radius: f32,
) -> impl Fn(Vec2) -> bool + '_ {
    let (lo, hi) = terrain.bounds();
    let in_bounds = move |p: Vec2| lo.x <= p.x && p.x <= hi.x && lo.y <= p.y && p.y <= hi.y;
    move |p: Vec2| {
        wanted.at(p).corners().iter().all(|&c| in_bounds(c))
            && !terrain.valid_map().is_blocked(p, radius)
            && terrain.line_of_sight(centre, p, radius)
    }
}

/// Half the depth and width of `pattern` laid out for `count` members that reach `reach`
/// from their slots (zero for no members).
fn pattern_half(pattern: &ValidPattern, count: usize, reach: f32) -> Vec2 {
    if count == 0 || !(reach.is_finite() && reach >= 0.0) {
        return Vec2::ZERO;
    }
    let slots = pattern.extent(count) - Vec2::splat(2.0 * pattern.unit_radius());
    (0.5 * slots.max(Vec2::ZERO) + Vec2::splat(reach)).max(Vec2::ZERO)
}

#[cfg(test)]
mod tests;
