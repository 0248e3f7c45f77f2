use glam::Vec2;
use proptest::prelude::*;

use super::*;
use crate::pattern::{Pattern, PatternKind, polyline_layout};

fn solver() -> SlotAssignment {
    SlotAssignment::new(AssignmentConfig::default()).unwrap()
}

fn at(points: &[(f32, f32)]) -> Vec<Located> {
    points
        .iter()
        .map(|&(x, y)| Located::new(Vec2::new(x, y), Role::Any))
        .collect()
}

/// Minimum total cost over every injective map of the smaller side into the larger.
fn brute_force(config: &AssignmentConfig, members: &[Located], slots: &[Located]) -> f64 {
    fn go(
        config: &AssignmentConfig,
        members: &[Located],
        slots: &[Located],
        i: usize,
        used: &mut Vec<bool>,
        acc: f64,
        best: &mut f64,
    ) {
        if i == members.len() {
            *best = best.min(acc);
            return;
        }
        let free = used.iter().filter(|u| !**u).count();
        // Member i may stay unassigned only if there are more members left than free slots.
        if members.len() - i > free {
            go(config, members, slots, i + 1, used, acc, best);
        }
        for j in 0..slots.len() {
            if !used[j] {
                used[j] = true;
                let c = acc + config.cost(&members[i], &slots[j]);
                go(config, members, slots, i + 1, used, c, best);
                used[j] = false;
            }
        }
    }
    let mut best = f64::INFINITY;
    go(
        config,
        members,
        slots,
        0,
        &mut vec![false; slots.len()],
        0.0,
        &mut best,
    );
    best
}

fn located_strategy(max: usize) -> impl Strategy<Value = Vec<Located>> {
    prop::collection::vec((-50.0f32..50.0, -50.0f32..50.0, 0u8..3), 0..=max).prop_map(|v| {
        v.into_iter()
            .map(|(x, y, r)| {
                let role = [Role::Any, Role::Leader, Role::Comms][r as usize];
                Located::new(Vec2::new(x, y), role)
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn optimal_against_brute_force(
        members in located_strategy(7),
        slots in located_strategy(7),
        squared in any::<bool>(),
        penalty in 0.0f32..5000.0,
    ) {
        let config = AssignmentConfig {
            metric: if squared { CostMetric::SquaredDistance } else { CostMetric::Distance },
            role_penalty: penalty,
            ..AssignmentConfig::default()
        };
        let mut s = SlotAssignment::new(config).unwrap();
        let mut a = Assignment::default();
        s.solve(&members, &slots, &mut a);
        prop_assert!(a.is_complete(slots.len()));
        prop_assert_eq!(a.slot_of.len(), members.len());
        let best = brute_force(&config, &members, &slots);
        prop_assert!((a.total_cost - best).abs() <= 1e-6 * best.max(1.0), "{} vs {}", a.total_cost, best);
    }

    #[test]
    fn distance_optimum_never_crosses(members in located_strategy(12)) {
        let n = members.len();
        let slots: Vec<Located> =
            (0..n).map(|i| Located::new(Vec2::new(i as f32 * 3.0, 60.0), Role::Any)).collect();
        let members: Vec<Located> =
            members.into_iter().map(|m| Located { role: Role::Any, ..m }).collect();
        let mut a = Assignment::default();
        solver().solve(&members, &slots, &mut a);
        for i in 0..n {
            for j in i + 1..n {
                let (si, sj) = (a.slot_of[i].unwrap(), a.slot_of[j].unwrap());
                let cross = cohort_steering::geometry::segment_intersection(
                    members[i].position, slots[si].position,
                    members[j].position, slots[sj].position,
                );
                // Touching at an end is allowed (coincident members); a proper crossing is not.
                if let Some((t, _)) = cross {
                    prop_assert!(!(1e-3..1.0 - 1e-3).contains(&t), "{i} and {j} cross");
                }
            }
        }
    }
}

#[test]
fn small_example_is_the_obvious_matching() {
    let members = at(&[(0.0, 0.0), (10.0, 0.0), (5.0, 5.0)]);
    let slots = at(&[(10.0, 1.0), (5.0, 6.0), (0.0, 1.0)]);
    let mut a = Assignment::default();
    assert_eq!(solver().solve(&members, &slots, &mut a), Outcome::Optimal);
    assert_eq!(a.slot_of, vec![Some(2), Some(0), Some(1)]);
    assert!((a.total_cost - 3.0).abs() < 1e-9);
}

#[test]
fn roles_are_respected_when_a_matching_member_exists() {
    // The leader is far from the leader slot and the radio operator far from the comms slot;
    // distance alone would give both slots to the nearest riflemen.
    let slots = vec![
        Located::new(Vec2::new(0.0, 0.0), Role::Leader),
        Located::new(Vec2::new(2.0, 0.0), Role::Comms),
        Located::new(Vec2::new(4.0, 0.0), Role::Any),
        Located::new(Vec2::new(6.0, 0.0), Role::Any),
    ];
    let members = vec![
        Located::new(Vec2::new(0.0, 1.0), Role::Any),
        Located::new(Vec2::new(2.0, 1.0), Role::Any),
        Located::new(Vec2::new(40.0, 1.0), Role::Comms),
        Located::new(Vec2::new(60.0, 1.0), Role::Leader),
    ];
    let mut a = Assignment::default();
    solver().solve(&members, &slots, &mut a);
    assert_eq!(a.slot_of[3], Some(0));
    assert_eq!(a.slot_of[2], Some(1));
    // Without a penalty the riflemen take the near slots.
    let config = AssignmentConfig {
        role_penalty: 0.0,
        ..AssignmentConfig::default()
    };
    SlotAssignment::new(config)
        .unwrap()
        .solve_fresh(&members, &slots, &mut a);
    assert_eq!(a.slot_of[0], Some(0));
}

#[test]
fn stable_when_nothing_moved_and_under_small_gains() {
    let squared = AssignmentConfig {
        metric: CostMetric::SquaredDistance,
        ..AssignmentConfig::default()
    };
    let mut s = SlotAssignment::new(squared).unwrap();
    let slots = at(&[(0.0, 0.0), (2.0, 0.0), (4.0, 0.0), (6.0, 0.0)]);
    let members = at(&[(0.1, 3.0), (2.1, 3.0), (4.1, 3.0), (6.1, 3.0)]);
    // Start from a deliberately slightly worse assignment: 0 and 1 swapped.
    let mut a = Assignment {
        slot_of: vec![Some(1), Some(0), Some(2), Some(3)],
        total_cost: 0.0,
    };
    let swapped = s.total_cost(&members, &slots, &a.slot_of);
    let optimal = 4.0 * (0.01 + 9.0);
    // Swapped costs (3.61 + 9) + (4.41 + 9) + 2 * 9.01 = 44.04, 22 % over the optimum.
    assert!((swapped - 44.04).abs() < 1e-3 && (optimal - 36.04f64).abs() < 1e-3);
    assert_eq!(s.solve(&members, &slots, &mut a), Outcome::Optimal);
    assert_eq!(a.slot_of, vec![Some(0), Some(1), Some(2), Some(3)]);
    // Nothing moved: kept.
    let before = a.clone();
    assert_eq!(s.solve(&members, &slots, &mut a), Outcome::Kept);
    assert_eq!(a, before);
    // With a 30 % hysteresis the swapped assignment (22 % worse) is kept.
    let config = AssignmentConfig {
        hysteresis: 0.3,
        ..squared
    };
    let mut lazy = SlotAssignment::new(config).unwrap();
    let mut b = Assignment {
        slot_of: vec![Some(1), Some(0), Some(2), Some(3)],
        total_cost: 0.0,
    };
    assert_eq!(lazy.solve(&members, &slots, &mut b), Outcome::Kept);
    assert_eq!(b.slot_of[0], Some(1));
}

#[test]
fn member_died_and_joined_keep_the_others_in_place() {
    let mut s = solver();
    let slots = at(&[(0.0, 0.0), (2.0, 0.0), (4.0, 0.0), (6.0, 0.0), (8.0, 0.0)]);
    let mut members = at(&[(0.0, 1.0), (2.0, 1.0), (4.0, 1.0), (6.0, 1.0), (8.0, 1.0)]);
    let mut a = Assignment::default();
    s.solve(&members, &slots, &mut a);
    assert_eq!(a.slot_of, (0..5).map(Some).collect::<Vec<_>>());
    // Member 1 dies: slot 1 is freed, nobody else moves (the gain of closing up is nil here).
    members.remove(1);
    let outcome = s.member_died(&mut a, 1, &members, &slots).unwrap();
    assert_eq!(outcome, Outcome::Kept);
    assert_eq!(a.slot_of, vec![Some(0), Some(2), Some(3), Some(4)]);
    assert_eq!(s.member_died(&mut a, 9, &members, &slots), None);
    // A new member joins near slot 1 and gets it; the others stay.
    members.push(Located::new(Vec2::new(2.5, 2.0), Role::Any));
    assert_eq!(s.member_joined(&mut a, &members, &slots), Outcome::Repaired);
    assert_eq!(a.slot_of, vec![Some(0), Some(2), Some(3), Some(4), Some(1)]);
}

#[test]
fn relaid_pattern_after_a_death_is_repaired_validly() {
    let pattern = Pattern::for_radius(PatternKind::Wedge, 0.5)
        .validate()
        .unwrap();
    let mut layout = Vec::new();
    pattern.layout(9, &mut layout);
    let to_located = |slots: &[crate::pattern::Slot]| {
        slots
            .iter()
            .map(|s| Located::new(s.offset, s.role))
            .collect::<Vec<_>>()
    };
    let slots = to_located(&layout);
    let mut members = slots.clone();
    for m in &mut members {
        m.role = Role::Any;
    }
    let mut s = solver();
    let mut a = Assignment::default();
    s.solve(&members, &slots, &mut a);
    members.remove(4);
    pattern.layout(8, &mut layout);
    let slots = to_located(&layout);
    s.member_died(&mut a, 4, &members, &slots).unwrap();
    assert!(a.is_complete(8));
    let fresh = {
        let mut f = Assignment::default();
        s.solve_fresh(&members, &slots, &mut f);
        f.total_cost
    };
    assert!(
        a.total_cost <= fresh * 1.1 + 1e-9,
        "{} vs {fresh}",
        a.total_cost
    );
}

#[test]
fn more_members_than_slots_leaves_the_farthest_unassigned() {
    let slots = at(&[(0.0, 0.0), (1.0, 0.0)]);
    let members = at(&[(50.0, 0.0), (0.0, 1.0), (1.0, 1.0), (-30.0, 0.0)]);
    let mut a = Assignment::default();
    solver().solve(&members, &slots, &mut a);
    assert_eq!(a.slot_of, vec![None, Some(0), Some(1), None]);
    assert!(a.is_complete(2));
    assert_eq!(a.member_in(1), Some(2));
}

#[test]
fn ties_resolve_deterministically_and_do_not_flip() {
    // Every assignment costs the same: the result depends only on the scan order.
    let members = at(&[(0.0, 0.0); 4]);
    let slots = at(&[(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]);
    let mut a = Assignment::default();
    let mut s = solver();
    s.solve(&members, &slots, &mut a);
    assert!(a.is_complete(4));
    let mut b = Assignment::default();
    solver().solve(&members, &slots, &mut b);
    assert_eq!(a, b);
    let first = a.clone();
    for _ in 0..3 {
        assert_eq!(s.solve(&members, &slots, &mut a), Outcome::Kept);
        assert_eq!(a, first);
    }
}

#[test]
fn bad_input_does_not_panic_and_config_is_checked() {
    let members = at(&[(f32::NAN, 0.0), (1.0, 1.0)]);
    let slots = at(&[(0.0, 0.0), (f32::INFINITY, 0.0)]);
    let mut a = Assignment {
        slot_of: vec![Some(7), Some(7), Some(0)],
        total_cost: 0.0,
    };
    solver().solve(&members, &slots, &mut a);
    assert!(a.is_complete(2));
    solver().solve(&[], &slots, &mut a);
    assert!(a.slot_of.is_empty());
    let bad = AssignmentConfig {
        role_penalty: -1.0,
        ..AssignmentConfig::default()
    };
    assert!(SlotAssignment::new(bad).is_err());
    let bad = AssignmentConfig {
        hysteresis: f32::NAN,
        ..AssignmentConfig::default()
    };
    assert!(SlotAssignment::new(bad).is_err());
}

fn scattered(n: usize, seed: u64) -> (Vec<Located>, Vec<Located>) {
    let mut rng = cohort_steering::SimRng::seed_from(seed);
    let pattern = Pattern::for_radius(PatternKind::DefensiveCircle, 0.5)
        .validate()
        .unwrap();
    let mut layout = Vec::new();
    pattern.layout(n, &mut layout);
    let slots = layout
        .iter()
        .map(|s| Located::new(s.offset, s.role))
        .collect();
    let members = (0..n)
        .map(|_| {
            Located::new(
                Vec2::new(rng.range(-40.0, 40.0), rng.range(-40.0, 40.0)),
                Role::Any,
            )
        })
        .collect();
    (members, slots)
}

#[test]
fn two_hundred_fifty_six_members_exactly() {
    let (members, slots) = scattered(256, 3);
    let mut s = solver();
    let mut a = Assignment::default();
    assert_eq!(s.solve(&members, &slots, &mut a), Outcome::Optimal);
    assert!(a.is_complete(256));
    let greedy_config = AssignmentConfig {
        greedy_above: 0,
        ..AssignmentConfig::default()
    };
    let mut g = Assignment::default();
    let mut greedy = SlotAssignment::new(greedy_config).unwrap();
    assert_eq!(greedy.solve(&members, &slots, &mut g), Outcome::Greedy);
    assert!(g.is_complete(256));
    // The optimum is no worse than greedy, and greedy with swaps is within 25 % of it.
    assert!(a.total_cost <= g.total_cost + 1e-6);
    assert!(
        g.total_cost <= a.total_cost * 1.25,
        "{} vs {}",
        g.total_cost,
        a.total_cost
    );
}

#[test]
fn warm_solves_reuse_their_buffers() {
    let (members, slots) = scattered(40, 5);
    let mut s = solver();
    let mut a = Assignment::default();
    s.solve_fresh(&members, &slots, &mut a);
    // `current` and `best` swap roles between solves, so compare them as a pair.
    let buffers = |s: &SlotAssignment, a: &Assignment| {
        let mut pair = [s.best.as_ptr(), s.current.as_ptr()];
        pair.sort();
        (
            s.jv.costs().as_ptr(),
            pair,
            a.slot_of.as_ptr(),
            s.col_of_row.as_ptr(),
        )
    };
    let before = buffers(&s, &a);
    s.solve_fresh(&members, &slots, &mut a);
    assert_eq!(s.solve(&members, &slots, &mut a), Outcome::Kept);
    s.solve_fresh(&members, &slots, &mut a);
    assert_eq!(before, buffers(&s, &a));
}

#[test]
fn members_matched_to_a_drawn_line() {
    // Three members standing left to right below a line drawn right to left: the leftmost
    // takes the leftmost point, whatever the drawing order.
    let mut slots = Vec::new();
    let frame = polyline_layout(
        &[Vec2::new(10.0, 5.0), Vec2::new(0.0, 5.0)],
        3,
        1.0,
        None,
        &mut slots,
    )
    .unwrap();
    let targets: Vec<Located> = slots
        .iter()
        .map(|s| Located::new(frame.to_world(s.offset), s.role))
        .collect();
    let members = at(&[(-1.0, 0.0), (5.0, 0.0), (11.0, 0.0)]);
    let mut a = Assignment::default();
    solver().solve(&members, &targets, &mut a);
    for (m, s) in members.iter().zip(&a.slot_of) {
        let t = targets[s.unwrap()].position;
        assert!((t.x - m.position.x).abs() <= 1.0 + 1e-4, "{m:?} -> {t}");
    }
}
