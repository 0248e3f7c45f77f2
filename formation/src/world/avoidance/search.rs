//! The neighbour search of avoidance: the units of other groups within a unit's reach.
//!
//! A unit avoids only units of other groups (those of its own top-level formation are left
//! to separation), and in a dense army most of the units around it are its own formation's.
//! The grid keeps its items sorted by cell, so the units of one formation fill long runs of
//! the sorted arrays (whole cells, one after another along a row); [`GroupRuns`] records,
//! per slot, the group of its unit and where the run of that group ends, so the search steps
//! over a run of units it would reject without looking at them one by one. A unit avoids only
//! its nearest few, so the rows of cells are searched nearest first, and once that many are
//! found, rows and cells farther than the farthest of them are passed over. It keeps exactly
//! the units the plain radius query followed by the group test and the choice of the nearest
//! keeps.

use cohort_steering::Vec2;
use cohort_steering::grid::{CellGrid, within_radius};

use super::{NO_GROUP, UnitGroups};

/// Per slot of the grid's order (see [`cohort_steering::grid::NeighbourSearch::order`]): the group of its unit and
/// the end of the run of slots of that group it is in. Rebuilt with the grid, every tick.
#[derive(Default)]
pub(crate) struct GroupRuns {
    /// Per slot: the group of its unit ([`NO_GROUP`] for a unit without one).
    groups: Vec<u32>,
    /// Per slot: the first slot after it whose unit is of another group (or the slot count).
    run_end: Vec<u32>,
    /// Per group: how many units it has.
    sizes: Vec<u32>,
    /// Whether the runs describe the grid's current order.
    valid: bool,
}

/// Largest group whose units search nearest first. A unit of a larger one has most of the
/// units around it in its own group, whose runs are passed over at little cost, and the
/// units it avoids stand beyond them, where a nearest-first walk seldom stops early and only
/// adds its own bookkeeping.
const NEAREST_FIRST_GROUP: u32 = 8;

impl GroupRuns {
    /// Refills the runs for the grid's order `order` (slot `k` holds unit `order[k]`) and the
    /// units' `groups` (by unit index). Allocates only when there are more units than ever.
    pub(crate) fn rebuild(&mut self, order: &[u32], groups: UnitGroups<'_>) {
        self.groups.clear();
        self.groups
            .extend(order.iter().map(|&i| groups.of(i as usize)));
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
        self.count_sizes(groups);
        self.valid = true;
    }

    /// Counts the units of each group from the units' `groups` (by unit index): what
    /// [`Self::size_of`] reads, kept up to date when the grid is not used too.
    pub(crate) fn count_sizes(&mut self, groups: UnitGroups<'_>) {
        self.sizes.fill(0);
        for g in (0..groups.len()).map(|i| groups.of(i)) {
            if g == NO_GROUP {
                continue;
            }
            let g = g as usize;
            if g >= self.sizes.len() {
                self.sizes.resize(g + 1, 0);
            }
            if let Some(size) = self.sizes.get_mut(g) {
                *size += 1;
            }
        }
    }

    /// How many units group `g` has (0 for none or for [`NO_GROUP`]).
    pub(crate) fn size_of(&self, g: u32) -> u32 {
        self.sizes.get(g as usize).copied().unwrap_or(0)
    }

    /// Forgets the runs (the grid was not rebuilt this tick).
    pub(crate) fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Whether the runs describe a grid of `len` items rebuilt this tick.
    pub(crate) fn fits(&self, len: usize) -> bool {
        self.valid && self.groups.len() == len && self.run_end.len() == len
    }

    /// Keeps in `nearest` the `cap` units of `grid` nearest `center` (sorted by squared
    /// distance, ties by index; see [`insert_nearest`]) among those within `radius` whose
    /// group `rejects` does not refuse, other than unit `own` (of group `group`), added to
    /// what `nearest` already holds: what
    /// [`cohort_steering::grid::NeighbourSearch::for_each_in_radius`] followed by the group
    /// test and [`insert_nearest`] would keep, but a run of slots of a refused group is passed
    /// over in one step. A unit of a small group searches the rows of cells nearest first,
    /// and once `cap` units are kept, rows and cells farther than the farthest of them are
    /// not looked at. The runs must fit the grid ([`Self::fits`]).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn nearest_accepted<R>(
        &self,
        grid: &CellGrid,
        center: Vec2,
        radius: f32,
        rejects: R,
        (own, group): (u32, u32),
        cap: usize,
        nearest: &mut Vec<NearKey>,
    ) where
        R: Fn(u32) -> bool,
    {
        let whole = radius * radius;
        let small = group == NO_GROUP
            || self
                .sizes
                .get(group as usize)
                .is_some_and(|&n| n <= NEAREST_FIRST_GROUP);
        let query = Query {
            center,
            radius,
            own,
            cap,
        };
        if small {
            grid.for_each_row_run_nearest_first(center, radius, |first, items, positions| {
                self.scan_each(&query, &rejects, nearest, first, items, positions);
                match nearest.last() {
                    Some(&last) if nearest.len() >= cap => last.distance_sq(),
                    _ => whole,
                }
            });
        } else {
            grid.for_each_row_run(center, radius, |first, items, positions| {
                self.scan(&query, &rejects, nearest, first, items, positions);
            });
        }
    }
}

impl GroupRuns {
    /// Calls `f(group, items, positions)` for each run of the grid's slots, within the rows and
    /// blocks a query of the box `lo..=hi` scans, whose units are not of group `own` (a
    /// superset of those units within the box), until `f` returns false. The runs must fit
    /// the grid ([`Self::fits`]).
    pub(crate) fn for_each_other_run<F>(
        &self,
        grid: &CellGrid,
        (lo, hi): (Vec2, Vec2),
        own: u32,
        mut f: F,
    ) where
        F: FnMut(u32, &[u32], &[Vec2]) -> bool,
    {
        let mut going = true;
        grid.for_each_row_run_in_box(lo, hi, |first, items, positions| {
            if going {
                going = self.each_run(first, items, positions, |group| group == own, &mut f);
            }
        });
    }

    /// Calls `f(group, items, positions)` for each run of one group within one run of the
    /// grid's slots (`first` the slot of `items[0]`) that `refused` does not refuse, passing
    /// over the refused ones in one step each, until `f` returns false. Returns whether it
    /// went to the end.
    #[inline(always)]
    fn each_run<R, F>(
        &self,
        first: usize,
        items: &[u32],
        positions: &[Vec2],
        refused: R,
        mut f: F,
    ) -> bool
    where
        R: Fn(u32) -> bool,
        F: FnMut(u32, &[u32], &[Vec2]) -> bool,
    {
        let Some((groups, run_end, items, positions)) = self.row(first, items, positions) else {
            return true;
        };
        let end = items.len();
        let mut k = 0;
        while let (Some(&group), Some(&run)) = (groups.get(k), run_end.get(k)) {
            // The run of this group, within this row's run (a run ends past its start).
            let run = (run as usize).saturating_sub(first).clamp(k + 1, end);
            if !refused(group) {
                let (Some(items), Some(positions)) = (items.get(k..run), positions.get(k..run))
                else {
                    return true;
                };
                if !f(group, items, positions) {
                    return false;
                }
            }
            k = run;
        }
        true
    }
}

/// What one unit's search looks for: units within `radius` of `center` other than `own`,
/// the `cap` nearest of them.
struct Query {
    center: Vec2,
    radius: f32,
    own: u32,
    cap: usize,
}

/// One run of the grid's slots as [`GroupRuns`] walks it: each slot's group, the end of its
/// group's run, its unit and its position.
type Row<'a> = (&'a [u32], &'a [u32], &'a [u32], &'a [Vec2]);

impl GroupRuns {
    /// The groups and run ends of the slots from `first` on, beside the row run's `items` and
    /// `positions`, all cut to one length.
    #[inline(always)]
    fn row<'a>(&'a self, first: usize, items: &'a [u32], positions: &'a [Vec2]) -> Option<Row<'a>> {
        let end = items.len().min(positions.len());
        Some((
            self.groups.get(first..first + end)?,
            self.run_end.get(first..first + end)?,
            items.get(..end)?,
            positions.get(..end)?,
        ))
    }

    /// Offers `nearest` the accepted units of one run of the grid's slots, `first` the slot of
    /// `items[0]`, passing over the runs of refused groups.
    #[inline(always)]
    fn scan<R: Fn(u32) -> bool>(
        &self,
        q: &Query,
        rejects: &R,
        nearest: &mut Vec<NearKey>,
        first: usize,
        items: &[u32],
        positions: &[Vec2],
    ) {
        self.each_run(first, items, positions, rejects, |_, items, positions| {
            for (&i, &p) in items.iter().zip(positions) {
                if i != q.own && within_radius(p, q.center, q.radius) {
                    insert_nearest(
                        nearest,
                        q.cap,
                        NearKey::new((p - q.center).length_squared(), i),
                    );
                }
            }
            true
        });
    }

    /// [`Self::scan`] one slot at a time: for runs of small groups, mostly a slot or two
    /// long, where cutting out each accepted run costs more than it saves.
    #[inline(always)]
    fn scan_each<R: Fn(u32) -> bool>(
        &self,
        q: &Query,
        rejects: &R,
        nearest: &mut Vec<NearKey>,
        first: usize,
        items: &[u32],
        positions: &[Vec2],
    ) {
        let Some((groups, run_end, items, positions)) = self.row(first, items, positions) else {
            return;
        };
        let end = items.len();
        let mut k = 0;
        while let (Some(&group), Some(&run), Some(&i), Some(&p)) = (
            groups.get(k),
            run_end.get(k),
            items.get(k),
            positions.get(k),
        ) {
            if rejects(group) {
                // Past the run of this group, within this row's run (a run ends past its
                // start).
                k = (run as usize).saturating_sub(first).clamp(k + 1, end);
                continue;
            }
            if i != q.own && within_radius(p, q.center, q.radius) {
                insert_nearest(
                    nearest,
                    q.cap,
                    NearKey::new((p - q.center).length_squared(), i),
                );
            }
            k += 1;
        }
    }
}

/// A unit found by the search as one word: its squared distance's bits above its index, so
/// that one integer comparison orders two of them by distance, ties by index. A squared
/// distance is never negative (nor NaN: the search keeps only units within its radius), and
/// the bits of non-negative floats order as the floats do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct NearKey(u64);

impl NearKey {
    /// The key of unit `index` at squared distance `distance_sq` (not negative).
    #[inline(always)]
    pub(crate) fn new(distance_sq: f32, index: u32) -> Self {
        Self((u64::from(distance_sq.to_bits()) << 32) | u64::from(index))
    }

    /// The unit's index.
    #[inline(always)]
    pub(crate) fn index(self) -> u32 {
        self.0 as u32
    }

    /// The unit's squared distance.
    #[inline(always)]
    pub(crate) fn distance_sq(self) -> f32 {
        f32::from_bits((self.0 >> 32) as u32)
    }
}

/// Keeps the `cap` nearest in `nearest`, sorted by distance, ties by index (so the result
/// does not depend on the order the search visits units in).
#[inline(always)]
pub(super) fn insert_nearest(nearest: &mut Vec<NearKey>, cap: usize, item: NearKey) {
    if nearest.len() >= cap {
        match nearest.last_mut() {
            Some(last) if item < *last => *last = item,
            _ => return,
        }
    } else {
        nearest.push(item);
    }
    // Moved towards the front past every entry it comes before (the list is short).
    let list = nearest.as_mut_slice();
    let mut k = list.len().saturating_sub(1);
    while let Some(&e) = k.checked_sub(1).and_then(|j| list.get(j)) {
        if e <= item {
            break;
        }
        if let Some(slot) = list.get_mut(k) {
            *slot = e;
        }
        k -= 1;
    }
    if let Some(slot) = list.get_mut(k) {
        *slot = item;
    }
}

#[cfg(test)]
mod tests;
