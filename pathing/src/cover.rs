//! Cover points: places a unit is safe from a direction, authored in the map or generated around
//! obstacles, and the queries a squad needs (cover near a point from a threat, cover along a
//! path in order).

use cohort_steering::geometry::closest_point_on_segment;
use cohort_steering::ops;
use glam::Vec2;
use serde::{Deserialize, Serialize};

use cohort_steering::limits::MAX_COORD;

use crate::error::{PathingError, coord, finite_vec, length_in, positive};
use crate::map::Map;
use crate::polygon;
use crate::valid_map::ValidMap;

/// A cover point: a position and the direction it protects from (unit vector pointing from the
/// point toward the obstacle, i.e. toward the threats it hides from).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoverPoint {
    /// Where a unit takes cover.
    pub position: Vec2,
    /// Unit direction toward the protecting obstacle.
    pub protects_from: Vec2,
}

impl CoverPoint {
    /// Checks the numbers: a finite position and a finite, non-zero direction.
    pub fn check(&self) -> Result<(), PathingError> {
        coord("cover position", self.position)?;
        finite_vec("cover direction", self.protects_from)?;
        positive("cover direction length", self.protects_from.length())?;
        Ok(())
    }
}

/// Smallest spacing of generated cover points, metres: finer spacing only adds points a
/// squad cannot tell apart (each segment is also capped at 4,096 points).
pub const MIN_COVER_SPACING: f32 = 0.1;
/// Largest offset of generated cover points from a surface, metres.
pub const MAX_COVER_OFFSET: f32 = 1.0e3;
/// Most cover points generation may make on one map (counted from the shapes and the spacing
/// before any point is made; [`Map::check`] refuses more). Each generated point is tested
/// against the map, so this also bounds the time generation takes.
pub const MAX_GENERATED_COVER: usize = 262_144;

/// How cover points are generated along obstacles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoverGeneration {
    /// Distance of a cover point from the obstacle's surface.
    pub offset: f32,
    /// Distance between neighbouring cover points along a surface.
    pub spacing: f32,
}

impl Default for CoverGeneration {
    /// Points 0.75 off the surface, every 2 units.
    fn default() -> Self {
        Self {
            offset: 0.75,
            spacing: 2.0,
        }
    }
}

impl CoverGeneration {
    /// Checks the numbers: finite and positive.
    pub fn check(&self) -> Result<(), PathingError> {
        length_in(
            "cover offset",
            self.offset,
            0.0,
            MAX_COVER_OFFSET,
            "(0, 1e3]",
        )?;
        length_in(
            "cover spacing",
            self.spacing,
            MIN_COVER_SPACING,
            MAX_COORD,
            "[0.1, 1e6]",
        )?;
        Ok(())
    }
}

/// A cover point found by a query.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoverHit {
    /// Index into [`ValidMap::cover_points`].
    pub index: usize,
    /// The cover point.
    pub point: CoverPoint,
    /// Distance from the query point, or along the path for path queries.
    pub distance: f32,
    /// For path queries, how far the point is off the path (0 for point queries).
    pub offset: f32,
}

/// The authored cover points, normalized, followed by the generated ones.
pub(crate) fn collect(map: &ValidMap) -> Vec<CoverPoint> {
    let m = map.map();
    let mut out: Vec<CoverPoint> = m
        .cover_points
        .iter()
        .map(|c| CoverPoint {
            position: c.position,
            protects_from: c.protects_from.normalize_or_zero(),
        })
        .collect();
    let Some(spec) = m.cover_generation else {
        return out;
    };
    let mut push = |position: Vec2, toward: Vec2| {
        // Points squeezed against other obstacles or out of bounds are dropped.
        if let Some(dir) = toward.try_normalize()
            && !map.is_blocked(position, spec.offset * 0.5)
        {
            out.push(CoverPoint {
                position,
                protects_from: dir,
            });
        }
    };
    for c in &m.circles {
        let ring = c.radius + spec.offset;
        let n = ring_count(ring, spec.spacing);
        for k in 0..n {
            let dir = ops::from_angle(core::f32::consts::TAU * k as f32 / n as f32);
            push(c.center + dir * ring, -dir);
        }
    }
    for p in &m.polygons {
        // The outward normal of each edge (as `PolygonObstacle::outward_normal`), with the
        // winding found once per polygon.
        let ccw = polygon::signed_area(&p.points) > 0.0;
        for (a, b) in polygon::edges(&p.points) {
            let left = (b - a).perp().normalize_or_zero();
            let normal = if ccw { -left } else { left };
            along_segment(a, b, spec.spacing, |q| {
                push(q + normal * spec.offset, -normal)
            });
        }
    }
    for w in &m.walls {
        let n = (w.to - w.from).perp().normalize_or_zero();
        for side in [n, -n] {
            along_segment(w.from, w.to, spec.spacing, |q| {
                push(q + side * spec.offset, -side)
            });
        }
    }
    out
}

/// Number of cover points generated around a circle of radius `ring`.
fn ring_count(ring: f32, spacing: f32) -> usize {
    ((core::f32::consts::TAU * ring / spacing).ceil() as usize).clamp(4, 4096)
}

/// Number of cover points generated along the segment `a`–`b`.
fn segment_count(a: Vec2, b: Vec2, spacing: f32) -> usize {
    (((b - a).length() / spacing).ceil() as usize).clamp(1, 4096)
}

/// How many cover points `spec` would generate on `map` before any is dropped for being
/// squeezed against an obstacle: counted without making them.
pub fn generated_count(map: &Map, spec: &CoverGeneration) -> usize {
    let circles = map
        .circles
        .iter()
        .map(|c| ring_count(c.radius + spec.offset, spec.spacing));
    let polygons = map
        .polygons
        .iter()
        .flat_map(|p| polygon::edges(&p.points).map(|(a, b)| segment_count(a, b, spec.spacing)));
    let walls = map
        .walls
        .iter()
        .map(|w| 2 * segment_count(w.from, w.to, spec.spacing));
    circles
        .chain(polygons)
        .chain(walls)
        .fold(0usize, usize::saturating_add)
}

/// Refuses cover generation that would make more than [`MAX_GENERATED_COVER`] points.
pub(crate) fn check_count(map: &Map, spec: &CoverGeneration) -> Result<(), PathingError> {
    let count = generated_count(map, spec);
    if count > MAX_GENERATED_COVER {
        return Err(PathingError::TooLarge {
            what: "cover generation (raise its spacing)",
            count,
            limit: MAX_GENERATED_COVER,
        });
    }
    Ok(())
}

/// Calls `f` at the middles of the `ceil(len / spacing)` equal pieces of `a`–`b`.
fn along_segment(a: Vec2, b: Vec2, spacing: f32, mut f: impl FnMut(Vec2)) {
    let n = segment_count(a, b, spacing);
    for k in 0..n {
        f(a + (b - a) * ((k as f32 + 0.5) / n as f32));
    }
}

impl ValidMap {
    /// Every cover point: the authored ones (directions normalized) then the generated ones.
    pub fn cover_points(&self) -> &[CoverPoint] {
        &self.cover
    }

    /// Whether a cover point is covered from `threat`: an obstacle or wall blocks the line of
    /// sight from the threat to the point.
    pub fn is_covered(&self, point: &CoverPoint, threat: Vec2) -> bool {
        !self.sight_clear(threat, point.position)
    }

    /// The cover points within `radius` of `center` that are covered from `threat`, nearest
    /// first (ties by index). A new vector each call; [`ValidMap::cover_near_into`] fills the
    /// caller's.
    pub fn cover_near(&self, center: Vec2, radius: f32, threat: Vec2) -> Vec<CoverHit> {
        let mut hits = Vec::new();
        self.cover_near_into(center, radius, threat, &mut hits);
        hits
    }

    /// [`ValidMap::cover_near`] into the caller's `out`, cleared and refilled (it keeps its
    /// capacity, so once it has grown a query makes no allocation).
    pub fn cover_near_into(
        &self,
        center: Vec2,
        radius: f32,
        threat: Vec2,
        out: &mut Vec<CoverHit>,
    ) {
        out.clear();
        if !center.is_finite() || radius.is_nan() || radius < 0.0 {
            return;
        }
        let r = Vec2::splat(radius);
        // The grid reports the points in its cells in any order; the sort below orders them.
        self.cover_grid.any_in_box(center - r, center + r, |i| {
            if let Some(point) = self.cover.get(i as usize) {
                let distance = (point.position - center).length();
                if distance <= radius && self.is_covered(point, threat) {
                    out.push(CoverHit {
                        index: i as usize,
                        point: *point,
                        distance,
                        offset: 0.0,
                    });
                }
            }
            false
        });
        // (distance, index) orders hits totally, so an unstable sort (which needs no buffer)
        // gives the order a stable one would; a point reported twice is dropped.
        out.sort_unstable_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.index.cmp(&b.index))
        });
        out.dedup_by_key(|h| h.index);
    }

    /// The cover points within `max_offset` of the polyline `path`, ordered by distance along
    /// it (measured to each point's projection on the path; ties by index); with a threat, only
    /// those covered from it.
    pub fn cover_along_path(
        &self,
        path: &[Vec2],
        max_offset: f32,
        threat: Option<Vec2>,
    ) -> Vec<CoverHit> {
        let mut hits: Vec<CoverHit> = Vec::new();
        if max_offset.is_nan() || max_offset < 0.0 || path.iter().any(|p| !p.is_finite()) {
            return hits;
        }
        let mut candidates = Vec::new();
        for leg in path.windows(2) {
            if let [a, b] = leg {
                self.cover_grid.any_near_segment(*a, *b, max_offset, |i| {
                    candidates.push(i);
                    false
                });
            }
        }
        if let [only] = path {
            let r = Vec2::splat(max_offset);
            self.cover_grid.any_in_box(*only - r, *only + r, |i| {
                candidates.push(i);
                false
            });
        }
        candidates.sort_unstable();
        candidates.dedup();
        for i in candidates {
            let Some(point) = self.cover.get(i as usize) else {
                continue;
            };
            if threat.is_some_and(|t| !self.is_covered(point, t)) {
                continue;
            }
            if let Some((along, offset)) = project_on_path(path, point.position)
                && offset <= max_offset
            {
                hits.push(CoverHit {
                    index: i as usize,
                    point: *point,
                    distance: along,
                    offset,
                });
            }
        }
        hits.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.index.cmp(&b.index))
        });
        hits
    }
}

/// Distance along the polyline to the projection of `p` (its closest point) and the distance
/// from `p` to it. `None` for an empty path.
fn project_on_path(path: &[Vec2], p: Vec2) -> Option<(f32, f32)> {
    let first = *path.first()?;
    let mut best = (0.0, (p - first).length());
    let mut walked = 0.0;
    for leg in path.windows(2) {
        if let [a, b] = leg {
            let q = closest_point_on_segment(p, *a, *b);
            let d = (p - q).length();
            if d < best.1 {
                best = (walked + (q - *a).length(), d);
            }
            walked += (*b - *a).length();
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Map;
    use crate::polygon::PolygonObstacle;
    use cohort_steering::CircleObstacle;

    fn cover_map() -> ValidMap {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(40.0, 40.0));
        m.circles
            .push(CircleObstacle::new(Vec2::new(10.0, 10.0), 2.0).unwrap());
        m.polygons.push(
            PolygonObstacle::rectangle(Vec2::new(20.0, 20.0), Vec2::new(26.0, 22.0)).unwrap(),
        );
        m.cover_points.push(CoverPoint {
            position: Vec2::new(30.0, 5.0),
            protects_from: Vec2::new(0.0, -3.0),
        });
        m.cover_generation = Some(CoverGeneration {
            offset: 1.0,
            spacing: 2.0,
        });
        m.validate().unwrap()
    }

    #[test]
    fn generation_rings_circles_and_lines_polygon_edges() {
        let m = cover_map();
        let points = m.cover_points();
        assert_eq!(points[0].protects_from, Vec2::new(0.0, -1.0));
        // Circle: ceil(2 pi * 3 / 2) = 10 points, 3 from the centre, facing it.
        let ring: Vec<_> = points
            .iter()
            .filter(|c| (c.position - Vec2::new(10.0, 10.0)).length() < 4.0)
            .collect();
        assert_eq!(ring.len(), 10);
        for c in &ring {
            let to_centre = (Vec2::new(10.0, 10.0) - c.position).normalize();
            assert!(((c.position - Vec2::new(10.0, 10.0)).length() - 3.0).abs() < 1e-4);
            assert!((c.protects_from - to_centre).length() < 1e-4);
        }
        // Rectangle 6 × 2: 3 + 1 + 3 + 1 points, 1 outside its edges, facing it.
        let rect: Vec<_> = points
            .iter()
            .filter(|c| c.position.x > 18.0 && c.position.y > 18.0)
            .collect();
        assert_eq!(rect.len(), 8);
        let below: Vec<_> = rect.iter().filter(|c| c.position.y < 20.0).collect();
        assert_eq!(below.len(), 3);
        for c in below {
            assert!((c.position.y - 19.0).abs() < 1e-4);
            assert_eq!(c.protects_from, Vec2::new(0.0, 1.0));
        }
    }

    #[test]
    fn cover_near_a_point_is_covered_and_sorted() {
        let m = cover_map();
        let threat = Vec2::new(10.0, 30.0);
        let hits = m.cover_near(Vec2::new(10.0, 5.0), 4.0, threat);
        assert!(!hits.is_empty());
        for h in &hits {
            assert!(!m.sight_clear(threat, h.point.position));
            assert!(
                h.point.position.y < 10.0,
                "covered points are behind the circle"
            );
        }
        assert!(hits.windows(2).all(|w| w[0].distance <= w[1].distance));
        // The nearest covered points are on the circle's ring, on the side away from the threat.
        assert!(((hits[0].point.position - Vec2::new(10.0, 10.0)).length() - 3.0).abs() < 1e-3);
        assert!(hits[0].point.position.y < 8.0);
        // With the threat on the other side, the covered points flip.
        let flipped = m.cover_near(Vec2::new(10.0, 15.0), 4.0, Vec2::new(10.0, -10.0));
        assert!(flipped.iter().all(|h| h.point.position.y > 10.0));
    }

    #[test]
    fn cover_along_a_path_in_order() {
        let m = cover_map();
        let path = [
            Vec2::new(2.0, 13.0),
            Vec2::new(23.0, 13.0),
            Vec2::new(23.0, 30.0),
        ];
        let hits = m.cover_along_path(&path, 3.5, None);
        assert!(hits.len() >= 3);
        assert!(hits.windows(2).all(|w| w[0].distance <= w[1].distance));
        assert!(hits.iter().all(|h| h.offset <= 3.5));
        // The first are around the circle (x about 10), later ones by the rectangle.
        assert!(hits[0].point.position.x < 14.0);
        assert!(hits.last().unwrap().point.position.y > 18.0);
        // A threat to the north keeps only points with something between.
        let covered = m.cover_along_path(&path, 3.5, Some(Vec2::new(10.0, 39.0)));
        assert!(covered.len() < hits.len());
        for h in covered {
            assert!(!m.sight_clear(Vec2::new(10.0, 39.0), h.point.position));
        }
    }

    #[test]
    fn cover_near_into_reused_buffers_matches_a_scan_of_every_point() {
        let m = cover_map();
        let mut hits = vec![
            CoverHit {
                index: 99,
                point: m.cover_points()[0],
                distance: 0.0,
                offset: 0.0,
            };
            40
        ];
        let mut found = 0;
        for (center, radius, threat) in [
            (Vec2::new(10.0, 5.0), 4.0, Vec2::new(10.0, 30.0)),
            (Vec2::new(10.0, 10.0), 30.0, Vec2::new(39.0, 39.0)),
            (Vec2::new(23.0, 17.0), 6.0, Vec2::new(23.0, 39.0)),
            (Vec2::new(10.0, 15.0), 4.0, Vec2::new(10.0, -10.0)),
            (Vec2::new(10.0, 5.0), 0.0, Vec2::new(10.0, 30.0)),
            (Vec2::new(f32::NAN, 5.0), 4.0, Vec2::ZERO),
            (Vec2::new(10.0, 5.0), -1.0, Vec2::ZERO),
        ] {
            m.cover_near_into(center, radius, threat, &mut hits);
            assert_eq!(hits, m.cover_near(center, radius, threat));
            // Every point of the map, filtered and sorted: the same hits.
            let mut scan: Vec<CoverHit> = m
                .cover_points()
                .iter()
                .enumerate()
                .filter_map(|(index, point)| {
                    let distance = (point.position - center).length();
                    (distance <= radius && m.is_covered(point, threat)).then_some(CoverHit {
                        index,
                        point: *point,
                        distance,
                        offset: 0.0,
                    })
                })
                .collect();
            scan.sort_by(|a, b| {
                a.distance
                    .total_cmp(&b.distance)
                    .then(a.index.cmp(&b.index))
            });
            assert_eq!(hits, scan, "{center} {radius} {threat}");
            found += hits.len();
        }
        assert!(found > 10, "{found}");
    }
}
