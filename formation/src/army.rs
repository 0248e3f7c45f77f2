//! The standard army: the world `cohort bench`, the criterion benches and the allocation and
//! parallel-determinism tests step.
//!
//! Squads of 8 to 16 units (the last squad takes what is left) are grouped into platoons of
//! [`ArmySpec::squads_per_platoon`] squads, set out on a grid over the western part of a square
//! map (1 km by default) strewn with trees (circles), buildings (rectangles) and walls, and
//! ordered to march east, so every unit is moving. Everything comes from the seed: the same
//! spec builds the same world bit for bit.

use cohort_pathing::{Map, PolygonObstacle};
use cohort_steering::{Body, CircleObstacle, SimRng, Vec2, Wall};

use crate::error::WorldError;
use crate::formation::{FormationSpec, Member};
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::{Pattern, PatternKind};
use crate::world::{World, WorldSettings};

/// Radius of every unit of the army.
pub const UNIT_RADIUS: f32 = 0.5;

/// What army to build (plain data, the default is the 10,000-unit benchmark army).
#[derive(Clone, Debug, PartialEq)]
pub struct ArmySpec {
    /// Number of units.
    pub units: usize,
    /// Seed of the world and of the layout.
    pub seed: u64,
    /// Side of the square map, metres.
    pub map_size: f32,
    /// Squads per platoon.
    pub squads_per_platoon: usize,
    /// How far east every platoon is ordered to march, metres.
    pub march: f32,
    /// Strew the map with trees, buildings and walls (`false`: an open field).
    pub obstacles: bool,
}

impl Default for ArmySpec {
    fn default() -> Self {
        Self {
            units: 10_000,
            seed: 1,
            map_size: 1000.0,
            squads_per_platoon: 4,
            march: 300.0,
            obstacles: true,
        }
    }
}

impl ArmySpec {
    /// The army's map ([`army_map`] seeded from [`ArmySpec::seed`]).
    pub fn map(&self) -> Map {
        army_map(
            self.map_size,
            &mut SimRng::seed_from(self.seed ^ 0xA53A_9E1D),
        )
    }
}

/// A built army: the world (orders queued) and its platoons.
#[derive(Clone, Debug)]
pub struct Army {
    /// The world, its march orders queued for the first tick.
    pub world: World,
    /// The top-level formations.
    pub platoons: Vec<FormationId>,
}

/// The map: trees on a jittered 40 m grid, a 10 m building every 200 m and a 30 m wall
/// every 250 m, all seeded.
pub fn army_map(size: f32, rng: &mut SimRng) -> Map {
    let size = if size.is_finite() {
        size.max(100.0)
    } else {
        1000.0
    };
    let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(size));
    let steps = |spacing: f32| (size / spacing) as u32;
    for gy in 0..steps(40.0) {
        for gx in 0..steps(40.0) {
            let c = Vec2::new(gx as f32 + 0.5, gy as f32 + 0.5) * 40.0
                + Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0));
            if let Ok(tree) = CircleObstacle::new(c, rng.range(0.8, 2.5)) {
                map.circles.push(tree);
            }
        }
    }
    for gy in 0..steps(200.0) {
        for gx in 0..steps(200.0) {
            let c = Vec2::new(gx as f32 + 0.5, gy as f32 + 0.5) * 200.0 + Vec2::splat(20.0);
            if let Ok(b) = PolygonObstacle::rectangle(c - Vec2::splat(5.0), c + Vec2::splat(5.0)) {
                map.polygons.push(b);
            }
        }
    }
    for gy in 0..steps(250.0) {
        for gx in 0..steps(250.0) {
            let a = Vec2::new(gx as f32 + 0.3, gy as f32 + 0.7) * 250.0;
            if let Ok(w) = Wall::new(a, a + Vec2::new(0.0, 30.0)) {
                map.walls.push(w);
            }
        }
    }
    map
}

/// Builds the army of `spec` in a world with `settings`. Errors only when the spec is
/// degenerate (no units, or more than the world accepts).
pub fn build_army(spec: &ArmySpec, settings: WorldSettings) -> Result<Army, WorldError> {
    if spec.units == 0 {
        return Err(WorldError::Invalid {
            what: "army",
            why: "needs at least one unit".into(),
        });
    }
    let map = spec.map();
    let mut rng = SimRng::seed_from(spec.seed ^ 0x005E_ED0F_A53A);
    let size = map.max.x;
    let mut world = World::new(map, settings, spec.seed)?;
    // Squad sizes first, so the platoon grid can be sized.
    let mut squads = Vec::new();
    let mut left = spec.units;
    while left > 0 {
        let n = (8 + rng.index(9)).min(left);
        squads.push(n);
        left -= n;
    }
    let per = spec.squads_per_platoon.max(1);
    let platoon_count = squads.len().div_ceil(per);
    // Platoons on a grid over the western part of the map (leaving room for the march).
    let march = spec.march.clamp(0.0, size * 0.5);
    let area = Vec2::new(size - march - 40.0, size - 40.0).max(Vec2::splat(10.0));
    let cols = ((platoon_count as f32 * area.x / area.y).sqrt().ceil() as usize).max(1);
    let rows = platoon_count.div_ceil(cols).max(1);
    let cell = Vec2::new(area.x / cols as f32, area.y / rows as f32);
    let pattern = |kind, spacing: f32| Pattern {
        spacing,
        ..Pattern::for_radius(kind, UNIT_RADIUS)
    };
    let mut platoons = Vec::with_capacity(platoon_count);
    for (p, chunk) in squads.chunks(per).enumerate() {
        let at = Vec2::new(
            20.0 + ((p % cols) as f32 + 0.5) * cell.x,
            20.0 + ((p / cols) as f32 + 0.5) * cell.y,
        );
        let platoon = world.create_formation(
            FormationSpec {
                name: format!("platoon {p}"),
                pattern: pattern(PatternKind::Box, 8.0),
                ..FormationSpec::default()
            },
            None,
            at,
            Vec2::X,
        )?;
        for (s, &n) in chunk.iter().enumerate() {
            let kind = match s % 3 {
                0 => PatternKind::Box,
                1 => PatternKind::Wedge,
                _ => PatternKind::Line,
            };
            let squad = world.create_formation(
                FormationSpec {
                    name: format!("squad {p}.{s}"),
                    pattern: pattern(kind, 1.5),
                    ..FormationSpec::default()
                },
                Some(platoon),
                at,
                Vec2::X,
            )?;
            for k in 0..n {
                let offset = Vec2::new(
                    ((s % 2) as f32 - 0.5) * 7.0 - (k / 4) as f32 * 1.3,
                    ((s / 2) as f32 - 0.5) * 7.0 + (k % 4) as f32 * 1.3,
                );
                let speed = rng.range(2.8, 3.2);
                let body = Body::new(at + offset, UNIT_RADIUS, speed, 8.0)?;
                let u = world.add_unit(body)?;
                world.add_member(squad, Member::Unit(u))?;
            }
        }
        world.order(platoon, Order::move_to(at + Vec2::new(march, 0.0)))?;
        platoons.push(platoon);
    }
    Ok(Army { world, platoons })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
