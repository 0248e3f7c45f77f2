//! A* over the navigation graph: a monotone radix heap on the bits of `f` (costs are never
//! negative or NaN, and the heuristic is consistent, so popped keys never decrease) with
//! reusable buffers (no allocation per search once warm), deterministic tie-breaking (lowest `f`;
//! among equal `f`, the most recently pushed node, i.e. the deepest), a compact edge array
//! holding what a relaxation reads of the target node, a Euclidean heuristic scaled to stay
//! admissible and consistent (by the smallest cost per unit length of any edge), and filters for
//! clearance and for the jumps a unit can make.
//!
//! It is measured against petgraph's own `astar` ([`NavGraph::astar_petgraph`], kept for the
//! comparison) and the `pathfinding` crate in `benches/astar.rs`; see the crate's "Speed" section.

use cohort_steering::capacity::ReserveTotal;
use glam::Vec2;
use petgraph::algo::astar;
use petgraph::stable_graph::NodeIndex;
use serde::{Deserialize, Serialize};

use crate::navgraph::{EdgeKind, NavGraph, NodeId};
use crate::radix_heap::RadixHeap;

/// Which nodes and edges a search may use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchFilter<'a> {
    /// Nodes and edges need at least this clearance.
    pub min_clearance: f32,
    /// Jump link `i` may be taken when `jumps[i]` is true (missing entries: not allowed).
    pub jumps: &'a [bool],
    /// Gap edges no wider than this may be taken (0: none).
    pub max_gap_width: f32,
    /// Keep-right surcharge (0: none): a step with the nearest obstacle on its right costs up
    /// to this fraction more (in full when the obstacle lies square to its right), so of two
    /// routes of about the same length round an obstacle the search takes the one that keeps
    /// it on the left. Movers going opposite ways round a block then take opposite sides of
    /// it, each on its own right, instead of meeting head-on; a ring of blocks is circled
    /// counter-clockwise, as a roundabout is where traffic keeps right. Costs only grow, so
    /// the heuristic stays admissible and the route is still the cheapest by these costs.
    pub keep_right: f32,
}

impl SearchFilter<'_> {
    /// Walking only, with a clearance.
    pub fn walking(min_clearance: f32) -> Self {
        Self {
            min_clearance,
            ..Self::default()
        }
    }

    #[inline]
    fn allows(&self, kind: EdgeKind) -> bool {
        match kind {
            EdgeKind::Walk => true,
            EdgeKind::Jump(i) => self.jumps.get(i).copied().unwrap_or(false),
            EdgeKind::Gap { width, .. } => width <= self.max_gap_width,
        }
    }
}

/// A route through the graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Route {
    /// Nodes from start to end.
    pub nodes: Vec<NodeId>,
    /// Total cost.
    pub cost: f32,
    /// Whether it ends at the goal (`false`: at the reachable node closest to it).
    pub reached_goal: bool,
}

/// Route length (nodes) the buffers of a [`SearchScratch`] hold without growing after
/// [`SearchScratch::reserve_for`].
pub const ROUTE_RESERVE: usize = 256;

/// Per-node search state, one cache line shared by four nodes.
#[derive(Clone, Copy, Debug, Default)]
struct NodeState {
    g: f32,
    parent: u32,
    via: u32,
    /// `2 * generation` when reached in the current search, `2 * generation + 1` once closed.
    stamp: u32,
}

/// Buffers reused across searches. One per thread (or per world); not serialized.
#[derive(Clone, Debug, Default)]
pub struct SearchScratch {
    nodes: Vec<NodeState>,
    generation: u32,
    heap: RadixHeap,
    /// Node slots of the last route, start to end.
    pub(crate) route: Vec<u32>,
    /// For each node of the last route after the first, the adjacency index of the edge into it.
    pub(crate) route_edges: Vec<u32>,
    /// Per jump link: whether the unit of the current query can make it.
    pub(crate) jumps: Vec<bool>,
    /// The intermediate buffers of a path query (raw routes, smoothing).
    pub(crate) path: crate::path_finish::PathBuffers,
}

/// What a search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// The goal, at this cost.
    Found(f32),
    /// The goal is unreachable; the route leads to the reachable node closest to it.
    Closest(f32),
    /// The start node is unusable (missing, or below the clearance).
    NoStart,
}

impl SearchScratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Grows the buffers now to what searches of `graph` need: the per-node state to the
    /// graph's size (what its first search would do), and the open list, the route and the
    /// path query's buffers to routes of [`ROUTE_RESERVE`] nodes. A world calls it before its
    /// first plans so that they do not allocate in the middle of a run (longer routes still
    /// grow the buffers, once). Cheap when they already fit.
    pub fn reserve_for(&mut self, graph: &NavGraph) {
        self.grow_to(graph.adjacency.nodes.len());
        self.heap.reserve(ROUTE_RESERVE);
        for v in [&mut self.route, &mut self.route_edges] {
            v.reserve_total(ROUTE_RESERVE);
        }
        self.path.reserve(ROUTE_RESERVE);
    }

    fn grow_to(&mut self, slots: usize) {
        if self.nodes.len() < slots {
            self.nodes.resize(slots, NodeState::default());
        }
    }

    fn begin(&mut self, slots: usize) {
        self.grow_to(slots);
        self.generation += 1;
        if self.generation >= u32::MAX / 2 {
            self.nodes.iter_mut().for_each(|n| n.stamp = 0);
            self.generation = 1;
        }
        self.heap.clear();
        self.route.clear();
        self.route_edges.clear();
    }
}

impl NavGraph {
    /// A* from `start` to `goal` with a Euclidean heuristic, using only what `filter` allows.
    /// `None` when a node is missing or the goal is unreachable.
    pub fn find_route(
        &self,
        start: NodeId,
        goal: NodeId,
        filter: &SearchFilter<'_>,
        scratch: &mut SearchScratch,
    ) -> Option<Route> {
        match self.search(start, goal, filter, scratch, false) {
            Outcome::Found(cost) => Some(Route {
                nodes: scratch
                    .route
                    .iter()
                    .map(|&i| NodeIndex::new(i as usize))
                    .collect(),
                cost,
                reached_goal: true,
            }),
            _ => None,
        }
    }

    /// Like [`NavGraph::find_route`] but an unreachable goal gives the route to the reachable
    /// node nearest to it (`reached_goal == false`). `None` only when `start` is unusable.
    pub fn find_route_or_closest(
        &self,
        start: NodeId,
        goal: NodeId,
        filter: &SearchFilter<'_>,
        scratch: &mut SearchScratch,
    ) -> Option<Route> {
        let (cost, reached_goal) = match self.search(start, goal, filter, scratch, true) {
            Outcome::Found(c) => (c, true),
            Outcome::Closest(c) => (c, false),
            Outcome::NoStart => return None,
        };
        Some(Route {
            nodes: scratch
                .route
                .iter()
                .map(|&i| NodeIndex::new(i as usize))
                .collect(),
            cost,
            reached_goal,
        })
    }

    /// The search core; the route's node slots are left in `scratch.route`. Without
    /// `track_closest`, an unreachable goal leaves the route to the start only.
    pub(crate) fn search(
        &self,
        start: NodeId,
        goal: NodeId,
        filter: &SearchFilter<'_>,
        scratch: &mut SearchScratch,
        track_closest: bool,
    ) -> Outcome {
        let adj = &self.adjacency;
        let slots = adj.nodes.len();
        let (s, t) = (start.index(), goal.index());
        let min_c = filter.min_clearance;
        if !adj
            .nodes
            .get(s)
            .is_some_and(|n| n.clearance >= 0.0 && n.clearance >= min_c)
        {
            return Outcome::NoStart;
        }
        let goal_known = adj.nodes.get(t).is_some_and(|n| n.clearance >= 0.0);
        let goal_pos = adj.nodes.get(t).map_or(Vec2::ZERO, |n| n.position);
        let scale = self.heuristic_scale;
        // The keep-right surcharge, 0 to 1 (NaN and negative: none).
        let keep_right = if filter.keep_right > 0.0 {
            filter.keep_right.min(1.0)
        } else {
            0.0
        };
        scratch.begin(slots);
        let (seen, closed) = (scratch.generation * 2, scratch.generation * 2 + 1);
        let SearchScratch { nodes, heap, .. } = scratch;
        // Slots below `slots` are in range of `nodes`, `adj.nodes` and `adj.offsets` (built
        // together in `NavGraph::from_graph`): plain indexing cannot fail below.
        nodes[s] = NodeState {
            g: 0.0,
            parent: u32::MAX,
            via: u32::MAX,
            stamp: seen,
        };
        heap.push(
            (adj.nodes[s].position - goal_pos).length() * scale,
            s as u32,
        );
        let mut closest = (f32::INFINITY, f32::INFINITY, s as u32);
        let mut found = None;
        while let Some(n) = heap.pop() {
            let n = n as usize;
            let state = &mut nodes[n];
            if state.stamp == closed {
                continue;
            }
            state.stamp = closed;
            let gn = state.g;
            if n == t && goal_known {
                found = Some(gn);
                break;
            }
            if track_closest {
                let hn = (adj.nodes[n].position - goal_pos).length() * scale;
                if (hn, gn, n as u32) < closest {
                    closest = (hn, gn, n as u32);
                }
            }
            let (from, to) = (adj.offsets[n] as usize, adj.offsets[n + 1] as usize);
            for k in from..to {
                let e = adj.edges[k];
                let m = e.to() as usize;
                if e.clearance < min_c
                    || (!e.walk() && !adj.kind(k).is_some_and(|kind| filter.allows(kind)))
                {
                    continue;
                }
                let ng = gn
                    + if keep_right > 0.0 {
                        e.cost + e.cost * keep_right * e.right_side
                    } else {
                        e.cost
                    };
                let ms = &mut nodes[m];
                if ms.stamp == closed || (ms.stamp == seen && ng >= ms.g) {
                    continue;
                }
                *ms = NodeState {
                    g: ng,
                    parent: n as u32,
                    via: k as u32,
                    stamp: seen,
                };
                heap.push(ng + (e.target - goal_pos).length() * scale, m as u32);
            }
        }
        let (end, outcome) = match found {
            Some(cost) => (t as u32, Outcome::Found(cost)),
            None => (closest.2, Outcome::Closest(closest.1)),
        };
        let mut at = end;
        while at != u32::MAX {
            scratch.route.push(at);
            let (parent, via) = scratch
                .nodes
                .get(at as usize)
                .map_or((u32::MAX, u32::MAX), |n| (n.parent, n.via));
            if parent != u32::MAX {
                scratch.route_edges.push(via);
            }
            at = parent;
        }
        scratch.route.reverse();
        scratch.route_edges.reverse();
        outcome
    }

    /// The same search through petgraph's `astar` (walk edges only, no clearance filter), for
    /// comparison: its cost and nodes.
    pub fn astar_petgraph(&self, start: NodeId, goal: NodeId) -> Option<(f32, Vec<NodeId>)> {
        let goal_pos: Vec2 = self.node(goal)?.position;
        let graph = self.graph();
        let scale = self.heuristic_scale;
        astar(
            graph,
            start,
            |n| n == goal,
            |e| e.weight().cost,
            |n| {
                graph
                    .node_weight(n)
                    .map_or(0.0, |w| (w.position - goal_pos).length() * scale)
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::navgraph::{NavEdge, NavGraphStorage, NavNode};

    /// A 5 × 5 grid graph (spacing 1) with 8-connected walk edges, minus the listed cells.
    fn grid(
        blocked: &[(i32, i32)],
        clearance: impl Fn(i32, i32) -> f32,
    ) -> (NavGraph, Vec<Option<NodeId>>) {
        let mut g = NavGraphStorage::default();
        let mut ids = vec![None; 25];
        for y in 0..5 {
            for x in 0..5 {
                if !blocked.contains(&(x, y)) {
                    ids[(y * 5 + x) as usize] = Some(g.add_node(NavNode {
                        position: Vec2::new(x as f32, y as f32),
                        clearance: clearance(x, y),
                    }));
                }
            }
        }
        for y in 0..5 {
            for x in 0..5 {
                for (dx, dy) in [(1, 0), (0, 1), (1, 1), (-1, 1)] {
                    let (nx, ny) = (x + dx, y + dy);
                    if !(0..5).contains(&nx) || !(0..5).contains(&ny) {
                        continue;
                    }
                    if let (Some(a), Some(b)) =
                        (ids[(y * 5 + x) as usize], ids[(ny * 5 + nx) as usize])
                    {
                        let c = clearance(x, y).min(clearance(nx, ny));
                        let e = NavEdge {
                            cost: Vec2::new(dx as f32, dy as f32).length(),
                            clearance: c,
                            kind: EdgeKind::Walk,
                        };
                        g.add_edge(a, b, e);
                        g.add_edge(b, a, e);
                    }
                }
            }
        }
        (NavGraph::from_graph(g).unwrap(), ids)
    }

    #[test]
    fn shortest_route_around_a_wall() {
        // A wall at x = 2 from y = 0 to 3: the route from (0,0) to (4,0) goes over it.
        let (nav, ids) = grid(&[(2, 0), (2, 1), (2, 2), (2, 3)], |_, _| 1.0);
        let mut scratch = SearchScratch::new();
        let r = nav
            .find_route(
                ids[0].unwrap(),
                ids[4].unwrap(),
                &SearchFilter::default(),
                &mut scratch,
            )
            .unwrap();
        // Up to (2, 4) and down again: 2 straight and 2 diagonal steps each way.
        let (pc, pn) = nav
            .astar_petgraph(ids[0].unwrap(), ids[4].unwrap())
            .unwrap();
        assert!((r.cost - pc).abs() < 1e-4, "{} vs {}", r.cost, pc);
        assert_eq!(r.nodes.first(), pn.first());
        assert_eq!(r.nodes.last(), pn.last());
        assert!((r.cost - (4.0 + 4.0 * core::f32::consts::SQRT_2)).abs() < 1e-4);
        assert!(
            r.nodes
                .iter()
                .all(|n| nav.node(*n).unwrap().position.x != 2.0
                    || nav.node(*n).unwrap().position.y == 4.0)
        );
    }

    #[test]
    fn same_query_same_route_and_reused_buffers() {
        let (nav, ids) = grid(&[(2, 2)], |_, _| 1.0);
        let mut scratch = SearchScratch::new();
        let a = nav.find_route(
            ids[0].unwrap(),
            ids[24].unwrap(),
            &SearchFilter::default(),
            &mut scratch,
        );
        for _ in 0..5 {
            let b = nav.find_route(
                ids[0].unwrap(),
                ids[24].unwrap(),
                &SearchFilter::default(),
                &mut scratch,
            );
            assert_eq!(a, b);
        }
    }

    #[test]
    fn clearance_filter_and_closest_fallback() {
        // The middle row is narrow (clearance 0.2) except nothing: a unit needing 0.5 cannot
        // cross from the bottom to the top.
        let (nav, ids) = grid(&[], |_, y| if y == 2 { 0.2 } else { 1.0 });
        let mut scratch = SearchScratch::new();
        let (s, t) = (ids[0].unwrap(), ids[22].unwrap());
        assert!(
            nav.find_route(s, t, &SearchFilter::walking(0.5), &mut scratch)
                .is_none()
        );
        let r = nav
            .find_route_or_closest(s, t, &SearchFilter::walking(0.5), &mut scratch)
            .unwrap();
        assert!(!r.reached_goal);
        // The closest reachable node is (2, 1), right below the goal.
        assert_eq!(
            nav.node(*r.nodes.last().unwrap()).unwrap().position,
            Vec2::new(2.0, 1.0)
        );
        assert!(
            nav.find_route(s, t, &SearchFilter::walking(0.1), &mut scratch)
                .is_some()
        );
        // A start below the clearance is unusable.
        let mid = ids[12].unwrap();
        assert!(
            nav.find_route_or_closest(mid, t, &SearchFilter::walking(0.5), &mut scratch)
                .is_none()
        );
    }

    #[test]
    fn jump_edges_only_for_able_units() {
        let mut g = NavGraphStorage::default();
        let a = g.add_node(NavNode {
            position: Vec2::ZERO,
            clearance: 1.0,
        });
        let b = g.add_node(NavNode {
            position: Vec2::new(3.0, 0.0),
            clearance: 1.0,
        });
        g.add_edge(
            a,
            b,
            NavEdge {
                cost: 3.0,
                clearance: 1.0,
                kind: EdgeKind::Jump(0),
            },
        );
        let nav = NavGraph::from_graph(g).unwrap();
        let mut scratch = SearchScratch::new();
        assert!(
            nav.find_route(a, b, &SearchFilter::default(), &mut scratch)
                .is_none()
        );
        let able = SearchFilter {
            jumps: &[true],
            ..SearchFilter::default()
        };
        assert_eq!(
            nav.find_route(a, b, &able, &mut scratch).unwrap().nodes,
            vec![a, b]
        );
        // One-way.
        assert!(nav.find_route(b, a, &able, &mut scratch).is_none());
    }
}
