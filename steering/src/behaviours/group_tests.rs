use super::*;
use crate::behaviours::test_support::{DT, body_at, step};
use core::f32::consts::FRAC_PI_2;

fn at(x: f32, y: f32) -> Body {
    body_at(Vec2::new(x, y))
}

#[test]
fn neighbourhood_radius_and_field_of_view() {
    let me = at(0.0, 0.0); // facing +x
    let all = Neighbourhood {
        radius: 2.0,
        fov: None,
    };
    assert!(all.contains(&me, Vec2::new(2.0, 0.0)));
    assert!(all.contains(&me, Vec2::new(-1.0, 1.0)));
    assert!(!all.contains(&me, Vec2::new(2.1, 0.0)));
    assert!(all.contains(&me, Vec2::ZERO));
    let front = Neighbourhood {
        radius: 2.0,
        fov: Some(FRAC_PI_2 * 0.5), // ±45°
    };
    assert!(front.contains(&me, Vec2::new(1.0, 0.9)));
    assert!(!front.contains(&me, Vec2::new(1.0, 1.1)));
    assert!(!front.contains(&me, Vec2::new(-1.0, 0.0)));
    assert!(front.contains(&me, Vec2::ZERO));
    let bad = Neighbourhood {
        radius: f32::NAN,
        fov: None,
    };
    assert!(!bad.contains(&me, Vec2::ZERO));
    let bad_fov = Neighbourhood {
        radius: 2.0,
        fov: Some(f32::NAN),
    };
    assert!(!bad_fov.contains(&me, Vec2::X));
}

#[test]
fn separation_is_inverse_distance_away_from_each() {
    let me = at(0.0, 0.0);
    let hood = Neighbourhood::default();
    let ns = [at(2.0, 0.0), at(0.0, -1.0), at(10.0, 0.0)];
    let f = separation(&me, &ns, &hood);
    // (-1/2, 0) + (0, 1/1); the third is out of range.
    assert!((f - Vec2::new(-0.5, 1.0)).length() < 1e-6, "{f}");
    // Closer pushes harder.
    let near = separation(&me, &[at(0.5, 0.0)], &hood);
    assert!((near - Vec2::new(-2.0, 0.0)).length() < 1e-6);
    assert_eq!(separation(&me, &[], &hood), Vec2::ZERO);
}

#[test]
fn linear_falloff_fades_to_nothing_at_the_comfort_distance() {
    // Radius-0.5 bodies at range 2: comfort distance 2 × (0.5 + 0.5) = 2.
    let me = at(0.0, 0.0);
    let hood = Neighbourhood::default();
    let linear = SeparationFalloff::Linear { range: 2.0 };
    let mut sized = [at(1.5, 0.0), at(0.0, -0.5), at(2.0, 0.0), at(3.0, 0.0)];
    for b in &mut sized {
        b.radius = 0.5;
    }
    let mut me_sized = me;
    me_sized.radius = 0.5;
    // (2 - 1.5) / 2 = 0.25 along -x, (2 - 0.5) / 2 = 0.75 along +y; 2 and 3 away push nothing.
    let f = separation_with(&me_sized, &sized, &hood, linear);
    assert!((f - Vec2::new(-0.25, 0.75)).length() < 1e-6, "{f}");
    // Halfway to the comfort distance pushes with strength one half.
    let mut half = at(1.0, 0.0);
    half.radius = 0.5;
    let f = separation_with(&me_sized, &[half], &hood, linear);
    assert!((f - Vec2::new(-0.5, 0.0)).length() < 1e-6, "{f}");
    // The inverse-distance falloff is plain separation.
    let inverse = separation_with(&me, &sized, &hood, SeparationFalloff::InverseDistance);
    assert_eq!(inverse, separation(&me, &sized, &hood));
}

#[test]
fn self_in_slice_is_skipped_but_a_copy_is_not() {
    let bodies = [at(0.0, 0.0), at(1.0, 0.0)];
    let hood = Neighbourhood::default();
    let f = separation(&bodies[0], &bodies, &hood);
    assert!((f - Vec2::new(-1.0, 0.0)).length() < 1e-6, "{f}");
    let copy = bodies[0];
    let g = separation(&bodies[0], &[copy], &hood);
    assert!(g.is_finite() && g.length() > 0.0);
}

#[test]
fn coincident_bodies_separate_deterministically() {
    let hood = Neighbourhood::default();
    let a = at(3.0, 3.0).moving(Vec2::new(1.0, 0.0));
    let b = at(3.0, 3.0).moving(Vec2::new(-1.0, 0.0));
    let fa = separation(&a, &[b], &hood);
    let fb = separation(&b, &[a], &hood);
    assert!(fa.is_finite() && fb.is_finite());
    assert!(fa.x > 0.0 && fb.x < 0.0, "{fa} {fb}");
    assert!((fa.length() - 1.0 / MIN_SEPARATION_DISTANCE).abs() < 1e-2);
    // Same velocity: push back along own heading; differing headings split them.
    let c = at(3.0, 3.0).facing(Vec2::Y);
    let d = at(3.0, 3.0).facing(-Vec2::Y);
    let fc = separation(&c, &[d], &hood);
    let fd = separation(&d, &[c], &hood);
    assert!(fc.y < 0.0 && fd.y > 0.0);
    assert_eq!(fc, separation(&c, &[d], &hood));
}

#[test]
fn alignment_is_mean_heading_minus_own() {
    let me = at(0.0, 0.0); // heading +x
    let hood = Neighbourhood::default();
    let ns = [at(1.0, 0.0).facing(Vec2::Y), at(0.0, 1.0).facing(Vec2::Y)];
    let f = alignment(&me, &ns, &hood);
    assert!((f - Vec2::new(-1.0, 1.0)).length() < 1e-6);
    let same = [at(1.0, 0.0)];
    assert_eq!(alignment(&me, &same, &hood), Vec2::ZERO);
    assert_eq!(alignment(&me, &[], &hood), Vec2::ZERO);
}

#[test]
fn cohesion_seeks_centre_of_mass() {
    let me = at(0.0, 0.0);
    let hood = Neighbourhood::default();
    let ns = [at(2.0, 2.0), at(2.0, -2.0), at(-1.0, 0.0)];
    // Centre (1, 0): seek it at full speed.
    let f = cohesion(&me, &ns, &hood);
    assert!((f - Vec2::new(3.0, 0.0)).length() < 1e-5, "{f}");
    let balanced = [at(1.0, 0.0), at(-1.0, 0.0)];
    assert_eq!(cohesion(&me, &balanced, &hood), Vec2::ZERO);
}

#[test]
fn fov_limits_what_group_behaviours_see() {
    let me = at(0.0, 0.0);
    let front = Neighbourhood {
        radius: 5.0,
        fov: Some(1.0),
    };
    let behind = [at(-2.0, 0.0)];
    assert_eq!(cohesion(&me, &behind, &front), Vec2::ZERO);
    assert!(cohesion(&me, &behind, &Neighbourhood::default()).x < 0.0);
}

#[test]
fn flocking_is_weighted_sum() {
    let me = at(0.0, 0.0);
    let ns = [at(1.0, 1.0).facing(Vec2::Y), at(2.0, -1.0)];
    let p = FlockingParams::default();
    let hood = &p.neighbourhood;
    let mut rng = SimRng::seed_from(4);
    let mut ws = WanderState::default();
    let f = flocking(&me, &ns, &p, &mut ws, &mut rng, DT);
    let mut rng2 = SimRng::seed_from(4);
    let mut ws2 = WanderState::default();
    let w = &p.weights;
    let expected = separation(&me, &ns, hood) * w.separation
        + alignment(&me, &ns, hood) * w.alignment
        + cohesion(&me, &ns, hood) * w.cohesion
        + wander(&me, &mut ws2, &p.wander, &mut rng2, DT) * w.wander;
    assert!((f - expected).length() < 1e-5, "{f} vs {expected}");
    assert_eq!(ws, ws2);
}

/// Polarisation: length of the mean heading (1 = all aligned).
fn polarisation(bodies: &[Body]) -> f32 {
    (bodies.iter().map(|b| b.heading).sum::<Vec2>() / bodies.len() as f32).length()
}

fn run_flock(seed: u64, secs: f32) -> Vec<Body> {
    let mut rng = SimRng::seed_from(seed);
    let mut bodies: Vec<Body> = (0..16)
        .map(|i| {
            let heading = ops::from_angle(rng.range(-3.0, 3.0));
            at((i % 4) as f32 * 1.5, (i / 4) as f32 * 1.5)
                .facing(heading)
                .moving(heading)
        })
        .collect();
    let mut wanders = vec![WanderState::default(); bodies.len()];
    let p = FlockingParams::default();
    let mut forces = vec![Vec2::ZERO; bodies.len()];
    for _ in 0..(secs / DT) as usize {
        for (i, b) in bodies.iter().enumerate() {
            forces[i] = flocking(b, &bodies, &p, &mut wanders[i], &mut rng, DT);
        }
        for (b, f) in bodies.iter_mut().zip(&forces) {
            step(b, *f, DT);
        }
    }
    bodies
}

#[test]
fn flock_aligns_and_keeps_apart() {
    let start = run_flock(9, 0.0);
    let end = run_flock(9, 15.0);
    assert!(polarisation(&start) < 0.5, "{}", polarisation(&start));
    assert!(polarisation(&end) > 0.9, "{}", polarisation(&end));
    let mut min_dist = f32::INFINITY;
    for (i, a) in end.iter().enumerate() {
        for b in &end[i + 1..] {
            min_dist = min_dist.min(a.position.distance(b.position));
        }
    }
    assert!(min_dist > 0.3, "bodies piled up: {min_dist}");
    // Deterministic.
    assert_eq!(end, run_flock(9, 15.0));
}
