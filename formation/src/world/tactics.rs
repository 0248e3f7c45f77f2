//! The orders-and-tactics stage of a tick: running plays and bounding-overwatch advances.
//!
//! Two hooks in [`World::step`]: [`World::run_tactics`] before the formation stage advances
//! play clocks, computes slot poses and moves overwatch anchors; [`World::drive_tactical_slots`]
//! after it hands the members of those formations their moving slot targets (position,
//! velocity from the track derivative, facing), overriding the pattern's. Formations never call
//! into this module; orders reach it through [`World::route_tactical_order`].

use cohort_steering::Vec2;

use super::World;
use crate::assignment::{AssignmentConfig, Located, SlotAssignment};
use crate::error::WorldError;
use crate::formation::{Member, Motion, SlotTarget};
use crate::ids::FormationId;
use crate::order::Order;
use crate::pattern::{Pattern, PatternKind, Slot, mean_offset};
use crate::tactics::Tactic;
use crate::tactics::play::{PlayClock, PlayRun};

impl World {
    /// Checks a tactical order against the world: the play must exist in the playbook, the
    /// play frame and the overwatch points must be finite, the overwatch settings valid.
    /// Other orders pass.
    pub(super) fn check_tactical_order(&self, order: &Order) -> Result<(), WorldError> {
        let invalid = |why: String| WorldError::Invalid {
            what: "tactical order",
            why,
        };
        match order {
            Order::RunPlay {
                playbook,
                play,
                origin,
                facing,
            } => {
                playbook
                    .index_of(play)
                    .map_err(|e| invalid(e.to_string()))?;
                if origin.is_some_and(|o| !o.is_finite()) {
                    return Err(invalid("play origin must be finite".into()));
                }
                if facing.is_some_and(|f| !f.is_finite() || f.length_squared() == 0.0) {
                    return Err(invalid("play facing must be finite and non-zero".into()));
                }
            }
            Order::BoundingOverwatch {
                goal,
                threat,
                settings,
            } => {
                if !goal.is_finite() || !threat.is_finite() {
                    return Err(invalid("goal and threat must be finite".into()));
                }
                settings.check().map_err(invalid)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Called by the order stage for every order: any order interrupts the formation's running
    /// tactic; a tactical order then starts its tactic and is consumed (`None`), any other
    /// order is handed back to be applied.
    pub(crate) fn route_tactical_order(&mut self, id: FormationId, order: Order) -> Option<Order> {
        self.interrupt_tactic(id);
        if order.is_tactical()
            && let Some(f) = self.formations.get_mut(id)
        {
            // A tactic given mid-move starts from where the anchor is; the move is dropped.
            f.path.clear();
            f.path_clearance.clear();
            f.goal = None;
            f.anchor.velocity = Vec2::ZERO;
        }
        match order {
            Order::RunPlay {
                playbook,
                play,
                origin,
                facing,
            } => {
                let f = self.formations.get(id)?;
                let Ok(index) = playbook.index_of(&play) else {
                    // Refused when given (World::order); a hand-built queue holds position.
                    return Some(Order::Halt);
                };
                let origin = origin.unwrap_or(f.anchor.position);
                let facing = facing.unwrap_or(f.anchor.orientation);
                let run = PlayRun::new(playbook, index, origin, facing);
                self.tactics.push((id, Tactic::Play(run)));
                None
            }
            Order::BoundingOverwatch {
                goal,
                threat,
                settings,
            } => self.start_overwatch(id, goal, threat, settings),
            other => Some(other),
        }
    }

    /// Stops formation `id`'s tactic, if any: the formation holds where its members are.
    pub(super) fn interrupt_tactic(&mut self, id: FormationId) {
        let Some(i) = self.tactics.iter().position(|(f, _)| *f == id) else {
            return;
        };
        let (_, tactic) = self.tactics.remove(i);
        if let Tactic::Overwatch(run) = &tactic {
            for s in &run.squads {
                if let Some(f) = self.formations.get_mut(s.formation) {
                    f.needs_assignment = true;
                }
            }
        }
        let centre = self.members_centre(id);
        if let Some(f) = self.formations.get_mut(id) {
            if let Some(c) = centre {
                f.anchor.position = c;
            }
            f.anchor.velocity = Vec2::ZERO;
            f.motion = Motion::Holding;
            f.path.clear();
            f.path_clearance.clear();
            f.goal = None;
            f.needs_assignment = true;
        }
    }

    /// Tactics stage, before the formation stage: play clocks advance (through phases and
    /// chained plays), slot poses are computed, members are (re)assigned to play slots when
    /// the play or the membership changed; overwatch advances move their bounding anchors and
    /// cover slots. Finished plays hand the formation their final arrangement.
    pub(super) fn run_tactics(&mut self, dt: f32) {
        if self.tactics.is_empty() {
            return;
        }
        let mut tactics = std::mem::take(&mut self.tactics);
        let mut finished: Vec<(FormationId, Option<PlayRun>)> = Vec::new();
        for (id, tactic) in tactics.iter_mut() {
            let id = *id;
            if !self.formations.contains_key(id) {
                finished.push((id, None));
                continue;
            }
            match tactic {
                Tactic::Play(run) => {
                    if !self.play_members_intact(id, run) {
                        run.needs_assignment = true;
                    }
                    let clock = run.advance(dt);
                    run.update_poses(self, id, self.tick, dt);
                    if run.needs_assignment || clock == PlayClock::Chained {
                        self.assign_play(id, run);
                    }
                    if clock == PlayClock::Finished {
                        finished.push((id, Some(run.clone())));
                    }
                }
                Tactic::Overwatch(run) => self.advance_overwatch(id, run, dt),
            }
        }
        for (id, run) in &finished {
            tactics.retain(|(f, _)| f != id);
            if let Some(run) = run {
                self.finish_play(*id, run);
            }
        }
        self.tactics = tactics;
    }

    /// Tactics stage, after the formation stage: members of formations running a tactic get
    /// the tactic's slot targets.
    pub(super) fn drive_tactical_slots(&mut self) {
        if self.tactics.is_empty() {
            return;
        }
        let tactics = std::mem::take(&mut self.tactics);
        for (id, tactic) in &tactics {
            match tactic {
                Tactic::Play(run) => self.write_play_targets(*id, run),
                Tactic::Overwatch(run) => self.write_overwatch_targets(*id, run),
            }
        }
        self.tactics = tactics;
    }

    /// Writes `target` to a member: a unit's slot target, or a sub-formation's target.
    pub(crate) fn set_member_target(&mut self, m: Member, target: SlotTarget) {
        match m {
            Member::Unit(u) => {
                if let Some(u) = self.units.get_mut(u) {
                    u.slot_target = Some(target);
                }
            }
            Member::Formation(c) => {
                if let Some(c) = self.formations.get_mut(c) {
                    c.target = Some(target);
                }
            }
        }
    }

    /// Whether `m` is still a direct member of formation `id`.
    pub(crate) fn is_member_of(&self, id: FormationId, m: Member) -> bool {
        match m {
            Member::Unit(u) => self
                .units
                .details
                .get(u)
                .is_some_and(|u| u.formation == Some(id)),
            Member::Formation(c) => self.formations.get(c).is_some_and(|c| c.parent == Some(id)),
        }
    }

    fn play_members_intact(&self, id: FormationId, run: &PlayRun) -> bool {
        let Some(f) = self.formations.get(id) else {
            return false;
        };
        let held = run.holders.iter().flatten().count() + run.extras.len();
        held == f.members.len()
            && run
                .holders
                .iter()
                .flatten()
                .all(|m| self.is_member_of(id, *m))
            && run.extras.iter().all(|(m, _)| self.is_member_of(id, *m))
    }

    /// Assigns the formation's members to the play's slots at minimum total distance (roles
    /// respected, [`SlotAssignment`]); members beyond the play's slots hold where they are.
    fn assign_play(&mut self, id: FormationId, run: &mut PlayRun) {
        let Some(f) = self.formations.get(id) else {
            return;
        };
        let members = f.members.clone();
        let s = &mut self.scratch;
        s.located_members.clear();
        for m in &members {
            let (p, role) = match *m {
                Member::Unit(u) => self
                    .units
                    .get(u)
                    .map_or((f.anchor.position, Default::default()), |u| {
                        (u.body.position, u.role)
                    }),
                Member::Formation(c) => self
                    .formations
                    .get(c)
                    .map_or((f.anchor.position, Default::default()), |c| {
                        (c.anchor.position, c.role)
                    }),
            };
            s.located_members.push(Located::new(p, role));
        }
        s.located_slots.clear();
        let play = run.current_play();
        for i in 0..run.slot_count() {
            let p = run.slot_target(i).map_or(run.origin, |t| t.position);
            let role = play.map(|p| p.role(i)).unwrap_or_default();
            s.located_slots.push(Located::new(p, role));
        }
        if s.assignment.is_none() {
            s.assignment = SlotAssignment::new(AssignmentConfig::default()).ok();
        }
        s.current.slot_of.clear();
        if let Some(solver) = s.assignment.as_mut() {
            solver.solve_fresh(&s.located_members, &s.located_slots, &mut s.current);
        }
        run.holders.clear();
        run.holders.resize(run.slot_count(), None);
        run.extras.clear();
        for (i, m) in members.iter().enumerate() {
            let slot = s.current.slot_of.get(i).copied().flatten();
            match slot.and_then(|k| run.holders.get_mut(k)) {
                Some(cell @ None) => *cell = Some(*m),
                _ => {
                    let at = s.located_members.get(i).map_or(run.origin, |l| l.position);
                    run.extras.push((*m, at));
                }
            }
        }
        run.needs_assignment = false;
    }

    fn write_play_targets(&mut self, id: FormationId, run: &PlayRun) {
        let mut mean = Vec2::ZERO;
        let mut mean_v = Vec2::ZERO;
        let n = run.slot_count().max(1) as f32;
        for i in 0..run.slot_count() {
            let Some(t) = run.slot_target(i) else {
                continue;
            };
            mean += t.position / n;
            mean_v += t.velocity / n;
            if let Some(m) = run.holder(i) {
                self.set_member_target(m, t);
            }
        }
        for &(m, at) in &run.extras {
            let hold = SlotTarget {
                position: at,
                velocity: Vec2::ZERO,
                facing: run.orientation,
            };
            self.set_member_target(m, hold);
        }
        if let Some(f) = self.formations.get_mut(id) {
            f.anchor.position = mean;
            f.anchor.velocity = mean_v;
            f.anchor.orientation = run.orientation;
            f.motion = Motion::Loose;
        }
    }

    /// A play ended with no next play: the formation keeps the last phase's final arrangement
    /// as its pattern (a custom pattern of the held slots and of where the extra members
    /// stand) and holds there.
    fn finish_play(&mut self, id: FormationId, run: &PlayRun) {
        let mut slots: Vec<Slot> = Vec::new();
        let o = run.orientation;
        let to_local = |p: Vec2| {
            let d = p - run.origin;
            Vec2::new(d.dot(o), d.dot(o.perp()))
        };
        let play = run.current_play();
        for (i, pose) in run.poses.iter().enumerate() {
            if run.holder(i).is_some() {
                let role = play.map(|p| p.role(i)).unwrap_or_default();
                slots.push(Slot {
                    offset: pose.offset,
                    facing: pose.facing,
                    role,
                });
            }
        }
        for &(_, at) in &run.extras {
            slots.push(Slot {
                offset: to_local(at),
                facing: Vec2::X,
                role: Default::default(),
            });
        }
        let Some(f) = self.formations.get_mut(id) else {
            return;
        };
        f.motion = Motion::Holding;
        f.anchor.velocity = Vec2::ZERO;
        if slots.is_empty() {
            return;
        }
        // Centred offsets (the formation's anchor is their mean) turned so that their mean
        // facing is the pattern's +x: the drift correction then keeps the anchor's
        // orientation and nothing spins.
        let mean = mean_offset(&slots);
        let facing_sum: Vec2 = slots.iter().map(|s| s.facing).sum();
        let m = facing_sum.try_normalize().unwrap_or(Vec2::X);
        let back = Vec2::new(m.x, -m.y);
        for s in &mut slots {
            s.offset = back.rotate(s.offset - mean);
            s.facing = back.rotate(s.facing);
        }
        let base = f.base_pattern.pattern();
        let pattern = Pattern {
            kind: PatternKind::Custom(slots),
            spacing: base.spacing,
            unit_radius: base.unit_radius,
        };
        if let Ok(valid) = pattern.validate() {
            f.base_pattern = valid.clone();
            f.pattern = valid;
            f.in_column = false;
            f.narrowed = None;
            f.anchor.position = run.origin + o.rotate(mean);
            f.anchor.orientation = o.rotate(m).try_normalize().unwrap_or(o);
            f.needs_assignment = true;
        }
    }
}

#[cfg(test)]
mod tests;
