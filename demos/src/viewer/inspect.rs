//! What the picked unit is doing, worked out from the world's public state each tick: the
//! steering forces of its tick (wall and obstacle avoidance, separation, arrive at the slot,
//! weighted and truncated in the world's priority order), the interest and danger maps that
//! `cohort_steering`'s context steering builds for it towards the same target, and a one-line
//! description of its behaviour. Read-only: nothing here changes the world.

use cohort_formation::{Motion, UnitId, World};
use cohort_steering::behaviours::{
    ArriveParams, ObstacleAvoidanceParams, SeparationFalloff, WallAvoidanceParams, arrive_moving,
    obstacle_avoidance, wall_avoidance,
};
use cohort_steering::combine::ForceAccumulator;
use cohort_steering::context::{ContextConfig, ContextSteering};
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};

/// Seconds of travel at top speed a unit looks ahead (as the world does).
const LOOK_AHEAD_TIME: f32 = 1.0;

/// The forces acting on the picked unit this tick, each as it entered the sum (weighted).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForceParts {
    /// Wall avoidance.
    pub wall: Vec2,
    /// Obstacle avoidance.
    pub obstacle: Vec2,
    /// Separation from neighbours.
    pub separation: Vec2,
    /// Arrive at the slot (or the next detour point).
    pub arrive: Vec2,
    /// The truncated sum.
    pub total: Vec2,
}

/// One ray of a context map: direction, value in `[0, 1]` and (for danger) distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Unit direction.
    pub direction: Vec2,
    /// Score.
    pub value: f32,
}

/// Everything shown about the picked unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    /// The unit.
    pub unit: UnitId,
    /// Its body now.
    pub body: Body,
    /// Where it is steering to (detour point, slot, or where it stands).
    pub target: Vec2,
    /// Its slot, if it has one.
    pub slot: Option<Vec2>,
    /// Remaining detour points.
    pub detour: Vec<Vec2>,
    /// The forces.
    pub forces: ForceParts,
    /// Interest map rays.
    pub interest: Vec<Ray>,
    /// Danger map rays.
    pub danger: Vec<Ray>,
    /// The context steering decision, if any.
    pub decision: Option<Vec2>,
    /// What it is doing, in words.
    pub behaviour: String,
    /// Its avoidance in the last tick (when the world was watching it): the velocity it
    /// preferred, the one it chose and what bound the choice.
    pub avoidance: Option<cohort_formation::AvoidanceReport>,
}

/// Keeps the context steering state of the picked unit between ticks.
#[derive(Debug)]
pub struct Inspector {
    steering: Option<ContextSteering>,
    unit: Option<UnitId>,
    obstacles: Vec<CircleObstacle>,
    walls: Vec<Wall>,
    movers: Vec<Body>,
}

impl Default for Inspector {
    fn default() -> Self {
        Self::new()
    }
}

impl Inspector {
    /// An inspector with the default context configuration (16 slots).
    pub fn new() -> Self {
        Self {
            steering: ContextSteering::new(ContextConfig::default()).ok(),
            unit: None,
            obstacles: Vec::new(),
            walls: Vec::new(),
            movers: Vec::new(),
        }
    }

    /// Looks at `unit` in `world` after a tick of `dt` seconds (`None`: nothing picked, or the
    /// unit is gone).
    pub fn inspect(&mut self, world: &World, unit: UnitId, dt: f32) -> Option<Inspection> {
        let u = world.unit(unit)?;
        let body = u.body;
        if self.unit != Some(unit) {
            self.unit = Some(unit);
            if let Some(s) = &mut self.steering {
                s.invalidate();
            }
        }
        let target = match (u.detour.first(), u.slot_target) {
            (Some(&p), _) => p,
            (None, Some(t)) => t.position,
            (None, None) => body.position,
        };
        // The world's avoidance looks `look` ahead; context steering as far as its config says.
        let look = body.radius + body.speed() * LOOK_AHEAD_TIME + 1.0;
        let context_look = self
            .steering
            .as_ref()
            .map_or(0.0, |s| s.config().look_distance + body.radius);
        self.gather(world, unit, &body, look.max(context_look));
        let p = body.position;
        let near_obstacles: Vec<CircleObstacle> = self
            .obstacles
            .iter()
            .filter(|c| (c.center - p).length() <= c.radius + look)
            .copied()
            .collect();
        let near_walls: Vec<Wall> = self
            .walls
            .iter()
            .filter(|w| segment_distance(p, w.from, w.to) <= look)
            .copied()
            .collect();
        let forces = forces_of(world, unit, &body, &near_obstacles, &near_walls);
        let (interest, danger, decision) = match &mut self.steering {
            Some(s) => {
                s.steer(
                    &body,
                    target,
                    &self.obstacles,
                    &self.walls,
                    &self.movers,
                    dt,
                );
                (
                    rays(s.interest().directions(), s.interest().values()),
                    rays(s.danger().directions(), s.danger().values()),
                    s.choice().map(|d| d.direction),
                )
            }
            None => (Vec::new(), Vec::new(), None),
        };
        let avoidance = world
            .avoidance_report()
            .filter(|&(id, _)| id == unit)
            .map(|(_, r)| r);
        let mut behaviour = describe(world, unit, &forces);
        if let Some(r) = avoidance {
            behaviour.push_str(&avoidance_words(&r));
        }
        Some(Inspection {
            unit,
            body,
            target,
            slot: u.slot_target.map(|t| t.position),
            detour: u.detour.to_vec(),
            forces,
            interest,
            danger,
            decision,
            behaviour,
            avoidance,
        })
    }

    /// Map geometry and neighbours within `look` of the body.
    fn gather(&mut self, world: &World, me: UnitId, body: &Body, look: f32) {
        let map = world.map();
        let p = body.position;
        self.obstacles.clear();
        self.obstacles.extend(
            map.circles
                .iter()
                .filter(|c| (c.center - p).length() <= c.radius + look)
                .copied(),
        );
        self.walls.clear();
        let near = |a: Vec2, b: Vec2| segment_distance(p, a, b) <= look;
        for w in &map.walls {
            if near(w.from, w.to) {
                self.walls.push(*w);
            }
        }
        for poly in map.polygons.iter().map(|q| &q.points) {
            for (i, &a) in poly.iter().enumerate() {
                let b = poly[(i + 1) % poly.len()];
                if near(a, b) {
                    if let Ok(w) = Wall::new(a, b) {
                        self.walls.push(w);
                    }
                }
            }
        }
        self.movers.clear();
        self.movers.extend(
            world
                .units()
                .filter(|(id, o)| *id != me && (o.body.position - p).length() <= look + 2.0)
                .map(|(_, o)| o.body),
        );
    }
}

fn rays(directions: &[Vec2], values: &[f32]) -> Vec<Ray> {
    directions
        .iter()
        .zip(values)
        .map(|(&direction, &value)| Ray { direction, value })
        .collect()
}

fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * t)).length()
}

/// The unit's steering forces, in the world's order and weights: walls, obstacles,
/// separation, arrive, each added only while the force budget is not spent.
fn forces_of(
    world: &World,
    me: UnitId,
    body: &Body,
    obstacles: &[CircleObstacle],
    walls: &[Wall],
) -> ForceParts {
    let settings = world.settings();
    let mut parts = ForceParts::default();
    let mut acc = ForceAccumulator::new(body.max_force);
    if !walls.is_empty() {
        parts.wall =
            wall_avoidance(body, walls, &WallAvoidanceParams::default()) * settings.wall_weight;
        acc.add(parts.wall);
    }
    if !obstacles.is_empty() && !acc.is_spent() {
        parts.obstacle = obstacle_avoidance(body, obstacles, &ObstacleAvoidanceParams::default())
            * settings.obstacle_weight;
        acc.add(parts.obstacle);
    }
    if !acc.is_spent() {
        parts.separation = separation(world, me, body) * settings.separation_weight;
        acc.add(parts.separation);
    }
    if !acc.is_spent() {
        let arrive = ArriveParams {
            tweaker: settings.arrive_time * 0.5,
            ..ArriveParams::default()
        };
        let u = world.unit(me);
        parts.arrive = match (
            u.and_then(|u| u.detour.first()),
            u.and_then(|u| u.slot_target),
        ) {
            (Some(&p), _) => arrive_moving(body, p, Vec2::ZERO, &arrive),
            (None, Some(t)) => arrive_moving(body, t.position, t.velocity, &arrive),
            (None, None) => arrive_moving(body, body.position, Vec2::ZERO, &arrive),
        };
        acc.add(parts.arrive);
    }
    parts.total = acc.total();
    parts
}

/// Separation as the world computes it (steering's separation with the linear falloff):
/// away from each neighbour closer than the comfort distance, `max_force` when touching and 0
/// at the comfort distance.
fn separation(world: &World, me: UnitId, body: &Body) -> Vec2 {
    let falloff = SeparationFalloff::Linear {
        range: world.settings().separation_range.max(1.0),
    };
    let mut force = Vec2::ZERO;
    for (id, other) in world.units() {
        let radii = body.radius + other.body.radius;
        let away = body.position - other.body.position;
        let d = away.length();
        if id == me || d <= 1e-6 || !falloff.within(away.length_squared(), radii) {
            continue;
        }
        force += falloff.push(away / d, d, radii) * body.max_force;
    }
    force
}

/// The unit's behaviour in words: its formation's motion, then what its steering is busy with.
/// The avoidance of the last tick in words: what bound it, preferred and chosen velocity.
fn avoidance_words(r: &cohort_formation::AvoidanceReport) -> String {
    use cohort_formation::Binding;
    let by = match r.binding {
        None => return String::new(),
        Some(Binding::Unit(u)) => format!("unit {u:?}"),
        Some(Binding::Edge { from, to }) => format!(
            "edge ({:.1}, {:.1})-({:.1}, {:.1})",
            from.x, from.y, to.x, to.y
        ),
        Some(Binding::Obstacle { center }) => {
            format!("obstacle at ({:.1}, {:.1})", center.x, center.y)
        }
    };
    format!(
        "; avoiding {by}: preferred ({:.2}, {:.2}) m/s, chose ({:.2}, {:.2})",
        r.preferred.x, r.preferred.y, r.chosen.x, r.chosen.y
    )
}

fn describe(world: &World, unit: UnitId, forces: &ForceParts) -> String {
    let Some(u) = world.unit(unit) else {
        return String::from("dead");
    };
    let formation = u.formation.and_then(|f| world.formation(f));
    let motion = match formation.map(|f| f.motion) {
        None => "free unit",
        Some(Motion::Holding) => "formation holding",
        Some(Motion::Moving) => "formation moving",
        Some(Motion::Turning) => "formation turning",
        Some(Motion::Loose) => "running loose to final slot",
    };
    let doing = if !u.detour.is_empty() {
        format!("detour around an obstacle ({} points left)", u.detour.len())
    } else if forces.wall != Vec2::ZERO {
        String::from("avoiding a wall")
    } else if forces.obstacle != Vec2::ZERO {
        String::from("avoiding an obstacle")
    } else if let Some(t) = u.slot_target {
        let d = (t.position - u.body.position).length();
        if d <= u.body.radius {
            String::from("in its slot")
        } else {
            format!("arriving at its slot ({d:.1} m)")
        }
    } else {
        String::from("standing")
    };
    let crowded = if forces.separation.length() > 0.5 * u.body.max_force {
        ", crowded"
    } else {
        ""
    };
    let traffic = formation
        .map(|f| traffic_words(world, f))
        .unwrap_or_default();
    format!("{motion}{traffic}; {doing}{crowded}")
}

/// What the unit's top-level formation is doing about other formations: giving way (or
/// waiting for an oncoming one to come out of a passage), queueing, keeping right, closed up
/// for a narrow passage, bound for a goal away from the spot it was ordered to (empty
/// when none of these).
fn traffic_words(world: &World, f: &cohort_formation::Formation) -> String {
    let mut root = f;
    // Bounded: a formation tree is never deeper than the formations in it.
    for _ in 0..world.formations().count() {
        match root.parent.and_then(|p| world.formation(p)) {
            Some(p) => root = p,
            None => break,
        }
    }
    let mut words = String::new();
    if let Some(other) = root.gives_way_to() {
        let name = world
            .formation(other)
            .map_or("another", |o| o.name.as_str());
        if root.waits_at_passage() {
            words.push_str(&format!(", waiting for {name} to come out of the passage"));
        } else {
            words.push_str(&format!(", giving way to {name}"));
        }
    } else if root.is_waiting() {
        words.push_str(", queueing");
    }
    if root.is_keeping_right() {
        words.push_str(", keeping right");
    }
    if root.in_column {
        words.push_str(", closed up for a narrow passage");
    }
    if let Some((ordered, placed)) = root.placed_away() {
        let away = (placed - ordered).length();
        words.push_str(&format!(
            ", its goal {away:.1} m from the spot it was ordered to"
        ));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_formation::pattern::{Pattern, PatternKind};
    use cohort_formation::{FormationSpec, Member};
    use cohort_pathing::Map;

    /// Two units of formations of their own walk at each other in the open (the map's edges
    /// far enough that they keep to no side of a passage): the watched one's panel says
    /// which unit bound its avoidance, with the velocity it preferred and the one it chose.
    #[test]
    fn inspection_shows_the_avoidance_of_a_watched_unit() {
        let map = Map {
            min: glam::Vec2::new(0.0, -20.0),
            max: glam::Vec2::new(60.0, 60.0),
            ..Map::default()
        };
        let mut world = World::new(map, Default::default(), 1).expect("world");
        let mut ids = Vec::new();
        for (x, facing) in [(20.0, Vec2::X), (40.0, -Vec2::X)] {
            let spec = FormationSpec {
                pattern: Pattern::for_radius(PatternKind::Line, 0.5),
                ..FormationSpec::default()
            };
            let at = Vec2::new(x, 20.0);
            let f = world
                .add_formation(spec, None, at, facing)
                .expect("formation");
            let b = Body::new(at, 0.5, 3.0, 6.0).expect("body");
            let id = world.add_unit(b).expect("unit");
            world.add_member(f, Member::Unit(id)).expect("member");
            let goal = at + facing * 20.0;
            world
                .order(f, cohort_formation::Order::move_to(goal))
                .expect("order");
            ids.push(id);
        }
        world.watch_unit(Some(ids[0]));
        let mut inspector = Inspector::new();
        let mut bound = None;
        for _ in 0..150 {
            world.step(1.0 / 30.0);
            let seen = inspector
                .inspect(&world, ids[0], 1.0 / 30.0)
                .expect("alive");
            if let Some(r) = seen.avoidance.filter(|r| r.binding.is_some()) {
                bound = Some((r, seen.behaviour));
                break;
            }
        }
        let (report, words) = bound.expect("the oncoming unit bound the watched one's avoidance");
        assert_eq!(
            report.binding,
            Some(cohort_formation::Binding::Unit(ids[1]))
        );
        assert_ne!(report.preferred, report.chosen);
        assert!(words.contains("avoiding unit"), "{words}");
    }

    /// Two squads ordered to one spot: the second is placed beside the first, and its units'
    /// panel says how far from the spot its goal is; the first's says nothing of it.
    #[test]
    fn inspection_says_a_formation_was_placed_away_from_its_spot() {
        let map = Map {
            max: glam::Vec2::new(80.0, 80.0),
            ..Map::default()
        };
        let mut world = World::new(map, Default::default(), 1).expect("world");
        let mut firsts = Vec::new();
        for y in [20.0, 60.0] {
            let spec = FormationSpec {
                pattern: Pattern::for_radius(PatternKind::Box, 0.5),
                ..FormationSpec::default()
            };
            let at = Vec2::new(10.0, y);
            let f = world
                .add_formation(spec, None, at, Vec2::X)
                .expect("formation");
            let mut first = None;
            for i in 0..4 {
                let p = at + Vec2::new((i % 2) as f32, (i / 2) as f32) * 1.5;
                let b = Body::new(p, 0.5, 1.3, 6.0).expect("body");
                let id = world.add_unit(b).expect("unit");
                world.add_member(f, Member::Unit(id)).expect("member");
                first.get_or_insert(id);
            }
            world
                .order(f, cohort_formation::Order::move_to(Vec2::new(50.0, 40.0)))
                .expect("order");
            firsts.push(first.expect("a unit"));
        }
        world.step(1.0 / 30.0);
        let mut inspector = Inspector::new();
        let words = |inspector: &mut Inspector, id| {
            inspector
                .inspect(&world, id, 1.0 / 30.0)
                .expect("alive")
                .behaviour
        };
        let first = words(&mut inspector, firsts[0]);
        let second = words(&mut inspector, firsts[1]);
        assert!(!first.contains("from the spot"), "{first}");
        assert!(
            second.contains("its goal") && second.contains("m from the spot it was ordered to"),
            "{second}"
        );
    }

    #[test]
    fn inspection_points_forces_and_interest_at_the_slot() {
        let map = Map {
            max: glam::Vec2::new(60.0, 40.0),
            ..Map::default()
        };
        let mut world = World::new(map, Default::default(), 1).expect("world");
        let spec = FormationSpec {
            pattern: Pattern::for_radius(PatternKind::Line, 0.5),
            ..FormationSpec::default()
        };
        // The formation stands 20 m east of its units, which have to walk to their slots.
        let f = world
            .add_formation(spec, None, Vec2::new(30.0, 20.0), Vec2::X)
            .expect("formation");
        let mut ids = Vec::new();
        for i in 0..3 {
            let b = Body::new(Vec2::new(10.0, 18.0 + 2.0 * i as f32), 0.5, 3.0, 6.0).expect("body");
            let id = world.add_unit(b).expect("unit");
            world.add_member(f, Member::Unit(id)).expect("member");
            ids.push(id);
        }
        for _ in 0..10 {
            world.step(1.0 / 30.0);
        }
        let mut inspector = Inspector::new();
        let seen = inspector
            .inspect(&world, ids[1], 1.0 / 30.0)
            .expect("alive");
        assert_eq!(seen.interest.len(), 16);
        assert_eq!(seen.danger.len(), 16);
        let to_target = seen.target - seen.body.position;
        assert!(to_target.length() > 10.0, "{to_target}");
        // The arrive force and the best interest ray point towards the slot.
        assert!(seen.forces.arrive.dot(to_target) > 0.0, "{seen:?}");
        let best = seen
            .interest
            .iter()
            .max_by(|a, b| a.value.total_cmp(&b.value))
            .expect("rays");
        assert!(best.value > 0.5, "{best:?}");
        assert!(best.direction.dot(to_target.normalize()) > 0.9, "{best:?}");
        // Open ground: no danger anywhere.
        assert!(
            seen.danger.iter().all(|r| r.value == 0.0),
            "{:?}",
            seen.danger
        );
        assert!(
            seen.behaviour
                .starts_with("formation holding; arriving at its slot"),
            "{}",
            seen.behaviour
        );
        assert!(seen.forces.total.length() <= seen.body.max_force + 1e-4);
        // A dead unit cannot be inspected.
        world.remove_unit(ids[1]);
        assert!(inspector.inspect(&world, ids[1], 1.0 / 30.0).is_none());
    }

    #[test]
    fn danger_rays_see_an_obstacle_in_the_way() {
        let map = Map {
            max: glam::Vec2::new(60.0, 40.0),
            circles: vec![CircleObstacle::new(Vec2::new(13.0, 20.0), 1.0).expect("rock")],
            ..Map::default()
        };
        let mut world = World::new(map, Default::default(), 1).expect("world");
        let spec = FormationSpec {
            pattern: Pattern::for_radius(PatternKind::Line, 0.5),
            ..FormationSpec::default()
        };
        let f = world
            .add_formation(spec, None, Vec2::new(30.0, 20.0), Vec2::X)
            .expect("formation");
        let b = Body::new(Vec2::new(10.0, 20.0), 0.5, 3.0, 6.0).expect("body");
        let id = world.add_unit(b).expect("unit");
        world.add_member(f, Member::Unit(id)).expect("member");
        let mut inspector = Inspector::new();
        let seen = inspector.inspect(&world, id, 1.0 / 30.0).expect("alive");
        // The rock 3 m ahead, between the unit and its slot: the ray towards it is dangerous,
        // the one away from it is not.
        let toward = |d: Vec2| {
            seen.danger
                .iter()
                .max_by(|a, b| a.direction.dot(d).total_cmp(&b.direction.dot(d)))
                .map(|r| r.value)
                .expect("rays")
        };
        assert!(toward(Vec2::X) > 0.3, "{:?}", seen.danger);
        assert_eq!(toward(-Vec2::X), 0.0, "{:?}", seen.danger);
    }
}
