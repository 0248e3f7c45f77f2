//! Traffic: where movers meet each other. Every scenario of `scenarios/traffic/` runs through
//! the runner and must end with every unit arrived, no overlap deeper than 5 % of the radii
//! sum, nobody stuck (crowds of singles waiting their turns where their ways cross: nobody
//! standing 20 s), nobody in an obstacle, and all arrived in time: no later than RVO2
//! (`dodgy_2d`) gets the same units there where it runs them (Circle 369 s, Blocks 568 s),
//! otherwise within 1.5 × the slowest unit's free walk (its planned path length over its top
//! speed) plus the time the narrowest passage needs to let everyone through at 0.8 units per
//! second per metre of width. `docs/traffic.md` has the figures beside RVO2's.
//!
//! A run stops 5 s after its time limit (it cannot pass later), so a passing test takes only
//! as long as the limit allows.

mod traffic_support;

use std::path::PathBuf;

use cohort_demos::Report;
use cohort_demos::compare::{agents_of, load_built, route_length};
use cohort_demos::runner::Runner;
use cohort_demos::scenario::{Built, Scenario};

/// Flow through a passage, units per second per metre of width.
const FLOW: f64 = 0.8;
/// Seconds run past the time limit (arrival is judged over the whole run).
const SETTLE: f64 = 5.0;
/// Seconds a single waiting its turn in a crowd of singles may stand (within its radius of
/// one spot, away from its goal): four times the 5 s after which the runner counts it stuck.
/// A unit locked in a knot stands for good.
const LONGEST_WAIT: f32 = 20.0;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/traffic")
        .join(format!("{name}.ron"))
}

/// What a scenario is held to.
enum Limit {
    /// RVO2's time for the same units, seconds.
    Rvo2(f64),
    /// 1.5 × the slowest free walk plus the throughput time of a passage this wide (m);
    /// `None` in the open.
    FreeWalk(Option<f64>),
}

/// Runs the scenario to its time limit plus [`SETTLE`]; returns the report and the limit (s).
fn run(name: &str, limit: Limit) -> (Report, f64) {
    let (report, limit, _) = run_standing(name, limit);
    (report, limit)
}

/// [`run`], with the longest any unit stood away from where it is bound (s).
fn run_standing(name: &str, limit: Limit) -> (Report, f64, f32) {
    let built = load_built(&path(name)).unwrap_or_else(|e| panic!("{e}"));
    run_built_standing(name, built, limit)
}

/// The scenario with every formation's position moved `dx` metres along x: the same
/// meetings, a little earlier or later (where chaotic crowds show what one run hides).
fn moved(name: &str, dx: f32) -> Built {
    let file = path(name);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
    let origin = file.display().to_string();
    let mut scenario = Scenario::from_ron_str(&text, &origin).unwrap_or_else(|e| panic!("{e}"));
    for f in &mut scenario.formations {
        if let Some(p) = f.position.as_mut() {
            p.x += dx;
        }
    }
    scenario
        .validate(&origin, &[])
        .and_then(|l| l.build())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `built` to its time limit plus [`SETTLE`]; returns the report and the limit (s).
fn run_built(name: &str, built: Built, limit: Limit) -> (Report, f64) {
    let (report, limit, _) = run_built_standing(name, built, limit);
    (report, limit)
}

/// [`run_built`], with the longest any unit stood away from where it is bound (s).
fn run_built_standing(name: &str, built: Built, limit: Limit) -> (Report, f64, f32) {
    let units = built.units.len() as f64;
    let limit = match limit {
        Limit::Rvo2(t) => t,
        Limit::FreeWalk(gap) => {
            let map = built.world.map().clone().validate().expect("map");
            let walk = agents_of(&built, &map)
                .iter()
                .map(|a| f64::from(route_length(a) / a.max_speed))
                .fold(0.0, f64::max);
            1.5 * walk + gap.map_or(0.0, |w| units / (FLOW * w))
        }
    };
    let dt = f64::from(built.dt);
    let ticks = (((limit + SETTLE) / dt).ceil() as u64).min(built.duration);
    let mut runner = Runner::new(built, false);
    runner.run(ticks, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let report = runner.report();
    let stood = runner.longest_stand();
    eprintln!(
        "{name}: limit {limit:.1} s, longest stand {stood:.1} s: {}",
        report.to_json()
    );
    (report, limit, stood)
}

/// The traffic criteria.
fn flows(name: &str, limit: Limit) {
    let (r, limit) = run(name, limit);
    meets(name, r, limit);
}

/// The traffic criteria but one: singles of a crowd crossing at one spot wait their turns
/// there, some of them 5 s and more (the runner counts those stuck; RVO2's agents wait
/// longer and more often), so here no unit may stand longer than [`LONGEST_WAIT`].
fn flows_waiting_turns(name: &str, limit: Limit) {
    let (r, limit, stood) = run_standing(name, limit);
    assert!(
        stood < LONGEST_WAIT,
        "{name}: a unit stood {stood:.1} s: {r:?}"
    );
    meets_but_stuck(name, &r, limit);
}

/// Whether a run's report `r` meets the traffic criteria within `limit` seconds.
fn meets(name: &str, r: Report, limit: f64) {
    assert_eq!(r.stuck, 0, "{name}: {r:?}");
    meets_but_stuck(name, &r, limit);
}

/// The criteria of [`meets`] but the count of units stuck.
fn meets_but_stuck(name: &str, r: &Report, limit: f64) {
    assert_eq!(r.non_finite, 0, "{name}: {r:?}");
    assert_eq!(r.arrived, r.units, "{name}: not everyone arrived: {r:?}");
    assert!(
        r.max_overlap_depth <= 0.05,
        "{name}: overlap {:.3}: {r:?}",
        r.max_overlap_depth
    );
    assert_eq!(r.penetrations, 0, "{name}: {r:?}");
    let t = r.time_to_arrive.expect("arrived");
    assert!(t <= limit, "{name}: {t:.1} s against {limit:.1} s");
}

/// Some of the 250 wait their turn in the roundabout in the middle 5 to 10 s (12 counted
/// stuck; RVO2's agents, 235).
#[test]
fn circle_of_250_singles_swaps_antipodes_as_fast_as_rvo2() {
    flows_waiting_turns("circle", Limit::Rvo2(369.0));
}

/// Vehicles wait their turn at the crossroads, up to 18.5 s (89 counted stuck; RVO2's, 99).
#[test]
fn blocks_singles_cross_as_fast_as_rvo2() {
    flows_waiting_turns("blocks_singles", Limit::Rvo2(568.0));
}

#[test]
fn blocks_squads_cross_as_fast_as_rvo2_singles() {
    flows("blocks_squads", Limit::Rvo2(568.0));
}

#[test]
fn corridor_head_on_formations_pass_each_other() {
    flows("corridor_head_on", Limit::FreeWalk(Some(16.0)));
}

#[test]
fn corridor_two_way_singles_pass_each_other() {
    flows("corridor_two_way", Limit::FreeWalk(Some(16.0)));
}

/// Moved 10 cm west, two singles walking east ended face to face in the packed lattice of
/// goals, each standing where the other's way went on, and the crowd's pushes balanced their
/// pulls to their goals: both stood for good. Held singles now press on to their goals as
/// strays (`world/avoidance.rs`). Moved 7.5 cm west the same befell two walking west, and
/// moved 20 cm either way one single was counted stuck.
#[test]
fn corridor_two_way_singles_pass_each_other_when_moved_a_little() {
    for dx in [-0.1, -0.075, 0.2, -0.2] {
        let name = format!("corridor_two_way moved {dx} m");
        let (r, limit) = run_built(
            &name,
            moved("corridor_two_way", dx),
            Limit::FreeWalk(Some(16.0)),
        );
        meets(&name, r, limit);
    }
}

#[test]
fn crossing_formations_cross() {
    flows("crossing", Limit::FreeWalk(None));
}

/// The squads queue for the gap, each right behind the one before it, and pass it three
/// abreast: everyone is through within the limit (1.5 × the slowest free walk plus 1,000
/// units at 0.8 a second per metre of the gap). Members filing in from their boxes wait at
/// the gap's corners for a place in their ranks, some of them 5 to 16 s (counted stuck),
/// so here no unit may stand 20 s.
#[test]
fn chokepoint_20_squads_pass_the_gap() {
    flows_waiting_turns("chokepoint", Limit::FreeWalk(Some(4.0)));
}

/// Six squads and 24 singles ordered to one point stand side by side round it (goals spread;
/// `tests/traffic_goals.rs` holds the rest).
#[test]
fn rally_formations_ordered_to_one_point_arrive() {
    flows("rally", Limit::FreeWalk(None));
}

#[test]
fn scenario_files_are_what_the_generator_makes() {
    for (name, text) in traffic_support::scenarios() {
        let on_disk = std::fs::read_to_string(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            on_disk == text,
            "scenarios/traffic/{name}.ron differs from the generator: \
             run `cargo run --example traffic_scenarios`"
        );
        load_built(&path(name)).unwrap_or_else(|e| panic!("{e}"));
    }
}
