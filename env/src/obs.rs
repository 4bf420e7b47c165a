//! Observations: what one seat may see, as a fixed-size `f32` vector.
//!
//! The vector is written as named *pieces* (OpenSpiel's observer style), each
//! by a small function with a documented shape; [`PIECES`] lists them with
//! their offsets, so docs, Python and debugging can show the layout. Seats are
//! relative to the observer (slot 0 = the observer, slot k = k seats to the
//! left), padded to 10. Nothing hidden is encoded: other hands appear only as
//! sizes, the launcher only as a count. [`encode_oracle`] adds the hidden part
//! (every hand and the launcher's contents) for debugging and research.
//!
//! Version [`OBS_VERSION`]; any change to the layout bumps it, and checkpoints
//! record the version they were trained on.

use crate::action::NUM_ACTIONS;
use crate::card::{NUM_COLOURS, NUM_FACES, NUM_KINDS};
use crate::error::EncodeError;
use crate::game::{Game, MAX_PLAYERS, iter_bits};
use crate::rules::{AttackResume, Scoring, UnoCall};
use crate::state::{LAST_COLOUR_SHIFT, NAMED_SHIFT, State, TAKEN_MAX, seat_plus};

/// Layout version of the observation vector.
pub const OBS_VERSION: u32 = 3;

/// Earlier layouts a checkpoint may have been trained on, each with its
/// length. Every one is a prefix of the current layout (version 1 lacks the
/// trailing `history` and `edition` pieces, version 2 the `edition` piece), so
/// a network trained on it reads the current vector once its input layer gets
/// zero weights for the added values.
pub const LEGACY_OBS: [(u32, usize); 2] = [(1, HISTORY), (2, EDITION)];

/// Features per relative seat in the `seats` piece.
pub const SEAT_FEATURES: usize = 10;
/// Features per relative seat in the `history` piece.
pub const HISTORY_FEATURES: usize = 9;
/// Decision phases encoded in the `phase` piece (play … bonus-play).
pub const NUM_DECISION_PHASES: usize = 8;

/// One named piece of the observation vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Name, as shown in docs and Python.
    pub name: &'static str,
    /// First index in the vector.
    pub offset: usize,
    /// Shape (row-major).
    pub shape: [usize; 2],
    /// What the values mean.
    pub doc: &'static str,
}

impl Piece {
    /// Number of values.
    pub const fn size(&self) -> usize {
        self.shape[0] * self.shape[1]
    }
}

const fn piece(name: &'static str, offset: usize, shape: [usize; 2], doc: &'static str) -> Piece {
    Piece {
        name,
        offset,
        shape,
        doc,
    }
}

const HAND: usize = 0;
const TOP: usize = HAND + NUM_FACES;
const COLOUR: usize = TOP + NUM_FACES;
const PHASE: usize = COLOUR + NUM_COLOURS;
const PENDING: usize = PHASE + NUM_DECISION_PHASES;
const SEATS: usize = PENDING + 2;
const PLAYED: usize = SEATS + MAX_PLAYERS * SEAT_FEATURES;
const SUPPLY: usize = PLAYED + NUM_FACES;
const RULES: usize = SUPPLY + 7;
/// Values in the `rules` piece.
pub(crate) const NUM_RULE_FLAGS: usize = 12;

const HISTORY: usize = RULES + NUM_RULE_FLAGS;
const EDITION: usize = HISTORY + MAX_PLAYERS * HISTORY_FEATURES;
/// Values in the `edition` piece: each card kind's share of the deck, and the scoring mode.
pub(crate) const NUM_EDITION: usize = NUM_KINDS + 3;

/// Length of the observation vector.
pub const OBS_SIZE: usize = EDITION + NUM_EDITION;
/// Length of the oracle (full-state) vector: the observation, every other hand, the launcher.
pub const ORACLE_SIZE: usize = OBS_SIZE + (MAX_PLAYERS - 1) * NUM_FACES + NUM_FACES;

/// The pieces of the observation vector, in order.
pub const PIECES: [Piece; 11] = [
    piece(
        "hand",
        HAND,
        [1, NUM_FACES],
        "count of each face in the observer's hand",
    ),
    piece(
        "top_card",
        TOP,
        [1, NUM_FACES],
        "one-hot face on top of the discard pile",
    ),
    piece(
        "active_colour",
        COLOUR,
        [1, NUM_COLOURS],
        "one-hot active colour (R, Y, G, B); zeros while it is being named, and during the UNO-call \
         decision that comes before a wild's colour",
    ),
    piece(
        "phase",
        PHASE,
        [1, NUM_DECISION_PHASES],
        "one-hot decision phase: play, choose-colour, choose-target, after-draw, stack, challenge, uno-call, \
         bonus-play; zeros once the round is over",
    ),
    piece(
        "pending",
        PENDING,
        [1, 2],
        "pending Mega Hit stack / 10; direction of play (+1 left, -1 right)",
    ),
    piece(
        "seats",
        SEATS,
        [MAX_PLAYERS, SEAT_FEATURES],
        "per relative seat (0 = observer, k = k seats left): present, in the match, hand size / 10, \
         score / target, UNO called, pressed/drew by choice (in its turn: not when hit, stacked upon or drawing for a Wild Draw Four) on red, yellow, green, blue since last playing, next to play: \
         the seat after the one to act in the current direction, a function of the seating and not a forecast \
         (so not the seat that plays next during a bonus play, A-21, a Mega Hit stack, A-14, which resumes \
         after the first hitter, a start card's colour, A-7, whose namer plays first, after a Wild \
         Attack-Attack under attack_resume = skip-next, A-13, or after a caught bluff, F-6; and before the \
         effect of a card still being played applies, so during its colour, target or UNO-call decision a \
         Skip's or Reverse's change is not yet shown, nor is it in `pending`'s direction); always 0 under \
         Flash's random turn unit, F-1, where no seat is next until the unit picks one, and once the round \
         is over",
    ),
    piece(
        "played",
        PLAYED,
        [1, NUM_FACES],
        "count of each face on the discard pile (public: played since the last refill)",
    ),
    piece(
        "supply",
        SUPPLY,
        [1, 7],
        "cards in the launcher or draw pile / deck size; one-hot presses since the last firing (0, 1, 2, 3, 4+); \
         cards the last press fired / 12. With a draw pile (Flash, classic) the last two stay at bucket 0 and 0. \
         A custom launcher whose odds depend on more than this (a `hazard` list of more than 5 entries, or \
         the `pattern` model, which fires by presses since the refill) is not fully described here",
    ),
    piece(
        "rules",
        RULES,
        [1, NUM_RULE_FLAGS],
        "launcher (vs draw pile), random turn unit, mega hit, stop hits on fire, WD4 bluffing, draw then play, \
         explicit UNO, attack resumes after target, bonus play after skip, targeted draws, players / 10, deck size / 128",
    ),
    piece(
        "history",
        HISTORY,
        [MAX_PLAYERS, HISTORY_FEATURES],
        "per relative seat: one-hot colour (R, Y, G, B) it last named this round; one-hot colour of the last \
         coloured card it played this round; cards that entered its hand since it last played (the deal \
         included, up to 31) / 10. After a Trade Hands (A-9) the pressed/drew flags of `seats` and this \
         count follow the hands (the two seats swap them); the named and played colours stay with the seat",
    ),
    piece(
        "edition",
        EDITION,
        [1, NUM_EDITION],
        "each card kind's share of the deck (its copies in every colour / deck size), in kind order: 0-9, skip, \
         reverse, draw2, hit1, hit2, discard-all, trade-hands, slap, wild, wild-draw4, wild-all-hit, wild-hit-fire, \
         wild-attack-attack, wild-custom, wild-hit4; then the match's scoring, one-hot: winner, penalty, challenge (C-7). \
         Tells the editions apart (attack-1999 and attack-modern share every `rules` flag) and says whether a \
         high score is good. Since version 3",
    ),
];

/// The piece with this name.
pub fn piece_by_name(name: &str) -> Option<&'static Piece> {
    PIECES.iter().find(|p| p.name == name)
}

#[inline]
fn add_face_counts(game: &Game, cards: u128, out: &mut [f32]) {
    for c in iter_bits(cards) {
        out[game.card_face[c] as usize] += 1.0;
    }
}

// The window `encode_hand` writes through lies inside every observation
// (version 1's 370 values included).
const _: () = assert!(HAND + 256 <= HISTORY && HISTORY <= OBS_SIZE);

/// Cards of each 64-bit half of the hand that [`encode_hand`] counts
/// without a loop (8 measured fastest of 4, 6, 8, 10, 12 and 16).
pub(crate) const HAND_FIXED: usize = 8;

/// Where position `i` of [`encode_hand`]'s fixed part adds its count when the
/// half has no card left: values that later pieces overwrite (`pending`,
/// which [`encode_phase`] writes, then the observer's `seats` row, which
/// [`encode_seats_and_history`] writes). One slot per position, so that the
/// empty positions do not add to one value one after another (a chain of
/// dependent adds through memory that cost more than the branch it removed).
pub(crate) const HAND_SPILL: [u8; HAND_FIXED] = {
    let mut t = [0u8; HAND_FIXED];
    let mut i = 0;
    while i < HAND_FIXED {
        t[i] = if i < 2 { PENDING + i } else { SEATS + i - 2 } as u8;
        i += 1;
    }
    t
};
const _: () = assert!(
    HAND + NUM_FACES <= PENDING
        && SEATS == PENDING + 2
        && HAND_FIXED <= 2 + SEAT_FEATURES
        && SEATS + SEAT_FEATURES < HAND + 256
);

/// `hand` piece: counts of the observer's faces (the piece must be zero,
/// and the `pending` and `seats` pieces are written after it). `out` is the
/// whole vector. The hand is walked one 64-bit half at a time (a 128-bit
/// `trailing_zeros` and clear-lowest-bit cost about twice the
/// instructions), and each count is added through a 256-value window of the
/// vector indexed by a `u8` slot, so no bounds check is needed. The first
/// [`HAND_FIXED`] cards of each half are counted without a branch: past the
/// half's last card, `trailing_zeros` is 64 and the slot is a
/// [`HAND_SPILL`] value, written over later. A loop over the cards alone
/// mispredicted its exit about once a half (session 45: 11.7M → 12.4M steps/s
/// with observations).
#[inline]
pub(crate) fn encode_hand(game: &Game, s: &State, seat: usize, out: &mut [f32]) {
    let dst: &mut [f32; 256] = (&mut out[HAND..HAND + 256])
        .try_into()
        .expect("hand window");
    let hand = s.hands[seat];
    for (half, slots) in [
        (hand as u64, &game.hand_slot[0]),
        ((hand >> 64) as u64, &game.hand_slot[1]),
    ] {
        let mut m = half;
        for i in 0..HAND_FIXED {
            // 0..=64; past the last card 64, whose entry + i is spill slot i.
            let c = m.trailing_zeros() as usize;
            m &= m.wrapping_sub(1);
            dst[slots[c + (c >> 6) * i] as usize] += 1.0;
        }
        while m != 0 {
            let c = m.trailing_zeros() as usize & 63;
            m &= m - 1;
            dst[slots[c] as usize] += 1.0;
        }
    }
}

/// `top_card` and `active_colour` pieces (they must be zero).
#[inline]
pub(crate) fn encode_top(game: &Game, s: &State, out: &mut [f32]) {
    out[TOP + game.card_face[s.top as usize] as usize] = 1.0;
    if let Some(c) = s.active_colour() {
        out[COLOUR + c.index()] = 1.0;
    }
}

/// `phase` and `pending` pieces (`phase` must be zero).
#[inline]
pub(crate) fn encode_phase(s: &State, out: &mut [f32]) {
    if (s.phase as usize) < NUM_DECISION_PHASES {
        out[PHASE + s.phase as usize] = 1.0;
    }
    out[PENDING] = s.stack as f32 / 10.0;
    // `s.direction() as f32` by its bits (+1.0, or -1.0 with the sign bit
    // set): LLVM compiles the float select to a branch, which mispredicts
    // with every Reverse.
    out[PENDING + 1] = f32::from_bits(1.0f32.to_bits() | (s.reversed as u32) << 31);
}

/// `i / 10` for every hand size (the same values as the division, without
/// its latency on the observation path).
const TENTHS: [f32; 129] = {
    let mut t = [0.0; 129];
    let mut i = 0;
    while i < 129 {
        t[i] = i as f32 / 10.0;
        i += 1;
    }
    t
};

/// Values 0 and 1 of a `seats` row: present (always 1) and in the match (bit 0 of the index).
const PRESENT_ACTIVE: [[f32; 2]; 2] = [[1.0, 0.0], [1.0, 1.0]];

/// Values 4–8 of a `seats` row: UNO called (bit 0 of the index) and the four
/// pressed/drew-on flags (bits 1–4, bit 1 + i = colour i).
const UNO_PRESSED: [[f32; 5]; 32] = {
    let mut t = [[0.0; 5]; 32];
    let mut b = 0;
    while b < 32 {
        let mut i = 0;
        while i < 5 {
            t[b][i] = (b >> i & 1) as f32;
            i += 1;
        }
        b += 1;
    }
    t
};

/// One row of the `seats` piece: public facts about seat `p`, with the
/// next-to-play value 0 ([`encode_seats_and_history`] sets the one next
/// seat's afterwards). Table lookups write the flags two and five values at
/// a time.
#[inline(always)]
fn seat_row(s: &State, p: usize, target: f32, row: &mut [f32; SEAT_FEATURES]) {
    row[0..2].copy_from_slice(&PRESENT_ACTIVE[(s.active >> p & 1) as usize]);
    row[2] = TENTHS[s.hands[p].count_ones() as usize];
    row[3] = s.scores[p] as f32 / target;
    let flags = (s.uno_called >> p & 1) as usize | ((s.pressed_on[p] & 15) as usize) << 1;
    row[4..9].copy_from_slice(&UNO_PRESSED[flags]);
    row[9] = 0.0;
}

/// One-hot colour of a 3-bit code (1 + colour; 0 = none, all zeros).
const COLOUR_CODE: [[f32; NUM_COLOURS]; 8] = {
    let mut t = [[0.0; NUM_COLOURS]; 8];
    let mut i = 0;
    while i < NUM_COLOURS {
        t[i + 1][i] = 1.0;
        i += 1;
    }
    t
};

/// One row of the `history` piece: what seat `p` revealed about its hand this round.
#[inline(always)]
fn history_row(s: &State, p: usize) -> [f32; HISTORY_FEATURES] {
    let named = COLOUR_CODE[(s.pressed_on[p] >> NAMED_SHIFT & 7) as usize];
    let since = s.since_play[p];
    let last = COLOUR_CODE[(since >> LAST_COLOUR_SHIFT) as usize];
    [
        named[0],
        named[1],
        named[2],
        named[3],
        last[0],
        last[1],
        last[2],
        last[3],
        TENTHS[(since & TAKEN_MAX) as usize],
    ]
}

/// `seats` and `history` pieces, relative to the observer, in one pass over
/// the seats (each row by [`seat_row`] and [`history_row`]); rows past the
/// table's seats are zero.
#[inline]
pub(crate) fn encode_seats_and_history(game: &Game, s: &State, seat: usize, out: &mut [f32]) {
    let n = (s.players as usize).min(MAX_PLAYERS);
    let target = game.rules().options.target_score as f32;
    let next = if s.phase.is_over() || game.random_unit {
        usize::MAX
    } else {
        s.seat_after(s.current, s.reversed) as usize
    };
    let (front, hist) = out.split_at_mut(HISTORY);
    let seats: &mut [f32; MAX_PLAYERS * SEAT_FEATURES] = (&mut front
        [SEATS..SEATS + MAX_PLAYERS * SEAT_FEATURES])
        .try_into()
        .expect("seats piece");
    let hist: &mut [f32; MAX_PLAYERS * HISTORY_FEATURES] = (&mut hist
        [..MAX_PLAYERS * HISTORY_FEATURES])
        .try_into()
        .expect("history piece");
    // `p` walks the seats from the observer's, wrapping by a select.
    debug_assert!(seat < n, "the observer is a seat of the table");
    let mut p = seat.min(MAX_PLAYERS - 1);
    for (row, hrow) in seats
        .chunks_exact_mut(SEAT_FEATURES)
        .zip(hist.chunks_exact_mut(HISTORY_FEATURES))
        .take(n)
    {
        seat_row(s, p, target, row.try_into().expect("seat row"));
        hrow.copy_from_slice(&history_row(s, p));
        p = std::hint::select_unpredictable(p + 1 >= n, 0, p + 1);
    }
    if next < n {
        // The next seat's row, relative to the observer.
        let k = seat_plus(next as u8, (n - seat) as u8, n as u8) as usize;
        seats[k * SEAT_FEATURES + SEAT_FEATURES - 1] = 1.0;
    }
    seats[n * SEAT_FEATURES..].fill(0.0);
    hist[n * HISTORY_FEATURES..].fill(0.0);
}

/// `played` piece: the public discard pile, by face.
#[inline]
pub(crate) fn encode_played(s: &State, out: &mut [f32]) {
    let dst: &mut [f32; NUM_FACES] = (&mut out[PLAYED..PLAYED + NUM_FACES])
        .try_into()
        .expect("played piece");
    for (o, &c) in dst.iter_mut().zip(&s.played) {
        *o = c as f32;
    }
}

/// `supply` piece: launcher / draw pile size and the public miss counter (L-2).
#[inline]
pub(crate) fn encode_supply(game: &Game, s: &State, out: &mut [f32]) {
    out[SUPPLY..RULES].fill(0.0);
    out[SUPPLY] = s.pile.count_ones() as f32 / game.deck_size() as f32;
    out[SUPPLY + 1 + (s.misses as usize).min(4)] = 1.0;
    out[SUPPLY + 6] = s.last_fired as f32 / 12.0;
}

/// `rules` piece: the edition's key options.
#[inline]
pub(crate) fn encode_rules(game: &Game, out: &mut [f32]) {
    out[RULES..RULES + NUM_RULE_FLAGS].copy_from_slice(&game.obs_rules);
}

/// `edition` piece: the deck's make-up and the scoring mode.
#[inline]
pub(crate) fn encode_edition(game: &Game, out: &mut [f32]) {
    out[EDITION..EDITION + NUM_EDITION].copy_from_slice(&game.obs_edition);
}

/// The `edition` piece's values, computed once per [`Game`] (they never change).
pub(crate) fn edition_piece(game: &Game) -> [f32; NUM_EDITION] {
    let mut out = [0.0; NUM_EDITION];
    for f in crate::card::Face::all() {
        out[f.kind().index()] += game.cards_of_face(f).count_ones() as f32;
    }
    let deck = game.deck_size() as f32;
    for v in &mut out[..NUM_KINDS] {
        *v /= deck;
    }
    let scoring = match game.rules().options.scoring {
        Scoring::Winner => 0,
        Scoring::Penalty => 1,
        Scoring::Challenge => 2,
    };
    out[NUM_KINDS + scoring] = 1.0;
    out
}

/// The `rules` piece's values, computed once per [`Game`] (they never change).
pub(crate) fn rules_piece(game: &Game) -> [f32; NUM_RULE_FLAGS] {
    let o = &game.rules().options;
    let flags = [
        !game.uses_pile(),
        game.random_unit,
        o.mega_hit,
        o.stop_hits_on_fire,
        o.wd4_bluffing,
        o.draw_then_play,
        o.uno_call == UnoCall::Explicit,
        o.attack_resume == AttackResume::AfterTarget,
        o.bonus_play_after_skip,
        o.targeted_draws,
    ];
    let mut out = [0.0; NUM_RULE_FLAGS];
    for (o, f) in out.iter_mut().zip(flags) {
        *o = f as u8 as f32;
    }
    out[10] = game.num_players() as f32 / 10.0;
    out[11] = game.deck_size() as f32 / 128.0;
    out
}

/// Checks that `s` is a state of `game`'s table, `seat` one of its seats and
/// `out` at least `need` long.
pub(crate) fn check(
    game: &Game,
    s: &State,
    seat: usize,
    out: usize,
    need: usize,
) -> Result<(), EncodeError> {
    let n = game.num_players();
    if s.players as usize != n {
        return Err(EncodeError::Table {
            state: s.players as usize,
            game: n,
        });
    }
    if seat >= n {
        return Err(EncodeError::Seat { seat, players: n });
    }
    if out < need {
        return Err(EncodeError::Buffer { got: out, need });
    }
    Ok(())
}

/// Writes what `seat` may see into `out` (length at least [`OBS_SIZE`]); an
/// error names a short buffer, a seat off the table or another table's state.
///
/// # Panics
/// May panic on a state that breaks an invariant (one built by hand or
/// read with [`State::from_json`] and not checked): check a state from
/// elsewhere with [`Game::check_invariants`] first.
pub fn encode(game: &Game, s: &State, seat: usize, out: &mut [f32]) -> Result<(), EncodeError> {
    check(game, s, seat, out.len(), OBS_SIZE)?;
    encode_unchecked(game, s, seat, out);
    Ok(())
}

/// [`encode`] for callers that sized the buffer and know the seat (the vectorized core).
#[inline]
pub(crate) fn encode_unchecked(game: &Game, s: &State, seat: usize, out: &mut [f32]) {
    let out = &mut out[..OBS_SIZE];
    // The one-hot and count pieces at the front are cleared together (one
    // `memset` instead of three); every later piece function writes its
    // whole piece, so the vector is not cleared as a whole: that 1,840-byte
    // `memset` cost about a tenth of the encoder.
    out[HAND..PENDING].fill(0.0);
    encode_hand(game, s, seat, out);
    encode_top(game, s, out);
    encode_phase(s, out);
    encode_seats_and_history(game, s, seat, out);
    encode_played(s, out);
    encode_supply(game, s, out);
    encode_rules(game, out);
    encode_edition(game, out);
}

/// Byte expansion table: entry b has byte i = bit i of b.
const EXPAND: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            if b >> i & 1 == 1 {
                t[b] |= 1u64 << (8 * i);
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// Writes a legal-action bit mask as bytes (1 = legal) into the first
/// [`NUM_ACTIONS`] bytes of `mask`; a shorter buffer is an error (as the
/// encoders take any buffer of at least their size).
pub fn write_mask(m: u128, mask: &mut [u8]) -> Result<(), EncodeError> {
    if mask.len() < NUM_ACTIONS {
        return Err(EncodeError::Buffer {
            got: mask.len(),
            need: NUM_ACTIONS,
        });
    }
    write_mask_unchecked(m, &mut mask[..NUM_ACTIONS]);
    Ok(())
}

/// [`write_mask`] into a slice of any length (bits past 127 read as 0), eight at a time.
#[inline]
pub(crate) fn write_mask_unchecked(m: u128, mask: &mut [u8]) {
    let mut chunks = mask.chunks_exact_mut(8);
    let mut bits = m;
    for c in &mut chunks {
        c.copy_from_slice(&EXPAND[(bits & 0xFF) as usize].to_le_bytes());
        bits >>= 8;
    }
    let rest = chunks.into_remainder();
    let tail = EXPAND[(bits & 0xFF) as usize].to_le_bytes();
    let len = rest.len();
    rest.copy_from_slice(&tail[..len]);
}

/// Writes the ids of the set bits of `m` in increasing order to the start of
/// `ids` (at least `m.count_ones()` long) and returns how many there are.
#[inline]
pub(crate) fn write_legal_ids(m: u128, ids: &mut [u8]) -> u8 {
    let mut k = 0;
    for (slot, a) in ids.iter_mut().zip(iter_bits(m)) {
        *slot = a as u8;
        k += 1;
    }
    k
}

/// Writes the full state as seen from `seat` (length at least [`ORACLE_SIZE`]):
/// the observation, then every other hand by relative seat, then the launcher.
/// Errors and panics as [`encode`].
pub fn encode_oracle(
    game: &Game,
    s: &State,
    seat: usize,
    out: &mut [f32],
) -> Result<(), EncodeError> {
    check(game, s, seat, out.len(), ORACLE_SIZE)?;
    encode_unchecked(game, s, seat, out);
    let rest = &mut out[OBS_SIZE..ORACLE_SIZE];
    rest.fill(0.0);
    let n = s.players as usize;
    for k in 1..n {
        let p = seat_plus(seat as u8, k as u8, n as u8) as usize;
        add_face_counts(
            game,
            s.hands[p],
            &mut rest[(k - 1) * NUM_FACES..k * NUM_FACES],
        );
    }
    let l = (MAX_PLAYERS - 1) * NUM_FACES;
    add_face_counts(game, s.pile, &mut rest[l..l + NUM_FACES]);
    Ok(())
}

/// The range every value of [`encode_oracle`]'s vector (and so of
/// [`encode`]'s, its first [`OBS_SIZE`] values) can take in `game`: `(low,
/// high)`, each [`ORACLE_SIZE`] long, no range empty. Counts of a face go up
/// to the deck's copies of it (1 for a face it lacks), hand sizes to the deck's size, scores (C-7) to the target
/// plus the whole deck's points (a match's last round, or a seat it
/// eliminated), and the stack, the last press and the cards taken to their
/// fields' limits; the direction is the only value below 0.
pub fn bounds(game: &Game) -> (Vec<f32>, Vec<f32>) {
    let mut low = vec![0.0f32; ORACLE_SIZE];
    let mut high = vec![1.0f32; ORACLE_SIZE];
    // A face the deck lacks keeps 1, so that no range is empty (its count is always 0).
    let copies: Vec<f32> = crate::card::Face::all()
        .map(|f| game.cards_of_face(f).count_ones().max(1) as f32)
        .collect();
    high[HAND..HAND + NUM_FACES].copy_from_slice(&copies);
    high[PLAYED..PLAYED + NUM_FACES].copy_from_slice(&copies);
    for rest in high[OBS_SIZE..ORACLE_SIZE].chunks_mut(NUM_FACES) {
        rest.copy_from_slice(&copies);
    }
    high[PENDING] = f32::from(u8::MAX) / 10.0;
    low[PENDING + 1] = -1.0;
    let target = game.rules().options.target_score as f32;
    let score = (target + game.deck_points() as f32) / target;
    for row in high[SEATS..PLAYED].chunks_mut(SEAT_FEATURES) {
        row[2] = game.deck_size() as f32 / 10.0;
        row[3] = score;
    }
    high[SUPPLY + 6] = f32::from(u8::MAX) / 12.0;
    for row in high[HISTORY..EDITION].chunks_mut(HISTORY_FEATURES) {
        row[HISTORY_FEATURES - 1] = TENTHS[TAKEN_MAX as usize];
    }
    (low, high)
}

/// A readable dump of an observation, piece by piece (non-zero values only).
/// A slice shorter than [`OBS_SIZE`] shows the pieces it holds (the rest
/// as missing) rather than panicking; an oracle vector shows its
/// observation part.
pub fn describe(obs: &[f32]) -> String {
    let mut out = String::new();
    for p in PIECES.iter() {
        let Some(piece) = obs.get(p.offset..p.offset + p.size()) else {
            out.push_str(&format!(
                "{:>13} (missing: the slice holds {} values)\n",
                p.name,
                obs.len()
            ));
            continue;
        };
        let vals: Vec<String> = piece
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, v)| format!("{i}:{v}"))
            .collect();
        out.push_str(&format!("{:>13} {}\n", p.name, vals.join(" ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_names_the_pieces_a_short_slice_lacks() {
        let text = describe(&[0.0; 10]);
        assert!(text.contains("hand"), "{text}");
        assert!(
            text.contains("(missing: the slice holds 10 values)"),
            "{text}"
        );
        let full = describe(&[1.0; OBS_SIZE]);
        assert!(!full.contains("missing"), "{full}");
    }

    #[test]
    fn the_edition_piece_tells_every_preset_and_scoring_mode_apart() {
        use crate::rules::{PRESETS, Rules};
        let piece = |rules: Rules| {
            let game = Game::new(rules, 4).unwrap();
            let s = game.new_state(1);
            let mut out = vec![0.0; OBS_SIZE];
            encode(&game, &s, 0, &mut out).unwrap();
            out[EDITION..].to_vec()
        };
        let mut seen: Vec<Vec<f32>> = Vec::new();
        for preset in PRESETS {
            for scoring in [Scoring::Winner, Scoring::Penalty, Scoring::Challenge] {
                let mut rules = Rules::preset(preset).unwrap();
                rules.options.scoring = scoring;
                let deck = rules.deck_size() as f32;
                let wilds = rules
                    .deck
                    .get(&crate::card::Kind::Wild)
                    .copied()
                    .unwrap_or(0);
                let p = piece(rules);
                // Shares of the deck: they add up to 1; a wild is one card, not one per colour.
                let total: f32 = p[..NUM_KINDS].iter().sum();
                assert!((total - 1.0).abs() < 1e-5, "{preset}: {total}");
                assert_eq!(p[crate::card::Kind::Wild.index()], f32::from(wilds) / deck);
                let one_hot = &p[NUM_KINDS..];
                assert_eq!(one_hot.iter().sum::<f32>(), 1.0, "{preset} {scoring:?}");
                assert!(
                    !seen.contains(&p),
                    "{preset} {scoring:?} repeats another's piece"
                );
                seen.push(p);
            }
        }
    }

    #[test]
    fn pieces_tile_the_vector() {
        let mut end = 0;
        for p in &PIECES {
            assert_eq!(p.offset, end, "{}", p.name);
            end += p.size();
        }
        assert_eq!(end, OBS_SIZE);
    }
}
