//! Building the navigation graph of a [`ValidMap`] by sampling it on a regular grid.
//!
//! # Why a sampled grid for maps (and not a visibility graph)
//!
//! [`NavGraph::from_map`] samples the map every `spacing` units and keeps the samples a body can
//! stand on, linked 8-ways where the straight segment between them is clear. A visibility graph
//! (obstacle corners linked when they see each other) gives shorter raw paths, but:
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

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::error::{PathingError, non_negative, positive};
use crate::navgraph::{EdgeKind, NavEdge, NavGraph, NavGraphStorage, NavNode, NodeId};
use crate::occupancy::{MAX_GRID_CELLS, STEPS};
use crate::polygon;
use crate::valid_map::{ValidMap, contact};

/// How [`NavGraph::from_map`] samples a map.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GridSpec {
    /// Distance between samples.
    pub spacing: f32,
    /// Samples and links closer than this to an obstacle are left out (the smallest unit
    /// radius the graph serves; 0 keeps every free sample).
    pub min_clearance: f32,
    /// Clearances are measured up to this distance (larger ones are reported as this): the
    /// widest half-width a formation will ask for.
    pub clearance_cap: f32,
    /// Gap links are made over gaps up to this wide (0: none).
    pub max_gap_jump: f32,
}

impl Default for GridSpec {
    /// Spacing 1, no minimum clearance, clearance measured up to 8, gaps up to 6 linked.
    fn default() -> Self {
        Self {
            spacing: 1.0,
            min_clearance: 0.0,
            clearance_cap: 8.0,
            max_gap_jump: 6.0,
        }
    }
}

impl GridSpec {
    /// Checks the numbers: positive spacing and cap, non-negative minimum clearance and gap
    /// width, and a cap above the minimum clearance.
    pub fn check(&self) -> Result<(), PathingError> {
        positive("grid spacing", self.spacing)?;
        non_negative("grid min clearance", self.min_clearance)?;
        positive("grid clearance cap", self.clearance_cap)?;
        non_negative("grid max gap jump", self.max_gap_jump)?;
        if self.clearance_cap <= self.min_clearance {
            return Err(PathingError::NotPositive {
                what: "clearance cap above min clearance",
                value: self.clearance_cap - self.min_clearance,
            });
        }
        Ok(())
    }
}

impl NavGraph {
    /// Samples the map on a grid (see the module docs for why): a node where a body of
    /// `min_clearance` fits, with its clearance; walk links to the 8 neighbours where the
    /// segment is clear, with the exact smallest clearance along it; gap links straight over
    /// jumpable gaps up to `max_gap_jump` wide; and for every jump link of the map a take-off
    /// node and a landing node, linked to the grid nearby and by a one-way jump edge.
    pub fn from_map(map: &ValidMap, spec: &GridSpec) -> Result<Self, PathingError> {
        spec.check()?;
        let (min, max) = map.bounds();
        let extent = max - min;
        let cols = (extent.x / spec.spacing).floor().max(1.0);
        let rows = (extent.y / spec.spacing).floor().max(1.0);
        if cols * rows > MAX_GRID_CELLS as f32 {
            return Err(PathingError::TooLarge {
                what: "sampled grid",
                count: (cols * rows) as usize,
                limit: MAX_GRID_CELLS,
            });
        }
        let (cols, rows) = (cols as i64, rows as i64);
        // Centre the samples in the bounds.
        let origin =
            min + (extent - Vec2::new(cols as f32 - 1.0, rows as f32 - 1.0) * spec.spacing) * 0.5;
        let at = |x: i64, y: i64| origin + Vec2::new(x as f32, y as f32) * spec.spacing;
        let need = contact(spec.min_clearance);
        let mut g = NavGraphStorage::default();
        let mut ids: Vec<Option<NodeId>> = vec![None; (cols * rows) as usize];
        for y in 0..rows {
            for x in 0..cols {
                let p = at(x, y);
                let clearance = map.clearance_capped(p, spec.clearance_cap);
                if clearance >= need
                    && let Some(slot) = ids.get_mut((y * cols + x) as usize)
                {
                    *slot = Some(g.add_node(NavNode {
                        position: p,
                        clearance,
                    }));
                }
            }
        }
        let id = |x: i64, y: i64| -> Option<NodeId> {
            if x < 0 || y < 0 || x >= cols || y >= rows {
                return None;
            }
            ids.get((y * cols + x) as usize).copied().flatten()
        };
        let mut crossings = Vec::new();
        for y in 0..rows {
            for x in 0..cols {
                let Some(a) = id(x, y) else { continue };
                let pa = at(x, y);
                let ca = g.node_weight(a).map_or(0.0, |n| n.clearance);
                for &(dx, dy) in &STEPS[..4] {
                    let Some(b) = id(x + dx, y + dy) else {
                        continue;
                    };
                    let cb = g.node_weight(b).map_or(0.0, |n| n.clearance);
                    let pb = at(x + dx, y + dy);
                    let c = map.segment_clearance(pa, pb, ca.min(cb)).distance;
                    if c >= need {
                        let edge = NavEdge {
                            cost: (pb - pa).length(),
                            clearance: c,
                            kind: EdgeKind::Walk,
                        };
                        g.add_edge(a, b, edge);
                        g.add_edge(b, a, edge);
                    }
                }
                if spec.max_gap_jump <= 0.0 || map.map().gaps.is_empty() {
                    continue;
                }
                // Straight leaps over a gap, in all 8 directions, landing on the first sample
                // past it.
                for &(dx, dy) in &STEPS {
                    if map.gap_at(at(x + dx, y + dy)).is_none() || id(x + dx, y + dy).is_some() {
                        continue;
                    }
                    let step = Vec2::new(dx as f32, dy as f32).length() * spec.spacing;
                    let max_k = (spec.max_gap_jump / step).ceil() as i64 + 1;
                    for k in 2..=max_k {
                        let (bx, by) = (x + dx * k, y + dy * k);
                        if let Some(b) = id(bx, by) {
                            let pb = at(bx, by);
                            if let Some((gap, width)) = gap_crossing(map, pa, pb, &mut crossings)
                                && width <= spec.max_gap_jump
                                && map.line_of_sight_over_gaps(pa, pb, spec.min_clearance)
                            {
                                let cb = g.node_weight(b).map_or(0.0, |n| n.clearance);
                                g.add_edge(
                                    a,
                                    b,
                                    NavEdge {
                                        cost: (pb - pa).length(),
                                        clearance: ca.min(cb),
                                        kind: EdgeKind::Gap { gap, width },
                                    },
                                );
                            }
                            break;
                        }
                        if map.gap_at(at(bx, by)).is_none() {
                            break;
                        }
                    }
                }
            }
        }
        let cell = |p: Vec2| {
            let c = ((p - origin) / spec.spacing).round();
            (c.x as i64, c.y as i64)
        };
        for (i, link) in map.map().jump_links.iter().enumerate() {
            let mut ends = [None, None];
            for (end, p) in ends.iter_mut().zip([link.takeoff, link.pad.center]) {
                let clearance = map.clearance_capped(p, spec.clearance_cap);
                let node = g.add_node(NavNode {
                    position: p,
                    clearance,
                });
                *end = Some(node);
                let (cx, cy) = cell(p);
                for y in cy - 2..=cy + 2 {
                    for x in cx - 2..=cx + 2 {
                        let Some(b) = id(x, y) else { continue };
                        let pb = at(x, y);
                        if (pb - p).length() > spec.spacing * 1.5 {
                            continue;
                        }
                        let cb = g.node_weight(b).map_or(0.0, |n| n.clearance);
                        let sc = map.segment_clearance(p, pb, clearance.min(cb)).distance;
                        if sc >= need {
                            let edge = NavEdge {
                                cost: (pb - p).length(),
                                clearance: sc,
                                kind: EdgeKind::Walk,
                            };
                            g.add_edge(node, b, edge);
                            g.add_edge(b, node, edge);
                        }
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
        Self::from_graph(g)
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
