//! What a world can be asked: its clock, map and settings, units, tactics, jumps, the
//! velocities steering chose and the stage timings of the last tick.

use cohort_pathing::{JumpAbility, JumpEvent, Map, NavGraph};
use cohort_steering::{SimRng, Vec2};

use crate::ids::{FormationId, UnitId};
use crate::tactics::Tactic;
use crate::world::timings::StepTimings;
use crate::world::{UnitRef, World, WorldSettings};

impl World {
    /// The number of ticks (sub-steps) taken so far.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The map.
    pub fn map(&self) -> &Map {
        self.terrain.map()
    }

    /// The navigation graph.
    pub fn navgraph(&self) -> &NavGraph {
        self.terrain.navgraph()
    }

    /// The world's tuning.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// The world's random number generator (seeded at creation).
    pub fn rng_mut(&mut self) -> &mut SimRng {
        &mut self.rng
    }

    /// A unit by key.
    pub fn unit(&self, id: UnitId) -> Option<UnitRef<'_>> {
        self.units.view(id)
    }

    /// All units, in a stable order (by key).
    pub fn units(&self) -> impl Iterator<Item = (UnitId, UnitRef<'_>)> {
        self.units
            .motion
            .keys()
            .filter_map(|id| Some((id, self.units.view(id)?)))
    }

    /// The validated map, with its cover points and line-of-sight queries (what the
    /// tactics layer's cover choices are checked against).
    pub fn valid_map(&self) -> &cohort_pathing::ValidMap {
        self.terrain.valid_map()
    }

    /// What formation `id`'s tactics are doing, if it runs a play or an overwatch advance.
    pub fn tactic(&self, id: FormationId) -> Option<&Tactic> {
        self.tactics.iter().find(|(f, _)| *f == id).map(|(_, t)| t)
    }

    /// The weakest jumping ability among the units under formation `id` (lowest jump speed,
    /// lowest run speed), or `None` when any of them cannot jump or the formation has none.
    pub fn formation_jump_ability(&self, id: FormationId) -> Option<JumpAbility> {
        let mut ids = Vec::new();
        self.units_in(id, &mut ids);
        let mut weakest: Option<JumpAbility> = None;
        for u in ids.iter().filter_map(|&u| self.units.get(u)) {
            let a = u.jump_ability(self.settings.gravity)?;
            weakest = Some(match weakest {
                None => a,
                Some(w) => JumpAbility {
                    max_run_speed: w.max_run_speed.min(a.max_run_speed),
                    jump_speed: w.jump_speed.min(a.jump_speed),
                    gravity: w.gravity,
                },
            });
        }
        weakest
    }

    /// Jumps taken in the last [`World::step`] call, in the order they happened.
    pub fn jump_events(&self) -> &[(UnitId, JumpEvent)] {
        &self.jump_events
    }

    /// The velocity the last tick's steering and avoidance chose for unit `id`, before the
    /// constraints: what a game that moves its units itself gives its body after
    /// [`World::plan`]. `None` for a unit that was in the air or did not exist in that tick
    /// (or before the first tick; a clone or a restored world has none until it ticks).
    pub fn desired_velocity(&self, id: UnitId) -> Option<Vec2> {
        let frame = &self.frame;
        // The frame holds its units in key order, which is the order of their slot indices.
        let k = frame
            .ids
            .binary_search_by_key(&slot_index(id), |&u| slot_index(u))
            .ok()?;
        (frame.ids.get(k) == Some(&id))
            .then(|| frame.desired.get(k).copied())
            .flatten()
    }

    /// Every unit the last tick steered, with its [`World::desired_velocity`], in key order.
    pub fn desired_velocities(&self) -> impl Iterator<Item = (UnitId, Vec2)> + '_ {
        self.frame
            .ids
            .iter()
            .copied()
            .zip(self.frame.desired.iter().copied())
    }

    /// What each stage of the last [`World::step`] or [`World::plan`] call cost and how many
    /// units and formations it handled (zeros before the first call).
    pub fn timings(&self) -> &StepTimings {
        &self.timings
    }
}

/// The slot index of a key (its low 32 bits): the order in which the world walks its units.
fn slot_index(id: UnitId) -> u32 {
    use slotmap::Key;
    id.data().as_ffi() as u32
}
