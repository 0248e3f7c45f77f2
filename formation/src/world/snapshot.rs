//! Saving, restoring and hashing a world's state.

use super::World;
use crate::error::WorldError;

impl World {
    /// The whole simulation state as RON text (units, formations, map, navgraph, random
    /// generator, tick, pending orders). Floats are written in shortest round-trip form, so
    /// [`World::from_snapshot`] restores them bit for bit.
    pub fn to_snapshot(&self) -> Result<String, WorldError> {
        ron::to_string(self).map_err(|e| WorldError::Invalid {
            what: "snapshot",
            why: e.to_string(),
        })
    }

    /// Restores a world saved by [`World::to_snapshot`]; stepping it on gives exactly the
    /// states the original would have reached.
    pub fn from_snapshot(text: &str) -> Result<Self, WorldError> {
        let mut world: World = ron::from_str(text).map_err(|e| WorldError::Invalid {
            what: "snapshot",
            why: e.to_string(),
        })?;
        world.check_loaded()?;
        world.terrain.rebuild_caches();
        world.restore_free_lists()?;
        world.units.settle_loaded();
        Ok(world)
    }

    /// Slot maps rebuild their free lists in index order when deserialized; put them back in
    /// the order the saved world would reuse them (see `world/free_order.rs`).
    fn restore_free_lists(&mut self) -> Result<(), WorldError> {
        use super::free_order::restore_free_order;
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

    /// A loaded snapshot holds only what the API would have accepted: valid bodies, finite
    /// anchors, sane tuning (a hand-edited or corrupted file must not bring NaN in).
    fn check_loaded(&self) -> Result<(), WorldError> {
        super::api::check_world_settings(&self.settings)?;
        self.units.check_loaded()?;
        for (_, f) in self.formations.iter() {
            super::api::check_formation_settings(&f.settings)?;
            let a = &f.anchor;
            if !(a.position.is_finite() && a.velocity.is_finite() && a.orientation.is_finite())
                || f.path.iter().any(|p| !p.is_finite())
            {
                return Err(WorldError::Invalid {
                    what: "snapshot",
                    why: format!("formation {:?} has a non-finite anchor or path", f.name),
                });
            }
        }
        Ok(())
    }

    /// A 64-bit FNV-1a hash of the full state (its snapshot): equal hashes mean identical
    /// states, bit for bit.
    pub fn state_hash(&self) -> u64 {
        let text = self.to_snapshot().unwrap_or_default();
        fnv1a(text.as_bytes())
    }
}

/// A placeholder unit that occupies a free slot while the free list is rebuilt.
fn filler_unit() -> super::unit_store::UnitMotion {
    super::unit_store::UnitMotion {
        body: cohort_steering::Body::default(),
        slot_target: None,
        role: crate::pattern::Role::Any,
        jump_speed: 0.0,
        routed: false,
        airborne: false,
        group: super::avoidance::NO_GROUP,
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

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn fnv_known_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
