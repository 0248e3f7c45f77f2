//! The hash of a world's state ([`super::World::state_hash`]): a fixed-key, platform-independent
//! 64-bit hash of a stream of 64-bit words.
//!
//! The state is fed as integers, never as bytes in memory: a float is its bits, two 32-bit
//! values share a word (`low | high << 32`), so the stream is the same on every platform and
//! endianness, and nothing depends on the width of a pointer (a length is a `u64`). The
//! construction is the one of [`super::StableHasher`] (wyhash's folded 64 × 64 → 128-bit
//! multiply, `lane = fold(a ^ key, b ^ lane)`, the key keeping a zero word from zeroing the
//! product) over blocks of eight words feeding four independent lanes, so a block's four
//! multiplies run in parallel. Four lanes and one key leave room in the CPU's registers for
//! the words being gathered, which is where most of the time goes. The lanes start from
//! different seeds and are told apart again when they are combined at the end. The last
//! partial block is zero-padded and the number of words written folded in, so padding is
//! unambiguous. The known values pinned by the tests below are part of the format.
//!
//! Words are written a few at a time ([`WordHasher::write_words`], [`WordHasher::write_each`]):
//! each write copies its words into the block being filled, with one check for a full block
//! per write rather than per word. Bulk data (the records of units and formations) is fed to
//! the lanes a whole block at a time ([`WordHasher::with_lanes`]), while the words written
//! before wait in the block being filled until it is full: the lanes take the two kinds of
//! block interleaved, in an order that follows from what was written (the lengths a record
//! holds say how many words and blocks follow it), so the stream is as unambiguous as if
//! every word had been written one by one, and nothing is padded until the end.

use cohort_steering::Vec2;

use super::walk::{Sink, WalkError};

/// Words per block.
pub(crate) const BLOCK_WORDS: usize = 8;

/// Lanes, each fed two words of every block.
const LANES: usize = BLOCK_WORDS / 2;

/// One block of words.
pub(crate) type Block = [u64; BLOCK_WORDS];

/// The key xored into the first word of each pair a lane is fed.
const KEY: u64 = 0x4528_21e6_38d0_1377;

/// The keys that tell the lanes apart when they are combined.
const LANE_KEYS: [u64; LANES] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
    0x082e_fa98_ec4e_6c89,
];

/// The lanes' starting values.
const SEEDS: [u64; LANES] = [
    0x9216_d5d9_8979_fb1b,
    0xd131_0ba6_98df_b5ac,
    0x2ffd_72db_d01a_dfb7,
    0xb8e1_afed_6a26_7e96,
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

/// The lanes and the number of blocks they were fed: what whole blocks are written to
/// ([`WordHasher::with_lanes`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes {
    lanes: [u64; LANES],
    blocks: u64,
}

impl Lanes {
    /// Feeds one block to the lanes.
    #[inline(always)]
    pub(crate) fn absorb(&mut self, b: &Block) {
        for (l, lane) in self.lanes.iter_mut().enumerate() {
            *lane = fold(b[2 * l] ^ KEY, b[2 * l + 1] ^ *lane);
        }
        self.blocks += 1;
    }

    /// Feeds blocks to the lanes, in order.
    #[inline(always)]
    pub(crate) fn absorb_all<const N: usize>(&mut self, blocks: &[Block; N]) {
        for b in blocks {
            self.absorb(b);
        }
    }

    /// Feeds vectors to the lanes, one word each, a block at a time, the last block
    /// zero-padded (the caller hashes their number).
    #[inline(always)]
    pub(crate) fn absorb_vec2s(&mut self, v: &[Vec2]) {
        for c in v.chunks(BLOCK_WORDS) {
            let mut b = [0; BLOCK_WORDS];
            for (w, &p) in b.iter_mut().zip(c) {
                *w = vec_word(p);
            }
            self.absorb(&b);
        }
    }
}

/// The hasher: a block being filled and four lanes. Writing makes no allocation.
#[derive(Clone, Debug)]
pub(crate) struct WordHasher {
    /// The block being filled, then room for the overflow of one write of up to a block.
    buf: [u64; 2 * BLOCK_WORDS],
    /// Words in the block being filled (below [`BLOCK_WORDS`] between writes).
    filled: usize,
    lanes: Lanes,
}

impl WordHasher {
    /// A hasher with the fixed keys.
    pub(crate) fn new() -> Self {
        Self {
            buf: [0; 2 * BLOCK_WORDS],
            filled: 0,
            lanes: Lanes {
                lanes: SEEDS,
                blocks: 0,
            },
        }
    }

    /// Compresses the full block and moves the overflow to the front.
    #[inline(always)]
    fn spill(&mut self) {
        let (block, rest) = self.buf.split_at_mut(BLOCK_WORDS);
        if let (Some(block), Some(rest)) = (
            block.first_chunk_mut::<BLOCK_WORDS>(),
            rest.first_chunk::<BLOCK_WORDS>(),
        ) {
            self.lanes.absorb(block);
            *block = *rest;
        }
        self.filled -= BLOCK_WORDS;
    }

    /// Writes `N` words (at most a block), in order.
    #[inline(always)]
    pub(crate) fn write_words<const N: usize>(&mut self, w: [u64; N]) {
        const { assert!(N <= BLOCK_WORDS) };
        // `filled < BLOCK_WORDS` between writes: the words fit in `buf`.
        let at = self.filled % BLOCK_WORDS;
        if let Some(dst) = self.buf.get_mut(at..at + N) {
            dst.copy_from_slice(&w);
        }
        self.filled = at + N;
        if self.filled >= BLOCK_WORDS {
            self.spill();
        }
    }

    /// Writes the words `f` makes of each item, in order (not the number of items).
    #[inline(always)]
    pub(crate) fn write_each<T, const N: usize>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        f: impl Fn(T) -> [u64; N],
    ) {
        for item in items {
            self.write_words(f(item));
        }
    }

    /// Writes one word.
    #[inline(always)]
    pub(crate) fn write_u64(&mut self, w: u64) {
        self.write_words([w]);
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

    /// Writes floats, two to a word (the last alone when their number is odd; not their
    /// number).
    #[inline]
    pub(crate) fn write_f32_pairs(&mut self, v: &[f32]) {
        let pairs = v.chunks_exact(2);
        let odd = pairs.remainder();
        self.write_each(pairs, |p| match p {
            [a, b] => [pair(a.to_bits(), b.to_bits())],
            _ => [0],
        });
        for a in odd {
            self.write_f32(*a);
        }
    }

    /// Writes the length of `b`, then its bytes, eight to a word (little-endian, the last
    /// word zero-padded).
    #[inline]
    pub(crate) fn write_bytes(&mut self, b: &[u8]) {
        self.write_len(b.len());
        self.write_byte_words(b);
    }

    /// Writes bytes eight to a word (little-endian, the last word zero-padded).
    #[inline(always)]
    fn write_byte_words(&mut self, b: &[u8]) {
        let mut whole = b.chunks_exact(8);
        self.write_each(&mut whole, |c| {
            let mut w = [0; 8];
            w.copy_from_slice(c);
            [u64::from_le_bytes(w)]
        });
        let rest = whole.remainder();
        if !rest.is_empty() {
            self.write_u64(bytes_word(rest));
        }
    }

    /// Pads the stream with zero words to a block boundary.
    #[inline(always)]
    pub(crate) fn align(&mut self) {
        let at = self.filled % BLOCK_WORDS;
        if at > 0 {
            // A block's worth of zeros from `at` (a fixed size: stores, not a call); what
            // lands past the block is overflow room, rewritten before it is read.
            if let Some(rest) = self.buf.get_mut(at..at + BLOCK_WORDS) {
                rest.fill(0);
            }
            self.filled = BLOCK_WORDS;
            self.spill();
        }
    }

    /// Lets `f` feed whole blocks to a copy of the lanes (a local the compiler keeps in
    /// registers through a long loop), then takes the copy back. The block being filled keeps
    /// its words; it goes to the lanes when it is full.
    #[inline(always)]
    pub(crate) fn with_lanes(&mut self, f: impl FnOnce(&mut Lanes)) {
        let mut lanes = self.lanes;
        f(&mut lanes);
        self.lanes = lanes;
    }

    /// The hash of everything written so far (the hasher can go on being written to).
    pub(crate) fn finish(&self) -> u64 {
        let mut last = self.clone();
        let words = last.lanes.blocks * BLOCK_WORDS as u64 + last.filled as u64;
        last.align();
        let l = last.lanes.lanes;
        let h = fold(l[0] ^ LANE_KEYS[0], l[1] ^ LANE_KEYS[1])
            ^ fold(l[2] ^ LANE_KEYS[2], l[3] ^ LANE_KEYS[3]);
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
        self.write_byte_words(b);
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
        assert_eq!(hash_of(|_| {}), 0x5979_9e3a_253f_0a5c);
        assert_eq!(hash_of(|h| h.write_u32(1)), 0x366b_e43b_c6fe_944d);
        assert_eq!(
            hash_of(|h| (0..1000u64).for_each(|i| h.write_u64(i))),
            0x5feb_7d72_42c8_d225
        );
    }

    #[test]
    fn every_bit_position_and_the_length_count() {
        // Not a whole number of blocks, so that padding to a block adds words.
        const N: u64 = 3 * BLOCK_WORDS as u64 + 3;
        let base = hash_of(|h| (0..N).for_each(|i| h.write_u64(i)));
        let mut seen = vec![base];
        for word in 0..N {
            for bit in [0, 7, 31, 32, 63] {
                seen.push(hash_of(|h| {
                    (0..N).for_each(|i| h.write_u64(if i == word { i ^ (1 << bit) } else { i }))
                }));
            }
        }
        // A trailing zero word is not the same as no word, nor is padding to a block.
        seen.push(hash_of(|h| {
            (0..N).for_each(|i| h.write_u64(i));
            h.write_u64(0);
        }));
        seen.push(hash_of(|h| {
            (0..N).for_each(|i| h.write_u64(i));
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
    fn whole_blocks_go_in_ahead_of_the_waiting_words() {
        let blocks: [Block; 3] =
            std::array::from_fn(|b| std::array::from_fn(|i| (b * 100 + i) as u64));
        let by_blocks = hash_of(|h| {
            h.write_u64(7);
            h.with_lanes(|lanes| lanes.absorb_all(&blocks));
        });
        // The same as the blocks' words written one by one before the waiting word...
        let by_words = hash_of(|h| {
            blocks.iter().flatten().for_each(|&w| h.write_u64(w));
            h.write_u64(7);
        });
        assert_eq!(by_words, by_blocks);
        // ...and not the same as the words in the order they were written.
        let in_order = hash_of(|h| {
            h.write_u64(7);
            blocks.iter().flatten().for_each(|&w| h.write_u64(w));
        });
        assert_ne!(in_order, by_blocks);
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
