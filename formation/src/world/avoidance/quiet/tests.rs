use cohort_steering::orca::{self, OrcaAgent, OrcaBuffers, OrcaNeighbour, OrcaParams};
use cohort_steering::{SimRng, Vec2};

use super::QuietTest;

/// A random velocity of at most `most` metres a second.
fn velocity(rng: &mut SimRng, most: f32) -> Vec2 {
    Vec2::new(rng.range(-most, most), rng.range(-most, most))
}

/// One random meeting: the agent, the velocity it prefers, a neighbour, the parameters.
fn meeting(rng: &mut SimRng) -> (OrcaAgent, Vec2, OrcaNeighbour, OrcaParams) {
    let max_speed = rng.range(0.5, 4.0);
    let agent = OrcaAgent {
        position: Vec2::new(rng.range(-500.0, 500.0), rng.range(-500.0, 500.0)),
        velocity: velocity(rng, 3.0),
        radius: rng.range(0.2, 1.0),
        max_speed,
    };
    // Mostly near the agent's own velocity (a marching unit), sometimes anything.
    let preferred = if rng.next_f32() < 0.7 {
        agent.velocity + velocity(rng, 0.5)
    } else {
        velocity(rng, 5.0)
    };
    let neighbour_velocity = if rng.next_f32() < 0.7 {
        agent.velocity + velocity(rng, 0.5)
    } else {
        velocity(rng, 3.0)
    };
    let neighbour = OrcaNeighbour {
        position: agent.position + velocity(rng, 10.0),
        velocity: neighbour_velocity,
        radius: rng.range(0.2, 1.0),
        share: 0.5,
    };
    let params = OrcaParams {
        time_horizon: [0.5, 1.0, 2.0, 4.0][rng.index(4)],
        obstacle_time_horizon: 0.5,
        right_hand: [0.0, 0.5, 1.0, 3.0][rng.index(4)],
    };
    (agent, preferred, neighbour, params)
}

fn test_for(agent: &OrcaAgent, preferred: Vec2, params: &OrcaParams) -> Option<QuietTest> {
    QuietTest::new(
        agent.velocity,
        preferred,
        agent.max_speed,
        params.time_horizon,
    )
}

fn permits(test: &QuietTest, agent: &OrcaAgent, n: &OrcaNeighbour) -> bool {
    let offset = n.position - agent.position;
    test.permits(
        offset,
        offset.length(),
        n.velocity,
        agent.radius + n.radius,
        n.share,
    )
}

/// Where a quiet neighbour's half-plane is, the program's start lies inside it by more than
/// the rounding of the solver, and the solver keeps the preferred velocity unbound.
#[test]
fn a_quiet_neighbour_permits_the_preferred_velocity() {
    let mut rng = SimRng::seed_from(7);
    let mut buffers = OrcaBuffers::default();
    let (mut quiet, mut loud) = (0, 0);
    for _ in 0..200_000 {
        let (agent, preferred, neighbour, params) = meeting(&mut rng);
        let Some(test) = test_for(&agent, preferred, &params) else {
            panic!("finite inputs have a test");
        };
        if !permits(&test, &agent, &neighbour) {
            loud += 1;
            continue;
        }
        quiet += 1;
        let out = orca::solve(
            &agent,
            preferred,
            &[neighbour],
            &[],
            &params,
            0.05,
            &mut buffers,
        );
        assert_eq!(
            out.binding, None,
            "{agent:?} {preferred} {neighbour:?} {params:?}"
        );
        assert!(!out.infeasible);
        // The start of the program, as the solver computes it.
        let start = cohort_steering::truncate(preferred, agent.max_speed);
        let line = buffers.lines().first().copied();
        let line = line.unwrap_or_else(|| panic!("a half-plane for {neighbour:?}"));
        // Inside by far more than rounding.
        assert!(line.permits(start, -1e-4), "{line:?} {start}");
    }
    assert!(quiet > 10_000 && loud > 10_000, "{quiet} quiet, {loud} not");
}

/// Overlapping or touching neighbours, and those coming at the unit, are never quiet.
#[test]
fn close_or_closing_neighbours_are_not_quiet() {
    let agent = OrcaAgent {
        position: Vec2::ZERO,
        velocity: Vec2::new(1.0, 0.0),
        radius: 0.5,
        max_speed: 2.0,
    };
    let params = OrcaParams::default();
    let Some(test) = test_for(&agent, agent.velocity, &params) else {
        panic!("a test");
    };
    let touching = OrcaNeighbour {
        position: Vec2::new(1.0, 0.0),
        velocity: agent.velocity,
        radius: 0.5,
        share: 0.5,
    };
    assert!(!permits(&test, &agent, &touching));
    // Overlapping and moving apart fast: the solver's overlap case, not quiet.
    let leaving = OrcaNeighbour {
        position: Vec2::new(0.6, 0.0),
        velocity: Vec2::new(5.0, 0.0),
        ..touching
    };
    assert!(!permits(&test, &agent, &leaving));
    // Four metres ahead, coming head-on at 2 m/s: contact within the horizon.
    let closing = OrcaNeighbour {
        position: Vec2::new(5.0, 0.0),
        velocity: Vec2::new(-2.0, 0.0),
        ..touching
    };
    assert!(!permits(&test, &agent, &closing));
    // The same neighbour marching alongside is quiet.
    let alongside = OrcaNeighbour {
        position: Vec2::new(0.0, 5.0),
        velocity: agent.velocity,
        ..touching
    };
    assert!(permits(&test, &agent, &alongside));
    // No share, no NaN: not quiet.
    assert!(!test.permits(Vec2::new(f32::NAN, 0.0), f32::NAN, agent.velocity, 1.0, 0.5));
    assert!(!test.permits(Vec2::new(5.0, 0.0), 5.0, agent.velocity, 1.0, 0.0));
}

/// Values the bound does not cover give no test.
#[test]
fn unusual_values_give_no_test() {
    let v = Vec2::new(1.0, 0.0);
    assert!(QuietTest::new(Vec2::NAN, v, 2.0, 2.0).is_none());
    assert!(QuietTest::new(v, Vec2::INFINITY, 2.0, 2.0).is_none());
    assert!(QuietTest::new(v, v, 0.0, 2.0).is_none());
    assert!(QuietTest::new(v, v, 2.0, 0.0).is_none());
    assert!(QuietTest::new(v, v, 2.0, f32::INFINITY).is_none());
    assert!(QuietTest::new(v, v, 2.0, 2.0).is_some());
}
