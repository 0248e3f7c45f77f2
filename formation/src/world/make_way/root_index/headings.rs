//! The movers' heading classes: passing concerns only movers heading against each other, so
//! they are indexed by heading in eight 45-degree wedges.

use cohort_steering::Vec2;

/// Wedges of heading (45 degrees each) the movers are indexed in.
pub(super) const WEDGES: u8 = 8;
/// The heading class of a mover whose heading is not finite (it meets every other).
pub(super) const ANY_HEADING: u8 = WEDGES;
/// The heading class of a root that opens no lane (not moving, or too slowly).
pub(super) const NO_HEADING: u8 = u8::MAX;
/// Heading classes: the wedges and [`ANY_HEADING`].
pub(super) const HEADINGS: usize = WEDGES as usize + 1;

/// The heading class of unit vector `forward`: its 45-degree wedge counted anticlockwise from
/// +x (each wedge closed on at least one side, so every finite heading has one), or
/// [`ANY_HEADING`] when it is not finite.
pub(super) fn heading_class(forward: Vec2) -> u8 {
    let (x, y) = (forward.x, forward.y);
    if !(x.is_finite() && y.is_finite()) {
        return ANY_HEADING;
    }
    match (y >= 0.0, x >= 0.0) {
        (true, true) => u8::from(x < y),
        (true, false) => 2 + u8::from(-x > y),
        (false, false) => 4 + u8::from(-x < -y),
        (false, true) => 6 + u8::from(x > -y),
    }
}

/// Whether headings of classes `a` and `b` can be at least 120 degrees apart (forward ·
/// forward' ≤ −0.5): not when their wedges are the same or neighbours (at most 90 degrees
/// apart, so the product is at least 0 less rounding).
pub(super) fn may_oppose(a: u8, b: u8) -> bool {
    if a >= WEDGES || b >= WEDGES {
        return a != NO_HEADING && b != NO_HEADING;
    }
    let d = (a + WEDGES - b) % WEDGES;
    (2..=WEDGES - 2).contains(&d)
}
