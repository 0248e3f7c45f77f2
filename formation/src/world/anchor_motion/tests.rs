use super::{lead_centre, leashed};
use cohort_steering::Vec2;

/// Members standing on slot targets that average 4 m behind the anchor (stand-ins along a
/// wall, say) do not hold it back: the leash measures how far they lag their targets, not
/// where their plain centre is. Measured on the plain centre, the anchor would never move.
#[test]
fn members_on_their_slots_let_the_anchor_go_wherever_the_slots_lie() {
    let anchor = Vec2::new(10.0, 0.0);
    let velocity = Vec2::new(1.0, 0.0);
    let next = anchor + velocity * 0.1;
    let plain = Vec2::new(6.0, 0.0);
    // On their slots: no lag at all.
    let centre = lead_centre(anchor, Some(plain), Some(Vec2::ZERO)).expect("centre");
    assert_eq!(leashed(anchor, next, velocity, centre, 2.0), next);
    // The plain centre 4 m behind, beyond the 2 m leash: the anchor would stay put.
    assert_eq!(leashed(anchor, next, velocity, plain, 2.0), anchor);
}

/// Members lagging their slots hold the anchor to the leash; with no slot targets the plain
/// centre counts.
#[test]
fn members_lagging_their_slots_hold_the_anchor_on_its_leash() {
    let anchor = Vec2::new(10.0, 0.0);
    let velocity = Vec2::new(1.0, 0.0);
    let next = anchor + velocity * 0.1;
    // 1.5 m behind their slots: within the leash, it goes on.
    let centre = lead_centre(anchor, None, Some(Vec2::new(1.5, 0.0))).expect("centre");
    assert_eq!(leashed(anchor, next, velocity, centre, 2.0), next);
    // 5 m behind: it waits.
    let centre = lead_centre(anchor, None, Some(Vec2::new(5.0, 0.0))).expect("centre");
    assert_eq!(leashed(anchor, next, velocity, centre, 2.0), anchor);
    // Pulled back to the leash's length when that is still forwards.
    let held = Vec2::new(8.2, 0.0);
    let pulled = leashed(anchor, Vec2::new(10.5, 0.0), velocity, held, 2.0);
    assert!((pulled - Vec2::new(10.2, 0.0)).length() < 1e-5, "{pulled}");
    assert_eq!(lead_centre(anchor, Some(Vec2::ONE), None), Some(Vec2::ONE));
    assert_eq!(lead_centre(anchor, None, None), None);
}
