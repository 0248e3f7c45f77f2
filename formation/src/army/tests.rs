//! Tests of the standard army: its layout, its groups and its march.

use super::*;

#[test]
fn an_army_without_obstacles_has_an_open_map_of_the_same_size() {
    let open = ArmySpec {
        obstacles: false,
        ..ArmySpec::default()
    }
    .map();
    let strewn = ArmySpec::default().map();
    assert!(open.circles.is_empty() && open.polygons.is_empty() && open.walls.is_empty());
    assert!(!strewn.circles.is_empty() && !strewn.polygons.is_empty());
    assert!(!strewn.walls.is_empty());
    assert_eq!((open.min, open.max), (strewn.min, strewn.max));
}

#[test]
fn army_has_the_units_asked_for_in_squads_of_8_to_16() {
    let army = build_army(
        &ArmySpec {
            units: 1000,
            ..ArmySpec::default()
        },
        WorldSettings::default(),
    )
    .unwrap();
    assert_eq!(army.world.unit_count(), 1000);
    let mut leaf_sizes = Vec::new();
    for (_, f) in army.world.formations() {
        let units = f
            .members
            .iter()
            .filter(|m| matches!(m, Member::Unit(_)))
            .count();
        if units > 0 {
            leaf_sizes.push(units);
        }
    }
    let last = leaf_sizes.pop().unwrap();
    assert!(leaf_sizes.iter().all(|n| (8..=16).contains(n)));
    assert!((1..=16).contains(&last));
    assert_eq!(army.platoons.len(), (leaf_sizes.len() + 1).div_ceil(4));
    assert!(
        build_army(
            &ArmySpec {
                units: 0,
                ..ArmySpec::default()
            },
            WorldSettings::default()
        )
        .is_err()
    );
}

/// Every unit stands on the map.
fn assert_on_map(world: &World) {
    let map = world.map();
    for (_, u) in world.units() {
        let p = u.body.position;
        assert!(
            p.cmpge(map.min).all() && p.cmple(map.max).all(),
            "{p} off the map"
        );
    }
}

/// Two units of the army overlap (brute force; small armies only).
fn overlaps(world: &World) -> usize {
    let bodies: Vec<Body> = world.units().map(|(_, u)| u.body).collect();
    let mut n = 0;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            if (a.position - b.position).length() < a.radius + b.radius {
                n += 1;
            }
        }
    }
    n
}

/// `units` on a 200 m map in an open field (among trees, a unit placed on one is pushed
/// out of it, perhaps onto a neighbour, so every overlap is the layout's).
fn open_200m(units: usize) -> Army {
    let spec = ArmySpec {
        units,
        map_size: 200.0,
        march: 50.0,
        obstacles: false,
        ..ArmySpec::default()
    };
    build_army(&spec, WorldSettings::default()).unwrap()
}

#[test]
fn army_starts_in_formation_without_overlaps() {
    // A 200 m map holds about 70 platoons at the standard pitch: 3,000 units fill most of
    // its western part, as 100,000 fill the 1 km map's.
    let mut army = open_200m(3000);
    assert_eq!(overlaps(&army.world), 0);
    assert_on_map(&army.world);
    // Every unit stands on the slot it is given (the squads' boxes, the platoons' box).
    army.world.step(0.05);
    let (mut worst, mut sum) = (0.0f32, 0.0f32);
    for (_, u) in army.world.units() {
        let t = u.slot_target.expect("every unit has a slot");
        let e = (t.position - u.body.position).length();
        worst = worst.max(e);
        sum += e;
    }
    let mean = sum / army.world.unit_count() as f32;
    assert!(
        mean < 0.05 && worst < 0.5,
        "slot error mean {mean} worst {worst}"
    );
}

#[test]
fn an_army_too_large_for_its_map_is_packed_onto_it() {
    // Twice what the 200 m map holds at the standard pitch.
    let army = open_200m(6000);
    assert_eq!(army.world.unit_count(), 6000);
    // The platoons touch (some units overlap) but stay on the map.
    assert!(
        overlaps(&army.world) > 0,
        "not packed closer than the pitch"
    );
    assert_on_map(&army.world);
}

#[test]
fn groups_hold_the_same_units_on_the_same_spots() {
    let spec = ArmySpec {
        units: 300,
        ..ArmySpec::default()
    };
    let standard = build_army(&spec, WorldSettings::default()).unwrap();
    let spots = |w: &World| -> Vec<(Vec2, f32)> {
        w.units()
            .map(|(_, u)| (u.body.position, u.body.max_speed))
            .collect()
    };
    for n in [1, 4, 7] {
        let grouped = build_army(
            &ArmySpec {
                group_size: Some(n),
                ..spec.clone()
            },
            WorldSettings::default(),
        )
        .unwrap();
        assert_eq!(spots(&grouped.world), spots(&standard.world), "{n}");
        // Each squad in runs of n: a group never spans two squads.
        let squads: Vec<usize> = standard
            .world
            .formations()
            .filter(|(_, f)| f.parent.is_some())
            .map(|(_, f)| f.members.len())
            .collect();
        let runs: usize = squads.iter().map(|&s| s.div_ceil(n)).sum();
        assert_eq!(grouped.platoons.len(), runs, "{n}");
        for (_, f) in grouped.world.formations() {
            assert!(f.parent.is_none() && f.members.len() <= n);
            let of_squads: std::collections::BTreeSet<_> = f
                .members
                .iter()
                .map(|m| match m {
                    Member::Unit(u) => squad_of(&standard.world, grouped.world.unit(*u)),
                    Member::Formation(_) => None,
                })
                .collect();
            assert_eq!(
                of_squads.len(),
                1,
                "{n}: a group spans squads {of_squads:?}"
            );
            assert!(!of_squads.contains(&None), "{n}");
        }
    }
    for bad in [0, MAX_GROUP_SIZE + 1] {
        let spec = ArmySpec {
            group_size: Some(bad),
            ..spec.clone()
        };
        assert!(build_army(&spec, WorldSettings::default()).is_err());
    }
}

/// The standard army's squad (by name) whose unit stands where `unit` does.
fn squad_of(standard: &World, unit: Option<crate::world::UnitRef<'_>>) -> Option<String> {
    let at = unit?.body.position;
    standard.formations().find_map(|(_, f)| {
        f.parent?;
        f.members
            .iter()
            .any(|m| matches!(m, Member::Unit(u) if standard.unit(*u).is_some_and(|u| u.body.position == at)))
            .then(|| f.name.clone())
    })
}

#[test]
fn army_marches() {
    let mut army = build_army(
        &ArmySpec {
            units: 300,
            ..ArmySpec::default()
        },
        WorldSettings::default(),
    )
    .unwrap();
    let start: Vec<Vec2> = army.world.units().map(|(_, u)| u.body.position).collect();
    for _ in 0..100 {
        army.world.step(0.05);
    }
    let moved: Vec<f32> = army
        .world
        .units()
        .zip(&start)
        .map(|((_, u), s)| u.body.position.x - s.x)
        .collect();
    let mean = moved.iter().sum::<f32>() / moved.len() as f32;
    assert!(mean > 3.0, "mean march east {mean}");
}
