//! The hash of a world's state ([`super::World::state_hash`]): a fixed-key, platform-independent
//! 64-bit hash of a stream of 64-bit words.
//!
//! The state is fed as integers, never as bytes in memory: a float is its bits, two 32-bit
//! values share a word (`low | high << 32`), so the stream is the same on every platform and
//! endianness. The construction is the one of [`super::StableHasher`] (wyhash's folded
//! 64 × 64 → 128-bit multiply, `lane = fold(a ^ key, b ^ lane)`) over blocks of 16 words
//! feeding eight independent lanes, so a block's eight multiplies run in parallel. The last
//! partial block is zero-padded and the number of words written folded in, so padding is
//! unambiguous.
//!
//! Bulk data (one record per unit) is written a whole block at a time
//! ([`WordHasher::write_blocks`]) after [`WordHasher::align`] pads the stream to a block
//! boundary; where that padding falls follows from what was written before, so it is as
//! unambiguous as the rest of the stream.

use cohort_steering::Vec2;

use super::walk::{Sink, WalkError};

/// Words per block.
pub(crate) const BLOCK_WORDS: usize = 16;

/// One block of words.
pub(crate) type Block = [u64; BLOCK_WORDS];

/// Keys xored into the first word of each lane's pair.
const LANE_KEYS: [u64; 8] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
    0x082e_fa98_ec4e_6c89,
    0x4528_21e6_38d0_1377,
    0xbe54_66cf_34e9_0c6c,
    0xc0ac_29b7_c97c_50dd,
    0x3f84_d5b5_b547_0917,
];

/// The lanes' starting values.
const SEEDS: [u64; 8] = [
    0x9216_d5d9_8979_fb1b,
    0xd131_0ba6_98df_b5ac,
    0x2ffd_72db_d01a_dfb7,
    0xb8e1_afed_6a26_7e96,
    0xba7c_9045_f12c_7f99,
    0x24a1_9947_b391_6cf7,
    0x0801_f2e2_858e_fc16,
    0x6369_20d8_7157_4e69,
];

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Two 32-bit values in one word.
#[inline(always)]
pub(crate) fn pair(low: u32, high: u32) -> u64 {
    u64::from(low) | (u64::from(high) << 32)
}

/// Up to eight bytes in one word, little-endian (zero-padded).
#[inline(always)]
fn bytes_word(c: &[u8]) -> u64 {
    c.iter().rev().fold(0, |w, &b| (w << 8) | u64::from(b))
}

/// A vector's bits in one word.
#[inline(always)]
pub(crate) fn vec_word(v: Vec2) -> u64 {
    pair(v.x.to_bits(), v.y.to_bits())
}

/// The hasher: a block being filled and eight lanes. Writing makes no allocation.
#[derive(Clone, Debug)]
pub(crate) struct WordHasher {
    block: Block,
    /// Words in `block` (below [`BLOCK_WORDS`] between writes).
    filled: usize,
    lanes: [u64; 8],
    /// Words compressed so far.
    words: u64,
}

impl WordHasher {
    /// A hasher with the fixed keys.
    pub(crate) fn new() -> Self {
        Self {
            block: [0; BLOCK_WORDS],
            filled: 0,
            lanes: SEEDS,
            words: 0,
        }
    }

    #[inline(always)]
    fn compress(&mut self, b: &Block) {
        for (l, lane) in self.lanes.iter_mut().enumerate() {
            *lane = fold(b[2 * l] ^ LANE_KEYS[l], b[2 * l + 1] ^ *lane);
        }
        self.words += BLOCK_WORDS as u64;
    }

    #[inline(never)]
    fn flush(&mut self) {
        let b = self.block;
        self.compress(&b);
        self.filled = 0;
    }

    /// Writes one word.
    #[inline(always)]
    pub(crate) fn write_u64(&mut self, w: u64) {
        self.block[self.filled % BLOCK_WORDS] = w;
        self.filled += 1;
        if self.filled >= BLOCK_WORDS {
            self.flush();
        }
    }

    /// Writes a `u32` as one word.
    #[inline(always)]
    pub(crate) fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    /// Writes a float's bits as one word.
    #[inline(always)]
    pub(crate) fn write_f32(&mut self, v: f32) {
        self.write_u64(u64::from(v.to_bits()));
    }

    /// Writes a length (`usize`, as a `u64` on every platform).
    #[inline(always)]
    pub(crate) fn write_len(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    /// Writes the length of `v`, then its vectors, one word each.
    pub(crate) fn write_vec2s(&mut self, v: &[Vec2]) {
        self.write_len(v.len());
        for &p in v {
            self.write_u64(vec_word(p));
        }
    }

    /// Writes the length of `v`, then its floats, two to a word.
    pub(crate) fn write_f32s(&mut self, v: &[f32]) {
        self.write_len(v.len());
        let mut pairs = v.chunks_exact(2);
        for p in &mut pairs {
            if let [a, b] = p {
                self.write_u64(pair(a.to_bits(), b.to_bits()));
            }
        }
        for a in pairs.remainder() {
            self.write_f32(*a);
        }
    }

    /// Writes the length of `b`, then its bytes, eight to a word (little-endian, the last
    /// word zero-padded).
    pub(crate) fn write_bytes(&mut self, b: &[u8]) {
        self.write_len(b.len());
        for c in b.chunks(8) {
            self.write_u64(bytes_word(c));
        }
    }

    /// Pads the stream with zero words to a block boundary.
    #[inline(always)]
    pub(crate) fn align(&mut self) {
        if self.filled > 0 {
            self.block[self.filled..].fill(0);
            self.flush();
        }
    }

    /// Writes whole blocks, after padding the stream to a block boundary.
    #[inline(always)]
    pub(crate) fn write_blocks<const N: usize>(&mut self, blocks: &[Block; N]) {
        self.align();
        for b in blocks {
            self.compress(b);
        }
    }

    /// The hash of everything written so far (the hasher can go on being written to).
    pub(crate) fn finish(&self) -> u64 {
        let mut last = self.clone();
        let words = last.words + last.filled as u64;
        last.align();
        let l = last.lanes;
        let h = fold(l[0] ^ LANE_KEYS[0], l[1] ^ LANE_KEYS[1])
            ^ fold(l[2] ^ LANE_KEYS[2], l[3] ^ LANE_KEYS[3])
            ^ fold(l[4] ^ LANE_KEYS[4], l[5] ^ LANE_KEYS[5])
            ^ fold(l[6] ^ LANE_KEYS[6], l[7] ^ LANE_KEYS[7]);
        fold(h ^ words, SEEDS[0])
    }
}

impl Sink for WordHasher {
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
        self.write_f32(v);
        Ok(())
    }
    #[inline(always)]
    fn float64(&mut self, v: f64) -> Result<(), WalkError> {
        self.write_u64(v.to_bits());
        Ok(())
    }
    #[inline(always)]
    fn bytes(&mut self, b: &[u8]) {
        // The walk wrote the length just before; the words are packed as `write_bytes` packs
        // them.
        for c in b.chunks(8) {
            self.write_u64(bytes_word(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(f: impl FnOnce(&mut WordHasher)) -> u64 {
        let mut h = WordHasher::new();
        f(&mut h);
        h.finish()
    }

    #[test]
    fn known_values_are_pinned() {
        // These values are part of the format: a change here changes every state hash.
        assert_eq!(hash_of(|_| {}), 0x42db_bb53_b7eb_6a47);
        assert_eq!(hash_of(|h| h.write_u32(1)), 0x98d9_5088_5da9_816f);
        assert_eq!(
            hash_of(|h| (0..1000u64).for_each(|i| h.write_u64(i))),
            0x669b_9b7b_fedd_c144
        );
    }

    #[test]
    fn every_bit_position_and_the_length_count() {
        let base = hash_of(|h| (0..40u64).for_each(|i| h.write_u64(i)));
        let mut seen = vec![base];
        for word in 0..40u64 {
            for bit in [0, 7, 31, 32, 63] {
                seen.push(hash_of(|h| {
                    (0..40u64).for_each(|i| h.write_u64(if i == word { i ^ (1 << bit) } else { i }))
                }));
            }
        }
        // A trailing zero word is not the same as no word, nor is padding to a block.
        seen.push(hash_of(|h| {
            (0..40u64).for_each(|i| h.write_u64(i));
            h.write_u64(0);
        }));
        seen.push(hash_of(|h| {
            (0..40u64).for_each(|i| h.write_u64(i));
            h.align();
        }));
        seen.push(hash_of(|h| h.write_u64(0)));
        seen.push(hash_of(|_| {}));
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n);
    }

    #[test]
    fn whole_blocks_hash_as_their_words() {
        let blocks: [Block; 2] =
            std::array::from_fn(|b| std::array::from_fn(|i| (b * 100 + i) as u64));
        let by_words = hash_of(|h| {
            h.write_u64(7);
            h.align();
            blocks.iter().flatten().for_each(|&w| h.write_u64(w));
        });
        let by_blocks = hash_of(|h| {
            h.write_u64(7);
            h.write_blocks(&blocks);
        });
        assert_eq!(by_words, by_blocks);
    }

    #[test]
    fn finishing_does_not_disturb_the_stream() {
        let mut h = WordHasher::new();
        (0..100u64).for_each(|i| h.write_u64(i));
        let mid = h.finish();
        assert_eq!(mid, h.finish());
        h.write_bytes(b"more bytes than one word");
        assert_ne!(mid, h.finish());
    }
}
