//! Slot assignment: which member goes to which slot.
//!
//! [`SlotAssignment`] finds the assignment of minimum total cost, where the cost of a member in
//! a slot is its distance (or squared distance, see [`CostMetric`]) to the slot plus a
//! penalty when the slot's [`Role`] does not accept the member's role. Up to
//! [`AssignmentConfig::greedy_above`] members or slots it is exact (Jonker–Volgenant: column
//! reduction, one bounded round of augmenting row reduction, then shortest augmenting paths;
//! `O(n³)` worst case); above, a greedy heuristic with swap improvement (`O(n²)`); above
//! [`AssignmentConfig::split_above`] (1,024 by default), the problem is cut by position into
//! parts of at most 64 members and slots, each matched exactly (`O(n log n)`, see `split.rs`),
//! so that a formation of 65,536 members is assigned in well under a second. Rectangular problems
//! are fine: with more slots than members some slots stay empty; with more members than slots
//! the extra members are left unassigned (`None`).
//!
//! **Exact and fast.** From 48 members up the exact solver first solves an `f32` copy of the
//! costs (twice the SIMD lanes and half the memory of `f64`), then checks that solution's
//! prices in `f64` and re-augments the few members whose slot is not one of their cheapest in
//! reduced cost: the result is the `f64` optimum, whatever the `f32` pass found (property
//! tests compare it with a plain scalar `f64` solver, kept as a test-only reference, on random
//! matrices with ties, penalties, unreachable pairs and differences below `f32` resolution). The path search relaxes a
//! whole cost row in one branch-free pass of SIMD lanes and rebuilds the path afterwards; the
//! cost matrix is filled by a vectorised loop (bit-identical to [`AssignmentConfig::cost`]).
//!
//! **Stability.** Given the current assignment, [`SlotAssignment::solve`] keeps it unless the
//! new optimum is cheaper by more than the hysteresis fraction, so members are not shuffled
//! for nothing. A partial current assignment (a member died, one joined, the pattern was laid
//! out for a new count so some slot indices vanished) is first *repaired*: members keep
//! their valid slots and only the unassigned members are matched to the free slots; the repair
//! is kept unless the full optimum beats it by more than the hysteresis.
//!
//! **Measured** with `cargo bench -p cohort-formation --bench assignment` (release build, a
//! shared 2-core machine, so a quiet one does better). One solve from scratch; "CPU" is the
//! `assignment_cpu` group (thread CPU time, which other processes inflate far less than the
//! wall clock), the rest wall clock:
//!
//! | members | exact, fresh form-up | exact, members near their slots | greedy |
//! |--------:|---------------------:|--------------------------------:|-------:|
//! | 16      | 6.3–7.1 µs           |                                 |        |
//! | 64      | 0.15–0.16 ms         |                                 |        |
//! | 128     | 0.39–0.54 ms CPU     |                                 |        |
//! | 256     | 2.0–2.6 ms CPU       | 0.21–0.29 ms CPU                | 1.9 ms |
//! | 1024    | 145 ms               |                                 | 23 ms  |
//!
//! A fresh form-up (members scattered over a square, slots in a box beside it) is the hard
//! case: almost every augmenting path crosses much of the matching. Re-assignment after a
//! death, a join or a pattern change starts near the optimum and is several times cheaper.
//! The exact solver therefore stays the default up to [`DEFAULT_GREEDY_ABOVE`] = 256 members
//! (about 2–2.5 ms of CPU for a fresh form-up, a fraction of a millisecond typically); past
//! that the cubic growth (145 ms at 1024) rules it out and greedy takes over, whose total
//! cost was within 25 % of the optimum at 256 scattered members (tested).

mod cost_matrix;
mod lapjv;
#[cfg(test)]
mod reference;
mod solver;
mod split;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::pattern::{MAX_MEMBERS, PatternError, Role};
use cost_matrix::CostMatrix;
use solver::Jv;

/// Default size (members or slots) above which [`SlotAssignment`] uses the greedy solver
/// (measured, see the module documentation).
pub const DEFAULT_GREEDY_ABOVE: usize = 256;
/// Default size (members or slots) above which [`SlotAssignment`] cuts the problem into parts
/// of at most 64 and matches each exactly (`O(n log n)`; see [`AssignmentConfig::split_above`]).
pub const DEFAULT_SPLIT_ABOVE: usize = 1024;
/// Cost of a pair involving a non-finite position (it sorts after every real cost).
const UNREACHABLE_COST: f64 = 1.0e30;

/// A member or a slot target to match: a world position and a role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Located {
    /// World position.
    pub position: Vec2,
    /// Role of the member, or role the slot asks for.
    pub role: Role,
}

impl Located {
    /// A member or slot at `position` with `role`.
    pub fn new(position: Vec2, role: Role) -> Self {
        Self { position, role }
    }
}

/// How distance turns into cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CostMetric {
    /// Plain distance: minimum total travel, and (points in general position) the optimal
    /// paths never cross, so members do not walk through each other on the way to their
    /// slots.
    #[default]
    Distance,
    /// Squared distance: prefers many short moves over one long one (arrivals closer together
    /// in time), but paths may cross.
    SquaredDistance,
}

/// Settings of [`SlotAssignment`] (plain data; checked by [`SlotAssignment::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AssignmentConfig {
    /// Distance to cost.
    pub metric: CostMetric,
    /// Cost added when a slot's role does not accept the member's role (finite, >= 0). The
    /// default, 1e6, outweighs the travel of a thousand members over a thousand units, so
    /// roles win whenever a matching member exists.
    pub role_penalty: f32,
    /// Keep the current assignment unless the optimum is cheaper by more than this fraction of
    /// the optimum's cost (finite, in `[0, 1]`).
    pub hysteresis: f32,
    /// Above this many members or slots, solve greedily.
    pub greedy_above: usize,
    /// Above this many members or slots, cut the problem by position into parts of at most 64
    /// members and slots and match each exactly: `O(n log n)` where greedy is `O(n²)`, so a
    /// formation of tens of thousands of members is assigned in a fraction of a second. Roles
    /// are honoured within a part only. Takes precedence over `greedy_above`.
    pub split_above: usize,
}

impl Default for AssignmentConfig {
    fn default() -> Self {
        Self {
            metric: CostMetric::Distance,
            role_penalty: 1.0e6,
            hysteresis: 0.1,
            greedy_above: DEFAULT_GREEDY_ABOVE,
            split_above: DEFAULT_SPLIT_ABOVE,
        }
    }
}

impl AssignmentConfig {
    /// The cost of `member` in `slot`: distance (squared or not) plus the role penalty if the
    /// slot does not accept the member's role. Non-finite positions cost 1e30.
    pub fn cost(&self, member: &Located, slot: &Located) -> f64 {
        let d = member.position - slot.position;
        let (x, y) = (f64::from(d.x), f64::from(d.y));
        let c = match self.metric {
            CostMetric::SquaredDistance => x * x + y * y,
            CostMetric::Distance => (x * x + y * y).sqrt(),
        };
        let penalty = if slot.role.accepts(member.role) {
            0.0
        } else {
            f64::from(self.role_penalty)
        };
        // The same tail as the cost matrix's rows (one definition of the cap and penalty).
        cost_matrix::finish(c, penalty)
    }
}

/// Which member holds which slot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    /// `slot_of[member]`: the slot index of each member, `None` if unassigned.
    pub slot_of: Vec<Option<usize>>,
    /// Total cost of the assignment when it was last solved.
    pub total_cost: f64,
}

impl Assignment {
    /// The member in `slot`, if any (the lowest index if the assignment is inconsistent).
    pub fn member_in(&self, slot: usize) -> Option<usize> {
        self.slot_of.iter().position(|s| *s == Some(slot))
    }

    /// Number of assigned members.
    pub fn assigned(&self) -> usize {
        self.slot_of.iter().filter(|s| s.is_some()).count()
    }

    /// Removes member `member` (later members shift down by one, as in `Vec::remove`) and
    /// returns the slot it held (`Some(None)` if it had none); `None` if there is no such
    /// member.
    pub fn remove_member(&mut self, member: usize) -> Option<Option<usize>> {
        (member < self.slot_of.len()).then(|| self.slot_of.remove(member))
    }

    /// Adds an unassigned member at the end and returns its index.
    pub fn add_member(&mut self) -> usize {
        self.slot_of.push(None);
        self.slot_of.len() - 1
    }

    /// Whether every slot index is below `slots`, no slot is used twice and as many members
    /// as possible (`min(members, slots)`) are assigned.
    pub fn is_complete(&self, slots: usize) -> bool {
        let mut seen = 0;
        for (i, s) in self.slot_of.iter().enumerate() {
            if let Some(s) = *s {
                if s >= slots || self.slot_of[..i].contains(&Some(s)) {
                    return false;
                }
                seen += 1;
            }
        }
        seen == self.slot_of.len().min(slots)
    }
}

/// How [`SlotAssignment::solve`] arrived at its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The current assignment was complete and close enough to optimal: nothing changed.
    Kept,
    /// The current assignment was partial: kept members stayed, the rest were matched to the
    /// free slots.
    Repaired,
    /// Replaced by the exact optimum.
    Optimal,
    /// Replaced by the greedy solution (the problem was above the greedy threshold).
    Greedy,
    /// Replaced by the solution of the problem cut into parts (the problem was above the
    /// split threshold).
    Split,
}

/// The slot assignment solver, owning its scratch buffers (no allocation per solve once warm
/// for the same sizes).
#[derive(Clone, Debug)]
pub struct SlotAssignment {
    config: AssignmentConfig,
    jv: Jv,
    matrix: CostMatrix,
    col_of_row: Vec<usize>,
    taken: Vec<bool>,
    current: Vec<Option<usize>>,
    best: Vec<Option<usize>>,
    free_members: Vec<usize>,
    free_slots: Vec<usize>,
    parts: Vec<split::Part>,
}

impl SlotAssignment {
    /// A solver with `config`, checked: role penalty finite and >= 0, hysteresis finite and in
    /// `[0, 1]`.
    pub fn new(config: AssignmentConfig) -> Result<Self, PatternError> {
        crate::pattern::error::check_non_negative("role_penalty", config.role_penalty)?;
        let h = config.hysteresis;
        if !(h.is_finite() && (0.0..=1.0).contains(&h)) {
            return Err(PatternError::BadValue {
                what: "hysteresis",
                expected: "finite and in [0, 1]",
                value: h,
            });
        }
        Ok(Self {
            config,
            jv: Jv::default(),
            matrix: CostMatrix::default(),
            col_of_row: Vec::new(),
            taken: Vec::new(),
            current: Vec::new(),
            best: Vec::new(),
            free_members: Vec::new(),
            free_slots: Vec::new(),
            parts: Vec::new(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &AssignmentConfig {
        &self.config
    }

    /// Changes how distance turns into cost for the next solves (every metric is valid).
    pub fn set_metric(&mut self, metric: CostMetric) {
        self.config.metric = metric;
    }

    /// Total cost of `slot_of` (unassigned members cost nothing; bad indices are skipped).
    pub fn total_cost(
        &self,
        members: &[Located],
        slots: &[Located],
        slot_of: &[Option<usize>],
    ) -> f64 {
        members
            .iter()
            .zip(slot_of)
            .filter_map(|(m, s)| s.and_then(|s| slots.get(s)).map(|s| self.config.cost(m, s)))
            .sum()
    }

    /// Assigns `members` to `slots`, starting from `assignment` (which may be empty, partial
    /// or stale) and writing the result back into it, with the stability rule of the module
    /// documentation. At most [`MAX_MEMBERS`] members and slots are considered; members beyond
    /// are left unassigned.
    pub fn solve(
        &mut self,
        members: &[Located],
        slots: &[Located],
        assignment: &mut Assignment,
    ) -> Outcome {
        let members = &members[..members.len().min(MAX_MEMBERS)];
        let slots = &slots[..slots.len().min(MAX_MEMBERS)];
        self.sanitize_current(&assignment.slot_of, members.len(), slots.len());
        let method = self.solve_full(members, slots);
        let best_cost = self.total_cost(members, slots, &self.best);
        let held = self.current.iter().filter(|s| s.is_some()).count();
        let mut outcome = method;
        if held > 0 {
            let complete = held == members.len().min(slots.len());
            if !complete {
                self.repair(members, slots);
            }
            let keep_cost = self.total_cost(members, slots, &self.current);
            let margin = f64::from(self.config.hysteresis) * best_cost.abs() + 1e-9;
            if keep_cost <= best_cost + margin {
                std::mem::swap(&mut self.current, &mut self.best);
                outcome = if complete {
                    Outcome::Kept
                } else {
                    Outcome::Repaired
                };
            }
        }
        assignment.slot_of.clear();
        assignment.slot_of.extend_from_slice(&self.best);
        assignment.slot_of.resize(members.len(), None);
        assignment.total_cost = self.total_cost(members, slots, &assignment.slot_of);
        outcome
    }

    /// The best assignment from scratch (exact up to the greedy threshold), ignoring any
    /// current one.
    pub fn solve_fresh(
        &mut self,
        members: &[Located],
        slots: &[Located],
        assignment: &mut Assignment,
    ) -> Outcome {
        assignment.slot_of.clear();
        self.solve(members, slots, assignment)
    }

    /// A member died: removes `member` from `assignment` (later members shift down) and
    /// re-solves with stability for the remaining `members` (already without it) and `slots`
    /// (typically laid out again for the new count). `None` if there was no such member.
    pub fn member_died(
        &mut self,
        assignment: &mut Assignment,
        member: usize,
        members: &[Located],
        slots: &[Located],
    ) -> Option<Outcome> {
        assignment.remove_member(member)?;
        Some(self.solve(members, slots, assignment))
    }

    /// A member joined at the end of `members`: adds it unassigned and re-solves with
    /// stability, so the others keep their slots unless moving gains enough.
    pub fn member_joined(
        &mut self,
        assignment: &mut Assignment,
        members: &[Located],
        slots: &[Located],
    ) -> Outcome {
        assignment
            .slot_of
            .resize(members.len().saturating_sub(1), None);
        assignment.add_member();
        self.solve(members, slots, assignment)
    }

    /// Copies the usable part of `given` into `self.current`: length `n`, slots below `m`,
    /// each slot at most once (the lowest member index keeps it).
    fn sanitize_current(&mut self, given: &[Option<usize>], n: usize, m: usize) {
        self.current.clear();
        self.current.resize(n, None);
        self.taken.clear();
        self.taken.resize(m, false);
        for (cur, s) in self.current.iter_mut().zip(given) {
            if let Some(t) = s.and_then(|s| self.taken.get_mut(s)).filter(|t| !**t) {
                *t = true;
                *cur = *s;
            }
        }
    }

    /// Solves the whole problem into `self.best`.
    fn solve_full(&mut self, members: &[Located], slots: &[Located]) -> Outcome {
        self.free_members.clear();
        self.free_members.extend(0..members.len());
        self.free_slots.clear();
        self.free_slots.extend(0..slots.len());
        self.best.clear();
        self.best.resize(members.len(), None);
        self.match_free(members, slots)
    }

    /// Keeps the valid entries of `self.current` and matches its unassigned members to its
    /// free slots (in place).
    fn repair(&mut self, members: &[Located], slots: &[Located]) {
        self.free_members.clear();
        self.free_members
            .extend((0..members.len()).filter(|&i| self.current[i].is_none()));
        self.taken.clear();
        self.taken.resize(slots.len(), false);
        for s in self.current.iter().flatten() {
            self.taken[*s] = true;
        }
        self.free_slots.clear();
        self.free_slots
            .extend((0..slots.len()).filter(|&j| !self.taken[j]));
        std::mem::swap(&mut self.current, &mut self.best);
        self.match_free(members, slots);
        std::mem::swap(&mut self.current, &mut self.best);
    }

    /// Matches `free_members` to `free_slots` optimally (greedily above the greedy threshold,
    /// part by part above the split threshold), writing into `self.best`.
    fn match_free(&mut self, members: &[Located], slots: &[Located]) -> Outcome {
        let mut fm = std::mem::take(&mut self.free_members);
        let mut fs = std::mem::take(&mut self.free_slots);
        let outcome = if fm.len().max(fs.len()) > self.config.split_above {
            let mut parts = std::mem::take(&mut self.parts);
            split::partition(members, slots, &mut fm, &mut fs, &mut parts);
            for part in &parts {
                let (pm, ps) = (
                    fm.get(part.members.clone()).unwrap_or(&[]),
                    fs.get(part.slots.clone()).unwrap_or(&[]),
                );
                self.match_lists(members, slots, pm, ps);
            }
            self.parts = parts;
            Outcome::Split
        } else {
            self.match_lists(members, slots, &fm, &fs)
        };
        self.free_members = fm;
        self.free_slots = fs;
        outcome
    }

    /// Matches the members `fm` to the slots `fs` optimally (or greedily above the
    /// threshold), writing into `self.best`.
    fn match_lists(
        &mut self,
        members: &[Located],
        slots: &[Located],
        fm: &[usize],
        fs: &[usize],
    ) -> Outcome {
        let (nm, ns) = (fm.len(), fs.len());
        if nm == 0 || ns == 0 {
            return Outcome::Optimal;
        }
        // Rows are the smaller side.
        let members_are_rows = nm <= ns;
        let (rows, cols) = if members_are_rows { (nm, ns) } else { (ns, nm) };
        let config = self.config;
        let cost = |r: usize, c: usize| {
            let (i, j) = if members_are_rows { (r, c) } else { (c, r) };
            config.cost(&members[fm[i]], &slots[fs[j]])
        };
        let outcome = if cols > self.config.greedy_above {
            solver::greedy(rows, cols, cost, &mut self.taken, &mut self.col_of_row);
            Outcome::Greedy
        } else {
            self.jv.prepare(rows, cols);
            let member_list = fm.iter().map(|&i| &members[i]);
            let slot_list = fs.iter().map(|&j| &slots[j]);
            let out = self.jv.costs_mut();
            if members_are_rows {
                self.matrix
                    .fill(&config, member_list, slot_list, true, out, cols);
            } else {
                self.matrix
                    .fill(&config, slot_list, member_list, false, out, cols);
            }
            self.jv.solve(rows, &mut self.col_of_row);
            Outcome::Optimal
        };
        for (r, &c) in self.col_of_row.iter().enumerate() {
            let (i, j) = if members_are_rows { (r, c) } else { (c, r) };
            if let (Some(&member), Some(&slot)) = (fm.get(i), fs.get(j)) {
                if let Some(entry) = self.best.get_mut(member) {
                    *entry = Some(slot);
                }
            }
        }
        outcome
    }
}

#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod tests;
