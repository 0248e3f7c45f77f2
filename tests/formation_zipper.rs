//! Merging in turn, measured: two streams of formations meet at a wall's end, one marching
//! straight on along the map's edge, the other, in columns of two, coming round the wall's
//! end into the same lane. With queueing they take turns (like the teeth of a zipper, never
//! more than two of one stream in a row) and pass as fast as without queueing, where right
//! of way alone lets three of one stream through in a row. (While right of way also took
//! turns at such a shallow meeting, they alternated strictly; but in the standard army's
//! march, formations slowing for stop lines at shallow meetings far ahead held up the
//! formations behind them: see `docs/traffic.md`.)

use cohort::formation::pattern::{Pattern, PatternKind};
use cohort::formation::{
    FormationId, FormationSettings, FormationSpec, Member, Order, World, WorldSettings,
};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2, Wall};

const DT: f32 = 1.0 / 30.0;
const RADIUS: f32 = 0.5;
/// The gap queueing keeps in this scenario (1 m by default).
const QUEUE_GAP: f32 = 2.0;
/// Formations per stream.
const PER_STREAM: usize = 6;
/// Where the wall stands (x) and its southern end (y): the wall runs north from there to
/// the map's northern edge.
const WALL_X: f32 = 60.0;
const WALL_END: f32 = 12.0;
/// The rows the two streams march in (y): the stream along the southern edge passes south
/// of the wall's end; the joiners' row runs into the wall.
const STREAM_Y: f32 = 7.0;
const JOINERS_Y: f32 = 16.0;
/// The line (x) whose crossing order is measured, past the wall.
const LINE_X: f32 = 72.0;

/// A formation of 16 units of top speed 2 in `kind` at `at` facing +x, every unit near its
/// slot.
fn add_group(world: &mut World, at: Vec2, kind: PatternKind, follow_gap: f32) -> FormationId {
    let f = world
        .add_formation(
            FormationSpec {
                pattern: Pattern::for_radius(kind, RADIUS),
                settings: FormationSettings {
                    follow_gap,
                    ..FormationSettings::default()
                },
                ..FormationSpec::default()
            },
            None,
            at,
            Vec2::X,
        )
        .expect("formation");
    for k in 0..16 {
        let offset = Vec2::new((k / 4) as f32 - 1.5, (k % 4) as f32 - 1.5) * 1.6;
        let body = Body::new(at + offset, RADIUS, 2.0, 8.0).expect("body");
        let u = world.add_unit(body).expect("unit");
        world.add_member(f, Member::Unit(u)).expect("member");
    }
    f
}

/// What a run measured: which stream (0 straight on, 1 round the wall's end) each formation
/// came from, in the order they crossed the line, and the second of the last crossing.
#[derive(Debug)]
struct Crossings {
    order: Vec<usize>,
    last: f32,
}

impl Crossings {
    /// How many neighbours in the crossing order come from different streams (one stream
    /// after the other: 1; strictly in turn: one less than the formations).
    fn turns(&self) -> usize {
        self.order.windows(2).filter(|w| w[0] != w[1]).count()
    }

    /// The most formations of one stream that crossed one after another.
    fn longest_run(&self) -> usize {
        self.order
            .chunk_by(|a, b| a == b)
            .map(<[usize]>::len)
            .max()
            .unwrap_or(0)
    }
}

/// The two streams of [`PER_STREAM`] formations each, 8 m apart centre to centre, both
/// ordered east to points in their own rows beyond the wall (the further ahead, the further
/// east), every formation keeping `follow_gap`; every formation starts `dx` metres east of
/// its place.
fn merge_at_wall_end(follow_gap: f32, dx: f32) -> Crossings {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(200.0, 60.0));
    map.walls
        .push(Wall::new(Vec2::new(WALL_X, WALL_END), Vec2::new(WALL_X, 60.0)).expect("wall"));
    let mut world = World::new(map, WorldSettings::default(), 11).expect("world");
    let mut groups = Vec::new();
    for (stream, y, kind) in [
        (0, STREAM_Y, PatternKind::Box),
        (1, JOINERS_Y, PatternKind::Ranks(2)),
    ] {
        for k in 0..PER_STREAM {
            let x = 56.0 - 8.0 * k as f32 + dx;
            let f = add_group(&mut world, Vec2::new(x, y), kind.clone(), follow_gap);
            let goal = Vec2::new(180.0 - 12.0 * k as f32, y);
            world.order(f, Order::move_to(goal)).expect("order");
            groups.push((f, stream));
        }
    }
    let mut order = Vec::new();
    let mut crossed = vec![false; groups.len()];
    let mut last = 0.0;
    for tick in 0..(240.0 / DT) as u32 {
        world.step(DT);
        for (i, &(f, stream)) in groups.iter().enumerate() {
            let x = world.formation(f).expect("formation").anchor.position.x;
            if !crossed[i] && x > LINE_X {
                crossed[i] = true;
                order.push(stream);
                last = (tick + 1) as f32 * DT;
            }
        }
        if crossed.iter().all(|&c| c) {
            break;
        }
    }
    Crossings { order, last }
}

/// Where the formations start, metres east of their places, for the runs that merge freely.
const FREE_STARTS: [f32; 6] = [0.0, 0.05, -0.05, 0.1, -0.1, 0.2];

#[test]
fn streams_merging_at_a_wall_end_pass_in_turn() {
    let zipped = merge_at_wall_end(QUEUE_GAP, 0.0);
    // Merging freely is chaotic: with every formation moved a few centimetres, the same
    // streams took from 69 to 90 s; taking turns, from 72 to 77 s. So the streams taking
    // turns are compared with the mean of free merges from starts moved by up to 20 cm.
    let free: Vec<Crossings> = FREE_STARTS
        .iter()
        .map(|&dx| merge_at_wall_end(0.0, dx))
        .collect();
    let free_mean = free.iter().map(|c| c.last).sum::<f32>() / free.len() as f32;
    eprintln!("merge at a wall's end: queueing {zipped:?}, without queueing {free:?}");
    assert_eq!(zipped.order.len(), 2 * PER_STREAM, "{zipped:?}");
    for f in &free {
        assert_eq!(f.order.len(), 2 * PER_STREAM, "{f:?}");
    }
    // In turn: never more than two of one stream in a row, and more hand-overs than not.
    assert!(zipped.longest_run() <= 2, "{zipped:?}");
    assert!(zipped.turns() > PER_STREAM, "{zipped:?}");
    assert!(free.iter().any(|f| f.longest_run() >= 3), "{free:?}");
    // And no slower than without queueing (a second to spare).
    assert!(
        zipped.last <= free_mean + 1.0,
        "{zipped:?} against a mean of {free_mean} s over {free:?}"
    );
}
