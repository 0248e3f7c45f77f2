//! The standard army: the world `cohort bench`, the criterion benches and the allocation and
//! parallel-determinism tests step.
//!
//! Squads of 8 to 16 units (the last squad takes what is left), each a box, are grouped into
//! platoons of [`ArmySpec::squads_per_platoon`] squads (a box of boxes, its squads a gap
//! apart), set out on a grid over the western part of a square map (1 km by default) strewn
//! with trees (circles), buildings (rectangles) and walls, and ordered to march east, so every
//! unit is moving. The army starts in formation, every unit on its slot, and the platoons
//! stand [`PLATOON_GAP`] apart as long as the area has room: the local density is the same at
//! every size up to about 110,000 units on the default map, so ten times the army is ten
//! times the work of the same kind (beyond that the platoons are packed closer and touch).
//! Everything comes from the seed: the same spec builds the same world bit for bit.
//!
//! With [`ArmySpec::group_size`] the same units stand on the same spots with the same orders,
//! but in flat top-level formations of up to that many units instead of squads in platoons:
//! each squad's units, in the order the standard army lays them out (slot by slot), are cut
//! into runs of the group size (the squad's last run takes what is left), each run a
//! formation whose pattern is the run's own layout (a custom pattern, the units' offsets from
//! their centre), ordered to march as far east as the platoons are. A group is a few
//! neighbours of one squad, the way a player selects them; runs cut across the whole army's
//! units would join the last units of one platoon to the first of the next, up to a map's
//! width away. That measures what the number of formations costs with the work per unit
//! otherwise unchanged.

use cohort_pathing::{Map, PolygonObstacle};
use cohort_steering::{Body, CircleObstacle, SimRng, Vec2, Wall};

use crate::error::WorldError;
use crate::formation::{FormationSpec, Member};
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::{Pattern, PatternKind, Role, Slot};
use crate::world::{World, WorldSettings};

/// Radius of every unit of the army.
pub const UNIT_RADIUS: f32 = 0.5;

/// Distance between neighbouring slots of a squad, metres.
pub const SQUAD_SPACING: f32 = 1.5;

/// Gap between the footprints of neighbouring squads of a platoon, metres.
pub const SQUAD_GAP: f32 = 1.5;

/// Gap between the footprints of neighbouring platoons (between their outermost units'
/// edges), where the map has room, metres.
pub const PLATOON_GAP: f32 = 4.0;

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
    /// Units per top-level formation, in flat groups instead of squads in platoons (`None`:
    /// squads in platoons; see the [module docs](self)). At most [`MAX_GROUP_SIZE`].
    pub group_size: Option<usize>,
}

/// Largest [`ArmySpec::group_size`] (a custom pattern's most slots).
pub const MAX_GROUP_SIZE: usize = crate::pattern::MAX_CUSTOM_SLOTS;

impl Default for ArmySpec {
    fn default() -> Self {
        Self {
            units: 10_000,
            seed: 1,
            map_size: 1000.0,
            squads_per_platoon: 4,
            march: 300.0,
            obstacles: true,
            group_size: None,
        }
    }
}

impl ArmySpec {
    /// The army's map: [`army_map`] seeded from [`ArmySpec::seed`], or the same square
    /// empty when [`ArmySpec::obstacles`] is off.
    pub fn map(&self) -> Map {
        if !self.obstacles {
            return Map::with_bounds(Vec2::ZERO, Vec2::splat(map_side(self.map_size)));
        }
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
    let size = map_side(size);
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

/// The side of an army's square map for a requested `size`: at least 100 m, 1 km when
/// `size` is not finite.
fn map_side(size: f32) -> f32 {
    if size.is_finite() {
        size.max(100.0)
    } else {
        1000.0
    }
}

fn invalid(why: String) -> WorldError {
    WorldError::Invalid { what: "army", why }
}

/// Builds the army of `spec` in a world with `settings`. Errors only when the spec is
/// degenerate (no units, or more than the world accepts).
pub fn build_army(spec: &ArmySpec, settings: WorldSettings) -> Result<Army, WorldError> {
    if spec.units == 0 {
        return Err(invalid("needs at least one unit".into()));
    }
    if spec
        .group_size
        .is_some_and(|n| !(1..=MAX_GROUP_SIZE).contains(&n))
    {
        return Err(invalid(format!(
            "a group size must be 1 to {MAX_GROUP_SIZE}"
        )));
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
    world.reserve(
        spec.units,
        match spec.group_size {
            Some(n) => squads.iter().map(|&s| s.div_ceil(n)).sum(),
            None => squads.len() + platoon_count,
        },
    );
    // Squads in boxes, the most compact pattern, so that even 100,000 units fit the western
    // part of the map in formation.
    let squad_pattern = Pattern {
        spacing: SQUAD_SPACING,
        ..Pattern::for_radius(PatternKind::Box, UNIT_RADIUS)
    };
    let squad_layout = squad_pattern
        .validate()
        .map_err(|e| invalid(e.to_string()))?;
    // Each platoon's squads stand one squad's footprint (its larger side) plus a gap apart,
    // so no squad overlaps another; the platoons stand the largest platoon's footprint plus
    // a gap apart where the area allows.
    let mut platoon_patterns = Vec::with_capacity(platoon_count);
    let mut footprint: f32 = 0.0;
    for chunk in squads.chunks(per) {
        let side = chunk
            .iter()
            .map(|&n| squad_layout.extent(n).max_element())
            .fold(0.0, f32::max);
        let pattern = Pattern {
            spacing: side + SQUAD_GAP,
            ..Pattern::for_radius(PatternKind::Box, UNIT_RADIUS)
        };
        let layout = pattern.validate().map_err(|e| invalid(e.to_string()))?;
        // The pattern's extent counts a unit radius at each end; the squads' sides replace it.
        let centres = layout.extent(chunk.len()).max_element() - 2.0 * UNIT_RADIUS;
        footprint = footprint.max(centres + side);
        platoon_patterns.push((pattern, layout));
    }
    // Platoons on a grid over the western part of the map (leaving room for the march).
    let march = spec.march.clamp(0.0, size * 0.5);
    let area = Vec2::new(size - march - 40.0, size - 40.0).max(Vec2::splat(10.0));
    let cols = ((platoon_count as f32 * area.x / area.y).sqrt().ceil() as usize).max(1);
    let rows = platoon_count.div_ceil(cols).max(1);
    let cell = Vec2::new(area.x / cols as f32, area.y / rows as f32);
    // Where the area is roomier than the platoons need, they keep a platoon gap between
    // them, packed towards the west and centred north-south; an army too large for the area
    // is packed at the area's pitch (its platoons then touch).
    let pitch = cell.min(Vec2::splat(footprint + PLATOON_GAP));
    let origin = Vec2::new(20.0, 20.0 + 0.5 * (area.y - pitch.y * rows as f32));
    let mut platoons = Vec::with_capacity(platoon_count);
    let mut slots = Vec::new();
    let mut unit_slots = Vec::new();
    // With a group size: the current squad's bodies in layout order, and the groups so far.
    let mut loose = Vec::new();
    let mut groups = 0usize;
    let grouped = spec.group_size.is_some();
    for (p, (chunk, (platoon_pattern, platoon_layout))) in
        squads.chunks(per).zip(platoon_patterns).enumerate()
    {
        let at = origin
            + Vec2::new(
                ((p % cols) as f32 + 0.5) * pitch.x,
                ((p / cols) as f32 + 0.5) * pitch.y,
            );
        let platoon = if grouped {
            None
        } else {
            Some(world.add_formation(
                FormationSpec {
                    name: format!("platoon {p}"),
                    pattern: platoon_pattern,
                    ..FormationSpec::default()
                },
                None,
                at,
                Vec2::X,
            )?)
        };
        // The army starts in formation: every unit on its slot (the platoons face +x, so
        // a slot's offset is its offset on the map).
        platoon_layout.layout(chunk.len(), &mut slots);
        for (s, &n) in chunk.iter().enumerate() {
            let squad_at = at + slots.get(s).map_or(Vec2::ZERO, |slot| slot.offset);
            let squad = match platoon {
                Some(platoon) => Some(world.add_formation(
                    FormationSpec {
                        name: format!("squad {p}.{s}"),
                        pattern: squad_pattern.clone(),
                        ..FormationSpec::default()
                    },
                    Some(platoon),
                    squad_at,
                    Vec2::X,
                )?),
                None => None,
            };
            squad_layout.layout(n, &mut unit_slots);
            for k in 0..n {
                let offset = unit_slots.get(k).map_or(Vec2::ZERO, |slot| slot.offset);
                let speed = rng.range(2.8, 3.2);
                let body = Body::new(squad_at + offset, UNIT_RADIUS, speed, 8.0)?;
                match squad {
                    Some(squad) => {
                        let u = world.add_unit(body)?;
                        world.add_member(squad, Member::Unit(u))?;
                    }
                    None => loose.push(body),
                }
            }
            // With a group size, the squad's units in runs of that many (its last run may
            // be shorter): a group never spans two squads, let alone two platoons.
            if let Some(n) = spec.group_size {
                for bodies in loose.chunks(n) {
                    platoons.push(add_group(&mut world, groups, bodies, march)?);
                    groups += 1;
                }
                loose.clear();
            }
        }
        if let Some(platoon) = platoon {
            world.order(platoon, Order::move_to(at + Vec2::new(march, 0.0)))?;
            platoons.push(platoon);
        }
    }
    Ok(Army { world, platoons })
}

/// A top-level formation of `bodies` as they stand (its custom pattern is their offsets from
/// their centre), ordered `march` metres east.
fn add_group(
    world: &mut World,
    g: usize,
    bodies: &[Body],
    march: f32,
) -> Result<FormationId, WorldError> {
    let centre = bodies.iter().map(|b| b.position).sum::<Vec2>() / bodies.len().max(1) as f32;
    let slots = bodies
        .iter()
        .map(|b| Slot::new(b.position - centre, Role::Any))
        .collect();
    let group = world.add_formation(
        FormationSpec {
            name: format!("group {g}"),
            pattern: Pattern {
                kind: PatternKind::Custom(slots),
                spacing: SQUAD_SPACING,
                unit_radius: UNIT_RADIUS,
            },
            ..FormationSpec::default()
        },
        None,
        centre,
        Vec2::X,
    )?;
    for &body in bodies {
        let u = world.add_unit(body)?;
        world.add_member(group, Member::Unit(u))?;
    }
    world.order(group, Order::move_to(centre + Vec2::new(march, 0.0)))?;
    Ok(group)
}

#[cfg(test)]
mod tests;
