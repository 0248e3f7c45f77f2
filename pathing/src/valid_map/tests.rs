use super::*;
use crate::gap::JumpableGap;
use crate::polygon::PolygonObstacle;
use cohort_steering::{CircleObstacle, Wall};

fn test_map() -> ValidMap {
    let mut m = Map::with_bounds(Vec2::ZERO, Vec2::new(40.0, 20.0));
    m.circles
        .push(CircleObstacle::new(Vec2::new(10.0, 10.0), 2.0).unwrap());
    m.polygons
        .push(PolygonObstacle::rectangle(Vec2::new(20.0, 5.0), Vec2::new(24.0, 15.0)).unwrap());
    m.walls
        .push(Wall::new(Vec2::new(30.0, 0.0), Vec2::new(30.0, 12.0)).unwrap());
    m.gaps.push(JumpableGap {
        points: vec![
            Vec2::new(34.0, 0.0),
            Vec2::new(36.0, 0.0),
            Vec2::new(36.0, 20.0),
            Vec2::new(34.0, 20.0),
        ],
    });
    m.validate().unwrap()
}

#[test]
fn blocked_points() {
    let m = test_map();
    assert!(m.is_blocked(Vec2::new(10.0, 10.0), 0.0));
    assert!(!m.is_blocked(Vec2::new(10.0, 13.0), 0.5));
    assert!(m.is_blocked(Vec2::new(10.0, 13.0), 1.5));
    assert!(m.is_blocked(Vec2::new(22.0, 10.0), 0.0));
    assert!(m.is_blocked(Vec2::new(30.2, 5.0), 0.5));
    assert!(!m.is_blocked(Vec2::new(30.2, 13.0), 0.5));
    assert!(m.is_blocked(Vec2::new(35.0, 5.0), 0.0));
    assert!(m.is_blocked(Vec2::new(0.2, 5.0), 0.5));
    assert!(m.is_blocked(Vec2::new(-1.0, 5.0), 0.0));
    assert!(m.is_blocked(Vec2::new(f32::NAN, 5.0), 0.0));
}

#[test]
fn sight_lines() {
    let m = test_map();
    // Straight through the circle.
    assert!(!m.line_of_sight(Vec2::new(2.0, 10.0), Vec2::new(16.0, 10.0), 0.0));
    // Passing 3 above its centre: clear for radius 0.5, not for 1.5.
    let (a, b) = (Vec2::new(2.0, 13.0), Vec2::new(16.0, 13.0));
    assert!(m.line_of_sight(a, b, 0.5));
    assert!(!m.line_of_sight(a, b, 1.5));
    // A zero-radius ray crossing the thin wall is blocked.
    assert!(!m.line_of_sight(Vec2::new(28.0, 5.0), Vec2::new(32.0, 5.0), 0.0));
    assert!(m.line_of_sight(Vec2::new(28.0, 15.0), Vec2::new(32.0, 15.0), 0.5));
    // Gaps block walking, not flying or seeing.
    let (a, b) = (Vec2::new(32.0, 15.0), Vec2::new(38.0, 15.0));
    assert!(!m.line_of_sight(a, b, 0.0));
    assert!(m.line_of_sight_over_gaps(a, b, 0.0));
    assert!(m.sight_clear(a, b));
    assert!(!m.sight_clear(Vec2::new(16.0, 10.0), Vec2::new(28.0, 10.0)));
}

#[test]
fn clearance_values() {
    let m = test_map();
    // 3 from the circle edge, 5 from the bottom.
    let expected = Vec2::new(5.0, -2.0).length() - 2.0;
    assert!((m.clearance_at(Vec2::new(15.0, 8.0)) - expected).abs() < 1e-4);
    assert!((m.clearance_at(Vec2::new(10.0, 15.0)) - 3.0).abs() < 1e-4);
    assert!((m.clearance_at(Vec2::new(27.0, 10.0)) - 3.0).abs() < 1e-4);
    assert_eq!(m.clearance_at(Vec2::new(10.0, 10.0)), 0.0);
    assert!((m.clearance_capped(Vec2::new(10.0, 16.0), 1.0) - 1.0).abs() < 1e-6);
    let c = m.segment_clearance(Vec2::new(4.0, 14.0), Vec2::new(16.0, 14.0), 10.0);
    assert!((c.distance - 2.0).abs() < 1e-4);
    assert!((c.position - Vec2::new(10.0, 14.0)).length() < 1e-3);
}

#[test]
fn free_points_leave_obstacles() {
    let m = test_map();
    let p = m.nearest_free_point(Vec2::new(10.5, 10.0), 0.5).unwrap();
    assert!(!m.is_blocked(p, 0.5));
    assert!((p - Vec2::new(12.5, 10.0)).length() < 0.01, "{p}");
    let q = m.nearest_free_point(Vec2::new(21.5, 9.0), 0.5).unwrap();
    assert!(!m.is_blocked(q, 0.5));
    assert!((q - Vec2::new(19.5, 9.0)).length() < 0.01, "{q}");
    let free = Vec2::new(5.0, 5.0);
    assert_eq!(m.nearest_free_point(free, 0.5), Some(free));
    let outside = m.nearest_free_point(Vec2::new(-5.0, 5.0), 0.5).unwrap();
    assert!(!m.is_blocked(outside, 0.5));
    assert_eq!(m.gap_at(Vec2::new(35.0, 3.0)), Some(0));
    assert_eq!(m.gap_at(Vec2::new(33.0, 3.0)), None);
}

#[test]
fn serializes_as_the_map() {
    let m = test_map();
    let text = ron::to_string(&m).unwrap();
    let back: ValidMap = ron::from_str(&text).unwrap();
    assert_eq!(back.map(), m.map());
    assert!(ron::from_str::<ValidMap>("(min: (0.0, 0.0), max: (0.0, 0.0))").is_err());
}
