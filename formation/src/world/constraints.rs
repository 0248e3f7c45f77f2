//! The constraint stage of a tick: units are moved apart where they overlap and out of the
//! map's geometry; a unit the geometry holds back does not give way, its neighbour does; then
//! headings are smoothed and the frame's bodies written back to the units.

use cohort_steering::locomotion::turn_towards;
use cohort_steering::penetration::{DEEP_FRACTION, constrain_to_static};
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};

use super::free_zone::FreeZone;
use super::gather::UnitFrame;
use super::par::for_each_unit_chunk;
use super::unit_store::UnitStore;
use super::{Scratch, Terrain, WorldSettings};

/// The map's geometry near one unit, found by a query (one pair of buffers per chunk of units,
/// kept between ticks).
pub(crate) struct NearGeometry {
    pub(crate) obstacles: Vec<CircleObstacle>,
    pub(crate) walls: Vec<Wall>,
}

impl Default for NearGeometry {
    /// Buffers with room for [`GEOMETRY_ROOM`] obstacles and walls each, made once: a chunk
    /// of units that first comes near a lot of geometry long after the world was built does
    /// not allocate in that tick.
    fn default() -> Self {
        Self {
            obstacles: Vec::with_capacity(GEOMETRY_ROOM),
            walls: Vec::with_capacity(GEOMETRY_ROOM),
        }
    }
}

/// Obstacles and walls a per-chunk geometry buffer has room for from the start (a unit's
/// queries reach a few metres; more grow the buffer, once).
pub(crate) const GEOMETRY_ROOM: usize = 32;

/// Constraint stage: units are moved apart where they overlap, and out of obstacles and walls
/// (no unit crosses a wall in one step). A unit pushed back by geometry would undo half of
/// each separation it took part in (a unit pressed against a wall by one behind it), so a last
/// pass moves its overlapping neighbours clear of it instead. Then headings are smoothed (a
/// unit standing at its slot turns to the slot's facing) and the frame's bodies are written
/// back to the units. Reads `frame.positions` (where steering moved the units) and
/// `frame.previous` (where they stood).
pub(super) fn resolve_constraints(
    units: &mut UnitStore,
    terrain: &Terrain,
    settings: &WorldSettings,
    scratch: &mut Scratch,
    frame: &mut UnitFrame,
    dt: f32,
) {
    let n = frame.bodies.len();
    // The candidate pairs were collected by the steering stage's separation sweep from
    // the neighbour grid: the solver looks up the pairs of the few units that moved too
    // far in it, instead of collecting everyone's again.
    let (positions, radii) = (&mut frame.positions, &frame.radii);
    let iterations = settings.penetration_iterations;
    // Up to as many iterations again while a pair still overlaps deeply (a crowd pressed
    // hard into a gap or a corner).
    if let Some(solver) = scratch.solver.as_mut() {
        solver.set_deep_iterations(iterations);
    }
    match (scratch.solver.as_mut(), scratch.grid.as_ref()) {
        (Some(solver), Some(grid)) => {
            solver.resolve_seeded(positions, radii, iterations, grid);
        }
        (Some(solver), None) => {
            solver.resolve(positions, radii, iterations);
        }
        _ => {}
    }
    scratch.held.clear();
    scratch.held.resize(n, false);
    // Each unit against the map's geometry, on its own: in chunks on the pool's threads.
    let UnitFrame {
        bodies,
        positions,
        previous,
        zones,
        ..
    } = &mut *frame;
    let (positions, previous, zones) = (&*positions, &*previous, &*zones);
    let geometry = &mut scratch.chunk_near;
    for_each_unit_chunk(
        bodies,
        &mut scratch.held,
        geometry,
        |first, bodies, held, near| {
            for (k, (body, held)) in bodies.iter_mut().zip(held).enumerate() {
                let i = first + k;
                let Some(&position) = positions.get(i) else {
                    continue;
                };
                let (previous, zone) = (previous.get(i).copied(), zones.get(i));
                *held = constrain_unit(body, previous, zone, terrain, position, near);
                // The map's edge holds a unit back as a wall does.
                *held |= keep_in_bounds(terrain, body, near);
            }
        },
    );
    if scratch.held.contains(&true) {
        give_way_to_held(scratch, frame, terrain);
    }
    // Back inside the map's bounds; headings; the bodies written back to the units, in key
    // order (one walk of the units' slot map, which threads cannot share out).
    if scratch.chunk_near.is_empty() {
        scratch.chunk_near.push(NearGeometry::default());
    }
    let mut near = scratch.chunk_near.first_mut();
    for i in 0..n {
        let body = &mut frame.bodies[i];
        if let Some(near) = near.as_deref_mut() {
            keep_in_bounds(terrain, body, near);
        }
        let id = frame.ids[i];
        if let Some(u) = units.motion.get_mut(id) {
            // Headings follow the motion the constraints allowed.
            if body.speed() < 0.1 * body.max_speed {
                if let Some(t) = u.slot_target {
                    body.heading = turn_towards(body.heading, t.facing, body.max_turn_rate * dt);
                }
            } else if let Some(smoother) = units.smoothers.get_mut(id) {
                smoother.update(body, dt);
            }
            u.body = *body;
        }
    }
}

/// Keeps `body` inside the map's bounds: put back inside them, perhaps into a rock by the edge
/// (a pinch narrower than the unit), it then goes to the nearest point where it fits. Returns
/// whether it moved.
fn keep_in_bounds(terrain: &Terrain, body: &mut Body, near: &mut NearGeometry) -> bool {
    let before = body.position;
    terrain.keep_in_bounds(body);
    if body.position == before {
        return false;
    }
    let reach = body.radius + 0.5;
    terrain.geometry_near(body.position, reach, &mut near.obstacles, &mut near.walls);
    if inside_any(body, &near.obstacles, &near.walls) {
        body.position = terrain.push_out(body.position, body.radius);
    }
    true
}

/// Puts a unit (`body`, standing at `previous` before this tick's move, with its free `zone`)
/// at `position` and applies the map's geometry to it (no wall crossed since `previous`,
/// pushed out of walls and obstacles). Returns whether the geometry moved it. Reads and
/// writes this unit alone, so units are constrained in any order (and on any thread).
fn constrain_unit(
    body: &mut Body,
    previous: Option<Vec2>,
    zone: Option<&FreeZone>,
    terrain: &Terrain,
    position: Vec2,
    near: &mut NearGeometry,
) -> bool {
    let Some(previous) = previous else {
        return false;
    };
    body.position = position;
    let moved = (body.position - previous).length();
    let reach = body.radius + moved + 0.5;
    // The query ball lies inside the unit's free zone (centred `moved` away): nothing to
    // constrain against, skip the query.
    let free = match zone {
        Some(zone) => zone.free_around(previous),
        None => -1.0,
    };
    if reach + moved <= free {
        return false;
    }
    terrain.geometry_near(body.position, reach, &mut near.obstacles, &mut near.walls);
    let pushed = constrain_to_static(body, previous, &near.obstacles, &near.walls);
    // Pushed out of one rock into another (a crevice narrower than the unit, between rocks,
    // walls or polygons): the per-obstacle pushes cannot settle it, so it goes to the
    // nearest point where it fits. Only units that were pushed pay for the check.
    if pushed && inside_any(body, &near.obstacles, &near.walls) {
        body.position = terrain.push_out(body.position, body.radius);
    }
    pushed
}

/// Passes of the solver's separation from held units: a queue pressed against a wall gives
/// way one unit further back per pass.
const GIVE_WAY_PASSES: usize = 8;

/// Units overlapping a unit the geometry held back move clear of it (down a queue, see
/// [`cohort_steering::penetration::PenetrationSolver::separate_from_held`]); the geometry is
/// then applied to each of them. A unit moved clear of a held one into a wall was pushed back
/// towards it: then, for up to [`SETTLE_ROUNDS`] rounds, the pairs still overlapping a held
/// unit are separated again and the geometry applied again, so the pair slides along the wall
/// until it fits (each round keeps the part of the separation the wall allows); so are pairs
/// of units neither of which is held overlapping by more than [`FREE_TOLERANCE`], where a
/// unit moved clear of a held one landed. A column pressed into a corner by a crowd gives
/// way a little more each round: while a pair still overlaps deeply, up to
/// [`DEEP_SETTLE_ROUNDS`] more rounds follow (the first six alone left pairs in such a column
/// overlapping by up to 8.6 %).
fn give_way_to_held(s: &mut Scratch, frame: &mut UnitFrame, terrain: &Terrain) {
    let Some(solver) = s.solver.as_ref() else {
        return;
    };
    // Past `SETTLE_ROUNDS`, rounds go on only while the last one moved a pair overlapping
    // deeply (as the solver's own iterations do). Stopping as soon as a round's deepest pair
    // was no shallower than the last's instead left a pair of walkers pressed against a
    // wall 4.9 % deep where it now ends 2.9 % deep.
    let mut deep = false;
    for round in 0..=SETTLE_ROUNDS + DEEP_SETTLE_ROUNDS {
        if round > SETTLE_ROUNDS && !deep {
            break;
        }
        let positions = &mut frame.positions;
        positions.clear();
        positions.extend(frame.bodies.iter().map(|b| b.position));
        let radii = &frame.radii;
        let moved = if round == 0 {
            solver.separate_from_held(positions, radii, &mut s.held, GIVE_WAY_PASSES)
        } else {
            let deepest = solver.separate_near_held(
                positions,
                radii,
                &s.held,
                (SETTLE_TOLERANCE, FREE_TOLERANCE),
            );
            deep = deepest > DEEP_FRACTION;
            deepest > 0.0
        };
        if !moved {
            // Nobody gave way: the rounds may still have pairs of held units to separate.
            if round == 0 {
                continue;
            }
            break;
        }
        // The units moved clear, each against the geometry on its own (on the pool's threads).
        let UnitFrame {
            bodies,
            positions,
            previous,
            zones,
            ..
        } = &mut *frame;
        constrain_moved(
            bodies,
            positions,
            previous,
            zones,
            &mut s.held,
            &mut s.chunk_near,
            terrain,
        );
    }
}

/// Rounds of separating the units still overlapping held ones (and free pairs overlapping
/// by more than [`FREE_TOLERANCE`]) and applying the walls again.
const SETTLE_ROUNDS: usize = 6;

/// Rounds that may follow [`SETTLE_ROUNDS`] while a pair still overlaps by more than
/// [`DEEP_FRACTION`] of the sum of the radii.
const DEEP_SETTLE_ROUNDS: usize = 18;

/// Overlap (fraction of the sum of the radii) below which a pair with a held unit is left.
const SETTLE_TOLERANCE: f32 = 0.01;

/// Overlap (fraction of the sum of the radii) beyond which two units neither of which is held
/// are moved apart again in the settling rounds: one moved out of a held unit by the whole
/// overlap may land in a neighbour after the solver's iterations are over (a queue pressed
/// against a wall, longer than [`GIVE_WAY_PASSES`]). The depth at which the solver itself
/// goes on iterating.
const FREE_TOLERANCE: f32 = DEEP_FRACTION;

/// Applies the map's geometry to every unit whose `positions` entry differs from its body's
/// position (it was moved clear of a held unit), putting it there first; a unit the geometry
/// pushes back is held from then on.
fn constrain_moved(
    bodies: &mut [Body],
    positions: &[Vec2],
    previous: &[Vec2],
    zones: &[FreeZone],
    held: &mut [bool],
    geometry: &mut Vec<NearGeometry>,
    terrain: &Terrain,
) {
    for_each_unit_chunk(bodies, held, geometry, |first, bodies, held, near| {
        for (k, (body, held)) in bodies.iter_mut().zip(held).enumerate() {
            let i = first + k;
            match positions.get(i) {
                Some(&p) if p != body.position => {
                    let (previous, zone) = (previous.get(i).copied(), zones.get(i));
                    *held |= constrain_unit(body, previous, zone, terrain, p, near);
                    *held |= keep_in_bounds(terrain, body, near);
                }
                _ => {}
            }
        }
    });
}

/// Whether `body` overlaps any of `obstacles` or `walls` (walls and the edges of polygons) by
/// more than 5 % of its radius.
fn inside_any(body: &Body, obstacles: &[CircleObstacle], walls: &[Wall]) -> bool {
    let slack = 0.05 * body.radius;
    let near = body.radius - slack;
    obstacles.iter().any(|o| {
        let reach = o.radius + near;
        (body.position - o.center).length_squared() < reach * reach
    }) || walls
        .iter()
        .any(|w| (body.position - w.closest_point(body.position)).length_squared() < near * near)
}
