use super::*;
use proptest::prelude::*;

fn grid() -> CellGrid {
    CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), 2.0).unwrap()
}

#[test]
fn new_validates() {
    let g = grid();
    assert_eq!(g.dimensions(), (10, 10));
    assert!(CellGrid::new(Vec2::ZERO, Vec2::ZERO, 1.0).is_err());
    assert!(CellGrid::new(Vec2::ONE, Vec2::ZERO, 1.0).is_err());
    assert!(CellGrid::new(Vec2::ZERO, Vec2::ONE, 0.0).is_err());
    assert!(CellGrid::new(Vec2::ZERO, Vec2::ONE, f32::NAN).is_err());
    assert!(CellGrid::new(Vec2::new(f32::INFINITY, 0.0), Vec2::ONE, 1.0).is_err());
    assert!(matches!(
        CellGrid::new(Vec2::ZERO, Vec2::splat(1e6), 0.01),
        Err(SteeringError::OutOfRange { .. })
    ));
    // Partial last cell rounds up.
    let g = CellGrid::new(Vec2::ZERO, Vec2::new(5.0, 1.0), 2.0).unwrap();
    assert_eq!(g.dimensions(), (3, 1));
}

#[test]
fn cells_row_major_and_clamped() {
    let g = grid();
    assert_eq!(g.cell_of(Vec2::new(-10.0, -10.0)), 0);
    assert_eq!(g.cell_of(Vec2::new(-7.9, -10.0)), 1);
    assert_eq!(g.cell_of(Vec2::new(-10.0, -7.9)), 10);
    assert_eq!(g.cell_of(Vec2::new(9.9, 9.9)), 99);
    // Outside the bounds: nearest edge cell.
    assert_eq!(g.cell_of(Vec2::new(-500.0, 3.0)), 60);
    assert_eq!(g.cell_of(Vec2::new(500.0, 500.0)), 99);
    assert_eq!(g.cell_of(Vec2::NAN), 0);
}

#[test]
fn query_order_and_contents() {
    let mut g = grid();
    let pts = [
        Vec2::new(1.0, 1.0),   // 0: cell (5,5)
        Vec2::new(-1.0, 1.0),  // 1: cell (4,5)
        Vec2::new(1.5, 1.5),   // 2: cell (5,5)
        Vec2::new(0.5, -1.0),  // 3: cell (5,4)
        Vec2::new(9.0, 9.0),   // 4: far away
        Vec2::new(0.0, 3.01),  // 5: just outside radius 3
        Vec2::new(50.0, 50.0), // 6: outside bounds
    ];
    g.rebuild(&pts);
    assert_eq!(g.len(), 7);
    let mut out = Vec::new();
    g.query_radius(Vec2::ZERO, 3.0, &mut out);
    // Row y=4 first (item 3), then row y=5: cell x=4 (item 1), cell x=5 (items 0, 2).
    assert_eq!(out, vec![3, 1, 0, 2]);
    // Items outside the bounds are found from outside the bounds.
    g.query_radius(Vec2::new(49.0, 50.0), 1.0, &mut out);
    assert_eq!(out, vec![6]);
    // Boundary: distance exactly equal to the radius is included.
    g.query_radius(Vec2::new(1.0, 4.0), 3.0, &mut out);
    assert!(out.contains(&0));
    g.query_radius(Vec2::new(1.0, 4.0), 2.99, &mut out);
    assert!(!out.contains(&0));
    g.query_radius(Vec2::ZERO, -1.0, &mut out);
    assert!(out.is_empty());
    g.query_radius(Vec2::ZERO, f32::NAN, &mut out);
    assert!(out.is_empty());
    assert_eq!(g.position(4), Some(Vec2::new(9.0, 9.0)));
    assert_eq!(g.position(7), None);
    let (idx, pos) = g.cell_items(55);
    assert_eq!(idx, &[0, 2]);
    assert_eq!(pos, &[Vec2::new(1.0, 1.0), Vec2::new(1.5, 1.5)]);
}

#[test]
fn non_finite_positions_are_never_found() {
    let mut g = grid();
    g.rebuild(&[Vec2::NAN, Vec2::new(f32::INFINITY, 0.0), Vec2::ZERO]);
    let mut out = Vec::new();
    g.query_radius(Vec2::new(-10.0, -10.0), 1.0e6, &mut out);
    assert_eq!(out, vec![2]);
}

#[test]
fn rebuild_does_not_reallocate_once_warm() {
    let mut g = grid();
    let mut rng = crate::SimRng::seed_from(3);
    let pts: Vec<Vec2> = (0..500)
        .map(|_| Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0)))
        .collect();
    g.rebuild(&pts);
    let caps = |g: &CellGrid| {
        (
            g.items.capacity(),
            g.sorted_positions.capacity(),
            g.item_cell.capacity(),
            g.input_positions.capacity(),
            g.sorted_cells.capacity(),
            g.partly_sorted.capacity(),
            g.items.as_ptr(),
            g.sorted_positions.as_ptr(),
        )
    };
    let warm = caps(&g);
    g.rebuild(&pts);
    assert_eq!(caps(&g), warm);
    g.rebuild_from(pts.iter().take(300).map(|&p| p + Vec2::ONE));
    assert_eq!(caps(&g), warm);
    assert_eq!(g.len(), 300);
}

#[test]
fn rebuild_replaces_previous_items() {
    let mut g = grid();
    g.rebuild(&[Vec2::ZERO, Vec2::ONE]);
    g.rebuild(&[Vec2::new(5.0, 5.0)]);
    let mut out = Vec::new();
    g.query_radius(Vec2::ZERO, 100.0, &mut out);
    assert_eq!(out, vec![0]);
}

proptest! {
    #[test]
    fn grid_matches_brute_force(
        pts in prop::collection::vec((-15.0f32..15.0, -15.0f32..15.0), 0..120),
        queries in prop::collection::vec((-15.0f32..15.0, -15.0f32..15.0, 0.0f32..8.0), 1..10),
        cell in 0.3f32..6.0,
    ) {
        let pts: Vec<Vec2> = pts.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
        let mut g = CellGrid::new(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), cell).unwrap();
        let mut b = BruteForceSearch::new();
        g.rebuild(&pts);
        b.rebuild(&pts);
        prop_assert_eq!(g.len(), b.len());
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for (x, y, r) in queries {
            let c = Vec2::new(x, y);
            g.query_radius(c, r, &mut got);
            b.query_radius(c, r, &mut want);
            // Within a cell the grid lists ascending indices: check before sorting.
            let mut positions = Vec::new();
            g.for_each_in_radius(c, r, |i, p| positions.push((i, p)));
            for &(i, p) in &positions {
                prop_assert_eq!(Some(p), pts.get(i as usize).copied());
            }
            got.sort_unstable();
            prop_assert_eq!(&got, &want);
        }
    }
}

#[test]
fn cell_sizes_grow_to_fit_huge_maps() {
    let fits = |min: Vec2, max: Vec2, cell: f32| {
        let c = CellGrid::cell_size_to_fit(min, max, cell);
        assert!(c >= cell, "{c} < {cell}");
        let g = CellGrid::new(min, max, c).unwrap();
        let (cols, rows) = g.dimensions();
        assert!(cols as usize * rows as usize <= MAX_CELLS);
        c
    };
    // Small maps keep the cell they ask for.
    assert_eq!(fits(Vec2::ZERO, Vec2::splat(1000.0), 1.4), 1.4);
    // A 10 km map and the whole coordinate range get coarser cells, not an error.
    assert!(CellGrid::new(Vec2::ZERO, Vec2::splat(10_000.0), 1.4).is_err());
    assert!(fits(Vec2::ZERO, Vec2::splat(10_000.0), 1.4) < 5.0);
    assert!(fits(Vec2::splat(-1e6), Vec2::splat(1e6), 1.4) < 1000.0);
    // A long thin map.
    fits(Vec2::ZERO, Vec2::new(2e6, 0.5), 0.1);
    // What `new` refuses comes back unchanged.
    assert_eq!(
        CellGrid::cell_size_to_fit(Vec2::ZERO, Vec2::ONE, -1.0),
        -1.0
    );
}

/// The row runs of a query hold every item within its radius, each once, with the slots the
/// order gives them, and rows come in slot order.
#[test]
fn row_runs_hold_every_item_within_radius() {
    let mut rng = crate::SimRng::seed_from(3);
    let mut g = grid();
    let positions: Vec<Vec2> = (0..400)
        .map(|_| Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0)))
        .collect();
    g.rebuild(&positions);
    let mut brute = BruteForceSearch::new();
    brute.rebuild(&positions);
    let mut total = 0;
    for _ in 0..200 {
        let center = Vec2::new(rng.range(-12.0, 12.0), rng.range(-12.0, 12.0));
        let radius = rng.range(0.0, 6.0);
        let mut found = Vec::new();
        let mut last_end = 0;
        g.for_each_row_run(center, radius, |first, items, positions| {
            assert!(first >= last_end, "rows in slot order");
            last_end = first + items.len();
            assert_eq!(items.len(), positions.len());
            for (k, (&i, &p)) in items.iter().zip(positions).enumerate() {
                assert_eq!(g.order()[first + k], i);
                if within_radius(p, center, radius) {
                    found.push(i);
                }
            }
        });
        let mut wanted = Vec::new();
        brute.query_radius(center, radius, &mut wanted);
        total += found.len();
        found.sort_unstable();
        assert_eq!(found, wanted);
    }
    assert!(total > 1000, "{total}");
    let mut calls = 0;
    g.for_each_row_run(Vec2::ZERO, f32::NAN, |_, _, _| calls += 1);
    g.for_each_row_run(Vec2::ZERO, -1.0, |_, _, _| calls += 1);
    assert_eq!(calls, 0);
}
