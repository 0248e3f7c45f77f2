//! The exact solver (an `f32` warm start repaired in `f64`, SIMD path search) against the
//! plain dense Jonker–Volgenant kept as a reference ([`super::reference`]), on random matrices
//! with ties, role penalties, unreachable pairs and rectangular shapes, and through the
//! public [`SlotAssignment`] API on random geometry.

use glam::Vec2;
use proptest::prelude::*;

use super::reference::ReferenceJv;
use super::solver::{Jv, WARM_START_FROM};
use super::*;

/// Solves `rows × cols` (`rows <= cols`) `costs` with both solvers; returns the exact solver's
/// columns and both totals.
fn both(rows: usize, cols: usize, costs: &[f64]) -> (Vec<usize>, f64, f64) {
    let mut jv = Jv::default();
    jv.prepare(rows, cols);
    jv.costs_mut()[..costs.len()].copy_from_slice(costs);
    let mut got = Vec::new();
    jv.solve(rows, &mut got);
    let mut reference = ReferenceJv::default();
    reference.prepare(rows, cols);
    reference.costs[..costs.len()].copy_from_slice(costs);
    let mut want = Vec::new();
    reference.solve(rows, &mut want);
    let total = |cols_of: &[usize]| -> f64 {
        cols_of
            .iter()
            .enumerate()
            .map(|(r, &c)| costs[r * cols + c])
            .sum()
    };
    (got.clone(), total(&got), total(&want))
}

/// `rows × cols` costs: `kind` 0 continuous, 1 small integers (many ties), 2 continuous with
/// role penalties (1e6) on some entries, 3 integers with some unreachable pairs (1e30), 4
/// differences below the `f32` resolution (the warm start sees mostly ties, the repair
/// does the rest).
fn matrix(rows: usize, cols: usize, kind: u8, seed: u64) -> Vec<f64> {
    let mut rng = cohort_steering::SimRng::seed_from(seed);
    (0..rows * cols)
        .map(|_| {
            let u = f64::from(rng.range(0.0, 1.0));
            let w = f64::from(rng.range(0.0, 1.0));
            match kind {
                0 => u * 100.0,
                1 => (u * 6.0).floor(),
                2 => u * 50.0 + if w < 0.3 { 1.0e6 } else { 0.0 },
                4 => 1.0e4 + u * 1.0e-2,
                _ => {
                    if w < 0.1 {
                        1.0e30
                    } else {
                        (u * 10.0).floor()
                    }
                }
            }
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn exact_solver_matches_the_reference_on_random_matrices(
        rows in 1usize..2 * WARM_START_FROM,
        extra in 0usize..12,
        kind in 0u8..5,
        seed in any::<u64>(),
    ) {
        let cols = rows + extra;
        let costs = matrix(rows, cols, kind, seed);
        let (got, total, want) = both(rows, cols, &costs);
        prop_assert_eq!(got.len(), rows);
        let mut used = vec![false; cols];
        for &c in &got {
            prop_assert!(c < cols && !used[c], "column {} reused or out of range", c);
            used[c] = true;
        }
        prop_assert!(close(total, want), "{} vs reference {}", total, want);
    }

    #[test]
    fn slot_assignment_matches_the_reference_on_random_geometry(
        members in 1usize..72,
        slots in 1usize..72,
        squared in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = cohort_steering::SimRng::seed_from(seed);
        let roles = [Role::Any, Role::Leader, Role::Comms];
        let mut located = |n: usize, spread: f32| -> Vec<Located> {
            (0..n)
                .map(|_| {
                    let p = Vec2::new(rng.range(-spread, spread), rng.range(-spread, spread));
                    let role = roles[(rng.range(0.0, 2.99) as usize).min(2)];
                    Located::new(p, role)
                })
                .collect()
        };
        let members = located(members, 30.0);
        // Slots on a coarse grid: many equal distances.
        let slots: Vec<Located> = located(slots, 10.0)
            .into_iter()
            .map(|s| Located::new(s.position.round(), s.role))
            .collect();
        let config = AssignmentConfig {
            metric: if squared { CostMetric::SquaredDistance } else { CostMetric::Distance },
            greedy_above: usize::MAX,
            ..AssignmentConfig::default()
        };
        let mut solver = SlotAssignment::new(config).unwrap();
        let mut a = Assignment::default();
        prop_assert_eq!(solver.solve(&members, &slots, &mut a), Outcome::Optimal);
        prop_assert!(a.is_complete(slots.len()));
        // The reference on the same matrix, rows the smaller side.
        let rows_are_members = members.len() <= slots.len();
        let (rows, cols) = if rows_are_members {
            (members.len(), slots.len())
        } else {
            (slots.len(), members.len())
        };
        let mut costs = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            for c in 0..cols {
                let (m, s) = if rows_are_members { (r, c) } else { (c, r) };
                costs.push(config.cost(&members[m], &slots[s]));
            }
        }
        let (_, _, want) = both(rows, cols, &costs);
        prop_assert!(close(a.total_cost, want), "{} vs reference {}", a.total_cost, want);
    }
}

#[test]
fn warm_start_threshold_is_exercised_on_both_sides() {
    for n in [WARM_START_FROM - 1, WARM_START_FROM, 3 * WARM_START_FROM] {
        for kind in 0..5 {
            let costs = matrix(n, n, kind, n as u64 * 7 + u64::from(kind));
            let (_, total, want) = both(n, n, &costs);
            assert!(close(total, want), "n {n} kind {kind}: {total} vs {want}");
        }
    }
}

#[test]
fn same_input_same_assignment_on_a_fresh_and_a_reused_solver() {
    let mut rng = cohort_steering::SimRng::seed_from(11);
    let members: Vec<Located> = (0..200)
        .map(|_| {
            Located::new(
                Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0)),
                Role::Any,
            )
        })
        .collect();
    let slots: Vec<Located> = (0..220)
        .map(|i| Located::new(Vec2::new((i % 20) as f32, (i / 20) as f32), Role::Any))
        .collect();
    let config = AssignmentConfig {
        greedy_above: usize::MAX,
        ..AssignmentConfig::default()
    };
    // A fresh solver, and one whose buffers hold the state of an earlier problem of another
    // size (a solver reused across formations): stale state must not leak into the answer.
    let mut fresh = Assignment::default();
    SlotAssignment::new(config)
        .unwrap()
        .solve(&members, &slots, &mut fresh);
    let mut reused = SlotAssignment::new(config).unwrap();
    let mut scratch = Assignment::default();
    reused.solve(&members[..90], &slots[..100], &mut scratch);
    reused.solve(&slots[..150], &members[..120], &mut scratch);
    let mut warm = Assignment::default();
    reused.solve(&members, &slots, &mut warm);
    let (first, second) = (fresh, warm);
    assert_eq!(first.slot_of, second.slot_of);
    assert_eq!(first.total_cost.to_bits(), second.total_cost.to_bits());
    assert!(first.is_complete(220));
}

proptest! {
    #[test]
    fn cost_matrix_matches_cost_bit_for_bit(
        points in prop::collection::vec(
            (prop_oneof![Just(f32::NAN), Just(f32::INFINITY), -1.0e20f32..1.0e20, -50.0f32..50.0],
             -50.0f32..50.0, 0u8..3),
            2..24,
        ),
        split in 1usize..23,
        squared in any::<bool>(),
        penalty in prop_oneof![Just(0.0f32), Just(1.0e6), 0.0f32..100.0],
    ) {
        let roles = [Role::Any, Role::Leader, Role::Comms];
        let located: Vec<Located> = points
            .iter()
            .map(|&(x, y, r)| Located::new(Vec2::new(x, y), roles[r as usize]))
            .collect();
        let split = split.min(located.len() - 1);
        let (members, slots) = located.split_at(split);
        let config = AssignmentConfig {
            metric: if squared { CostMetric::SquaredDistance } else { CostMetric::Distance },
            role_penalty: penalty,
            ..AssignmentConfig::default()
        };
        for members_are_rows in [true, false] {
            let (rows, cols) = if members_are_rows { (members, slots) } else { (slots, members) };
            let mut out = vec![0.0; rows.len() * cols.len()];
            super::cost_matrix::CostMatrix::default().fill(
                &config,
                rows.iter(),
                cols.iter(),
                members_are_rows,
                &mut out,
                cols.len(),
            );
            for (r, row) in rows.iter().enumerate() {
                for (c, col) in cols.iter().enumerate() {
                    let (m, s) = if members_are_rows { (row, col) } else { (col, row) };
                    let want = config.cost(m, s);
                    prop_assert_eq!(out[r * cols.len() + c].to_bits(), want.to_bits());
                }
            }
        }
    }
}
