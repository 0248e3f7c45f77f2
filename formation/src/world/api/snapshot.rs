//! Saving and restoring a whole world (terrain included) as RON text.

use crate::error::WorldError;
use crate::world::World;

impl World {
    /// The whole world as RON text (units, formations, map, navgraph, random generator, tick,
    /// pending orders, tactics); [`World::save_state`] leaves the terrain out. Floats are written in shortest round-trip form, so
    /// [`World::from_snapshot`] restores them bit for bit.
    pub fn to_snapshot(&self) -> Result<String, WorldError> {
        ron::to_string(self).map_err(|e| WorldError::Invalid {
            what: "snapshot",
            why: e.to_string(),
        })
    }

    /// Restores a world saved by [`World::to_snapshot`]; stepping it on gives exactly the
    /// states the original would have reached. The world is checked as `world/validate.rs`
    /// says (finite numbers, sizes, the formation tree, pending orders) and refused with an
    /// error naming what is wrong.
    pub fn from_snapshot(text: &str) -> Result<Self, WorldError> {
        let mut world: World = ron::from_str(text).map_err(|e| WorldError::Invalid {
            what: "snapshot",
            why: e.to_string(),
        })?;
        world.terrain.rebuild_caches();
        world.settle_load()?;
        world.prepare_formation_nav();
        Ok(world)
    }

    /// Slot maps rebuild their free lists in index order when deserialized; put them back in
    /// the order the saved world would reuse them (see `world/free_order.rs`).
    pub(in crate::world) fn restore_free_lists(&mut self) -> Result<(), WorldError> {
        use crate::world::free_order::restore_free_order;
        restore_free_order(&mut self.units.motion, &self.unit_free, filler_unit)?;
        let pattern =
            crate::pattern::Pattern::default()
                .validate()
                .map_err(|e| WorldError::Invalid {
                    what: "snapshot",
                    why: e.to_string(),
                })?;
        restore_free_order(&mut self.formations, &self.formation_free, || {
            filler_formation(pattern.clone())
        })?;
        Ok(())
    }
}

/// A placeholder unit that occupies a free slot while the free list is rebuilt.
fn filler_unit() -> crate::world::unit_store::UnitMotion {
    crate::world::unit_store::UnitMotion {
        body: cohort_steering::Body::default(),
        slot_target: None,
        role: crate::pattern::Role::Any,
        jump_speed: 0.0,
        routed: false,
        airborne: false,
        group: crate::world::avoidance::NO_GROUP,
    }
}

/// A placeholder formation that occupies a free slot while the free list is rebuilt.
fn filler_formation(pattern: crate::pattern::ValidPattern) -> crate::formation::Formation {
    crate::formation::Formation::new(
        String::new(),
        pattern,
        crate::pattern::Role::Any,
        crate::formation::FormationSettings::default(),
        crate::anchor::AnchorPoint::at(cohort_steering::Vec2::ZERO, cohort_steering::Vec2::X),
    )
}
