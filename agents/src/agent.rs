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
    ///
    /// # Panics
    /// If `seats`, `out` (or `seeds`, when given) are not as long as `states`.
    fn act_batch(
        &mut self,
        game: &Game,
        states: &[&State],
        seats: &[usize],
        seeds: Option<&[u64]>,
        out: &mut [usize],
    ) {
        check_batch(
            states.len(),
            seats.len(),
            seeds.map(<[u64]>::len),
            out.len(),
        );
        for ((s, &seat), o) in states.iter().zip(seats).zip(out.iter_mut()) {
            *o = self.act(game, s, seat);
        }
    }

    /// Told, right after [`Agent::act`], that `seat` played `action` instead
    /// of the agent's choice (a wrapper such as `search` overruled it), so an
    /// agent that remembers its own moves remembers the one made. The
    /// default does nothing.
    fn overruled(&mut self, _game: &Game, _state: &State, _seat: usize, _action: usize) {}

    /// Starts a new game: reseeds the agent's generator and forgets any memory.
    fn reset(&mut self, _seed: u64) {}
}

/// Panics unless a batch's slices are as long as its states (a caller's bug:
/// rows would be left unwritten).
pub fn check_batch(states: usize, seats: usize, seeds: Option<usize>, out: usize) {
    assert!(
        seats == states && out == states && seeds.is_none_or(|k| k == states),
        "act_batch: {states} states, {seats} seats, {out} outputs, {seeds:?} seeds: the lengths must agree"
    );
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
    fn overruled(&mut self, game: &Game, state: &State, seat: usize, action: usize) {
        (**self).overruled(game, state, seat, action)
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

#[cfg(test)]
mod tests {
    use super::check_batch;

    #[test]
    fn batches_whose_lengths_agree_pass() {
        check_batch(3, 3, None, 3);
        check_batch(3, 3, Some(3), 3);
    }

    #[test]
    #[should_panic(expected = "the lengths must agree")]
    fn a_batch_with_fewer_seats_than_states_is_refused() {
        // Rows past the seats used to be left unwritten, silently.
        check_batch(3, 1, None, 3);
    }
}
