//! The ground formations claim: rectangles ([`Footprint`]), the claims of one batch of orders
//! filed by cell ([`GoalClaims`]), and the search for a free place round a goal.

use cohort_steering::Vec2;
use slotmap::SecondaryMap;

use crate::ids::FormationId;

/// Overlap (metres) two rectangles may have and still count as apart: rectangles laid out
/// exactly the gap apart must not be refused for a rounding error.
pub(super) const TOLERANCE: f32 = 0.01;

/// The least cosine between the facings of two claims round one centre that cover the same
/// ground (within [`TOLERANCE`] at the corners of a formation a few tens of metres wide).
const SAME_FACING: f32 = 0.99999;

/// Side of the cells claims are filed under, metres.
const CELL: f32 = 16.0;

/// Buckets the cells are hashed into.
const BUCKETS: usize = 1024;

/// Most cells a claim is filed under; a larger claim is kept on a list every test reads.
const MOST_CELLS: i64 = 16;

/// Rings of lattice places tried round a goal (ring `k`: the `8k` places `k` steps away
/// along one axis and no more along the other): room for `4 × 48 × 49` formations round one
/// point.
pub(super) const MOST_RINGS: i32 = 48;

/// Metres by which two orders' moves may differ and still count as the same move, at the
/// origin (more far from it, where coordinates are coarser).
const SAME_SHIFT: f32 = 1e-3;

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

    /// The rectangle's four corners.
    pub(crate) fn corners(&self) -> [Vec2; 4] {
        let (f, s) = (self.facing * self.half.x, self.facing.perp() * self.half.y);
        let c = self.centre;
        [c + f + s, c + f - s, c - f - s, c - f + s]
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

    /// Whether the two rectangles come closer than `gap` by more than [`TOLERANCE`] along
    /// the direction of any of their sides (separating axes: each rectangle grown by the gap
    /// along its sides' directions).
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

/// One formation's claim.
#[derive(Clone, Copy, Debug)]
struct Claim {
    owner: FormationId,
    ground: Footprint,
    /// How far this batch's order moves the formation (`None`: not moved by an order of it
    /// to the goal it was given).
    shift: Option<Vec2>,
    /// Whether it still holds (a formation's later claim in the batch replaces it).
    live: bool,
}

/// The claims of one batch of orders, filed by cell for the tests. Kept between ticks for
/// its buffers.
#[derive(Default)]
pub(crate) struct GoalClaims {
    /// Every claim filed in this batch.
    claims: Vec<Claim>,
    /// Per formation: its live claim.
    by_owner: SecondaryMap<FormationId, u32>,
    /// Per bucket: the claims filed in a cell hashed to it.
    buckets: Vec<Vec<u32>>,
    /// Buckets holding claims (emptied by [`Self::clear`]).
    used: Vec<u32>,
    /// Claims too large to file by cell.
    large: Vec<u32>,
    /// The gap claims keep between them, metres.
    gap: f32,
    /// How many live claims were withdrawn in this batch.
    withdrawn: u32,
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
        self.by_owner.clear();
        self.withdrawn = 0;
        self.gap = if gap.is_finite() { gap.max(0.0) } else { 0.0 };
    }

    /// How many claims hold.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.claims.iter().filter(|c| c.live).count()
    }

    /// Files formation `owner`'s claim to `ground`, in place of any it made before; `shift`
    /// is how far this batch's order moves it to the goal it was given (`None` otherwise).
    /// A claim filed again round the same centre, as large and facing the same way, frees no
    /// place of the lattices searched so far, so it is not counted as withdrawn (a formation
    /// given its move again is filed twice so).
    pub(crate) fn add(&mut self, owner: FormationId, ground: Footprint, shift: Option<Vec2>) {
        let same = self
            .by_owner
            .get(owner)
            .and_then(|&k| self.claims.get(k as usize))
            .is_some_and(|c| {
                c.live
                    && (c.ground.centre - ground.centre).length() <= TOLERANCE
                    && (c.ground.half - ground.half).abs().max_element() <= TOLERANCE
                    && c.ground.facing.dot(ground.facing) >= SAME_FACING
            });
        let withdrawn = self.withdrawn;
        self.remove(owner);
        if same {
            self.withdrawn = withdrawn;
        }
        let k = self.claims.len() as u32;
        self.claims.push(Claim {
            owner,
            ground,
            shift,
            live: true,
        });
        self.by_owner.insert(owner, k);
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

    /// Withdraws formation `owner`'s claim, if it has one.
    pub(crate) fn remove(&mut self, owner: FormationId) {
        if let Some(k) = self.by_owner.remove(owner) {
            if let Some(c) = self.claims.get_mut(k as usize) {
                c.live = false;
                self.withdrawn = self.withdrawn.wrapping_add(1);
            }
        }
    }

    /// How many live claims were withdrawn in this batch (a place freed: a search may no
    /// longer start past the rings it found full).
    pub(crate) fn withdrawn(&self) -> u32 {
        self.withdrawn
    }

    /// Whether `ground` comes closer than `gap` to a claim of a formation other than
    /// `owner`, not counting the claims of formations this batch moves by the same `shift`
    /// as `owner`'s (formations ordered to keep their places relative to each other keep
    /// them: a group of squads standing close moved as one).
    pub(crate) fn overlaps(
        &self,
        owner: (FormationId, Option<Vec2>),
        ground: &Footprint,
        gap: f32,
    ) -> bool {
        let mut found = false;
        self.each_near(ground, gap, |k| {
            found = self.hits(k, owner, ground, gap);
            !found
        });
        found
    }

    /// The ground of the earliest filed claim [`Self::overlaps`] counts with no gap, if any.
    pub(crate) fn first_overlapped(
        &self,
        owner: (FormationId, Option<Vec2>),
        ground: &Footprint,
    ) -> Option<Footprint> {
        let mut first: Option<u32> = None;
        self.each_near(ground, 0.0, |k| {
            if first.is_none_or(|f| k < f) && self.hits(k, owner, ground, 0.0) {
                first = Some(k);
            }
            true
        });
        first
            .and_then(|k| self.claims.get(k as usize))
            .map(|c| c.ground)
    }

    /// Whether claim `k` counts against `owner`'s `ground` (see [`Self::overlaps`]).
    fn hits(
        &self,
        k: u32,
        (owner, shift): (FormationId, Option<Vec2>),
        ground: &Footprint,
        gap: f32,
    ) -> bool {
        let Some(c) = self.claims.get(k as usize) else {
            return false;
        };
        let moved_alike = match (shift, c.shift) {
            (Some(a), Some(b)) => {
                let scale = c.ground.centre.abs().max_element().min(f32::MAX);
                let tolerance = SAME_SHIFT + 16.0 * f32::EPSILON * scale;
                (a - b).length() <= tolerance
            }
            _ => false,
        };
        c.live && c.owner != owner && !moved_alike && c.ground.overlaps(ground, gap)
    }

    /// Calls `f` with every claim that may come within `gap` of `ground` (some more than
    /// once), until it returns false.
    fn each_near(&self, ground: &Footprint, gap: f32, mut f: impl FnMut(u32) -> bool) {
        for &k in &self.large {
            if !f(k) {
                return;
            }
        }
        match cells_of(ground, gap.max(self.gap)) {
            Some((lo, hi)) => {
                for cy in lo.1..=hi.1 {
                    for cx in lo.0..=hi.0 {
                        let bucket = self.buckets.get(bucket_of(cx, cy)).map_or(&[][..], |b| b);
                        for &k in bucket {
                            if !f(k) {
                                return;
                            }
                        }
                    }
                }
            }
            None => {
                for k in 0..self.claims.len() as u32 {
                    if !f(k) {
                        return;
                    }
                }
            }
        }
    }

    /// Where formation `owner`, coming from `from`, is to stand instead of `wanted`, when
    /// `wanted` overlaps another claim: the first place, from ring `first_ring` on, of the
    /// lattice round `centre` (steps of the formation's depth and width plus the gap, along
    /// and across `wanted`'s facing; see [`ring`]) that keeps the gap from every claim and
    /// for which `usable` holds. Returns it and its ring; `None` when `wanted` overlaps no
    /// claim (however close it comes), or no place is free.
    pub(crate) fn free_place(
        &self,
        owner: (FormationId, Option<Vec2>),
        (wanted, centre, from): (Footprint, Vec2, Vec2),
        first_ring: i32,
        usable: impl Fn(Vec2) -> bool,
    ) -> Option<(Vec2, i32)> {
        if !self.overlaps(owner, &wanted, 0.0) {
            return None;
        }
        // A place moves the formation by another shift than the goal it was ordered to.
        let owner = (owner.0, None);
        let right = -wanted.facing.perp();
        let across = (2.0 * wanted.half.y + self.gap).max(0.1);
        let along = (2.0 * wanted.half.x + self.gap).max(0.1);
        let place = |(i, j): (i32, i32)| {
            centre + right * (i as f32 * across) + wanted.facing * (j as f32 * along)
        };
        let mut places = [(0.0f32, 0i32, 0i32); 8 * MOST_RINGS as usize];
        for k in first_ring.max(1)..=MOST_RINGS {
            let n = ring(k, |ij| (place(ij) - from).length_squared(), &mut places);
            for &(_, i, j) in places.get(..n).unwrap_or(&[]) {
                let at = place((i, j));
                if !self.overlaps(owner, &wanted.at(at), self.gap) && usable(at) {
                    return Some((at, k));
                }
            }
        }
        None
    }
}

/// Fills `places` with ring `k` of the lattice (the places `k` steps away along one axis and
/// no more along the other), each with `away` of it (the squared distance from where the
/// formation comes from), sorted by it, ties by place: the nearer side first, so formations
/// arriving from all round take the places on their own sides and none walks through
/// another. Returns how many (`8k`, at most what `places` holds).
pub(super) fn ring(
    k: i32,
    away: impl Fn((i32, i32)) -> f32,
    places: &mut [(f32, i32, i32)],
) -> usize {
    let mut n = 0;
    let mut put = |i: i32, j: i32| {
        if let Some(p) = places.get_mut(n) {
            *p = (away((i, j)), i, j);
            n += 1;
        }
    };
    for i in -k..=k {
        put(i, -k);
        put(i, k);
    }
    for j in (1 - k)..k {
        put(-k, j);
        put(k, j);
    }
    if let Some(filled) = places.get_mut(..n) {
        filled.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    }
    n
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
