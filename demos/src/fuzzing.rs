//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`) and of the seeded regression
//! test that runs them in `cargo test` (`tests/fuzz_regression.rs`).
//!
//! Each target takes arbitrary bytes and returns `Err` when it finds a broken promise: a
//! non-finite number in a world or report, or an error that names neither a field nor a
//! position. A panic is a broken promise too; the callers catch it. Work is bounded so that
//! one input takes milliseconds: scenarios are built and run only when small.

use cohort_formation::order::Order;
use cohort_formation::pattern::{Pattern, PatternKind};
use cohort_formation::tactics::Playbook;
use cohort_formation::world::WorldSettings;
use cohort_formation::{FormationSpec, Member, World};
use cohort_pathing::Map;
use cohort_steering::{Body, Vec2};

use crate::metrics::Report;
use crate::runner::Runner;
use crate::scenario::{Scenario, ScenarioError};

/// Where fuzzed scenario text claims to come from: a directory that does not exist, so every
/// file it names is refused (the run does not depend on the machine's files).
pub const FUZZ_ORIGIN: &str = "/nonexistent-cohort-fuzz/fuzz.ron";
/// Most units a fuzzed scenario may have to be built and run.
const RUN_UNITS: u64 = 64;
/// Largest map side a fuzzed scenario may have to be built.
const RUN_MAP_SIDE: f32 = 2_000.0;
/// Most polygon points (over all polygons and gaps) for a fuzzed scenario to be built.
const RUN_POLYGON_POINTS: usize = 256;
/// Ticks a fuzzed scenario, playbook or snapshot is run.
const RUN_TICKS: u64 = 30;

/// Every float of the world's units and anchors is finite.
pub fn check_world_finite(world: &World) -> Result<(), String> {
    for (id, u) in world.units() {
        let b = &u.body;
        if !(b.position.is_finite() && b.velocity.is_finite() && b.heading.is_finite()) {
            return Err(format!("unit {id:?} has a non-finite body"));
        }
    }
    for (id, f) in world.formations() {
        let a = &f.anchor;
        if !(a.position.is_finite() && a.velocity.is_finite() && a.orientation.is_finite()) {
            return Err(format!("formation {id:?} has a non-finite anchor"));
        }
    }
    Ok(())
}

/// The report's measured numbers are finite (JSON writes NaN as `null`) and no non-finite
/// value was seen during the run.
pub fn check_report(report: &Report) -> Result<(), String> {
    let numbers = [
        ("mean_slot_error", report.mean_slot_error),
        ("max_slot_error", report.max_slot_error),
        ("max_overlap_depth", report.max_overlap_depth),
        ("max_turn_rate", report.max_turn_rate),
    ];
    for (name, v) in numbers {
        if !v.is_finite() {
            return Err(format!("report {name} is {v}: {}", report.to_json()));
        }
    }
    if report.non_finite > 0 {
        return Err(format!(
            "non_finite values in the run: {}",
            report.to_json()
        ));
    }
    Ok(())
}

/// A scenario error names the file and then a position or a field path.
fn check_scenario_error(e: &ScenarioError) -> Result<(), String> {
    let named = match e {
        ScenarioError::Parse { line, .. } => *line > 0,
        ScenarioError::Invalid { field, .. } => !field.is_empty(),
        ScenarioError::Io { origin, .. } | ScenarioError::Build { origin, .. } => {
            !origin.is_empty()
        }
    };
    if named && e.to_string().starts_with(FUZZ_ORIGIN) {
        Ok(())
    } else {
        Err(format!(
            "an error that names no file, field or position: {e}"
        ))
    }
}

/// Whether a validated scenario is small enough to build and run in a fuzz iteration.
fn small_enough(s: &Scenario) -> bool {
    fn units(n: &crate::scenario::FormationNode) -> u64 {
        n.children
            .iter()
            .fold(u64::from(n.units), |a, c| a.saturating_add(units(c)))
    }
    let total = s
        .formations
        .iter()
        .fold(0u64, |a, n| a.saturating_add(units(n)));
    let side = (s.map.max - s.map.min).max_element();
    let points: usize = s.map.polygons.iter().map(|p| p.points.len()).sum::<usize>()
        + s.map
            .gaps
            .iter()
            .map(|g| g.polygon().points.len())
            .sum::<usize>();
    total <= RUN_UNITS && side <= RUN_MAP_SIDE && points <= RUN_POLYGON_POINTS
}

/// Scenario text: parsed, validated (named files are refused), and when small, built and run
/// for a few ticks with its metrics checked.
pub fn scenario_text(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let loaded = match Scenario::from_ron_str(text, FUZZ_ORIGIN)
        .and_then(|s| s.validate(FUZZ_ORIGIN, &[]))
    {
        Ok(l) => l,
        Err(e) => return check_scenario_error(&e),
    };
    if !small_enough(&loaded.scenario) {
        return Ok(());
    }
    let built = match loaded.build() {
        Ok(b) => b,
        Err(e) => return check_scenario_error(&e),
    };
    let mut runner = Runner::new(built, false);
    let ticks = runner.duration().min(RUN_TICKS);
    if let Err(e) = runner.run(ticks, |_| {}) {
        let m = e.to_string();
        if !m.contains(FUZZ_ORIGIN) || !m.contains("timeline[") {
            return Err(format!("a run error that names no file or field: {m}"));
        }
    }
    check_world_finite(runner.world())?;
    check_report(&runner.report())
}

/// Pattern text: parsed and validated; a valid pattern lays out 1, 7 and 300 members at
/// finite offsets.
pub fn pattern_text(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let valid = match Pattern::from_ron_str(text, "fuzz.ron") {
        Ok(p) => match p.validate() {
            Ok(v) => v,
            Err(_) => return Ok(()),
        },
        Err(e) => {
            let m = e.to_string();
            return if m.starts_with("fuzz.ron:") {
                Ok(())
            } else {
                Err(format!("a parse error without a position: {m}"))
            };
        }
    };
    let mut slots = Vec::new();
    for n in [1, 7, 300] {
        valid.layout(n, &mut slots);
        if slots
            .iter()
            .any(|s| !s.offset.is_finite() || !s.facing.is_finite())
        {
            return Err(format!("a non-finite slot laying out {n} members"));
        }
    }
    Ok(())
}

/// A small open world with `n` units in a line formation at (50, 50).
fn small_world(n: usize) -> Result<(World, cohort_formation::FormationId), String> {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::splat(100.0));
    let mut w = World::new(map, WorldSettings::default(), 7).map_err(|e| e.to_string())?;
    let f = w
        .add_formation(FormationSpec::default(), None, Vec2::splat(50.0), Vec2::X)
        .map_err(|e| e.to_string())?;
    for i in 0..n {
        let p = Vec2::new(45.0 + i as f32, 50.0);
        let u = w
            .add_unit(Body {
                position: p,
                ..Body::default()
            })
            .map_err(|e| e.to_string())?;
        w.add_member(f, Member::Unit(u))
            .map_err(|e| e.to_string())?;
    }
    Ok((w, f))
}

/// Playbook text: parsed and validated; a valid book's first play is run by a formation of
/// as many units as it has slots (at most 16) for a few ticks.
pub fn playbook_text(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let book = match Playbook::from_ron_str(text, "fuzz.ron") {
        Ok(b) => match b.validate() {
            Ok(v) => v,
            Err(_) => return Ok(()),
        },
        Err(e) => {
            let m = e.to_string();
            return if m.starts_with("fuzz.ron:") {
                Ok(())
            } else {
                Err(format!("a parse error without a position: {m}"))
            };
        }
    };
    let Some(play) = book.playbook().plays.first() else {
        return Ok(());
    };
    let slots = play
        .phases
        .first()
        .map_or(1, |p| p.slots.len())
        .clamp(1, 16);
    let name = play.name.clone();
    let (mut w, f) = small_world(slots)?;
    let order = Order::RunPlay {
        playbook: book,
        play: name,
        origin: None,
        facing: None,
    };
    if w.order(f, order).is_ok() {
        for _ in 0..RUN_TICKS {
            w.step(1.0 / 30.0);
        }
    }
    check_world_finite(&w)
}

/// Snapshot bytes: a world restored from them (if they are one) steps a few ticks finitely.
pub fn snapshot_bytes(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let Ok(mut w) = World::from_snapshot(text) else {
        return Ok(());
    };
    if w.unit_count() > RUN_UNITS as usize {
        return Ok(());
    }
    for _ in 0..RUN_TICKS {
        w.step(1.0 / 30.0);
    }
    check_world_finite(&w)
}

/// Values the API-call target draws most numbers from: ordinary ones, edges of the documented
/// ranges and hostile ones.
const INTERESTING: [f32; 24] = [
    0.0,
    1.0,
    0.5,
    3.0,
    50.0,
    20.0,
    80.0,
    -1.0,
    1e-30,
    3.4e38,
    -3.4e38,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e6,
    -1e6,
    1e-6,
    1e4,
    99.0,
    0.05,
    1e-4,
    -0.0,
    1e38,
    2.0,
];

/// Reads little-endian values off the front of a byte slice (zeros once it runs out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }

    /// A tag byte, then either one of [`INTERESTING`] (tags below 128) or four raw bytes.
    fn f32(&mut self) -> f32 {
        let tag = self.u8();
        if tag < 128 {
            INTERESTING[usize::from(tag) % INTERESTING.len()]
        } else {
            f32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
        }
    }

    fn vec2(&mut self) -> Vec2 {
        Vec2::new(self.f32(), self.f32())
    }
}

/// A sequence of API calls with arbitrary values on a small world: adding units with any
/// body, creating formations, every kind of order, kills and steps of any `dt`. Refusals are
/// fine; after every step every number must be finite.
pub fn world_calls(data: &[u8]) -> Result<(), String> {
    let (mut w, f0) = small_world(3)?;
    let mut formations = vec![f0];
    let mut units = Vec::new();
    let mut input = Bytes(data);
    for _ in 0..64 {
        if input.0.is_empty() {
            break;
        }
        let pick = usize::from(input.u8());
        let f = formations[pick % formations.len()];
        match input.u8() % 9 {
            0 => {
                let body = Body {
                    position: input.vec2(),
                    radius: input.f32(),
                    max_speed: input.f32(),
                    max_force: input.f32(),
                    mass: input.f32(),
                    ..Body::default()
                };
                if let Ok(u) = w.add_unit(body) {
                    units.push(u);
                    let _ = w.add_member(f, Member::Unit(u));
                }
            }
            1 => {
                let spec = FormationSpec {
                    pattern: Pattern {
                        kind: PatternKind::Box,
                        spacing: input.f32(),
                        unit_radius: input.f32(),
                    },
                    ..FormationSpec::default()
                };
                if let Ok(id) = w.add_formation(spec, None, input.vec2(), input.vec2()) {
                    formations.push(id);
                }
            }
            2 => {
                let goal = input.vec2();
                let at_slowest = input.u8() % 2 == 0;
                let _ = w.order(
                    f,
                    Order::MoveTo {
                        goal,
                        facing: None,
                        pattern: None,
                        at_slowest,
                    },
                );
            }
            3 => {
                let _ = w.order(f, Order::Face(input.vec2()));
            }
            4 => {
                let points = vec![input.vec2(), input.vec2()];
                let _ = w.order(
                    f,
                    Order::FormAlong {
                        points,
                        facing: None,
                        at_slowest: false,
                    },
                );
            }
            5 => {
                if let Some(&u) = units.get(usize::from(input.u8())) {
                    w.remove_unit(u);
                }
            }
            6 => {
                let (goal, threat) = (input.vec2(), input.vec2());
                let _ = w.order(
                    f,
                    Order::BoundingOverwatch {
                        goal,
                        threat,
                        settings: Default::default(),
                    },
                );
            }
            7 => {
                let _ = w.order(f, Order::Halt);
            }
            _ => {
                let dt = input.f32();
                for _ in 0..=(input.u8() % 8) {
                    w.step(dt);
                    check_world_finite(&w)?;
                }
            }
        }
    }
    for _ in 0..10 {
        w.step(1.0 / 30.0);
    }
    check_world_finite(&w)
}
