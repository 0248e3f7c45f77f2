//! Which units of other top-level formations a unit's avoidance search could find: a
//! test that spares the search to units with no one to avoid, and short lists of candidates
//! for the others.
//!
//! In a dense army most units stand deep among their own formation's units or among those of
//! neighbours moving alike (one avoidance group, see `make_way/root_index/alike.rs`): their
//! search rejects every unit it looks at and keeps none. Per tick, each top-level formation of
//! [`MIN_UNITS`] units or more scans the neighbour grid once over the box round its own units grown by
//! the longest search reach, and keeps the units of other groups it finds there (its
//! *candidates*, in runs of one group each with the box round each run) and the other
//! formations they belong to. A unit of such a formation searches nobody if its position is
//! beyond its reach of the box round every listed formation's units, and otherwise looks only
//! at the candidates of the runs within its reach, instead of walking the grid's rows. Every
//! unit the grid search would keep is among those candidates (see [`NearRoots::scope`]), so
//! avoidance chooses exactly what it would without them.

use cohort_steering::Vec2;
use cohort_steering::grid::{CellGrid, NeighbourSearch};

use super::NO_GROUP;
use super::search::GroupRuns;

/// Most other formations one formation's list holds; one with more near it is not listed (its
/// units always search).
const LIST_ROOM: usize = 8;

/// Fewest units a formation has for its units to be tested: a smaller one's box grown by the
/// reach holds more formations than a list does in a crowd of small groups, and its scan
/// costs more than its units' searches (in groups of 4, more than half were not listed).
const MIN_UNITS: u32 = 8;

/// Most candidates one formation keeps; one with more near it is not listed.
const CANDIDATE_ROOM: usize = 256;

/// Most runs of candidates one formation keeps; one with more is not listed.
const RUN_ROOM: usize = 64;

/// A run of one formation's candidates: units of one avoidance group, found in one row of
/// grid cells, with the box round their positions.
#[derive(Clone, Copy, Debug)]
struct CandidateRun {
    /// Their avoidance group.
    group: u32,
    /// Their range in their chunk's candidates.
    start: u32,
    end: u32,
    /// Least and greatest coordinates of their positions.
    lo: Vec2,
    hi: Vec2,
}

/// A formation's list length when it is not listed.
const UNLISTED: u8 = u8::MAX;

/// The box round no position.
const EMPTY_BOX: (Vec2, Vec2) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));

/// Roots whose lists are made together, into one set of buffers (on one of the pool's
/// threads with the `parallel` feature); which chunk a root falls in depends on its place
/// alone, so the lists are the same on any number of threads.
const ROOT_CHUNK: usize = 64;

/// Where one root's list and runs of candidates lie in its chunk's buffers.
#[derive(Clone, Copy, Debug, Default)]
struct RootSpan {
    /// How many units the root has.
    size: u32,
    /// Start of its list in the chunk's `listed`.
    list: u32,
    /// Length of its list, or [`UNLISTED`].
    len: u8,
    /// Its runs' range in the chunk's `runs`.
    runs: (u32, u32),
}

/// One chunk's lists, runs and candidates, one root's after another.
#[derive(Default)]
struct ChunkLists {
    /// Places of other roots.
    listed: Vec<u32>,
    /// Runs of candidates.
    runs: Vec<CandidateRun>,
    /// The candidates, run after run: each unit's index and position.
    candidates: Vec<(u32, Vec2)>,
}

/// Per top-level formation (by its place among the roots): the box round its units and the
/// other formations and units near it. Rebuilt with the grid, every tick; buffers kept.
#[derive(Default)]
pub(crate) struct NearRoots {
    /// Per root: the least and greatest coordinates of its units' positions.
    boxes: Vec<(Vec2, Vec2)>,
    /// Per root: where its list and runs lie in its chunk's buffers.
    spans: Vec<RootSpan>,
    /// Per chunk of [`ROOT_CHUNK`] roots: their lists, runs and candidates.
    chunks: Vec<ChunkLists>,
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

    /// Refills boxes, lists and candidates for this tick, chunk by chunk of roots (on the
    /// pool's threads when there are several chunks and threads). Allocates only when there
    /// are more roots than ever, or more candidates near a chunk's roots than room was made
    /// for.
    pub(crate) fn rebuild(&mut self, input: &NearRootsInput<'_>) {
        // Runs that do not describe this grid would hide units: then every unit searches.
        if !input.runs.fits(input.grid.len()) {
            self.valid = false;
            return;
        }
        let roots = input.clusters.len();
        self.boxes.clear();
        self.boxes.resize(roots, EMPTY_BOX);
        self.spans.clear();
        self.spans.resize(roots, RootSpan::default());
        let chunks = roots.div_ceil(ROOT_CHUNK);
        if self.chunks.len() < chunks {
            self.chunks.resize_with(chunks, ChunkLists::default);
        }
        self.valid = true;
        for (&r, &p) in input.roots.iter().zip(input.positions) {
            if let (Some(b), Some(span)) = (
                self.boxes.get_mut(r as usize),
                self.spans.get_mut(r as usize),
            ) {
                *b = (b.0.min(p), b.1.max(p));
                span.size += 1;
            }
        }
        // A little more than the reach: a unit the search finds within its reach (by the
        // rounded squared distance) may stand a hair more than the reach away.
        let reach = input.reach * (1.0 + 1e-5) + 1e-4;
        let boxes = &self.boxes;
        let chunk = |c: usize, spans: &mut [RootSpan], lists: &mut ChunkLists| {
            lists.fill(input, c * ROOT_CHUNK, spans, boxes, reach);
        };
        let lists = self.chunks.get_mut(..chunks).unwrap_or(&mut []);
        #[cfg(feature = "parallel")]
        if crate::world::par::split(chunks, 2) {
            use rayon::prelude::*;
            self.spans
                .par_chunks_mut(ROOT_CHUNK)
                .zip(lists.par_iter_mut())
                .enumerate()
                .for_each(|(c, (spans, lists))| chunk(c, spans, lists));
            return;
        }
        for (c, (spans, lists)) in self.spans.chunks_mut(ROOT_CHUNK).zip(lists).enumerate() {
            chunk(c, spans, lists);
        }
    }

    /// The list and candidate runs of root `r`, if it is listed.
    #[inline]
    fn listed(&self, r: usize) -> Option<(&ChunkLists, RootSpan)> {
        if !self.valid {
            return None;
        }
        let span = *self.spans.get(r)?;
        if span.len == UNLISTED {
            return None;
        }
        Some((self.chunks.get(r / ROOT_CHUNK)?, span))
    }

    /// Where a unit of root `root` standing at `at` is to look for units of other avoidance
    /// groups within `reach` (at most the reach the lists were built for): nowhere when no
    /// listed formation's box comes within `reach` of it; among its formation's candidates
    /// when its formation is listed; else everywhere (the grid search). Rigorous: such a
    /// unit `j` stands in the box round its own formation's units, which is listed (it has a
    /// unit within the longest reach of the box round `root`'s units, which holds `at`), and
    /// is one of `root`'s candidates; the boxes' distances from `at` are computed as the
    /// search computes distances, by operations rounding no closer than theirs.
    #[inline]
    pub(crate) fn scope(&self, root: u32, at: Vec2, reach: f32) -> SearchScope {
        let Some((lists, span)) = self.listed(root as usize) else {
            return SearchScope::Everywhere;
        };
        let start = span.list as usize;
        let Some(list) = lists.listed.get(start..start + span.len as usize) else {
            return SearchScope::Everywhere;
        };
        for &b in list {
            let Some(&(lo, hi)) = self.boxes.get(b as usize) else {
                return SearchScope::Everywhere;
            };
            if may_reach((lo, hi), at, reach) {
                return SearchScope::Candidates;
            }
        }
        SearchScope::Nobody
    }

    /// Calls `f(group, candidates)` for each run of listed root `root`'s candidates whose
    /// box may come within `reach` of `at` ([`may_reach`]: no candidate within `reach` is
    /// passed over); the caller tests each candidate's distance.
    #[inline]
    pub(crate) fn for_each_candidate_run<F>(&self, root: u32, at: Vec2, reach: f32, mut f: F)
    where
        F: FnMut(u32, &[(u32, Vec2)]),
    {
        let Some((lists, span)) = self.listed(root as usize) else {
            return;
        };
        let Some(runs) = lists.runs.get(span.runs.0 as usize..span.runs.1 as usize) else {
            return;
        };
        for run in runs {
            if !may_reach((run.lo, run.hi), at, reach) {
                continue;
            }
            if let Some(c) = lists.candidates.get(run.start as usize..run.end as usize) {
                f(run.group, c);
            }
        }
    }
}

impl ChunkLists {
    /// Makes the lists of the roots from place `first` on (`spans`, one per root of the
    /// chunk, their sizes counted): for each root of at least [`MIN_UNITS`] units, the other
    /// roots and the candidates within `reach` of its box, unless there are too many or a unit
    /// of no formation is among them (then it is not listed).
    fn fill(
        &mut self,
        input: &NearRootsInput<'_>,
        first: usize,
        spans: &mut [RootSpan],
        boxes: &[(Vec2, Vec2)],
        reach: f32,
    ) {
        self.listed.clear();
        self.runs.clear();
        self.candidates.clear();
        // Room for every list full, for candidates twice the chunk's units and for runs half
        // the chunk's units and [`RUN_ROOM`] more, so formations that first come near each
        // other long after the world was built do not allocate in that tick (unless their
        // candidates outgrow that room: then once).
        // (None for a chunk of small groups and singles only, which lists nothing.)
        let units: usize = spans.iter().map(|s| s.size as usize).sum();
        if spans.iter().any(|s| s.size >= MIN_UNITS) {
            self.listed.reserve_exact(spans.len() * LIST_ROOM);
            self.candidates.reserve_exact(2 * units);
            self.runs.reserve_exact(units / 2 + RUN_ROOM);
        }
        for (k, span) in spans.iter_mut().enumerate() {
            let a = first + k;
            span.list = self.listed.len() as u32;
            span.runs = (self.runs.len() as u32, self.runs.len() as u32);
            span.len = UNLISTED;
            let (Some(&(lo, hi)), Some(&own)) = (boxes.get(a), input.clusters.get(a)) else {
                continue;
            };
            if span.size < MIN_UNITS || !(lo.is_finite() && hi.is_finite() && reach.is_finite()) {
                continue;
            }
            if self.list(input, own, (lo, hi), reach) {
                span.len = (self.listed.len() - span.list as usize) as u8;
                span.runs.1 = self.runs.len() as u32;
            }
        }
    }

    /// Lists for the next root (of avoidance group `own`, its units in the box `lo..=hi`) the
    /// other roots and the candidates within `reach` of its box, after those of the roots
    /// before it. Returns whether it could (no unit of no formation near, no more than
    /// room); if not, nothing of it is kept.
    fn list(
        &mut self,
        input: &NearRootsInput<'_>,
        own: u32,
        (lo, hi): (Vec2, Vec2),
        reach: f32,
    ) -> bool {
        let (lo, hi) = (lo - Vec2::splat(reach), hi + Vec2::splat(reach));
        let starts = (self.listed.len(), self.runs.len(), self.candidates.len());
        let Self {
            listed,
            runs,
            candidates,
        } = self;
        let mut complete = true;
        input
            .runs
            .for_each_other_run(input.grid, (lo, hi), own, |group, items, positions| {
                let first = candidates.len();
                let mut run_box = EMPTY_BOX;
                for (&j, &p) in items.iter().zip(positions) {
                    if p.x < lo.x || p.y < lo.y || p.x > hi.x || p.y > hi.y {
                        continue;
                    }
                    let b = input.roots.get(j as usize).copied().unwrap_or(NO_GROUP);
                    let list = listed.get(starts.0..).unwrap_or(&[]);
                    if !list.iter().rev().any(|&e| e == b) {
                        // A unit of no formation, or more formations than a list holds.
                        if b == NO_GROUP || list.len() >= LIST_ROOM {
                            complete = false;
                            return false;
                        }
                        listed.push(b);
                    }
                    if candidates.len() - starts.2 >= CANDIDATE_ROOM {
                        complete = false;
                        return false;
                    }
                    candidates.push((j, p));
                    run_box = (run_box.0.min(p), run_box.1.max(p));
                }
                if candidates.len() > first {
                    if runs.len() - starts.1 >= RUN_ROOM {
                        complete = false;
                        return false;
                    }
                    runs.push(CandidateRun {
                        group,
                        start: first as u32,
                        end: candidates.len() as u32,
                        lo: run_box.0,
                        hi: run_box.1,
                    });
                }
                true
            });
        if !complete {
            self.listed.truncate(starts.0);
            self.runs.truncate(starts.1);
            self.candidates.truncate(starts.2);
        }
        complete
    }
}

/// Whether a position in the box `lo..=hi` may be within `reach` of `at` by the search's
/// test (`within_radius`): the box's distance from `at`, computed with the same operations on
/// differences no larger than any of its positions' (rounding keeps that order), is not
/// beyond `reach`. False means no position in the box passes that test (NaN: true).
#[inline]
fn may_reach((lo, hi): (Vec2, Vec2), at: Vec2, reach: f32) -> bool {
    let gap = (lo - at).max(at - hi).max(Vec2::ZERO);
    !(gap.length_squared() > reach * reach)
}

/// Where a unit's avoidance search looks (see [`NearRoots::scope`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SearchScope {
    /// Nowhere: no unit of another group is within its reach.
    Nobody,
    /// Among its formation's candidates ([`NearRoots::for_each_candidate_run`]).
    Candidates,
    /// Anywhere within its reach (the grid search).
    Everywhere,
}

#[cfg(test)]
mod tests;
