//! Reciprocal avoidance between units: the crowd layer of the steering stage.
//!
//! Steering turns each unit's slot (or path) into a force, and the force into the velocity the
//! unit would like to have this tick: its *preferred* velocity. Avoidance then chooses, for
//! every unit, the velocity nearest to the preferred one that collides with no neighbour
//! within [`AvoidanceSettings::time_horizon`] seconds, assuming each neighbour does its half
//! (ORCA, `cohort_steering::orca`), and with no wall or obstacle edge within
//! [`AvoidanceSettings::obstacle_time_horizon`]. Every unit's choice reads where the others
//! stood and how they moved at the start of the tick, so the order units are visited in does
//! not matter and the result is the same on any number of threads.
//!
//! Symmetric meetings (two units exactly head-on) resolve by a right-hand rule
//! ([`AvoidanceSettings::right_hand`]): each unit tilts its preferred velocity to its own
//! right when someone comes straight at it, so both pass on the right.

mod along_walls;
mod near_roots;
mod quiet;
mod search;
mod settings;
mod strays;

use along_walls::along_walls;
pub(crate) use near_roots::{NearRoots, NearRootsInput, SearchScope};
pub(crate) use search::GroupRuns;
use search::{NearKey, insert_nearest};
pub use settings::AvoidanceSettings;
use strays::{STRAGGLER_SPEED, STRAY_SPEED};

use cohort_steering::grid::{NeighbourSearch, within_radius};
use cohort_steering::ops::positive_or_zero;
use cohort_steering::orca::{self, OrcaAgent, OrcaBuffers, OrcaNeighbour, OrcaParams, OrcaSegment};
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};

use super::make_way::LaneOpener;
use super::separation::Heading;

/// Most neighbours any unit avoids at once, whatever the settings say.
pub(crate) const NEIGHBOURS_CAP: usize = 32;

/// What one unit's avoidance decided: its preferred and chosen velocities and what bound the
/// choice (for the viewer's panel).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AvoidanceReport {
    /// The velocity steering asked for.
    pub preferred: Vec2,
    /// The velocity avoidance chose.
    pub chosen: Vec2,
    /// What bound the choice, if anything did.
    pub binding: Option<Binding>,
}

/// The constraint that bound a unit's avoidance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Binding {
    /// Another unit (its dense index this tick is not stable; the key is).
    Unit(crate::ids::UnitId),
    /// A wall or polygon edge.
    Edge {
        /// First end.
        from: Vec2,
        /// Second end.
        to: Vec2,
    },
    /// A circle obstacle.
    Obstacle {
        /// Its centre.
        center: Vec2,
    },
}

/// The start-of-tick state every unit's avoidance reads: where each unit stood, how it moved,
/// its radius and its group (units of one top-level formation share a group and leave each
/// other to separation; so do those of neighbouring formations moving alike, see
/// `make_way/root_index/alike.rs`).
pub(super) struct AvoidanceInput<'a> {
    pub(super) settings: &'a AvoidanceSettings,
    pub(super) params: OrcaParams,
    pub(super) positions: &'a [Vec2],
    pub(super) velocities: &'a [Vec2],
    pub(super) radii: &'a [f32],
    /// Per unit: its group, the place among the roots of the top-level formation standing
    /// for its formation's group of formations moving alike (its own, when it has none).
    pub(super) groups: UnitGroups<'a>,
    /// Per group (at the place standing for it): whether its formations open a lane through
    /// standing ones this tick (every formation of a group of several moves and is not a
    /// single, so all of them open a formation's lane).
    pub(super) opens_lane: &'a [super::make_way::LaneOpener],
    /// Per group: whether another top-level formation is near one of its formations this
    /// tick.
    pub(super) in_traffic: &'a [bool],
    /// Per unit: its key.
    pub(super) ids: &'a [crate::ids::UnitId],
    /// The groups of the grid's slots, when they describe the grid this tick.
    pub(super) runs: Option<&'a GroupRuns>,
    /// The formations near each top-level formation, when they describe this tick (a unit
    /// near none of them has no one to avoid and is spared its search).
    pub(super) near_roots: Option<&'a NearRoots>,
    /// Largest radius and top speed of any unit.
    pub(super) limits: (f32, f32),
    /// Per unit: where it steers to (its slot or detour point) and at what velocity.
    pub(super) goals: &'a [(Vec2, Vec2)],
    /// Per unit: what its goal is (whether its slot stands still: see [`Self::strays`]).
    pub(super) headings: &'a [super::separation::Heading],
    /// The map's geometry (how wide a passage two strays meet in is: see
    /// [`Self::first_in_one_file`]).
    pub(super) map: &'a cohort_pathing::ValidMap,
}

/// A unit's own buffers for its avoidance (one set per thread).
pub(crate) struct AvoidanceBuffers {
    nearest: Vec<NearKey>,
    neighbours: Vec<OrcaNeighbour>,
    segments: Vec<OrcaSegment>,
    orca: OrcaBuffers,
}

/// Static edges the buffers make room for up front (more grow them, once).
const SEGMENTS_ROOM: usize = 64;

impl Default for AvoidanceBuffers {
    /// Buffers with room for the most neighbours any unit considers and [`SEGMENTS_ROOM`]
    /// edges, made when the world is: a world whose formations first meet long after it was
    /// built does not allocate in that tick.
    fn default() -> Self {
        Self {
            nearest: Vec::with_capacity(NEIGHBOURS_CAP + 1),
            neighbours: Vec::with_capacity(NEIGHBOURS_CAP),
            segments: Vec::with_capacity(SEGMENTS_ROOM),
            orca: OrcaBuffers::with_capacity(NEIGHBOURS_CAP + SEGMENTS_ROOM),
        }
    }
}

/// The most a unit turns its preferred velocity right (radians) at full strength of the
/// right-hand rule: past a right angle, so a unit pressed into a crowd that holds can also
/// step back out of it, which gives the crowd room to turn.
const MAX_TILT: f32 = 2.0;

/// Seconds of its steering force the velocity a unit prefers looks ahead: avoidance compares
/// what the unit wants to do, not the small change one tick of force makes (a unit standing
/// in a crowd would otherwise prefer almost nothing and never make its way).
pub(super) const PREFERENCE_TIME: f32 = 0.5;

/// Each unit's share of the avoidance between two units (both avoid).
const SHARE: f32 = 0.5;

/// A group shared by no two units (a unit of no formation).
pub(crate) const NO_GROUP: u32 = u32::MAX;

/// Each unit's avoidance group, read through its top-level formation: units of one top-level
/// formation share a group, and so do those of neighbouring formations moving alike (see
/// `make_way/root_index/alike.rs`).
#[derive(Clone, Copy)]
pub(crate) struct UnitGroups<'a> {
    /// Per unit: the place of its top-level formation among the roots ([`NO_GROUP`] for
    /// none).
    pub(crate) roots: &'a [u32],
    /// Per root: the place of the root standing for its group (a root missing here stands
    /// for itself).
    pub(crate) clusters: &'a [u32],
}

impl UnitGroups<'_> {
    /// Unit `i`'s group ([`NO_GROUP`] for a unit of no formation, or no unit `i`).
    #[inline(always)]
    pub(crate) fn of(&self, i: usize) -> u32 {
        match self.roots.get(i) {
            Some(&r) if r != NO_GROUP => self.clusters.get(r as usize).copied().unwrap_or(r),
            _ => NO_GROUP,
        }
    }

    /// How many units there are.
    pub(crate) fn len(&self) -> usize {
        self.roots.len()
    }
}

/// How far a unit of `radius` and top speed `max_speed` looks for neighbours: the gap at which
/// it would touch the largest unit, plus the least of `neighbour_distance` and what the time
/// `horizon` covers at its and the fastest unit's top speeds (`limits`: the largest radius
/// and top speed of any unit). The one formula for a unit's search and for the longest
/// search the lists of `near_roots.rs` are made for, so no unit reaches past those.
#[inline]
pub(crate) fn search_reach(
    (horizon, neighbour_distance): (f32, f32),
    (max_radius, fastest): (f32, f32),
    (radius, max_speed): (f32, f32),
) -> f32 {
    (radius + max_radius) + (horizon * (max_speed + fastest)).min(neighbour_distance.max(0.0))
}

impl AvoidanceInput<'_> {
    /// Whether unit `i`'s top-level formation is near another one this tick.
    pub(super) fn in_traffic(&self, i: usize) -> bool {
        let group = self.groups.of(i);
        group == NO_GROUP || self.in_traffic.get(group as usize).copied().unwrap_or(true)
    }

    /// Whether unit `i` is settling onto a slot that stands still: within its radius of it.
    fn settling(&self, i: usize) -> bool {
        match (
            self.goals.get(i),
            self.positions.get(i),
            self.radii.get(i),
            self.headings.get(i),
        ) {
            (Some(&(goal, _)), Some(&p), Some(&r), Some(&Heading::StillSlot)) => {
                (goal - p).length_squared() < r * r
            }
            _ => false,
        }
    }

    /// Whether unit `i` is a single: its avoidance group has no other unit (false when the
    /// groups' sizes are not known this tick).
    fn is_single(&self, i: usize) -> bool {
        let group = self.groups.of(i);
        self.runs.is_some_and(|r| r.size_of(group) == 1)
    }
}

impl AvoidanceInput<'_> {
    /// The velocity unit `i` takes instead of `body.velocity` (its preferred velocity, just
    /// integrated from its steering force): nearest to it with no collision within the
    /// horizons. `near_walls` and `near_obstacles` are the static geometry steering found
    /// around the unit. Returns the chosen velocity and what bound it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn choose(
        &self,
        i: usize,
        body: &Body,
        preferred: Vec2,
        search: &super::units::Search<'_>,
        near_walls: &[Wall],
        near_obstacles: &[CircleObstacle],
        buffers: &mut AvoidanceBuffers,
        dt: f32,
    ) -> Option<(Vec2, Option<Binding>)> {
        let (Some(&start), Some(&velocity)) = (self.positions.get(i), self.velocities.get(i))
        else {
            return None;
        };
        let group = self.groups.of(i);
        // A formation far from every other has no one to avoid: no search.
        if group != NO_GROUP && !self.in_traffic.get(group as usize).copied().unwrap_or(true) {
            return None;
        }
        let opener = |g: u32| {
            self.opens_lane
                .get(g as usize)
                .copied()
                .unwrap_or(LaneOpener::No)
        };
        let opens_lane = |g: u32| opener(g).opens();
        // A group creeping behind its own members walks through standing formations only.
        let creeping = group != NO_GROUP && opener(group) == LaneOpener::Creeping;
        let strays = self.strays(i);
        let mover = opens_lane(group) || strays;
        // A straying unit prefers its way to its slot at [`STRAY_SPEED`], whatever the crowd
        // around it pushes (separation would cancel its arrive and leave it standing).
        let preferred = match (strays, self.goals.get(i)) {
            (true, Some(&(goal, _))) => {
                let speed = if self.headings.get(i) == Some(&Heading::Straggling) {
                    STRAGGLER_SPEED
                } else {
                    STRAY_SPEED
                };
                (goal - start).clamp_length_max(speed * body.max_speed)
            }
            _ => preferred,
        };
        let horizon = self.params.time_horizon;
        let reach = search_reach(
            (horizon, self.settings.neighbour_distance),
            self.limits,
            (body.radius, body.max_speed),
        );
        let cap = (self.settings.max_neighbours as usize).min(NEIGHBOURS_CAP);
        let AvoidanceBuffers {
            nearest,
            neighbours,
            segments,
            orca: orca_buffers,
        } = buffers;
        nearest.clear();
        let root = self.groups.roots.get(i).copied().unwrap_or(NO_GROUP);
        let scope = self
            .near_roots
            .map_or(SearchScope::Everywhere, |n| n.scope(root, start, reach));
        // Units of the unit's own group are left to separation; a formation opening a lane
        // walks through standing ones: their members step aside to slots moved out of the
        // lane (make way), so its units do not wait for them.
        let rejects = |other: u32| {
            (group != NO_GROUP && other == group)
                || (mover && other != NO_GROUP && !opens_lane(other))
                || (creeping && other != NO_GROUP && opener(other) == LaneOpener::Stands)
        };
        match (scope, self.near_roots) {
            _ if cap == 0 => {}
            (SearchScope::Nobody, _) => {}
            // Only the candidates its formation listed can be kept (see `near_roots.rs`).
            (SearchScope::Candidates, Some(near)) => {
                near.for_each_candidate_run(root, start, reach, |other, candidates| {
                    if rejects(other) {
                        return;
                    }
                    for &(j, p) in candidates {
                        if j as usize != i && within_radius(p, start, reach) {
                            let d = (p - start).length_squared();
                            insert_nearest(nearest, cap, NearKey::new(d, j));
                        }
                    }
                });
            }
            _ => match (search, self.runs) {
                (super::units::Search::Grid(grid), Some(runs)) if runs.fits(grid.len()) => {
                    runs.nearest_accepted(
                        grid,
                        start,
                        reach,
                        rejects,
                        (i as u32, group),
                        cap,
                        nearest,
                    );
                }
                _ => search.for_each_in_radius(start, reach, |j, p| {
                    let other = self.groups.of(j as usize);
                    if !rejects(other) && j as usize != i {
                        let d = (p - start).length_squared();
                        insert_nearest(nearest, cap, NearKey::new(d, j));
                    }
                }),
            },
        }
        // Of two single strays pressing past each other (each standing where the other's way
        // goes on), the first by key walks on and the other steps aside for it: both
        // pressing, they shuffled round each other for many seconds in a packed crowd.
        let single_stray = |j: usize| self.is_single(j) && self.strays(j);
        let first = strays && single_stray(i);
        if first {
            nearest.retain(|k| {
                let j = k.index() as usize;
                j < i || !single_stray(j)
            });
        }
        // Of two strays of different formations meeting head-on where one file fits, the
        // first by index walks on and the other takes all of the avoidance: it backs out.
        // (Only where steering found walls or obstacles near: in the open, no search.)
        let walled = !(near_walls.is_empty() && near_obstacles.is_empty());
        let yields = if strays && cap > 0 && walled {
            self.one_file_meetings(i, search, cap, nearest)
        } else {
            strays::YieldsTo::default()
        };
        let yields_to = |j: usize| yields.contains(j);
        // Walls and obstacles alone are steering's (wall and obstacle avoidance); they bound
        // the choice only among other units.
        if nearest.is_empty() {
            // A straying unit takes its way even so (the standing units it passes step
            // aside), within the walls near it.
            if !strays || near_walls.is_empty() {
                return strays.then_some((preferred, None));
            }
        }
        // A unit settling onto a slot that stands still (within its radius of it), among units
        // all settling so, prefers no more than the speed that takes it there in the
        // preference time: the steering force, scaled up to a whole velocity, asked for the
        // top speed a few centimetres from the slot, and against a neighbouring formation's
        // units standing a couple of metres off, the choice turned that into a sideways
        // velocity every tick, on the spot. (With anyone near on the way somewhere, it keeps
        // the whole preference: standing units it makes step aside readily let stragglers
        // through a gap's mouth, where units held to their slots locked them out.)
        let preferred = if !strays
            && self.settling(i)
            && nearest.iter().all(|k| self.settling(k.index() as usize))
        {
            let to_goal = self
                .goals
                .get(i)
                .map_or(0.0, |&(goal, _)| (goal - start).length());
            preferred.clamp_length_max(to_goal / PREFERENCE_TIME)
        } else {
            preferred
        };
        let speed = preferred.length();
        let heading = if speed > 1e-6 {
            preferred / speed
        } else {
            Vec2::ZERO
        };
        // The right-hand rule by intent: how squarely the unit means to walk into its most
        // head-on near neighbour (0 to 1), whether or not anyone moves yet.
        let mut head_on: f32 = 0.0;
        let look = horizon * speed;
        // How much the unit is held back: 0 when it moves as fast as it wants, 1 when it
        // stands while wanting to go.
        let held = if speed > 1e-6 {
            (1.0 - velocity.dot(heading) / speed).clamp(0.0, 1.0)
        } else {
            0.0
        };
        // Whether every neighbour's half-plane provably permits the preferred velocity (then,
        // untilted, the solver would keep it and its answer would be thrown away).
        let test = quiet::QuietTest::new(
            velocity,
            preferred,
            body.max_speed,
            self.params.time_horizon,
        );
        let mut quiet = test.is_some();
        // A single opening a lane does not avoid the units of standing formations: they take
        // all of the avoidance, not half. (A formation's members step aside to slots clear
        // of its lane, and share the avoidance of its units.)
        // (Whether `j` walks as a single is asked only of a unit that does not open a lane
        // itself: a mover's answer does not depend on it.)
        let share_of = |j: usize| {
            let single = || {
                let other = self.groups.of(j);
                opener(other) == LaneOpener::Single || (other != group && self.strays(j))
            };
            if (!mover && group != NO_GROUP && single())
                || (first && j < i && single_stray(j))
                || yields_to(j)
            {
                1.0
            } else {
                SHARE
            }
        };
        for j in nearest.iter().map(|k| k.index() as usize) {
            let (Some(&p), Some(&v), Some(&r)) = (
                self.positions.get(j),
                self.velocities.get(j),
                self.radii.get(j),
            ) else {
                continue;
            };
            let away = p - start;
            let dist = away.length();
            if let (true, Some(test)) = (quiet, &test) {
                let combined = positive_or_zero(body.radius) + positive_or_zero(r);
                quiet = test.permits(away, dist, v, combined, share_of(j));
            }
            let gap = dist - body.radius - r;
            if look > 0.0 && gap < look && dist > 1e-6 {
                let along = heading.dot(away) / dist;
                if along > 0.0 {
                    // Pressed against from the front while held back: a unit that cannot go
                    // where it wants turns right, so a ring of units all pressing inwards
                    // turns into a roundabout instead of an arch that holds for ever.
                    let contact = 1.0 - gap.max(0.0) / (0.5 * (body.radius + r)).max(1e-3);
                    head_on = head_on.max(held * contact.clamp(0.0, 1.0));
                }
            }
        }
        // A held unit turns its preferred velocity clockwise, up to `right_hand` ×
        // [`MAX_TILT`] radians when fully held and pressed (meetings in the open are the
        // solver's own right-hand rule).
        let tilt = self.params.right_hand * head_on.min(1.0) * MAX_TILT;
        let preferred = if tilt > 0.0 {
            let (sin, cos) = cohort_steering::ops::sin_cos(-tilt);
            let turned = Vec2::new(cos, sin).rotate(preferred);
            // A single pressed against a wall turns along the wall, not into it. (A
            // formation's members keep the plain turn: their squad-mates close round them
            // along the wall, and in a corridor a file wide, turned along it, they pressed
            // into each other.)
            if self.is_single(i) {
                along_walls(preferred, turned, start, body.radius, near_walls)
            } else {
                turned
            }
        } else {
            preferred
        };
        if quiet && tilt == 0.0 && near_walls.is_empty() {
            return strays.then_some((preferred, None));
        }
        neighbours.clear();
        neighbours.extend(nearest.iter().filter_map(|k| {
            let j = k.index() as usize;
            match (
                self.positions.get(j),
                self.velocities.get(j),
                self.radii.get(j),
            ) {
                (Some(&position), Some(&velocity), Some(&radius)) => Some(OrcaNeighbour {
                    position,
                    velocity,
                    radius,
                    share: share_of(j),
                }),
                _ => None,
            }
        }));
        segments.clear();
        segments.extend(near_walls.iter().map(|w| OrcaSegment {
            from: w.from,
            to: w.to,
        }));
        let agent = OrcaAgent {
            position: start,
            velocity,
            radius: body.radius,
            max_speed: body.max_speed,
        };
        let out = orca::solve(
            &agent,
            preferred,
            neighbours,
            segments,
            &self.params,
            dt,
            orca_buffers,
        );
        let binding = out.binding.and_then(|b| match b {
            orca::Binding::Neighbour(k) => match nearest.get(k) {
                Some(k) => self
                    .ids
                    .get(k.index() as usize)
                    .map(|&id| Binding::Unit(id)),
                None => near_obstacles
                    .get(k - nearest.len())
                    .map(|o| Binding::Obstacle { center: o.center }),
            },
            orca::Binding::Segment(k) => near_walls.get(k).map(|w| Binding::Edge {
                from: w.from,
                to: w.to,
            }),
        });
        if out.binding.is_none() && tilt == 0.0 && !strays {
            return None;
        }
        Some((out.velocity, binding))
    }
}
