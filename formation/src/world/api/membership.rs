//! Explicit changes of a sub-formation's membership, and the rule for orders to one.
//!
//! A formation inside another (a squad in a platoon) follows the slot its parent gives it.
//! Its membership never changes behind the caller's back: [`World::order`] refuses an order
//! that would move it on its own ([`WorldError::AttachedMember`]), except a change of pattern,
//! which it carries out in its slot. To move a squad on its own, detach it first with
//! [`World::detach_formation`]; [`World::attach_formation`] puts it back under a parent.

use cohort_steering::Vec2;

use crate::error::WorldError;
use crate::formation::{Member, Motion};
use crate::ids::FormationId;
use crate::order::Order;
use crate::world::World;

/// Whether an attached member formation carries out `order` inside its parent: a change of
/// pattern (it keeps its slot and lays its own members out anew) and a cancel (it withdraws
/// queued orders and moves nothing). Every other order would take it out of its parent's
/// hands and is refused.
pub(crate) fn member_may_take(order: &Order) -> bool {
    matches!(order, Order::ChangePattern(_) | Order::Cancel)
}

impl World {
    /// Takes formation `id` out of its parent: it becomes a top-level formation with its own
    /// members and takes every order from now on; it holds where its anchor is until it is
    /// ordered (its anchor keeps the velocity it had, so an order given now starts from the
    /// motion it was in). Its parent lays its pattern out for the members left. Returns the
    /// parent it left, `None` when it had none (then nothing changes).
    pub fn detach_formation(&mut self, id: FormationId) -> Result<Option<FormationId>, WorldError> {
        let f = self
            .formations
            .get(id)
            .ok_or(WorldError::NoSuchFormation(id))?;
        if f.parent.is_none() {
            return Ok(None);
        }
        let from = self.remove_member(Member::Formation(id));
        if let Some(f) = self.formations.get_mut(id) {
            f.motion = Motion::Holding;
        }
        Ok(from)
    }

    /// Makes formation `id` a member of `parent` (moving it out of the parent it had): it
    /// stops what it was doing (its move, play or overwatch advance), its queued orders other
    /// than a change of pattern are dropped, and from the next tick it follows the slot
    /// `parent` gives it. Refused when either formation does not exist or `parent` is `id` or
    /// inside its subtree ([`WorldError::Cycle`]).
    pub fn attach_formation(
        &mut self,
        id: FormationId,
        parent: FormationId,
    ) -> Result<(), WorldError> {
        if !self.formations.contains_key(id) {
            return Err(WorldError::NoSuchFormation(id));
        }
        self.add_member(parent, Member::Formation(id))?;
        self.interrupt_tactic(id);
        self.pending
            .retain(|(f, order)| *f != id || member_may_take(order));
        if let Some(f) = self.formations.get_mut(id) {
            f.anchor.velocity = Vec2::ZERO;
            f.motion = Motion::Holding;
            f.path.clear();
            f.path_clearance.clear();
            f.goal = None;
            f.goal_facing = None;
            f.wait_watch = None;
        }
        Ok(())
    }

    /// Refuses `order` to formation `id` when `id` is an attached member that does not take
    /// it (see [`member_may_take`]).
    pub(super) fn check_member_order(
        &self,
        id: FormationId,
        order: &Order,
    ) -> Result<(), WorldError> {
        match self.formations.get(id).and_then(|f| f.parent) {
            Some(parent) if !member_may_take(order) => Err(WorldError::AttachedMember {
                formation: id,
                parent,
            }),
            _ => Ok(()),
        }
    }
}
