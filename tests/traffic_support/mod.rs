//! The generator of the traffic scenarios in `scenarios/traffic/`: the files are made by
//! `cargo run --example traffic_scenarios`, and `tests/traffic.rs` checks that they are what
//! this code makes. Plain text, so the files stay readable: one line per single unit or
//! formation, one per order.

use std::f64::consts::TAU;
use std::fmt::Write;

/// A pedestrian of the crowd cases: radius 0.5, 1.3 m/s.
const WALKER: &str = r#""walker": (radius: 0.5, max_speed: 1.3)"#;
/// RVO2's Circle agents: radius 1.5, top speed 2.
const CIRCLE_AGENT: &str = r#""agent": (radius: 1.5, max_speed: 2.0)"#;
/// RVO2's Blocks agents: radius 2, top speed 2.
const BLOCKS_AGENT: &str = r#""agent": (radius: 2.0, max_speed: 2.0)"#;
/// Seconds per tick of every traffic scenario.
const DT: &str = "0.1";

/// The corridor's sides: 160 m long, 16 m wide between y = 4 and y = 20.
const CORRIDOR_MAP: &str = r#"(
        min: (0.0, 0.0), max: (160.0, 24.0),
        polygons: [
            (points: [(0.0, 0.0), (160.0, 0.0), (160.0, 4.0), (0.0, 4.0)]),
            (points: [(0.0, 20.0), (160.0, 20.0), (160.0, 24.0), (0.0, 24.0)]),
        ],
    )"#;

/// RVO2's Blocks: four 30 m square blocks around the origin.
const BLOCKS_MAP: &str = r#"(
        min: (-110.0, -110.0), max: (110.0, 110.0),
        polygons: [
            (points: [(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)]),
            (points: [(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)]),
            (points: [(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)]),
            (points: [(-10.0, -40.0), (-10.0, -10.0), (-40.0, -10.0), (-40.0, -40.0)]),
        ],
    )"#;

/// Every traffic scenario: (file name without `.ron`, its text).
pub fn scenarios() -> Vec<(&'static str, String)> {
    vec![
        ("circle", circle()),
        ("blocks_singles", blocks_singles()),
        ("blocks_squads", blocks_squads()),
        ("corridor_head_on", corridor_head_on()),
        ("corridor_two_way", corridor_two_way()),
        ("crossing", crossing()),
        ("chokepoint", chokepoint()),
        ("rally", rally()),
    ]
}

fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    if s == "-0.000" { "0.000".to_owned() } else { s }
}

fn pair(x: f64, y: f64) -> String {
    format!("({}, {})", num(x), num(y))
}

/// A formation of one.
struct Single {
    name: String,
    start: (f64, f64),
    goal: (f64, f64),
}

/// A formation of several in a box.
struct Squad {
    name: String,
    units: u32,
    spacing: Option<f64>,
    start: (f64, f64),
    goal: (f64, f64),
    facing: (f64, f64),
}

#[allow(clippy::too_many_arguments)]
fn file(
    comment: &str,
    name: &str,
    description: &str,
    duration: u64,
    map: &str,
    template: &str,
    singles: &[Single],
    squads: &[Squad],
) -> String {
    let mut s = String::new();
    for line in comment.lines() {
        let _ = writeln!(s, "// {line}");
    }
    let _ = writeln!(
        s,
        "// Made by `cargo run --example traffic_scenarios`; do not edit by hand."
    );
    let _ = writeln!(s, "(");
    let _ = writeln!(s, "    name: \"{name}\",");
    let _ = writeln!(s, "    description: \"{description}\",");
    let _ = writeln!(s, "    seed: 1,");
    let _ = writeln!(s, "    dt: {DT},");
    let _ = writeln!(s, "    duration: {duration},");
    let _ = writeln!(s, "    map: {map},");
    let _ = writeln!(s, "    templates: {{ {template} }},");
    let tname = template.split('"').nth(1).unwrap_or("default");
    let _ = writeln!(s, "    formations: [");
    for u in singles {
        let _ = writeln!(
            s,
            "        (name: \"{}\", position: {}, units: 1, template: \"{tname}\"),",
            u.name,
            pair(u.start.0, u.start.1)
        );
    }
    for q in squads {
        let spacing = q
            .spacing
            .map_or_else(String::new, |v| format!(" spacing: {},", num(v)));
        let _ = writeln!(
            s,
            "        (name: \"{}\", pattern: Kind(Box),{spacing} position: {}, facing: {}, units: {}, template: \"{tname}\"),",
            q.name,
            pair(q.start.0, q.start.1),
            pair(q.facing.0, q.facing.1),
            q.units
        );
    }
    let _ = writeln!(s, "    ],");
    let _ = writeln!(s, "    timeline: [");
    for u in singles {
        let _ = writeln!(
            s,
            "        (tick: 0, formation: \"{}\", order: MoveTo(goal: {})),",
            u.name,
            pair(u.goal.0, u.goal.1)
        );
    }
    for q in squads {
        let _ = writeln!(
            s,
            "        (tick: 0, formation: \"{}\", order: MoveTo(goal: {}, facing: {})),",
            q.name,
            pair(q.goal.0, q.goal.1),
            pair(q.facing.0, q.facing.1)
        );
    }
    let _ = writeln!(s, "    ],");
    let _ = writeln!(s, ")");
    s
}

/// RVO2's Circle: 250 agents on a circle of radius 200, each to its antipode.
fn circle() -> String {
    let singles: Vec<Single> = (0..250)
        .map(|i| {
            let a = i as f64 * TAU * 0.004;
            let (x, y) = (200.0 * a.cos(), 200.0 * a.sin());
            // Round first so the goal is exactly the start's antipode as written.
            let (x, y) = (num(x).parse().unwrap_or(x), num(y).parse().unwrap_or(y));
            Single {
                name: format!("u{i:03}"),
                start: (x, y),
                goal: (-x, -y),
            }
        })
        .collect();
    file(
        "RVO2's Circle example: 250 agents (radius 1.5, top speed 2) evenly on a circle of\n\
         radius 200, each its own formation of one, each going to its antipode. RVO2 (dodgy_2d)\n\
         gets all of them there in 369 s; the duration is 1.5 times that.",
        "circle",
        "250 singles on a circle of radius 200 swap to their antipodes.",
        5540,
        "(min: (-215.0, -215.0), max: (215.0, 215.0))",
        CIRCLE_AGENT,
        &singles,
        &[],
    )
}

/// The four corner groups of RVO2's Blocks: (start of the group's near corner, direction
/// outwards along x and y).
const BLOCK_CORNERS: [(f64, f64); 4] = [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)];

/// RVO2's Blocks as 100 singles: each 5 × 5 group (spacing 10) crosses diagonally to the
/// opposite corner, each unit to the mirror of its start through the origin.
fn blocks_singles() -> String {
    let mut singles = Vec::new();
    for i in 0..5u32 {
        for j in 0..5u32 {
            for (k, &(sx, sy)) in BLOCK_CORNERS.iter().enumerate() {
                let x = sx * (55.0 + 10.0 * f64::from(i));
                let y = sy * (55.0 + 10.0 * f64::from(j));
                singles.push(Single {
                    name: format!("u{}", i * 20 + j * 4 + k as u32),
                    start: (x, y),
                    goal: (-x, -y),
                });
            }
        }
    }
    file(
        "RVO2's Blocks example as 100 singles (radius 2, top speed 2): four 5 x 5 groups\n\
         (spacing 10) in the corners cross diagonally through four 30 m blocks, each unit to\n\
         the mirror of its start through the origin (RVO2 sends a whole group to one point; a\n\
         unit needs a spot of its own to arrive). RVO2 (dodgy_2d): all in 568 s; the duration\n\
         is 1.5 times that.",
        "blocks_singles",
        "RVO2's Blocks: 100 singles cross diagonally between four blocks.",
        8520,
        BLOCKS_MAP,
        BLOCKS_AGENT,
        &singles,
        &[],
    )
}

/// RVO2's Blocks as four box formations of 25 (spacing 10) on the same lattice spots.
fn blocks_squads() -> String {
    let names = ["ne", "nw", "se", "sw"];
    let squads: Vec<Squad> = BLOCK_CORNERS
        .iter()
        .zip(names)
        .map(|(&(sx, sy), name)| Squad {
            name: name.to_owned(),
            units: 25,
            spacing: Some(10.0),
            // The anchor is the centre of the box's slots.
            start: (sx * 75.0, sy * 75.0),
            goal: (-sx * 75.0, -sy * 75.0),
            facing: (-sx, 0.0),
        })
        .collect();
    file(
        "RVO2's Blocks example as four box formations of 25 (radius 2, top speed 2, spacing 10):\n\
         each starts on its corner group's lattice and crosses to the opposite corner through\n\
         four 30 m blocks. The duration is 1.5 times RVO2's 568 s for the singles.",
        "blocks_squads",
        "RVO2's Blocks as four box formations of 25 crossing diagonally.",
        8520,
        BLOCKS_MAP,
        BLOCKS_AGENT,
        &[],
        &squads,
    )
}

/// Two boxes of 100 (10 × 10, spacing 1.5, centred on their anchors) meet head-on in a 16 m
/// corridor and swap places.
fn corridor_head_on() -> String {
    let squads = [
        Squad {
            name: "eastbound".to_owned(),
            units: 100,
            spacing: None,
            start: (30.0, 12.0),
            goal: (130.0, 12.0),
            facing: (1.0, 0.0),
        },
        Squad {
            name: "westbound".to_owned(),
            units: 100,
            spacing: None,
            start: (130.0, 12.0),
            goal: (30.0, 12.0),
            facing: (-1.0, 0.0),
        },
    ];
    file(
        "Two box formations of 100 walkers (radius 0.5, 1.3 m/s, 10 x 10 at spacing 1.5) meet\n\
         head-on in a corridor 16 m wide and 160 m long; each marches 100 m to where the other\n\
         started.",
        "corridor_head_on",
        "Two formations of 100 meet head-on in a 16 m corridor.",
        3000,
        CORRIDOR_MAP,
        WALKER,
        &[],
        &squads,
    )
}

/// The head-on corridor's 200 walkers as singles on the same spots, each to its own goal.
fn corridor_two_way() -> String {
    let mut singles = Vec::new();
    for (prefix, centre, dir) in [("e", 30.0, 1.0), ("w", 130.0, -1.0)] {
        for row in 0..10 {
            for col in 0..10 {
                let x = centre + dir * 1.5 * (4.5 - f64::from(row));
                let y = 12.0 + (4.5 - f64::from(col)) * 1.5;
                singles.push(Single {
                    name: format!("{prefix}{:03}", row * 10 + col),
                    start: (x, y),
                    goal: (x + dir * 100.0, y),
                });
            }
        }
    }
    file(
        "Two-way traffic of individuals: the 200 walkers of corridor_head_on (radius 0.5,\n\
         1.3 m/s) on the same spots, each its own formation of one, each walking 100 m along the\n\
         16 m corridor, half of them each way.",
        "corridor_two_way",
        "200 singles, 100 each way, in a 16 m corridor.",
        3000,
        CORRIDOR_MAP,
        WALKER,
        &singles,
        &[],
    )
}

/// Two boxes of 100 cross at right angles in the open, both reaching the crossing together.
fn crossing() -> String {
    let squads = [
        Squad {
            name: "eastbound".to_owned(),
            units: 100,
            spacing: None,
            start: (30.0, 80.0),
            goal: (130.0, 80.0),
            facing: (1.0, 0.0),
        },
        Squad {
            name: "northbound".to_owned(),
            units: 100,
            spacing: None,
            start: (80.0, 30.0),
            goal: (80.0, 130.0),
            facing: (0.0, 1.0),
        },
    ];
    file(
        "Two box formations of 100 walkers (radius 0.5, 1.3 m/s) cross at right angles on an\n\
         open field; both fronts reach the crossing point together.",
        "crossing",
        "Two formations of 100 cross at right angles.",
        3000,
        "(min: (0.0, 0.0), max: (160.0, 160.0))",
        WALKER,
        &[],
        &squads,
    )
}

/// Twenty boxes of 50 walkers, four columns by five rows, through one 4 m gap in a wall.
fn chokepoint() -> String {
    let mut squads = Vec::new();
    for (c, x) in [88.0, 74.0, 60.0, 46.0].into_iter().enumerate() {
        for (r, y) in [28.0, 44.0, 60.0, 76.0, 92.0].into_iter().enumerate() {
            squads.push(Squad {
                name: format!("s{:02}", c * 5 + r),
                units: 50,
                spacing: None,
                start: (x, y),
                goal: (x + 80.0, y),
                facing: (1.0, 0.0),
            });
        }
    }
    file(
        "20 box formations of 50 walkers (radius 0.5, 1.3 m/s) in four columns of five west of a\n\
         wall, each ordered 80 m east to the same spot on the other side; the only way through is\n\
         one gap 4 m wide.",
        "chokepoint",
        "20 squads of 50 through one 4 m gap.",
        12000,
        r#"(
        min: (0.0, 0.0), max: (200.0, 120.0),
        polygons: [
            (points: [(99.0, 0.0), (101.0, 0.0), (101.0, 58.0), (99.0, 58.0)]),
            (points: [(99.0, 62.0), (101.0, 62.0), (101.0, 120.0), (99.0, 120.0)]),
        ],
    )"#,
        WALKER,
        &[],
        &squads,
    )
}

/// Six boxes of 16 walkers and 24 singles, all ordered to one point: the formations ordered
/// there find ground of their own round it (goals spread, `world/goal_claims.rs`).
fn rally() -> String {
    let centre = (80.0, 80.0);
    let squads: Vec<Squad> = (0..6)
        .map(|i| {
            let a = f64::from(i) * TAU / 6.0;
            Squad {
                name: format!("s{i}"),
                units: 16,
                spacing: None,
                start: (centre.0 + 50.0 * a.cos(), centre.1 + 50.0 * a.sin()),
                goal: centre,
                facing: (1.0, 0.0),
            }
        })
        .collect();
    let singles: Vec<Single> = (0..24)
        .map(|i| {
            let a = (f64::from(i) + 0.5) * TAU / 24.0;
            Single {
                name: format!("u{i:02}"),
                start: (centre.0 + 40.0 * a.cos(), centre.1 + 40.0 * a.sin()),
                goal: centre,
            }
        })
        .collect();
    file(
        "Six box formations of 16 walkers (radius 0.5, 1.3 m/s) 50 m round a point and 24\n\
         singles 40 m round it, all ordered to that point on an open field (a player's rally\n\
         point). Each formation takes the nearest ground round it that no other has claimed.",
        "rally",
        "Six squads and 24 singles ordered to one point.",
        3000,
        "(min: (0.0, 0.0), max: (160.0, 160.0))",
        WALKER,
        &singles,
        &squads,
    )
}
