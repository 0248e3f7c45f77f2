//! A platoon of two squads (5 and 6 units in wedges) on an open map, shared by the membership
//! and status tests.

use cohort::formation::{FormationId, FormationSpec, Member, Pattern, PatternKind, UnitId, World};
use cohort::pathing::Map;
use cohort::steering::{Body, Vec2};

/// Time step of the tests.
pub const DT: f32 = 1.0 / 30.0;

/// The platoon and its two squads.
pub struct Platoon {
    pub world: World,
    pub platoon: FormationId,
    pub squads: [FormationId; 2],
}

/// A platoon on a line at (20, 30) facing +x, its squads (5 and 6 units of radius 0.5 and top
/// speed 3) in wedges; the units start in rows near their squad and form up on the first steps.
pub fn platoon() -> Platoon {
    let map = Map::with_bounds(Vec2::ZERO, Vec2::new(120.0, 60.0));
    let mut world = World::new(map, Default::default(), 7).expect("world");
    let squad = Pattern::for_radius(PatternKind::Wedge, 0.5)
        .validate()
        .expect("pattern");
    let spec = |name: &str, pattern: Pattern| FormationSpec {
        name: name.into(),
        pattern,
        ..FormationSpec::default()
    };
    let line = Pattern::for_children(PatternKind::Line, 0.5, [(&squad, 5), (&squad, 6)]);
    let at = Vec2::new(20.0, 30.0);
    let platoon = world
        .add_formation(spec("platoon", line), None, at, Vec2::X)
        .expect("platoon");
    let mut squads = Vec::new();
    for (k, n) in [5, 6].into_iter().enumerate() {
        let s = world
            .add_formation(
                spec(&format!("squad {k}"), squad.pattern().clone()),
                Some(platoon),
                at,
                Vec2::X,
            )
            .expect("squad");
        for i in 0..n {
            let p = at + Vec2::new(-(i as f32), (k as f32 - 0.5) * 8.0);
            let u = world
                .add_unit(Body::new(p, 0.5, 3.0, 8.0).expect("body"))
                .expect("unit");
            world.add_member(s, Member::Unit(u)).expect("member");
        }
        squads.push(s);
    }
    Platoon {
        world,
        platoon,
        squads: [squads[0], squads[1]],
    }
}

/// Every unit of `id`'s subtree.
pub fn units(world: &World, id: FormationId) -> Vec<UnitId> {
    let mut out = Vec::new();
    world.units_in(id, &mut out);
    out
}

/// Steps `world` until `done` holds (checked after each step) or `max` ticks pass; the number
/// of ticks taken, `None` when it never held.
pub fn step_until(
    world: &mut World,
    max: u32,
    mut done: impl FnMut(&World) -> bool,
) -> Option<u32> {
    for t in 1..=max {
        world.step(DT);
        if done(world) {
            return Some(t);
        }
    }
    None
}
