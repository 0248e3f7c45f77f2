//! The solver against `dodgy_2d`, an independent Rust port of RVO2's ORCA, on the same random
//! neighbourhoods (no segments, right-hand rule off).
//!
//! dodgy parametrises the avoidance differently: each agent has an
//! `avoidance_responsibility`, and an agent takes `own / (own + other's)` of the avoidance,
//! but only when its relative velocity is inside the velocity obstacle; outside it, dodgy
//! always takes all of it (its half-plane then lies on the obstacle's boundary, where the
//! paper and RVO2 put it at the share's fraction of the way there). So a neighbour of share
//! `s` is fed to dodgy with responsibility `(1 - s) / s` against the agent's 1, and to this
//! solver with share `s` when dodgy counts the relative velocity inside, 1 when outside:
//! both then build the same half-plane, and the comparison checks the half-planes and both
//! linear programs. Overlapping agents are treated alike (dodgy's `time_step` is `dt`); dodgy
//! picks a random direction for coincident centres with equal velocities, which random
//! configurations never produce.

use std::borrow::Cow;

use dodgy_2d as dodgy;

use super::*;
use crate::SimRng;

const DT: f32 = 0.1;

fn to_dodgy(v: Vec2) -> dodgy::Vec2 {
    dodgy::Vec2::new(v.x, v.y)
}

/// dodgy's test of whether the agent's velocity relative to `neighbour` is inside their
/// velocity obstacle (written out, in the same arithmetic, to know which share it applies).
fn dodgy_inside(agent: &OrcaAgent, neighbour: &OrcaNeighbour, time_horizon: f32) -> bool {
    let rel_pos = neighbour.position - agent.position;
    let rel_vel = agent.velocity - neighbour.velocity;
    let dist_sq = rel_pos.length_squared();
    let r = agent.radius + neighbour.radius;
    let r_sq = r * r;
    if dist_sq <= r_sq {
        return true;
    }
    let w = rel_vel - rel_pos / time_horizon;
    let w_len_sq = w.length_squared();
    let dot = w.dot(rel_pos);
    if dot < 0.0 && dot * dot > r_sq * w_len_sq {
        let cutoff = r / time_horizon;
        w_len_sq < cutoff * cutoff
    } else {
        let leg = (dist_sq - r_sq).sqrt();
        let side = rel_pos.perp_dot(w).signum();
        let shadow = (rel_pos * leg * side + rel_pos.perp() * r) / dist_sq;
        rel_vel.perp_dot(shadow) >= 0.0
    }
}

struct Case {
    agent: OrcaAgent,
    preferred: Vec2,
    neighbours: Vec<OrcaNeighbour>,
    time_horizon: f32,
}

fn disc(rng: &mut SimRng, radius: f32) -> Vec2 {
    truncate(
        Vec2::new(rng.range(-radius, radius), rng.range(-radius, radius)),
        radius,
    )
}

/// An agent among 1 to 10 neighbours within 4 m (some overlapping), each of share
/// `share(rng)`.
fn random_case(rng: &mut SimRng, share: &mut dyn FnMut(&mut SimRng) -> f32) -> Case {
    let position = disc(rng, 5.0);
    let agent = OrcaAgent {
        position,
        velocity: disc(rng, 2.5),
        radius: rng.range(0.3, 0.8),
        max_speed: rng.range(1.0, 3.0),
    };
    let count = 1 + rng.index(10);
    let neighbours = (0..count)
        .map(|_| OrcaNeighbour {
            position: position + disc(rng, 4.0),
            velocity: disc(rng, 2.5),
            radius: rng.range(0.3, 0.8),
            share: share(rng),
        })
        .collect();
    Case {
        agent,
        preferred: disc(rng, 3.5),
        neighbours,
        time_horizon: rng.range(0.5, 3.0),
    }
}

/// Counts of a comparison run.
#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    infeasible: usize,
    bound: usize,
    neighbours: usize,
    inside: usize,
    worst_error: f32,
    worst_line_error: f32,
    /// Infeasible cases where dodgy's velocity left the speed disk (see [`compare`]).
    dodgy_outside_disk: usize,
}

/// Solves `case` with this module and with dodgy, asserting they agree, and tallies it.
fn compare(case: &Case, tally: &mut Tally, buffers: &mut OrcaBuffers) {
    let params = OrcaParams {
        time_horizon: case.time_horizon,
        obstacle_time_horizon: 0.5,
        right_hand: 0.0,
    };
    let mut neighbours = case.neighbours.clone();
    for n in &mut neighbours {
        if dodgy_inside(&case.agent, n, case.time_horizon) {
            tally.inside += 1;
        } else {
            n.share = 1.0;
        }
    }
    let ours = solve(
        &case.agent,
        case.preferred,
        &neighbours,
        &[],
        &params,
        DT,
        buffers,
    );

    let me = dodgy::Agent {
        position: to_dodgy(case.agent.position),
        velocity: to_dodgy(case.agent.velocity),
        radius: case.agent.radius,
        avoidance_responsibility: 1.0,
    };
    let others: Vec<Cow<'_, dodgy::Agent>> = case
        .neighbours
        .iter()
        .map(|n| {
            Cow::Owned(dodgy::Agent {
                position: to_dodgy(n.position),
                velocity: to_dodgy(n.velocity),
                radius: n.radius,
                avoidance_responsibility: (1.0 - n.share) / n.share,
            })
        })
        .collect();
    let options = dodgy::AvoidanceOptions {
        obstacle_margin: 0.0,
        time_horizon: case.time_horizon,
        obstacle_time_horizon: 0.5,
    };
    let (theirs, debug) = me.compute_avoiding_velocity_with_debug(
        &others,
        &[],
        to_dodgy(case.preferred),
        case.agent.max_speed,
        DT,
        &options,
    );
    let theirs = Vec2::new(theirs.x, theirs.y);
    // The half-planes first, one by one.
    let dodgy::debug::DebugData::Satisfied { constraints } = debug else {
        panic!("no obstacles, so dodgy never falls back: {debug:?}");
    };
    assert_eq!(buffers.lines().len(), constraints.len());
    for (k, (line, their)) in buffers.lines().iter().zip(&constraints).enumerate() {
        let point = Vec2::new(their.point.x, their.point.y);
        let direction = Vec2::new(their.direction.x, their.direction.y);
        let scale = point.length().max(1.0);
        assert!(
            line.point.distance(point) <= 1e-4 * scale
                && line.direction.distance(direction) <= 1e-4,
            "neighbour {k}: ours {line:?}, dodgy {their:?}"
        );
        tally.worst_line_error = tally
            .worst_line_error
            .max(line.point.distance(point) / scale)
            .max(line.direction.distance(direction));
    }
    let error = ours.velocity.distance(theirs) / theirs.length().max(1.0);
    let max_speed = case.agent.max_speed;
    if ours.infeasible && theirs.length() > max_speed * (1.0 + 1e-4) {
        // dodgy's (and RVO2's) 3D program anchors each projected half-plane where two
        // constraint lines cross, which for nearly parallel lines is far from the origin, and
        // the disk test then loses its precision to cancellation: the velocity can leave the
        // speed disk by a percent or so. Ours anchors them nearest the origin. There, ours
        // must be within the disk and violate its worst half-plane no more than the best
        // velocity of a fine grid over the disk does (up to rounding).
        let worst = |v: Vec2| {
            buffers
                .lines()
                .iter()
                .map(|l| l.direction.perp_dot(l.point - v))
                .fold(f32::NEG_INFINITY, f32::max)
        };
        let steps = 300;
        let mut grid_best = f32::INFINITY;
        for i in -steps..=steps {
            for j in -steps..=steps {
                let v = Vec2::new(i as f32, j as f32) * (max_speed / steps as f32);
                if v.length() <= max_speed {
                    grid_best = grid_best.min(worst(v));
                }
            }
        }
        let w_ours = worst(ours.velocity);
        assert!(ours.velocity.length() <= max_speed * (1.0 + 1e-6));
        assert!(
            w_ours <= grid_best + 1e-4 * (1.0 + grid_best.abs()),
            "ours {ours:?} violates by {w_ours}, the grid's best by {grid_best}, dodgy {theirs} by {}",
            worst(theirs)
        );
        tally.dodgy_outside_disk += 1;
        tally.neighbours += case.neighbours.len();
        return;
    }
    assert!(
        error <= 1e-3,
        "ours {ours:?}, dodgy {theirs}, error {error}\nagent {:?}\npreferred {}\nneighbours {:?}\nhorizon {}",
        case.agent,
        case.preferred,
        case.neighbours,
        case.time_horizon
    );
    tally.cases += 1;
    tally.infeasible += usize::from(ours.infeasible);
    tally.bound += usize::from(ours.binding.is_some());
    tally.neighbours += case.neighbours.len();
    tally.worst_error = tally.worst_error.max(error);
}

#[test]
fn orca_matches_dodgy_with_reciprocal_shares() {
    let mut rng = SimRng::seed_from(0x0_4CA);
    let mut buffers = OrcaBuffers::default();
    let mut tally = Tally::default();
    for _ in 0..600 {
        let case = random_case(&mut rng, &mut |_| 0.5);
        compare(&case, &mut tally, &mut buffers);
    }
    eprintln!("reciprocal: {tally:?}");
    // The comparison exercised every part: the half-plane was bound in most cases, the 3D
    // program ran in many, and many neighbours used the share itself.
    assert!(tally.bound > tally.cases / 2, "{tally:?}");
    assert!(tally.infeasible > tally.cases / 10, "{tally:?}");
    assert!(tally.inside > tally.neighbours / 10, "{tally:?}");
}

#[test]
fn orca_matches_dodgy_with_any_shares() {
    let mut rng = SimRng::seed_from(0x5A_4E);
    let mut buffers = OrcaBuffers::default();
    let mut tally = Tally::default();
    for _ in 0..400 {
        let case = random_case(&mut rng, &mut |rng| rng.range(0.05, 1.0));
        compare(&case, &mut tally, &mut buffers);
    }
    eprintln!("any shares: {tally:?}");
    assert!(tally.inside > tally.neighbours / 10, "{tally:?}");
}
