//! Which top-level formations a unit's avoidance search could find units of: a test that
//! spares the search to units with no one to avoid.
//!
//! In a dense army most units stand deep among their own formation's units or among those of
//! neighbours moving alike (one avoidance group, see `make_way/root_index/alike.rs`): their
//! search rejects every unit it looks at and keeps none. Per tick, each top-level formation of
//! a few units or more lists the other top-level formations (of other avoidance groups) with a
//! unit within the longest search reach of the box round its own units, found by one scan of
//! the neighbour grid over that box; a unit then searches only if its position comes within
//! its reach of the box round one of those formations' units. The test never skips a unit
//! the search would have found a neighbour for (see [`NearRoots::clear_of_others`]), so
//! avoidance chooses exactly what it would without it.

use cohort_steering::Vec2;
use cohort_steering::grid::CellGrid;

use super::NO_GROUP;
use super::search::GroupRuns;

/// Most other formations one formation's list holds; one with more near it is not listed (its
/// units always search).
const LIST_ROOM: usize = 8;

/// Fewest units a formation has for its units to be tested: for a smaller one the grid scan
/// would cost about what its units' searches do.
const MIN_UNITS: u32 = 4;

/// A formation's list length when it is not listed.
const UNLISTED: u8 = u8::MAX;

/// The box round no position.
const EMPTY_BOX: (Vec2, Vec2) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));

/// Per top-level formation (by its place among the roots): the box round its units and the
/// other formations near it. Rebuilt with the grid, every tick; buffers kept.
#[derive(Default)]
pub(crate) struct NearRoots {
    /// Per root: the least and greatest coordinates of its units' positions.
    boxes: Vec<(Vec2, Vec2)>,
    /// Per root: where its list starts in `listed` (while the lists are being built, until
    /// its own is: how many units it has).
    starts: Vec<u32>,
    /// Per root: how many entries its list has, or [`UNLISTED`].
    lens: Vec<u8>,
    /// The lists one after another: places of other roots.
    listed: Vec<u32>,
    /// Whether the lists describe this tick's positions.
    valid: bool,
}

/// What [`NearRoots::rebuild`] reads: the neighbour grid over the units' positions with its
/// group runs, and per unit its position and its root's place; per root its avoidance group.
pub(crate) struct NearRootsInput<'a> {
    pub(crate) grid: &'a CellGrid,
    pub(crate) runs: &'a GroupRuns,
    pub(crate) positions: &'a [Vec2],
    /// Per unit: the place of its top-level formation ([`NO_GROUP`] for none).
    pub(crate) roots: &'a [u32],
    /// Per root: its avoidance group.
    pub(crate) clusters: &'a [u32],
    /// The longest reach of any unit's search this tick.
    pub(crate) reach: f32,
}

impl NearRoots {
    /// Forgets the lists (no grid this tick): every unit searches.
    pub(crate) fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Refills boxes and lists for this tick. Allocates only when there are more roots than
    /// ever.
    pub(crate) fn rebuild(&mut self, input: &NearRootsInput<'_>) {
        let roots = input.clusters.len();
        self.boxes.clear();
        self.boxes.resize(roots, EMPTY_BOX);
        self.starts.clear();
        self.starts.resize(roots, 0);
        self.lens.clear();
        self.lens.resize(roots, UNLISTED);
        self.listed.clear();
        // Room for every list full, so formations that first come near each other long after
        // the world was built do not allocate in that tick.
        self.listed.reserve_exact(roots * LIST_ROOM);
        self.valid = true;
        for (&r, &p) in input.roots.iter().zip(input.positions) {
            if let (Some(b), Some(n)) = (
                self.boxes.get_mut(r as usize),
                self.starts.get_mut(r as usize),
            ) {
                *b = (b.0.min(p), b.1.max(p));
                *n += 1;
            }
        }
        // A little more than the reach, so rounding in the box test below never leaves out
        // a unit the search finds.
        let reach = input.reach * (1.0 + 1e-5) + 1e-4;
        if !reach.is_finite() {
            return;
        }
        for a in 0..roots {
            let start = self.listed.len();
            let (Some(&(lo, hi)), Some(slot), Some(&own)) = (
                self.boxes.get(a),
                self.starts.get_mut(a),
                input.clusters.get(a),
            ) else {
                continue;
            };
            let size = std::mem::replace(slot, start as u32);
            if size < MIN_UNITS || !(lo.is_finite() && hi.is_finite()) {
                continue;
            }
            let (lo, hi) = (lo - Vec2::splat(reach), hi + Vec2::splat(reach));
            let centre = (lo + hi) * 0.5;
            let half = (hi - lo) * 0.5;
            let listed = &mut self.listed;
            let mut complete = true;
            input.runs.for_each_other_run(
                input.grid,
                centre,
                half.max_element(),
                own,
                |items, positions| {
                    for (&j, &p) in items.iter().zip(positions) {
                        if p.x < lo.x || p.y < lo.y || p.x > hi.x || p.y > hi.y {
                            continue;
                        }
                        let b = input.roots.get(j as usize).copied().unwrap_or(NO_GROUP);
                        let list = listed.get(start..).unwrap_or(&[]);
                        if list.iter().rev().any(|&e| e == b) {
                            continue;
                        }
                        // A unit of no formation, or more formations than a list holds.
                        if b == NO_GROUP || list.len() >= LIST_ROOM {
                            complete = false;
                            return false;
                        }
                        listed.push(b);
                    }
                    true
                },
            );
            if complete {
                if let Some(l) = self.lens.get_mut(a) {
                    *l = (self.listed.len() - start) as u8;
                }
            } else {
                self.listed.truncate(start);
            }
        }
    }

    /// Whether a unit of root `root` standing at `at` is sure to find no unit of another
    /// avoidance group within `reach` (at most the reach the lists were built for): no
    /// listed formation's box comes within `reach` of it. Then its search would keep
    /// nothing. Rigorous: such a unit `j` stands in the box round its own formation's units,
    /// that formation is listed (it has a unit within the longest reach of the box round
    /// `root`'s units, which holds `at`), and the box's distance from `at` is computed as
    /// the search computes distances, by operations rounding no closer than theirs.
    #[inline]
    pub(crate) fn clear_of_others(&self, root: u32, at: Vec2, reach: f32) -> bool {
        if !self.valid {
            return false;
        }
        let r = root as usize;
        let (Some(&len), Some(&start)) = (self.lens.get(r), self.starts.get(r)) else {
            return false;
        };
        if len == UNLISTED {
            return false;
        }
        let start = start as usize;
        let Some(list) = self.listed.get(start..start + len as usize) else {
            return false;
        };
        let limit = reach * reach;
        for &b in list {
            let Some(&(lo, hi)) = self.boxes.get(b as usize) else {
                return false;
            };
            let gap = (lo - at).max(at - hi).max(Vec2::ZERO);
            if !(gap.length_squared() > limit) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
