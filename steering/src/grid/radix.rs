//! The stable counting-sort pass of [`super::CellGrid`]'s radix sort of items by cell.

/// Bits of a cell index sorted per radix pass.
pub(super) const RADIX_BITS: u32 = 11;
/// Buckets of one radix pass.
pub(super) const RADIX: usize = 1 << RADIX_BITS;

/// One stable counting-sort pass: the items of `order`, bucketed by bits
/// `shift..shift + RADIX_BITS` of their cell, written to `out` (as long as `order`).
pub(super) fn radix_pass(
    cells: &[u32],
    order: impl Iterator<Item = u32> + Clone,
    shift: u32,
    buckets: &mut [u32],
    out: &mut [u32],
) {
    let digit = |i: u32| {
        let c = cells.get(i as usize).copied().unwrap_or(0);
        ((c >> shift) as usize) & (RADIX - 1)
    };
    buckets.fill(0);
    for i in order.clone() {
        if let Some(b) = buckets.get_mut(digit(i)) {
            *b += 1;
        }
    }
    let mut running = 0u32;
    for b in buckets.iter_mut() {
        let count = *b;
        *b = running;
        running += count;
    }
    for i in order {
        if let Some(cursor) = buckets.get_mut(digit(i)) {
            if let Some(slot) = out.get_mut(*cursor as usize) {
                *slot = i;
            }
            *cursor += 1;
        }
    }
}
