//! Roots bucketed in strips of y, by x within each strip (see `root_index.rs`).

use super::{RootEntry, STRIP_HEIGHT};

/// Some roots sorted by anchor x and bucketed in strips of y, by x within each strip: a query
/// looks at the strips its y-range covers and, in each, at its x-range only, so the
/// comparisons between formations grow with their density, not with the square of their
/// number.
#[derive(Clone, Debug, Default)]
pub(super) struct Strips {
    /// `(anchor x, index into the entries)`, strip by strip.
    pub(super) cells: Vec<(f32, u32)>,
    /// Strip `s` holds `cells[starts[s]..starts[s + 1]]`.
    pub(super) starts: Vec<u32>,
    y0: f32,
    strip: f32,
}

impl Strips {
    /// Rebuilds the strips from `entries[i]` for each `i` of `members` (in x order), with room
    /// for `room` roots so that a class that grows later allocates nothing.
    pub(super) fn build(
        &mut self,
        entries: &[RootEntry],
        members: impl Iterator<Item = u32> + Clone,
        room: usize,
    ) {
        let member = |i: u32| entries.get(i as usize);
        let (mut lo, mut hi, mut count) = (f32::INFINITY, f32::NEG_INFINITY, 0usize);
        for e in members.clone().filter_map(member) {
            count += 1;
            let y = e.position.y;
            if y.is_finite() {
                lo = lo.min(y);
                hi = hi.max(y);
            }
        }
        self.cells.clear();
        self.cells.reserve(room.max(count));
        self.starts.clear();
        self.starts.reserve(room.max(count) + 1);
        // At most one strip per root, so the buffers stay as large as the roots.
        let cap = count.max(1);
        let span = if hi >= lo { hi - lo } else { 0.0 };
        self.y0 = if lo.is_finite() { lo } else { 0.0 };
        self.strip = STRIP_HEIGHT.max(span / cap as f32);
        let n = ((span / self.strip) as usize).saturating_add(1).min(cap);
        self.starts.resize(n + 1, 0);
        for e in members.clone().filter_map(member) {
            let s = self.strip_of(e.position.y, n);
            self.starts[s + 1] += 1;
        }
        for s in 0..n {
            self.starts[s + 1] += self.starts[s];
        }
        // Counting sort by strip, stable, so each strip stays sorted by x; `starts[s]` is
        // strip s's cursor and ends as strip s + 1's start.
        self.cells.resize(count, (0.0, 0));
        for i in members {
            let Some(e) = member(i) else {
                continue;
            };
            let s = self.strip_of(e.position.y, n);
            let at = self.starts[s] as usize;
            self.cells[at] = (e.position.x, i);
            self.starts[s] += 1;
        }
        for s in (1..n).rev() {
            self.starts[s] = self.starts[s - 1];
        }
        self.starts[0] = 0;
    }

    /// Whether it holds no root.
    pub(super) fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The strip of `y` among `n` strips (the first for NaN, clamped to the last).
    pub(super) fn strip_of(&self, y: f32, n: usize) -> usize {
        let t = (y - self.y0) / self.strip;
        // `as` saturates: negative and NaN give 0.
        (t as usize).min(n.saturating_sub(1))
    }

    /// Calls `visit` with every root whose anchor x lies in `x` (bounds included) and that
    /// is in a strip meeting the y-range `y` (so at least every root whose anchor lies in
    /// the box).
    pub(super) fn for_each_in(
        &self,
        entries: &[RootEntry],
        x: (f32, f32),
        y: (f32, f32),
        mut visit: impl FnMut(&RootEntry),
    ) {
        self.for_each_indexed_in(entries, x, y, |_, e| visit(e));
    }

    /// [`Self::for_each_in`], with each root's index in `entries`.
    pub(super) fn for_each_indexed_in(
        &self,
        entries: &[RootEntry],
        x: (f32, f32),
        y: (f32, f32),
        mut visit: impl FnMut(u32, &RootEntry),
    ) {
        self.any_indexed_in(entries, x, y, |i, e| {
            visit(i, e);
            false
        });
    }

    /// Whether `found` holds for some root of [`Self::for_each_indexed_in`]'s: the roots are
    /// offered in the same order, and none after the first for which it holds.
    pub(super) fn any_indexed_in(
        &self,
        entries: &[RootEntry],
        x: (f32, f32),
        y: (f32, f32),
        mut found: impl FnMut(u32, &RootEntry) -> bool,
    ) -> bool {
        let n = self.starts.len().saturating_sub(1);
        if n == 0 || self.cells.is_empty() {
            return false;
        }
        let first = self.strip_of(y.0, n);
        let last = self.strip_of(y.1, n);
        for s in first..=last {
            let strip = &self.cells[self.starts[s] as usize..self.starts[s + 1] as usize];
            let lo = strip.partition_point(|c| c.0 < x.0);
            let hi = strip.partition_point(|c| c.0 <= x.1).max(lo);
            for &(_, i) in &strip[lo..hi] {
                if let Some(e) = entries.get(i as usize)
                    && found(i, e)
                {
                    return true;
                }
            }
        }
        false
    }
}
