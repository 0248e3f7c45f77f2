//! Unit tests of the ORCA solver.

use super::*;
use crate::ops;
use proptest::prelude::*;

pub(super) const DT: f32 = 0.1;

pub(super) fn agent(position: Vec2, velocity: Vec2) -> OrcaAgent {
    OrcaAgent {
        position,
        velocity,
        radius: 0.5,
        max_speed: 2.0,
    }
}

pub(super) fn plain() -> OrcaParams {
    OrcaParams {
        right_hand: 0.0,
        ..OrcaParams::default()
    }
}

/// Smallest distance, over `t` in `0..=horizon`, between `p + v t` and the origin.
fn closest_approach(p: Vec2, v: Vec2, horizon: f32) -> f32 {
    let v_sq = v.length_squared();
    let t = if v_sq > 0.0 {
        (-p.dot(v) / v_sq).clamp(0.0, horizon)
    } else {
        0.0
    };
    (p + v * t).length()
}

/// Distance from `p` to the segment `a`–`b`.
pub(super) fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let e = b - a;
    let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
    (a + e * t - p).length()
}

/// Radius of the agents of the simulations.
pub(super) const RADIUS: f32 = 0.5;

#[test]
fn orca_no_neighbours_gives_preferred_clamped() {
    let mut buffers = OrcaBuffers::default();
    let a = agent(Vec2::new(3.0, 4.0), Vec2::new(1.0, 0.0));
    let out = solve(
        &a,
        Vec2::new(1.0, 1.0),
        &[],
        &[],
        &plain(),
        DT,
        &mut buffers,
    );
    assert_eq!(out, OrcaOutcome::free(Vec2::new(1.0, 1.0)));
    let out = solve(
        &a,
        Vec2::new(10.0, 0.0),
        &[],
        &[],
        &plain(),
        DT,
        &mut buffers,
    );
    assert_eq!(out.velocity, Vec2::new(2.0, 0.0));
    assert_eq!(out.binding, None);
    assert!(!out.infeasible);
    // The right-hand rule needs a neighbour to turn anything.
    let out = solve(
        &a,
        Vec2::new(1.0, 1.0),
        &[],
        &[],
        &OrcaParams::default(),
        DT,
        &mut buffers,
    );
    assert_eq!(out.velocity, Vec2::new(1.0, 1.0));
}

#[test]
fn orca_distant_or_ignored_neighbours_change_nothing() {
    let mut buffers = OrcaBuffers::default();
    let a = agent(Vec2::ZERO, Vec2::new(1.5, 0.0));
    let far = OrcaNeighbour {
        position: Vec2::new(0.0, 30.0),
        velocity: Vec2::ZERO,
        radius: 0.5,
        share: 0.5,
    };
    let ignored = OrcaNeighbour {
        position: Vec2::new(1.0, 0.0),
        share: 0.0,
        ..far
    };
    let out = solve(
        &a,
        Vec2::new(1.5, 0.0),
        &[far, ignored],
        &[],
        &OrcaParams::default(),
        DT,
        &mut buffers,
    );
    assert_eq!(out.velocity, Vec2::new(1.5, 0.0));
    assert_eq!(out.binding, None);
    assert_eq!(buffers.sources(), &[Binding::Neighbour(0)]);
}

#[test]
fn orca_static_neighbour_ahead_is_avoided_within_the_horizon() {
    let mut buffers = OrcaBuffers::default();
    // (lateral offset, speed, whether plain ORCA deflects): far enough ahead for the speed,
    // the velocity is projected onto a leg of the cone (deflected); nearer, onto the
    // cut-off circle, which dead ahead only brakes.
    for (offset, speed, deflects) in [
        (0.0, 2.0, true),
        (0.2, 2.0, true),
        (-0.3, 1.3, true),
        (0.0, 1.0, false),
    ] {
        let a = agent(Vec2::ZERO, Vec2::new(speed, 0.0));
        let standing = OrcaNeighbour {
            position: Vec2::new(2.5, offset),
            velocity: Vec2::ZERO,
            radius: 0.5,
            share: 1.0,
        };
        for params in [plain(), OrcaParams::default()] {
            let out = solve(
                &a,
                Vec2::new(speed, 0.0),
                &[standing],
                &[],
                &params,
                DT,
                &mut buffers,
            );
            let case = format!("{offset} {speed} {params:?}: {out:?}");
            assert_eq!(out.binding, Some(Binding::Neighbour(0)), "{case}");
            assert!(!out.infeasible, "{case}");
            let v = out.velocity;
            assert!(v.length() <= a.max_speed + 1e-5, "{case}");
            let approach = closest_approach(standing.position, -v, params.time_horizon);
            assert!(approach >= 1.0 - 1e-4, "{case}: passes at {approach}");
            if deflects {
                assert!(v.y.abs() > 0.1, "{case}");
            } else if params.right_hand == 0.0 {
                assert!(v.y.abs() < 1e-6 && v.x < speed, "{case}");
            } else {
                // The right-hand rule turns the braking into a step to the right.
                assert!(v.y < -0.05, "{case}");
            }
        }
    }
}

#[test]
fn orca_neighbour_share_scales_the_avoidance() {
    // The agent heads at a neighbour coming the other way: the more of the avoidance it
    // takes, the further its velocity moves from the current one.
    let a = agent(Vec2::ZERO, Vec2::new(1.5, 0.0));
    let mut buffers = OrcaBuffers::default();
    let mut changes = Vec::new();
    for share in [0.25, 0.5, 1.0] {
        let other = OrcaNeighbour {
            position: Vec2::new(3.0, 0.3),
            velocity: Vec2::new(-1.5, 0.0),
            radius: 0.5,
            share,
        };
        let out = solve(&a, a.velocity, &[other], &[], &plain(), DT, &mut buffers);
        changes.push(out.velocity.distance(a.velocity));
    }
    assert!(changes[0] > 0.0);
    assert!((changes[1] / changes[0] - 2.0).abs() < 1e-3, "{changes:?}");
    assert!((changes[2] / changes[0] - 4.0).abs() < 1e-3, "{changes:?}");
}

#[test]
fn orca_overlapping_neighbour_is_pushed_apart_within_a_step() {
    let a = agent(Vec2::ZERO, Vec2::ZERO);
    let other = OrcaNeighbour {
        position: Vec2::new(0.8, 0.0),
        velocity: Vec2::ZERO,
        radius: 0.5,
        share: 0.5,
    };
    let mut buffers = OrcaBuffers::default();
    let out = solve(&a, Vec2::ZERO, &[other], &[], &plain(), DT, &mut buffers);
    // Half of the 0.2 overlap in one step of 0.1 s: 1 m/s away.
    assert!(
        (out.velocity - Vec2::new(-1.0, 0.0)).length() < 1e-4,
        "{out:?}"
    );
}

#[test]
fn orca_infeasible_crowd_gives_a_finite_velocity_within_max_speed() {
    // Eight neighbours closing in from every side, some already overlapping.
    let a = agent(Vec2::ZERO, Vec2::new(0.5, 0.0));
    let neighbours: Vec<_> = (0..8)
        .map(|k| {
            let dir = ops::from_angle(k as f32 * core::f32::consts::FRAC_PI_4);
            OrcaNeighbour {
                position: dir * (0.9 + 0.1 * (k % 3) as f32),
                velocity: -dir * 2.0,
                radius: 0.5,
                share: if k % 2 == 0 { 0.5 } else { 1.0 },
            }
        })
        .collect();
    let mut buffers = OrcaBuffers::default();
    let out = solve(
        &a,
        Vec2::new(2.0, 0.0),
        &neighbours,
        &[],
        &OrcaParams::default(),
        DT,
        &mut buffers,
    );
    assert!(out.infeasible);
    assert!(out.velocity.is_finite());
    assert!(out.velocity.length() <= a.max_speed * (1.0 + 1e-6));
    assert!(matches!(out.binding, Some(Binding::Neighbour(_))));
}

#[test]
fn orca_non_finite_inputs_give_finite_output() {
    let good = agent(Vec2::ZERO, Vec2::new(1.0, 0.0));
    let neighbour = OrcaNeighbour {
        position: Vec2::new(1.5, 0.0),
        velocity: Vec2::new(-1.0, 0.0),
        radius: 0.5,
        share: 0.5,
    };
    let segment = OrcaSegment {
        from: Vec2::new(2.0, -1.0),
        to: Vec2::new(2.0, 1.0),
    };
    let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
    let mut buffers = OrcaBuffers::default();
    let mut check = |a: OrcaAgent,
                     preferred: Vec2,
                     n: OrcaNeighbour,
                     s: OrcaSegment,
                     params: OrcaParams,
                     dt: f32| {
        let out = solve(&a, preferred, &[n], &[s], &params, dt, &mut buffers);
        assert!(
            out.velocity.is_finite(),
            "{a:?} {preferred} {n:?} {s:?} {params:?} {dt}"
        );
        let limit = if positive_finite(a.max_speed) {
            a.max_speed
        } else {
            0.0
        };
        assert!(out.velocity.length() <= limit * (1.0 + 1e-6));
    };
    let preferred = Vec2::new(1.0, 0.2);
    for x in bad {
        let v = Vec2::new(x, 0.0);
        check(good, preferred, neighbour, segment, plain(), DT);
        check(
            OrcaAgent {
                position: v,
                ..good
            },
            preferred,
            neighbour,
            segment,
            plain(),
            DT,
        );
        check(
            OrcaAgent {
                velocity: v,
                ..good
            },
            preferred,
            neighbour,
            segment,
            plain(),
            DT,
        );
        check(
            OrcaAgent { radius: x, ..good },
            preferred,
            neighbour,
            segment,
            plain(),
            DT,
        );
        check(
            OrcaAgent {
                max_speed: x,
                ..good
            },
            preferred,
            neighbour,
            segment,
            plain(),
            DT,
        );
        check(good, v, neighbour, segment, plain(), DT);
        let mut n =
            |m: OrcaNeighbour| check(good, preferred, m, segment, OrcaParams::default(), DT);
        n(OrcaNeighbour {
            position: v,
            ..neighbour
        });
        n(OrcaNeighbour {
            velocity: v,
            ..neighbour
        });
        n(OrcaNeighbour {
            radius: x,
            ..neighbour
        });
        n(OrcaNeighbour {
            share: x,
            ..neighbour
        });
        check(
            good,
            preferred,
            neighbour,
            OrcaSegment { from: v, ..segment },
            plain(),
            DT,
        );
        for params in [
            OrcaParams {
                time_horizon: x,
                ..plain()
            },
            OrcaParams {
                obstacle_time_horizon: x,
                ..plain()
            },
            OrcaParams {
                right_hand: x,
                ..plain()
            },
        ] {
            check(good, preferred, neighbour, segment, params, DT);
        }
        check(good, preferred, neighbour, segment, plain(), x);
    }
    for dt in [0.0, -1.0, 1e-40] {
        check(good, preferred, neighbour, segment, plain(), dt);
    }
    // Non-finite position: the preferred velocity, clamped.
    let lost = OrcaAgent {
        position: Vec2::NAN,
        ..good
    };
    let out = solve(
        &lost,
        Vec2::new(5.0, 0.0),
        &[neighbour],
        &[],
        &plain(),
        DT,
        &mut buffers,
    );
    assert_eq!(out.velocity, Vec2::new(2.0, 0.0));
}

#[test]
fn orca_coincident_neighbour_moving_alike_is_left_to_the_penetration_solver() {
    let a = agent(Vec2::ONE, Vec2::X);
    let twin = OrcaNeighbour {
        position: Vec2::ONE,
        velocity: Vec2::X,
        radius: 0.5,
        share: 0.5,
    };
    let mut buffers = OrcaBuffers::default();
    let out = solve(&a, Vec2::X, &[twin], &[], &plain(), DT, &mut buffers);
    assert_eq!(out.velocity, Vec2::X);
    assert!(buffers.lines().is_empty());
}

#[test]
fn orca_warm_solve_does_not_reallocate() {
    let a = agent(Vec2::ZERO, Vec2::new(0.5, 0.0));
    let neighbours: Vec<_> = (0..10)
        .map(|k| {
            let dir = ops::from_angle(k as f32 * 0.6);
            OrcaNeighbour {
                position: dir,
                velocity: -dir,
                radius: 0.5,
                share: 0.5,
            }
        })
        .collect();
    let segments = [OrcaSegment {
        from: Vec2::new(1.0, -2.0),
        to: Vec2::new(1.0, 2.0),
    }];
    let mut buffers = OrcaBuffers::default();
    let first = solve(
        &a,
        Vec2::X,
        &neighbours,
        &segments,
        &plain(),
        DT,
        &mut buffers,
    );
    assert!(first.infeasible, "the 3D program should run: {first:?}");
    let capacities = |b: &OrcaBuffers| {
        (
            b.lines.capacity(),
            b.sources.capacity(),
            b.projected.capacity(),
            b.lines.as_ptr(),
            b.projected.as_ptr(),
        )
    };
    let warm = capacities(&buffers);
    for k in 0..20 {
        let n = &neighbours[..(k % 10) + 1];
        solve(&a, Vec2::X, n, &segments, &plain(), DT, &mut buffers);
        assert_eq!(capacities(&buffers), warm);
    }
    // And the result is a pure function of the inputs.
    let again = solve(
        &a,
        Vec2::X,
        &neighbours,
        &segments,
        &plain(),
        DT,
        &mut buffers,
    );
    assert_eq!(again, first);
}

#[test]
fn orca_segment_half_plane_is_tangent_to_its_velocity_obstacle() {
    // Walking at 2 m/s straight at a wall 1 m ahead (0.5 s horizon): the allowed velocities
    // stop the disc at the wall within the horizon.
    let a = agent(Vec2::ZERO, Vec2::new(0.0, 2.0));
    let wall = OrcaSegment {
        from: Vec2::new(-3.0, 1.0),
        to: Vec2::new(3.0, 1.0),
    };
    let mut buffers = OrcaBuffers::default();
    let out = solve(
        &a,
        Vec2::new(0.0, 2.0),
        &[],
        &[wall],
        &plain(),
        DT,
        &mut buffers,
    );
    assert_eq!(out.binding, Some(Binding::Segment(0)));
    // (1 - 0.5) m in 0.5 s.
    assert!(
        (out.velocity - Vec2::new(0.0, 1.0)).length() < 1e-5,
        "{out:?}"
    );
    // A second, collinear segment further along is already covered.
    let further = OrcaSegment {
        from: Vec2::new(3.0, 1.0),
        to: Vec2::new(4.0, 1.0),
    };
    solve(
        &a,
        Vec2::new(0.0, 2.0),
        &[],
        &[wall, further],
        &plain(),
        DT,
        &mut buffers,
    );
    assert_eq!(buffers.sources(), &[Binding::Segment(0)]);
    // Touching the wall: no velocity into it is permitted, sliding along it is.
    let touching = agent(Vec2::new(0.0, 0.6), Vec2::new(1.0, 1.0));
    let out = solve(
        &touching,
        Vec2::new(1.0, 1.0),
        &[],
        &[wall],
        &plain(),
        DT,
        &mut buffers,
    );
    assert!(
        (out.velocity - Vec2::new(1.0, 0.0)).length() < 1e-5,
        "{out:?}"
    );
}

#[test]
fn orca_segment_end_on_and_beyond_its_ends() {
    // Walking along the wall's line towards its end, and past its end: the disc stays clear.
    let wall = OrcaSegment {
        from: Vec2::new(2.0, 0.0),
        to: Vec2::new(6.0, 0.0),
    };
    let mut buffers = OrcaBuffers::default();
    for (start, preferred) in [
        (Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0)),
        (Vec2::new(0.0, 0.3), Vec2::new(2.0, 0.0)),
        (Vec2::new(7.5, 0.2), Vec2::new(-2.0, 0.0)),
        (Vec2::new(0.0, 1.0), Vec2::new(2.0, -0.2)),
    ] {
        let a = agent(start, preferred);
        let out = solve(&a, preferred, &[], &[wall], &plain(), DT, &mut buffers);
        let v = out.velocity;
        let horizon = plain().obstacle_time_horizon;
        for k in 0..=50 {
            let p = start + v * (horizon * k as f32 / 50.0);
            let d = segment_distance(p, wall.from, wall.to);
            assert!(d >= RADIUS - 1e-4, "{start} {preferred}: {v} reaches {d}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the finite inputs, the velocity is finite and within the speed limit, and
    /// when the program is feasible it satisfies every half-plane.
    #[test]
    fn orca_any_finite_input_gives_a_sane_velocity(
        p in prop::array::uniform2(-1e3f32..1e3),
        v in prop::array::uniform2(-10f32..10.0),
        pref in prop::array::uniform2(-10f32..10.0),
        radius in 0f32..2.0,
        max_speed in 0f32..5.0,
        others in prop::collection::vec(
            (prop::array::uniform2(-5f32..5.0), prop::array::uniform2(-5f32..5.0), 0f32..2.0, 0f32..1.5),
            0..12,
        ),
        walls in prop::collection::vec(
            (prop::array::uniform2(-5f32..5.0), prop::array::uniform2(-5f32..5.0)),
            0..4,
        ),
        horizon in 0.1f32..5.0,
        right_hand in 0f32..2.0,
    ) {
        let p = Vec2::from(p);
        let a = OrcaAgent { position: p, velocity: Vec2::from(v), radius, max_speed };
        let neighbours: Vec<_> = others
            .iter()
            .map(|&(q, w, r, share)| OrcaNeighbour {
                position: p + Vec2::from(q),
                velocity: Vec2::from(w),
                radius: r,
                share,
            })
            .collect();
        let segments: Vec<_> = walls
            .iter()
            .map(|&(f, t)| OrcaSegment { from: p + Vec2::from(f), to: p + Vec2::from(t) })
            .collect();
        let params = OrcaParams { time_horizon: horizon, obstacle_time_horizon: horizon / 4.0, right_hand };
        let mut buffers = OrcaBuffers::default();
        let out = solve(&a, Vec2::from(pref), &neighbours, &segments, &params, DT, &mut buffers);
        prop_assert!(out.velocity.is_finite());
        prop_assert!(out.velocity.length() <= max_speed * (1.0 + 1e-5) + 1e-6);
        if !out.infeasible {
            for line in buffers.lines() {
                prop_assert!(line.permits(out.velocity, 1e-3 * (1.0 + line.point.length())));
            }
        }
    }
}

#[test]
fn orca_infeasible_program_minimises_the_worst_violation() {
    // Against a fine grid over the speed disk: the 3D program's velocity violates the
    // neighbours' worst half-plane no more than the grid's best velocity does.
    let mut rng = crate::SimRng::seed_from(31);
    let mut buffers = OrcaBuffers::default();
    let mut checked = 0;
    for _ in 0..300 {
        let a = OrcaAgent {
            position: Vec2::ZERO,
            velocity: Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
            radius: 0.5,
            max_speed: rng.range(0.5, 2.0),
        };
        let neighbours: Vec<_> = (0..2 + rng.index(8))
            .map(|_| OrcaNeighbour {
                position: Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
                velocity: Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
                radius: 0.5,
                share: 0.5,
            })
            .collect();
        let out = solve(&a, Vec2::X, &neighbours, &[], &plain(), DT, &mut buffers);
        if !out.infeasible {
            continue;
        }
        let worst = |v: Vec2| {
            buffers
                .lines()
                .iter()
                .map(|l| l.direction.perp_dot(l.point - v))
                .fold(f32::NEG_INFINITY, f32::max)
        };
        let steps = 150;
        let mut grid_best = f32::INFINITY;
        for i in -steps..=steps {
            for j in -steps..=steps {
                let v = Vec2::new(i as f32, j as f32) * (a.max_speed / steps as f32);
                if v.length() <= a.max_speed {
                    grid_best = grid_best.min(worst(v));
                }
            }
        }
        let ours = worst(out.velocity);
        assert!(
            ours <= grid_best + 1e-4 * (1.0 + grid_best.abs()),
            "{ours} > {grid_best}"
        );
        checked += 1;
    }
    assert!(checked > 30, "{checked}");
}

#[test]
fn orca_right_hand_rule_leaves_receding_and_crossing_behind_alone() {
    // Moving apart, or approaching side by side at right angles far away: the rule does
    // nothing, the half-planes are plain ORCA's.
    let a = agent(Vec2::ZERO, Vec2::new(1.5, 0.0));
    let cases = [
        OrcaNeighbour {
            position: Vec2::new(-1.5, 0.2),
            velocity: Vec2::new(-1.0, 0.0),
            radius: 0.5,
            share: 0.5,
        },
        OrcaNeighbour {
            position: Vec2::new(12.0, -12.0),
            velocity: Vec2::new(0.0, 1.5),
            radius: 0.5,
            share: 0.5,
        },
    ];
    let mut plain_buffers = OrcaBuffers::default();
    let mut ruled_buffers = OrcaBuffers::default();
    for n in cases {
        let p = solve(&a, a.velocity, &[n], &[], &plain(), DT, &mut plain_buffers);
        let r = solve(
            &a,
            a.velocity,
            &[n],
            &[],
            &OrcaParams::default(),
            DT,
            &mut ruled_buffers,
        );
        assert_eq!(p, r);
        assert_eq!(plain_buffers.lines(), ruled_buffers.lines());
    }
}

#[test]
fn orca_right_hand_half_planes_stay_reciprocal() {
    // Two agents sharing the avoidance build complementary half-planes: opposite
    // directions, and between them exactly the relative half-plane the agent would build
    // alone (share 1) — so if both keep to theirs they cannot collide within the horizon.
    let mut rng = crate::SimRng::seed_from(5);
    let params = OrcaParams::default();
    let mut buffers = OrcaBuffers::default();
    let mut line = |me: OrcaAgent, other: OrcaAgent, share: f32| {
        let n = OrcaNeighbour {
            position: other.position,
            velocity: other.velocity,
            radius: other.radius,
            share,
        };
        solve(&me, Vec2::ZERO, &[n], &[], &params, DT, &mut buffers);
        buffers.lines()[0]
    };
    let mut shifted = 0;
    for _ in 0..500 {
        let mut random = || Vec2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0));
        let a = agent(random(), random() * 0.7);
        let b = agent(a.position + random(), random() * 0.7);
        if a.position.distance(b.position) <= 1.0 {
            continue;
        }
        let (la, lb, alone) = (line(a, b, 0.5), line(b, a, 0.5), line(a, b, 1.0));
        assert!(
            (la.direction + lb.direction).length() < 1e-5,
            "{la:?} {lb:?}"
        );
        assert!((la.direction - alone.direction).length() < 1e-6);
        let boundary = alone.point - b.velocity;
        let offset = la.direction.perp_dot(la.point - lb.point - boundary);
        assert!(offset.abs() < 1e-4, "{offset}: {la:?} {lb:?} {alone:?}");
        let unruled = OrcaNeighbour {
            position: b.position,
            velocity: b.velocity,
            radius: b.radius,
            share: 0.5,
        };
        let mut plain_buffers = OrcaBuffers::default();
        solve(
            &a,
            Vec2::ZERO,
            &[unruled],
            &[],
            &plain(),
            DT,
            &mut plain_buffers,
        );
        shifted += usize::from(plain_buffers.lines()[0] != la);
    }
    // The rule was at work in a good part of them.
    assert!(shifted > 50, "{shifted}");
}
