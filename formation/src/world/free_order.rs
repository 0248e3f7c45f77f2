//! Slot reuse that survives a snapshot. A slot map hands out the most recently freed slot
//! first; when it is deserialized it rebuilds that free list in index order instead. A world
//! restored from a snapshot taken after removals would then give the next new unit a different
//! key than the original world does, and the two would diverge. The world therefore records
//! the order in which slots were freed ([`FreeOrder`], saved with the snapshot) and, on
//! restore, rebuilds the free list in that order with the same versions
//! ([`restore_free_order`]).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use slotmap::{Key, SlotMap};

use crate::error::WorldError;

/// Indices of the free slots of a slot map, most recently freed last (the slot map's free
/// list, head at the end).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeOrder(Vec<u32>);

impl FreeOrder {
    /// Records that `key`'s slot was freed.
    pub(crate) fn freed<K: Key>(&mut self, key: K) {
        self.0.push(index_of(key));
    }

    /// Records that `key` was handed out (a reused slot leaves the free list's head).
    pub(crate) fn inserted<K: Key>(&mut self, key: K) {
        if self.0.last() == Some(&index_of(key)) {
            self.0.pop();
        }
    }
}

fn index_of<K: Key>(key: K) -> u32 {
    // `as_ffi` packs the version in the high and the index in the low 32 bits.
    (key.data().as_ffi() & u64::from(u32::MAX)) as u32
}

/// A slot as slot maps serialize it.
#[derive(Serialize, Deserialize)]
struct SerdeSlot<T> {
    value: Option<T>,
    version: u32,
}

/// Rebuilds `map`'s free list (after deserializing) so that slots are reused in `order`, with
/// the versions the snapshot holds: every free slot is taken with a `filler` value (its version
/// first stepped back so that taking and freeing it again lands on the saved one), then freed
/// again, slots missing from `order` first (by index), then `order` oldest first.
pub(crate) fn restore_free_order<K, V>(
    map: &mut SlotMap<K, V>,
    order: &FreeOrder,
    mut filler: impl FnMut() -> V,
) -> Result<(), WorldError>
where
    K: Key,
    V: Serialize + DeserializeOwned,
{
    let bad = |why: String| WorldError::Invalid {
        what: "snapshot",
        why,
    };
    // Through postcard (compact and fast; 10,000 units take a few milliseconds where RON
    // text took hundreds).
    let bytes = postcard::to_stdvec(&*map).map_err(|e| bad(e.to_string()))?;
    let mut slots: Vec<SerdeSlot<V>> =
        postcard::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
    let mut vacant = Vec::new();
    for (i, s) in slots.iter_mut().enumerate().skip(1) {
        if s.value.is_none() {
            if s.version < 2 {
                return Err(bad(format!("free slot {i} has version {}", s.version)));
            }
            s.version -= 2;
            vacant.push(i as u32);
        }
    }
    // `vacant` is in index order; a sorted copy of `order` finds strays and duplicates.
    let mut listed = order.0.clone();
    listed.sort_unstable();
    let duplicate = listed.windows(2).any(|w| w[0] == w[1]);
    if duplicate || listed.iter().any(|i| vacant.binary_search(i).is_err()) {
        return Err(bad(
            "the free-slot order names a slot that is not free".into()
        ));
    }
    let bytes = postcard::to_stdvec(&slots).map_err(|e| bad(e.to_string()))?;
    let mut rebuilt: SlotMap<K, V> =
        postcard::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
    let mut taken: Vec<K> = (0..vacant.len())
        .map(|_| rebuilt.insert(filler()))
        .collect();
    taken.sort_unstable_by_key(|&k| index_of(k));
    let key_at = |i: u32| {
        taken
            .binary_search_by_key(&i, |&k| index_of(k))
            .ok()
            .and_then(|at| taken.get(at).copied())
    };
    let unlisted = vacant
        .iter()
        .copied()
        .filter(|i| listed.binary_search(i).is_err());
    for i in unlisted.chain(order.0.iter().copied()) {
        if let Some(k) = key_at(i) {
            rebuilt.remove(k);
        }
    }
    *map = rebuilt;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use slotmap::new_key_type;

    new_key_type! { struct K; }

    #[test]
    fn a_restored_map_reuses_slots_like_the_original() {
        let mut map: SlotMap<K, u32> = SlotMap::with_key();
        let mut order = FreeOrder::default();
        let keys: Vec<K> = (0..6).map(|v| map.insert(v)).collect();
        // Free 1 then 4 then 2: the original reuses 2, then 4, then 1.
        for &k in [keys[1], keys[4], keys[2]].iter() {
            map.remove(k);
            order.freed(k);
        }
        let text = ron::to_string(&map).unwrap();
        let mut restored: SlotMap<K, u32> = ron::from_str(&text).unwrap();
        restore_free_order(&mut restored, &order, || 0).unwrap();
        assert_eq!(ron::to_string(&restored).unwrap(), text);
        for v in 10..14 {
            let a = map.insert(v);
            order.inserted(a);
            let b = restored.insert(v);
            assert_eq!(a, b);
        }
        assert_eq!(
            ron::to_string(&map).unwrap(),
            ron::to_string(&restored).unwrap()
        );
    }

    #[test]
    fn a_bad_order_is_refused() {
        let mut map: SlotMap<K, u32> = SlotMap::with_key();
        let k = map.insert(1);
        map.insert(2);
        let text = ron::to_string(&map).unwrap();
        let mut restored: SlotMap<K, u32> = ron::from_str(&text).unwrap();
        let mut order = FreeOrder::default();
        order.freed(k); // slot 1 is not free
        assert!(restore_free_order(&mut restored, &order, || 0).is_err());
    }
}
