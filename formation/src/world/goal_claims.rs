//! Goals that leave each formation its own ground: formations ordered to one spot, or onto
//! ground another formation stands on, take places side by side instead of all walking to
//! the same slots and shoving round them for good.
//!
//! Each top-level formation claims the rectangle it will stand on (its [`Footprint`]): where
//! its goal is while it moves there, where its anchor is otherwise. When a move order is
//! applied ([`super::World::apply_orders`]), the rectangle the formation would stand on at
//! the ordered goal is tested against every other claim. If it overlaps one (shares ground
//! with it: formations ordered to stand close beside each other keep their places), the goal
//! moves to the nearest place on a lattice round it, spaced by the formation's own depth and
//! width plus [`super::WorldSettings::goal_gap`], where its rectangle keeps that gap from
//! every claim, its centre stands clear of obstacles and within the map, and the way from
//! the ordered goal is open (ring by ring outwards; in a ring, the places on the side the
//! formation comes from first, so formations arriving from all round do not walk through
//! each other to their places). The gap leaves the units at the edges of
//! two neighbours room: standing closer, a unit settling on its slot avoided the neighbour's
//! units and kept sliding past its slot. The formation then faces the way the rectangle was laid out, so it stands in exactly
//! the ground it claimed. Orders given in one tick are placed in the order they were given,
//! each against the claims of those before it; a formation ordered in the same tick is
//! judged by its new goal, not by where it stands (two formations ordered to each other's
//! places swap them).

use cohort_steering::Vec2;

use super::World;
use crate::formation::{Member, Motion};
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::ValidPattern;

/// Overlap (metres) two rectangles may have and still count as apart: rectangles laid out
/// exactly the gap apart must not be refused for a rounding error.
const TOLERANCE: f32 = 0.01;

/// Side of the cells claims are filed under, metres.
const CELL: f32 = 16.0;

/// Buckets the cells are hashed into.
const BUCKETS: usize = 1024;

/// Most cells a claim is filed under; a larger claim is kept on a list every test reads.
const MOST_CELLS: i64 = 16;

/// Lattice places tried on each side of the ordered goal, in each direction.
const REACH: i32 = 6;

/// Lattice places tried per scale: every place within [`REACH`] steps but the goal itself.
const PLACES: usize = ((2 * REACH + 1) * (2 * REACH + 1) - 1) as usize;

/// The lattice's spacing is the formation's own size; if no place is free within
/// [`REACH`] steps, the lattice is tried again this many times as coarse (a single beside a
/// large formation finds room past it).
const COARSER: [f32; 3] = [1.0, 3.0, 9.0];

/// The ground a formation stands on: a rectangle round `centre`, `half.x` along `facing`
/// (a unit vector) and `half.y` across it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Footprint {
    /// Its centre (the formation's anchor).
    pub(crate) centre: Vec2,
    /// Which way the formation faces (unit length).
    pub(crate) facing: Vec2,
    /// Half its depth (along `facing`) and half its width.
    pub(crate) half: Vec2,
}

impl Footprint {
    /// A footprint, or `None` when a number is not finite or the facing has no direction.
    pub(crate) fn new(centre: Vec2, facing: Vec2, half: Vec2) -> Option<Self> {
        let facing = facing.try_normalize()?;
        (centre.is_finite() && half.is_finite() && half.min_element() >= 0.0).then_some(Self {
            centre,
            facing,
            half,
        })
    }

    /// The same rectangle round `centre`.
    pub(crate) fn at(self, centre: Vec2) -> Self {
        Self { centre, ..self }
    }

    /// Half the sides of the box round the rectangle, along x and y.
    fn box_half(&self) -> Vec2 {
        let (f, s) = (self.facing, self.facing.perp());
        Vec2::new(
            f.x.abs() * self.half.x + s.x.abs() * self.half.y,
            f.y.abs() * self.half.x + s.y.abs() * self.half.y,
        )
    }

    /// How far the rectangle reaches along the unit vector `axis` from its centre.
    fn reach_along(&self, axis: Vec2) -> f32 {
        self.facing.dot(axis).abs() * self.half.x + self.facing.perp().dot(axis).abs() * self.half.y
    }

    /// Whether the two rectangles come closer than `gap` by more than [`TOLERANCE`]:
    /// separating axes, the four sides' directions.
    pub(crate) fn overlaps(&self, other: &Self, gap: f32) -> bool {
        let d = other.centre - self.centre;
        let axes = [
            self.facing,
            self.facing.perp(),
            other.facing,
            other.facing.perp(),
        ];
        axes.iter().all(|&axis| {
            let apart = d.dot(axis).abs() - self.reach_along(axis) - other.reach_along(axis);
            apart < gap - TOLERANCE
        })
    }
}

/// The claims of one batch of orders, filed by cell for the tests. Kept between ticks for
/// its buffers.
#[derive(Default)]
pub(crate) struct GoalClaims {
    /// Each claim, the formation that made it and, for a formation ordered in this batch,
    /// how far its order moves it.
    claims: Vec<Claim>,
    /// Per bucket: the claims filed in a cell hashed to it.
    buckets: Vec<Vec<u32>>,
    /// Buckets holding claims (emptied by [`Self::clear`]).
    used: Vec<u32>,
    /// Claims too large to file by cell.
    large: Vec<u32>,
    /// The gap claims keep between them, metres.
    gap: f32,
}

impl GoalClaims {
    /// Forgets every claim; claims of this batch keep `gap` metres apart.
    pub(crate) fn clear(&mut self, gap: f32) {
        for &b in &self.used {
            if let Some(bucket) = self.buckets.get_mut(b as usize) {
                bucket.clear();
            }
        }
        self.used.clear();
        self.large.clear();
        self.claims.clear();
        self.gap = if gap.is_finite() { gap.max(0.0) } else { 0.0 };
    }

    /// How many claims there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.claims.len()
    }

    /// Files formation `owner`'s claim to `ground`; `shift` is how far this batch's order
    /// moves it (`None` for a formation not ordered in it).
    pub(crate) fn add(&mut self, owner: FormationId, ground: Footprint, shift: Option<Vec2>) {
        let k = self.claims.len() as u32;
        self.claims.push(Claim {
            owner,
            ground,
            shift,
        });
        let Some((lo, hi)) = cells_of(&ground, self.gap) else {
            self.large.push(k);
            return;
        };
        if self.buckets.len() < BUCKETS {
            self.buckets.resize_with(BUCKETS, Vec::new);
        }
        for cy in lo.1..=hi.1 {
            for cx in lo.0..=hi.0 {
                let b = bucket_of(cx, cy);
                if let Some(bucket) = self.buckets.get_mut(b) {
                    if bucket.is_empty() {
                        self.used.push(b as u32);
                    }
                    if bucket.last() != Some(&k) {
                        bucket.push(k);
                    }
                }
            }
        }
    }

    /// Whether `ground` comes closer than `gap` to a claim of a formation other than
    /// `owner`, not counting the claims of formations this batch moves by the same `shift`
    /// as `owner`'s (formations ordered to keep their places relative to each other keep
    /// them: a group of squads standing close moved as one).
    pub(crate) fn overlaps(
        &self,
        (owner, shift): (FormationId, Option<Vec2>),
        ground: &Footprint,
        gap: f32,
    ) -> bool {
        let moved_alike = |other: Option<Vec2>| match (shift, other) {
            (Some(a), Some(b)) => (a - b).length_squared() <= SAME_SHIFT * SAME_SHIFT,
            _ => false,
        };
        let hit = |k: u32| {
            self.claims.get(k as usize).is_some_and(|c| {
                c.owner != owner && !moved_alike(c.shift) && c.ground.overlaps(ground, gap)
            })
        };
        if self.large.iter().any(|&k| hit(k)) {
            return true;
        }
        match cells_of(ground, self.gap) {
            Some((lo, hi)) => (lo.1..=hi.1).any(|cy| {
                (lo.0..=hi.0).any(|cx| {
                    self.buckets
                        .get(bucket_of(cx, cy))
                        .is_some_and(|bucket| bucket.iter().any(|&k| hit(k)))
                })
            }),
            None => (0..self.claims.len() as u32).any(hit),
        }
    }

    /// Where formation `owner` is to stand instead of `wanted`, when `wanted` overlaps
    /// another claim: the nearest place of the lattice round it (see the module docs) that
    /// keeps the gap from every claim and for which `usable` holds. `None` when `wanted`
    /// overlaps no claim (however close it comes), or no place is free.
    pub(crate) fn free_place(
        &self,
        owner: (FormationId, Option<Vec2>),
        (wanted, from): (Footprint, Vec2),
        mut usable: impl FnMut(Vec2) -> bool,
    ) -> Option<Vec2> {
        if !self.overlaps(owner, &wanted, 0.0) {
            return None;
        }
        // A place moves the formation by another shift than the goal it was ordered to.
        let owner = (owner.0, None);
        let right = -wanted.facing.perp();
        for scale in COARSER {
            let across = scale * (2.0 * wanted.half.y + self.gap).max(0.1);
            let along = scale * (2.0 * wanted.half.x + self.gap).max(0.1);
            let place = |(i, j): (i32, i32)| {
                wanted.centre + right * (i as f32 * across) + wanted.facing * (j as f32 * along)
            };
            for (i, j) in lattice(|ij| (place(ij) - from).length_squared()) {
                let at = place((i, j));
                if usable(at) && !self.overlaps(owner, &wanted.at(at), self.gap) {
                    return Some(at);
                }
            }
        }
        None
    }
}

/// One formation's claim.
#[derive(Clone, Copy, Debug)]
struct Claim {
    owner: FormationId,
    ground: Footprint,
    /// How far this batch's order moves the formation (`None`: not ordered in it).
    shift: Option<Vec2>,
}

/// Metres by which two orders' moves may differ and still count as the same move.
const SAME_SHIFT: f32 = 1e-3;

/// The lattice places round the goal (steps across and along), ring by ring (a ring: the
/// places a given number of steps away along one axis and no more along the other), each
/// ring's places in order of `away` (the squared distance from where the formation comes
/// from: the nearer side first, so formations arriving from all round take the places on
/// their own sides and none walks through another), ties by place.
fn lattice(away: impl Fn((i32, i32)) -> f32) -> [(i32, i32); PLACES] {
    let mut places = [(0i32, 0i32); PLACES];
    let mut n = 0;
    for j in -REACH..=REACH {
        for i in -REACH..=REACH {
            if (i, j) != (0, 0) {
                if let Some(p) = places.get_mut(n) {
                    *p = (i, j);
                }
                n += 1;
            }
        }
    }
    let ring = |&(i, j): &(i32, i32)| i.abs().max(j.abs());
    places.sort_by(|a, b| {
        ring(a)
            .cmp(&ring(b))
            .then(away(*a).total_cmp(&away(*b)))
            .then(a.cmp(b))
    });
    places
}

/// The cells (least and greatest, x then y) of the box round `ground` grown by `gap`, or
/// `None` when there are more than [`MOST_CELLS`] of them or a number is not finite.
fn cells_of(ground: &Footprint, gap: f32) -> Option<((i64, i64), (i64, i64))> {
    let half = ground.box_half() + Vec2::splat(gap);
    let (lo, hi) = (ground.centre - half, ground.centre + half);
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let cell = |v: f32| (v / CELL).floor() as i64;
    let (lo, hi) = ((cell(lo.x), cell(lo.y)), (cell(hi.x), cell(hi.y)));
    let count = (hi.0 - lo.0 + 1).saturating_mul(hi.1 - lo.1 + 1);
    (count <= MOST_CELLS).then_some((lo, hi))
}

/// The bucket cell `(cx, cy)` is filed in.
fn bucket_of(cx: i64, cy: i64) -> usize {
    let h = (cx as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (cy as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    ((h >> 32) as usize) % BUCKETS
}

/// Deepest formation tree [`World::stand_half`] walks.
const MOST_DEPTH: u32 = 64;

impl World {
    /// Files the ground of every top-level formation not ordered to move in `pending` (the
    /// batch of orders about to be applied), for [`Self::place_move`]. Returns whether
    /// the batch moves any top-level formation (nothing is filed otherwise).
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
        self.scratch.goal_claims = claims;
        self.scratch.moving_now = moving;
        true
    }

    /// `order` for formation `id`, its goal moved to ground of its own when it is a move of
    /// a top-level formation to ground another has claimed (see the module docs); files the
    /// ground it will stand on. Any other order as it is.
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
        let Some(f) = self.formations.get(id) else {
            return unchanged(pattern);
        };
        if f.parent.is_some() {
            return unchanged(pattern);
        }
        let half = match &pattern {
            Some(p) => {
                let reach = self.members_reach(id, 0);
                pattern_half(p, f.members.len(), reach)
            }
            None => self.stand_half(id, 0),
        };
        let (lo, hi) = self.terrain.bounds();
        let in_bounds = |p: Vec2| lo.x <= p.x && p.x <= hi.x && lo.y <= p.y && p.y <= hi.y;
        let at = if lo.x <= hi.x && lo.y <= hi.y {
            goal.clamp(lo, hi)
        } else {
            goal
        };
        let dir = facing
            .and_then(|v| v.try_normalize())
            .or_else(|| (at - f.anchor.position).try_normalize())
            .unwrap_or(f.anchor.orientation);
        let Some(wanted) = Footprint::new(at, dir, half) else {
            return unchanged(pattern);
        };
        if half == Vec2::ZERO {
            return unchanged(pattern);
        }
        let radius = self.largest_radius(id);
        let map = self.terrain.valid_map();
        let terrain = &self.terrain;
        let from = f.anchor.position;
        let shift = at - from;
        let claims = &mut self.scratch.goal_claims;
        let place = claims.free_place((id, Some(shift)), (wanted, from), |p| {
            in_bounds(p) && !map.is_blocked(p, radius) && terrain.line_of_sight(at, p, radius)
        });
        match place {
            Some(p) => {
                claims.add(id, wanted.at(p), None);
                Order::MoveTo {
                    goal: p,
                    facing: Some(dir),
                    pattern,
                    at_slowest,
                }
            }
            None => {
                claims.add(id, wanted, Some(shift));
                unchanged(pattern)
            }
        }
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
