//! The lower rungs of the ladder: uniform random, first legal action, greedy.

use crate::agent::Agent;
use crate::view::PublicView;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use uno_env::action::{CALL_UNO, COLOUR, DRAW, NUM_ACTIONS};
use uno_env::card::Face;
use uno_env::{Game, Phase, State};

/// Uniform over the legal actions.
#[derive(Clone, Debug)]
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random agent seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

/// The `k`-th (0-based) set bit of a mask.
pub(crate) fn nth_bit(mut m: u128, k: u32) -> usize {
    for _ in 0..k {
        m &= m - 1;
    }
    m.trailing_zeros() as usize
}

/// A uniformly random action of `mask` (`DRAW` if it is empty).
fn uniform(rng: &mut ChaCha8Rng, mask: u128) -> usize {
    let n = mask.count_ones();
    if n == 0 {
        return DRAW;
    }
    nth_bit(mask, rng.random_range(0..n))
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn act(&mut self, game: &Game, state: &State, _seat: usize) -> usize {
        uniform(&mut self.rng, game.legal_mask(state))
    }
    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// Uniform over the playable cards; presses/draws only when nothing is
/// playable (the "random" of published UNO baselines such as RLCard's, where
/// drawing is legal only without a playable card). Every other decision is
/// uniform over the legal actions.
#[derive(Clone, Debug)]
pub struct RandomPlay {
    rng: ChaCha8Rng,
}

impl RandomPlay {
    /// A random-play agent seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlay {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Agent for RandomPlay {
    fn name(&self) -> String {
        "random-play".into()
    }
    fn act(&mut self, game: &Game, state: &State, _seat: usize) -> usize {
        let mut mask = game.legal_mask(state);
        let plays = mask & ((1u128 << DRAW) - 1);
        if state.phase() == Phase::Play && plays != 0 {
            mask = plays;
        }
        uniform(&mut self.rng, mask)
    }
    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// Always the lowest legal action id (plays the first playable face, else presses).
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstLegal;

impl Agent for FirstLegal {
    fn name(&self) -> String {
        "first-legal".into()
    }
    fn act(&mut self, game: &Game, state: &State, _seat: usize) -> usize {
        let mask = game.legal_mask(state);
        if mask == 0 {
            DRAW
        } else {
            mask.trailing_zeros() as usize
        }
    }
}

/// Dumps the highest-scoring playable card; presses/draws only when nothing is
/// playable; names the colour it holds most of; targets the opponent with the
/// fewest cards; always calls UNO, accepts Wild Draw Fours and stacks hits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Agent for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        let v = PublicView::new(game, state, seat);
        let mask = v.legal_mask();
        if mask == 0 {
            return DRAW;
        }
        let plays = mask & ((1u128 << DRAW) - 1);
        match v.phase() {
            Phase::Play | Phase::BonusPlay | Phase::AfterDraw | Phase::Stack if plays != 0 => (0
                ..DRAW)
                .filter(|&f| plays >> f & 1 == 1)
                .max_by_key(|&f| (game.score_of(Face(f as u8)), std::cmp::Reverse(f)))
                .unwrap_or(DRAW),
            Phase::ChooseColour => {
                let counts = v.own_counts();
                let mut per = [0u32; 4];
                for (f, &c) in counts.iter().enumerate() {
                    if let Some(col) = Face(f as u8).colour() {
                        per[col.index()] += c as u32;
                    }
                }
                let best = (0..4)
                    .max_by_key(|&c| (per[c], std::cmp::Reverse(c)))
                    .unwrap_or(0);
                COLOUR + best
            }
            Phase::ChooseTarget => {
                let n = v.players();
                (1..n)
                    .filter(|&o| mask >> (uno_env::action::TARGET + o - 1) & 1 == 1)
                    .min_by_key(|&o| (v.hand_len((seat + o) % n), o))
                    .map_or(mask.trailing_zeros() as usize, |o| {
                        uno_env::action::TARGET + o - 1
                    })
            }
            Phase::UnoCall => CALL_UNO,
            Phase::Challenge => uno_env::action::ACCEPT,
            _ => {
                // Nothing to play: press/draw, or pass after a draw / bonus.
                if mask >> DRAW & 1 == 1 {
                    DRAW
                } else {
                    (0..NUM_ACTIONS)
                        .find(|&a| mask >> a & 1 == 1)
                        .unwrap_or(DRAW)
                }
            }
        }
    }
}
