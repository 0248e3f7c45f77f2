//! Checked changes from outside: a unit's body, position, velocity, role, jump speed and tag,
//! the world's tuning and a formation's. Each setter validates what it is given and returns a
//! `Result`; a refused value changes nothing (a NaN position is an error, never a unit
//! somewhere else).

use cohort_steering::{Body, Vec2};

use crate::error::WorldError;
use crate::formation::FormationSettings;
use crate::ids::{FormationId, UnitId};
use crate::pattern::Role;
use crate::world::World;
use crate::world::WorldSettings;
use crate::world::api::{check_formation_settings, check_world_settings};

/// What a unit starts with besides its body ([`World::add_unit_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnitOptions {
    /// The role the unit asks for in the formation it joins.
    pub role: Role,
    /// Vertical take-off speed of its jump, m/s, in [0, 1e4] (0: it cannot jump).
    pub jump_speed: f32,
    /// The user's tag, returned with the unit by [`World::unit`] and [`World::units`].
    pub tag: u64,
}

fn invalid(what: &'static str, why: impl Into<String>) -> WorldError {
    WorldError::Invalid {
        what,
        why: why.into(),
    }
}

/// A jump speed is finite and in [0, 1e4].
pub(in crate::world) fn check_jump_speed(speed: f32) -> Result<(), WorldError> {
    if speed.is_finite() && (0.0..=cohort_steering::limits::MAX_SPEED).contains(&speed) {
        Ok(())
    } else {
        Err(invalid(
            "jump speed",
            format!("must be in [0, 1e4], got {speed}"),
        ))
    }
}

impl World {
    /// Replaces unit `id`'s body (to teleport or retune it), validated as [`World::add_unit`]
    /// validates one; the position is pushed out of any obstacle it lies in. Refused for a
    /// unit in the air (its flight decides where it is).
    pub fn set_unit_body(&mut self, id: UnitId, mut body: Body) -> Result<(), WorldError> {
        let m = self.units.get(id).ok_or(WorldError::NoSuchUnit(id))?;
        if m.airborne {
            return Err(invalid("unit", "it is in the air; its flight places it"));
        }
        body.validate()?;
        body.position = self.terrain.push_out(body.position, body.radius);
        if let Some(m) = self.units.get_mut(id) {
            m.body = body;
        }
        Ok(())
    }

    /// Moves unit `id` to `position` (within `MAX_COORD`; pushed out of any obstacle). A NaN
    /// or out-of-range position is refused and the unit stays where it was.
    pub fn set_unit_position(&mut self, id: UnitId, position: Vec2) -> Result<(), WorldError> {
        let m = self.units.get(id).ok_or(WorldError::NoSuchUnit(id))?;
        let body = Body { position, ..m.body };
        self.set_unit_body(id, body)
    }

    /// Sets unit `id`'s velocity (finite; locomotion limits it to the top speed next tick).
    pub fn set_unit_velocity(&mut self, id: UnitId, velocity: Vec2) -> Result<(), WorldError> {
        let m = self.units.get(id).ok_or(WorldError::NoSuchUnit(id))?;
        let body = Body { velocity, ..m.body };
        self.set_unit_body(id, body)
    }

    /// Writes back where a game that moves units itself put unit `id` (see [`World::plan`]):
    /// its position (as [`World::set_unit_position`]) and velocity (finite); its heading
    /// turns to the velocity's direction when the unit moves. Checked whole: on an error
    /// nothing changes.
    pub fn set_unit_motion(
        &mut self,
        id: UnitId,
        position: Vec2,
        velocity: Vec2,
    ) -> Result<(), WorldError> {
        let m = self.units.get(id).ok_or(WorldError::NoSuchUnit(id))?;
        let heading = velocity
            .try_normalize()
            .filter(|_| velocity.length() > 1e-3)
            .unwrap_or(m.body.heading);
        let body = Body {
            position,
            velocity,
            heading,
            ..m.body
        };
        self.set_unit_body(id, body)
    }

    /// Sets the role unit `id` asks for; its formation reassigns its slots at the next tick.
    pub fn set_unit_role(&mut self, id: UnitId, role: Role) -> Result<(), WorldError> {
        let m = self.units.get_mut(id).ok_or(WorldError::NoSuchUnit(id))?;
        m.role = role;
        let formation = self.units.details.get(id).and_then(|d| d.formation);
        if let Some(f) = formation.and_then(|f| self.formations.get_mut(f)) {
            f.needs_assignment = true;
        }
        Ok(())
    }

    /// Sets unit `id`'s jump take-off speed, m/s, in [0, 1e4] (0: it cannot jump).
    pub fn set_unit_jump_speed(&mut self, id: UnitId, speed: f32) -> Result<(), WorldError> {
        check_jump_speed(speed)?;
        let m = self.units.get_mut(id).ok_or(WorldError::NoSuchUnit(id))?;
        m.jump_speed = speed;
        Ok(())
    }

    /// Sets unit `id`'s tag (a number of the user's the simulation never reads).
    pub fn set_unit_tag(&mut self, id: UnitId, tag: u64) -> Result<(), WorldError> {
        let d = self
            .units
            .details
            .get_mut(id)
            .ok_or(WorldError::NoSuchUnit(id))?;
        d.tag = tag;
        Ok(())
    }

    /// Replaces the world's tuning, checked as [`World::new`] checks it.
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<(), WorldError> {
        check_world_settings(&settings)?;
        self.settings = settings;
        Ok(())
    }

    /// Changes the world's tuning through `edit` (on a copy), checked as [`World::new`]
    /// checks it: refused tuning leaves the world's as it was.
    ///
    /// ```
    /// # use cohort_formation::{World, WorldSettings};
    /// # use cohort_pathing::Map;
    /// # use cohort_steering::Vec2;
    /// let map = Map::with_bounds(Vec2::ZERO, Vec2::splat(10.0));
    /// let mut world = World::new(map, WorldSettings::default(), 1).unwrap();
    /// assert!(world.update_settings(|s| s.separation_weight = 6.0).is_ok());
    /// assert!(world.update_settings(|s| s.arrive_time = f32::NAN).is_err());
    /// assert_eq!(world.settings().separation_weight, 6.0);
    /// assert_eq!(world.settings().arrive_time, WorldSettings::default().arrive_time);
    /// ```
    pub fn update_settings(
        &mut self,
        edit: impl FnOnce(&mut WorldSettings),
    ) -> Result<(), WorldError> {
        let mut s = self.settings.clone();
        edit(&mut s);
        self.set_settings(s)
    }

    /// Replaces formation `id`'s tuning, checked as [`World::add_formation`] checks it.
    pub fn set_formation_settings(
        &mut self,
        id: FormationId,
        settings: FormationSettings,
    ) -> Result<(), WorldError> {
        check_formation_settings(&settings)?;
        let f = self
            .formations
            .get_mut(id)
            .ok_or(WorldError::NoSuchFormation(id))?;
        f.settings = settings;
        Ok(())
    }
}
