//! One unit's steering force: walls, obstacles, separation and arrive, combined by
//! prioritized truncation (the first part of the steering stage's per-unit work).

use cohort_steering::behaviours::{
    WallAvoidanceParams, arrive_moving, obstacle_avoidance, wall_avoidance,
};
use cohort_steering::combine::ForceAccumulator;
use cohort_steering::{Body, CircleObstacle, Vec2, Wall};

use super::super::free_zone::{FREE_ZONE_EXTRA, FreeZone, ZONE_SLACK};
use super::super::separation::{Heading, round_blocker};
use super::{LOOK_AHEAD_TIME, SteerContext};

impl SteerContext<'_> {
    /// Walls, obstacles, separation, then arrive, combined by prioritized truncation. The
    /// unit's `zone` (a ball known to hold no static geometry) spares the geometry query while
    /// the look-ahead ball stays inside it, and is renewed when it does not.
    #[inline]
    pub(super) fn steer_one(
        &self,
        i: usize,
        body: &Body,
        near_obstacles: &mut Vec<CircleObstacle>,
        near_walls: &mut Vec<Wall>,
        zone: &mut FreeZone,
    ) -> Vec2 {
        let Some(&(goal, goal_velocity)) = self.goals.get(i) else {
            return Vec2::ZERO;
        };
        let body = *body;
        let settings = self.settings;
        let mut acc = ForceAccumulator::new(body.max_force);
        // 1. walls, 2. obstacles: near geometry from the map's broad phase.
        let look = body.radius + body.speed() * LOOK_AHEAD_TIME + 1.0;
        if zone.free_around(body.position) >= look {
            // Inside a ball with nothing in it: the query would find nothing.
            near_obstacles.clear();
            near_walls.clear();
        } else {
            // A wider query first. Nothing closer than the nearest item it finds (or than its
            // radius, when it finds none) is in the way: the unit need not ask again while its
            // look-ahead ball stays inside that ball. When the look-ahead ball reaches an item,
            // the exact query, so steering sees what it always saw.
            let wide = look + FREE_ZONE_EXTRA;
            let p = body.position;
            self.terrain
                .geometry_near(p, wide, near_obstacles, near_walls);
            let nearest = near_obstacles
                .iter()
                .map(|o| o.signed_distance(p))
                .chain(near_walls.iter().map(|w| (w.closest_point(p) - p).length()))
                .fold(wide, f32::min);
            if nearest > look + ZONE_SLACK {
                zone.open(p, nearest);
                near_obstacles.clear();
                near_walls.clear();
            } else {
                zone.close();
                self.terrain
                    .geometry_near(p, look, near_obstacles, near_walls);
            }
        }
        if !near_walls.is_empty() {
            // A unit closing on a goal that stands still, where it fits, feels no further
            // than the goal: a slot beside a wall is reached, not held off by the wall beyond
            // it. (A goal in the geometry keeps the full feelers: the unit is held off it.)
            let capped;
            let walls = if goal_velocity == Vec2::ZERO
                && !self.terrain.valid_map().is_blocked(goal, body.radius)
            {
                let reach = (goal - body.position).length() + body.radius;
                capped = WallAvoidanceParams {
                    feeler_length: self.walls.feeler_length.min(reach),
                    ..*self.walls
                };
                &capped
            } else {
                self.walls
            };
            let f = wall_avoidance(&body, near_walls, walls);
            acc.add_weighted(settings.wall_weight, f);
        }
        if !near_obstacles.is_empty() && !acc.is_spent() {
            let f = obstacle_avoidance(&body, near_obstacles, self.obstacles);
            acc.add_weighted(settings.obstacle_weight, f);
        }
        // 3. separation from neighbours (summed by the sweep over the grid).
        if !acc.is_spent() {
            let sum = self.separation.get(i).copied().unwrap_or(Vec2::ZERO);
            let heading = self.headings.get(i).copied().unwrap_or(Heading::StillSlot);
            // Near another formation, avoidance takes the unit round the other's units (and a
            // push may come from them): only squad-mates alone among themselves walk round.
            let alone = !self.avoid.as_ref().is_some_and(|a| a.in_traffic(i));
            let sum = if alone {
                round_blocker(sum, &body, goal, heading, settings.separation_range)
            } else {
                sum
            };
            acc.add_weighted(settings.separation_weight, sum * body.max_force);
        }
        // 4. arrive at the slot (or the next detour point, or stop where it is): the last
        // force, so the total's length is not needed afterwards.
        if acc.is_spent() {
            return acc.total();
        }
        acc.total_with(arrive_moving(&body, goal, goal_velocity, self.arrive))
    }
}
