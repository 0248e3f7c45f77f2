//! Queueing's geometry.

use cohort_steering::Vec2;

use super::{Frame, PASS_MARGIN, lane_room};

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

/// A joiner walks on towards a stream's lane until its box is its gap and the margin from the
/// lane: as far along its heading as that leaves, more at a slant, nothing once there or when
/// it does not close on the lane.
#[test]
fn a_joiner_walks_on_until_its_gap_from_the_lane() {
    let stream = Frame {
        forward: Vec2::X,
        left: Vec2::Y,
        half: Vec2::new(3.0, 3.0),
    };
    let frame = |forward: Vec2| Frame {
        forward,
        left: forward.perp(),
        half: Vec2::new(3.0, 3.0),
    };
    let gap = 1.0;
    // Heading straight at the lane from 30 m north of the stream's anchor: 30 m less both
    // half-widths, the margin and the gap.
    let south = frame(-Vec2::Y);
    let straight = lane_room(&south, &stream, Vec2::new(0.0, 30.0), gap);
    let clear = 30.0 - 3.0 - 3.0 - PASS_MARGIN - gap;
    assert!(
        (straight - clear).abs() < 1e-4,
        "{straight} against {clear}"
    );
    // At 30 degrees to the stream it closes on the lane at half its speed: twice as far to go
    // (its box turned across the lane is wider, so a little less).
    let slant = frame(Vec2::new(0.866_025_4, -0.5));
    let across = 3.0 * 0.5 + 3.0 * 0.866_025_4;
    let expect = (30.0 - across - 3.0 - PASS_MARGIN - gap) / 0.5;
    let room = lane_room(&slant, &stream, Vec2::new(0.0, 30.0), gap);
    assert!((room - expect).abs() < 1e-3, "{room} against {expect}");
    // There already, heading away, or nearly parallel: no room.
    assert_eq!(lane_room(&south, &stream, Vec2::new(0.0, 8.0), gap), 0.0);
    assert_eq!(
        lane_room(&frame(Vec2::Y), &stream, Vec2::new(0.0, 30.0), gap),
        0.0
    );
    assert_eq!(
        lane_room(
            &frame(Vec2::new(0.995, -0.0998)),
            &stream,
            Vec2::new(0.0, 30.0),
            gap
        ),
        0.0
    );
    // From the other side (south of the stream, heading north) alike.
    let north = lane_room(&frame(Vec2::Y), &stream, Vec2::new(0.0, -30.0), gap);
    assert!((north - clear).abs() < 1e-4, "{north}");
}
