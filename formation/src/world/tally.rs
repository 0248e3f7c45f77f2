//! The tally of the formation stage: one walk over each formation's members gives their
//! centre, velocity and lag (for moving its anchor) and the subtree's slowest speed, weakest
//! acceleration and extent (written into the formation).
//!
//! Every formation is tallied before any anchor moves ([`World::tally_formations`]): a
//! formation's tally reads its own units and its sub-formations' tallies (and their anchors
//! and lags, which have not moved yet this tick), never another top-level formation's, so the
//! top-level formations are tallied in spans on the pool's threads, each span bottom-up, and
//! their results written into the formations afterwards, in order.

use cohort_steering::Vec2;
use slotmap::SlotMap;

use super::World;
use super::unit_store::UnitStore;
use crate::anchor::MemberAverage;
use crate::formation::{Formation, Member};
use crate::ids::FormationId;

/// Formations per span of the tally on several threads (spans end at the end of a top-level
/// formation's subtree).
const TALLY_SPAN: usize = 128;

/// Centre, velocity and summed lag of one formation's members (see [`World::tally_formations`]),
/// what the tally writes into the formation, and where the slot targets it handed its units
/// lie.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MemberTally {
    average: MemberAverage,
    lag: f32,
    /// Sum over the members with a slot target of how far their slot targets lie ahead of
    /// them (target less position), and how many those are.
    behind: Vec2,
    behind_count: u32,
    /// Slowest top speed in the subtree (0 for none).
    slowest: f32,
    /// Weakest acceleration in the subtree (0 for none).
    weakest: f32,
    /// Half depth and half width of the slots, radii included.
    half_extent: Vec2,
    /// Formations in its subtree, itself included (in the formation order, its subtree is a
    /// run of that length from it).
    subtree: u32,
    /// The anchor the slot targets were laid out from this tick.
    pub(super) target_centre: Vec2,
    /// Largest distance from `target_centre` of a unit member's slot target plus its radius
    /// (infinite when some unit member was not given one this tick).
    pub(super) target_reach: f32,
    /// How far make way has moved the targets out of that circle so far this tick (see
    /// `open_lanes`).
    pub(super) lane_growth: f32,
    /// At least the largest distance of a unit member from the anchor as tallied plus its
    /// radius (the largest distance plus the largest radius; 0 for none): how far outside its
    /// formation's extent a member stands (left behind, or carried off by another formation),
    /// which `open_lanes` looks at when telling which formations are in traffic.
    pub(super) spread: f32,
}

impl MemberTally {
    /// What moving the anchor reads of the members: their centre, velocity, mean lag and
    /// mean lag vector.
    pub(super) fn stats(&self) -> MemberStats {
        let n = self.average.count();
        let mean = self.average.mean();
        MemberStats {
            centre: mean.map(|m| m.0),
            velocity: mean.map(|m| m.1),
            lag: if n > 0 { self.lag / n as f32 } else { 0.0 },
            behind: (self.behind_count > 0).then(|| self.behind / self.behind_count as f32),
        }
    }

    /// Writes the subtree's slowest speed, weakest acceleration and extent into `f`.
    fn write_into(&self, f: &mut Formation) {
        f.slowest_speed = self.slowest;
        f.weakest_accel = self.weakest;
        f.half_extent = self.half_extent;
        f.spread = self.spread;
    }
}

/// What moving a formation's anchor reads of its members ([`MemberTally::stats`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct MemberStats {
    /// The members' mean position (`p_c`), when there are members.
    pub(super) centre: Option<Vec2>,
    /// Their mean velocity (`v_c`).
    pub(super) velocity: Option<Vec2>,
    /// Their mean distance from their slot targets.
    pub(super) lag: f32,
    /// How far their slot targets lie ahead of them on average (target less position), over
    /// the members that have one: the anchor's own lead over its members, whatever the
    /// slots' layout around it.
    pub(super) behind: Option<Vec2>,
}

/// What a formation's tally reads of a sub-formation: its tally this tick (slowest speed,
/// weakest acceleration, extent), its anchor and last tick's mean lag.
struct Child {
    slowest: f32,
    weakest: f32,
    half_extent: Vec2,
    anchor: (Vec2, Vec2),
    mean_lag: f32,
    /// Where its slot in this formation is, if it has one.
    target: Option<Vec2>,
}

impl Child {
    fn of(c: &Formation) -> Self {
        Self {
            slowest: c.slowest_speed,
            weakest: c.weakest_accel,
            half_extent: c.half_extent,
            anchor: (c.anchor.position, c.anchor.velocity),
            mean_lag: c.mean_lag,
            target: c.target.map(|t| t.position),
        }
    }
}

/// One walk over formation `f`'s members instead of one per quantity; `child(c)` gives what
/// is read of sub-formation `c` (tallied before it).
fn measure(
    units: &UnitStore,
    f: &Formation,
    mut child: impl FnMut(FormationId) -> Option<Child>,
) -> MemberTally {
    let mut tally = MemberTally::default();
    let mut speed = f32::INFINITY;
    let mut accel = f32::INFINITY;
    let mut ext = Vec2::ZERO;
    let (mut spread_sq, mut spread_radius) = (0.0f32, 0.0f32);
    for (i, m) in f.members.iter().enumerate() {
        let reach = match *m {
            Member::Unit(u) => match units.get(u) {
                Some(u) => {
                    speed = speed.min(u.body.max_speed);
                    accel = accel.min(u.body.max_force / u.body.mass);
                    tally.average.add(u.body.position, u.body.velocity);
                    let from_anchor = (u.body.position - f.anchor.position).length_squared();
                    spread_sq = spread_sq.max(from_anchor);
                    spread_radius = spread_radius.max(u.body.radius);
                    if let Some(t) = u.slot_target {
                        let ahead = t.position - u.body.position;
                        tally.lag += ahead.length();
                        // A member held far behind (behind its own column in a passage, say)
                        // counts as only so far behind: the anchor goes on, which frees its
                        // way, instead of waiting for it for good.
                        tally.behind += ahead.clamp_length_max(BEHIND_CAP);
                        tally.behind_count += 1;
                    }
                    u.body.radius
                }
                None => 0.0,
            },
            Member::Formation(c) => match child(c) {
                Some(c) => {
                    // A sub-formation with no units left (slowest speed 0) is an empty
                    // anchor: it sets no limit (it would stop its parent for good) and counts
                    // neither in the centre nor in the lag.
                    if c.slowest > 0.0 {
                        speed = speed.min(c.slowest);
                        accel = accel.min(c.weakest);
                        tally.average.add(c.anchor.0, c.anchor.1);
                        tally.lag += c.mean_lag;
                        if let Some(t) = c.target {
                            tally.behind += t - c.anchor.0;
                            tally.behind_count += 1;
                        }
                    }
                    c.half_extent.max_element()
                }
                None => 0.0,
            },
        };
        if let Some(slot) = f.slots.get(i) {
            ext = ext.max(slot.offset.abs() + Vec2::splat(reach));
        }
    }
    tally.slowest = if speed.is_finite() { speed } else { 0.0 };
    tally.weakest = if accel.is_finite() { accel } else { 0.0 };
    tally.half_extent = ext;
    tally.spread = spread_sq.sqrt() + spread_radius;
    tally
}

/// Tallies formation `id` alone (its sub-formations tallied already) and writes the result
/// into it: the formation stage's tally again after a re-assignment reordered its members.
pub(super) fn tally_formation(
    units: &UnitStore,
    formations: &mut SlotMap<FormationId, Formation>,
    id: FormationId,
) -> MemberTally {
    let Some(f) = formations.get(id) else {
        return MemberTally::default();
    };
    let tally = measure(units, f, |c| formations.get(c).map(Child::of));
    if let Some(f) = formations.get_mut(id) {
        tally.write_into(f);
    }
    tally
}

/// Tallies the formations `order[first..first + part.len()]` (whole subtrees, top-down) into
/// `part`, bottom-up, reading each sub-formation's tally from `part`.
fn tally_span(
    units: &UnitStore,
    formations: &SlotMap<FormationId, Formation>,
    order: &[FormationId],
    first: usize,
    part: &mut [MemberTally],
) {
    let ids = order.get(first..first + part.len()).unwrap_or(&[]);
    // The data of the next few formations is read at once (see `read_ahead`).
    let mut ahead = ids.len();
    for k in (0..ids.len()).rev() {
        if k < ahead {
            let from = (k + 1).saturating_sub(READ_AHEAD);
            std::hint::black_box(read_ahead(
                units,
                formations,
                ids.get(from..=k).unwrap_or(&[]),
            ));
            ahead = from;
        }
        let Some(f) = ids.get(k).and_then(|&id| formations.get(id)) else {
            continue;
        };
        // Sub-formations follow `k` in member order, each followed by its subtree.
        let (done, rest) = part.split_at_mut(k + 1);
        let mut next = 0usize;
        let mut subtree = 1u32;
        let mut tally = measure(units, f, |c| {
            let at = match ids.get(k + 1 + next) {
                Some(&id) if id == c => next,
                // Not where the order puts it (never, while the order is current).
                _ => ids.get(k + 1..)?.iter().position(|&id| id == c)?,
            };
            let t = rest.get(at)?;
            next = at + t.subtree as usize;
            subtree += t.subtree;
            let anchor = formations.get(c)?;
            Some(Child {
                slowest: t.slowest,
                weakest: t.weakest,
                half_extent: t.half_extent,
                ..Child::of(anchor)
            })
        });
        tally.subtree = subtree;
        if let Some(t) = done.last_mut() {
            *t = tally;
        }
    }
}

/// Formations whose data [`read_ahead`] loads at once.
const READ_AHEAD: usize = 8;

/// Reads what tallying the formations `ids` will read (their records, member lists, slots and
/// units) in two flat walks, so that the cache misses of many formations are waited for
/// together. The tally walks a chain per formation (record, then member list, then units),
/// and with 100,000 units each link is a trip to memory that nothing overlaps. Stable Rust
/// has no safe prefetch instruction, so the walks load the lines and return a sum of what
/// they read, for the caller to hand to `std::hint::black_box`. It changes no state.
fn read_ahead(
    units: &UnitStore,
    formations: &SlotMap<FormationId, Formation>,
    ids: &[FormationId],
) -> u32 {
    let mut sum = 0u32;
    // First the records and the first line of each member list, then the slots and the
    // units: walks whose loads do not wait on each other.
    for &id in ids {
        if let Some(f) = formations.get(id) {
            let first = f.members.first().map_or(0, |m| match *m {
                Member::Unit(_) => 1,
                Member::Formation(_) => 2,
            });
            sum = sum.wrapping_add(first).wrapping_add(f.slots.len() as u32);
        }
    }
    for &id in ids {
        let Some(f) = formations.get(id) else {
            continue;
        };
        for slot in &f.slots {
            sum = sum.wrapping_add(slot.offset.x.to_bits());
        }
        for m in &f.members {
            if let Member::Unit(u) = *m
                && let Some(u) = units.get(u)
            {
                sum = sum.wrapping_add(u.body.position.x.to_bits());
            }
        }
    }
    sum
}

impl World {
    /// With more than one thread in the pool: tallies every formation of `order` (top-level
    /// subtrees `roots`) into `scratch.tallies`, in spans of whole subtrees on the pool's
    /// threads, then writes each formation's slowest speed, weakest acceleration and extent
    /// into it, in order; returns true. On one thread it does nothing and returns false: the
    /// formation stage then tallies each subtree just before moving it
    /// ([`World::tally_subtree`]), so that a subtree's units are read twice in quick
    /// succession (in cache the second time) rather than in two walks over the whole army.
    /// Both give the same tallies (each subtree's, by the same walk).
    pub(super) fn tally_formations(
        &mut self,
        order: &[FormationId],
        roots: &[(FormationId, u32, u32)],
    ) -> bool {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        let bounds = &mut scratch.tally_bounds;
        bounds.clear();
        bounds.push(0);
        for &(_, _, end) in roots {
            let last = bounds.last().copied().unwrap_or(0);
            if (end - last) as usize >= TALLY_SPAN {
                bounds.push(end);
            }
        }
        let n = order.len() as u32;
        if bounds.last() != Some(&n) {
            bounds.push(n);
        }
        let spans = bounds.len().saturating_sub(1);
        if !super::par::split(spans, 2) {
            return false;
        }
        let (units_ref, formations_ref) = (&*units, &*formations);
        let tally = |c: usize, part: &mut [MemberTally], _: &mut ()| {
            let first = bounds_start(&scratch.tally_bounds, c);
            tally_span(units_ref, formations_ref, order, first, part);
        };
        scratch.tally_units.resize(spans, ());
        super::par::for_each_span(
            &scratch.tally_bounds,
            &mut scratch.tallies,
            &mut scratch.tally_units,
            &tally,
        );
        for (&id, t) in order.iter().zip(&scratch.tallies) {
            if let Some(f) = formations.get_mut(id) {
                t.write_into(f);
            }
        }
        true
    }

    /// Tallies the formations `order[span]` (one top-level subtree) into `scratch.tallies`
    /// and writes the results into them (see [`World::tally_formations`]).
    pub(super) fn tally_subtree(&mut self, order: &[FormationId], span: std::ops::Range<usize>) {
        let Self {
            units,
            formations,
            scratch,
            ..
        } = self;
        let (Some(part), Some(ids)) = (
            scratch.tallies.get_mut(span.clone()),
            order.get(span.clone()),
        ) else {
            return;
        };
        tally_span(units, formations, order, span.start, part);
        for (&id, t) in ids.iter().zip(part.iter()) {
            if let Some(f) = formations.get_mut(id) {
                t.write_into(f);
            }
        }
    }
}

/// Where span `c` of `bounds` starts.
fn bounds_start(bounds: &[u32], c: usize) -> usize {
    bounds.get(c).copied().unwrap_or(0) as usize
}

/// Most a member's lag counts (metres) in the mean lag vector the leash reads.
const BEHIND_CAP: f32 = 4.0;
