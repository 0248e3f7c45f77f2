//! The navigation graph: a petgraph `StableGraph` whose nodes carry a position and a clearance
//! and whose edges carry a cost, a clearance and a kind (walk, jump link, gap leap), with a
//! spatial index of the nodes and a compact adjacency copy the A* search runs on.

use glam::Vec2;
use petgraph::Directed;
use petgraph::stable_graph::{NodeIndex, StableGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::{Deserialize, Serialize};

use crate::broad_phase::BucketGrid;
use crate::error::{PathingError, finite_vec, non_negative};

/// A node of the navigation graph, as petgraph indexes it.
pub type NodeId = NodeIndex<u32>;

/// The petgraph graph type inside a [`NavGraph`]: directed (jumps are one-way; walkable links
/// are two edges).
pub type NavGraphStorage = StableGraph<NavNode, NavEdge, Directed, u32>;

/// A walkable place.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavNode {
    /// Where it is.
    pub position: Vec2,
    /// Distance to the nearest obstacle (how wide a body may stand here).
    pub clearance: f32,
}

/// How an edge is travelled.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum EdgeKind {
    /// On foot.
    Walk,
    /// Through jump link `i` of the map ([`crate::Map::jump_links`]).
    Jump(usize),
    /// A leap over jumpable gap `gap` of the map, `width` wide along the edge.
    Gap {
        /// Index into [`crate::Map::gaps`].
        gap: usize,
        /// Length of the edge over the gap.
        width: f32,
    },
}

/// A directed link between two nodes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavEdge {
    /// Cost of travelling it (its length for the built graphs).
    pub cost: f32,
    /// The smallest clearance along it.
    pub clearance: f32,
    /// How it is travelled.
    pub kind: EdgeKind,
}

/// A node as the search reads it (a negative clearance marks a vacant slot).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AdjNode {
    pub position: Vec2,
    pub clearance: f32,
}

/// An edge as the search reads it, with what the search needs of its target (position, and
/// the smaller of the edge's and the target's clearance) so that relaxing it reads the edge
/// array sequentially, and how far the nearest obstacle lies on its right. 24 bytes; the kind
/// of the few edges that are not walked is kept aside ([`Adjacency::special`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdjEdge {
    /// The target's slot, with [`SPECIAL`] set when the edge is not a walk edge.
    to: u32,
    pub cost: f32,
    pub clearance: f32,
    pub target: Vec2,
    /// How squarely the nearest obstacle lies on the edge's right at its source, 0 to 1 (see
    /// [`Adjacency::estimate_sides`]); what [`crate::SearchFilter::keep_right`] scales.
    pub right_side: f32,
}

/// The bit of [`AdjEdge`]'s target slot that marks a jump or gap edge.
const SPECIAL: u32 = 1 << 31;

impl AdjEdge {
    /// The target's slot.
    #[inline]
    pub fn to(&self) -> u32 {
        self.to & !SPECIAL
    }

    /// Whether it is a walk edge.
    #[inline]
    pub fn walk(&self) -> bool {
        self.to & SPECIAL == 0
    }
}

/// The adjacency the search reads: per node slot, its out-edges in one flat array.
#[derive(Clone, Debug, Default)]
pub(crate) struct Adjacency {
    pub offsets: Vec<u32>,
    pub nodes: Vec<AdjNode>,
    pub edges: Vec<AdjEdge>,
    /// The kinds of the edges that are not walk edges, by index into `edges`, ascending.
    pub special: Vec<(u32, EdgeKind)>,
}

impl Adjacency {
    /// Sets every edge's [`AdjEdge::right_side`]: at its source, the direction the clearance
    /// rises in (away from the nearest obstacle: the least-squares direction of the rise over
    /// the source's walk edges, each neighbour's clearance difference along the edge over the
    /// edge's length squared, summed, normalized; zero where the clearance does not change,
    /// in open ground beyond its cap), turned into how far it points to the edge's left.
    /// Computed once with the graph, so a search only scales it.
    fn estimate_sides(&mut self) {
        for n in 0..self.nodes.len() {
            let (Some(&node), Some(&from), Some(&to)) = (
                self.nodes.get(n),
                self.offsets.get(n),
                self.offsets.get(n + 1),
            ) else {
                continue;
            };
            if node.clearance < 0.0 {
                continue;
            }
            let (from, to) = (from as usize, to as usize);
            let mut rise = Vec2::ZERO;
            for e in self.edges.get(from..to).unwrap_or(&[]) {
                let Some(m) = self.nodes.get(e.to() as usize) else {
                    continue;
                };
                let d = m.position - node.position;
                let len_sq = d.length_squared();
                if !e.walk() || m.clearance < 0.0 || !(len_sq > 1e-12) {
                    continue;
                }
                rise += d * ((m.clearance - node.clearance) / len_sq);
            }
            let away = rise.try_normalize().unwrap_or(Vec2::ZERO);
            for e in self.edges.get_mut(from..to).unwrap_or(&mut []) {
                let d = e.target - node.position;
                let len = d.length();
                let side = if len > 1e-6 {
                    away.dot(d.perp()) / len
                } else {
                    0.0
                };
                e.right_side = side.clamp(0.0, 1.0);
            }
        }
    }

    /// The kind of edge `k` of `edges`.
    #[inline]
    pub fn kind(&self, k: usize) -> Option<EdgeKind> {
        let e = self.edges.get(k)?;
        if e.walk() {
            return Some(EdgeKind::Walk);
        }
        let i = self
            .special
            .binary_search_by_key(&(k as u32), |s| s.0)
            .ok()?;
        self.special.get(i).map(|s| s.1)
    }

    /// Heap bytes held.
    fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        self.offsets.capacity() * size_of::<u32>()
            + self.nodes.capacity() * size_of::<AdjNode>()
            + self.edges.capacity() * size_of::<AdjEdge>()
            + self.special.capacity() * size_of::<(u32, EdgeKind)>()
    }
}

/// A validated navigation graph. Build it with [`NavGraph::from_occupancy_grid`],
/// [`NavGraph::from_map`] or from any petgraph graph with [`NavGraph::from_graph`]; it does not
/// change afterwards (take the graph out with [`NavGraph::into_graph`] to edit it). Serializes as
/// its petgraph graph.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "NavGraphStorage")]
pub struct NavGraph {
    graph: NavGraphStorage,
    pub(crate) adjacency: Adjacency,
    index: BucketGrid,
    spacing: f32,
    longest_walk: f32,
    pub(crate) heuristic_scale: f32,
}

impl Serialize for NavGraph {
    /// As its petgraph graph (without copying it).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.graph.serialize(serializer)
    }
}

impl From<NavGraph> for NavGraphStorage {
    fn from(g: NavGraph) -> Self {
        g.graph
    }
}

impl TryFrom<NavGraphStorage> for NavGraph {
    type Error = PathingError;
    fn try_from(g: NavGraphStorage) -> Result<Self, PathingError> {
        Self::from_graph(g)
    }
}

impl NavGraph {
    /// Validates a petgraph graph (finite positions, non-negative finite clearances and costs)
    /// and builds the spatial index and search adjacency.
    pub fn from_graph(graph: NavGraphStorage) -> Result<Self, PathingError> {
        for n in graph.node_weights() {
            finite_vec("node position", n.position)?;
            non_negative("node clearance", n.clearance)?;
        }
        for e in graph.edge_weights() {
            non_negative("edge cost", e.cost)?;
            non_negative("edge clearance", e.clearance)?;
            if let EdgeKind::Gap { width, .. } = e.kind {
                non_negative("gap width", width)?;
            }
        }
        let bound = graph
            .node_indices()
            .map(|n| n.index() + 1)
            .max()
            .unwrap_or(0);
        if bound >= SPECIAL as usize || graph.edge_count() >= u32::MAX as usize {
            return Err(PathingError::TooLarge {
                what: "navigation graph",
                count: bound.max(graph.edge_count()),
                limit: SPECIAL as usize - 1,
            });
        }
        let mut adjacency = Adjacency {
            offsets: Vec::with_capacity(bound + 1),
            nodes: vec![
                AdjNode {
                    position: Vec2::ZERO,
                    clearance: -1.0,
                };
                bound
            ],
            edges: Vec::with_capacity(graph.edge_count()),
            special: Vec::new(),
        };
        for n in graph.node_indices() {
            if let (Some(w), Some(slot)) =
                (graph.node_weight(n), adjacency.nodes.get_mut(n.index()))
            {
                *slot = AdjNode {
                    position: w.position,
                    clearance: w.clearance,
                };
            }
        }
        let mut heuristic_scale = 1.0f32;
        let mut spacing = f32::INFINITY;
        let mut longest_walk = 0.0f32;
        // Out-edges grouped by source, in edge-index order within a source: a counting sort
        // over the edge array (read in index order).
        let mut next = vec![0u32; bound + 1];
        for e in graph.edge_references() {
            if let Some(c) = next.get_mut(e.source().index() + 1) {
                *c += 1;
            }
        }
        for i in 1..next.len() {
            next[i] += next[i - 1];
        }
        adjacency.offsets.extend_from_slice(&next);
        adjacency.edges.resize(
            graph.edge_count(),
            AdjEdge {
                to: 0,
                cost: 0.0,
                clearance: -1.0,
                target: Vec2::ZERO,
                right_side: 0.0,
            },
        );
        for e in graph.edge_references() {
            let (src, dst, w) = (e.source().index(), e.target().index(), e.weight());
            let (Some(a), Some(b), Some(at)) = (
                adjacency.nodes.get(src).map(|n| n.position),
                adjacency.nodes.get(dst).copied(),
                next.get_mut(src),
            ) else {
                continue;
            };
            let k = *at as usize;
            *at += 1;
            let walk = w.kind == EdgeKind::Walk;
            if !walk {
                adjacency.special.push((k as u32, w.kind));
            }
            if let Some(slot) = adjacency.edges.get_mut(k) {
                *slot = AdjEdge {
                    to: if walk {
                        dst as u32
                    } else {
                        dst as u32 | SPECIAL
                    },
                    cost: w.cost,
                    clearance: w.clearance.min(b.clearance),
                    target: b.position,
                    right_side: 0.0,
                };
            }
            let len = (b.position - a).length();
            if len > 1e-6 {
                heuristic_scale = heuristic_scale.min(w.cost / len);
                if walk {
                    spacing = spacing.min(len);
                    longest_walk = longest_walk.max(len);
                }
            }
        }
        drop(next);
        adjacency.special.sort_unstable_by_key(|s| s.0);
        adjacency.estimate_sides();
        let spacing = if spacing.is_finite() { spacing } else { 1.0 };
        let boxes: Vec<(Vec2, Vec2)> = adjacency
            .nodes
            .iter()
            .map(|n| {
                let (alive, p) = (n.clearance >= 0.0, n.position);
                // Vacant slots go far outside (their cells clamp to the border; they are
                // filtered out on lookup anyway).
                if alive {
                    (p, p)
                } else {
                    (Vec2::splat(f32::MAX), Vec2::splat(f32::MAX))
                }
            })
            .collect();
        let (lo, hi) = graph.node_weights().fold(
            (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
            |(lo, hi), n| (lo.min(n.position), hi.max(n.position)),
        );
        let (lo, hi) = if lo.x <= hi.x {
            (lo, hi)
        } else {
            (Vec2::ZERO, Vec2::ONE)
        };
        let index = BucketGrid::build(lo, hi, spacing * 2.0, &boxes);
        Ok(Self {
            graph,
            adjacency,
            index,
            spacing,
            longest_walk,
            heuristic_scale: heuristic_scale.clamp(0.0, 1.0),
        })
    }

    /// The petgraph graph.
    pub fn graph(&self) -> &NavGraphStorage {
        &self.graph
    }

    /// Gives the petgraph graph back, for editing; rebuild with [`NavGraph::from_graph`].
    pub fn into_graph(self) -> NavGraphStorage {
        self.graph
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of (directed) edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// A node's data.
    pub fn node(&self, id: NodeId) -> Option<&NavNode> {
        self.graph.node_weight(id)
    }

    /// The shortest walk-edge length: the grid spacing for the built graphs.
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// The longest walk edge: how far from a point of open ground its nearest node may be
    /// (a large cell's centre, for the graphs [`NavGraph::from_map`] builds).
    pub fn longest_walk(&self) -> f32 {
        self.longest_walk
    }

    /// Heap bytes the graph holds: the petgraph graph, the search's adjacency and the spatial
    /// index (allocated capacity; the allocator's own overhead is not counted).
    pub fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        let (nodes, edges) = self.graph.capacity();
        // A petgraph node is its weight (as an `Option`) and two edge links; an edge its
        // weight, two node indices and two edge links.
        nodes * (size_of::<Option<NavNode>>() + 2 * size_of::<u32>())
            + edges * (size_of::<Option<NavEdge>>() + 4 * size_of::<u32>())
            + self.adjacency.heap_bytes()
            + self.index.heap_bytes()
    }

    /// The node nearest to `p`, through the spatial index (ties to the lower index).
    pub fn nearest_node(&self, p: Vec2) -> Option<NodeId> {
        self.nearest_node_where(p, f32::INFINITY, |_, _| true)
    }

    /// The node nearest to `p` within `max_distance` for which `accept` holds (ties to the
    /// lower index). `accept` is only asked about nodes closer than the best one so far.
    pub fn nearest_node_where(
        &self,
        p: Vec2,
        max_distance: f32,
        mut accept: impl FnMut(NodeId, &NavNode) -> bool,
    ) -> Option<NodeId> {
        if !p.is_finite() || max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        let mut best: Option<(f32, u32)> = None;
        self.index.rings(
            p,
            &mut best,
            |best, lower| lower <= max_distance && best.is_none_or(|(d, _)| lower <= d),
            |best, i| {
                let Some(node) = self.graph.node_weight(NodeIndex::new(i as usize)) else {
                    return;
                };
                let d = (node.position - p).length();
                let better = best.is_none_or(|(bd, bi)| d < bd || (d == bd && i < bi));
                if d <= max_distance && better && accept(NodeIndex::new(i as usize), node) {
                    *best = Some((d, i));
                }
            },
        );
        best.map(|(_, i)| NodeIndex::new(i as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_graph() -> NavGraphStorage {
        let mut g = NavGraphStorage::default();
        let ids: Vec<NodeId> = (0..5)
            .map(|i| {
                g.add_node(NavNode {
                    position: Vec2::new(i as f32 * 2.0, 0.0),
                    clearance: 1.0,
                })
            })
            .collect();
        for w in ids.windows(2) {
            let e = NavEdge {
                cost: 2.0,
                clearance: 1.0,
                kind: EdgeKind::Walk,
            };
            g.add_edge(w[0], w[1], e);
            g.add_edge(w[1], w[0], e);
        }
        g
    }

    #[test]
    fn validation_and_nearest() {
        let nav = NavGraph::from_graph(line_graph()).unwrap();
        assert_eq!(nav.node_count(), 5);
        assert_eq!(nav.spacing(), 2.0);
        assert_eq!(
            nav.nearest_node(Vec2::new(4.6, 3.0)),
            Some(NodeIndex::new(2))
        );
        assert_eq!(
            nav.nearest_node(Vec2::new(100.0, 0.0)),
            Some(NodeIndex::new(4))
        );
        // Tie between nodes 1 and 2: the lower index.
        assert_eq!(
            nav.nearest_node(Vec2::new(3.0, 0.0)),
            Some(NodeIndex::new(1))
        );
        let far = nav.nearest_node_where(Vec2::ZERO, 10.0, |id, _| id.index() >= 3);
        assert_eq!(far, Some(NodeIndex::new(3)));
        assert_eq!(
            nav.nearest_node_where(Vec2::ZERO, 5.0, |id, _| id.index() >= 3),
            None
        );

        let mut bad = line_graph();
        bad.add_node(NavNode {
            position: Vec2::new(f32::NAN, 0.0),
            clearance: 1.0,
        });
        assert!(NavGraph::from_graph(bad).is_err());
    }

    #[test]
    fn removed_nodes_are_skipped() {
        let mut g = line_graph();
        g.remove_node(NodeIndex::new(2));
        let nav = NavGraph::from_graph(g).unwrap();
        assert_eq!(
            nav.nearest_node(Vec2::new(4.0, 0.0)),
            Some(NodeIndex::new(1))
        );
    }

    #[test]
    fn ron_round_trip() {
        let nav = NavGraph::from_graph(line_graph()).unwrap();
        let text = ron::to_string(&nav).unwrap();
        let back: NavGraph = ron::from_str(&text).unwrap();
        assert_eq!(back.node_count(), 5);
        assert_eq!(back.edge_count(), 8);
        assert_eq!(
            back.nearest_node(Vec2::new(7.0, 1.0)),
            Some(NodeIndex::new(3))
        );
    }
}
