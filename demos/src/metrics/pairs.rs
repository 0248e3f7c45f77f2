//! Overlapping pairs of units in one tick, found with a cell grid.

use cohort_steering::grid::{CellGrid, MAX_CELLS, NeighbourSearch};
use glam::Vec2;

use super::UnitSample;

/// What one tick's pair search found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PairsFound {
    /// Pairs closer than the overlap fraction of their radii sum.
    pub overlaps: u64,
    /// Worst `(r1 + r2 - d) / (r1 + r2)` over pairs that touch (0 when none do).
    pub max_depth: f32,
}

/// Reusable pair search over the map rectangle.
#[derive(Debug)]
pub(crate) struct PairCounter {
    min: Vec2,
    max: Vec2,
    grid: Option<CellGrid>,
    grid_radius: f32,
    positions: Vec<Vec2>,
}

impl PairCounter {
    /// A counter for units inside `min..max` (units outside still count, in edge cells).
    pub fn new(min: Vec2, max: Vec2) -> Self {
        Self {
            min,
            max,
            grid: None,
            grid_radius: 0.0,
            positions: Vec::new(),
        }
    }

    /// A grid whose cells are at least `2 * radius` wide, rebuilt only when the largest
    /// radius grows.
    fn grid_for(&mut self, radius: f32) -> Option<&mut CellGrid> {
        if self.grid.is_none() || radius > self.grid_radius {
            let extent = (self.max - self.min).max(Vec2::splat(1e-3));
            let min_cell = (extent.x * extent.y / MAX_CELLS as f32).sqrt() * 1.01;
            let cell = (2.0 * radius).max(min_cell).max(1e-3);
            self.grid = CellGrid::new(self.min, self.min + extent, cell).ok();
            self.grid_radius = radius;
        }
        self.grid.as_mut()
    }

    /// Counts the pairs of `units` closer than `fraction` of their radii sum.
    pub fn count(&mut self, units: &[UnitSample], fraction: f32) -> PairsFound {
        let mut found = PairsFound::default();
        let max_radius = units
            .iter()
            .map(|u| u.radius)
            .filter(|r| r.is_finite())
            .fold(0.0f32, f32::max);
        if units.len() < 2 || max_radius <= 0.0 {
            return found;
        }
        self.positions.clear();
        self.positions.extend(units.iter().map(|u| u.position));
        let positions = std::mem::take(&mut self.positions);
        if let Some(grid) = self.grid_for(max_radius) {
            grid.rebuild(&positions);
            for (i, a) in units.iter().enumerate() {
                if a.airborne || !a.position.is_finite() || a.radius.is_nan() || a.radius <= 0.0 {
                    continue;
                }
                grid.for_each_in_radius(a.position, a.radius + max_radius, |j, p| {
                    let Some(b) = units.get(j as usize) else {
                        return;
                    };
                    if (j as usize) <= i || b.airborne || b.radius.is_nan() || b.radius <= 0.0 {
                        return;
                    }
                    let sum = a.radius + b.radius;
                    let d = (p - a.position).length();
                    if d < sum {
                        found.max_depth = found.max_depth.max((sum - d) / sum);
                    }
                    if d < fraction * sum {
                        found.overlaps += 1;
                    }
                });
            }
        }
        self.positions = positions;
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(index: usize, x: f32, y: f32) -> UnitSample {
        UnitSample {
            index,
            position: Vec2::new(x, y),
            velocity: Vec2::ZERO,
            heading: Vec2::X,
            radius: 0.5,
            slot_target: None,
            ordered_to_move: false,
            formation_at_goal: true,
            single: false,
            airborne: false,
        }
    }

    /// All pairs, the slow way.
    fn brute(units: &[UnitSample]) -> u64 {
        let mut n = 0;
        for (i, a) in units.iter().enumerate() {
            for b in &units[i + 1..] {
                if (a.position - b.position).length() < 0.95 * (a.radius + b.radius) {
                    n += 1;
                }
            }
        }
        n
    }

    #[test]
    fn counts_each_pair_once_with_depth() {
        let units = [
            unit(0, 10.0, 10.0),
            unit(1, 10.5, 10.0),
            unit(2, 30.0, 30.0),
        ];
        let mut c = PairCounter::new(Vec2::ZERO, Vec2::splat(100.0));
        let f = c.count(&units, 0.95);
        assert_eq!(f.overlaps, 1);
        assert!((f.max_depth - 0.5).abs() < 1e-6);
        // 0.96 of the radii sum apart: touching, not overlapping.
        let units = [unit(0, 10.0, 10.0), unit(1, 10.96, 10.0)];
        let f = c.count(&units, 0.95);
        assert_eq!(f.overlaps, 0);
        assert!((f.max_depth - 0.04).abs() < 1e-4);
    }

    #[test]
    fn agrees_with_all_pairs() {
        let mut rng = cohort_steering::SimRng::seed_from(3);
        let units: Vec<_> = (0..400)
            .map(|i| unit(i, rng.range(0.0, 40.0), rng.range(-5.0, 40.0)))
            .collect();
        let mut c = PairCounter::new(Vec2::ZERO, Vec2::splat(40.0));
        let f = c.count(&units, 0.95);
        assert!(f.overlaps > 0);
        assert_eq!(f.overlaps, brute(&units));
    }
}
