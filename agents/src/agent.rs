//! The [`Agent`] trait every player implements.

use uno_env::{Game, State};

/// A player: picks a legal action for its seat.
///
/// Contract: `act` is called only when `state.current_player() == Some(seat)`
/// and returns an id whose bit is set in `game.legal_mask(state)`. Agents are
/// deterministic given their seed ([`Agent::reset`] or the seed they were built
/// with). The hand-written agents read only what `seat` may see: their own
/// hand and public facts (see [`crate::PublicView`]), never other hands or the
/// order/contents of the launcher / draw pile.
pub trait Agent {
    /// A short display name (the spec it was built from).
    fn name(&self) -> String;

    /// The action `seat` takes in `state`.
    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize;

    /// Actions for many states at once (`out[i]` for `states[i]`, `seats[i]`).
    /// With `seeds`, row `i` draws any randomness from `seeds[i]`, so what it
    /// draws does not depend on the other rows of the batch; without, from the
    /// agent's own generator in row order. The default loops over
    /// [`Agent::act`] (its agents play one game each and ignore the seeds);
    /// batched agents override it.
    fn act_batch(
        &mut self,
        game: &Game,
        states: &[&State],
        seats: &[usize],
        _seeds: Option<&[u64]>,
        out: &mut [usize],
    ) {
        for ((s, &seat), o) in states.iter().zip(seats).zip(out.iter_mut()) {
            *o = self.act(game, s, seat);
        }
    }

    /// Starts a new game: reseeds the agent's generator and forgets any memory.
    fn reset(&mut self, _seed: u64) {}
}

impl<A: Agent + ?Sized> Agent for Box<A> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        (**self).act(game, state, seat)
    }
    fn act_batch(
        &mut self,
        game: &Game,
        states: &[&State],
        seats: &[usize],
        seeds: Option<&[u64]>,
        out: &mut [usize],
    ) {
        (**self).act_batch(game, states, seats, seeds, out)
    }
    fn reset(&mut self, seed: u64) {
        (**self).reset(seed)
    }
}

/// SplitMix64 finaliser: mixes a seed and a salt into a well-spread 64-bit value.
pub fn mix_seed(seed: u64, salt: u64) -> u64 {
    let mut z = seed
        ^ salt
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
