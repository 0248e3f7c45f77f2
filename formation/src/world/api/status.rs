//! Status queries: what a formation is doing and whether its units have arrived, by the
//! rule of [`crate::status`].

use crate::error::WorldError;
use crate::formation::{Member, Motion};
use crate::ids::{FormationId, UnitId};
use crate::status::{BLOCKED_SPEED_FRACTION, FormationStatus, has_arrived, slot_error};
use crate::tactics::Tactic;
use crate::world::World;

/// Deepest chain of parents walked (formation trees are at most `MAX_FORMATION_DEPTH` deep).
const MAX_CHAIN: usize = 64;

impl World {
    /// Whether formation `id` and every formation above it hold at their goal (a free unit's
    /// `None` holds; so does a formation that no longer exists). The first half of the
    /// arrival rule ([`crate::status::has_arrived`]).
    pub fn formation_at_goal(&self, id: Option<FormationId>) -> bool {
        let mut cursor = id;
        let mut depth = 0;
        while let Some(c) = cursor {
            let Some(f) = self.formations.get(c) else {
                break;
            };
            if f.motion != Motion::Holding {
                return false;
            }
            cursor = f.parent;
            depth += 1;
            if depth > MAX_CHAIN {
                break;
            }
        }
        true
    }

    /// Whether unit `id` has arrived: its formation and every one above it hold at their goal
    /// and it stands within its radius of its slot ([`crate::status::has_arrived`]). A free
    /// unit (it has no slot) and a unit that does not exist have not.
    pub fn unit_arrived(&self, id: UnitId) -> bool {
        let Some(u) = self.unit(id) else {
            return false;
        };
        let at_goal = self.formation_at_goal(u.formation);
        slot_error(u.body.position, u.slot_target.map(|t| t.position))
            .is_some_and(|e| has_arrived(at_goal, e, u.body.radius))
    }

    /// What formation `id` is doing (see [`FormationStatus`]): a play or an overwatch advance
    /// of its own or of a formation above it first; else, when it and every formation above it
    /// hold, [`FormationStatus::Arrived`] once every unit of its subtree has arrived
    /// ([`World::unit_arrived`]) and every sub-formation's anchor is within its
    /// `arrival_radius` of its slot, [`FormationStatus::Settling`] before; else the motion of
    /// the nearest formation of the chain (itself first) that does not hold. Orders take effect
    /// at the next step, so one given since the last step does not show yet.
    pub fn formation_status(&self, id: FormationId) -> Result<FormationStatus, WorldError> {
        if !self.formations.contains_key(id) {
            return Err(WorldError::NoSuchFormation(id));
        }
        let mut cursor = Some(id);
        let mut depth = 0;
        let mut mover = None;
        while let Some(c) = cursor {
            let Some(f) = self.formations.get(c) else {
                break;
            };
            match self.tactic(c) {
                Some(Tactic::Play(_)) => return Ok(FormationStatus::RunningPlay),
                Some(Tactic::Overwatch(_)) => return Ok(FormationStatus::Overwatch),
                None => {}
            }
            if mover.is_none() && f.motion != Motion::Holding {
                mover = Some(c);
            }
            cursor = f.parent;
            depth += 1;
            if depth > MAX_CHAIN {
                break;
            }
        }
        let Some(f) = mover.and_then(|m| self.formations.get(m)) else {
            return Ok(if self.subtree_arrived(id) {
                FormationStatus::Arrived
            } else {
                FormationStatus::Settling
            });
        };
        Ok(match f.motion {
            Motion::Holding => FormationStatus::Settling,
            Motion::Turning => FormationStatus::Turning,
            Motion::Loose => FormationStatus::Forming,
            Motion::Moving if f.follow_speed.is_some() => FormationStatus::Waiting,
            Motion::Moving => {
                let still = f.anchor.velocity.length() < BLOCKED_SPEED_FRACTION * f.slowest_speed;
                let behind = f.mean_lag > f.settings.lag_tolerance + f.settings.lag_range;
                if still && behind {
                    FormationStatus::Blocked
                } else {
                    FormationStatus::Moving
                }
            }
        })
    }

    /// Whether every unit in `id`'s subtree has arrived and every formation in it that is a
    /// member of another stands within its arrival radius of its slot.
    fn subtree_arrived(&self, id: FormationId) -> bool {
        let mut stack = vec![id];
        let mut seen = 0usize;
        while let Some(c) = stack.pop() {
            seen += 1;
            if seen > self.formations.len() {
                return false;
            }
            let Some(f) = self.formations.get(c) else {
                continue;
            };
            // A sub-formation still on its way to its slot in the parent has not arrived, even
            // when its units keep up with their slots around its moving anchor.
            let anchor_off_slot = f.parent.is_some()
                && f.target.is_some_and(|t| {
                    (t.position - f.anchor.position).length() > f.settings.arrival_radius
                });
            if anchor_off_slot {
                return false;
            }
            for m in &f.members {
                match *m {
                    Member::Unit(u) => {
                        if !self.unit_arrived(u) {
                            return false;
                        }
                    }
                    Member::Formation(child) => stack.push(child),
                }
            }
        }
        true
    }
}
