//! The game's chance generator: ChaCha8, kept compact inside the state.
//!
//! Every chance event (deal, launcher, Flash unit, SLAP race, catches) draws
//! from this generator and nothing else (C-9). It stores the ChaCha key, the
//! stream and a word position plus a 16-word buffer (112 bytes instead of the
//! 300-odd of `ChaCha8Rng`), so the whole game state stays small and
//! serializable. Output is exactly the ChaCha8 stream of `rand_chacha`
//! (checked by the tests below), but each refill computes the one 16-word
//! block it keeps (`chacha8_block`); `rand_chacha` computes four blocks at
//! once and the other three would be thrown away.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Compact, serializable ChaCha8 generator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChanceRng {
    key: [u8; 32],
    stream: u64,
    word_pos: u64,
    buf: [u32; 16],
    idx: u8,
}

impl ChanceRng {
    /// Generator for `seed` (expanded as `ChaCha8Rng::seed_from_u64`) on `stream`.
    pub fn new(seed: u64, stream: u64) -> Self {
        let key = ChaCha8Rng::seed_from_u64(seed).get_seed();
        ChanceRng {
            key,
            stream,
            word_pos: 0,
            buf: [0; 16],
            idx: 16,
        }
    }

    #[cold]
    fn refill(&mut self) {
        let mut key = [0u32; 8];
        for (w, b) in key.iter_mut().zip(self.key.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        chacha8_block(&key, self.word_pos / 16, self.stream, &mut self.buf);
        // Wraps, as ChaCha's 64-bit block counter does (a position read from
        // JSON may be anything).
        self.word_pos = self.word_pos.wrapping_add(16);
        self.idx = 0;
    }

    /// Next 32 random bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.idx >= 16 {
            self.refill();
        }
        let w = self.buf[self.idx as usize];
        self.idx += 1;
        w
    }

    /// Uniform integer in `0..n` (multiply-shift; bias below n / 2^32). `n` must be > 0.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next_u32() as u64 * n as u64) >> 32) as u32
    }

    /// 24 random bits, `x`: the uniform draw `x / 2^24` in [0, 1) that the
    /// chance events compare with thresholds ([`cut`]).
    #[inline]
    fn draw24(&mut self) -> u32 {
        self.next_u32() >> 8
    }

    /// Takes one uniformly random card out of a non-empty card set and
    /// returns it (a draw from a shuffled pile, or a deal), as its index and
    /// as a one-bit set.
    #[inline]
    pub(crate) fn take(&mut self, set: &mut u128) -> (u8, u128) {
        let (c, bit) = crate::game::select_one(*set, self.below(set.count_ones()));
        *set ^= bit;
        (c as u8, bit)
    }

    /// True with probability `p` (certain or impossible without a draw).
    #[inline]
    pub fn chance(&mut self, p: f32) -> bool {
        self.chance_by_cut(chance_cut(p))
    }

    /// [`ChanceRng::chance`] for a threshold made by [`chance_cut`] (the
    /// launcher makes its thresholds once per game).
    #[inline]
    pub(crate) fn chance_by_cut(&mut self, cut: u32) -> bool {
        cut == u32::MAX || (cut != 0 && self.draw24() < cut)
    }

    /// How many of `cuts` (thresholds made by [`cut`]) one uniform draw reaches.
    #[inline]
    pub(crate) fn reached<const N: usize>(&mut self, cuts: &[u32; N]) -> u32 {
        let x = self.draw24();
        cuts.iter().map(|&c| (x >= c) as u32).sum()
    }
}

/// The chance events compare a 24-bit draw `x` with integer thresholds
/// rather than the uniform float `x / 2^24` with probabilities: the same
/// outcomes (`x / 2^24` is exact, and for a whole `x`, `x >= c · 2^24`
/// exactly when `x >= ceil(c · 2^24)`), without the conversion and float
/// compare in the chain that decides, say, whether the launcher fires.
///
/// `cut(c)` is the threshold with `x >= cut(c)` exactly when `x / 2^24 >= c`
/// (a NaN is never reached, as in the float compare).
pub(crate) fn cut(c: f32) -> u32 {
    if c.is_nan() {
        1 << 24
    } else {
        (c as f64 * (1u32 << 24) as f64)
            .ceil()
            .clamp(0.0, (1u32 << 24) as f64) as u32
    }
}

/// The threshold of [`ChanceRng::chance_by_cut`] for probability `p`:
/// `u32::MAX` for certain (`p >= 1`, no word drawn), 0 for never (`p <= 0`
/// or NaN, no word drawn), else [`cut`]`(p)`, with `x < cut` exactly when
/// `x / 2^24 < p`.
pub(crate) fn chance_cut(p: f32) -> u32 {
    if p >= 1.0 {
        u32::MAX
    } else if p > 0.0 {
        cut(p)
    } else {
        0
    }
}

/// "expand 32-byte k": ChaCha's first row.
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// Block `block` of ChaCha8 (8 rounds) under `key` on stream `stream`, as
/// `rand_chacha` lays it out: the 64-bit block counter in words 12–13 and
/// the stream in words 14–15.
pub(crate) fn chacha8_block(key: &[u32; 8], block: u64, stream: u64, out: &mut [u32; 16]) {
    let input = [
        SIGMA[0],
        SIGMA[1],
        SIGMA[2],
        SIGMA[3],
        key[0],
        key[1],
        key[2],
        key[3],
        key[4],
        key[5],
        key[6],
        key[7],
        block as u32,
        (block >> 32) as u32,
        stream as u32,
        (stream >> 32) as u32,
    ];
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    {
        // SAFETY: SSSE3 is enabled for the whole build (x86-64-v2).
        unsafe { block_ssse3(&input, out) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
    block_scalar(&input, out)
}

/// The portable ChaCha8 block: four double rounds over the 16 words.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
fn block_scalar(input: &[u32; 16], out: &mut [u32; 16]) {
    #[inline(always)]
    fn qr(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
        x[a] = x[a].wrapping_add(x[b]);
        x[d] = (x[d] ^ x[a]).rotate_left(16);
        x[c] = x[c].wrapping_add(x[d]);
        x[b] = (x[b] ^ x[c]).rotate_left(12);
        x[a] = x[a].wrapping_add(x[b]);
        x[d] = (x[d] ^ x[a]).rotate_left(8);
        x[c] = x[c].wrapping_add(x[d]);
        x[b] = (x[b] ^ x[c]).rotate_left(7);
    }
    let mut x = *input;
    for _ in 0..4 {
        qr(&mut x, 0, 4, 8, 12);
        qr(&mut x, 1, 5, 9, 13);
        qr(&mut x, 2, 6, 10, 14);
        qr(&mut x, 3, 7, 11, 15);
        qr(&mut x, 0, 5, 10, 15);
        qr(&mut x, 1, 6, 11, 12);
        qr(&mut x, 2, 7, 8, 13);
        qr(&mut x, 3, 4, 9, 14);
    }
    for (o, (a, b)) in out.iter_mut().zip(x.iter().zip(input)) {
        *o = a.wrapping_add(*b);
    }
}

/// The ChaCha8 block with one SSE row per vector: a column round works on
/// the four columns at once, and lane rotations turn the diagonals into
/// columns for the diagonal round.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline]
unsafe fn block_ssse3(input: &[u32; 16], out: &mut [u32; 16]) {
    use core::arch::x86_64::*;
    // SAFETY (whole body): SSE2 and SSSE3 are enabled for the build; the
    // unaligned loads and stores stay inside `input` and `out` (16 words each).
    unsafe {
        let rot16 = _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
        let rot8 = _mm_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
        let p = input.as_ptr() as *const __m128i;
        let (i0, i1, i2, i3) = (
            _mm_loadu_si128(p),
            _mm_loadu_si128(p.add(1)),
            _mm_loadu_si128(p.add(2)),
            _mm_loadu_si128(p.add(3)),
        );
        let (mut a, mut b, mut c, mut d) = (i0, i1, i2, i3);
        macro_rules! half {
            () => {
                a = _mm_add_epi32(a, b);
                d = _mm_shuffle_epi8(_mm_xor_si128(d, a), rot16);
                c = _mm_add_epi32(c, d);
                b = _mm_xor_si128(b, c);
                b = _mm_or_si128(_mm_slli_epi32(b, 12), _mm_srli_epi32(b, 20));
                a = _mm_add_epi32(a, b);
                d = _mm_shuffle_epi8(_mm_xor_si128(d, a), rot8);
                c = _mm_add_epi32(c, d);
                b = _mm_xor_si128(b, c);
                b = _mm_or_si128(_mm_slli_epi32(b, 7), _mm_srli_epi32(b, 25));
            };
        }
        for _ in 0..4 {
            half!();
            b = _mm_shuffle_epi32(b, 0x39);
            c = _mm_shuffle_epi32(c, 0x4E);
            d = _mm_shuffle_epi32(d, 0x93);
            half!();
            b = _mm_shuffle_epi32(b, 0x93);
            c = _mm_shuffle_epi32(c, 0x4E);
            d = _mm_shuffle_epi32(d, 0x39);
        }
        let q = out.as_mut_ptr() as *mut __m128i;
        _mm_storeu_si128(q, _mm_add_epi32(a, i0));
        _mm_storeu_si128(q.add(1), _mm_add_epi32(b, i1));
        _mm_storeu_si128(q.add(2), _mm_add_epi32(c, i2));
        _mm_storeu_si128(q.add(3), _mm_add_epi32(d, i3));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn matches_rand_chacha_stream() {
        let mut a = ChanceRng::new(42, 7);
        let mut b = ChaCha8Rng::seed_from_u64(42);
        b.set_stream(7);
        for _ in 0..100 {
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    fn long_streams_match_rand_chacha() {
        // Many refills, several seeds and streams (high stream and counter
        // words included): the one-block refill is the same ChaCha8 stream.
        for (seed, stream) in [(0, 0), (7, 1), (u64::MAX, u64::MAX), (99, 1 << 40)] {
            let mut a = ChanceRng::new(seed, stream);
            let mut b = ChaCha8Rng::seed_from_u64(seed);
            b.set_stream(stream);
            for _ in 0..5_000 {
                assert_eq!(a.next_u32(), b.next_u32());
            }
        }
    }

    #[test]
    fn block_paths_agree_past_the_32_bit_counter() {
        let key = [1, 2, 3, 0xDEAD_BEEF, 5, 6, 7, 8];
        for block in [0, 1, u32::MAX as u64, 1 << 32, u64::MAX] {
            let (mut fast, mut slow) = ([0; 16], [0; 16]);
            chacha8_block(&key, block, 0x0123_4567_89AB_CDEF, &mut fast);
            let mut input = [0u32; 16];
            input[..4].copy_from_slice(&SIGMA);
            input[4..12].copy_from_slice(&key);
            input[12] = block as u32;
            input[13] = (block >> 32) as u32;
            input[14] = 0x89AB_CDEF;
            input[15] = 0x0123_4567;
            block_scalar(&input, &mut slow);
            assert_eq!(fast, slow, "block {block}");
        }
        // And the scalar path against rand_chacha at a far position.
        let mut r = ChaCha8Rng::from_seed([9; 32]);
        r.set_stream(3);
        r.set_word_pos(16 * 1_000_003);
        let mut expect = [0u32; 16];
        for w in expect.iter_mut() {
            *w = r.next_u32();
        }
        let mut got = [0u32; 16];
        chacha8_block(&[0x0909_0909; 8], 1_000_003, 3, &mut got);
        assert_eq!(got, expect);
    }

    #[test]
    fn below_is_in_range_and_covers() {
        let mut r = ChanceRng::new(1, 0);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
    }
}
