use super::*;
use crate::shapes::MapShapes;

const DT: f32 = 0.1;

fn sample(index: usize, position: Vec2, slot: Option<Vec2>) -> UnitSample {
    UnitSample {
        index,
        position,
        velocity: Vec2::ZERO,
        heading: Vec2::X,
        radius: 0.5,
        slot_target: slot,
        ordered_to_move: false,
        formation_at_goal: true,
        single: false,
        airborne: false,
    }
}

#[test]
fn slot_error_counts_only_the_last_second() {
    let mut m = Metrics::new(MapShapes::default(), DT);
    let p = Vec2::new(10.0, 10.0);
    // 2 s far from the slot, then 1 s exactly on it: the window forgets the error.
    for _ in 0..20 {
        m.observe(&[sample(0, p, Some(p + Vec2::new(3.0, 0.0)))]);
    }
    let r = m.report(0);
    assert!((r.max_slot_error - 3.0).abs() < 1e-6);
    for _ in 0..10 {
        m.observe(&[sample(0, p, Some(p + Vec2::new(0.2, 0.0)))]);
    }
    let r = m.report(0);
    assert!((r.max_slot_error - 0.2).abs() < 1e-6);
    assert!((r.mean_slot_error - 0.2).abs() < 1e-6);
    assert_eq!(r.ticks, 30);
    assert_eq!(r.arrived, 1);
    assert!((r.time_to_arrive.unwrap() - 2.1).abs() < 1e-5);
}

#[test]
fn unit_waiting_far_from_slot_while_ordered_is_stuck() {
    let mut m = Metrics::new(MapShapes::default(), DT);
    let mut s = sample(0, Vec2::new(10.0, 10.0), Some(Vec2::new(20.0, 10.0)));
    s.ordered_to_move = true;
    s.formation_at_goal = false;
    // A moving neighbour is never stuck.
    let mut mover = s;
    mover.index = 1;
    for k in 0..49 {
        mover.position = Vec2::new(10.0 + 0.2 * k as f32, 20.0);
        m.observe(&[s, mover]);
    }
    assert_eq!(m.report(0).stuck, 0, "4.9 s is not yet stuck");
    m.observe(&[s, mover]);
    let r = m.report(0);
    assert_eq!(r.stuck, 1);
    assert_eq!(r.arrived, 0);
    assert_eq!(r.time_to_arrive, None);
}

#[test]
fn single_standing_short_of_its_goal_is_stuck_though_its_slot_is_near() {
    // A vehicle of radius 2 whose slot leads it by 1.5 m: a member there would be on its
    // slot; a single is bound for its goal and counts stuck after 5 s standing.
    let mut m = Metrics::new(MapShapes::default(), DT);
    let at = Vec2::new(10.0, 10.0);
    let mut single = sample(0, at, Some(at + Vec2::new(1.5, 0.0)));
    single.radius = 2.0;
    single.ordered_to_move = true;
    single.formation_at_goal = false;
    single.single = true;
    let mut member = single;
    member.index = 1;
    member.single = false;
    member.position = Vec2::new(10.0, 30.0);
    member.slot_target = Some(member.position + Vec2::new(1.5, 0.0));
    for _ in 0..49 {
        m.observe(&[single, member]);
    }
    assert_eq!(m.report(0).stuck, 0, "4.9 s is not yet stuck");
    assert!(
        (m.longest_stand() - 4.9).abs() < 1e-4,
        "{}",
        m.longest_stand()
    );
    m.observe(&[single, member]);
    assert_eq!(
        m.report(0).stuck,
        1,
        "the single, not the member on its slot"
    );
    // Arrived (its formation at its goal), it no longer counts as standing.
    single.formation_at_goal = true;
    single.ordered_to_move = false;
    m.observe(&[single, member]);
    assert!(
        (m.longest_stand() - 5.0).abs() < 1e-4,
        "{}",
        m.longest_stand()
    );
}

#[test]
fn path_ratio_and_turn_rate() {
    let mut m = Metrics::new(MapShapes::default(), DT);
    // Out 3 along x, then 4 along y: travelled 7, straight 5.
    let mut u = sample(0, Vec2::new(10.0, 10.0), None);
    m.start(&[u]);
    u.position = Vec2::new(13.0, 10.0);
    m.observe(&[u]);
    u.position = Vec2::new(13.0, 14.0);
    u.heading = Vec2::Y;
    m.observe(&[u]);
    let r = m.report(0);
    assert!((r.path_ratio.unwrap() - 1.4).abs() < 1e-5);
    // A quarter turn in one 0.1 s tick.
    assert!((r.max_turn_rate - core::f64::consts::FRAC_PI_2 * 10.0).abs() < 1e-3);
}

#[test]
fn penetrations_and_non_finite_are_counted() {
    let shapes = MapShapes {
        circles: vec![(Vec2::new(50.0, 50.0), 2.0)],
        walls: vec![(Vec2::new(30.0, 0.0), Vec2::new(30.0, 100.0))],
        ..MapShapes::default()
    };
    let mut m = Metrics::new(shapes, DT);
    let mut u = sample(0, Vec2::new(29.9, 10.0), None);
    m.start(&[u]);
    u.position = Vec2::new(30.1, 10.0); // through the wall
    m.observe(&[u]);
    u.position = Vec2::new(50.0, 52.0); // half inside the circle
    m.observe(&[u]);
    u.position = Vec2::new(50.0, 60.0); // clear
    m.observe(&[u]);
    u.velocity = Vec2::new(f32::NAN, f32::INFINITY);
    m.observe(&[u]);
    let r = m.report(0xfeed);
    assert_eq!(r.penetrations, 2);
    assert_eq!(r.non_finite, 2);
    assert_eq!(r.state_hash, "000000000000feed");
}

#[test]
fn killed_units_leave_the_count() {
    let mut m = Metrics::new(MapShapes::default(), DT);
    let a = sample(0, Vec2::new(10.0, 10.0), Some(Vec2::new(10.0, 10.0)));
    let b = sample(1, Vec2::new(12.0, 10.0), Some(Vec2::new(20.0, 10.0)));
    m.observe(&[a, b]);
    assert_eq!(m.report(0).arrived, 1);
    assert_eq!(m.report(0).time_to_arrive, None);
    m.observe(&[a]);
    let r = m.report(0);
    assert_eq!((r.units, r.arrived), (1, 1));
    assert!((r.time_to_arrive.unwrap() - 0.2).abs() < 1e-6);
}
