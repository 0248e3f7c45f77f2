//! The reciprocal-avoidance baseline: every unit is a `dodgy_2d` agent (RVO2's ORCA ported to
//! Rust) walking a route to its own goal, with a uniform grid for the neighbour search.
//!
//! The loop is RVO2's: each tick every agent picks a preferred velocity toward its route's next
//! waypoint at top speed (slowing within one step of the goal), asks `dodgy_2d` for the velocity
//! closest to it that avoids its nearest neighbours and the obstacles near it, and then all
//! agents move at once (`position += velocity * dt`). `dodgy_2d` uses glam 0.29; values cross
//! that boundary as `f32` pairs.

use std::borrow::Cow;

use cohort_pathing::ValidMap;
use cohort_steering::ops;
use dodgy_2d::{Agent, AvoidanceOptions, Obstacle};
use glam::Vec2;
use serde::{Deserialize, Serialize};

/// Most grid cells the neighbour search allocates (the cell grows past the neighbour distance
/// when agents are spread wider than this allows).
const MAX_GRID_CELLS: usize = 1 << 20;
/// Size of the tiny random nudge added to every preferred velocity (m/s), as RVO2's Blocks
/// example does to break perfectly symmetric deadlocks. Deterministic: hashed from the agent
/// and the tick.
const NUDGE: f32 = 1e-4;

/// ORCA's tuning, RVO2's example parameters by default.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DodgyParams {
    /// Agents farther apart than this (m) are not neighbours (RVO2's `neighborDist`, 15).
    pub neighbour_distance: f32,
    /// The nearest this many neighbours are avoided (RVO2's `maxNeighbors`, 10).
    pub max_neighbours: usize,
    /// Seconds ahead collisions with other agents are avoided (RVO2's Blocks example: 5).
    pub time_horizon: f32,
    /// Seconds ahead collisions with obstacles are avoided (RVO2's Blocks example: 5).
    pub obstacle_time_horizon: f32,
}

impl Default for DodgyParams {
    fn default() -> Self {
        Self {
            neighbour_distance: 15.0,
            max_neighbours: 10,
            time_horizon: 5.0,
            obstacle_time_horizon: 5.0,
        }
    }
}

impl DodgyParams {
    /// An error naming the first parameter that is not finite and positive.
    pub fn check(&self) -> Result<(), String> {
        for (name, v) in [
            ("--neighbour-distance", self.neighbour_distance),
            ("--time-horizon", self.time_horizon),
            ("--obstacle-time-horizon", self.obstacle_time_horizon),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} must be finite and positive, got {v}"));
            }
        }
        if self.max_neighbours == 0 || self.max_neighbours > 1000 {
            return Err(format!(
                "--max-neighbours must be 1..=1000, got {}",
                self.max_neighbours
            ));
        }
        Ok(())
    }
}

/// One unit as the baseline sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    /// Where it starts.
    pub start: Vec2,
    /// Where it must end.
    pub goal: Vec2,
    /// Body radius.
    pub radius: f32,
    /// Top speed.
    pub max_speed: f32,
    /// Waypoints after the start, the last one the goal (just `[goal]` in the open).
    pub route: Vec<Vec2>,
}

fn to_d(v: Vec2) -> dodgy_2d::Vec2 {
    dodgy_2d::Vec2::new(v.x, v.y)
}

fn from_d(v: dodgy_2d::Vec2) -> Vec2 {
    Vec2::new(v.x, v.y)
}

/// An obstacle and its bounding box (to skip those out of reach).
#[derive(Clone, Debug)]
struct PlacedObstacle {
    obstacle: Obstacle,
    min: Vec2,
    max: Vec2,
}

/// The map's obstacles as `dodgy_2d` closed obstacles (counter-clockwise, solid inside):
/// polygons and gaps as they are, circles as 16-gons around them, walls as thin rectangles.
pub fn obstacles_of(map: &cohort_pathing::Map) -> Vec<Vec<Vec2>> {
    let mut out: Vec<Vec<Vec2>> = Vec::new();
    for p in &map.polygons {
        out.push(p.points.clone());
    }
    for g in &map.gaps {
        out.push(g.points.clone());
    }
    for c in &map.circles {
        // Circumscribed, so the polygon covers the circle.
        let r = c.radius / ops::sin_cos(std::f32::consts::PI / 16.0).1;
        out.push(
            (0..16)
                .map(|k| {
                    let a = k as f32 * std::f32::consts::TAU / 16.0;
                    let (sin, cos) = ops::sin_cos(a);
                    c.center + r * Vec2::new(cos, sin)
                })
                .collect(),
        );
    }
    for w in &map.walls {
        let n = (w.to - w.from).perp().normalize_or_zero() * 0.05;
        out.push(vec![w.from - n, w.to - n, w.to + n, w.from + n]);
    }
    for poly in &mut out {
        let area: f32 = poly
            .iter()
            .zip(poly.iter().cycle().skip(1))
            .map(|(a, b)| a.perp_dot(*b))
            .sum();
        if area < 0.0 {
            poly.reverse();
        }
    }
    out
}

/// The baseline simulation.
#[derive(Debug)]
pub struct DodgySim {
    params: DodgyParams,
    specs: Vec<AgentSpec>,
    agents: Vec<Agent>,
    next_waypoint: Vec<usize>,
    obstacles: Vec<PlacedObstacle>,
    tick: u64,
    grid: Grid,
    velocities: Vec<Vec2>,
}

impl DodgySim {
    /// Agents at their starts, at rest; `obstacles` as [`obstacles_of`] gives them.
    pub fn new(specs: Vec<AgentSpec>, obstacles: &[Vec<Vec2>], params: DodgyParams) -> Self {
        let agents = specs
            .iter()
            .map(|s| Agent {
                position: to_d(s.start),
                velocity: dodgy_2d::Vec2::ZERO,
                radius: s.radius,
                avoidance_responsibility: 1.0,
            })
            .collect();
        let obstacles = obstacles
            .iter()
            .filter(|p| p.len() >= 2)
            .map(|p| PlacedObstacle {
                obstacle: Obstacle::Closed {
                    vertices: p.iter().map(|&v| to_d(v)).collect(),
                },
                min: p.iter().copied().fold(Vec2::INFINITY, Vec2::min),
                max: p.iter().copied().fold(Vec2::NEG_INFINITY, Vec2::max),
            })
            .collect();
        Self {
            params,
            next_waypoint: vec![0; specs.len()],
            velocities: vec![Vec2::ZERO; specs.len()],
            specs,
            agents,
            obstacles,
            tick: 0,
            grid: Grid::default(),
        }
    }

    /// The agents' specs, in the order they were given.
    pub fn specs(&self) -> &[AgentSpec] {
        &self.specs
    }

    /// Position and velocity of every agent.
    pub fn states(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        self.agents
            .iter()
            .map(|a| (from_d(a.position), from_d(a.velocity)))
    }

    /// One tick of `dt` seconds; `map` answers line-of-sight for route following.
    pub fn step(&mut self, dt: f32, map: &ValidMap) {
        let positions: Vec<Vec2> = self.agents.iter().map(|a| from_d(a.position)).collect();
        self.grid
            .rebuild(&positions, self.params.neighbour_distance.max(1e-3));
        let preferred: Vec<Vec2> = (0..self.agents.len())
            .map(|i| self.preferred_velocity(i, positions[i], dt, map))
            .collect();
        let options_for = |radius: f32| AvoidanceOptions {
            obstacle_margin: radius,
            time_horizon: self.params.time_horizon,
            obstacle_time_horizon: self.params.obstacle_time_horizon,
        };
        let mut near: Vec<(f32, u32)> = Vec::new();
        for i in 0..self.agents.len() {
            let spec = &self.specs[i];
            let p = positions[i];
            near.clear();
            let reach = self.params.neighbour_distance;
            self.grid.for_each_near(p, reach, |j| {
                if j as usize != i {
                    let d2 = (positions[j as usize] - p).length_squared();
                    if d2 < reach * reach {
                        near.push((d2, j));
                    }
                }
            });
            let keep = self.params.max_neighbours;
            if near.len() > keep {
                near.select_nth_unstable_by(keep, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                near.truncate(keep);
            }
            near.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let neighbours: Vec<Cow<'_, Agent>> = near
                .iter()
                .map(|&(_, j)| Cow::Borrowed(&self.agents[j as usize]))
                .collect();
            let obstacle_reach = self.params.obstacle_time_horizon * spec.max_speed + spec.radius;
            let obstacles: Vec<Cow<'_, Obstacle>> = self
                .obstacles
                .iter()
                .filter(|o| {
                    let nearest = p.clamp(o.min, o.max);
                    (nearest - p).length_squared() <= obstacle_reach * obstacle_reach
                })
                .map(|o| Cow::Borrowed(&o.obstacle))
                .collect();
            let v = self.agents[i].compute_avoiding_velocity(
                &neighbours,
                &obstacles,
                to_d(preferred[i]),
                spec.max_speed,
                dt,
                &options_for(spec.radius),
            );
            let v = from_d(v);
            self.velocities[i] = if v.is_finite() { v } else { Vec2::ZERO };
        }
        for (agent, &v) in self.agents.iter_mut().zip(&self.velocities) {
            agent.velocity = to_d(v);
            agent.position += to_d(v * dt);
        }
        self.tick += 1;
    }

    /// Toward the route's next waypoint at top speed; within one step of the goal, exactly
    /// onto it. Waypoints are skipped once reached or once the one after is in sight.
    fn preferred_velocity(&mut self, i: usize, p: Vec2, dt: f32, map: &ValidMap) -> Vec2 {
        let spec = &self.specs[i];
        let k = &mut self.next_waypoint[i];
        while *k + 1 < spec.route.len() {
            let here = spec.route[*k];
            if (here - p).length() <= spec.radius
                || map.line_of_sight(p, spec.route[*k + 1], spec.radius)
            {
                *k += 1;
            } else {
                break;
            }
        }
        let target = spec.route.get(*k).copied().unwrap_or(spec.goal);
        let to = target - p;
        let d = to.length();
        let last = *k + 1 >= spec.route.len();
        let v = if last && d <= spec.max_speed * dt {
            to / dt
        } else if d > 0.0 {
            to / d * spec.max_speed
        } else {
            Vec2::ZERO
        };
        v + nudge(i as u64, self.tick)
    }
}

/// A deterministic vector of length at most [`NUDGE`] from an agent and a tick.
fn nudge(agent: u64, tick: u64) -> Vec2 {
    let mut z = agent
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(tick.wrapping_mul(0xbf58_476d_1ce4_e5b9));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let angle = (z >> 40) as f32 / (1u64 << 24) as f32 * std::f32::consts::TAU;
    let length = (z & 0xff_ffff) as f32 / (1u64 << 24) as f32 * NUDGE;
    let (sin, cos) = ops::sin_cos(angle);
    length * Vec2::new(cos, sin)
}

/// A uniform grid over the agents' bounding box, rebuilt every tick (a counting sort).
#[derive(Debug, Default)]
struct Grid {
    min: Vec2,
    cell: f32,
    nx: usize,
    ny: usize,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    fn rebuild(&mut self, positions: &[Vec2], cell: f32) {
        let finite = positions.iter().copied().filter(|p| p.is_finite());
        let (min, max) = finite.fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
        let (min, max) = if min.x <= max.x {
            (min, max)
        } else {
            (Vec2::ZERO, Vec2::ZERO)
        };
        let extent = max - min;
        let mut cell = cell;
        while ((extent.x / cell) as usize + 1).saturating_mul((extent.y / cell) as usize + 1)
            > MAX_GRID_CELLS
        {
            cell *= 2.0;
        }
        self.min = min;
        self.cell = cell;
        self.nx = (extent.x / cell) as usize + 1;
        self.ny = (extent.y / cell) as usize + 1;
        let cells = self.nx * self.ny;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        for &p in positions {
            let c = self.cell_of(p);
            self.starts[c + 1] += 1;
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(positions.len(), 0);
        let mut fill = self.starts.clone();
        for (i, &p) in positions.iter().enumerate() {
            let c = self.cell_of(p);
            self.items[fill[c] as usize] = i as u32;
            fill[c] += 1;
        }
    }

    fn coords(&self, p: Vec2) -> (usize, usize) {
        let q = ((p - self.min) / self.cell).max(Vec2::ZERO);
        let x = if q.x.is_finite() { q.x as usize } else { 0 };
        let y = if q.y.is_finite() { q.y as usize } else { 0 };
        (x.min(self.nx - 1), y.min(self.ny - 1))
    }

    fn cell_of(&self, p: Vec2) -> usize {
        let (x, y) = self.coords(p);
        y * self.nx + x
    }

    /// Calls `f` with every agent in the cells within `reach` of `p`.
    fn for_each_near(&self, p: Vec2, reach: f32, mut f: impl FnMut(u32)) {
        if self.nx == 0 {
            return;
        }
        let (x0, y0) = self.coords(p - Vec2::splat(reach));
        let (x1, y1) = self.coords(p + Vec2::splat(reach));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let c = y * self.nx + x;
                for &j in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
                    f(j);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_map() -> ValidMap {
        cohort_pathing::Map::with_bounds(Vec2::splat(-50.0), Vec2::splat(50.0))
            .validate()
            .unwrap()
    }

    #[test]
    fn two_agents_swap_without_touching() {
        let spec = |start: Vec2, goal: Vec2| AgentSpec {
            start,
            goal,
            radius: 0.5,
            max_speed: 1.3,
            route: vec![goal],
        };
        let specs = vec![
            spec(Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0)),
            spec(Vec2::new(10.0, 0.0), Vec2::new(-10.0, 0.0)),
        ];
        let map = open_map();
        let mut sim = DodgySim::new(specs, &[], DodgyParams::default());
        let mut closest = f32::INFINITY;
        for _ in 0..400 {
            sim.step(0.1, &map);
            let s: Vec<_> = sim.states().collect();
            closest = closest.min((s[0].0 - s[1].0).length());
        }
        let s: Vec<_> = sim.states().collect();
        assert!((s[0].0 - Vec2::new(10.0, 0.0)).length() < 0.5, "{s:?}");
        assert!((s[1].0 - Vec2::new(-10.0, 0.0)).length() < 0.5, "{s:?}");
        assert!(closest >= 0.99, "{closest}");
    }

    #[test]
    fn grid_finds_what_brute_force_finds() {
        let mut rng = cohort_steering::SimRng::seed_from(5);
        let ps: Vec<Vec2> = (0..300)
            .map(|_| Vec2::new(rng.range(-40.0, 40.0), rng.range(-5.0, 60.0)))
            .collect();
        let mut g = Grid::default();
        g.rebuild(&ps, 7.0);
        for &p in ps.iter().take(30) {
            let mut got = Vec::new();
            g.for_each_near(p, 7.0, |j| {
                if (ps[j as usize] - p).length() < 7.0 {
                    got.push(j);
                }
            });
            got.sort_unstable();
            let want: Vec<u32> = (0..ps.len() as u32)
                .filter(|&j| (ps[j as usize] - p).length() < 7.0)
                .collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn obstacles_are_counter_clockwise() {
        let mut map = cohort_pathing::Map::with_bounds(Vec2::ZERO, Vec2::splat(10.0));
        map.polygons.push(
            cohort_pathing::PolygonObstacle::new(vec![
                Vec2::new(1.0, 1.0),
                Vec2::new(1.0, 3.0),
                Vec2::new(3.0, 3.0),
                Vec2::new(3.0, 1.0),
            ])
            .unwrap(),
        );
        let obs = obstacles_of(&map);
        let p = &obs[0];
        let area: f32 = (0..p.len())
            .map(|k| p[k].perp_dot(p[(k + 1) % p.len()]))
            .sum();
        assert!(area > 0.0);
    }
}
