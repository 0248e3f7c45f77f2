//! Gaps met at a slant: the navigation graph samples free space about a metre apart near
//! obstacles, so through a gap only a little wider than a unit, in a thick wall, it has an edge
//! only where its nodes happen to line up with the gap. Met head-on (start and goal on the
//! gap's line), a single of radius 1.2 m was routed through a gap 2.52 m wide in a wall 2 m
//! thick, but met at a slant it needed 2.9 to 3.5 m (a walker of radius 0.5: 1.12 m head-on,
//! 1.5 to 2.1 m at a slant). A plan that finds no route stops at the nearest point it
//! reaches, so the formation stood at the wall for good, beside a gap it fits through.
//!
//! When a formation's plan (its order's, or a single's planned again in the tick) or a
//! member's detour to its slot (`detours.rs`) stops short of its goal,
//! [`plan_through_slanted_gaps`] plans again for a body half as wide (then a quarter), which
//! the graph routes through such a gap hugging its corner, puts the path down the middle line
//! of each passage it crosses (`passages.rs`; from where the body stands, it may first step
//! back out onto that line), plans again for the full body each leg that does not keep it
//! clear (the narrower body's path hugs the corners of blocks and walls beyond the gap too;
//! a waypoint where the full body has no room moves to where that plan ends), and keeps the
//! result only if every leg holds the full clearance the formation asked for and it ends
//! nearer the goal. A goal the body has no room at is not planned again; one in
//! a closed-off area costs the order (or the single's plan, or the detour) two more searches,
//! and a route the narrower body finds up to [`MAX_LEG_PLANS`] more for each of the two (its
//! legs planned again). The detours of at most `SLANTED_DETOURS_PER_TICK` units a tick are
//! made again so (`detours.rs`). The same vehicle is now routed through 2.52 to 2.72 m at any
//! slant, the walker through 1.12 to 1.47 m. Plans that reach their goal are never touched,
//! and a single's path or a member's detour planned again that still stops short does not
//! replace a way the unit has that reaches the goal (`single_walk.rs`, `detours.rs`).

use cohort_pathing::{Leg, Path, PathQuery, SearchScratch, ValidMap};
use cohort_steering::Vec2;
use cohort_steering::capacity::ReserveTotal;

use super::terrain::{PathPlan, Terrain};

/// Fractions of the body's clearance the plans made again ask for, tried in turn.
const CLEARANCE_FRACTIONS: [f32; 2] = [0.5, 0.25];

/// Metres of room beyond the body's clearance on each side within which a stretch of the path
/// made again counts as a passage and is put down its middle line: the graph routes a body
/// through gaps met at a slant once they are about this much wider than it.
const CENTRING_ROOM: f32 = 1.0;

/// How much less than the room it has where it stands (metres) a body's first leg is held to.
const START_SLACK: f32 = 1e-3;

/// How much nearer its goal (metres) the plan made again must end to be taken.
const NEARER: f32 = 0.5;

/// Most legs of one plan made again that are planned again for the full body (see
/// [`widen_legs`]).
const MAX_LEG_PLANS: usize = 8;

/// The buffers the world keeps for plans made again (in its scratch): the plan, the
/// passages' stretches along it and the plan of one of its legs made again.
#[derive(Default)]
pub(super) struct SlantedScratch {
    /// The plan made again.
    pub(super) alt: PathPlan,
    /// The stretches of its passages.
    pub(super) narrows: Vec<(f32, f32)>,
    /// One of its legs planned again for the full body.
    pub(super) leg: PathPlan,
}

impl SlantedScratch {
    /// Room for plans of `n` waypoints (planning into them then does not grow them).
    pub(super) fn reserve(&mut self, n: usize) {
        self.alt.reserve(n);
        self.narrows.reserve_total(n);
        self.leg.reserve(n);
    }
}

/// The buffers a plan is made again with: the search's, the path's, and the plan made again
/// with the passages' stretches along it and the plan of a leg made again. Planning allocates
/// nothing once they have room.
pub(super) struct Buffers<'a> {
    pub(super) search: &'a mut SearchScratch,
    pub(super) path: &'a mut Path,
    pub(super) slanted: &'a mut SlantedScratch,
}

/// Whether the plan `first`, made by `query` on `terrain` for a body of `query.radius`, stops
/// short of its goal where a plan through gaps met at a slant does not: planned again into
/// `buffers.slanted.alt` for a body [`CLEARANCE_FRACTIONS`] as wide, put down the middle of each
/// passage narrower than the pattern's `half_width` (at least the body's clearance and
/// [`CENTRING_ROOM`]) on either side, and returned `true` if it holds the body's clearance
/// along every leg (walking legs only; the first from where the body stands) and ends at
/// least [`NEARER`] metres nearer the goal. `false` for a plan that reaches its goal, and for
/// a goal with no room for the body (no route can reach it).
pub(super) fn plan_through_slanted_gaps(
    terrain: &Terrain,
    query: &PathQuery,
    first: &PathPlan,
    half_width: f32,
    buffers: Buffers<'_>,
) -> bool {
    let goal = query.goal;
    let short_by = |p: &PathPlan| short_of(&p.points, goal);
    let short = short_by(first);
    let radius = query.radius;
    let map = terrain.valid_map();
    if !(short > NEARER) || !(radius > 0.0) || map.is_blocked(goal, radius) {
        return false;
    }
    let Buffers {
        search,
        path,
        slanted: SlantedScratch { alt, narrows, leg },
    } = buffers;
    CLEARANCE_FRACTIONS.iter().any(|&k| {
        let narrower = PathQuery {
            radius: k * radius,
            ..*query
        };
        terrain.plan_path_into(&narrower, search, path, alt);
        if !(short_by(alt) + NEARER < short) || alt.legs.iter().any(|l| *l != Leg::Walk) {
            return false;
        }
        let width = half_width.max(radius + CENTRING_ROOM);
        // The legs into and out of each passage are planned again below where they do not
        // hold the body (round a block's corner beyond the gap).
        let ends = super::passages::Ends::PlannedAgain;
        super::passages::centre_in_passages_with(map, alt, (width, radius), narrows, ends);
        holds(map, &alt.points, radius) || widen_legs(terrain, query, alt, leg, (search, path))
    })
}

/// Plans again for the full body (`query`'s radius, from one end of the leg to the other)
/// each leg of `alt` the body cannot walk straight, and puts the new plan's waypoints in its
/// place: the narrower body's plan hugs the corners of obstacles away from the gaps too (a
/// single routed through a gap in a wall and then round a block's corner beyond it). Where
/// the leg's plan ends short of an inner waypoint (one the full body has no room at), its end
/// takes the waypoint's place. At most
/// [`MAX_LEG_PLANS`] legs. Returns whether every leg then holds the body's clearance (the
/// first from where the body stands, as [`holds`] has it).
fn widen_legs(
    terrain: &Terrain,
    query: &PathQuery,
    alt: &mut PathPlan,
    leg: &mut PathPlan,
    (search, path): (&mut SearchScratch, &mut Path),
) -> bool {
    let map = terrain.valid_map();
    let radius = query.radius;
    let mut plans = 0;
    let mut k = 0;
    while let (Some(&a), Some(&b)) = (alt.points.get(k), alt.points.get(k + 1)) {
        if leg_holds(map, k, (a, b), radius) {
            k += 1;
            continue;
        }
        if plans >= MAX_LEG_PLANS {
            return false;
        }
        plans += 1;
        let wide = PathQuery {
            start: a,
            goal: b,
            ..*query
        };
        terrain.plan_path_into(&wide, search, path, leg);
        let Some(&end) = leg.points.last() else {
            return false;
        };
        let reaches = (end - b).length() <= NEARER;
        // Where the plan ends short of the waypoint (the narrower body's waypoint hugged a
        // corner and leaves the full body no room, or the search stopped at the nearest node
        // it reached), its end takes the waypoint's place: the next leg then starts from
        // it, and is tested in turn.
        let moved = end != b && alt.points.len() > k + 2;
        let n = leg.points.len();
        let (Some(inner), Some(clearance)) = (
            leg.points.get(1..n.saturating_sub(1)),
            leg.clearance.get(1..),
        ) else {
            return false;
        };
        // Planned straight to the same end, yet not walkable straight (or not at all): the
        // plan is refused.
        let added = inner.len();
        if !reaches || (added == 0 && !moved) || leg.legs.iter().any(|l| *l != Leg::Walk) {
            return false;
        }
        if alt.clearance.len() != alt.points.len() || alt.legs.len() != alt.points.len() {
            return false;
        }
        // The leg's waypoints between its ends, the clearance of each new leg, and how each
        // is walked. (A new leg that still does not hold is planned again, within the limit,
        // or the plan is refused.)
        alt.points.splice(k + 1..k + 1, inner.iter().copied());
        alt.clearance
            .splice(k + 1..k + 2, clearance.iter().copied());
        alt.legs
            .splice(k + 1..k + 1, std::iter::repeat_n(Leg::Walk, added));
        if moved && let Some(p) = alt.points.get_mut(k + 1 + added) {
            *p = end;
        }
    }
    true
}

/// How far (metres) the path `points` ends from `goal` (infinitely far for no points).
fn short_of(points: &[Vec2], goal: Vec2) -> f32 {
    points
        .last()
        .map_or(f32::INFINITY, |&e| (e - goal).length())
}

/// Whether the path `points` (a plan's, or a unit's detour) stops short of `goal` by enough
/// for [`plan_through_slanted_gaps`] to look for a route through gaps met at a slant (more
/// than [`NEARER`] metres).
pub(super) fn stops_short(points: &[Vec2], goal: Vec2) -> bool {
    !(short_of(points, goal) <= NEARER)
}

/// Whether a body of `radius` can walk every leg of `points` on `map`; the first leg from
/// where it stands, which may be nearer an obstacle than `radius` (a unit pressed against a
/// wall), for a body as wide as the room it has there.
fn holds(map: &ValidMap, points: &[Vec2], radius: f32) -> bool {
    points
        .windows(2)
        .enumerate()
        .all(|(k, w)| leg_holds(map, k, (w[0], w[1]), radius))
}

/// Whether a body of `radius` can walk leg `k` of a path, from `a` to `b`; the first leg
/// (`k` 0) for a body as wide as the room it has where it stands, at `a`.
fn leg_holds(map: &ValidMap, k: usize, (a, b): (Vec2, Vec2), radius: f32) -> bool {
    let r = if k == 0 {
        radius.min(map.clearance_at(a) - START_SLACK)
    } else {
        radius
    };
    r > 0.0 && map.line_of_sight(a, b, r)
}
