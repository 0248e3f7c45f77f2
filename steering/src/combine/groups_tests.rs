//! Tests of priority groups, including the equilibrium that plain blending gets stuck in.

use super::*;
use crate::vector::truncate;
use core::cell::Cell;

/// A behaviour inside a test group: a weight and a closure.
type Entry<'a> = (f32, &'a dyn Fn() -> Vec2);

fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).length() < 1e-5
}

#[test]
fn first_group_above_threshold_wins_and_later_groups_are_lazy() {
    let later = Cell::new(0);
    let count = || {
        later.set(later.get() + 1);
        Vec2::X
    };
    // Group 1 cancels out (equilibrium), group 2 blends to (3, 4) → truncated to (1.8, 2.4).
    let groups: [&[Entry]; 3] = [
        &[
            (1.0, &|| Vec2::new(2.0, 0.0)),
            (1.0, &|| Vec2::new(-2.0, 0.0)),
        ],
        &[
            (0.5, &|| Vec2::new(6.0, 0.0)),
            (2.0, &|| Vec2::new(0.0, 2.0)),
        ],
        &[(1.0, &count)],
    ];
    let f = priority_groups(groups.iter().map(|g| g.iter().copied()), 0.01, 3.0);
    assert!(close(f, Vec2::new(1.8, 2.4)), "{f}");
    assert_eq!(later.get(), 0);
    // Nothing above a high threshold: the last group's result is returned.
    let f = priority_groups(groups.iter().map(|g| g.iter().copied()), 10.0, 3.0);
    assert_eq!(f, Vec2::X);
    assert_eq!(later.get(), 1);
    let none: [&[Entry]; 0] = [];
    assert_eq!(
        priority_groups(none.iter().map(|g| g.iter().copied()), 0.1, 3.0),
        Vec2::ZERO
    );
}

#[test]
fn order_is_descending_stable_and_reuses_the_buffer() {
    let mut order = Vec::with_capacity(8);
    order_by_priority(&[1.0, 5.0, f32::NAN, 5.0, -2.0, 1.0], &mut order);
    assert_eq!(order, [1, 3, 0, 5, 4, 2]);
    let cap = order.capacity();
    order_by_priority(&[0.0, 0.0, 0.0], &mut order);
    assert_eq!(order, [0, 1, 2]);
    assert_eq!(order.capacity(), cap);
}

struct Threats {
    health: f32,
}

#[test]
fn variable_priorities_reorder_groups_each_tick() {
    // "Take cover" outranks "seek health" while healthy; below 30 health it is the other way.
    let mut groups = PriorityGroups::<Threats>::new(0.01)
        .with_group(
            SteeringGroup::new()
                .with(1.0, |_, _| Vec2::new(0.0, 1.0))
                .with_priority(|_, t: &Threats| if t.health < 30.0 { 1.0 } else { 5.0 }),
        )
        .with_group(
            SteeringGroup::new()
                .with(2.0, |_, _| Vec2::new(1.0, 0.0))
                .with_priority(|_, _| 2.0),
        );
    let body = Body::default();
    assert_eq!(groups.steer(&body, &Threats { health: 90.0 }), Vec2::Y);
    assert_eq!(groups.last_order(), [0, 1]);
    assert_eq!(
        groups.steer(&body, &Threats { health: 10.0 }),
        Vec2::new(2.0, 0.0)
    );
    assert_eq!(groups.last_order(), [1, 0]);
    // Group forces are truncated to the body's max force.
    let strong = Body {
        max_force: 0.5,
        ..Body::default()
    };
    assert!(close(
        groups.steer(&strong, &Threats { health: 10.0 }),
        Vec2::new(0.5, 0.0)
    ));
}

/// Where the seeker wants to go and what it fears.
struct Scene {
    target: Vec2,
    threat: Vec2,
}

/// Flee reacts to threats closer than this.
const PANIC_DISTANCE: f32 = 6.0;

// Millington's seek and flee: full acceleration towards / away from a point (the forces that
// cancel exactly in his equilibrium example); flee only inside its panic distance. Zero at
// coincident points.
fn seek(b: &Body, s: &Scene) -> Vec2 {
    (s.target - b.position).normalize_or_zero() * b.max_force
}
fn flee(b: &Body, s: &Scene) -> Vec2 {
    let away = b.position - s.threat;
    if away.length() < PANIC_DISTANCE {
        away.normalize_or_zero() * b.max_force
    } else {
        Vec2::ZERO
    }
}
// Fallback: step to the left of the line to the target.
fn sidestep(b: &Body, s: &Scene) -> Vec2 {
    (s.target - b.position).normalize_or_zero().perp() * b.max_force
}

/// Simulates `seconds` with explicit Euler: force truncated to max force, speed to max speed.
/// Returns the final body and the closest it came to the target.
fn simulate(seconds: f32, scene: &Scene, mut steer: impl FnMut(&Body) -> Vec2) -> (Body, f32) {
    let dt = 1.0 / 30.0;
    let mut body = Body::default();
    let mut closest = (body.position - scene.target).length();
    for _ in 0..(seconds / dt) as usize {
        let f = truncate(steer(&body), body.max_force);
        assert!(f.is_finite());
        body.velocity = truncate(body.velocity + f / body.mass * dt, body.max_speed);
        body.position += body.velocity * dt;
        closest = closest.min((body.position - scene.target).length());
    }
    (body, closest)
}

/// A body at the origin seeks (10, 0) and flees a threat at (5, 0) with equal weights.
#[test]
fn blending_gets_stuck_in_equilibrium_priority_groups_escape() {
    let scene = Scene {
        target: Vec2::new(10.0, 0.0),
        threat: Vec2::new(5.0, 0.0),
    };
    let start = Body::default().position;

    // Plain weighted blending: the two forces cancel and the body never leaves the start.
    let (stuck, closest) = simulate(10.0, &scene, |b| {
        weighted_truncated_sum(
            [(1.0, seek(b, &scene)), (1.0, flee(b, &scene))],
            b.max_force,
        )
    });
    assert!(
        (stuck.position - start).length() < 1.0,
        "{:?}",
        stuck.position
    );
    assert!(closest > 9.0);

    // Priority groups: the seek+flee group is in equilibrium (below the threshold), so the
    // sidestep group takes over and leaves the unstable equilibrium; from off the line the
    // seek+flee blend carries the body around the threat to the target (where it hovers at
    // the edge of the threat's panic distance).
    let mut groups = PriorityGroups::<Scene>::new(0.1)
        .with_group(SteeringGroup::new().with(1.0, seek).with(1.0, flee))
        .with_group(SteeringGroup::new().with(1.0, sidestep));
    let mut min_threat_distance = f32::INFINITY;
    let (escaped, closest) = simulate(10.0, &scene, |b| {
        min_threat_distance = min_threat_distance.min((b.position - scene.threat).length());
        groups.steer(b, &scene)
    });
    assert!(
        (escaped.position - start).length() > 9.0,
        "{:?}",
        escaped.position
    );
    assert!(
        (escaped.position - scene.target).length() < 2.0,
        "{:?}",
        escaped.position
    );
    assert!(closest < 1.5, "closest approach to the target {closest}");
    // It went around the threat, never closer than where it started.
    assert!(min_threat_distance > 4.9, "{min_threat_distance}");
}
