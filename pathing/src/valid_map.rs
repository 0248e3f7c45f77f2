//! The validated map and the geometric queries the formation layer and the graph builders run on
//! it: blocked points, line of sight, clearance, pushing points out of obstacles.
//!
//! All shape tests go through a broad phase built once at validation: a uniform bucket grid of
//! shape indices (circles, polygons, walls and gaps by bounding box). A query only looks at the
//! shapes listed in the cells it touches. Polygons and gaps with many points also index their
//! own edges (the ring index), so a lake outline of thousands of points costs a query
//! the few edges near it.

use cohort_steering::geometry::closest_point_on_segment;
use cohort_steering::ops;
use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::broad_phase::BucketGrid;
use crate::cover::CoverPoint;
use crate::error::PathingError;
use crate::map::Map;
use crate::polygon::{self, segment_ring, segment_segment};
use crate::ring_index::RingIndex;

/// Distances below this count as contact: a zero-radius segment touching a shape is blocked.
pub(crate) const CONTACT_EPS: f32 = 1e-5;

/// The distance a query radius must keep from every shape (never below [`CONTACT_EPS`]).
#[inline]
pub(crate) fn contact(radius: f32) -> f32 {
    radius.max(CONTACT_EPS)
}

/// One shape of the broad phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Circle(u32),
    Polygon(u32),
    Wall(u32),
    Gap(u32),
}

/// The narrowest point found by a clearance query: how far the nearest obstacle is, and where.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clearance {
    /// Distance to the nearest obstacle, wall, gap or bounds edge (0 when touching or inside).
    pub distance: f32,
    /// The point (of the queried segment) where that distance is reached.
    pub position: Vec2,
}

/// A [`Map`] that passed validation, with its broad phase and its cover points (authored and
/// generated). Serializes as the [`Map`] it came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "Map", try_from = "Map")]
pub struct ValidMap {
    map: Map,
    shapes: Vec<Shape>,
    /// The edge index of each shape that is a long polygon or gap (by shape index).
    rings: Vec<Option<RingIndex>>,
    grid: BucketGrid,
    pub(crate) cover: Vec<CoverPoint>,
    pub(crate) cover_grid: BucketGrid,
}

impl From<ValidMap> for Map {
    fn from(v: ValidMap) -> Self {
        v.map
    }
}

impl TryFrom<Map> for ValidMap {
    type Error = PathingError;
    fn try_from(m: Map) -> Result<Self, PathingError> {
        m.validate()
    }
}

impl ValidMap {
    /// Builds the broad phase and the cover points of a checked map.
    pub(crate) fn build(map: Map) -> Self {
        let mut shapes = Vec::new();
        let mut boxes = Vec::new();
        for (i, c) in map.circles.iter().enumerate() {
            shapes.push(Shape::Circle(i as u32));
            boxes.push((c.center - c.radius, c.center + c.radius));
        }
        for (i, p) in map.polygons.iter().enumerate() {
            shapes.push(Shape::Polygon(i as u32));
            boxes.push(polygon::aabb(&p.points));
        }
        for (i, w) in map.walls.iter().enumerate() {
            shapes.push(Shape::Wall(i as u32));
            boxes.push((w.from.min(w.to), w.from.max(w.to)));
        }
        for (i, g) in map.gaps.iter().enumerate() {
            shapes.push(Shape::Gap(i as u32));
            boxes.push(polygon::aabb(&g.points));
        }
        // About one shape per cell on average, at least 1/256 of the map on a side.
        let extent = map.max - map.min;
        let cell = (extent.x * extent.y / shapes.len().max(1) as f32)
            .sqrt()
            .clamp(extent.max_element() / 256.0, extent.max_element());
        let grid = BucketGrid::build(map.min, map.max, cell, &boxes);
        let rings = shapes
            .iter()
            .map(|s| match *s {
                Shape::Polygon(i) => map
                    .polygons
                    .get(i as usize)
                    .and_then(|p| RingIndex::build(&p.points)),
                Shape::Gap(i) => map
                    .gaps
                    .get(i as usize)
                    .and_then(|g| RingIndex::build(&g.points)),
                Shape::Circle(_) | Shape::Wall(_) => None,
            })
            .collect();
        let mut valid = Self {
            map,
            shapes,
            rings,
            grid,
            cover: Vec::new(),
            cover_grid: BucketGrid::default(),
        };
        valid.cover = crate::cover::collect(&valid);
        let points: Vec<(Vec2, Vec2)> = valid
            .cover
            .iter()
            .map(|c| (c.position, c.position))
            .collect();
        valid.cover_grid = BucketGrid::build(valid.map.min, valid.map.max, cell, &points);
        valid
    }

    /// The authored map.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The world bounds `(min, max)`.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        (self.map.min, self.map.max)
    }

    /// Distance from `p` to the nearest bounds edge (negative outside).
    pub(crate) fn bounds_distance(&self, p: Vec2) -> f32 {
        (p - self.map.min).min(self.map.max - p).min_element()
    }

    /// The points of shape `s` when it is a polygon or a gap, with its edge index if it has one.
    fn ring(&self, s: u32) -> Option<(&[Vec2], Option<&RingIndex>)> {
        let points = match self.shapes.get(s as usize)? {
            Shape::Polygon(i) => &self.map.polygons.get(*i as usize)?.points,
            Shape::Gap(i) => &self.map.gaps.get(*i as usize)?.points,
            Shape::Circle(_) | Shape::Wall(_) => return None,
        };
        let index = self.rings.get(s as usize).and_then(Option::as_ref);
        Some((points, index))
    }

    /// Signed distance from `p` to a shape (negative inside; walls have no inside), exact when
    /// its size is below `cap`; otherwise of the right sign and at least `cap` in size.
    fn shape_distance(&self, s: u32, p: Vec2, cap: f32) -> f32 {
        if let Some((points, index)) = self.ring(s) {
            return match index {
                Some(index) => index.signed_distance(points, p, cap),
                None => polygon::signed_distance(points, p),
            };
        }
        match self.shapes.get(s as usize) {
            Some(Shape::Circle(i)) => self
                .map
                .circles
                .get(*i as usize)
                .map_or(f32::INFINITY, |c| c.signed_distance(p)),
            Some(Shape::Wall(i)) => self
                .map
                .walls
                .get(*i as usize)
                .map_or(f32::INFINITY, |w| (w.closest_point(p) - p).length()),
            _ => f32::INFINITY,
        }
    }

    /// Distance from the segment `a`–`b` to a shape (0 when touching or entering it) and the
    /// point of the segment where it is reached; exact up to `cap` (beyond, at least `cap`).
    fn shape_segment_distance(&self, s: u32, a: Vec2, b: Vec2, cap: f32) -> (f32, Vec2) {
        let far = (f32::INFINITY, a);
        if let Some((points, index)) = self.ring(s) {
            return match index {
                Some(index) => index.segment_distance(points, a, b, cap),
                None => segment_ring(points, a, b),
            };
        }
        match self.shapes.get(s as usize) {
            Some(Shape::Circle(i)) => self.map.circles.get(*i as usize).map_or(far, |c| {
                let q = closest_point_on_segment(c.center, a, b);
                (((q - c.center).length() - c.radius).max(0.0), q)
            }),
            Some(Shape::Wall(i)) => self
                .map
                .walls
                .get(*i as usize)
                .map_or(far, |w| segment_segment(a, b, w.from, w.to)),
            _ => far,
        }
    }

    fn is_gap(&self, s: u32) -> bool {
        matches!(self.shapes.get(s as usize), Some(Shape::Gap(_)))
    }

    /// Whether a disc of `radius` at `p` overlaps an obstacle, a wall, a gap or the outside of
    /// the bounds. Non-finite input is blocked.
    pub fn is_blocked(&self, p: Vec2, radius: f32) -> bool {
        let c = contact(radius);
        if !p.is_finite() || !radius.is_finite() || self.bounds_distance(p) < c {
            return true;
        }
        self.grid
            .any_in_box(p - c, p + c, |s| self.shape_distance(s, p, c) < c)
    }

    /// Whether a disc of `radius` can sweep from `a` to `b`: the segment stays at least `radius`
    /// from every obstacle, wall and gap (it does not cross a wall) and inside the bounds.
    pub fn line_of_sight(&self, a: Vec2, b: Vec2, radius: f32) -> bool {
        self.sweep_clear(a, b, radius, true)
    }

    /// Like [`ValidMap::line_of_sight`] but gaps do not block: the segment may fly over a gap.
    pub fn line_of_sight_over_gaps(&self, a: Vec2, b: Vec2, radius: f32) -> bool {
        self.sweep_clear(a, b, radius, false)
    }

    fn sweep_clear(&self, a: Vec2, b: Vec2, radius: f32, gaps: bool) -> bool {
        let c = contact(radius);
        if !a.is_finite() || !b.is_finite() || !radius.is_finite() {
            return false;
        }
        if self.bounds_distance(a) < c || self.bounds_distance(b) < c {
            return false;
        }
        !self.grid.any_near_segment(a, b, c, |s| {
            (gaps || !self.is_gap(s)) && self.shape_segment_distance(s, a, b, c).0 < c
        })
    }

    /// Whether `a` can see `b`: no obstacle or wall touches the segment (gaps and bounds do not
    /// block sight). Used for cover.
    pub fn sight_clear(&self, a: Vec2, b: Vec2) -> bool {
        if !a.is_finite() || !b.is_finite() {
            return false;
        }
        !self.grid.any_near_segment(a, b, CONTACT_EPS, |s| {
            !self.is_gap(s) && self.shape_segment_distance(s, a, b, CONTACT_EPS).0 < CONTACT_EPS
        })
    }

    /// Distance from `p` to the nearest obstacle, wall, gap or bounds edge; 0 inside one.
    pub fn clearance_at(&self, p: Vec2) -> f32 {
        self.clearance_capped(p, f32::INFINITY)
    }

    /// [`ValidMap::clearance_at`], but stops looking farther than `cap` (returning `cap`): the
    /// cheap form when only "at least `cap`" matters.
    pub fn clearance_capped(&self, p: Vec2, cap: f32) -> f32 {
        if !p.is_finite() {
            return 0.0;
        }
        let mut best = self.bounds_distance(p).min(cap);
        if best <= 0.0 {
            return 0.0;
        }
        self.grid.rings(
            p,
            &mut best,
            |best, lower| lower < *best,
            |best, s| {
                let d = self.shape_distance(s, p, *best);
                if d < *best {
                    *best = d.max(0.0);
                }
            },
        );
        best
    }

    /// The signed distance from `p` to the nearest obstacle, wall or gap, the bounds left out
    /// (negative inside a shape, by at least how deep `p` lies in one of them), looking no
    /// farther than `cap` (returning `cap`). What the navigation graph's cells are sized by.
    pub(crate) fn shape_distance_capped(&self, p: Vec2, cap: f32) -> f32 {
        if !p.is_finite() {
            return 0.0;
        }
        let mut best = cap;
        self.grid.rings(
            p,
            &mut best,
            |best, lower| lower < *best,
            |best, s| {
                let d = self.shape_distance(s, p, best.abs().max(cap));
                if d < *best {
                    *best = d;
                }
            },
        );
        best
    }

    /// The smallest clearance along the segment `a`–`b` and where it is reached, looking no
    /// farther than `cap` (the result is at most `cap`).
    pub fn segment_clearance(&self, a: Vec2, b: Vec2, cap: f32) -> Clearance {
        let (da, db) = (self.bounds_distance(a), self.bounds_distance(b));
        let mut best = if da <= db {
            Clearance {
                distance: da,
                position: a,
            }
        } else {
            Clearance {
                distance: db,
                position: b,
            }
        };
        if !a.is_finite() || !b.is_finite() || best.distance <= 0.0 {
            return Clearance {
                distance: 0.0,
                position: best.position,
            };
        }
        if cap < best.distance {
            best.distance = cap.max(0.0);
        }
        let pad = best.distance;
        self.grid.any_near_segment(a, b, pad, |s| {
            let (d, q) = self.shape_segment_distance(s, a, b, best.distance);
            if d < best.distance {
                best = Clearance {
                    distance: d,
                    position: q,
                };
            }
            best.distance <= 0.0
        });
        best
    }

    /// The index of a gap containing `p`, if any (the lowest index when several overlap).
    pub fn gap_at(&self, p: Vec2) -> Option<usize> {
        let mut found: Option<usize> = None;
        self.grid.any_in_box(p, p, |s| {
            if let Some(Shape::Gap(i)) = self.shapes.get(s as usize) {
                let inside = self.ring(s).is_some_and(|(points, index)| match index {
                    Some(index) => index.contains(points, p),
                    None => polygon::contains(points, p),
                });
                if inside && found.is_none_or(|f| (*i as usize) < f) {
                    found = Some(*i as usize);
                }
            }
            false
        });
        found
    }

    /// The nearest point to `p` where a disc of `radius` is free ([`ValidMap::is_blocked`] is
    /// false): `p` itself when it already is. Pushes out of the overlapping shapes first, then
    /// searches rings of growing radius. `None` when no free point exists in the bounds.
    pub fn nearest_free_point(&self, p: Vec2, radius: f32) -> Option<Vec2> {
        if !p.is_finite() || !radius.is_finite() || radius < 0.0 {
            return None;
        }
        let c = contact(radius);
        let (lo, hi) = (self.map.min + c * 1.001, self.map.max - c * 1.001);
        if lo.x > hi.x || lo.y > hi.y {
            return None;
        }
        let mut q = p.clamp(lo, hi);
        for _ in 0..8 {
            if !self.is_blocked(q, radius) {
                return Some(q);
            }
            // The deepest overlapping shape pushes the point out along its gradient.
            let mut deepest: Option<(f32, u32)> = None;
            self.grid.any_in_box(q - c, q + c, |s| {
                // Uncapped: the deepest overlap is chosen by its exact depth.
                let d = self.shape_distance(s, q, f32::INFINITY);
                if d < c && deepest.is_none_or(|(bd, _)| d < bd) {
                    deepest = Some((d, s));
                }
                false
            });
            let Some((_, s)) = deepest else { break };
            let Some(pushed) = self.push_out(s, q, c * 1.001 + 1e-4) else {
                break;
            };
            q = pushed.clamp(lo, hi);
        }
        self.ring_search(p.clamp(lo, hi), radius)
    }

    /// Where a point overlapping shape `s` goes when pushed to `gap` outside its surface.
    fn push_out(&self, s: u32, q: Vec2, gap: f32) -> Option<Vec2> {
        match self.shapes.get(s as usize)? {
            Shape::Circle(i) => {
                let circle = self.map.circles.get(*i as usize)?;
                let dir = (q - circle.center).try_normalize().unwrap_or(Vec2::X);
                Some(circle.center + dir * (circle.radius + gap))
            }
            Shape::Polygon(_) | Shape::Gap(_) => {
                let (points, index) = self.ring(s)?;
                let (edge, inside) = match index {
                    Some(index) => (
                        index.closest_boundary_point(points, q, f32::INFINITY)?,
                        index.contains(points, q),
                    ),
                    None => (
                        polygon::closest_boundary_point(points, q),
                        polygon::contains(points, q),
                    ),
                };
                let out = if inside { edge - q } else { q - edge };
                Some(edge + out.try_normalize()? * gap)
            }
            Shape::Wall(i) => {
                let wall = self.map.walls.get(*i as usize)?;
                let edge = wall.closest_point(q);
                let dir = (q - edge).try_normalize().unwrap_or(wall.normal);
                Some(edge + dir * gap)
            }
        }
    }

    /// Samples rings around `p` (growing radius, more samples on larger rings) for a free point.
    fn ring_search(&self, p: Vec2, radius: f32) -> Option<Vec2> {
        let extent = (self.map.max - self.map.min).length();
        let step = (contact(radius) * 0.5)
            .max(self.grid.cell_size() * 0.25)
            .max(extent / 1024.0);
        let mut samples = 0usize;
        let mut k = 1usize;
        while k as f32 * step <= extent && samples < 40_000 {
            let r = k as f32 * step;
            let n = 8 + 4 * k;
            for j in 0..n {
                let dir = ops::from_angle(core::f32::consts::TAU * j as f32 / n as f32);
                let q = p + dir * r;
                if !self.is_blocked(q, radius) {
                    return Some(q);
                }
            }
            samples += n;
            k = if samples > 4_000 { k * 2 } else { k + 1 };
        }
        None
    }
}

mod gaps;
#[cfg(test)]
mod tests;
