//! A fixed-key, platform-independent 64-bit hash of a stream of words: the terrain hash
//! ([`super::World::terrain_hash`]; the state hash has a word-wise variant of its own,
//! `world/word_hash.rs`).
//!
//! Why not a crate: `std`'s `DefaultHasher` is documented as unstable across releases;
//! `rustc-hash` mixes `usize`-wide words (different on 32- and 64-bit targets) and `foldhash`
//! says its output may change between versions and platforms. A state hash is compared across
//! runs, builds and machines, so its algorithm has to be pinned here (its known values are
//! tested below). FNV-1a, the classic fixed hash, makes one dependent multiply per byte, a
//! chain of some 400 multiplies for one unit's state and its share of its formations'.
//!
//! The construction is the one of wyhash and rapidhash: the input is cut into 64-byte blocks;
//! each block feeds four independent lanes, 16 bytes each, through a folded 64 × 64 → 128-bit
//! multiply (`lane = fold(a ^ key, b ^ lane)`), so the four multiplies of a block run in
//! parallel. The last partial block is zero-padded and the total length folded in, so padding
//! is unambiguous. Words are taken little-endian on every platform.

use super::walk::{Sink, WalkError};

/// Fixed keys (the fractional digits of π, as in many hashes' "nothing up my sleeve" keys).
const KEYS: [u64; 8] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
    0x082e_fa98_ec4e_6c89,
    0x4528_21e6_38d0_1377,
    0xbe54_66cf_34e9_0c6c,
    0xc0ac_29b7_c97c_50dd,
    0x3f84_d5b5_b547_0917,
];

/// Bytes per block.
const BLOCK: usize = 64;

/// The hasher: a block being filled and four lanes. Writing makes no allocation.
#[derive(Clone, Debug)]
pub struct StableHasher {
    /// The block being filled; room for one more write of up to 16 bytes past the block.
    buf: [u8; BLOCK + 16],
    len: usize,
    lanes: [u64; 4],
    /// Bytes compressed so far.
    total: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        Self::new()
    }
}

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn word(buf: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&buf[8 * i..8 * i + 8]);
    u64::from_le_bytes(w)
}

impl StableHasher {
    /// A hasher with the fixed keys.
    pub fn new() -> Self {
        Self {
            buf: [0; BLOCK + 16],
            len: 0,
            lanes: [KEYS[4], KEYS[5], KEYS[6], KEYS[7]],
            total: 0,
        }
    }

    #[inline(always)]
    fn push<const N: usize>(&mut self, bytes: [u8; N]) {
        // `len < BLOCK` between writes and `N <= 16`, so this stays inside `buf`.
        if let Some(dst) = self.buf.get_mut(self.len..self.len + N) {
            dst.copy_from_slice(&bytes);
        }
        self.len += N;
        if self.len >= BLOCK {
            self.compress();
        }
    }

    /// Feeds the full block to the lanes and moves the overflow to the front.
    #[inline(never)]
    fn compress(&mut self) {
        let b = &self.buf;
        for (l, lane) in self.lanes.iter_mut().enumerate() {
            *lane = fold(word(b, 2 * l) ^ KEYS[l], word(b, 2 * l + 1) ^ *lane);
        }
        self.buf.copy_within(BLOCK..BLOCK + 16, 0);
        self.len -= BLOCK;
        self.total += BLOCK as u64;
    }

    /// Writes a `u32`, little-endian.
    #[inline(always)]
    pub fn write_u32(&mut self, v: u32) {
        self.push(v.to_le_bytes());
    }

    /// Writes a `u64`, little-endian.
    #[inline(always)]
    pub fn write_u64(&mut self, v: u64) {
        self.push(v.to_le_bytes());
    }

    /// Writes bytes as they are (the caller writes their length first when it matters).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(16);
        for c in &mut chunks {
            let mut a = [0u8; 16];
            a.copy_from_slice(c);
            self.push(a);
        }
        for &b in chunks.remainder() {
            self.push([b]);
        }
    }

    /// The hash of everything written so far (the hasher can go on being written to).
    pub fn finish(&self) -> u64 {
        let mut last = self.clone();
        let tail = last.len as u64;
        if let Some(rest) = last.buf.get_mut(last.len..) {
            rest.fill(0);
        }
        last.len = BLOCK;
        last.compress();
        let total = last.total - BLOCK as u64 + tail;
        let [a, b, c, d] = last.lanes;
        let h = fold(a ^ KEYS[0], b ^ KEYS[1]) ^ fold(c ^ KEYS[2], d ^ KEYS[3]);
        fold(h ^ total, KEYS[4])
    }
}

impl Sink for StableHasher {
    #[inline(always)]
    fn word32(&mut self, v: u32) {
        self.write_u32(v);
    }
    #[inline(always)]
    fn word64(&mut self, v: u64) {
        self.write_u64(v);
    }
    #[inline(always)]
    fn float32(&mut self, v: f32) -> Result<(), WalkError> {
        self.write_u32(v.to_bits());
        Ok(())
    }
    #[inline(always)]
    fn float64(&mut self, v: f64) -> Result<(), WalkError> {
        self.write_u64(v.to_bits());
        Ok(())
    }
    #[inline(always)]
    fn bytes(&mut self, b: &[u8]) {
        self.write_bytes(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(f: impl FnOnce(&mut StableHasher)) -> u64 {
        let mut h = StableHasher::new();
        f(&mut h);
        h.finish()
    }

    #[test]
    fn known_values_are_pinned() {
        // These values are part of the format: a change here changes every terrain hash.
        assert_eq!(hash_of(|_| {}), 0x635a_3a52_1ffe_d30f);
        assert_eq!(hash_of(|h| h.write_u32(1)), 0x8f6d_828e_bce2_c3e4);
        assert_eq!(
            hash_of(|h| (0..1000u64).for_each(|i| h.write_u64(i))),
            0x2e88_42bf_2873_544b
        );
    }

    #[test]
    fn every_bit_position_and_the_length_count() {
        let base = hash_of(|h| (0..40u32).for_each(|i| h.write_u32(i)));
        let mut seen = vec![base];
        for word in 0..40u32 {
            for bit in [0, 7, 31] {
                seen.push(hash_of(|h| {
                    (0..40u32).for_each(|i| h.write_u32(if i == word { i ^ (1 << bit) } else { i }))
                }));
            }
        }
        // A trailing zero word is not the same as no word.
        seen.push(hash_of(|h| {
            (0..40u32).for_each(|i| h.write_u32(i));
            h.write_u32(0);
        }));
        seen.push(hash_of(|h| h.write_u32(0)));
        seen.push(hash_of(|h| h.write_u64(0)));
        seen.push(hash_of(|_| {}));
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n);
    }

    #[test]
    fn finishing_does_not_disturb_the_stream() {
        let mut h = StableHasher::new();
        (0..100u64).for_each(|i| h.write_u64(i));
        let mid = h.finish();
        assert_eq!(mid, h.finish());
        h.write_bytes(b"more bytes than one chunk of sixteen");
        assert_ne!(mid, h.finish());
    }
}
