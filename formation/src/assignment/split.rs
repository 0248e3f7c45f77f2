//! Very large assignments (above [`super::AssignmentConfig::split_above`] members or slots):
//! recursive bisection into small problems solved exactly.
//!
//! The slots and members are cut in two along the longer side of their common bounding box:
//! the more numerous of the two at its median along that axis, the other at the same
//! fraction (with as many members as slots, each half keeps as many of each), so the members
//! on the left go to the slots on the left. The halves are cut again until each part has at most [`LEAF`] members
//! and slots; each part is then matched exactly. Cutting costs `O(n log n)` and the parts
//! `O(n · LEAF²)`, where the exact solver on the whole problem is `O(n³)` and the greedy one
//! `O(n²)`: a formation of 65,536 members is assigned in a fraction of a second.
//!
//! The result is deterministic: every cut orders by position with the index as the last key,
//! so a part holds the same members and slots whatever the order they came in, and each part
//! is handed to the exact solver in index order. It is not the optimum: a member near a cut
//! may get a slot across it only if it lands on that side, and slot roles are honoured only
//! within a part.

use core::cmp::Ordering;
use core::ops::Range;

use glam::Vec2;

use super::Located;

/// Largest part, in members and in slots, matched exactly.
pub(super) const LEAF: usize = 64;

/// One part: ranges of the reordered member and slot index lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Part {
    /// Range of the member list.
    pub members: Range<usize>,
    /// Range of the slot list.
    pub slots: Range<usize>,
}

/// Reorders `fm` (member indices) and `fs` (slot indices) so that each part's members and
/// slots are contiguous, each sorted by index, and lists the parts in `parts` (cleared first).
pub(super) fn partition(
    members: &[Located],
    slots: &[Located],
    fm: &mut [usize],
    fs: &mut [usize],
    parts: &mut Vec<Part>,
) {
    parts.clear();
    let mut stack = vec![Part {
        members: 0..fm.len(),
        slots: 0..fs.len(),
    }];
    while let Some(part) = stack.pop() {
        let (nm, ns) = (part.members.len(), part.slots.len());
        if nm == 0 || ns == 0 {
            continue;
        }
        let (Some(pm), Some(ps)) = (
            fm.get_mut(part.members.clone()),
            fs.get_mut(part.slots.clone()),
        ) else {
            continue;
        };
        if nm.max(ns) <= LEAF {
            pm.sort_unstable();
            ps.sort_unstable();
            parts.push(part);
            continue;
        }
        let axis = longer_axis(members, slots, pm, ps);
        // The larger side is cut at its median, the other at the same fraction (rounded).
        let (km, ks) = if ns >= nm {
            let ks = ns / 2;
            (share(nm, ks, ns), ks)
        } else {
            let km = nm / 2;
            (km, share(ns, km, nm))
        };
        cut(slots, ps, ks, axis);
        cut(members, pm, km, axis);
        let (m0, s0) = (part.members.start, part.slots.start);
        // Pushed right first so the left part is solved first (the order does not change the
        // result, only the order of `parts`).
        stack.push(Part {
            members: m0 + km..part.members.end,
            slots: s0 + ks..part.slots.end,
        });
        stack.push(Part {
            members: m0..m0 + km,
            slots: s0..s0 + ks,
        });
    }
}

/// `n · k / total`, rounded to the nearest (halves up).
fn share(n: usize, k: usize, total: usize) -> usize {
    let (n, k, total) = (n as u64, k as u64, total.max(1) as u64);
    ((n * k + total / 2) / total) as usize
}

/// Which axis the cut is across: 0 (x) when the finite positions of the part spread at least
/// as far in x as in y, else 1.
fn longer_axis(members: &[Located], slots: &[Located], pm: &[usize], ps: &[usize]) -> usize {
    let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    let points = pm
        .iter()
        .filter_map(|&i| members.get(i))
        .chain(ps.iter().filter_map(|&j| slots.get(j)))
        .map(|l| l.position)
        .filter(|p| p.is_finite());
    for p in points {
        (lo, hi) = (lo.min(p), hi.max(p));
    }
    let extent = hi - lo;
    if extent.y > extent.x { 1 } else { 0 }
}

/// Reorders `list` (indices into `items`) so that its first `k` entries are the `k` smallest
/// by position along `axis`, then across it, then by index (a total order: NaN sorts last).
fn cut(items: &[Located], list: &mut [usize], k: usize, axis: usize) {
    if k == 0 || k >= list.len() {
        return;
    }
    let key = |i: usize| {
        let p = items.get(i).map_or(Vec2::NAN, |l| l.position);
        if axis == 0 { (p.x, p.y) } else { (p.y, p.x) }
    };
    let order = |a: &usize, b: &usize| -> Ordering {
        let (ka, kb) = (key(*a), key(*b));
        ka.0.total_cmp(&kb.0)
            .then(ka.1.total_cmp(&kb.1))
            .then(a.cmp(b))
    };
    list.select_nth_unstable_by(k, order);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Role;

    fn grid(n: usize, origin: Vec2, step: f32) -> Vec<Located> {
        let side = (n as f32).sqrt().ceil() as usize;
        (0..n)
            .map(|i| {
                let p = origin + Vec2::new((i % side) as f32, (i / side) as f32) * step;
                Located::new(p, Role::Any)
            })
            .collect()
    }

    #[test]
    fn parts_are_small_balanced_and_cover_everything_once() {
        let members = grid(1000, Vec2::new(-50.0, 3.0), 1.7);
        let slots = grid(1000, Vec2::ZERO, 2.0);
        let mut fm: Vec<usize> = (0..1000).rev().collect();
        let mut fs: Vec<usize> = (0..1000).collect();
        let mut parts = Vec::new();
        partition(&members, &slots, &mut fm, &mut fs, &mut parts);
        assert!(parts.len() >= 1000 / LEAF);
        let (mut seen_m, mut seen_s) = (0, 0);
        for p in &parts {
            assert!(p.members.len() <= LEAF && p.slots.len() <= LEAF);
            assert_eq!(p.members.len(), p.slots.len());
            assert!(fm[p.members.clone()].is_sorted());
            (seen_m, seen_s) = (seen_m + p.members.len(), seen_s + p.slots.len());
        }
        assert_eq!((seen_m, seen_s), (1000, 1000));
        let mut all = fm.clone();
        all.sort_unstable();
        assert_eq!(all, (0..1000).collect::<Vec<_>>());
        // The same sets whatever order the indices came in.
        let (mut fm2, mut fs2): (Vec<usize>, Vec<usize>) =
            ((0..1000).collect(), (0..1000).rev().collect());
        let mut parts2 = Vec::new();
        partition(&members, &slots, &mut fm2, &mut fs2, &mut parts2);
        assert_eq!((fm, fs, parts), (fm2, fs2, parts2));
    }

    #[test]
    fn uneven_counts_and_non_finite_positions_are_split_without_panicking() {
        let mut members = grid(70, Vec2::ZERO, 1.0);
        members[3].position = Vec2::NAN;
        let slots = grid(5000, Vec2::new(10.0, 10.0), 0.5);
        let mut fm: Vec<usize> = (0..70).collect();
        let mut fs: Vec<usize> = (0..5000).collect();
        let mut parts = Vec::new();
        partition(&members, &slots, &mut fm, &mut fs, &mut parts);
        let members_placed: usize = parts.iter().map(|p| p.members.len()).sum();
        assert_eq!(members_placed, 70);
        assert!(parts.iter().all(|p| p.slots.len() <= LEAF));
        assert!(parts.iter().all(|p| p.members.len() <= p.slots.len()));
        // Many more members than slots: every slot is in a part with members.
        let mut fm: Vec<usize> = (0..5000).collect();
        let mut fs: Vec<usize> = (0..70).collect();
        partition(&slots, &members, &mut fm, &mut fs, &mut parts);
        let slots_placed: usize = parts.iter().map(|p| p.slots.len()).sum();
        assert_eq!(slots_placed, 70);
        assert!(parts.iter().all(|p| p.members.len() <= LEAF));
        assert!(parts.iter().all(|p| p.members.len() >= p.slots.len()));
        // A single slot among thousands of members.
        let mut fm: Vec<usize> = (0..5000).collect();
        let mut fs = vec![0];
        partition(&slots, &members, &mut fm, &mut fs, &mut parts);
        assert_eq!(parts.iter().map(|p| p.slots.len()).sum::<usize>(), 1);
    }

    /// Members scattered over a square beside a box of slots (a fresh form-up), seeded.
    fn form_up(n: usize, seed: u64) -> (Vec<Located>, Vec<Located>) {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let side = (n as f32).sqrt() * 3.0;
        let members = (0..n)
            .map(|_| Located::new(Vec2::new(next(), next()) * side, Role::Any))
            .collect();
        (members, grid(n, Vec2::new(side * 1.5, 0.0), 1.5))
    }

    #[test]
    fn split_totals_stay_near_the_optimum() {
        use crate::assignment::{Assignment, AssignmentConfig, Outcome, SlotAssignment};
        let (members, slots) = form_up(300, 7);
        let mut exact = SlotAssignment::new(AssignmentConfig {
            greedy_above: usize::MAX,
            split_above: usize::MAX,
            ..AssignmentConfig::default()
        })
        .unwrap();
        let mut cut = SlotAssignment::new(AssignmentConfig {
            split_above: 64,
            ..AssignmentConfig::default()
        })
        .unwrap();
        let (mut a, mut b) = (Assignment::default(), Assignment::default());
        assert_eq!(exact.solve(&members, &slots, &mut a), Outcome::Optimal);
        assert_eq!(cut.solve(&members, &slots, &mut b), Outcome::Split);
        assert!(b.is_complete(slots.len()));
        let ratio = b.total_cost / a.total_cost;
        assert!((1.0..1.15).contains(&ratio), "{ratio}");
    }

    #[test]
    fn a_formation_of_65536_is_assigned_completely_and_deterministically() {
        use crate::assignment::{Assignment, AssignmentConfig, Outcome, SlotAssignment};
        let n = crate::pattern::MAX_MEMBERS;
        let (members, slots) = form_up(n, 3);
        let mut solver = SlotAssignment::new(AssignmentConfig::default()).unwrap();
        let mut a = Assignment::default();
        assert_eq!(solver.solve(&members, &slots, &mut a), Outcome::Split);
        // Every slot taken once (a linear check: `is_complete` is quadratic).
        let mut taken = vec![false; n];
        for s in &a.slot_of {
            let s = s.expect("every member has a slot");
            assert!(!std::mem::replace(&mut taken[s], true), "slot {s} twice");
        }
        // Solved again from the other order of the same members: the same slots.
        let mut b = Assignment::default();
        let reversed: Vec<Located> = members.iter().rev().copied().collect();
        solver.solve(&reversed, &slots, &mut b);
        let back: Vec<Option<usize>> = b.slot_of.iter().rev().copied().collect();
        assert_eq!(a.slot_of, back);
        // Kept when solved again from its own result (within the hysteresis).
        let mut c = a.clone();
        assert_eq!(solver.solve(&members, &slots, &mut c), Outcome::Kept);
    }
}
