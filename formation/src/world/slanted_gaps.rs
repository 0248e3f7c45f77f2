//! Gaps met at a slant: the navigation graph samples free space about a metre apart near
//! obstacles, so through a gap only a little wider than a unit, in a thick wall, it has an edge
//! only where its nodes happen to line up with the gap. Met head-on (start and goal on the
//! gap's line), a single of radius 1.2 m was routed through a gap 2.52 m wide in a wall 2 m
//! thick, but met at a slant it needed 2.9 to 3.5 m (a walker of radius 0.5: 1.12 m head-on,
//! 1.5 to 2.1 m at a slant). A plan that finds no route stops at the nearest point it
//! reaches, so the formation stood at the wall for good, beside a gap it fits through.
//!
//! When a formation's plan stops short of its goal, [`World::plan_through_slanted_gaps`]
//! plans again for a body half as wide (then a quarter), which the graph routes through such
//! a gap hugging its corner, puts the path down the middle line of each passage it crosses
//! (`passages.rs`), and keeps the result only if every leg holds the full clearance the
//! formation asked for and it ends nearer the goal. The same vehicle is now routed through
//! 2.52 to 2.72 m at any slant, the walker through 1.12 to 1.47 m. Plans that reach their goal
//! are never touched. (A member's detour to its slot, planned in the tick, still needs the
//! wider gap.)

use cohort_pathing::{JumpAbility, Leg, ValidMap};
use cohort_steering::Vec2;

use super::World;
use super::terrain::PathPlan;

/// Fractions of the clearance asked for that the second plan keeps, tried in turn.
const NARROWER: [f32; 2] = [0.5, 0.25];

/// Metres beyond the body's clearance on each side within which the second plan's path is
/// put down a passage's middle line: the graph routes a body through gaps met at a slant
/// once they are about this much wider than it.
const PASSAGE_ROOM: f32 = 1.0;

/// How much nearer its goal (metres) the second plan must end to be taken.
const NEARER: f32 = 0.5;

impl World {
    /// The plan through slanted gaps for a formation whose plan `first`, from `from` to `goal`
    /// for a body of `min_clearance` keeping `clearance` where it can, stops short of the goal:
    /// planned again for a body [`NARROWER`] as wide, put down the middle of the passages it crosses
    /// ([`super::passages::centre_in_passages`], `half_width` being the pattern's), and
    /// returned if it holds `min_clearance` along every leg (walking legs only) and ends at
    /// least [`NEARER`] metres nearer the goal; `None` otherwise, and for a plan that reaches
    /// its goal.
    pub(super) fn plan_through_slanted_gaps(
        &mut self,
        first: &PathPlan,
        (from, goal): (Vec2, Vec2),
        (clearance, min_clearance, half_width): (f32, f32, f32),
        jump: Option<JumpAbility>,
    ) -> Option<PathPlan> {
        let short_by = |p: &PathPlan| {
            p.points
                .last()
                .map_or(f32::INFINITY, |&e| (e - goal).length())
        };
        let short = short_by(first);
        if !(short > NEARER) || !(min_clearance > 0.0) {
            return None;
        }
        NARROWER.iter().find_map(|&k| {
            let mut alt = self.plan_formation_path(from, goal, clearance, k * min_clearance, jump);
            if !(short_by(&alt) + NEARER < short) || alt.legs.iter().any(|l| *l != Leg::Walk) {
                return None;
            }
            let map = self
                .formation_nav
                .valid_map(self.terrain.map(), self.settings.small_obstacle_radius)
                .unwrap_or(self.terrain.valid_map());
            let mut narrows = Vec::new();
            super::passages::centre_in_passages(
                map,
                &mut alt,
                half_width.max(min_clearance + PASSAGE_ROOM),
                min_clearance,
                &mut narrows,
            );
            holds(map, &alt.points, min_clearance).then_some(alt)
        })
    }
}

/// Whether a body of `radius` can walk every leg of `points` on `map`.
fn holds(map: &ValidMap, points: &[Vec2], radius: f32) -> bool {
    points
        .windows(2)
        .all(|w| map.line_of_sight(w[0], w[1], radius))
}
