//! How a world stores its units. Every tick walks its units three times (the formation
//! stage's tally and slot targets, the steering stage's gather, the write-back after the
//! constraints); with 100,000 units those walks stream from memory, and their cost is the
//! bytes each unit takes in the arrays walked. So a unit is kept in three arrays indexed
//! alike, walked in key order:
//!
//! - [`UnitMotion`] in the slot map (about 90 bytes a unit): body, slot target, role and
//!   jump speed, and two flags saying whether the rest need be read at all;
//! - [`UnitDetails`] in a secondary map: membership, detour, planned jump and flight, read
//!   by a tick only for units on a detour or in the air;
//! - the heading smoothers in a secondary map, read by the write-back alone.
//!
//! The public face of a unit is the whole record [`Unit`] (what [`World::remove_unit`] returns)
//! and the view [`UnitRef`] ([`World::unit`], [`World::units`]); it is changed through the
//! world's checked setters (`World::set_unit_position` and the others).

use cohort_pathing::JumpAbility;
use cohort_steering::locomotion::HeadingSmoother;
use cohort_steering::{Body, Vec2};
use serde::{Deserialize, Serialize};
use slotmap::{SecondaryMap, SlotMap};

use super::{Flight, PlannedJump, Unit};
use crate::error::WorldError;
use crate::formation::SlotTarget;
use crate::ids::{FormationId, UnitId};
use crate::pattern::Role;

/// The part of a unit every tick reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct UnitMotion {
    pub(crate) body: Body,
    pub(crate) slot_target: Option<SlotTarget>,
    pub(crate) role: Role,
    pub(crate) jump_speed: f32,
    /// Whether the unit's details hold a detour or a planned jump (see [`UnitDetails::routed`]).
    #[serde(skip)]
    pub(crate) routed: bool,
    /// Whether the unit is in the air (its details hold a flight).
    #[serde(skip)]
    pub(crate) airborne: bool,
    /// The avoidance group of the unit: the place of its top-level formation among the
    /// roots, written with its slot target each tick (units of one group leave each other to
    /// separation; see `world/avoidance.rs`).
    #[serde(skip, default = "no_group")]
    pub(crate) group: u32,
}

fn no_group() -> u32 {
    super::avoidance::NO_GROUP
}

impl UnitMotion {
    /// The unit's jumping ability under `gravity`, `None` when it cannot jump.
    pub(crate) fn jump_ability(&self, gravity: f32) -> Option<JumpAbility> {
        JumpAbility::new(self.body.max_speed, self.jump_speed, gravity).ok()
    }

    /// Sets the flags from the unit's details.
    pub(crate) fn sync(&mut self, d: &UnitDetails) {
        self.routed = d.routed();
        self.airborne = d.flight.is_some();
    }

    /// The unit's details when its flags say they hold a route or a flight; else `None`
    /// without looking them up (with many units, the lookup is a trip to memory, and most
    /// units have neither).
    #[inline]
    pub(crate) fn details_in<'a>(
        &self,
        id: UnitId,
        details: &'a Details,
    ) -> Option<&'a UnitDetails> {
        if self.routed || self.airborne {
            details.get(id)
        } else {
            None
        }
    }

    /// [`Self::details_in`], mutably.
    #[inline]
    pub(crate) fn details_in_mut<'a>(
        &self,
        id: UnitId,
        details: &'a mut Details,
    ) -> Option<&'a mut UnitDetails> {
        if self.routed || self.airborne {
            details.get_mut(id)
        } else {
            None
        }
    }
}

/// Every unit's details, by key.
pub(crate) type Details = SecondaryMap<UnitId, UnitDetails>;

/// The part of a unit a tick reads only when the unit is on a detour or in the air (and the
/// API when it changes membership).
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct UnitDetails {
    pub(crate) formation: Option<FormationId>,
    pub(crate) detour: Vec<Vec2>,
    pub(crate) detour_tick: u64,
    pub(crate) next_jump: Option<PlannedJump>,
    pub(crate) flight: Option<Flight>,
    /// The user's tag (see [`Unit::tag`]).
    #[serde(default)]
    pub(crate) tag: u64,
}

impl UnitDetails {
    /// Whether the unit has a detour or a planned jump.
    pub(crate) fn routed(&self) -> bool {
        !self.detour.is_empty() || self.next_jump.is_some()
    }

    /// Forgets the detour and the planned jump.
    pub(crate) fn drop_route(&mut self) {
        self.detour.clear();
        self.next_jump = None;
    }
}

impl Clone for UnitDetails {
    /// A copy whose detour keeps room for a planned detour (a derived clone would size it to
    /// its points, so a cloned world's units would allocate on their first detour).
    fn clone(&self) -> Self {
        let mut detour = self.detour.clone();
        super::detours::reserve_detour(&mut detour);
        Self {
            formation: self.formation,
            detour,
            detour_tick: self.detour_tick,
            next_jump: self.next_jump,
            flight: self.flight,
            tag: self.tag,
        }
    }
}

/// A world's units: the three arrays of the [module docs](self), holding the same keys.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct UnitStore {
    pub(crate) motion: SlotMap<UnitId, UnitMotion>,
    pub(crate) details: Details,
    pub(crate) smoothers: SecondaryMap<UnitId, HeadingSmoother>,
}

impl UnitStore {
    /// Room for `additional` more units in every array, so that adding them moves nothing.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.motion.reserve(additional);
        let capacity = self.motion.capacity();
        self.details.set_capacity(capacity);
        self.smoothers.set_capacity(capacity);
    }

    /// A unit's motion.
    #[inline]
    pub(crate) fn get(&self, id: UnitId) -> Option<&UnitMotion> {
        self.motion.get(id)
    }

    /// A unit's motion, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: UnitId) -> Option<&mut UnitMotion> {
        self.motion.get_mut(id)
    }

    /// Number of units.
    pub(crate) fn len(&self) -> usize {
        self.motion.len()
    }

    /// Stores a unit; its key.
    pub(crate) fn insert(&mut self, unit: Unit) -> UnitId {
        let Unit {
            body,
            slot_target,
            smoother,
            mut detour,
            flight,
            formation,
            role,
            jump_speed,
            detour_tick,
            next_jump,
            tag,
        } = unit;
        super::detours::reserve_detour(&mut detour);
        let details = UnitDetails {
            formation,
            detour,
            detour_tick,
            next_jump,
            flight,
            tag,
        };
        let mut motion = UnitMotion {
            body,
            slot_target,
            role,
            jump_speed,
            routed: false,
            group: super::avoidance::NO_GROUP,
            airborne: false,
        };
        motion.sync(&details);
        let id = self.motion.insert(motion);
        self.details.insert(id, details);
        self.smoothers.insert(id, smoother);
        id
    }

    /// Takes a unit out, whole.
    pub(crate) fn remove(&mut self, id: UnitId) -> Option<Unit> {
        let unit = self.view(id)?.to_unit();
        self.motion.remove(id);
        self.details.remove(id);
        self.smoothers.remove(id);
        Some(unit)
    }

    /// A view of a unit.
    pub(crate) fn view(&self, id: UnitId) -> Option<UnitRef<'_>> {
        let m = self.motion.get(id)?;
        let d = self.details.get(id)?;
        let smoother = self.smoothers.get(id)?;
        Some(UnitRef {
            body: m.body,
            slot_target: m.slot_target,
            smoother: *smoother,
            detour: &d.detour,
            flight: d.flight,
            formation: d.formation,
            role: m.role,
            jump_speed: m.jump_speed,
            detour_tick: d.detour_tick,
            next_jump: d.next_jump,
            tag: d.tag,
        })
    }

    /// After loading: every key in all three arrays, valid bodies, and finite slot targets,
    /// detours, flights and jump speeds (else the snapshot is refused: a hand-edited file
    /// must not bring NaN in).
    pub(crate) fn check_loaded(&self) -> Result<(), WorldError> {
        let n = self.motion.len();
        let whole = self.details.len() == n
            && self.smoothers.len() == n
            && self
                .motion
                .keys()
                .all(|id| self.details.contains_key(id) && self.smoothers.contains_key(id));
        if !whole {
            return Err(WorldError::Invalid {
                what: "snapshot",
                why: "units' motion, details and smoothers do not hold the same keys".into(),
            });
        }
        for (id, m) in self.motion.iter() {
            m.body.validate()?;
            let target = m.slot_target.is_none_or(|t| {
                t.position.is_finite() && t.velocity.is_finite() && t.facing.is_finite()
            });
            let d = self.details.get(id);
            let detour = d.is_none_or(|d| {
                d.detour.iter().all(|p| p.is_finite())
                    && d.next_jump
                        .is_none_or(|j| j.takeoff.is_finite() && j.landing.is_finite())
            });
            let flight = d.and_then(|d| d.flight).is_none_or(|f| {
                f.from.is_finite()
                    && f.velocity.is_finite()
                    && [f.vertical_speed, f.duration, f.elapsed, f.base_height]
                        .iter()
                        .all(|v| v.is_finite())
            });
            let jump = m.jump_speed.is_finite() && m.jump_speed >= 0.0;
            if !(target && detour && flight && jump) {
                return Err(WorldError::Invalid {
                    what: "snapshot",
                    why: format!(
                        "unit {id:?} has a non-finite slot target, detour or flight, or a bad \
                         jump speed"
                    ),
                });
            }
        }
        Ok(())
    }

    /// After loading (and after the slot map's free list is rebuilt, which goes through its
    /// serialized form): detours with their room, flags set from the details (they are not
    /// saved).
    pub(crate) fn settle_loaded(&mut self) {
        for (id, m) in self.motion.iter_mut() {
            if let Some(d) = self.details.get_mut(id) {
                super::detours::reserve_detour(&mut d.detour);
                m.sync(d);
            }
        }
    }

    /// Whether every unit's flags agree with its details (checked by debug builds each tick).
    pub(crate) fn flags_agree(&self) -> bool {
        self.motion.iter().all(|(id, m)| {
            self.details
                .get(id)
                .is_some_and(|d| m.routed == d.routed() && m.airborne == d.flight.is_some())
        })
    }
}

/// A unit as the world holds it, read-only ([`World::unit`](super::World::unit),
/// [`World::units`](super::World::units)): the fields of [`Unit`], the detour borrowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitRef<'a> {
    /// The body steering moves.
    pub body: Body,
    /// Where the unit's slot is this tick.
    pub slot_target: Option<SlotTarget>,
    /// Heading smoothing (the anti-judder fix).
    pub smoother: HeadingSmoother,
    /// A path around an obstacle to the slot, when the straight line is blocked.
    pub detour: &'a [Vec2],
    /// The unit's flight while it is in the air.
    pub flight: Option<Flight>,
    /// The leaf formation the unit is a member of; `None` for a free unit.
    pub formation: Option<FormationId>,
    /// The role the unit asks for in its formation's pattern.
    pub role: Role,
    /// Vertical take-off speed of the unit's jump (0: the unit cannot jump).
    pub jump_speed: f32,
    /// Tick at which the detour was planned.
    pub detour_tick: u64,
    /// The jump or leap on the unit's detour.
    pub next_jump: Option<PlannedJump>,
    /// The user's tag (see [`Unit::tag`]).
    pub tag: u64,
}

impl UnitRef<'_> {
    /// The unit's jumping ability under `gravity`, `None` when it cannot jump.
    pub fn jump_ability(&self, gravity: f32) -> Option<JumpAbility> {
        JumpAbility::new(self.body.max_speed, self.jump_speed, gravity).ok()
    }

    /// Whether the unit is in the air.
    pub fn is_airborne(&self) -> bool {
        self.flight.is_some()
    }

    /// The whole record, copied.
    pub fn to_unit(&self) -> Unit {
        Unit {
            body: self.body,
            slot_target: self.slot_target,
            smoother: self.smoother,
            detour: self.detour.to_vec(),
            flight: self.flight,
            formation: self.formation,
            role: self.role,
            jump_speed: self.jump_speed,
            detour_tick: self.detour_tick,
            next_jump: self.next_jump,
            tag: self.tag,
        }
    }
}

#[cfg(test)]
mod tests;
