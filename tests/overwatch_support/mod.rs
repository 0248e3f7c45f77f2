//! The overwatch tests' terrain, shared by tests/tactics_overwatch.rs and tests/alloc_free.rs.

use cohort::pathing::{CoverGeneration, Map, PolygonObstacle};
use cohort::steering::Vec2;

/// Low walls (1 m × 8 m) across two east-west lanes, four in each lane 20 m apart, with cover
/// generated off every surface 1.75 m out, 2 m apart: four points on each wall's west face,
/// hidden from a threat in the east.
pub fn walled_lanes() -> Map {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(140.0, 60.0));
    for k in 0..4 {
        let x = 30.75 + 20.0 * k as f32;
        for y in [16.0, 36.0] {
            m.polygons.push(
                PolygonObstacle::rectangle(Vec2::new(x, y), Vec2::new(x + 1.0, y + 8.0)).unwrap(),
            );
        }
    }
    m.cover_generation = Some(CoverGeneration {
        offset: 1.75,
        spacing: 2.0,
    });
    m
}
