//! Path queries: from a start to a goal for a body of a given radius, optionally keeping a
//! wider clearance (a formation's half-width), optionally through jumps, smoothed, with the
//! clearance along the way and the narrowest point.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::astar::{Outcome, SearchFilter, SearchScratch};
use crate::error::{PathingError, finite_vec, non_negative};
use crate::jump::{JumpAbility, JumpPlan, JumpRefusal, plan_jump};
use crate::navgraph::{EdgeKind, NavGraph, NodeId};
use crate::path_finish::{Chosen, Finish, PathBuffers};
use crate::valid_map::ValidMap;

/// Leeway kept when deciding whether a unit can leap a gap edge: the jump detector's default
/// leap distance plus landing margin.
const GAP_LEEWAY: f32 = 0.8;

/// What a path query does when the start is blocked or the goal blocked or unreachable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnFailure {
    /// Return a typed error ([`PathingError::StartBlocked`], [`PathingError::GoalBlocked`],
    /// [`PathingError::Unreachable`]).
    #[default]
    Error,
    /// Start from the nearest free point and go to the reachable point closest to the goal
    /// ([`Path::reached_goal`] is then `false`).
    ClosestReachable,
}

/// A path request.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathQuery {
    /// Where the unit (or formation anchor) is.
    pub start: Vec2,
    /// Where it wants to go.
    pub goal: Vec2,
    /// Body radius: the path never comes closer than this to an obstacle.
    pub radius: f32,
    /// Wanted clearance (a formation's half-width); when no path keeps it, the best path for
    /// `radius` is returned with its narrowest point. Values below `radius` mean `radius`.
    pub clearance: f32,
    /// What to do on a blocked start or goal or an unreachable goal.
    pub on_failure: OnFailure,
    /// The unit's jumping ability; `None` for units that cannot jump (no jump or gap legs).
    pub jump: Option<JumpAbility>,
    /// Whether to smooth the path by line of sight (string pulling).
    pub smooth: bool,
    /// Keep-right surcharge of the search, 0 to 1 ([`crate::SearchFilter::keep_right`]): of
    /// two routes of about the same length round an obstacle, the one keeping it on the left.
    #[serde(default)]
    pub keep_right: f32,
}

impl PathQuery {
    /// A smoothed path for a body of `radius`, errors on failure, no jumps.
    pub fn new(start: Vec2, goal: Vec2, radius: f32) -> Self {
        Self {
            start,
            goal,
            radius,
            clearance: 0.0,
            on_failure: OnFailure::Error,
            jump: None,
            smooth: true,
            keep_right: 0.0,
        }
    }

    /// The same query asking for a wider clearance.
    pub fn with_clearance(mut self, clearance: f32) -> Self {
        self.clearance = clearance;
        self
    }

    /// The same query going to the closest reachable point instead of failing.
    pub fn or_closest(mut self) -> Self {
        self.on_failure = OnFailure::ClosestReachable;
        self
    }

    /// The same query preferring, by up to `surcharge` of a step's cost, routes that keep
    /// obstacles on their left ([`crate::SearchFilter::keep_right`]).
    pub fn keeping_right(mut self, surcharge: f32) -> Self {
        self.keep_right = surcharge;
        self
    }

    /// The same query for a unit that can jump.
    pub fn with_jumps(mut self, ability: JumpAbility) -> Self {
        self.jump = Some(ability);
        self
    }

    /// The same query without smoothing (the raw graph path).
    pub fn unsmoothed(mut self) -> Self {
        self.smooth = false;
        self
    }

    /// Checks the numbers: finite points, non-negative radius and clearance, a valid ability.
    pub fn check(&self) -> Result<(), PathingError> {
        finite_vec("path start", self.start)?;
        finite_vec("path goal", self.goal)?;
        non_negative("path radius", self.radius)?;
        non_negative("path clearance", self.clearance)?;
        if let Some(a) = &self.jump {
            a.check()?;
        }
        Ok(())
    }
}

/// How the leg from a waypoint to the next is travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Leg {
    /// On foot (also the value of the last waypoint, which has no leg).
    Walk,
    /// Through jump link `i`: this waypoint is the take-off point, the next the landing.
    Jump(usize),
    /// A leap over gap `i`: run at it at full speed and leap at the edge.
    Gap(usize),
}

/// A point of a path.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Waypoint {
    /// Where it is.
    pub position: Vec2,
    /// Clearance at this point.
    pub clearance: f32,
    /// The smallest clearance along the leg to the next waypoint (for jump and gap legs: the
    /// smaller of the two ends; for the last waypoint: its own clearance).
    pub leg_clearance: f32,
    /// How the leg to the next waypoint is travelled.
    pub leg: Leg,
}

/// The narrowest point of a path: where a formation must narrow (to a column) and how wide the
/// passage is there.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Narrowest {
    /// Where the clearance is smallest.
    pub position: Vec2,
    /// The clearance there.
    pub clearance: f32,
}

/// A path found by [`find_path`].
///
/// Clearances are measured up to four times the query's clearance (at least four graph
/// spacings); larger values are reported as that cap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// The waypoints, start first.
    pub waypoints: Vec<Waypoint>,
    /// Total length of the legs.
    pub length: f32,
    /// `false` when the goal could not be reached and the path ends at the closest reachable
    /// point ([`OnFailure::ClosestReachable`]).
    pub reached_goal: bool,
    /// Whether the whole path keeps the query's clearance.
    pub clearance_met: bool,
    /// The narrowest walked point.
    pub narrowest: Narrowest,
}

impl Default for Path {
    /// No waypoints, length 0, goal not reached, clearance not met, narrowest at the origin
    /// with clearance 0 (what [`find_path_into`] leaves in its output on an error).
    fn default() -> Self {
        Self {
            waypoints: Vec::new(),
            length: 0.0,
            reached_goal: false,
            clearance_met: false,
            narrowest: Narrowest {
                position: Vec2::ZERO,
                clearance: 0.0,
            },
        }
    }
}

impl Path {
    /// Makes this the empty path ([`Path::default`]) keeping the waypoints' capacity.
    pub fn clear(&mut self) {
        self.waypoints.clear();
        self.length = 0.0;
        self.reached_goal = false;
        self.clearance_met = false;
        self.narrowest = Narrowest {
            position: Vec2::ZERO,
            clearance: 0.0,
        };
    }

    /// The waypoint positions.
    pub fn positions(&self) -> impl Iterator<Item = Vec2> + '_ {
        self.waypoints.iter().map(|w| w.position)
    }

    /// For each jump-link leg: the waypoint index and the plan for a unit (velocity-matching
    /// target and take-off velocity), or why it refuses.
    pub fn jump_plans(
        &self,
        map: &ValidMap,
        ability: &JumpAbility,
    ) -> Vec<(usize, Result<JumpPlan, JumpRefusal>)> {
        self.waypoints
            .iter()
            .enumerate()
            .filter_map(|(i, w)| match w.leg {
                Leg::Jump(link) => {
                    let plan = map
                        .map()
                        .jump_links
                        .get(link)
                        .map_or(Err(JumpRefusal::InvalidAbility), |l| plan_jump(l, ability));
                    Some((i, plan))
                }
                _ => None,
            })
            .collect()
    }
}

/// Finds a path (see [`PathQuery`]). With a wider clearance than the radius, the path keeps it
/// when one exists; otherwise it is the best path for the radius, `clearance_met == false`,
/// and [`Path::narrowest`] says where it narrows. Jump links are only taken when the unit can
/// make them ([`plan_jump`]), gaps only when it can leap them at full speed. Never panics.
///
/// A new [`Path`] each call; [`find_path_into`] writes into a caller's path instead.
pub fn find_path(
    map: &ValidMap,
    graph: &NavGraph,
    query: &PathQuery,
    scratch: &mut SearchScratch,
) -> Result<Path, PathingError> {
    let mut path = Path::default();
    find_path_into(map, graph, query, scratch, &mut path)?;
    Ok(path)
}

/// [`find_path`] into the caller's `out`: its waypoints are cleared and refilled (the vector
/// keeps its capacity) and every other field is overwritten, and the intermediate buffers are
/// `scratch`'s, so once `scratch` and `out` have grown to the size of the paths asked for, a
/// query makes no allocation. The path is the one [`find_path`] returns for the same query;
/// on an error `out` is left empty ([`Path::default`]).
pub fn find_path_into(
    map: &ValidMap,
    graph: &NavGraph,
    query: &PathQuery,
    scratch: &mut SearchScratch,
    out: &mut Path,
) -> Result<(), PathingError> {
    out.clear();
    let mut buffers = core::mem::take(&mut scratch.path);
    let result = plan(map, graph, query, scratch, &mut buffers, out);
    scratch.path = buffers;
    result
}

/// The body of [`find_path_into`], with the query's buffers taken out of the scratch.
fn plan(
    map: &ValidMap,
    graph: &NavGraph,
    query: &PathQuery,
    scratch: &mut SearchScratch,
    buffers: &mut PathBuffers,
    out: &mut Path,
) -> Result<(), PathingError> {
    query.check()?;
    let closest = query.on_failure == OnFailure::ClosestReachable;
    let r = query.radius;
    let wide = query.clearance.max(r);
    let start = if !map.is_blocked(query.start, r) {
        query.start
    } else if closest {
        map.nearest_free_point(query.start, r)
            .ok_or(PathingError::NoWalkableNode {
                position: query.start,
            })?
    } else {
        return Err(PathingError::StartBlocked {
            position: query.start,
        });
    };
    let goal = if !map.is_blocked(query.goal, r) {
        query.goal
    } else if closest {
        map.nearest_free_point(query.goal, r).unwrap_or(query.goal)
    } else {
        return Err(PathingError::GoalBlocked {
            position: query.goal,
        });
    };
    let goal_free = !map.is_blocked(goal, r);
    let mut jumps = core::mem::take(&mut scratch.jumps);
    jumps.clear();
    jumps.extend(
        map.map()
            .jump_links
            .iter()
            .map(|l| query.jump.is_some_and(|a| plan_jump(l, &a).is_ok())),
    );
    let max_gap_width = query
        .jump
        .map_or(0.0, |a| (a.flat_range() - GAP_LEEWAY).max(0.0));
    let report_cap = (wide * 4.0).max(graph.spacing() * 4.0);
    // A start or goal in a large open cell may be most of a cell side from its node.
    let reach = (graph.spacing() * 3.0).max(graph.longest_walk()) + wide;
    let PathBuffers { raw, fallback, .. } = buffers;
    let mut has_fallback = false;
    // The attempt that reached the goal: its clearance, whether that is the query's, and
    // whether it ended at the goal.
    let mut result = None;
    let attempts: &[(f32, bool)] = if wide > r {
        &[(wide, true), (r, false)]
    } else {
        &[(r, true)]
    };
    for &(c, met) in attempts {
        if goal_free && map.line_of_sight(start, goal, c) {
            raw.clear();
            raw.extend([(start, Leg::Walk), (goal, Leg::Walk)]);
            result = Some((c, met, true));
            break;
        }
        let visible = |p: Vec2| {
            move |_: NodeId, n: &crate::navgraph::NavNode| {
                n.clearance >= c && map.line_of_sight(p, n.position, c)
            }
        };
        let Some(s) = graph.nearest_node_where(start, reach, visible(start)) else {
            continue;
        };
        let goal_node = if goal_free {
            graph.nearest_node_where(goal, reach, visible(goal))
        } else {
            None
        };
        // Without a visible goal node, aim at the nearest node: the search then ends at the
        // closest reachable one.
        let target = goal_node.or_else(|| graph.nearest_node(goal)).unwrap_or(s);
        let filter = SearchFilter {
            min_clearance: c,
            jumps: &jumps,
            max_gap_width,
            keep_right: query.keep_right,
        };
        let outcome = graph.search(s, target, &filter, scratch, true);
        raw.clear();
        raw.push((start, Leg::Walk));
        raw_route(graph, scratch, raw);
        match outcome {
            Outcome::Found(_) if goal_node.is_some() => {
                raw.push((goal, Leg::Walk));
                result = Some((c, met, true));
                break;
            }
            Outcome::Found(_) | Outcome::Closest(_) => {
                // A later attempt's closest route replaces an earlier one.
                core::mem::swap(raw, fallback);
                has_fallback = true;
            }
            Outcome::NoStart => {}
        }
    }
    scratch.jumps = jumps;
    let (chosen, c, met, reached) = match result {
        // A goal moved out of an obstacle is the closest reachable point, not the goal.
        Some((c, met, found)) => (Chosen::Raw, c, met, found && goal == query.goal),
        None if closest => {
            if !has_fallback {
                fallback.clear();
                fallback.push((start, Leg::Walk));
            }
            (Chosen::Fallback, r, wide <= r, false)
        }
        None => {
            return Err(PathingError::Unreachable {
                start: query.start,
                goal: query.goal,
            });
        }
    };
    let finish = Finish {
        clearance: c,
        smooth: query.smooth,
        step: graph.spacing(),
        cap: report_cap,
        met,
        reached_goal: reached,
    };
    finish.write(map, buffers, chosen, out);
    Ok(())
}

/// Appends the route left in `scratch` (node positions, with the kind of the leg leaving each).
fn raw_route(graph: &NavGraph, scratch: &SearchScratch, out: &mut Vec<(Vec2, Leg)>) {
    let adj = &graph.adjacency;
    for (i, &slot) in scratch.route.iter().enumerate() {
        let leg = match scratch
            .route_edges
            .get(i)
            .and_then(|&k| adj.kind(k as usize))
        {
            Some(EdgeKind::Jump(j)) => Leg::Jump(j),
            Some(EdgeKind::Gap { gap, .. }) => Leg::Gap(gap),
            _ => Leg::Walk,
        };
        if let Some(n) = adj.nodes.get(slot as usize) {
            out.push((n.position, leg));
        }
    }
}

#[cfg(test)]
#[path = "path_query_tests.rs"]
mod tests;
