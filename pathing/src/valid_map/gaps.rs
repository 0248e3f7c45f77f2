//! The queries of jumpable gaps that the gap detector and the graph's leaps run: which gaps lie
//! near a segment, where a segment crosses a gap's outline, whether a point is inside one.
//! Long outlines go through their edge index, so a query costs the edges near it.

use glam::Vec2;

use super::{Shape, ValidMap};
use crate::polygon::{self, Crossing};

impl ValidMap {
    /// The shape index of gap `gap` (gaps are the last shapes of the broad phase).
    fn gap_shape(&self, gap: usize) -> Option<u32> {
        let first = self.shapes.len().checked_sub(self.map.gaps.len())?;
        let s = first.checked_add(gap)?;
        matches!(self.shapes.get(s), Some(Shape::Gap(i)) if *i as usize == gap).then_some(s as u32)
    }

    /// Calls `f` with the index of every gap whose bounding box lies in a cell of the broad
    /// phase near the segment `a`–`b` (every gap the segment enters or starts in, perhaps more,
    /// a gap perhaps more than once), until `f` returns `true`.
    pub(crate) fn gaps_near_segment(&self, a: Vec2, b: Vec2, mut f: impl FnMut(usize) -> bool) {
        if self.map.gaps.is_empty() {
            return;
        }
        let slack = self.grid.cell_size() * 1e-3;
        self.grid
            .any_near_segment(a, b, slack, |s| match self.shapes.get(s as usize) {
                Some(Shape::Gap(i)) => f(*i as usize),
                _ => false,
            });
    }

    /// The bounding box of gap `gap`'s outline (empty, `(+inf, -inf)`, for an unknown gap).
    pub(crate) fn gap_bounds(&self, gap: usize) -> (Vec2, Vec2) {
        let index = self
            .gap_shape(gap)
            .and_then(|s| self.rings.get(s as usize))
            .and_then(Option::as_ref);
        match (index, self.map.gaps.get(gap)) {
            (Some(index), _) => index.bounds(),
            (None, Some(g)) => polygon::aabb(&g.points),
            (None, None) => (Vec2::INFINITY, Vec2::NEG_INFINITY),
        }
    }

    /// Where the segment `a`–`b` crosses gap `gap`'s outline, as [`polygon::crossings`] finds
    /// them (none for an unknown gap).
    pub(crate) fn gap_crossings(&self, gap: usize, a: Vec2, b: Vec2, out: &mut Vec<Crossing>) {
        out.clear();
        let Some((points, index)) = self.gap_shape(gap).and_then(|s| self.ring(s)) else {
            return;
        };
        match index {
            Some(index) => index.crossings(points, a, b, out),
            None => polygon::crossings(points, a, b, out),
        }
    }

    /// Whether `p` is inside gap `gap` (even-odd rule, as [`polygon::contains`]).
    pub(crate) fn gap_contains(&self, gap: usize, p: Vec2) -> bool {
        self.gap_shape(gap)
            .and_then(|s| self.ring(s))
            .is_some_and(|(points, index)| match index {
                Some(index) => index.contains(points, p),
                None => polygon::contains(points, p),
            })
    }
}
