//! Turning the route a path query settled on into a [`Path`]: smoothing by line of sight and
//! measuring clearances, in buffers a [`crate::astar::SearchScratch`] keeps across queries (so
//! a warm scratch plans without allocating).

use cohort_steering::capacity::ReserveTotal;
use glam::Vec2;

use crate::path_query::{Leg, Narrowest, Path, Waypoint};
use crate::smoothing::kept_indices_into;
use crate::valid_map::{Clearance, ValidMap};

/// The intermediate buffers of a path query, kept in a [`crate::astar::SearchScratch`] so that
/// a warm scratch plans without allocating.
#[derive(Clone, Debug, Default)]
pub(crate) struct PathBuffers {
    /// The route of the current attempt (positions with the kind of the leg leaving each).
    pub(crate) raw: Vec<(Vec2, Leg)>,
    /// The route to the closest reachable point, kept for when no attempt reaches the goal.
    pub(crate) fallback: Vec<(Vec2, Leg)>,
    /// The chosen route with points added along its long walk legs (smoothing's input).
    dense: Vec<(Vec2, Leg)>,
    /// The positions of `dense`.
    points: Vec<Vec2>,
    /// The indices of `dense` kept by smoothing.
    kept: Vec<usize>,
}

impl PathBuffers {
    /// Room for routes of `n` nodes in every buffer.
    pub(crate) fn reserve(&mut self, n: usize) {
        let PathBuffers {
            raw,
            fallback,
            dense,
            points,
            kept,
        } = self;
        raw.reserve_total(n);
        fallback.reserve_total(n);
        dense.reserve_total(n);
        points.reserve_total(n);
        kept.reserve_total(n);
    }
}

/// Which buffer holds the route a query settled on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chosen {
    /// The last attempt's route ([`PathBuffers::raw`]).
    Raw,
    /// The closest-reachable route ([`PathBuffers::fallback`]).
    Fallback,
}

/// How the chosen raw route becomes a [`Path`].
pub(crate) struct Finish {
    /// The clearance the route was found with (smoothing keeps it).
    pub(crate) clearance: f32,
    /// Whether to smooth.
    pub(crate) smooth: bool,
    /// Before smoothing, walk legs longer than this get points this far apart along them (the
    /// graph's spacing), so that the smoothed path may turn anywhere along a leg, not only
    /// at the graph's nodes (which in large open cells are far apart).
    pub(crate) step: f32,
    /// Clearances are measured up to this.
    pub(crate) cap: f32,
    /// Whether the route keeps the query's clearance.
    pub(crate) met: bool,
    /// Whether it ends at the goal.
    pub(crate) reached_goal: bool,
}

impl Finish {
    /// Smooths the chosen raw route and measures its clearances into `out` (whose waypoints
    /// are empty).
    pub(crate) fn write(
        &self,
        map: &ValidMap,
        buffers: &mut PathBuffers,
        chosen: Chosen,
        out: &mut Path,
    ) {
        let PathBuffers {
            raw,
            fallback,
            dense,
            points,
            kept,
        } = buffers;
        let raw: &[(Vec2, Leg)] = match chosen {
            Chosen::Raw => raw,
            Chosen::Fallback => fallback,
        };
        let waypoint = |&(position, leg): &(Vec2, Leg)| {
            let clearance = map.clearance_capped(position, self.cap);
            Waypoint {
                position,
                clearance,
                leg_clearance: clearance,
                leg,
            }
        };
        if self.smooth {
            densify(raw, self.step, dense);
            points.clear();
            points.extend(dense.iter().map(|(p, _)| *p));
            kept_indices_into(
                map,
                points,
                |i| dense.get(i).is_some_and(|(_, l)| *l == Leg::Walk),
                self.clearance,
                kept,
            );
            out.waypoints
                .extend(kept.iter().filter_map(|&i| dense.get(i)).map(waypoint));
        } else {
            out.waypoints.extend(raw.iter().map(waypoint));
        }
        let waypoints = &mut out.waypoints;
        let first = waypoints.first().map_or(Vec2::ZERO, |w| w.position);
        let mut narrowest = Narrowest {
            position: first,
            clearance: waypoints.first().map_or(0.0, |w| w.clearance),
        };
        let mut length = 0.0;
        for i in 0..waypoints.len().saturating_sub(1) {
            let (Some(a), Some(b)) = (waypoints.get(i).copied(), waypoints.get(i + 1).copied())
            else {
                break;
            };
            length += (b.position - a.position).length();
            let leg = if a.leg == Leg::Walk {
                map.segment_clearance(a.position, b.position, a.clearance.min(b.clearance))
            } else {
                Clearance {
                    distance: a.clearance.min(b.clearance),
                    position: a.position,
                }
            };
            if let Some(w) = waypoints.get_mut(i) {
                w.leg_clearance = leg.distance;
            }
            if a.leg == Leg::Walk && leg.distance < narrowest.clearance {
                narrowest = Narrowest {
                    position: leg.position,
                    clearance: leg.distance,
                };
            }
        }
        out.length = length;
        out.reached_goal = self.reached_goal;
        out.clearance_met = self.met;
        out.narrowest = narrowest;
    }
}

/// Most points added along one leg (a leg longer than this many steps gets them further
/// apart).
const MAX_LEG_POINTS: f32 = 64.0;

/// `route` with points about `step` apart added along its walk legs longer than 1.5 steps
/// (the legs are clear for the route's clearance, so are the points on them), into `out`.
fn densify(route: &[(Vec2, Leg)], step: f32, out: &mut Vec<(Vec2, Leg)>) {
    out.clear();
    for (i, &(a, leg)) in route.iter().enumerate() {
        out.push((a, leg));
        let Some(&(b, _)) = route.get(i + 1) else {
            break;
        };
        let length = (b - a).length();
        if leg != Leg::Walk || !(step > 0.0) || !(length > 1.5 * step) {
            continue;
        }
        let pieces = (length / step).ceil().min(MAX_LEG_POINTS);
        for k in 1..pieces as u32 {
            out.push((a + (b - a) * (k as f32 / pieces), Leg::Walk));
        }
    }
}
