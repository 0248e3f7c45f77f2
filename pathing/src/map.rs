//! The authoring type of the static world: bounds, obstacles, walls, cover points, jump links and
//! jumpable gaps, as plain serializable data (RON files).

use cohort_steering::{CircleObstacle, Wall};
use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::cover::{CoverGeneration, CoverPoint};
use cohort_steering::limits::{COORD_RANGE, MAX_COORD};

use crate::error::{PathingError, coord, finite_vec, length_in};
use crate::gap::JumpableGap;
use crate::jump::JumpLink;
use crate::polygon::PolygonObstacle;
use crate::valid_map::ValidMap;

/// The static geometry of a level, as authored. Validate it with [`Map::validate`] to get the
/// [`ValidMap`] every query runs on.
///
/// ```
/// use cohort_pathing::Map;
/// let text = "(min: (0.0, 0.0), max: (20.0, 10.0), circles: [(center: (10.0, 5.0), radius: 2.0)])";
/// let map: Map = ron::from_str(text).unwrap();
/// let valid = map.validate().unwrap();
/// assert!(valid.is_blocked(glam::Vec2::new(10.0, 5.0), 0.0));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Map {
    /// Lower corner of the world bounds.
    pub min: Vec2,
    /// Upper corner of the world bounds.
    pub max: Vec2,
    /// Circle obstacles.
    pub circles: Vec<CircleObstacle>,
    /// Polygon obstacles, convex or simple.
    pub polygons: Vec<PolygonObstacle>,
    /// Wall segments (blocking from both sides).
    pub walls: Vec<Wall>,
    /// Cover points placed by a designer.
    pub cover_points: Vec<CoverPoint>,
    /// When set, cover points are also generated along every obstacle and wall.
    pub cover_generation: Option<CoverGeneration>,
    /// Designer jump points and jump-point/landing-pad pairs.
    pub jump_links: Vec<JumpLink>,
    /// Jumpable gaps ("hole fillers"): regions a unit cannot walk on but may leap across.
    pub gaps: Vec<JumpableGap>,
}

impl Default for Map {
    /// An empty 100 × 100 map with its lower corner at the origin.
    fn default() -> Self {
        Self {
            min: Vec2::ZERO,
            max: Vec2::splat(100.0),
            circles: Vec::new(),
            polygons: Vec::new(),
            walls: Vec::new(),
            cover_points: Vec::new(),
            cover_generation: None,
            jump_links: Vec::new(),
            gaps: Vec::new(),
        }
    }
}

impl Map {
    /// An empty map with the given bounds (validated later, by [`Map::validate`]).
    pub fn with_bounds(min: Vec2, max: Vec2) -> Self {
        Self {
            min,
            max,
            ..Self::default()
        }
    }

    /// Checks every value (finite numbers, positive radii, non-degenerate polygons and walls,
    /// non-empty bounds), generates cover points if asked, and builds the broad phase.
    pub fn validate(self) -> Result<ValidMap, PathingError> {
        self.check()?;
        Ok(ValidMap::build(self))
    }

    /// The checks of [`Map::validate`], without building anything.
    pub fn check(&self) -> Result<(), PathingError> {
        coord("map min", self.min)?;
        coord("map max", self.max)?;
        if !(self.max.x > self.min.x && self.max.y > self.min.y) {
            return Err(PathingError::EmptyBounds {
                min: self.min,
                max: self.max,
            });
        }
        for c in &self.circles {
            coord("circle center", c.center)?;
            length_in("circle radius", c.radius, 0.0, MAX_COORD, COORD_RANGE)?;
        }
        for (i, p) in self.polygons.iter().enumerate() {
            p.validate("polygon", i)?;
        }
        for (i, w) in self.walls.iter().enumerate() {
            coord("wall from", w.from)?;
            coord("wall to", w.to)?;
            if (w.to - w.from).length_squared() <= f32::EPSILON {
                return Err(PathingError::Degenerate {
                    what: "wall",
                    index: i,
                    reason: "zero length",
                });
            }
            // The normal is used as given (pushing units out, sides of the wall): it must be
            // a unit vector at right angles to the wall.
            finite_vec("wall normal", w.normal)?;
            let along = (w.to - w.from).normalize_or_zero();
            if (w.normal.length() - 1.0).abs() > 1e-3 || w.normal.dot(along).abs() > 1e-3 {
                return Err(PathingError::Degenerate {
                    what: "wall",
                    index: i,
                    reason: "normal is not a unit vector at right angles to the wall",
                });
            }
        }
        for c in &self.cover_points {
            c.check()?;
        }
        if let Some(g) = &self.cover_generation {
            g.check()?;
            crate::cover::check_count(self, g)?;
        }
        for j in &self.jump_links {
            j.check()?;
        }
        for (i, g) in self.gaps.iter().enumerate() {
            g.polygon().validate("gap", i)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jump::{LandingPad, TakeOff};

    #[test]
    fn validation_rejects_bad_values() {
        let ok = Map::default();
        assert!(ok.clone().validate().is_ok());
        let mut m = ok.clone();
        m.circles.push(CircleObstacle {
            center: Vec2::ONE,
            radius: -1.0,
        });
        assert!(matches!(
            m.validate(),
            Err(PathingError::NotPositive { .. })
        ));
        let mut m = ok.clone();
        m.circles.push(CircleObstacle {
            center: Vec2::new(f32::NAN, 0.0),
            radius: 1.0,
        });
        assert!(matches!(m.validate(), Err(PathingError::NonFinite { .. })));
        let m = Map::with_bounds(Vec2::ONE, Vec2::ONE);
        assert!(matches!(
            m.validate(),
            Err(PathingError::EmptyBounds { .. })
        ));
        let mut m = ok.clone();
        m.polygons.push(PolygonObstacle {
            points: vec![Vec2::ZERO, Vec2::X],
        });
        assert!(matches!(
            m.validate(),
            Err(PathingError::Degenerate {
                what: "polygon",
                ..
            })
        ));
        let mut m = ok.clone();
        m.walls.push(Wall {
            from: Vec2::ONE,
            to: Vec2::ONE,
            normal: Vec2::Y,
        });
        assert!(matches!(
            m.validate(),
            Err(PathingError::Degenerate { what: "wall", .. })
        ));
        let mut m = ok;
        m.jump_links.push(JumpLink {
            takeoff: Vec2::ZERO,
            takeoff_height: 0.0,
            pad: LandingPad {
                center: Vec2::X,
                radius: 0.0,
                height: 0.0,
            },
            velocity: TakeOff::Predicted,
        });
        assert!(m.validate().is_err());
    }

    #[test]
    fn ron_round_trip() {
        let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(30.0, 20.0));
        m.circles
            .push(CircleObstacle::new(Vec2::new(5.0, 5.0), 1.5).unwrap());
        m.polygons
            .push(PolygonObstacle::rectangle(Vec2::new(10.0, 2.0), Vec2::new(12.0, 8.0)).unwrap());
        m.walls
            .push(Wall::new(Vec2::new(20.0, 0.0), Vec2::new(20.0, 12.0)).unwrap());
        m.gaps.push(JumpableGap {
            points: vec![
                Vec2::new(25.0, 0.0),
                Vec2::new(27.0, 0.0),
                Vec2::new(27.0, 20.0),
                Vec2::new(25.0, 20.0),
            ],
        });
        let text = ron::to_string(&m).unwrap();
        let back: Map = ron::from_str(&text).unwrap();
        assert_eq!(back, m);
        // Missing fields take their defaults.
        let sparse: Map = ron::from_str("(max: (10.0, 10.0))").unwrap();
        assert_eq!(sparse.min, Vec2::ZERO);
        assert!(sparse.validate().is_ok());
    }
}
