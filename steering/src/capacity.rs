//! Growing scratch buffers ahead of a tick, so the tick itself does not allocate.

/// A buffer that can be given room for a total number of elements up front.
pub trait ReserveTotal {
    /// Makes room for `total` elements in all (not `total` more): afterwards the capacity is
    /// at least `max(total, len)`, and a buffer that already has that room is left as it is.
    fn reserve_total(&mut self, total: usize);

    /// [`Self::reserve_total`] without over-allocating (see [`Vec::reserve_exact`]).
    fn reserve_total_exact(&mut self, total: usize);
}

impl<T> ReserveTotal for Vec<T> {
    #[inline]
    fn reserve_total(&mut self, total: usize) {
        self.reserve(total.saturating_sub(self.len()));
    }

    #[inline]
    fn reserve_total_exact(&mut self, total: usize) {
        self.reserve_exact(total.saturating_sub(self.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::ReserveTotal;

    #[test]
    fn room_is_for_the_total_not_for_more() {
        let mut v: Vec<u32> = vec![1, 2, 3];
        v.reserve_total_exact(10);
        assert_eq!(v.capacity(), 10);
        // Already room: nothing changes.
        let before = v.as_ptr();
        v.reserve_total(8);
        v.reserve_total_exact(10);
        assert_eq!((v.capacity(), v.as_ptr()), (10, before));
        // Fewer than held: the buffer keeps what it holds.
        v.reserve_total(1);
        assert_eq!(v, [1, 2, 3]);
        let mut e: Vec<u8> = Vec::new();
        e.reserve_total(5);
        assert!(e.capacity() >= 5 && e.is_empty());
    }
}
