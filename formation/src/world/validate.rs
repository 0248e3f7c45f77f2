//! Checks of a loaded world (a RON or binary snapshot, or a state snapshot): it must hold only
//! what the world's API would have accepted, so that a hand-edited, corrupted or crafted file
//! brings in no NaN, no dangling key and no formation tree the tick cannot walk.
//!
//! - Every number of the state is finite, found by walking the state as it serializes (so a
//!   new field is checked without being listed); the error names the field's path.
//! - Sizes: at most [`MAX_UNITS`] units, at most [`MAX_MEMBERS`] members per formation.
//! - Bodies, tuning and orders as [`World::add_unit`], [`World::new`],
//!   [`World::add_formation`] and [`World::order`] check them.
//! - The formation tree: every member exists and names the formation back, every unit or
//!   formation that names a parent is listed there once, no cycle, at most
//!   [`MAX_FORMATION_DEPTH`] levels.

use slotmap::SecondaryMap;

use super::walk::{Segment, Sink, WalkError, walk};
use super::{MAX_UNITS, World};
use crate::error::WorldError;
use crate::formation::Member;
use crate::ids::{FormationId, UnitId};
use crate::pattern::MAX_MEMBERS;
use crate::tactics::Tactic;

/// Deepest formation tree a loaded world may hold (a top-level formation is at depth 1).
/// Deeper trees are refused, and so is a cycle, which would otherwise have no depth at all.
pub const MAX_FORMATION_DEPTH: usize = 64;

fn invalid(why: String) -> WorldError {
    WorldError::Invalid {
        what: "snapshot",
        why,
    }
}

/// Remembers where the walk is, to name the first number that is not finite.
#[derive(Default)]
struct FiniteCheck {
    path: Vec<Segment>,
    bad: Option<(String, f64)>,
}

impl FiniteCheck {
    fn check(&mut self, v: f64) -> Result<(), WalkError> {
        if v.is_finite() {
            return Ok(());
        }
        let mut at = String::new();
        for s in &self.path {
            match s {
                Segment::Name(n) => {
                    if !at.is_empty() {
                        at.push('.');
                    }
                    at.push_str(n);
                }
                Segment::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        self.bad = Some((at, v));
        Err(WalkError::NonFinite)
    }
}

impl Sink for FiniteCheck {
    fn word32(&mut self, _v: u32) {}
    fn word64(&mut self, _v: u64) {}
    fn float32(&mut self, v: f32) -> Result<(), WalkError> {
        self.check(f64::from(v))
    }
    fn float64(&mut self, v: f64) -> Result<(), WalkError> {
        self.check(v)
    }
    fn bytes(&mut self, _b: &[u8]) {}
    fn enter(&mut self, at: Segment) {
        self.path.push(at);
    }
    fn leave(&mut self) {
        self.path.pop();
    }
}

impl World {
    /// Everything a loaded world must satisfy (see the [module docs](self)); then the free
    /// lists are put back and the units' flags set.
    pub(super) fn settle_load(&mut self) -> Result<(), WorldError> {
        self.check_sizes()?;
        self.check_finite()?;
        super::api::check_world_settings(&self.settings)?;
        self.units.check_loaded()?;
        for (_, f) in self.formations.iter() {
            super::api::check_formation_settings(&f.settings)?;
        }
        self.check_tree()?;
        self.check_orders_and_tactics()?;
        self.restore_free_lists()?;
        self.units.settle_loaded();
        Ok(())
    }

    fn check_sizes(&self) -> Result<(), WorldError> {
        if self.units.len() > MAX_UNITS {
            return Err(invalid(format!(
                "{} units; a world holds at most {MAX_UNITS}",
                self.units.len()
            )));
        }
        if let Some((_, f)) = self
            .formations
            .iter()
            .find(|(_, f)| f.members.len() > MAX_MEMBERS)
        {
            return Err(invalid(format!(
                "formation {:?} has {} members; at most {MAX_MEMBERS}",
                f.name,
                f.members.len()
            )));
        }
        Ok(())
    }

    fn check_finite(&self) -> Result<(), WorldError> {
        let mut check = FiniteCheck::default();
        match walk(&self.state(), &mut check) {
            Ok(()) => Ok(()),
            Err(_) => Err(invalid(match check.bad {
                Some((at, v)) => format!("{at} is {v}: every number must be finite"),
                None => "the state could not be walked".into(),
            })),
        }
    }

    /// The formation tree's links agree both ways, with no cycle and no deeper than
    /// [`MAX_FORMATION_DEPTH`].
    fn check_tree(&self) -> Result<(), WorldError> {
        let mut unit_listed: SecondaryMap<UnitId, ()> = SecondaryMap::new();
        let mut child_listed: SecondaryMap<FormationId, ()> = SecondaryMap::new();
        for (id, f) in self.formations.iter() {
            let name = &f.name;
            for m in &f.members {
                let (ok, twice) = match *m {
                    Member::Unit(u) => (
                        self.units
                            .details
                            .get(u)
                            .is_some_and(|d| d.formation == Some(id)),
                        unit_listed.insert(u, ()).is_some(),
                    ),
                    Member::Formation(c) => (
                        self.formations.get(c).is_some_and(|c| c.parent == Some(id)),
                        child_listed.insert(c, ()).is_some(),
                    ),
                };
                if !ok {
                    return Err(invalid(format!(
                        "formation {name:?} lists member {m:?}, which does not exist or does \
                         not name it as its formation"
                    )));
                }
                if twice {
                    return Err(invalid(format!(
                        "member {m:?} is listed twice (in formation {name:?})"
                    )));
                }
            }
            if let Some(p) = f.parent {
                if !child_listed_by(self, p, id) {
                    return Err(invalid(format!(
                        "formation {name:?} names a parent that does not list it"
                    )));
                }
            }
        }
        for (u, d) in self.units.details.iter() {
            if d.formation.is_some() && !unit_listed.contains_key(u) {
                return Err(invalid(format!(
                    "unit {u:?} names a formation that does not list it"
                )));
            }
        }
        for (id, f) in self.formations.iter() {
            let mut depth = 1;
            let mut cursor = f.parent;
            while let Some(p) = cursor {
                depth += 1;
                if depth > MAX_FORMATION_DEPTH {
                    return Err(invalid(format!(
                        "formation {:?} ({id:?}) is nested more than {MAX_FORMATION_DEPTH} deep \
                         or in a cycle of parents",
                        f.name
                    )));
                }
                cursor = self.formations.get(p).and_then(|p| p.parent);
            }
        }
        Ok(())
    }

    /// Pending orders as [`World::order`] checks them; tactics keyed by existing formations,
    /// once each, naming a play and phase their playbook has.
    fn check_orders_and_tactics(&self) -> Result<(), WorldError> {
        for (i, (id, order)) in self.pending.iter().enumerate() {
            self.check_order(*id, order)
                .map_err(|e| invalid(format!("pending order {i}: {e}")))?;
        }
        for (i, (id, tactic)) in self.tactics.iter().enumerate() {
            if !self.formations.contains_key(*id) {
                return Err(invalid(format!(
                    "tactic {i} is of a formation that does not exist"
                )));
            }
            if self.tactics[..i].iter().any(|(other, _)| other == id) {
                return Err(invalid(format!(
                    "tactic {i}: its formation has another tactic"
                )));
            }
            if let Tactic::Play(run) = tactic {
                let phases = run.book.play_at(run.play).map(|p| p.phases.len());
                if phases.is_none_or(|n| run.phase >= n.max(1)) {
                    return Err(invalid(format!(
                        "tactic {i} names a play or phase its playbook does not have"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Whether formation `parent` exists and lists `child` as a member.
fn child_listed_by(world: &World, parent: FormationId, child: FormationId) -> bool {
    world
        .formations
        .get(parent)
        .is_some_and(|p| p.members.contains(&Member::Formation(child)))
}
