//! Faults while formations move: half a platoon killed, a whole squad removed or
//! wiped out, reinforcements joining, the navgraph replaced. After every step the formation
//! tree is consistent (see `robustness_support::check_membership`), and every survivor
//! arrives at its slot at the goal.

mod robustness_support;

use cohort::formation::pattern::PatternKind;
use cohort::formation::{FormationId, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::{GridSpec, Map, NavGraph};
use cohort::steering::{CircleObstacle, Vec2};
use robustness_support::{
    add_units, body, check_step, max_overlap, max_slot_error, run_until, spec, units_in_obstacles,
    valid,
};

const DT: f32 = 1.0 / 20.0;
const GOAL: Vec2 = Vec2::new(100.0, 60.0);

struct Platoon {
    world: World,
    platoon: FormationId,
    squads: Vec<FormationId>,
    units: Vec<UnitId>,
}

/// A platoon (a line of three wedge squads of six) on a map with a few rocks, ordered to
/// `GOAL` and stepped `ticks` ticks into the move.
fn platoon_moving(ticks: u32) -> Platoon {
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(140.0, 100.0));
    for (x, y) in [(50.0, 35.0), (70.0, 60.0), (60.0, 20.0)] {
        map.circles.push(CircleObstacle {
            center: Vec2::new(x, y),
            radius: 3.0,
        });
    }
    let mut world = World::new(map, WorldSettings::default(), 21).expect("world");
    let start = Vec2::new(15.0, 40.0);
    // Squads are about 5 wide: the platoon's line spaces them 8 apart.
    let mut platoon_spec = spec(PatternKind::Line);
    platoon_spec.pattern.spacing = 8.0;
    let platoon = world
        .add_formation(platoon_spec, None, start, Vec2::X)
        .unwrap();
    let mut squads = Vec::new();
    let mut units = Vec::new();
    for s in 0..3 {
        let at = start + Vec2::new(0.0, 8.0 * (s as f32 - 1.0));
        let mut squad_spec = spec(PatternKind::Wedge);
        squad_spec.name = format!("squad {s}");
        let squad = world
            .add_formation(squad_spec, Some(platoon), at, Vec2::X)
            .unwrap();
        units.extend(add_units(&mut world, squad, 6, |i| {
            at + Vec2::new(-1.2 * (i / 2) as f32, 1.5 * (i % 2) as f32)
        }));
        squads.push(squad);
    }
    world.order(platoon, Order::move_to(GOAL)).unwrap();
    for t in 0..ticks {
        world.step(DT);
        check_step(&world).unwrap_or_else(|e| panic!("tick {t}: {e}"));
    }
    Platoon {
        world,
        platoon,
        squads,
        units,
    }
}

/// Runs until the platoon holds at the goal with every survivor at its slot; asserts the
/// tree and the positions on the way and at the end.
fn assert_all_arrive(p: &mut Platoon, survivors: usize) {
    let root = p.platoon;
    let ticks = run_until(&mut p.world, DT, 4000, |w| {
        w.formation(root).is_some_and(|f| f.is_holding()) && max_slot_error(w, root) < 0.5
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}; slot error {}, anchor {:?}",
            max_slot_error(&p.world, root),
            p.world.formation(root).map(|f| f.anchor.position)
        )
    });
    let mut in_tree = Vec::new();
    p.world.units_in(root, &mut in_tree);
    assert_eq!(in_tree.len(), survivors, "units in the platoon's tree");
    assert_eq!(p.world.unit_count(), survivors, "units in the world");
    let anchor = p.world.formation(root).unwrap().anchor.position;
    assert!((anchor - GOAL).length() < 0.5, "anchor {anchor}");
    assert!(
        max_overlap(&p.world) < 0.05,
        "overlap {}",
        max_overlap(&p.world)
    );
    let map = valid(p.world.map());
    assert!(units_in_obstacles(&p.world, &map, 0.05).is_empty());
    assert!(ticks > 0);
}

#[test]
fn the_platoon_arrives_without_faults() {
    let mut p = platoon_moving(0);
    assert_all_arrive(&mut p, 18);
}

/// Every other unit of the platoon dies mid-move: the squads close up and all nine
/// survivors arrive.
#[test]
fn half_the_platoon_killed_mid_move_the_rest_arrive() {
    let mut p = platoon_moving(200);
    let dead: Vec<UnitId> = p.units.iter().copied().step_by(2).collect();
    for &u in &dead {
        assert!(p.world.remove_unit(u).is_some());
    }
    check_step(&p.world).err(); // members were removed; slots are laid out at the next step
    p.world.step(DT);
    check_step(&p.world).unwrap();
    for s in &p.squads {
        assert_eq!(p.world.formation(*s).unwrap().slots().len(), 3);
    }
    assert_all_arrive(&mut p, 9);
}

/// A squad is removed (disbanded) mid-move: its six units join the platoon directly and
/// everybody arrives.
#[test]
fn a_squad_removed_mid_move_its_units_join_the_platoon_and_arrive() {
    let mut p = platoon_moving(200);
    let gone = p.squads[1];
    let removed = p.world.remove_formation(gone).expect("the squad existed");
    // Its members moved out (up into the platoon) before it was dropped.
    assert!(removed.members.is_empty());
    let direct = p
        .world
        .formation(p.platoon)
        .unwrap()
        .members
        .iter()
        .filter(|m| matches!(m, Member::Unit(_)))
        .count();
    assert_eq!(direct, 6);
    assert_all_arrive(&mut p, 18);
}

/// A whole squad is wiped out mid-move: its empty formation stays in the tree; the rest of
/// the platoon goes on and arrives.
#[test]
fn a_squad_wiped_out_mid_move_the_rest_arrive() {
    let mut p = platoon_moving(200);
    let mut dead = Vec::new();
    p.world.units_in(p.squads[0], &mut dead);
    for u in dead {
        assert!(p.world.remove_unit(u).is_some());
    }
    assert!(p.world.formation(p.squads[0]).unwrap().members.is_empty());
    assert_all_arrive(&mut p, 12);
}

/// Reinforcements spawn at the start and join each squad mid-move: they catch up and all
/// arrive.
#[test]
fn reinforcements_added_mid_move_catch_up_and_arrive() {
    let mut p = platoon_moving(200);
    for (i, &s) in p.squads.clone().iter().enumerate() {
        for k in 0..2 {
            let u = p
                .world
                .add_unit(body(Vec2::new(
                    10.0,
                    30.0 + 8.0 * i as f32 + 1.5 * k as f32,
                )))
                .unwrap();
            p.world.add_member(s, Member::Unit(u)).unwrap();
        }
    }
    p.world.step(DT);
    check_step(&p.world).unwrap();
    for s in &p.squads {
        assert_eq!(p.world.formation(*s).unwrap().slots().len(), 8);
    }
    assert_all_arrive(&mut p, 24);
}

/// The navgraph is replaced mid-move (rebuilt coarser, as a game would after the map
/// changed): moving formations re-plan from where they are and arrive.
#[test]
fn the_navgraph_replaced_mid_move_formations_replan_and_arrive() {
    let mut p = platoon_moving(200);
    let map = valid(p.world.map());
    let spec = GridSpec {
        spacing: 2.0,
        clearance_cap: 16.0,
        ..GridSpec::default()
    };
    let coarse = NavGraph::from_map(&map, &spec).unwrap();
    let nodes = coarse.node_count();
    p.world.set_navgraph(coarse);
    assert_eq!(p.world.navgraph().node_count(), nodes);
    let path = &p.world.formation(p.platoon).unwrap().path;
    assert!(path.len() >= 2 && (*path.last().unwrap() - GOAL).length() < 1e-3);
    check_step(&p.world).unwrap();
    assert_all_arrive(&mut p, 18);
}

/// All faults at once, at different ticks, and the run is reproducible bit for bit.
#[test]
fn faults_together_are_deterministic_and_everybody_arrives() {
    let run = || {
        let mut p = platoon_moving(100);
        for &u in p.units.iter().step_by(3) {
            p.world.remove_unit(u);
        }
        for _ in 0..50 {
            p.world.step(DT);
        }
        p.world.remove_formation(p.squads[2]);
        let u = p.world.add_unit(body(Vec2::new(12.0, 40.0))).unwrap();
        p.world.add_member(p.squads[0], Member::Unit(u)).unwrap();
        for _ in 0..50 {
            p.world.step(DT);
        }
        let map = valid(p.world.map());
        let spec = GridSpec {
            clearance_cap: 16.0,
            ..GridSpec::default()
        };
        let graph = NavGraph::from_map(&map, &spec).unwrap();
        p.world.set_navgraph(graph);
        assert_all_arrive(&mut p, 13);
        p.world.state_hash()
    };
    assert_eq!(run(), run());
}
