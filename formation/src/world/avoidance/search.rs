//! The neighbour search of avoidance: the units of other groups within a unit's reach.
//!
//! A unit avoids only units of other groups (those of its own top-level formation are left
//! to separation), and in a dense army most of the units around it are its own formation's.
//! The grid keeps its items sorted by cell, so the units of one formation fill long runs of
//! the sorted arrays (whole cells, one after another along a row); [`GroupRuns`] records,
//! per slot, the group of its unit and where the run of that group ends, so the search steps
//! over a run of units it would reject without looking at them one by one. It finds exactly
//! the units the plain radius query followed by the group test finds.

use cohort_steering::Vec2;
use cohort_steering::grid::{CellGrid, within_radius};

use super::NO_GROUP;

/// Per slot of the grid's order (see [`cohort_steering::grid::NeighbourSearch::order`]): the group of its unit and
/// the end of the run of slots of that group it is in. Rebuilt with the grid, every tick.
#[derive(Default)]
pub(crate) struct GroupRuns {
    /// Per slot: the group of its unit ([`NO_GROUP`] for a unit without one).
    groups: Vec<u32>,
    /// Per slot: the first slot after it whose unit is of another group (or the slot count).
    run_end: Vec<u32>,
    /// Whether the runs describe the grid's current order.
    valid: bool,
}

impl GroupRuns {
    /// Refills the runs for the grid's order `order` (slot `k` holds unit `order[k]`) and the
    /// units' `groups` (by unit index). Allocates only when there are more units than ever.
    pub(crate) fn rebuild(&mut self, order: &[u32], groups: &[u32]) {
        self.groups.clear();
        self.groups.extend(
            order
                .iter()
                .map(|&i| groups.get(i as usize).copied().unwrap_or(NO_GROUP)),
        );
        let n = self.groups.len();
        self.run_end.clear();
        self.run_end.resize(n, n as u32);
        let mut end = n as u32;
        for k in (0..n).rev() {
            let (Some(&g), Some(slot)) = (self.groups.get(k), self.run_end.get_mut(k)) else {
                continue;
            };
            if self.groups.get(k + 1) != Some(&g) {
                end = k as u32 + 1;
            }
            *slot = end;
        }
        self.valid = true;
    }

    /// Forgets the runs (the grid was not rebuilt this tick).
    pub(crate) fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Whether the runs describe a grid of `len` items rebuilt this tick.
    pub(crate) fn fits(&self, len: usize) -> bool {
        self.valid && self.groups.len() == len && self.run_end.len() == len
    }

    /// Calls `f(index, position)` for every unit of `grid` within `radius` of `center` whose
    /// group `rejects` does not refuse, in the grid's query order: what
    /// [`cohort_steering::grid::NeighbourSearch::for_each_in_radius`] followed by the test would give, but a run of
    /// slots of a refused group is passed over in one step. The runs must fit the grid
    /// ([`Self::fits`]).
    #[inline]
    pub(crate) fn for_each_accepted<R, F>(
        &self,
        grid: &CellGrid,
        center: Vec2,
        radius: f32,
        rejects: R,
        mut f: F,
    ) where
        R: Fn(u32) -> bool,
        F: FnMut(u32, Vec2),
    {
        grid.for_each_row_run(center, radius, |first, items, positions| {
            let end = items.len().min(positions.len());
            let (Some(groups), Some(run_end)) = (
                self.groups.get(first..first + end),
                self.run_end.get(first..first + end),
            ) else {
                return;
            };
            let mut k = 0;
            while let (Some(&group), Some(&run)) = (groups.get(k), run_end.get(k)) {
                // The run of this group, within this row's run (a run ends past its start).
                let run = (run as usize).saturating_sub(first).clamp(k + 1, end);
                if !rejects(group) {
                    let (Some(items), Some(positions)) = (items.get(k..run), positions.get(k..run))
                    else {
                        return;
                    };
                    for (&i, &p) in items.iter().zip(positions) {
                        if within_radius(p, center, radius) {
                            f(i, p);
                        }
                    }
                }
                k = run;
            }
        });
    }
}

#[cfg(test)]
mod tests;
