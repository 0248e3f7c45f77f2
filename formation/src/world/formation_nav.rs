//! The formation's own navigation: anchors plan on a copy of the map without its small
//! obstacles (trees, posts, rocks a member simply walks around), so a formation's path runs
//! straight through a wood while still going round walls, buildings and large obstacles. The
//! members deal with the small obstacles by steering (avoidance, and a detour when one blocks
//! a slot). The copy and its navigation graph are a cache built from the map with the world
//! (and again when [`super::WorldSettings::small_obstacle_radius`] changes); they are not saved
//! in snapshots.

use cohort_pathing::{JumpAbility, Map, ValidMap};
use cohort_steering::Vec2;

use super::World;
use super::terrain::{PathPlan, Terrain};

/// The small-obstacle-free map and graph formations plan on (`None` when the map has no small
/// obstacles, or the copy could not be built: formations then plan on the full map).
#[derive(Clone, Debug, Default)]
pub(crate) struct FormationNav {
    built_for: Option<f32>,
    terrain: Option<Terrain>,
}

impl FormationNav {
    /// The map formations plan on for `small_radius`: `map` without its circles of radius at
    /// most `small_radius`, or `None` when there are none (or `small_radius` is not positive).
    pub fn strip_small(map: &Map, small_radius: f32) -> Option<Map> {
        if !(small_radius > 0.0) || !map.circles.iter().any(|c| c.radius <= small_radius) {
            return None;
        }
        let mut m = map.clone();
        m.circles.retain(|c| c.radius > small_radius);
        Some(m)
    }

    fn ensure(&mut self, map: &Map, small_radius: f32) {
        if self.built_for == Some(small_radius) {
            return;
        }
        self.built_for = Some(small_radius);
        // Sampled as the world's own graph: the open ground between the large obstacles costs
        // few nodes, and narrow passages keep their detail.
        self.terrain =
            Self::strip_small(map, small_radius).and_then(|m| Terrain::for_planning(m).ok());
    }

    /// The terrain formations plan on for `small_radius`, built from `map` first if it is
    /// not built yet (a world restored from a snapshot, or the radius changed), so what a
    /// formation sees never depends on whether something planned a path before; `None` when
    /// it is the world's own.
    pub fn terrain(&mut self, map: &Map, small_radius: f32) -> Option<&Terrain> {
        self.ensure(map, small_radius);
        self.terrain.as_ref()
    }

    /// The valid map of [`Self::terrain`].
    pub fn valid_map(&mut self, map: &Map, small_radius: f32) -> Option<&ValidMap> {
        self.terrain(map, small_radius).map(Terrain::valid_map)
    }
}

impl World {
    /// Builds the map formations plan on now (a world being made or loaded) rather than in
    /// the middle of its first tick.
    pub(super) fn prepare_formation_nav(&mut self) {
        let small = self.settings.small_obstacle_radius;
        self.formation_nav.terrain(self.terrain.map(), small);
    }

    /// Plans a formation anchor's path: on the map without small obstacles (see the module
    /// docs), keeping `clearance` where it can and at least `min_clearance`.
    pub(crate) fn plan_formation_path(
        &mut self,
        from: Vec2,
        goal: Vec2,
        clearance: f32,
        min_clearance: f32,
        jump: Option<JumpAbility>,
    ) -> PathPlan {
        let small = self.settings.small_obstacle_radius;
        let terrain = self
            .formation_nav
            .terrain(self.terrain.map(), small)
            .unwrap_or(&self.terrain);
        terrain.plan_path(
            from,
            goal,
            clearance,
            min_clearance,
            jump,
            &mut self.scratch.path,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_steering::CircleObstacle;

    #[test]
    fn only_circles_up_to_the_radius_are_stripped() {
        let mut map = Map::with_bounds(Vec2::ZERO, Vec2::splat(50.0));
        map.circles
            .push(CircleObstacle::new(Vec2::splat(10.0), 0.8).unwrap());
        map.circles
            .push(CircleObstacle::new(Vec2::splat(30.0), 4.0).unwrap());
        let stripped = FormationNav::strip_small(&map, 1.0).unwrap();
        assert_eq!(stripped.circles.len(), 1);
        assert_eq!(stripped.circles[0].radius, 4.0);
        assert!(FormationNav::strip_small(&map, 0.5).is_none());
        assert!(FormationNav::strip_small(&map, 0.0).is_none());
        assert!(FormationNav::strip_small(&map, f32::NAN).is_none());
    }
}
