//! Queueing's geometry.

use cohort_steering::Vec2;

use super::Frame;

#[test]
fn a_turned_extent_box_is_seen_turned() {
    let east = Frame {
        forward: Vec2::X,
        left: Vec2::Y,
        half: Vec2::new(2.0, 5.0),
    };
    let north = Frame {
        forward: Vec2::Y,
        left: -Vec2::X,
        half: Vec2::new(2.0, 5.0),
    };
    // Seen from the east-facing frame, a north-facing box is 5 deep and 2 wide.
    assert_eq!(east.extent_of(&north), Vec2::new(5.0, 2.0));
    assert_eq!(east.extent_of(&east), Vec2::new(2.0, 5.0));
    assert_eq!(east.local(Vec2::new(3.0, -1.0)), Vec2::new(3.0, -1.0));
    assert_eq!(north.local(Vec2::new(3.0, -1.0)), Vec2::new(-1.0, -3.0));
}
