//! Two squads meeting head-on in a corridor barely wider than two files of their units: each
//! closes up to its half of the corridor and steps to its right, and they pass. A formation
//! steps right until its side is a tenth of a metre from the wall; asking for a whole metre
//! of room there, as it did, neither squad stepped aside in a 4 m corridor and they pushed
//! through each other's files for minutes. And it starts stepping aside as far ahead as if
//! both were twice as deep: closed up to one file each in a 3 m corridor, their fronts met
//! before they stepped aside, and they stood pressed against each other for good. Squads that
//! come to the corridor while an oncoming one is deep in it wait short of it. While two pass,
//! the units of each keep to their side of the line between them.

mod gap_support;

use cohort::formation::{FormationId, World};
use cohort::steering::Vec2;
use gap_support::{corridor, deepest_overlap};

const DT: f32 = 0.1;
/// The walkers' top speed (m/s).
const SPEED: f32 = 1.3;

/// A box squad of `n` walkers round `at`, ordered to `goal`.
fn squad(world: &mut World, n: usize, at: Vec2, goal: Vec2) -> FormationId {
    gap_support::squad(world, n, at, goal, SPEED)
}

/// A squad of 50 from each end of a `width` corridor at each of `rows` (y; 30 is in line with
/// the corridor), all ordered through it at once to the other end (160 m away): the seconds
/// until all hold at their goals (none more than 5 % of their radii into another, looked at
/// every second; a panic after `limit` seconds), and whether any squad waited short of the
/// corridor for an oncoming one to come out.
fn from_each_end(width: f32, rows: &[f32], limit: f32) -> (f32, bool) {
    from_each_end_moved(width, rows, 0.0, limit)
}

/// [`from_each_end`] with every squad standing `shift` metres further east.
fn from_each_end_moved(width: f32, rows: &[f32], shift: f32, limit: f32) -> (f32, bool) {
    let mut world = corridor(width);
    let mut squads = Vec::new();
    for &y in rows {
        squads.push(squad(
            &mut world,
            50,
            Vec2::new(20.0 + shift, y),
            Vec2::new(180.0, y),
        ));
        squads.push(squad(
            &mut world,
            50,
            Vec2::new(180.0 + shift, y),
            Vec2::new(20.0, y),
        ));
    }
    // Whether a squad is bound east (it started west of the corridor).
    let east = |k: usize| k % 2 == 0;
    let mut deepest: f32 = 0.0;
    let mut waited_for_oncoming = false;
    for tick in 0..(limit / DT) as u32 {
        world.step(DT);
        for (k, &f) in squads.iter().enumerate() {
            let squad = world.formation(f).expect("squad");
            let to = squad.gives_way_to().filter(|_| squad.waits_at_passage());
            if let Some(j) = to.and_then(|to| squads.iter().position(|&s| s == to)) {
                waited_for_oncoming |= east(k) != east(j);
            }
        }
        if tick % 10 == 0 {
            deepest = deepest.max(deepest_overlap(&world));
        }
        if squads
            .iter()
            .all(|&f| world.formation(f).is_some_and(|f| f.is_holding()))
        {
            assert!(deepest <= 0.05, "deepest overlap {deepest}");
            return ((tick + 1) as f32 * DT, waited_for_oncoming);
        }
    }
    panic!("in a {width} m corridor the squads had not all arrived after {limit} s");
}

/// Two squads of 50 ordered through a `width` corridor from opposite ends (164 s at their
/// cruise speed): the seconds until both hold at their goals (see [`from_each_end`]).
fn pass_in(width: f32, limit: f32) -> f32 {
    from_each_end(width, &[30.0], limit).0
}

/// A 3 m corridor: one file of 1 m units each, touching the walls (they passed in 181 s;
/// they locked for good before a sidestep looked twice as far ahead).
#[test]
fn squads_pass_head_on_in_a_3_m_corridor() {
    pass_in(3.0, 230.0);
}

/// A 4 m corridor: two files of 1 m units fit with a metre between them (they passed in 174 s;
/// 405 s before formations stepped right up to a tenth of a metre from the wall, 180 s
/// before a sidestep looked twice as far ahead).
#[test]
fn squads_pass_head_on_in_a_4_m_corridor() {
    pass_in(4.0, 230.0);
}

/// A 5 m corridor (they passed in 173 s).
#[test]
fn squads_pass_head_on_in_a_5_m_corridor() {
    pass_in(5.0, 230.0);
}

/// Three squads of 50 from each end of a `width` corridor (one in line with it, two 15 m to
/// either side; see [`from_each_end`]).
fn three_from_each_end(width: f32, limit: f32) -> (f32, bool) {
    from_each_end(width, &[30.0, 15.0, 45.0], limit)
}

/// A 3 m corridor holds one file each way. The two squads in line with it enter together and
/// pass each other; each of the others waits short of the corridor while an oncoming squad
/// is deep in it, so it never meets an oncoming front at its own mouth, where its rear is
/// still filing in from its box. All six arrive (in 394 s; before squads waited at the
/// mouth, the squads met there spread across the corridor, pressed into each other and
/// stood for good).
#[test]
fn three_squads_from_each_end_of_a_3_m_corridor_all_pass() {
    let (_, waited) = three_from_each_end(3.0, 520.0);
    assert!(waited, "no squad waited for an oncoming one");
}

/// Two squads from each end of a 3 m corridor, every squad 5 cm east of where the test above
/// puts it. The two in line with the corridor meet in it, each closed up to one file, its
/// rear members many metres behind their slots and spread across the corridor by their
/// squad-mates; their units keep to their own side of the line between the two formations,
/// so the two files walk past each other (in 400 s). Before they did, the two crowds filled
/// the corridor from wall to wall, face to face, and held each other for good.
#[test]
fn two_squads_from_each_end_of_a_3_m_corridor_pass_when_moved_a_little() {
    from_each_end_moved(3.0, &[30.0, 15.0], 0.05, 520.0);
}

/// A 4 m corridor holds a third file, and squads squeeze past each other at its mouths:
/// none waits there for an oncoming one (waiting made them slower: 383 s against 291 s).
#[test]
fn three_squads_from_each_end_of_a_4_m_corridor_pass_without_waiting() {
    let (_, waited) = three_from_each_end(4.0, 360.0);
    assert!(!waited, "a squad waited for an oncoming one");
}

/// A 6 m corridor holds two files each way. Closed up for the corridor, a squad's ranks follow
/// each other 2.1 radii apart (`ValidPattern::narrowed_one_way`), as they do passing an
/// oncoming squad where its half holds its file with room to spare: all six squads hold at
/// their goals in 207 s (240 s with the ranks 2.5 radii apart).
#[test]
fn three_squads_from_each_end_of_a_6_m_corridor_pass_closely_ranked() {
    three_from_each_end(6.0, 225.0);
}

/// The spacing a squad closes up to: 2.1 radii alone in a passage and passing an oncoming
/// squad in a 4 m corridor, 2.5 passing one in a 3 m corridor (the two files brush past
/// each other there, and closer ranks were pressed into each other up to 10 % of their
/// radii).
#[test]
fn ranks_close_up_tighter_unless_passing_with_no_room_beside_their_file() {
    let spacing_while = |width: f32, oncoming: bool| -> f32 {
        let mut world = corridor(width);
        let f = squad(
            &mut world,
            50,
            Vec2::new(20.0, 30.0),
            Vec2::new(180.0, 30.0),
        );
        if oncoming {
            squad(
                &mut world,
                50,
                Vec2::new(180.0, 30.0),
                Vec2::new(20.0, 30.0),
            );
        }
        for _ in 0..(120.0 / DT) as u32 {
            world.step(DT);
            let squad = world.formation(f).expect("squad");
            // In the corridor's middle (where the two pass, when there are two).
            if squad.anchor.position.x > 95.0 && squad.in_column {
                return squad.pattern().spacing();
            }
        }
        panic!("the squad did not reach the corridor's middle closed up");
    };
    let alone = spacing_while(3.0, false);
    let passing = spacing_while(3.0, true);
    let passing_wider = spacing_while(4.0, true);
    assert!((alone - 1.05).abs() < 1e-4, "alone: {alone}");
    assert!((passing - 1.25).abs() < 1e-4, "passing: {passing}");
    assert!(
        (passing_wider - 1.05).abs() < 1e-4,
        "passing in 4 m: {passing_wider}"
    );
}
