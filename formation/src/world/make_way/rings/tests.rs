use super::{Walk, for_each_ring};

/// The rings `for_each_ring` reports for the graph `next` (node `i` leads to `next[i]`),
/// each as reported, with `cut` applied to the graph at each ring (as the world does).
fn rings_of(
    next: &[Option<usize>],
    cut: impl Fn(&mut Vec<Option<usize>>, &[u32]),
) -> Vec<Vec<u32>> {
    let mut graph = next.to_vec();
    let mut found = Vec::new();
    let mut walk = Walk::default();
    for_each_ring(
        &mut graph,
        next.len(),
        |g, i| g.get(i).copied().flatten(),
        |g, ring| {
            found.push(ring.to_vec());
            cut(g, ring);
        },
        &mut walk,
    );
    found
}

fn keep(_: &mut Vec<Option<usize>>, _: &[u32]) {}

#[test]
fn a_chain_without_a_ring_reports_none() {
    // 0 -> 1 -> 2 -> nobody, 3 -> 1, 4 alone.
    assert!(rings_of(&[Some(1), Some(2), None, Some(1), None], keep).is_empty());
}

#[test]
fn three_each_giving_way_to_the_next_are_one_ring() {
    // 0 -> 1 -> 2 -> 0: one ring, in walk order from where the walk entered it.
    assert_eq!(
        rings_of(&[Some(1), Some(2), Some(0)], keep),
        vec![vec![0, 1, 2]]
    );
}

#[test]
fn a_tail_into_a_ring_is_not_part_of_it() {
    // 0 -> 1 -> 2 -> 3 -> 1: the ring is 1, 2, 3; 0 only leads into it. 4 -> 2 too.
    let next = [Some(1), Some(2), Some(3), Some(1), Some(2)];
    assert_eq!(rings_of(&next, keep), vec![vec![1, 2, 3]]);
}

#[test]
fn separate_rings_are_each_reported_once() {
    // 0 <-> 1, 2 -> 3 -> 4 -> 2, 5 leads to itself, 6 -> 5.
    let next = [
        Some(1),
        Some(0),
        Some(3),
        Some(4),
        Some(2),
        Some(5),
        Some(5),
    ];
    assert_eq!(
        rings_of(&next, keep),
        vec![vec![0, 1], vec![2, 3, 4], vec![5]]
    );
}

#[test]
fn a_ring_cut_where_it_is_found_stays_cut() {
    // The ring's first node is cut loose; the walk goes on over the rest and finds no ring
    // twice.
    let next = [Some(1), Some(2), Some(0), Some(4), Some(3)];
    let cut = |g: &mut Vec<Option<usize>>, ring: &[u32]| {
        if let Some(&k) = ring.first() {
            g[k as usize] = None;
        }
    };
    assert_eq!(rings_of(&next, cut), vec![vec![0, 1, 2], vec![3, 4]]);
}

#[test]
fn a_successor_past_the_nodes_ends_the_walk() {
    // Node 1 leads outside 0..n (a formation outside the plans): no ring, no panic.
    assert!(rings_of(&[Some(1), Some(9)], keep).is_empty());
}

#[test]
fn every_ring_of_random_graphs_is_found() {
    // Against a simple model: a node is on a ring when following `next` from it comes back
    // to it within n steps.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut draw = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    for _ in 0..200 {
        let n = 1 + draw(12) as usize;
        let next: Vec<Option<usize>> = (0..n)
            .map(|_| {
                let k = draw(n as u64 + 3) as usize;
                (k < n).then_some(k)
            })
            .collect();
        let on_ring = |i: usize| {
            let mut k = i;
            for _ in 0..n {
                match next[k] {
                    Some(j) => k = j,
                    None => return false,
                }
                if k == i {
                    return true;
                }
            }
            false
        };
        let mut found: Vec<u32> = rings_of(&next, keep).concat();
        found.sort_unstable();
        let expected: Vec<u32> = (0..n).filter(|&i| on_ring(i)).map(|i| i as u32).collect();
        assert_eq!(found, expected, "{next:?}");
        for ring in rings_of(&next, keep) {
            for (k, &i) in ring.iter().enumerate() {
                let after = ring[(k + 1) % ring.len()];
                assert_eq!(next[i as usize], Some(after as usize), "{next:?} {ring:?}");
            }
        }
    }
}
