//! The game's chance generator: ChaCha8, kept compact inside the state.
//!
//! Every chance event (deal, launcher, Flash unit, SLAP race, catches) draws
//! from this generator and nothing else (C-9). It stores the ChaCha key, the
//! stream and a word position plus a 16-word buffer (112 bytes instead of the
//! 300-odd of `ChaCha8Rng`), so the whole game state stays small and
//! serializable. Output is exactly the ChaCha8 stream of `rand_chacha`.

use rand::{RngCore, SeedableRng};
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
        let mut r = ChaCha8Rng::from_seed(self.key);
        r.set_stream(self.stream);
        r.set_word_pos(self.word_pos as u128);
        for w in self.buf.iter_mut() {
            *w = r.next_u32();
        }
        self.word_pos += 16;
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

    /// Uniform float in [0, 1) with 24 bits of precision.
    #[inline]
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Takes one uniformly random card out of a non-empty card set and
    /// returns it (a draw from a shuffled pile, or a deal).
    #[inline]
    pub(crate) fn take(&mut self, set: &mut u128) -> u8 {
        let c = crate::game::select_bit(*set, self.below(set.count_ones())) as u8;
        *set &= !(1u128 << c);
        c
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f32) -> bool {
        p >= 1.0 || (p > 0.0 && self.unit() < p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn below_is_in_range_and_covers() {
        let mut r = ChanceRng::new(1, 0);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
    }
}
