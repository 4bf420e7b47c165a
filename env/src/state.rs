//! One position (OpenSpiel's *state*): plain data, small, `Clone` and serde.
//!
//! Hands, launcher/draw pile and discard pile are 128-bit sets of physical
//! cards (see [`crate::game`]). The state holds its own chance generator, so a
//! serialized state continues exactly as the original would (C-9). Methods here
//! only read; transitions live in the engine (`engine.rs`, through [`Game`]).

use crate::card::{Colour, Face, NUM_FACES};
use crate::game::{Game, MAX_PLAYERS, iter_bits};
use crate::rng::ChanceRng;
use serde::{Deserialize, Serialize};

/// "Nobody" / "no card" marker in byte fields.
pub const NONE: u8 = u8::MAX;

/// Bits of `pressed_on` holding the pressed/drew-on colours.
pub(crate) const PRESSED_BITS: u8 = 0x0F;
/// Shift of the named colour (1 + colour, 0 = none) in `pressed_on`.
pub(crate) const NAMED_SHIFT: u8 = 4;
/// Bits of `since_play` holding the count of cards taken (and its cap).
pub(crate) const TAKEN_MAX: u8 = 0x1F;
/// Shift of the last played colour (1 + colour, 0 = none) in `since_play`.
pub(crate) const LAST_COLOUR_SHIFT: u8 = 5;

/// The colour of a 3-bit code (1 + colour index; 0 = none).
fn colour_code(code: u8) -> Option<Colour> {
    (code as usize)
        .checked_sub(1)
        .and_then(|i| Colour::ALL.get(i).copied())
}

/// The seat `k` places to the left of `seat` at a table of `n` (`seat < n`,
/// `k <= n`): a compare instead of a division on the hot path.
#[inline]
pub(crate) fn seat_plus(seat: u8, k: u8, n: u8) -> u8 {
    let p = seat + k;
    // A select, not a branch: the wrap-around is data-dependent.
    std::hint::select_unpredictable(p >= n, p.wrapping_sub(n), p)
}

/// The decision a state is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum Phase {
    /// A normal turn: play a matching card or press/draw (C-3, A-1, F-2).
    Play = 0,
    /// Name the colour of the wild just played (or the start card's).
    ChooseColour,
    /// Choose another player (Trade Hands, Attack-Attack, targeted draws).
    ChooseTarget,
    /// A drawn card is playable: play it or keep it (F-2).
    AfterDraw,
    /// Hits are pending: stack a Hit card or press the total.
    Stack,
    /// A Wild Draw Four was played at you: challenge or accept (F-6).
    Challenge,
    /// You played your second-to-last card: call UNO or not (C-4, explicit).
    UnoCall,
    /// After a Skip or Reverse, play one more card or pass.
    BonusPlay,
    /// The round is over (someone went out, or it was cut short); the match goes on.
    RoundOver,
    /// The match is over.
    MatchOver,
}

impl Phase {
    /// All phases in index order.
    pub const ALL: [Phase; 10] = [
        Phase::Play,
        Phase::ChooseColour,
        Phase::ChooseTarget,
        Phase::AfterDraw,
        Phase::Stack,
        Phase::Challenge,
        Phase::UnoCall,
        Phase::BonusPlay,
        Phase::RoundOver,
        Phase::MatchOver,
    ];

    /// Stable kebab-case name.
    pub fn name(self) -> &'static str {
        [
            "play",
            "choose-colour",
            "choose-target",
            "after-draw",
            "stack",
            "challenge",
            "uno-call",
            "bonus-play",
            "round-over",
            "match-over",
        ][self as usize]
    }

    /// The phase of a [`Phase::name`] (`None` for any other text).
    pub fn parse(s: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.name() == s)
    }

    /// True when no decision is pending.
    pub fn is_over(self) -> bool {
        matches!(self, Phase::RoundOver | Phase::MatchOver)
    }
}

/// One position of a match: every card's place, whose decision it is, scores,
/// and the chance generator.
///
/// Per-seat accessors (`hand`, `pressed_on`, `uno_called`, …) read any seat
/// past the table, `MAX_PLAYERS` and beyond included, as an empty seat: no
/// cards, no flags, no colours (they never panic).
///
/// A state does not record its rules: use it with the [`crate::Game`] that
/// made it. Another table size is refused by the game's entry points, but a
/// state of another edition at the same size is not detected until
/// [`crate::Game::check_invariants`] (card counts) says so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
// Aligned to a cache line: a batch's states then take exactly 8 lines each
// rather than straddling 9, and two threads' parts of a batch never share a
// line (session 46: +1–3 % a step on one thread).
#[repr(align(64))]
pub struct State {
    pub(crate) hands: [u128; MAX_PLAYERS],
    pub(crate) pile: u128,
    pub(crate) discard: u128,
    pub(crate) rng: ChanceRng,
    pub(crate) scores: [u32; MAX_PLAYERS],
    pub(crate) round_points: [u16; MAX_PLAYERS],
    #[serde(with = "serde_big_array")]
    pub(crate) played: [u8; NUM_FACES],
    /// Per seat: bits 0-3, the colours it pressed/drew on since it last
    /// played; bits 4-6, 1 + the colour it last named this round (0 = none).
    pub(crate) pressed_on: [u8; MAX_PLAYERS],
    /// Per seat: bits 0-4, cards that entered its hand since it last played
    /// (the deal included; saturating at 31); bits 5-7, 1 + the colour of the
    /// last coloured card it played this round (0 = none).
    pub(crate) since_play: [u8; MAX_PLAYERS],
    pub(crate) uno_called: u16,
    pub(crate) active: u16,
    pub(crate) decisions: u32,
    pub(crate) round: u16,
    pub(crate) presses_since_refill: u16,
    pub(crate) script_pos: u16,
    pub(crate) players: u8,
    pub(crate) top: u8,
    pub(crate) colour: u8,
    pub(crate) current: u8,
    pub(crate) phase: Phase,
    pub(crate) reversed: bool,
    pub(crate) dealer: u8,
    pub(crate) misses: u8,
    pub(crate) last_fired: u8,
    pub(crate) stack: u8,
    pub(crate) stack_origin: u8,
    pub(crate) pending_face: u8,
    pub(crate) pending_card: u8,
    pub(crate) stage: u8,
    pub(crate) target: u8,
    pub(crate) from: u8,
    pub(crate) offender: u8,
    pub(crate) wd4_legal: bool,
    pub(crate) start: bool,
    pub(crate) bonus: bool,
    pub(crate) final_round: bool,
    pub(crate) truncated: bool,
    pub(crate) winner: u8,
    pub(crate) match_winner: u8,
}

impl State {
    /// Players at the table (eliminated ones included).
    pub fn num_players(&self) -> usize {
        self.players as usize
    }

    /// The decision phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The seat whose decision it is (`None` when the round is over).
    pub fn current_player(&self) -> Option<usize> {
        (!self.phase.is_over()).then_some(self.current as usize)
    }

    /// True when the round is over (won or cut short).
    pub fn is_round_over(&self) -> bool {
        self.phase.is_over()
    }

    /// True when the match is over.
    pub fn is_match_over(&self) -> bool {
        self.phase == Phase::MatchOver
    }

    /// The round's winner (`None` while playing, or when it was cut short).
    pub fn round_winner(&self) -> Option<usize> {
        (self.winner != NONE).then_some(self.winner as usize)
    }

    /// The match's winner, once it is over.
    pub fn match_winner(&self) -> Option<usize> {
        (self.match_winner != NONE).then_some(self.match_winner as usize)
    }

    /// True when the round was cut short by the decision cap (truncation).
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// Physical cards in `seat`'s hand.
    pub fn hand(&self, seat: usize) -> u128 {
        self.hands.get(seat).copied().unwrap_or(0)
    }

    /// Number of cards in `seat`'s hand.
    pub fn hand_len(&self, seat: usize) -> usize {
        self.hand(seat).count_ones() as usize
    }

    /// Faces in `seat`'s hand, one entry per card, in face order.
    pub fn hand_faces(&self, game: &Game, seat: usize) -> Vec<Face> {
        self.hand_faces_in(game, seat, &mut [Face(0); 128]).to_vec()
    }

    /// [`State::hand_faces`] written into `buf`, without allocating (the
    /// engine reports a shown hand this way, F-6).
    pub(crate) fn hand_faces_in<'b>(
        &self,
        game: &Game,
        seat: usize,
        buf: &'b mut [Face; 128],
    ) -> &'b [Face] {
        let mut k = 0;
        for c in iter_bits(self.hand(seat)) {
            buf[k] = game.face_of(c);
            k += 1;
        }
        buf[..k].sort_unstable();
        &buf[..k]
    }

    /// Cards in the launcher / draw pile.
    pub fn pile_len(&self) -> usize {
        self.pile.count_ones() as usize
    }

    /// Physical cards in the launcher / draw pile.
    pub fn pile(&self) -> u128 {
        self.pile
    }

    /// Physical cards in the discard pile (its top included).
    pub fn discard(&self) -> u128 {
        self.discard
    }

    /// The discard pile's top card (physical index).
    pub fn top_card(&self) -> usize {
        self.top as usize
    }

    /// The face on top of the discard pile.
    pub fn top_face(&self, game: &Game) -> Face {
        game.face_of(self.top as usize)
    }

    /// The active colour (`None` while a wild's colour is being named, and
    /// during the UNO call (C-4) that comes before it when the wild was the
    /// second-to-last card).
    pub fn active_colour(&self) -> Option<Colour> {
        Colour::from_index(self.colour as usize)
    }

    /// +1 when play goes left (seat + 1), -1 when it goes right.
    pub fn direction(&self) -> i32 {
        if self.reversed { -1 } else { 1 }
    }

    /// Match scores (C-7): points won, or penalty points in the penalty and challenge modes.
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.players as usize]
    }

    /// Points each seat gained in the last finished round.
    pub fn round_points(&self) -> Vec<u32> {
        self.round_points[..self.players as usize]
            .iter()
            .map(|&p| p as u32)
            .collect()
    }

    /// Cards of each face on the discard pile (public: played since the last refill).
    pub fn played_counts(&self) -> &[u8; NUM_FACES] {
        &self.played
    }

    /// True when `seat` has called UNO on their last card.
    pub fn uno_called(&self, seat: usize) -> bool {
        flag(self.uno_called, seat)
    }

    /// True when `seat` is still in the match (not eliminated, C-7 challenge).
    pub fn is_active(&self, seat: usize) -> bool {
        flag(self.active, seat)
    }

    /// Number of seats still in the match.
    pub fn num_active(&self) -> usize {
        self.active.count_ones() as usize
    }

    /// Presses since the launcher last fired (public, L-2).
    pub fn misses(&self) -> usize {
        self.misses as usize
    }

    /// Cards the last press fired.
    pub fn last_fired(&self) -> usize {
        self.last_fired as usize
    }

    /// Pending hits of a Mega Hit stack.
    pub fn pending_hits(&self) -> usize {
        self.stack as usize
    }

    /// Colours (bit per colour) on which `seat` pressed/drew by choice in its turn
    /// (not when hit or stacked upon) since they last played.
    pub fn pressed_on(&self, seat: usize) -> u8 {
        byte(&self.pressed_on, seat) & PRESSED_BITS
    }

    /// The colours of [`State::pressed_on`], in R, Y, G, B order.
    pub fn pressed_colours(&self, seat: usize) -> impl Iterator<Item = Colour> + use<> {
        let bits = self.pressed_on(seat);
        Colour::ALL
            .into_iter()
            .filter(move |c| bits >> c.index() & 1 == 1)
    }

    /// The colour `seat` last named (after a wild) this round.
    pub fn named_colour(&self, seat: usize) -> Option<Colour> {
        colour_code(byte(&self.pressed_on, seat) >> NAMED_SHIFT)
    }

    /// The colour of the last coloured card `seat` played this round.
    pub fn last_played_colour(&self, seat: usize) -> Option<Colour> {
        colour_code(byte(&self.since_play, seat) >> LAST_COLOUR_SHIFT)
    }

    /// Cards that entered `seat`'s hand since it last played this round (the
    /// deal included), counted up to 31.
    pub fn taken_since_play(&self, seat: usize) -> usize {
        (byte(&self.since_play, seat) & TAKEN_MAX) as usize
    }

    /// Decisions taken this round.
    pub fn decisions(&self) -> u32 {
        self.decisions
    }

    /// Rounds started in this match (1 for the first).
    pub fn round(&self) -> usize {
        self.round as usize
    }

    /// The dealer of this round.
    pub fn dealer(&self) -> usize {
        self.dealer as usize
    }

    /// The face whose play is being resolved (during colour/target/UNO decisions).
    pub fn pending_face(&self) -> Option<Face> {
        (self.pending_face != NONE).then_some(Face(self.pending_face))
    }

    /// The card drawn this turn that may be played (F-2), during [`Phase::AfterDraw`].
    pub fn drawn_card(&self) -> Option<usize> {
        (self.phase == Phase::AfterDraw).then_some(self.pending_card as usize)
    }

    /// The next seat still in the match after `seat`, going left (or right
    /// when `reversed`); `seat` itself when it is the only one.
    #[inline]
    pub(crate) fn seat_after(&self, seat: u8, reversed: bool) -> u8 {
        let n = self.players;
        // One seat to the left, or n - 1 (one to the right), as arithmetic:
        // the direction flips with every Reverse, and a branch on it mispredicts.
        let step = 1 + (n - 2) * reversed as u8;
        let p = seat_plus(seat, step, n);
        // The next seat is nearly always still in the match: no loop on the
        // hot path (inside a loop LLVM turns the wrap-around select into a
        // jump, which mispredicts about every other call). With at least two
        // seats, `p` is never `seat` itself.
        if self.active >> p & 1 == 1 {
            return p;
        }
        self.seat_after_gap(p, step, seat)
    }

    /// [`State::seat_after`] past `p`, a seat that has left the match (C-7).
    #[cold]
    #[inline(never)]
    fn seat_after_gap(&self, mut p: u8, step: u8, seat: u8) -> u8 {
        loop {
            p = seat_plus(p, step, self.players);
            if self.active >> p & 1 == 1 || p == seat {
                return p;
            }
        }
    }

    /// Resets everything that lives for one round only (UNO calls, launcher
    /// counters, pending effects, direction, round result, decision count).
    pub(crate) fn clear_round(&mut self, final_round: bool) {
        self.uno_called = 0;
        self.pressed_on = [0; MAX_PLAYERS];
        self.since_play = [0; MAX_PLAYERS];
        self.misses = 0;
        self.last_fired = 0;
        self.presses_since_refill = 0;
        self.stack = 0;
        self.stack_origin = NONE;
        self.reversed = false;
        self.round_points = [0; MAX_PLAYERS];
        self.winner = NONE;
        self.truncated = false;
        self.pending_face = NONE;
        self.pending_card = NONE;
        self.target = NONE;
        self.offender = NONE;
        self.start = false;
        self.bonus = false;
        self.decisions = 0;
        self.final_round = final_round;
    }

    /// The whole state as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A state from JSON written by [`State::to_json`]. Only the JSON's shape
    /// is checked here: check a state from elsewhere with
    /// [`Game::check_invariants`](crate::Game::check_invariants) (its game's)
    /// before stepping it.
    pub fn from_json(text: &str) -> Result<State, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// Serde for byte arrays longer than 32 (serde's own impls stop at 32).
mod serde_big_array {
    use crate::card::NUM_FACES;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(a: &[u8; NUM_FACES], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(a.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; NUM_FACES], D::Error> {
        let v = Vec::<u8>::deserialize(d)?;
        v.try_into()
            .map_err(|v: Vec<u8>| serde::de::Error::invalid_length(v.len(), &"79 face counts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::TARGET;
    use crate::rules::Rules;

    /// The vectorized core's memory target (≤ 512 bytes a game), and the
    /// alignment that keeps each state on 8 cache lines of its own.
    #[test]
    fn a_state_fits_512_bytes_in_whole_cache_lines() {
        assert!(
            std::mem::size_of::<State>() <= 512,
            "{}",
            std::mem::size_of::<State>()
        );
        assert_eq!(std::mem::align_of::<State>(), 64);
        assert_eq!(std::mem::size_of::<State>() % 64, 0);
    }

    /// The division-free seating helpers against the plain modular arithmetic,
    /// for every table size, seat and set of seats still in the match (C-1, C-7).
    #[test]
    fn seating_matches_modular_arithmetic() {
        for n in 2..=MAX_PLAYERS {
            let game = Game::new(Rules::preset("attack-1999").unwrap(), n).unwrap();
            let mut s = game.new_state(1);
            for active in 1u16..(1 << n) {
                s.active = active;
                for seat in 0..n {
                    for k in 0..=n {
                        assert_eq!(
                            seat_plus(seat as u8, k as u8, n as u8) as usize,
                            (seat + k) % n
                        );
                    }
                    for reversed in [false, true] {
                        let step = |p: usize| {
                            if reversed {
                                (p + n - 1) % n
                            } else {
                                (p + 1) % n
                            }
                        };
                        let mut want = step(seat);
                        while active >> want & 1 == 0 && want != seat {
                            want = step(want);
                        }
                        assert_eq!(s.seat_after(seat as u8, reversed) as usize, want);
                    }
                    // Trade Hands / Attack-Attack targets: every other active seat, by offset.
                    s.phase = Phase::ChooseTarget;
                    s.current = seat as u8;
                    let mut want = 0u128;
                    for off in 1..n {
                        if active >> ((seat + off) % n) & 1 == 1 {
                            want |= 1 << (TARGET + off - 1);
                        }
                    }
                    assert_eq!(
                        game.legal_mask(&s),
                        want,
                        "n {n} seat {seat} active {active:b}"
                    );
                }
            }
        }
    }
}

/// Bit `seat` of a per-seat flag set; `false` past its 16 bits (a plain
/// shift by 16 or more wrapped around in release builds).
fn flag(bits: u16, seat: usize) -> bool {
    u32::try_from(seat)
        .ok()
        .and_then(|k| bits.checked_shr(k))
        .is_some_and(|b| b & 1 == 1)
}

/// The byte of `seat` in a per-seat table; 0 (nothing) past it.
fn byte(v: &[u8; MAX_PLAYERS], seat: usize) -> u8 {
    v.get(seat).copied().unwrap_or(0)
}

crate::card::display_and_parse!(Phase, "a phase");
