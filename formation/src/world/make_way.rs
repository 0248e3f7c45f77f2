//! Formations meeting formations: making way and passing head-on.
//!
//! - **Make way.** A moving top-level formation (or a single unit in a formation of its own)
//!   needs a lane as wide as itself through any other top-level formation in its way. The
//!   members of the other formation whose slots lie in that lane, from a little behind the
//!   mover's rear to a few metres ahead of its front, have their slot targets moved aside,
//!   perpendicular to the mover's heading, to the nearer edge of the lane. Once the mover has
//!   passed, their slots are the pattern's again and the formation closes behind it. Nothing
//!   changes in the unit stage: members simply steer to the moved slots. A single on the
//!   move is never moved aside: it walks its own path from where it stands (see
//!   `single_walk.rs`), and avoidance takes it round the mover.
//! - **Queueing.** A moving top-level formation with another one ahead of it in its lane,
//!   going its way, keeps a gap behind it (see `make_way/following.rs`).
//! - **Right of way.** Of two moving top-level formations whose paths meet ahead at an angle
//!   (crossing, or converging on one gap), the one that gets there first goes first and the
//!   other stops short until it has passed (see `make_way/right_of_way.rs`).
//! - **No head-on deadlock.** A moving top-level formation that sees another one coming the
//!   other way with overlapping lanes steers its anchor to its right, just enough for both to
//!   pass (each takes half, each to its own right), and rejoins its path afterwards.
//! - **Keeping right in a passage.** A single walking in a passage keeps to its right half
//!   while anyone comes the other way in it (see `make_way/keep_right.rs`).

use cohort_steering::Vec2;

use super::World;
use super::scratch::Scratch;
use crate::formation::Member;

mod following;
mod keep_right;
mod lane;
mod meetings;
mod passage_turns;
mod passing;
mod patience;
mod right_of_way;
mod rings;
mod root_index;
mod track;
mod track_grid;
mod zipper;

use keep_right::keep_right_in_passage;
use lane::{LANE_BEHIND, LANE_MARGIN, Lane};

use passing::{pass_shift, passing_velocity};
use passing::{pass_width, still_passing};

use super::lane_edge::LaneEdge;
use root_index::RootEntry;
pub(crate) use root_index::RootIndex;

/// Look-ahead (seconds of the two formations closing) within which an oncoming formation
/// is passed.
const PASS_HORIZON: f32 = 6.0;
/// Lateral room (metres) left between two formations passing each other.
const PASS_MARGIN: f32 = 1.0;
/// Room (metres) a formation keeps between its right side and an obstacle when it steps
/// right to pass an oncoming one.
const SIDESTEP_ROOM: f32 = 0.1;
/// Metres added to the avoidance's neighbour distance when telling which top-level formations
/// are near each other (members stray a little from their slots).
const TRAFFIC_SLACK: f32 = 4.0;
/// Metres an anchor may have moved between the tally and make way (far more than a tick's
/// walk): a formation whose members all stood within its circle less this at the tally has
/// none outside it now.
const FAR_MEMBER_SLACK: f32 = 2.0;
/// Ticks between two looks of a single at the passage it walks in and the traffic coming
/// the other way (see `make_way/keep_right.rs`): a look searches 40 s of closing ahead.
const KEEP_RIGHT_EVERY: u64 = 4;
/// Metres from its goal (beyond its own half-extent) within which a formation is arriving and
/// keeps an avoidance group of its own.
const ARRIVING: f32 = 10.0;
/// Time constant (seconds) of the anchor's sidestep to its right.
const PASS_TIME: f32 = 1.5;

impl World {
    /// Sets each moving top-level formation's sideways velocity for passing an oncoming one,
    /// before any anchor moves this tick: from the anchors as they stand and last tick's
    /// extents (the formation stage then limits it by the slowest member's speed). `dt` is
    /// the tick's length (for how long a formation has waited, `make_way/patience.rs`).
    pub(super) fn plan_passing(&mut self, dt: f32) {
        let Self {
            formations,
            scratch,
            formation_nav,
            terrain,
            settings,
            tick,
            ..
        } = self;
        let tick = *tick;
        let map = formation_nav
            .valid_map(terrain.map(), settings.small_obstacle_radius)
            .unwrap_or(terrain.valid_map());
        let index = &mut scratch.roots_index;
        index.update(&scratch.roots, formations);
        index.index_headings();
        index.index_all();
        index.cache_movers(formations);
        index.cache_meetings();
        // Each root's plan reads the index and the formations as they stand, and nothing
        // another root's plan writes: all plans first (on the pool's threads), then written.
        let mut plans = std::mem::take(&mut index.plans);
        let (index_ref, formations_ref) = (&*index, &*formations);
        super::par::map_into(index_ref.entries(), &mut plans, PLANS_PER_TASK, |a| {
            plan_root(index_ref, formations_ref, map, a, tick)
        });
        // Turns decided pair by pair can close a ring, each waiting for the next: one of each
        // ring goes.
        let mut rings = std::mem::take(&mut index.rings);
        rings.gives.clear();
        rings.gives.extend(plans.iter().map(|p| p.give));
        rings.follows.clear();
        rings.follows.extend(plans.iter().map(|p| p.follow));
        // Nobody waits for ever for a formation that stands held by its own members.
        index.run_out_of_patience(formations, &mut rings.gives, dt);
        index.break_rings(&mut rings);
        for a in index.entries() {
            if let Some(f) = formations.get_mut(a.id) {
                f.hurried = false;
            }
        }
        let holds = rings.gives.iter().zip(&rings.follows);
        for ((a, plan), (&give, &follow)) in index.entries().iter().zip(&plans).zip(holds) {
            let PassingPlan {
                velocity,
                narrow_pass,
                at_passage,
                ..
            } = *plan;
            let follow = follow.map(|(v, _)| v);
            let follow = match (follow, give) {
                (Some(v), Some(g)) => Some(v.min(g.speed)),
                (v, g) => v.or(g.map(|g| g.speed)),
            };
            if let Some(f) = formations.get_mut(a.id) {
                f.pass_velocity = velocity;
                f.follow_speed = follow;
                f.give_way = give.map(|g| g.to);
                // Its hold stands as planned unless a ring of holds was broken at it.
                f.waits_at_passage = give.is_some_and(|g| Some(g.to) == at_passage);
                f.narrow_pass = narrow_pass;
            }
            // The one given way to clears the meeting at its members' top speed.
            if let Some(f) = give.and_then(|g| formations.get_mut(g.to)) {
                f.hurried = true;
            }
        }
        index.plans = plans;
        index.rings = rings;
    }

    /// Moves the slot targets of members standing in a moving formation's lane aside.
    pub(super) fn open_lanes(&mut self) {
        let Self {
            units,
            formations,
            scratch,
            settings,
            ..
        } = self;
        let Scratch {
            roots,
            roots_index: index,
            order,
            tallies,
            group_opens_lane,
            group_in_traffic,
            group_lane_edges,
            group_clusters,
            group_alike,
            group_closed_up,
            ..
        } = scratch;
        // The anchors moved and the extents were re-tallied since `plan_passing`.
        index.update(roots, formations);
        index.index_all();
        // Which top-level formations open lanes this tick (avoidance lets their units pass
        // through the others, which step aside by their slots).
        group_opens_lane.clear();
        group_opens_lane.resize(roots.len(), LaneOpener::No);
        for a in index.entries() {
            if let Some(g) = group_opens_lane.get_mut(a.root() as usize) {
                *g = match (a.lane.is_some(), a.single) {
                    (true, false) => LaneOpener::Formation,
                    (true, true) => LaneOpener::Single,
                    (false, _) if a.creep.is_some() => LaneOpener::Creeping,
                    (false, _) if !a.moving => LaneOpener::Stands,
                    (false, _) => LaneOpener::No,
                };
            }
        }
        // Which are near another one: only their units look for units to avoid.
        group_in_traffic.clear();
        group_in_traffic.resize(roots.len(), false);
        let margin = settings.avoidance.neighbour_distance + TRAFFIC_SLACK;
        index.mark_near_pairs(margin, group_in_traffic);
        // And the members standing far outside their formations' circles.
        let far = FarMembers {
            index,
            order,
            tallies,
            formations,
            units,
        };
        far.mark_near(margin, group_in_traffic);
        // Which narrow to pass an oncoming one: their units keep to their side of the line
        // between the two (a lane edge). Neighbours moving alike (the same way at the same
        // speed, a couple of metres apart) share one avoidance group: their units leave each
        // other to separation, as a formation's own do, and avoid the units of everyone
        // else; a crowd of small groups walking together then costs what one formation of
        // them would. Not singles (a ring of them closing on its centre has every unit
        // moving almost like its neighbours), nor those keeping to a lane edge (theirs is
        // their own), nor those arriving (units closing on a packed block of goals find
        // their places among each other by avoidance), nor those another holds back
        // (queueing or giving way: their turns are taken between their units too).
        group_lane_edges.clear();
        group_lane_edges.resize(roots.len(), None);
        group_alike.clear();
        group_alike.resize(roots.len(), false);
        group_closed_up.clear();
        group_closed_up.resize(roots.len(), false);
        for a in index.entries() {
            let Some(f) = formations.get(a.id) else {
                continue;
            };
            let root = a.root() as usize;
            let edge = f
                .narrow_pass
                .and_then(|(b, _)| formations.get(b))
                .and_then(|b| LaneEdge::between(f, b));
            let held = f.follow_speed.is_some() || f.give_way.is_some();
            let arriving = f.goal.is_none_or(|g| {
                (g - f.anchor.position).length() <= ARRIVING + f.half_extent.length()
            });
            if let Some(slot) = group_alike.get_mut(root) {
                *slot = a.lane.is_some() && !a.single && edge.is_none() && !held && !arriving;
            }
            if let Some(slot) = group_lane_edges.get_mut(root) {
                *slot = edge;
            }
            if let Some(slot) = group_closed_up.get_mut(root) {
                *slot = closed_up_one_way(f, || {
                    super::formations::largest_radius(units, formations, a.id)
                });
            }
        }
        // Formations of one group stand within a couple of metres of each other, so each is
        // in traffic already: the group's flag, read at the place standing for it, is theirs.
        index.cluster_alike(roots.len(), group_alike, group_clusters);
        // Per formation of the order, `lane_growth` (0 from this tick's tally) is how far
        // lanes have moved its units' targets out of their tallied circle so far (moved
        // targets lie within the circle grown by that).
        // Lanes open in the order of the movers' x (a member in two lanes is moved by both).
        // A small group's lane back to its members left behind opens right after its own.
        // Creeping lanes and lanes back reach standing formations only: with none standing,
        // they would move nothing, and are not looked along.
        let any_standing = index.entries().iter().any(|e| !e.moving);
        let creep = |a: &RootEntry| a.creep.filter(|_| any_standing);
        for (a, lane) in index.entries().iter().flat_map(|a| {
            [a.lane, creep(a)]
                .into_iter()
                .flatten()
                .map(move |l| (a, l))
        }) {
            index.for_each_in_way(a, &lane, |b| {
                // Every unit of b's subtree (a run of the order), skipping formations whose
                // units' targets all lie clear of the lane.
                let (start, end) = (b.span.0 as usize, b.span.1 as usize);
                let (Some(ids), Some(tallies)) =
                    (order.get(start..end), tallies.get_mut(start..end))
                else {
                    return;
                };
                for (&id, t) in ids.iter().zip(tallies) {
                    if lane.misses(t.target_centre, t.target_reach + t.lane_growth) {
                        continue;
                    }
                    let Some(f) = formations.get(id) else {
                        continue;
                    };
                    // Each target moves at most `most` in this lane.
                    let mut most: f32 = 0.0;
                    for m in &f.members {
                        let Member::Unit(u) = *m else {
                            continue;
                        };
                        let Some(unit) = units.get_mut(u) else {
                            continue;
                        };
                        let Some(target) = unit.slot_target.as_mut() else {
                            continue;
                        };
                        let moved = lane.aside(target.position, unit.body.radius);
                        if moved != target.position {
                            most = most.max((moved - target.position).length());
                            target.position = moved;
                        }
                    }
                    if most > 0.0 {
                        t.lane_growth += growth(most);
                    }
                }
            });
        }
    }
}

/// What marking the members far outside their formations' circles reads: the index of the
/// top-level formations, the formation order with its tallies (each top-level formation's
/// subtree is a run of it), the formations and the units.
struct FarMembers<'a> {
    index: &'a RootIndex,
    order: &'a [crate::ids::FormationId],
    tallies: &'a [super::tally::MemberTally],
    formations: &'a Formations,
    units: &'a super::unit_store::UnitStore,
}

impl FarMembers<'_> {
    /// Marks in `near` (by place among the roots) each top-level formation with a member
    /// standing more than [`TRAFFIC_SLACK`] outside its circle near a standing formation,
    /// and that formation (see [`RootIndex::mark_near_member`]). A member far outside its
    /// formation's circle (left behind, or carried off by another formation that crossed its
    /// own) is near whoever stands round it, though the circles are apart: unmarked, the
    /// units of a standing formation it was pressed against never looked for it, and it
    /// stood in front of them for good. `margin` is the circles' margin of
    /// [`RootIndex::mark_near_pairs`].
    fn mark_near(&self, margin: f32, near: &mut [bool]) {
        let entries = self.index.entries();
        // The box round every standing root's circle grown by the margin: only a member in
        // it (grown by its radius) can come near one (a march with no one standing looks no
        // further).
        let Some((lo, hi)) = entries
            .iter()
            .filter(|e| !e.moving)
            .map(|e| {
                let r = Vec2::splat(e.circle_radius + margin);
                (e.position - r, e.position + r)
            })
            .reduce(|(a, b), (lo, hi)| (a.min(lo), b.max(hi)))
        else {
            return;
        };
        for a in entries {
            let reach = a.circle_radius + TRAFFIC_SLACK;
            let (start, end) = (a.span.0 as usize, a.span.1 as usize);
            let (Some(ids), Some(tallied)) =
                (self.order.get(start..end), self.tallies.get(start..end))
            else {
                continue;
            };
            for (&id, t) in ids.iter().zip(tallied) {
                let Some(f) = self.formations.get(id) else {
                    continue;
                };
                // A member stands at most this much farther from the root's anchor than the
                // tally found it from its own formation's anchor: the two anchors' distance,
                // and the slack for that anchor having moved since the tally.
                let moved = (f.anchor.position - a.position).length() + FAR_MEMBER_SLACK;
                if !(t.spread + moved > reach) {
                    continue;
                }
                for m in &f.members {
                    let Member::Unit(u) = *m else {
                        continue;
                    };
                    let Some(unit) = self.units.get(u) else {
                        continue;
                    };
                    let (p, r) = (unit.body.position, unit.body.radius);
                    let in_box =
                        p.x >= lo.x - r && p.y >= lo.y - r && p.x <= hi.x + r && p.y <= hi.y + r;
                    if in_box && (p - a.position).length() + r > reach {
                        self.index.mark_near_member(a.root(), p, r, margin, near);
                    }
                }
            }
        }
    }
}

/// Whether a top-level formation opens a lane through standing ones this tick, and what kind
/// of formation it is (its units' avoidance reads it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LaneOpener {
    /// It opens no lane (standing, or too slow).
    #[default]
    No,
    /// A formation of several units opens one.
    Formation,
    /// A single unit opens one.
    Single,
    /// A small group creeping behind its own members opens one through standing formations
    /// only ([`Lane::creeping`]): its units pass through the units of standing formations
    /// and avoid everyone else.
    Creeping,
    /// It stands (it is not moving): creeping groups pass through its units.
    Stands,
}

impl LaneOpener {
    /// Whether it opens a lane through every formation it reaches (a formation or a single).
    pub(crate) fn opens(self) -> bool {
        matches!(self, Self::Formation | Self::Single)
    }
}

/// Top-level formations planned per task of the parallel passing plans (each plan looks at
/// the formations near one).
const PLANS_PER_TASK: usize = 16;

/// What [`World::plan_passing`] decides for one top-level formation this tick.
#[derive(Clone, Copy, Debug)]
struct PassingPlan {
    /// Its sideways velocity for passing an oncoming formation.
    velocity: Vec2,
    /// The oncoming formation it narrows to pass, and the width it narrows to.
    narrow_pass: Option<(crate::ids::FormationId, f32)>,
    /// The speed it keeps behind a formation ahead, and that formation's place among the
    /// roots.
    follow: Option<(f32, u32)>,
    /// Whom it gives way to, and at what speed.
    give: Option<right_of_way::GiveWay>,
    /// The oncoming formation it waits for short of a passage, when that is whom it gives
    /// way to (`make_way/passage_turns.rs`).
    at_passage: Option<crate::ids::FormationId>,
}

/// The passing plan of top-level formation `a` (see [`World::plan_passing`]), from the index
/// and the formations as they stand before any anchor moves.
fn plan_root(
    index: &RootIndex,
    formations: &Formations,
    map: &cohort_pathing::ValidMap,
    a: &RootEntry,
    tick: u64,
) -> PassingPlan {
    // A single's sidestep is keeping right's (below), and it narrows for no one
    // (`pass_width`): it looks for no oncoming formation to pass.
    let (velocity, oncoming) = match a.lane {
        Some(lane) if !a.single => {
            let (v, oncoming) = index.passing_velocity(a, &lane);
            // No sidestep into the geometry: once its right side is within
            // [`SIDESTEP_ROOM`] of an obstacle (or the map's edge), the formation steps no
            // further right. (Asking for the whole passing margin there, two columns meeting
            // in a passage less than that margin wider than both never stepped aside.) A
            // small group, which slips past others by avoidance, keeps the whole margin:
            // stepping aside nearer the geometry, a crowd of them passed each other more
            // often and measured their passages (`pass_width`) four times as often, for
            // 6 % more time a tick in the standard army cut into groups of 4.
            let room = if a.small_group {
                PASS_MARGIN
            } else {
                SIDESTEP_ROOM
            };
            let need = lane.half_width + room;
            let right = v.normalize_or_zero();
            let blocked = right != Vec2::ZERO
                && super::narrows::free_run(map, a.position, right, need) < need;
            (if blocked { Vec2::ZERO } else { v }, oncoming)
        }
        _ => (Vec2::ZERO, None),
    };
    // A single in a passage keeps to its right half while anyone comes the other way,
    // looked at every [`KEEP_RIGHT_EVERY`] ticks (staggered over the singles), the sidestep
    // kept in between. (Pairs of singles pass by their avoidance alone.)
    let velocity = match (a.single, a.lane) {
        (true, Some(lane)) if (tick + u64::from(a.root())) % KEEP_RIGHT_EVERY == 0 => {
            keep_right_in_passage(index, map, a, &lane)
        }
        (true, Some(_)) => formations.get(a.id).map_or(Vec2::ZERO, |f| f.pass_velocity),
        _ => velocity,
    };
    // Found again this tick, or kept while the one it passes is still alongside (its lane,
    // read from its speed, comes and goes as its ranks close up).
    let narrow_pass = oncoming
        .and_then(|b| Some((b, pass_width(formations, a.id, b, map)?)))
        .or_else(|| {
            let kept = formations.get(a.id)?.narrow_pass?;
            still_passing(formations, a.id, kept.0).then_some(kept)
        });
    let follow = index.following(a, |_| true);
    let give = index.give_way(a);
    // Waiting short of a passage for an oncoming formation deep in it: the tighter of the
    // two holds, and it does not close up to pass in the passage meanwhile.
    let wait = index.wait_at_passage(a, formations, map);
    let narrow_pass = if wait.is_some() { None } else { narrow_pass };
    let (give, at_passage) = match (give, wait) {
        (Some(g), Some(w)) if w.speed < g.speed => (Some(w), Some(w.to)),
        (Some(g), _) => (Some(g), None),
        (None, w) => (w, w.map(|w| w.to)),
    };
    PassingPlan {
        velocity,
        narrow_pass,
        follow,
        give,
        at_passage,
    }
}

/// Every formation by key.
type Formations = slotmap::SlotMap<crate::ids::FormationId, crate::formation::Formation>;

/// Whether formation `f` walks closed up into ranks two or more abreast for a passage with
/// no one to pass in it (`ValidPattern::narrowed_one_way`'s close spacing for its largest
/// unit, as `World::switch_for_narrows` closes it up), its members all units: separation
/// then keeps its members' comfort distance close to that spacing (`separation.rs`,
/// `CLOSED_UP_RANGE`). Not while it narrows to pass an oncoming formation (the other's units
/// brush past its files: members were carried along by them), nor closed up to a single
/// file (squads from both ends of a corridor one file wide took two fifths longer to pass
/// each other), nor closed up with the wider spacing (members wider than `ONE_WAY_MAX_RADIUS`,
/// closing on a goal in the narrows, or cramped), nor for a formation of sub-formations
/// (its own ranks are of formations; their units keep their patterns' spacing). `largest`
/// gives its largest unit's radius; it is asked only of a formation of units closed up two
/// or more abreast.
fn closed_up_one_way(f: &crate::formation::Formation, largest: impl FnOnce() -> f32) -> bool {
    use crate::pattern::{ONE_WAY_GAP, ONE_WAY_SPACING_RADII, PatternKind};
    let Some(p) = f.narrowed.as_ref().filter(|_| f.in_column) else {
        return false;
    };
    if f.narrow_pass.is_some()
        || !matches!(p.kind(), PatternKind::Ranks(abreast) if *abreast >= 2)
        || !f.members.iter().all(|m| matches!(m, Member::Unit(_)))
    {
        return false;
    }
    // The largest unit's radius, as the ranks were closed up for.
    let r = largest();
    p.spacing() <= (ONE_WAY_SPACING_RADII * r).max(2.0 * r + ONE_WAY_GAP)
}

/// How far a formation's tallied circle grows when a lane moved its targets by at most
/// `most`: a millimetre more, for rounding.
fn growth(most: f32) -> f32 {
    most + 1e-3
}

#[cfg(test)]
mod tests;
