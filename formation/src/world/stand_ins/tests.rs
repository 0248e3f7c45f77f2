use super::*;
use cohort_pathing::{Map, PolygonObstacle};

/// A 60 m field with a square block from (20, 20) to (40, 40).
fn block() -> ValidMap {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(60.0, 60.0));
    map.polygons.push(PolygonObstacle {
        points: vec![
            Vec2::new(20.0, 20.0),
            Vec2::new(40.0, 20.0),
            Vec2::new(40.0, 40.0),
            Vec2::new(20.0, 40.0),
        ],
    });
    map.validate().expect("map")
}

fn target(position: Vec2, velocity: Vec2) -> SlotTarget {
    SlotTarget {
        position,
        velocity,
        facing: Vec2::X,
    }
}

#[test]
fn a_free_slot_is_its_own_stand_in() {
    let map = block();
    let t = target(Vec2::new(10.0, 30.0), Vec2::new(0.0, 1.0));
    assert_eq!(stand_in(&map, Vec2::new(5.0, 30.0), t, 1.0), t);
    // Within a tenth of the radius of fitting: as good as free.
    let t = target(Vec2::new(19.05, 30.0), Vec2::ZERO);
    assert_eq!(stand_in(&map, Vec2::new(5.0, 30.0), t, 1.0), t);
}

#[test]
fn a_slot_inside_a_face_stands_outside_it_and_slides_along_it() {
    let map = block();
    // 1.5 m inside the west face, moving north-east: the stand-in is on the face's outside,
    // level with the slot, and keeps only the northward motion.
    let t = target(Vec2::new(21.5, 30.0), Vec2::new(1.0, 1.0));
    let s = stand_in(&map, Vec2::new(5.0, 30.0), t, 1.0);
    assert!(
        (s.position - Vec2::new(19.0, 30.0)).length() < 0.01,
        "{}",
        s.position
    );
    assert!(
        (s.velocity - Vec2::new(0.0, 1.0)).length() < 0.01,
        "{}",
        s.velocity
    );
    assert!(!map.is_blocked(s.position, 1.0));
}

#[test]
fn a_slot_deep_in_a_corner_stands_on_the_anchors_side() {
    let map = block();
    // Nearer the north face than the west one, but the anchor (west of the block, south of
    // its north-west corner) does not see the north face: the stand-in is on the west face,
    // on the line from the anchor to the slot.
    let from = Vec2::new(5.0, 20.0);
    let slot = Vec2::new(25.0, 38.0);
    let s = stand_in(&map, from, target(slot, Vec2::ZERO), 1.0);
    assert!(map.line_of_sight(from, s.position, 1.0), "{}", s.position);
    assert!((s.position.x - 19.0).abs() < 0.05, "{}", s.position);
    let along = (slot - from).normalize();
    let off_line = (s.position - from).perp_dot(along).abs();
    assert!(off_line < 1e-3, "{off_line}");
}
