//! Re-sorting a grid whose items moved a little: between two ticks most units stay in their
//! cell, so the last order with the few that left their cell taken out is still sorted; those
//! few are sorted on their own and merged back in. The result is the order a sort from scratch
//! gives (by cell, then index), in O(items + moved · log moved) instead of two radix passes.

use super::CellGrid;

impl CellGrid {
    /// Re-sorts `items` and `sorted_cells` from the last order for the cells now in
    /// `item_cell`. Returns `false`, leaving the order to a sort from scratch, when the item
    /// count changed or more than half of the items changed cell.
    pub(super) fn resort(&mut self) -> bool {
        let n = self.item_cell.len();
        if n == 0 || self.items.len() != n || self.sorted_cells.len() != n {
            return false;
        }
        // Take out the items whose cell changed; the rest stay in order, packed at the front.
        // Room for the most that may move, reserved once (a warm rebuild never allocates).
        self.moved.clear();
        self.moved.reserve(n / 2 + 1);
        let mut kept = 0usize;
        for k in 0..n {
            let i = self.items[k];
            let Some(&cell) = self.item_cell.get(i as usize) else {
                return false;
            };
            if cell == self.sorted_cells[k] {
                self.items[kept] = i;
                self.sorted_cells[kept] = cell;
                kept += 1;
            } else if self.moved.len() < n / 2 {
                self.moved.push((cell, i));
            } else {
                // More than half moved: sort from scratch (which reads neither the packed
                // front nor `moved`).
                return false;
            }
        }
        // Keys are unique (each item once), so an unstable sort is deterministic.
        self.moved.sort_unstable();
        // Merge from the back: the kept run `0..kept` and the moved items fill `0..n`.
        let (mut a, mut b, mut w) = (kept, self.moved.len(), n);
        while b > 0 {
            let (cell, i) = self.moved[b - 1];
            w -= 1;
            if a > 0 && (self.sorted_cells[a - 1], self.items[a - 1]) > (cell, i) {
                a -= 1;
                self.items[w] = self.items[a];
                self.sorted_cells[w] = self.sorted_cells[a];
            } else {
                b -= 1;
                self.items[w] = i;
                self.sorted_cells[w] = cell;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CellGrid, NeighbourSearch};
    use glam::Vec2;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn resorting_equals_sorting_from_scratch(
            start in prop::collection::vec((-12.0f32..12.0, -12.0f32..12.0), 1..150),
            steps in prop::collection::vec((-1.5f32..1.5, -1.5f32..1.5), 1..150),
            moving in 0.0f32..1.0,
            cell in 0.3f32..3.0,
        ) {
            let mut pts: Vec<Vec2> = start.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
            let bounds = (Vec2::splat(-10.0), Vec2::splat(10.0));
            let mut warm = CellGrid::new(bounds.0, bounds.1, cell).unwrap();
            warm.rebuild(&pts);
            for round in 0..4 {
                // A share of the items takes a step (some leave their cell, some the grid).
                let count = pts.len();
                for (k, p) in pts.iter_mut().enumerate() {
                    if (k as f32) < moving * count as f32 {
                        let (dx, dy) = steps[(k + round) % steps.len()];
                        *p += Vec2::new(dx, dy);
                    }
                }
                warm.rebuild(&pts);
                let mut fresh = CellGrid::new(bounds.0, bounds.1, cell).unwrap();
                fresh.rebuild(&pts);
                prop_assert_eq!(&warm.items, &fresh.items);
                prop_assert_eq!(&warm.sorted_cells, &fresh.sorted_cells);
                prop_assert_eq!(&warm.sorted_positions, &fresh.sorted_positions);
                prop_assert_eq!(&warm.block_start, &fresh.block_start);
            }
        }
    }

    #[test]
    fn orders_after_a_new_item_and_a_row_change() {
        let mut g = CellGrid::new(Vec2::ZERO, Vec2::splat(10.0), 1.0).unwrap();
        g.rebuild(&[Vec2::new(5.5, 5.5), Vec2::new(0.5, 0.5)]);
        assert_eq!(g.items, vec![1, 0]);
        g.rebuild(&[
            Vec2::new(5.5, 5.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(2.5, 0.5),
        ]);
        assert_eq!(g.items, vec![1, 2, 0]);
        // One item crosses to another row: taken out and merged back in its place.
        g.rebuild(&[
            Vec2::new(5.5, 5.5),
            Vec2::new(0.5, 7.5),
            Vec2::new(2.5, 0.5),
        ]);
        assert_eq!(g.items, vec![2, 0, 1]);
        assert_eq!(g.sorted_cells, vec![2, 55, 70]);
    }
}
