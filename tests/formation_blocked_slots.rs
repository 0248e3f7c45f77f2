//! Members whose way to their slot is blocked: a slot inside an obstacle is replaced by a
//! stand-in at the obstacle's edge on the formation's side, and a member walks round a
//! squad-mate standing between it and its slot.

use cohort::formation::pattern::{Pattern, PatternKind, Role, Slot};
use cohort::formation::{FormationId, FormationSpec, Member, Order, UnitId, World, WorldSettings};
use cohort::pathing::{Map, PolygonObstacle};
use cohort::steering::{Body, Vec2};

const DT: f32 = 1.0 / 30.0;
const RADIUS: f32 = 0.5;

/// A world on `map` with a standing formation of `pattern` at `anchor` facing +x, and one unit
/// per `(position, role)`.
fn standing(
    map: Map,
    pattern: Pattern,
    anchor: Vec2,
    units: &[(Vec2, Role)],
) -> (World, FormationId, Vec<UnitId>) {
    let mut world = World::new(map, WorldSettings::default(), 5).expect("world");
    let f = world
        .add_formation(
            FormationSpec {
                pattern,
                ..FormationSpec::default()
            },
            None,
            anchor,
            Vec2::X,
        )
        .expect("formation");
    let ids = units
        .iter()
        .map(|&(p, role)| {
            let body = Body::new(p, RADIUS, 2.0, 8.0).expect("body");
            let u = world.add_unit_with_role(body, role).expect("unit");
            world.add_member(f, Member::Unit(u)).expect("member");
            u
        })
        .collect();
    (world, f, ids)
}

fn slot_error(world: &World, u: UnitId) -> f32 {
    let unit = world.unit(u).expect("unit");
    unit.slot_target.map_or(f32::INFINITY, |t| {
        (t.position - unit.body.position).length()
    })
}

/// A line of five (4 m apart) standing beside a block that covers one of its slots: that
/// member's target is a stand-in at the block's edge between the anchor and the slot, which
/// the member reaches; nobody's target lies in the block; everyone else keeps their slot.
#[test]
fn a_slot_inside_a_block_gets_a_stand_in_at_its_edge() {
    let anchor = Vec2::new(30.0, 30.0);
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::new(60.0, 60.0));
    let mut pattern = Pattern::for_radius(PatternKind::Line, RADIUS);
    pattern.spacing = 4.0;
    // The laid-out slots: the block covers the one 8 m to the left (+y) of the anchor.
    let mut slots: Vec<Slot> = Vec::new();
    pattern.validate().expect("pattern").layout(5, &mut slots);
    let left = slots
        .iter()
        .map(|s| anchor + s.offset)
        .max_by(|a, b| a.y.total_cmp(&b.y))
        .expect("slots");
    assert!((left - Vec2::new(30.0, 38.0)).length() < 1e-4, "{left}");
    map.polygons.push(PolygonObstacle {
        points: vec![
            Vec2::new(25.0, 36.0),
            Vec2::new(35.0, 36.0),
            Vec2::new(35.0, 45.0),
            Vec2::new(25.0, 45.0),
        ],
    });
    let starts: Vec<(Vec2, Role)> = (0..5)
        .map(|i| (Vec2::new(27.0, 26.0 + 2.0 * i as f32), Role::Any))
        .collect();
    let (mut world, _, units) = standing(map, pattern, anchor, &starts);
    for _ in 0..30 * 15 {
        world.step(DT);
        for &u in &units {
            let t = world.unit(u).expect("unit").slot_target.expect("target");
            assert!(
                !world.valid_map().is_blocked(t.position, 0.9 * RADIUS),
                "target {} in the block",
                t.position
            );
        }
    }
    let targets: Vec<Vec2> = units
        .iter()
        .map(|&u| {
            world
                .unit(u)
                .expect("unit")
                .slot_target
                .expect("t")
                .position
        })
        .collect();
    // The stand-in: on the block's near edge, straight below the slot.
    let stand_in = targets
        .iter()
        .copied()
        .max_by(|a, b| a.y.total_cmp(&b.y))
        .expect("targets");
    assert!(
        (stand_in - Vec2::new(30.0, 36.0 - RADIUS)).length() < 0.01,
        "{stand_in}"
    );
    for &u in &units {
        assert!(slot_error(&world, u) < RADIUS, "{}", slot_error(&world, u));
    }
}

/// A marching unit whose slot lies straight beyond a squad-mate on its own slot (the roles pin
/// who stands where, so no re-assignment swaps them) walks round the squad-mate to its slot.
/// Pressed straight back by separation it used to stay behind the squad-mate for the whole
/// march.
#[test]
fn a_marching_member_walks_round_a_squad_mate_in_its_way() {
    let anchor = Vec2::new(20.0, 30.0);
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(140.0, 60.0));
    let pattern = Pattern {
        kind: PatternKind::Custom(vec![
            Slot::new(Vec2::ZERO, Role::Leader),
            Slot::new(Vec2::new(4.0, 0.0), Role::Comms),
        ]),
        ..Pattern::for_radius(PatternKind::Line, RADIUS)
    };
    // The leader on its slot at the anchor; the radio operator 4 m behind it, with its slot
    // 4 m ahead of it: the leader stands in the middle of its way, on the line of the march.
    let (mut world, f, units) = standing(
        map,
        pattern,
        anchor,
        &[
            (anchor, Role::Leader),
            (anchor - Vec2::new(4.0, 0.0), Role::Comms),
        ],
    );
    world
        .order(f, Order::move_to(Vec2::new(120.0, 30.0)))
        .expect("order");
    let mut arrived = false;
    for _ in 0..30 * 40 {
        world.step(DT);
        if slot_error(&world, units[1]) < RADIUS {
            arrived = true;
            break;
        }
    }
    let at = |u: UnitId| world.unit(u).expect("unit").body.position;
    let (leader, radio) = (at(units[0]), at(units[1]));
    assert!(
        arrived && radio.x > leader.x,
        "held {} from its slot at {radio}, the leader at {leader}",
        slot_error(&world, units[1])
    );
    // Still on the march: it caught up on the way, not once the formation stood at its goal.
    assert!(radio.x < 110.0, "{radio}");
}
