//! The reference search every [`NeighbourSearch`] agrees with: a scan of every item.

use glam::Vec2;

use super::{NearPair, NeighbourSearch, within_radius};

/// The reference search: tests every item, in index order. Same results as
/// [`CellGrid`](super::CellGrid) (as a set), for comparison in tests and benchmarks.
#[derive(Clone, Debug, Default)]
pub struct BruteForceSearch {
    pub(super) positions: Vec<Vec2>,
    /// `0..len`: the items in index order.
    order: Vec<u32>,
}

impl BruteForceSearch {
    /// An empty search.
    pub fn new() -> Self {
        Self::default()
    }
}

impl NeighbourSearch for BruteForceSearch {
    fn rebuild(&mut self, positions: &[Vec2]) {
        let take = positions.len().min(u32::MAX as usize);
        self.positions.clear();
        self.positions
            .extend_from_slice(positions.get(..take).unwrap_or(&[]));
        self.order.clear();
        self.order.extend(0..take as u32);
    }

    fn for_each_in_radius<F: FnMut(u32, Vec2)>(&self, center: Vec2, radius: f32, mut f: F) {
        if radius.is_nan() || radius < 0.0 {
            return;
        }
        for (i, &p) in self.positions.iter().enumerate() {
            if within_radius(p, center, radius) {
                f(i as u32, p);
            }
        }
    }

    fn for_each_pair_within<F: FnMut(NearPair)>(&self, radius: f32, f: F) {
        self.all_pairs(radius, f);
    }

    fn order(&self) -> &[u32] {
        &self.order
    }

    fn len(&self) -> usize {
        self.positions.len()
    }
}
