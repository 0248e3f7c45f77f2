//! Rings of waiting: squads converging on one gap from several sides, each held by another,
//! never all wait. Six squads of 50 west of a wall, ordered through its one 4 m gap: one of
//! them gave way to a squad queued behind it, which waited for it in turn, and both (and the
//! four waiting for them) stood for good. Eight squads of 16 crossing the wall both ways
//! through an 8 m gap: three of them, at the gap's two mouths, each gave way to the next
//! for good. The rings of holds are broken each tick
//! (`formation/src/world/make_way/rings.rs`): every squad gets through, well within the
//! time the gap allows.

mod gap_support;

use cohort::formation::{FormationId, World};
use cohort::steering::Vec2;
use gap_support::{arrived, deepest_overlap, walled};

const DT: f32 = 0.1;
/// The walkers' top speed (m/s).
const SPEED: f32 = 1.3;

/// A box squad of `n` walkers round `at`, ordered to `goal`.
fn squad(world: &mut World, n: usize, at: Vec2, goal: Vec2) -> FormationId {
    gap_support::squad(world, n, at, goal, SPEED)
}

/// Whether some formation gives way to one that, following who gives way to whom, comes
/// back round to it.
fn gives_way_in_a_ring(world: &World, squads: &[FormationId]) -> bool {
    squads.iter().any(|&f| {
        let mut at = f;
        for _ in 0..squads.len() {
            match world.formation(at).and_then(|x| x.gives_way_to()) {
                Some(next) if next == f => return true,
                Some(next) => at = next,
                None => return false,
            }
        }
        false
    })
}

/// Steps `world` until every unit has arrived at its slot with its squad holding at its goal,
/// for at most `limit` seconds: when they were all there, or why not. Asserts that no
/// formation gives way in a ring at any tick and that no two units overlap by more than 5 %
/// of their radii (looked at every second).
fn all_arrive(world: &mut World, squads: &[FormationId], limit: f32) -> Result<f32, String> {
    let mut deepest: f32 = 0.0;
    let ticks = (limit / DT) as u32;
    for tick in 0..ticks {
        world.step(DT);
        let now = (tick + 1) as f32 * DT;
        assert!(
            !gives_way_in_a_ring(world, squads),
            "a ring of giving way at {now:.1} s"
        );
        if tick % 10 == 0 {
            deepest = deepest.max(deepest_overlap(world));
            assert!(deepest <= 0.05, "deepest overlap {deepest} at {now:.1} s");
        }
        if squads.iter().all(|&f| arrived(world, f)) {
            return Ok(now);
        }
    }
    let waiting: Vec<String> = squads
        .iter()
        .filter(|&&f| !arrived(world, f))
        .filter_map(|&f| world.formation(f))
        .map(|f| {
            format!(
                "({:.1}, {:.1}) waiting {}",
                f.anchor.position.x,
                f.anchor.position.y,
                f.is_waiting()
            )
        })
        .collect();
    Err(format!("not all arrived in {limit} s: {waiting:?}"))
}

/// A squad's start and goal (x, y each).
type Trip = ((f32, f32), (f32, f32));

/// Squads of `n` walkers at `layout`'s starts, each ordered to its goal: all arrive within
/// `limit` seconds (see [`all_arrive`]; a panic says why not).
fn layout_arrives(world: &mut World, n: usize, layout: &[Trip], limit: f32) {
    let squads: Vec<FormationId> = layout
        .iter()
        .map(|&((x, y), (gx, gy))| squad(world, n, Vec2::new(x, y), Vec2::new(gx, gy)))
        .collect();
    if let Err(e) = all_arrive(world, &squads, limit) {
        panic!("{e}");
    }
}

/// Six squads in two columns of three a little out of line west of the gap, each ordered
/// to a spot east of the wall (the front column's 48 m beyond it, the rear column's 32 m,
/// 20 m apart): all 300 units through the gap and every squad at its goal within 260 s
/// (they got through in 184 s; the gap passes 300 units at 0.8 units a second per metre in
/// 94 s, and the farthest squad walks about 90 m, 70 s at top speed), no ring of giving way
/// at any tick, and no two units overlapping by more than 5 % of their radii. Before the
/// rings were broken, three squads stood for good after a minute.
#[test]
fn six_squads_at_one_gap_never_all_wait() {
    let mut world = walled(4.0);
    let layout = [
        ((47.8, 48.7), (108.0, 40.0)),
        ((53.0, 57.1), (108.0, 60.0)),
        ((47.7, 72.1), (108.0, 80.0)),
        ((37.1, 46.9), (92.0, 40.0)),
        ((36.4, 62.3), (92.0, 60.0)),
        ((36.9, 76.8), (92.0, 80.0)),
    ];
    layout_arrives(&mut world, 50, &layout, 260.0);
}

/// Eight squads of 16 scattered on both sides of the wall, each ordered to a spot on the
/// other side, through an 8 m gap: all arrive within 260 s (182 s), no ring of giving way at
/// any tick, no two units overlapping by more than 5 %. Before the rings were broken, three
/// squads at the gap's two mouths each gave way to the next from 89 s on, for good.
#[test]
fn squads_crossing_a_gap_both_ways_never_all_wait() {
    let mut world = walled(8.0);
    let layout = [
        ((40.4, 38.0), (93.4, 74.3)),
        ((85.1, 93.6), (35.2, 96.8)),
        ((94.6, 47.5), (29.2, 61.5)),
        ((32.6, 74.8), (79.1, 73.7)),
        ((31.3, 17.5), (81.9, 91.9)),
        ((44.6, 104.9), (82.0, 25.6)),
        ((33.0, 56.0), (87.1, 54.3)),
        ((74.7, 23.8), (40.2, 17.3)),
    ];
    layout_arrives(&mut world, 16, &layout, 260.0);
}
