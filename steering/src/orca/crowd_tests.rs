//! Small simulations of the ORCA solver: agents walking to their goals among each other and
//! walls, every agent solving with every other as a reciprocal neighbour, positions
//! integrated with the solved velocities.

use super::tests::{DT, RADIUS, segment_distance};
use super::*;
use crate::ops;

/// A crowd of agents of radius [`RADIUS`] walking to their goals.
struct Crowd {
    positions: Vec<Vec2>,
    velocities: Vec<Vec2>,
    goals: Vec<Vec2>,
    max_speed: f32,
    params: OrcaParams,
    segments: Vec<OrcaSegment>,
    /// Smallest centre distance over the sum of radii seen so far.
    min_separation: f32,
    /// Smallest distance from a centre to a segment seen so far.
    min_wall_distance: f32,
}

impl Crowd {
    fn new(starts: Vec<Vec2>, goals: Vec<Vec2>, max_speed: f32, params: OrcaParams) -> Self {
        let n = starts.len();
        Self {
            positions: starts,
            velocities: vec![Vec2::ZERO; n],
            goals,
            max_speed,
            params,
            segments: Vec::new(),
            min_separation: f32::INFINITY,
            min_wall_distance: f32::INFINITY,
        }
    }

    fn preferred(&self, i: usize) -> Vec2 {
        let to_goal = self.goals[i] - self.positions[i];
        // Arrive: no faster than reaches the goal in one step.
        truncate(to_goal / DT, self.max_speed)
    }

    fn step(&mut self, buffers: &mut OrcaBuffers) {
        let n = self.positions.len();
        let mut next = Vec::with_capacity(n);
        let mut neighbours = Vec::with_capacity(n);
        for i in 0..n {
            neighbours.clear();
            for j in (0..n).filter(|&j| j != i) {
                neighbours.push(OrcaNeighbour {
                    position: self.positions[j],
                    velocity: self.velocities[j],
                    radius: RADIUS,
                    share: 0.5,
                });
            }
            let me = OrcaAgent {
                position: self.positions[i],
                velocity: self.velocities[i],
                radius: RADIUS,
                max_speed: self.max_speed,
            };
            let outcome = solve(
                &me,
                self.preferred(i),
                &neighbours,
                &self.segments,
                &self.params,
                DT,
                buffers,
            );
            assert!(outcome.velocity.is_finite());
            next.push(outcome.velocity);
        }
        self.velocities = next;
        for (p, v) in self.positions.iter_mut().zip(&self.velocities) {
            *p += *v * DT;
        }
        for i in 0..n {
            for j in i + 1..n {
                let d = self.positions[i].distance(self.positions[j]) / (2.0 * RADIUS);
                self.min_separation = self.min_separation.min(d);
            }
            for s in &self.segments {
                let d = segment_distance(self.positions[i], s.from, s.to);
                self.min_wall_distance = self.min_wall_distance.min(d);
            }
        }
    }

    fn arrived(&self, tolerance: f32) -> bool {
        self.positions
            .iter()
            .zip(&self.goals)
            .all(|(p, g)| p.distance(*g) <= tolerance)
    }
}

#[test]
fn orca_head_on_pair_passes_on_the_right() {
    let starts = vec![Vec2::new(-8.0, 0.0), Vec2::new(8.0, 0.0)];
    let goals = vec![starts[1], starts[0]];
    let mut crowd = Crowd::new(starts, goals, 2.0, OrcaParams::default());
    let mut buffers = OrcaBuffers::default();
    let mut passed_at = None;
    for step in 0..300 {
        crowd.step(&mut buffers);
        let (a, b) = (crowd.positions[0], crowd.positions[1]);
        // Each sees the other's situation turned by half a turn: exactly, in f32.
        assert_eq!(a, -b, "step {step}");
        if passed_at.is_none() && a.x > b.x {
            passed_at = Some(step);
        }
        if passed_at.is_none() && (a.x - b.x).abs() < 1.0 {
            // Alongside: the first (walking +x) is on the second's left, each on its own
            // right of the line between their starts.
            assert!(a.y < 0.0 && b.y > 0.0, "step {step}: {a} {b}");
        }
    }
    assert!(passed_at.is_some());
    assert!(crowd.arrived(0.05), "{:?}", crowd.positions);
    assert!(crowd.min_separation >= 0.97, "{}", crowd.min_separation);
}

#[test]
fn orca_head_on_pair_of_different_speeds_and_offset_passes() {
    let starts = vec![Vec2::new(-8.0, 0.05), Vec2::new(8.0, 0.0)];
    let goals = vec![Vec2::new(8.0, 0.05), Vec2::new(-8.0, 0.0)];
    for max_speed in [1.3, 3.0] {
        let mut crowd = Crowd::new(
            starts.clone(),
            goals.clone(),
            max_speed,
            OrcaParams::default(),
        );
        let mut buffers = OrcaBuffers::default();
        for _ in 0..300 {
            crowd.step(&mut buffers);
        }
        assert!(crowd.arrived(0.05), "{max_speed}: {:?}", crowd.positions);
        assert!(
            crowd.min_separation >= 0.97,
            "{max_speed}: {}",
            crowd.min_separation
        );
    }
}

fn circle_swap(n: usize, ring: f32) -> Crowd {
    let starts: Vec<Vec2> = (0..n)
        .map(|k| ops::from_angle(k as f32 * core::f32::consts::TAU / n as f32) * ring)
        .collect();
    let goals = starts.iter().map(|p| -*p).collect();
    Crowd::new(starts, goals, 2.0, OrcaParams::default())
}

#[test]
fn orca_circle_swaps_arrive_without_overlap() {
    for (n, ring) in [(4, 5.0), (8, 6.0), (16, 8.0)] {
        let mut crowd = circle_swap(n, ring);
        let mut buffers = OrcaBuffers::default();
        let mut steps = 0;
        while !crowd.arrived(0.05) && steps < 1000 {
            crowd.step(&mut buffers);
            steps += 1;
        }
        assert!(crowd.arrived(0.05), "{n}: {:?}", crowd.positions);
        assert!(
            crowd.min_separation >= 0.97,
            "{n}: {}",
            crowd.min_separation
        );
        // Not much slower than walking straight across (2 * ring at 2 m/s).
        let straight = 2.0 * ring / 2.0 / DT;
        assert!((steps as f32) < 2.5 * straight, "{n}: {steps} steps");
    }
}

#[test]
fn orca_segment_dead_ahead_is_not_crossed() {
    let wall = OrcaSegment {
        from: Vec2::new(-3.0, 0.0),
        to: Vec2::new(3.0, 0.0),
    };
    for (start, goal) in [
        (Vec2::new(0.0, -5.0), Vec2::new(0.0, 5.0)),
        (Vec2::new(1.0, -4.0), Vec2::new(2.5, 5.0)),
        (Vec2::new(-2.0, 4.0), Vec2::new(1.0, -5.0)),
    ] {
        for max_speed in [1.3, 3.0] {
            let mut crowd = Crowd::new(vec![start], vec![goal], max_speed, OrcaParams::default());
            crowd.segments.push(wall);
            let mut buffers = OrcaBuffers::default();
            for _ in 0..200 {
                crowd.step(&mut buffers);
                let p = crowd.positions[0];
                assert!(
                    p.y.signum() == start.y.signum(),
                    "{start} -> {goal}: crossed at {p}"
                );
            }
            assert!(
                crowd.min_wall_distance >= RADIUS * 0.97,
                "{start} -> {goal} at {max_speed}: {}",
                crowd.min_wall_distance
            );
            // It got close: stopped by the wall, not scared off it.
            assert!(
                crowd.min_wall_distance < RADIUS * 1.3,
                "{}",
                crowd.min_wall_distance
            );
        }
    }
}

#[test]
fn orca_head_on_in_a_corridor_passes_between_the_walls() {
    // Two agents meeting head-on in a corridor 3 m wide: they pass on their right without
    // touching each other or the walls.
    let starts = vec![Vec2::new(-8.0, 0.0), Vec2::new(8.0, 0.0)];
    let goals = vec![starts[1], starts[0]];
    let mut crowd = Crowd::new(starts, goals, 2.0, OrcaParams::default());
    crowd.segments = vec![
        OrcaSegment {
            from: Vec2::new(-12.0, 1.5),
            to: Vec2::new(12.0, 1.5),
        },
        OrcaSegment {
            from: Vec2::new(12.0, -1.5),
            to: Vec2::new(-12.0, -1.5),
        },
    ];
    let mut buffers = OrcaBuffers::default();
    for _ in 0..300 {
        crowd.step(&mut buffers);
        for p in &crowd.positions {
            assert!(p.y.abs() < 1.5, "{p}");
        }
    }
    assert!(crowd.arrived(0.05), "{:?}", crowd.positions);
    assert!(crowd.min_separation >= 0.97, "{}", crowd.min_separation);
    assert!(
        crowd.min_wall_distance >= RADIUS * 0.97,
        "{}",
        crowd.min_wall_distance
    );
}
