//! Building the navigation graph of a [`ValidMap`] by sampling it: on a regular grid near
//! obstacles, in large cells where the ground is open (a quadtree of cells over the map's
//! rectangle, split down to one [`GridSpec::spacing`] only where
//! obstacles are near; `src/cell_tree.rs`).
//!
//! # Why a sampled grid for maps (and not a visibility graph)
//!
//! [`NavGraph::from_map`] samples the map every `spacing` units and keeps the samples a body can
//! stand on, linked to their neighbours where the straight segment between them is clear. A
//! visibility graph (obstacle corners linked when they see each other) gives shorter raw paths,
//! but:
//!
//! - its nodes sit *on* obstacle corners, so they have zero clearance: it needs one graph per
//!   unit radius (obstacles inflated by it), and says nothing about how wide a passage is;
//! - circles have no corners (tangent points must be invented), concave polygons, walls and gaps
//!   all need special cases, and its edge count grows quadratically with the obstacle count.
//!
//! The sampled grid is robust with any mix of shapes (a sample is just a point query, an edge a
//! segment query against the broad phase), gives every node and edge its clearance (the
//! distance to the nearest obstacle), which the clearance-aware search for wide formations needs,
//! and has a predictable size and search cost. Its zig-zags along grid directions are removed
//! afterwards by string pulling against the exact geometry ([`crate::smoothing`]).
//!
//! # Why the samples are cells of a quadtree
//!
//! A uniform grid costs a node per sample of the whole area: a 4 km map sampled every metre
//! would be 16 million nodes. Away from obstacles those samples say nothing a larger cell does
//! not: the ground is open in every direction. So the grid's samples are grouped into square
//! cells of `2^l` samples on a side, as large as [`GridSpec::max_cell`], and a cell is only cut
//! in four where an obstacle, wall or gap comes within one cell side of its centre. Near
//! obstacles the graph is the uniform grid, sample for sample; in the open, one node per large
//! cell. The node count grows with the length of the obstacles' outlines, not with the area,
//! so a big map keeps the full detail of its narrow passages.

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::cell_tree::{CellTree, Decision, Leaf, NO_NODE};
use crate::error::{PathingError, non_negative, positive};
use crate::navgraph::{EdgeKind, NavEdge, NavGraph, NavGraphStorage, NavNode, NodeId};
use crate::occupancy::{MAX_GRID_CELLS, STEPS};
use crate::polygon;
use crate::valid_map::{ValidMap, contact};

/// How far past a link's clearance cap the distance bound of its ends must reach to skip the
/// exact query (float rounding of the bound).
const LINK_SLACK: f32 = 1e-3;

/// Finest cells across or up a map: more is refused ([`PathingError::TooLarge`]).
const MAX_CELLS_PER_AXIS: f32 = (1u32 << 30) as f32;

/// How [`NavGraph::from_map`] samples a map.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GridSpec {
    /// Distance between samples (the side of the finest cells).
    pub spacing: f32,
    /// Samples and links closer than this to an obstacle are left out (the smallest unit
    /// radius the graph serves; 0 keeps every free sample).
    pub min_clearance: f32,
    /// Clearances are measured up to this distance (larger ones are reported as this): the
    /// widest half-width a formation will ask for.
    pub clearance_cap: f32,
    /// Gap links are made over gaps up to this wide (0: none).
    pub max_gap_jump: f32,
    /// Side of the largest cell open ground is sampled by (one node per cell): cells are
    /// `spacing` times a power of two, up to this (the largest such size), cut in four where
    /// an obstacle comes within a cell side of their centre. At most `spacing` samples every
    /// point of the grid (a uniform grid). On maps more than 256 such cells across, the
    /// largest cells grow so that there are at most 65,536 of them.
    pub max_cell: f32,
    /// Most nodes: a map that needs more is refused ([`PathingError::TooLarge`]).
    pub max_nodes: usize,
}

impl Default for GridSpec {
    /// Spacing 1, no minimum clearance, clearance measured up to 8, gaps up to 6 linked, cells
    /// up to 32 on a side, at most 2^24 nodes.
    fn default() -> Self {
        Self {
            spacing: 1.0,
            min_clearance: 0.0,
            clearance_cap: 8.0,
            max_gap_jump: 6.0,
            max_cell: 32.0,
            max_nodes: MAX_GRID_CELLS,
        }
    }
}

impl GridSpec {
    /// Checks the numbers: positive spacing and cap, non-negative minimum clearance, gap
    /// width and cell size, and a cap above the minimum clearance.
    pub fn check(&self) -> Result<(), PathingError> {
        positive("grid spacing", self.spacing)?;
        non_negative("grid min clearance", self.min_clearance)?;
        positive("grid clearance cap", self.clearance_cap)?;
        non_negative("grid max gap jump", self.max_gap_jump)?;
        non_negative("grid max cell", self.max_cell)?;
        if self.clearance_cap <= self.min_clearance {
            return Err(PathingError::NotPositive {
                what: "clearance cap above min clearance",
                value: self.clearance_cap - self.min_clearance,
            });
        }
        Ok(())
    }

    /// Levels of cells above the finest: how many times `spacing` doubles within
    /// [`GridSpec::max_cell`].
    fn levels(&self) -> u32 {
        let mut levels = 0;
        while levels < crate::cell_tree::MAX_LEVELS
            && self.spacing * (2u64 << levels) as f32 <= self.max_cell
        {
            levels += 1;
        }
        levels
    }
}

/// The finest grid of a map: samples `spacing` apart, centred in the bounds.
#[derive(Clone, Copy, Debug)]
struct Samples {
    origin: Vec2,
    spacing: f32,
}

impl Samples {
    /// Where finest cell `(x, y)` is sampled.
    fn at(&self, x: i64, y: i64) -> Vec2 {
        self.origin + Vec2::new(x as f32, y as f32) * self.spacing
    }

    /// The centre of a leaf: where the samples it groups are centred.
    fn centre(&self, x: u32, y: u32, level: u32) -> Vec2 {
        let half = ((1u64 << level) - 1) as f32 * 0.5;
        self.origin + (Vec2::new(x as f32, y as f32) + half) * self.spacing
    }

    /// The finest cell nearest to `p`.
    fn cell(&self, p: Vec2) -> (i64, i64) {
        let c = ((p - self.origin) / self.spacing).round();
        (c.x as i64, c.y as i64)
    }
}

impl NavGraph {
    /// Samples the map (see the module docs for why and how): a node where a body of
    /// `min_clearance` fits, with its clearance, at every finest sample near obstacles and at
    /// the centre of every larger open cell; walk links between touching cells (8 ways on the
    /// finest grid) where the segment is clear, with the exact smallest clearance along it;
    /// gap links straight over jumpable gaps up to `max_gap_jump` wide; and for every jump
    /// link of the map a take-off node and a landing node, linked to the cells nearby and by a
    /// one-way jump edge.
    pub fn from_map(map: &ValidMap, spec: &GridSpec) -> Result<Self, PathingError> {
        spec.check()?;
        let (min, max) = map.bounds();
        let extent = max - min;
        let cols = (extent.x / spec.spacing).floor().max(1.0);
        let rows = (extent.y / spec.spacing).floor().max(1.0);
        if cols.max(rows) > MAX_CELLS_PER_AXIS {
            return Err(PathingError::TooLarge {
                what: "sampled grid side",
                count: cols.max(rows) as usize,
                limit: MAX_CELLS_PER_AXIS as usize,
            });
        }
        let (cols, rows) = (cols as u32, rows as u32);
        // Centre the samples in the bounds.
        let grid = Samples {
            origin: min
                + (extent - Vec2::new(cols as f32 - 1.0, rows as f32 - 1.0) * spec.spacing) * 0.5,
            spacing: spec.spacing,
        };
        let need = contact(spec.min_clearance);
        let mut nodes: Vec<NavNode> = Vec::new();
        // Per node: a lower bound on its distance to the nearest shape (bounds left out).
        let mut free: Vec<f32> = Vec::new();
        let tree = CellTree::build(cols, rows, spec.levels(), |x, y, level| {
            let p = grid.centre(x, y, level);
            let (clearance, shape) = if level > 0 {
                let side = (1u64 << level) as f32 * spec.spacing;
                // Looking a clearance cap past the side: the same query gives the node's
                // clearance, and room to skip the exact query of its links (below).
                let d = map.shape_distance_capped(p, side + spec.clearance_cap);
                if d <= -side * core::f32::consts::FRAC_1_SQRT_2 {
                    // Wholly inside an obstacle or a gap.
                    return Ok(Decision::Leaf(NO_NODE));
                }
                if d < side {
                    return Ok(Decision::Split);
                }
                (map.bounds_distance(p).min(d).min(spec.clearance_cap), d)
            } else {
                let c = map.clearance_capped(p, spec.clearance_cap);
                (c, c)
            };
            if clearance < need {
                return Ok(Decision::Leaf(NO_NODE));
            }
            if nodes.len() >= spec.max_nodes {
                return Err(PathingError::TooLarge {
                    what: "navigation graph nodes",
                    count: nodes.len() + 1,
                    limit: spec.max_nodes,
                });
            }
            nodes.push(NavNode {
                position: p,
                clearance,
            });
            free.push(shape);
            Ok(Decision::Leaf(nodes.len() as u32 - 1))
        })?;
        let node = |i: u32| nodes.get(i as usize).copied();
        let free_at = |i: u32| free.get(i as usize).copied().unwrap_or(0.0);
        // Walk links between touching cells.
        let mut links: Vec<(u32, u32, f32)> = Vec::new();
        for leaf in &tree.leaves {
            let Some(a) = node(leaf.node) else { continue };
            tree.forward_neighbours(leaf, |other| {
                let Some(b) = node(other.node) else { return };
                let cap = a.clearance.min(b.clearance);
                // Every point of the link is within half its length of an end, so at least
                // this far from every shape; when that is past the cap (and the ends keep the
                // cap from the bounds, which a clearance includes), the exact query would
                // return the cap.
                let length = (b.position - a.position).length();
                let c = if (free_at(leaf.node) + free_at(other.node) - length) * 0.5
                    >= cap + LINK_SLACK
                {
                    cap
                } else {
                    map.segment_clearance(a.position, b.position, cap).distance
                };
                if c >= need {
                    links.push((leaf.node, other.node, c));
                }
            });
        }
        drop(free);
        let leaps = if spec.max_gap_jump > 0.0 && !map.map().gaps.is_empty() {
            gap_leaps(map, spec, &grid, &tree, &nodes)
        } else {
            Vec::new()
        };
        let jumps = map.map().jump_links.len();
        let mut g = NavGraphStorage::with_capacity(
            nodes.len() + 2 * jumps,
            2 * links.len() + leaps.len() + jumps * 101,
        );
        let ids: Vec<NodeId> = nodes.iter().map(|n| g.add_node(*n)).collect();
        let id = |i: u32| ids.get(i as usize).copied();
        let mut k = 0;
        // Gap leaps leave the finest cells in the order those were made: interleave them with
        // the walk links of the same source, as a uniform grid would list them.
        for &(a, b, clearance) in &links {
            while let Some(&(from, _, _)) = leaps.get(k)
                && from < a
            {
                add_leap(&mut g, &ids, leaps[k]);
                k += 1;
            }
            let (Some(na), Some(nb), Some(pa), Some(pb)) = (id(a), id(b), node(a), node(b)) else {
                continue;
            };
            let edge = NavEdge {
                cost: (pb.position - pa.position).length(),
                clearance,
                kind: EdgeKind::Walk,
            };
            g.add_edge(na, nb, edge);
            g.add_edge(nb, na, edge);
        }
        for &leap in leaps.get(k..).unwrap_or(&[]) {
            add_leap(&mut g, &ids, leap);
        }
        drop(links);
        link_jumps(map, spec, &grid, &tree, &mut g, &ids);
        drop(tree);
        drop(nodes);
        Self::from_graph(g)
    }
}

/// Adds a gap leap `(from, to, edge)` (node slots of the sampled nodes).
fn add_leap(g: &mut NavGraphStorage, ids: &[NodeId], (a, b, edge): (u32, u32, NavEdge)) {
    if let (Some(&na), Some(&nb)) = (ids.get(a as usize), ids.get(b as usize)) {
        g.add_edge(na, nb, edge);
    }
}

/// Straight leaps over a gap from every finest-cell node beside one, in all 8 directions,
/// landing on the first node past it: `(from, to, edge)`, by source.
fn gap_leaps(
    map: &ValidMap,
    spec: &GridSpec,
    grid: &Samples,
    tree: &CellTree,
    nodes: &[NavNode],
) -> Vec<(u32, u32, NavEdge)> {
    let mut leaps = Vec::new();
    let mut crossings = Vec::new();
    // Only finest cells border a gap: a larger cell's centre is a cell side from every gap.
    for leaf in tree.leaves.iter().filter(|l| l.level == 0) {
        let Some(a) = nodes.get(leaf.node as usize) else {
            continue;
        };
        let (x, y) = (i64::from(leaf.x), i64::from(leaf.y));
        let node_at = |x: i64, y: i64| tree.leaf_at(x, y).filter(|l| l.node != NO_NODE);
        for &(dx, dy) in &STEPS {
            if map.gap_at(grid.at(x + dx, y + dy)).is_none() || node_at(x + dx, y + dy).is_some() {
                continue;
            }
            let step = Vec2::new(dx as f32, dy as f32).length() * spec.spacing;
            let max_k = (spec.max_gap_jump / step).ceil() as i64 + 1;
            for k in 2..=max_k {
                let (bx, by) = (x + dx * k, y + dy * k);
                if let Some(landing) = node_at(bx, by) {
                    let Some(b) = nodes.get(landing.node as usize) else {
                        break;
                    };
                    let (pa, pb) = (a.position, b.position);
                    if let Some((gap, width)) = gap_crossing(map, pa, pb, &mut crossings)
                        && width <= spec.max_gap_jump
                        && map.line_of_sight_over_gaps(pa, pb, spec.min_clearance)
                    {
                        leaps.push((
                            leaf.node,
                            landing.node,
                            NavEdge {
                                cost: (pb - pa).length(),
                                clearance: a.clearance.min(b.clearance),
                                kind: EdgeKind::Gap { gap, width },
                            },
                        ));
                    }
                    break;
                }
                if map.gap_at(grid.at(bx, by)).is_none() {
                    break;
                }
            }
        }
    }
    leaps
}

/// For every jump link of the map, a take-off node and a landing node, each linked both ways
/// to the nodes of the cells around it (within 1.5 spacings, and the cell it stands in), and
/// a one-way jump edge between them.
fn link_jumps(
    map: &ValidMap,
    spec: &GridSpec,
    grid: &Samples,
    tree: &CellTree,
    g: &mut NavGraphStorage,
    ids: &[NodeId],
) {
    let need = contact(spec.min_clearance);
    let mut near: Vec<Leaf> = Vec::new();
    for (i, link) in map.map().jump_links.iter().enumerate() {
        let mut ends = [None, None];
        for (end, p) in ends.iter_mut().zip([link.takeoff, link.pad.center]) {
            let clearance = map.clearance_capped(p, spec.clearance_cap);
            let node = g.add_node(NavNode {
                position: p,
                clearance,
            });
            *end = Some(node);
            let (cx, cy) = grid.cell(p);
            near.clear();
            for y in cy - 2..=cy + 2 {
                for x in cx - 2..=cx + 2 {
                    if let Some(leaf) = tree.leaf_at(x, y).filter(|l| l.node != NO_NODE)
                        && !near.contains(&leaf)
                    {
                        near.push(leaf);
                    }
                }
            }
            for leaf in &near {
                let Some(&b) = ids.get(leaf.node as usize) else {
                    continue;
                };
                let Some(nb) = g.node_weight(b).copied() else {
                    continue;
                };
                let (x0, y0, side) = (i64::from(leaf.x), i64::from(leaf.y), i64::from(leaf.side()));
                let holds = (x0..x0 + side).contains(&cx) && (y0..y0 + side).contains(&cy);
                if (nb.position - p).length() > spec.spacing * 1.5 && !holds {
                    continue;
                }
                let sc = map
                    .segment_clearance(p, nb.position, clearance.min(nb.clearance))
                    .distance;
                if sc >= need {
                    let edge = NavEdge {
                        cost: (nb.position - p).length(),
                        clearance: sc,
                        kind: EdgeKind::Walk,
                    };
                    g.add_edge(node, b, edge);
                    g.add_edge(b, node, edge);
                }
            }
        }
        if let [Some(a), Some(b)] = ends {
            let ca = g.node_weight(a).map_or(0.0, |n| n.clearance);
            let cb = g.node_weight(b).map_or(0.0, |n| n.clearance);
            g.add_edge(
                a,
                b,
                NavEdge {
                    cost: (link.pad.center - link.takeoff).length(),
                    clearance: ca.min(cb),
                    kind: EdgeKind::Jump(i),
                },
            );
        }
    }
}

/// The gap the segment `a`–`b` crosses and the length of the segment over it (the gap of
/// lowest index when it crosses several). Only gaps the broad phase lists near the segment are
/// looked at, and their outlines through their edge index.
pub(crate) fn gap_crossing(
    map: &ValidMap,
    a: Vec2,
    b: Vec2,
    ts: &mut Vec<polygon::Crossing>,
) -> Option<(usize, f32)> {
    let len = (b - a).length();
    let mut best: Option<(usize, f32)> = None;
    map.gaps_near_segment(a, b, |i| {
        if best.is_some_and(|(found, _)| found <= i) {
            return false;
        }
        map.gap_crossings(i, a, b, ts);
        if let (Some(first), Some(last)) = (ts.first(), ts.last())
            && ts.len() >= 2
        {
            best = Some((i, (last.0 - first.0) * len));
        }
        false
    });
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::astar::{SearchFilter, SearchScratch};
    use crate::gap::JumpableGap;
    use crate::jump::{JumpLink, LandingPad, TakeOff};
    use crate::map::Map;
    use cohort_steering::Wall;

    #[test]
    fn map_graph_respects_thin_walls() {
        // A wall thinner than the spacing, between two rows of samples.
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(10.0, 10.0));
        m.walls
            .push(Wall::new(Vec2::new(5.0, 0.0), Vec2::new(5.0, 10.0)).unwrap());
        let map = m.validate().unwrap();
        let nav = NavGraph::from_map(&map, &GridSpec::default()).unwrap();
        let (a, b) = (
            nav.nearest_node(Vec2::new(4.5, 5.0)).unwrap(),
            nav.nearest_node(Vec2::new(5.5, 5.0)).unwrap(),
        );
        let mut scratch = SearchScratch::new();
        assert!(
            nav.find_route(a, b, &SearchFilter::default(), &mut scratch)
                .is_none()
        );
        // Clearance next to the wall is half a spacing.
        assert!((nav.node(a).unwrap().clearance - 0.5).abs() < 1e-4);
    }

    #[test]
    fn map_graph_links_gaps_and_jumps() {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(20.0, 10.0));
        m.gaps.push(JumpableGap {
            points: vec![
                Vec2::new(9.0, 0.0),
                Vec2::new(11.0, 0.0),
                Vec2::new(11.0, 10.0),
                Vec2::new(9.0, 10.0),
            ],
        });
        m.jump_links.push(JumpLink {
            takeoff: Vec2::new(8.0, 8.0),
            takeoff_height: 0.0,
            pad: LandingPad {
                center: Vec2::new(12.5, 8.0),
                radius: 1.0,
                height: 0.0,
            },
            velocity: TakeOff::Predicted,
        });
        let map = m.validate().unwrap();
        let nav = NavGraph::from_map(&map, &GridSpec::default()).unwrap();
        let gap_edges = nav
            .graph()
            .edge_weights()
            .filter(|e| matches!(e.kind, EdgeKind::Gap { .. }))
            .count();
        let jump_edges: Vec<_> = nav
            .graph()
            .edge_weights()
            .filter(|e| matches!(e.kind, EdgeKind::Jump(0)))
            .collect();
        assert!(gap_edges > 0);
        assert_eq!(jump_edges.len(), 1);
        assert!((jump_edges[0].cost - 4.5).abs() < 1e-5);
        for e in nav.graph().edge_weights() {
            if let EdgeKind::Gap { width, .. } = e.kind {
                assert!((1.99..=6.0).contains(&width), "{width}");
            }
        }
        let (a, b) = (
            nav.nearest_node(Vec2::new(5.0, 5.0)).unwrap(),
            nav.nearest_node(Vec2::new(15.0, 5.0)).unwrap(),
        );
        let mut scratch = SearchScratch::new();
        assert!(
            nav.find_route(a, b, &SearchFilter::default(), &mut scratch)
                .is_none()
        );
        let leaper = SearchFilter {
            max_gap_width: 3.0,
            ..SearchFilter::default()
        };
        assert!(nav.find_route(a, b, &leaper, &mut scratch).is_some());
        let jumper = SearchFilter {
            jumps: &[true],
            ..SearchFilter::default()
        };
        let r = nav.find_route(a, b, &jumper, &mut scratch).unwrap();
        assert!(
            r.nodes
                .iter()
                .any(|n| nav.node(*n).unwrap().position == Vec2::new(8.0, 8.0))
        );
    }
}
