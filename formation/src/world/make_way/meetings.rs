//! Where the movers' tracks meet, each pair found once a tick for right of way
//! (`make_way/right_of_way.rs`).
//!
//! A mover gives way to another only where their tracks meet both ways round
//! ([`super::track::Track::first_meeting`] from each end), and both ends of a pair need both
//! meetings. So before the passing plans, every pair of movers whose track boxes come near
//! each other is looked at once, from its end first among the entries, and the pairs that
//! meet are kept, each under both of its movers. A mover's plan then reads its own pairs.
//!
//! The pairs are found in fixed chunks of the movers (in entry order), each into its own
//! buffer (on the pool's threads with the `parallel` feature), then gathered in chunk order:
//! the same pairs in the same order on any number of threads. The buffers are kept from tick
//! to tick, with room for more pairs than ever found, so a warm tick allocates nothing.

use cohort_steering::capacity::ReserveTotal;

use super::root_index::{RootEntry, RootIndex};

/// Movers per chunk of the search for meeting pairs.
const MOVERS_PER_CHUNK: usize = 128;
/// Pairs per mover the buffers have room for from the start (more once more were found), so
/// that the first meetings of a warm world allocate nothing.
const PAIRS_PER_MOVER: usize = 4;

/// Two movers whose tracks meet both ways round, as one chunk's search finds them.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    /// The two movers' entry indices, the lower first.
    entries: [u32; 2],
    /// Along each one's own track: the arc length of the first meeting and the distance
    /// [`super::track::Track::first_meeting`] found it within.
    along: [(f32, f32); 2],
}

/// One mover's pair, as its plan reads it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    /// The other mover's entry index.
    pub(super) other: u32,
    /// The arc length of the first meeting along this mover's own track.
    pub(super) own: f32,
    /// The arc length and distance of the first meeting along the other's track.
    pub(super) theirs: (f32, f32),
}

/// The buffers of the meeting pairs (see the module doc).
#[derive(Clone, Debug, Default)]
pub(super) struct Meetings {
    /// The chunks' bounds in the movers (`TrackGrid::movers`).
    bounds: Vec<u32>,
    /// Each chunk's pairs.
    chunks: Vec<Vec<Pair>>,
    /// The pairs of the root in place `r` among the roots are `seen[starts[r]..starts[r + 1]]`.
    starts: Vec<u32>,
    seen: Vec<Seen>,
    /// One (empty) item per mover, the data the chunks are split over.
    units: Vec<()>,
    /// The most pairs one chunk has found so far.
    most: usize,
}

impl RootIndex {
    /// Finds every pair of movers whose tracks meet both ways round (see the module doc),
    /// for [`Self::give_way`]. Needs [`Self::cache_movers`]; does nothing when the windows
    /// are not exact (then [`Self::give_way`] looks at every formation near a mover itself).
    pub(super) fn cache_meetings(&mut self) {
        let mut m = std::mem::take(&mut self.meetings);
        let roots = self.movers_of.len();
        m.starts.clear();
        m.starts.resize(roots + 1, 0);
        m.seen.clear();
        if self.exact {
            let movers = self.tracks.movers();
            let n = movers.len();
            m.bounds.clear();
            m.bounds
                .extend((0..n).step_by(MOVERS_PER_CHUNK).map(|i| i as u32));
            m.bounds.push(n as u32);
            let chunks = m.bounds.len() - 1;
            if m.chunks.len() < chunks {
                m.chunks.resize_with(chunks, Vec::new);
            }
            m.units.clear();
            m.units.resize(n, ());
            m.seen.reserve_total_exact(2 * PAIRS_PER_MOVER * n);
            // Room in every chunk for half as many pairs again as any chunk has found (and at
            // least a few per mover), so that a chunk finding more than ever before allocates
            // nothing.
            let room = (m.most + m.most / 2).max(PAIRS_PER_MOVER * MOVERS_PER_CHUNK.min(n));
            let (this, bounds) = (&*self, &m.bounds);
            crate::world::par::for_each_span(
                bounds,
                &mut m.units,
                &mut m.chunks,
                &|c, _, pairs: &mut Vec<Pair>| {
                    pairs.clear();
                    if pairs.capacity() < room {
                        pairs.reserve_total_exact(room + room / 2);
                    }
                    let (Some(&start), Some(&end)) = (bounds.get(c), bounds.get(c + 1)) else {
                        return;
                    };
                    for &i in movers.get(start as usize..end as usize).unwrap_or(&[]) {
                        this.pairs_from(i, pairs);
                    }
                },
            );
            m.gather(chunks, &self.entries);
        }
        self.meetings = m;
    }

    /// Pushes onto `pairs` every pair of entry `i` and a later entry whose tracks meet both
    /// ways round. Each pair that meets is found from both ends' searches
    /// ([`Self::for_each_track_near`]), so from the first end alone.
    fn pairs_from(&self, i: u32, pairs: &mut Vec<Pair>) {
        let Some(a) = self.entries.get(i as usize) else {
            return;
        };
        let Some(me) = self.mover(a) else {
            return;
        };
        self.for_each_track_near(a, me, i.saturating_add(1), |j| {
            let Some(b) = self.entries.get(j as usize) else {
                return;
            };
            let Some(other) = self.mover(b) else {
                return;
            };
            if let Some(along) = Self::pair_meeting(a, me, b, other) {
                pairs.push(Pair {
                    entries: [i, j],
                    along,
                });
            }
        });
    }

    /// The pairs of mover `a` found by [`Self::cache_meetings`].
    pub(super) fn meetings_of(&self, a: &RootEntry) -> &[Seen] {
        let m = &self.meetings;
        let r = a.root() as usize;
        match (m.starts.get(r), m.starts.get(r + 1)) {
            (Some(&s), Some(&e)) => m.seen.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

impl Meetings {
    /// Files the first `chunks` chunks' pairs under both of their movers' roots, in chunk
    /// order (`starts` cleared to the roots plus one).
    fn gather(&mut self, chunks: usize, entries: &[RootEntry]) {
        let root_of = |e: u32| entries.get(e as usize).map(|e| e.root() as usize);
        let chunks = self.chunks.get(..chunks).unwrap_or(&[]);
        self.most = chunks.iter().map(Vec::len).fold(self.most, usize::max);
        if chunks.iter().all(Vec::is_empty) {
            // No pairs: `starts` stays all zeros.
            return;
        }
        let roots = self.starts.len().saturating_sub(1);
        for p in chunks.iter().flatten() {
            for r in p.entries.map(root_of).into_iter().flatten() {
                if let Some(c) = self.starts.get_mut(r + 1) {
                    *c += 1;
                }
            }
        }
        for r in 0..roots {
            self.starts[r + 1] += self.starts[r];
        }
        let total = self.starts[roots] as usize;
        // Headroom, so that a tick with a few more pairs than ever before allocates nothing.
        if self.seen.capacity() < total {
            self.seen.reserve_total_exact(total + total / 4);
        }
        self.seen.resize(total, Seen::default());
        // `starts[r]` is root r's cursor while filling, and ends as root r + 1's start.
        for p in chunks.iter().flatten() {
            for k in 0..2 {
                let Some(c) = root_of(p.entries[k]).and_then(|r| self.starts.get_mut(r)) else {
                    continue;
                };
                if let Some(s) = self.seen.get_mut(*c as usize) {
                    *s = Seen {
                        other: p.entries[1 - k],
                        own: p.along[k].0,
                        theirs: p.along[1 - k],
                    };
                }
                *c += 1;
            }
        }
        for r in (1..=roots).rev() {
            self.starts[r] = self.starts[r - 1];
        }
        if let Some(s) = self.starts.first_mut() {
            *s = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::root_index::RootIndex;
    use crate::army::{ArmySpec, build_army};
    use crate::world::{MAX_STEP, WorldSettings};

    /// In an army of groups of 8 (small enough to be dense, large enough to take turns)
    /// crossing each other's tracks, whom each mover gives way to (and its speed) from the
    /// pairs found once equals the least cap of every other root in its square, each pair's
    /// meetings found from its own end.
    #[test]
    fn pairs_found_once_give_what_every_pair_gives() {
        let spec = ArmySpec {
            units: 1200,
            group_size: Some(8),
            ..ArmySpec::default()
        };
        let mut world = build_army(&spec, WorldSettings::default())
            .expect("army builds")
            .world;
        let (mut pairs, mut given) = (0, 0);
        for tick in 0..30 {
            world.step(MAX_STEP);
            if tick % 10 != 9 {
                continue;
            }
            let mut index = RootIndex::default();
            index.update(&world.scratch.roots, &world.formations);
            index.index_headings();
            index.index_all();
            index.cache_movers(&world.formations);
            assert!(index.exact);
            index.cache_meetings();
            pairs += index.meetings.seen.len() / 2;
            for a in &index.entries {
                let pruned = index.give_way(a);
                let Some(me) = index.mover(a) else {
                    assert_eq!(pruned, None);
                    continue;
                };
                let window = index.near_window(a.position, index.give_way_radius(a, me));
                let mut every_pair: Option<(f32, u32, _)> = None;
                for (i, b) in index.entries.iter().enumerate() {
                    if !index.in_window(&window, b) {
                        continue;
                    }
                    let rank = index.ranks[i];
                    let queues = || index.queues_at_passage(a);
                    if let Some((speed, _)) = index.cap_from(a, me, b, &queues) {
                        if every_pair.is_none_or(|(s, k, _)| speed < s || (speed == s && rank < k))
                        {
                            every_pair = Some((speed, rank, b.id));
                        }
                    }
                }
                let key = |g: Option<(f32, _)>| g.map(|(s, id)| (f32::to_bits(s), id));
                assert_eq!(
                    key(pruned.map(|g| (g.speed, g.to))),
                    key(every_pair.map(|(s, _, id)| (s, id)))
                );
                given += usize::from(pruned.is_some());
            }
        }
        // The army's tracks do meet, and some movers give way.
        assert!(pairs > 0 && given > 0, "{pairs} pairs, {given} giving way");
    }
}
