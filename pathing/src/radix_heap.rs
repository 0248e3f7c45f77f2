//! A monotone priority queue (radix heap) on `f32` keys, for A* with a consistent heuristic:
//! every key pushed is at least the last key popped, so items can be bucketed by the highest bit
//! in which they differ from it. Push is O(1), pop amortized O(log range); no comparisons of
//! whole entries as in a binary heap.

use cohort_steering::capacity::ReserveTotal;

/// The queue: bucket `0` holds items equal to the last popped key, bucket `i > 0` those whose
/// key first differs from it in bit `i - 1` (counting from the lowest).
#[derive(Clone, Debug)]
pub(crate) struct RadixHeap {
    last: u32,
    len: usize,
    buckets: [Vec<(u32, u32)>; 33],
}

impl Default for RadixHeap {
    fn default() -> Self {
        Self {
            last: 0,
            len: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
        }
    }
}

/// The buckets A*'s open list fills (see [`RadixHeap::reserve`]): keys first differing from
/// the last popped in bits 13 to 26 (the mantissa's highest, the exponent's lowest).
const BUSY_BUCKETS: std::ops::RangeInclusive<usize> = 14..=27;

#[inline]
fn bucket(key: u32, last: u32) -> usize {
    (32 - (key ^ last).leading_zeros()) as usize
}

impl RadixHeap {
    /// Room for three times `n` entries in each of [`BUSY_BUCKETS`] and a quarter of `n` in
    /// each of the others (so a search whose open list stays below that does not grow them).
    /// A* pushes path costs: the keys in the queue at one time lie within a small factor of
    /// the last one popped, so they first differ from it in the lowest bits of the exponent
    /// or the highest of the mantissa, and the other buckets hold few. The standard army's
    /// searches on its 1 km map fill the busy buckets to about 500 entries each and the ones
    /// below them to at most 130 (with every bucket given the same room, 256, a unit's detour
    /// grew one of them in the middle of a march of singles).
    pub fn reserve(&mut self, n: usize) {
        for (i, b) in self.buckets.iter_mut().enumerate() {
            b.reserve_total(if BUSY_BUCKETS.contains(&i) {
                n.saturating_mul(3)
            } else {
                n / 4
            });
        }
    }

    /// Empties the queue, keeping its memory.
    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        self.last = 0;
        self.len = 0;
    }

    /// Pushes `item` with priority `key` (finite, not negative). A key below the last popped
    /// one (float rounding in `g + h`) is raised to it, keeping the queue monotone.
    #[inline]
    pub fn push(&mut self, key: f32, item: u32) {
        let k = key.to_bits().max(self.last);
        if let Some(b) = self.buckets.get_mut(bucket(k, self.last)) {
            b.push((k, item));
            self.len += 1;
        }
    }

    /// Pops an item with the smallest key (the most recently pushed among equal keys).
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let i = self.buckets.iter().position(|b| !b.is_empty())?;
            let items = std::mem::take(&mut self.buckets[i]);
            self.last = items.iter().map(|(k, _)| *k).min()?;
            for &(k, item) in &items {
                self.buckets[bucket(k, self.last)].push((k, item));
            }
            // Give the emptied bucket its memory back.
            let mut items = items;
            items.clear();
            self.buckets[i] = items;
        }
        self.len -= 1;
        self.buckets[0].pop().map(|(_, item)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_steering::SimRng;

    #[test]
    fn pops_in_key_order() {
        let mut h = RadixHeap::default();
        let mut rng = SimRng::seed_from(3);
        let mut keys: Vec<f32> = (0..500).map(|_| rng.range(0.0, 100.0)).collect();
        for (i, k) in keys.iter().enumerate() {
            h.push(*k, i as u32);
        }
        let mut popped = Vec::new();
        while let Some(i) = h.pop() {
            popped.push(keys[i as usize]);
            // Monotone pushes in between keep the order.
            if popped.len() % 50 == 0 {
                let k = popped.last().unwrap() + 1.0;
                keys.push(k);
                h.push(k, keys.len() as u32 - 1);
            }
        }
        assert_eq!(popped.len(), keys.len());
        assert!(popped.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn equal_keys_pop_last_in_first_out_and_low_keys_are_raised() {
        let mut h = RadixHeap::default();
        h.push(2.0, 1);
        h.push(2.0, 2);
        h.push(5.0, 3);
        assert_eq!(h.pop(), Some(2));
        h.push(1.0, 4); // below the last popped: raised to 2
        assert_eq!(h.pop(), Some(4));
        assert_eq!(h.pop(), Some(1));
        assert_eq!(h.pop(), Some(3));
        assert_eq!(h.pop(), None);
    }
}
