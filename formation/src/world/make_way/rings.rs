//! Rings of waiting: formations each held by the next, round to the first.
//!
//! A moving formation is held back by at most one other at a time: the one that sets the
//! tightest of its speed caps, whether it queues behind it (`make_way/following.rs`) or gives
//! way to it by right of way (`make_way/right_of_way.rs`). Each cap is decided pair by pair,
//! so the holds need not agree:
//!
//! - Right of way decides each pair at its own meeting: the one whose front would reach the
//!   meeting of their two tracks first goes first. Pairs meet at different places, so where
//!   three squads close on one gap from three sides, A may reach its meeting with B first, B
//!   its meeting with C, and C its meeting with A; each stops short for the one it gives way
//!   to and nobody goes (the gap stood empty for half a minute at a time).
//! - A formation may give way to one that queues behind it: it would reach their meeting
//!   second, but it stands in the other's lane, so the other cannot go first. Both stood for
//!   good.
//!
//! After every formation's plan is made, the rings of the holds are found and each is broken
//! at one formation, which then goes:
//!
//! - where a formation of the ring gives way, the one of those nearest its meeting: it
//!   decides its turn again without the one it gave way to, which gives way to it instead
//!   (taking the tighter of its own cap and the one it sets as the one going first). Of a
//!   formation giving way to one queued behind it, the one in front goes, and the one
//!   behind keeps queueing behind it;
//! - where all of the ring queue (merges, each waiting for the next), the one first among the
//!   roots: it queues again without the one it queued behind.
//!
//! The others of the ring still wait, each for the next, so the one that goes meets none of
//! them on its way. A ring that closes again through formations outside the old one is
//! broken the same way, for a few rounds; after the last, the formation chosen in each ring
//! left is held by nobody.

use super::right_of_way::GiveWay;
use super::root_index::RootIndex;

/// Rounds of finding and breaking rings; rings left after the last are broken by letting one
/// formation of each give way to nobody.
const ROUNDS: usize = 4;

/// Buffers of [`RootIndex::break_rings`] (kept between ticks: no allocation once warm).
#[derive(Clone, Debug, Default)]
pub(crate) struct RingScratch {
    /// Per entry: whom it gives way to (see [`RootIndex::break_rings`]).
    pub(super) gives: Vec<Option<GiveWay>>,
    /// Per entry: the speed it keeps queueing and the place among the roots of the formation
    /// it queues behind.
    pub(super) follows: Vec<Option<(f32, u32)>>,
    /// Per root (its place among the roots): its entry's index.
    entry_of_root: Vec<u32>,
    /// The walk's buffers.
    walk: Walk,
}

/// What holds a formation back this tick: its tightest cap.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hold {
    /// It gives way to a formation that goes first.
    Give(GiveWay),
    /// It queues behind the formation at this place among the roots.
    Follow(u32),
}

/// The hold of a formation that gives way as `give` and queues as `follow`: the tighter cap
/// (right of way's of equal ones).
fn hold(give: Option<GiveWay>, follow: Option<(f32, u32)>) -> Option<Hold> {
    match (give, follow) {
        (Some(g), Some((v, _))) if g.speed <= v => Some(Hold::Give(g)),
        (_, Some((_, root))) => Some(Hold::Follow(root)),
        (Some(g), None) => Some(Hold::Give(g)),
        (None, None) => None,
    }
}

/// Buffers of [`for_each_ring`].
#[derive(Clone, Debug, Default)]
pub(super) struct Walk {
    /// Per node: 0 not visited yet, 1 on the walk under way, 2 done.
    state: Vec<u8>,
    /// The nodes of the walk under way, in order.
    path: Vec<u32>,
}

/// Not visited yet.
const FRESH: u8 = 0;
/// On the walk under way.
const ON_PATH: u8 = 1;
/// Visited by an earlier walk.
const DONE: u8 = 2;

/// Calls `ring` with the nodes of every ring of the graph on nodes `0..n` in which node `i`
/// leads to `next(graph, i)` (at most one node; none past `n`), each ring in walk order (each
/// node leads to the one after it, the last to the first), once per ring. `ring` may change
/// `graph` for the nodes it is given: the walk has passed them. Linear in `n`.
pub(super) fn for_each_ring<G>(
    graph: &mut G,
    n: usize,
    next: impl Fn(&G, usize) -> Option<usize>,
    mut ring: impl FnMut(&mut G, &[u32]),
    walk: &mut Walk,
) {
    walk.state.clear();
    walk.state.resize(n, FRESH);
    for start in 0..n {
        if walk.state.get(start) != Some(&FRESH) {
            continue;
        }
        walk.path.clear();
        let mut i = start;
        // Each node leads to one at most: the walk ends at a node that leads nowhere, at one
        // an earlier walk visited, or where it closes a ring.
        while let Some(&state) = walk.state.get(i) {
            if state == ON_PATH {
                if let Some(at) = walk.path.iter().position(|&k| k as usize == i) {
                    ring(graph, walk.path.get(at..).unwrap_or_default());
                }
                break;
            }
            if state == DONE {
                break;
            }
            if let Some(st) = walk.state.get_mut(i) {
                *st = ON_PATH;
            }
            walk.path.push(i as u32);
            match next(graph, i) {
                Some(k) if k < n => i = k,
                _ => break,
            }
        }
        for &k in &walk.path {
            if let Some(st) = walk.state.get_mut(k as usize) {
                *st = DONE;
            }
        }
    }
}

/// Every formation's decisions, by entry, as [`RootIndex::break_rings`] changes them.
struct Holds<'a> {
    gives: &'a mut Vec<Option<GiveWay>>,
    follows: &'a mut Vec<Option<(f32, u32)>>,
    entry_of_root: &'a [u32],
}

impl Holds<'_> {
    fn hold(&self, i: usize) -> Option<Hold> {
        hold(
            self.gives.get(i).copied().flatten(),
            self.follows.get(i).copied().flatten(),
        )
    }

    /// The entry that holds entry `i` back, if any.
    fn next(&self, i: usize) -> Option<usize> {
        let root = match self.hold(i)? {
            Hold::Give(g) => g.to_root,
            Hold::Follow(root) => root,
        };
        self.entry_of_root.get(root as usize).map(|&k| k as usize)
    }
}

impl RootIndex {
    /// Breaks every ring of the holds in `s.gives` and `s.follows` (each entry's decisions,
    /// in entry order; see the module doc). Returns how many rings it broke.
    pub(super) fn break_rings(&self, s: &mut RingScratch) -> usize {
        let RingScratch {
            gives,
            follows,
            entry_of_root,
            walk,
        } = s;
        let n = self.entries.len().min(gives.len()).min(follows.len());
        entry_of_root.clear();
        entry_of_root.resize(self.entries.len(), u32::MAX);
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(slot) = entry_of_root.get_mut(e.root() as usize) {
                *slot = i as u32;
            }
        }
        let mut holds = Holds {
            gives,
            follows,
            entry_of_root,
        };
        let mut broken = 0;
        for round in 0..ROUNDS {
            let last = round + 1 == ROUNDS;
            let mut found = 0;
            for_each_ring(
                &mut holds,
                n,
                |h, i| h.next(i),
                |h, ring| {
                    self.release_one(ring, h, last);
                    found += 1;
                },
                walk,
            );
            broken += found;
            if found == 0 {
                break;
            }
        }
        broken
    }

    /// Breaks `ring` (entry indices, each held by the next and the last by the first) at one
    /// formation, which goes (see the module doc); `last`: it is held by nobody.
    fn release_one(&self, ring: &[u32], holds: &mut Holds<'_>, last: bool) {
        let root = |k: u32| self.entries.get(k as usize).map_or(u32::MAX, |e| e.root());
        let eta = |k: u32| match holds.hold(k as usize) {
            Some(Hold::Give(g)) => Some(g.eta),
            _ => None,
        };
        // The one giving way nearest its meeting, or, where all queue, the first root.
        let chosen = (0..ring.len())
            .filter_map(|x| Some((x, eta(*ring.get(x)?)?)))
            .min_by(|&(x, ex), &(y, ey)| ex.total_cmp(&ey).then(root(ring[x]).cmp(&root(ring[y]))))
            .map(|(x, _)| x)
            .or_else(|| (0..ring.len()).min_by_key(|&x| root(ring[x])));
        let Some(at) = chosen else {
            return;
        };
        let (Some(&first), Some(&next)) = (ring.get(at), ring.get((at + 1) % ring.len())) else {
            return;
        };
        let (Some(a), Some(b)) = (
            self.entries.get(first as usize),
            self.entries.get(next as usize),
        ) else {
            return;
        };
        let (i, j) = (first as usize, next as usize);
        let gives_way = matches!(holds.hold(i), Some(Hold::Give(_)));
        if last {
            if let Some(g) = holds.gives.get_mut(i) {
                *g = None;
            }
            if let Some(f) = holds.follows.get_mut(i) {
                *f = None;
            }
        } else if gives_way {
            if let Some(g) = holds.gives.get_mut(i) {
                *g = self.give_way_among(a, |x| x.id != b.id);
            }
        } else if let Some(f) = holds.follows.get_mut(i) {
            *f = self.following(a, |x| x.id != b.id);
        }
        if !gives_way {
            return;
        }
        // The next one gives way to the first instead.
        if let (Some(g), Some((speed, eta))) = (holds.gives.get_mut(j), self.cap_as_second(b, a)) {
            if g.is_none_or(|g| speed < g.speed) {
                *g = Some(GiveWay {
                    to: a.id,
                    speed,
                    to_root: a.root(),
                    eta,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
