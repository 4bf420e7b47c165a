//! [`PublicView`]: what one seat may see of a state (`docs/rules.md`, *Information*).
//!
//! The hand-written agents read the state only through this view, so it is
//! easy to audit that they never look at hidden information: other players'
//! hands and the launcher / draw pile are not reachable from here. Cards not in
//! the own hand and not in the discard pile are "unseen" (held by someone else
//! or still to come), which is public knowledge.

use uno_env::card::{Colour, Face, NUM_FACES};
use uno_env::{Game, Phase, State};

/// One seat's view of a state: own hand plus public facts.
#[derive(Clone, Copy, Debug)]
pub struct PublicView<'a> {
    /// The game (rules, deck: public).
    pub game: &'a Game,
    state: &'a State,
    /// The seat whose view this is.
    pub seat: usize,
}

impl<'a> PublicView<'a> {
    /// The view of `state` for `seat`.
    pub fn new(game: &'a Game, state: &'a State, seat: usize) -> Self {
        PublicView { game, state, seat }
    }

    /// The decision phase.
    pub fn phase(&self) -> Phase {
        self.state.phase()
    }

    /// The legal action mask (depends only on the own hand and public facts).
    pub fn legal_mask(&self) -> u128 {
        self.game.legal_mask(self.state)
    }

    /// Physical cards in the own hand.
    pub fn own_cards(&self) -> u128 {
        self.state.hand(self.seat)
    }

    /// Own hand as a count per face.
    pub fn own_counts(&self) -> [u8; NUM_FACES] {
        face_counts(self.game, self.own_cards())
    }

    /// Cards in `p`'s hand (a public count).
    pub fn hand_len(&self, p: usize) -> usize {
        self.state.hand_len(p)
    }

    /// Players at the table.
    pub fn players(&self) -> usize {
        self.state.num_players()
    }

    /// True when `p` is still in the match.
    pub fn is_active(&self, p: usize) -> bool {
        self.state.is_active(p)
    }

    /// The face on top of the discard pile.
    pub fn top_face(&self) -> Face {
        self.state.top_face(self.game)
    }

    /// The discard pile's top card (physical index).
    pub fn top_card(&self) -> usize {
        self.state.top_card()
    }

    /// The active colour.
    pub fn colour(&self) -> Option<Colour> {
        self.state.active_colour()
    }

    /// +1 or -1.
    pub fn direction(&self) -> i32 {
        self.state.direction()
    }

    /// Launcher presses since it last fired (L-2).
    pub fn misses(&self) -> usize {
        self.state.misses()
    }

    /// Pending Mega Hit presses.
    pub fn pending_hits(&self) -> usize {
        self.state.pending_hits()
    }

    /// Colours `p` pressed/drew on by choice in its turn since they last played (bit per colour).
    pub fn pressed_on(&self, p: usize) -> u8 {
        self.state.pressed_on(p)
    }

    /// Physical cards in the discard pile (public: every card played since the last refill).
    pub fn discard(&self) -> u128 {
        self.state.discard()
    }

    /// Cards neither in the own hand nor in the discard pile (other hands + pile, as one set).
    pub fn unseen(&self) -> u128 {
        self.game.all_cards() & !self.own_cards() & !self.discard()
    }

    /// Match scores.
    pub fn scores(&self) -> &'a [u32] {
        self.state.scores()
    }

    /// The face being resolved (colour / target / UNO decisions).
    pub fn pending_face(&self) -> Option<Face> {
        self.state.pending_face()
    }

    /// The card just drawn (own card, F-2).
    pub fn drawn_card(&self) -> Option<usize> {
        self.state.drawn_card()
    }

    /// The seat `k` places after the own seat in the direction of play.
    pub fn seat_at(&self, k: usize) -> usize {
        let n = self.players() as i64;
        (self.seat as i64 + self.direction() as i64 * k as i64).rem_euclid(n) as usize
    }

    /// The next active seat in the direction of play.
    pub fn next_seat(&self) -> usize {
        (1..self.players())
            .map(|k| self.seat_at(k))
            .find(|&p| self.is_active(p))
            .unwrap_or(self.seat)
    }

    /// The previous active seat (the one that would play next after a Reverse).
    pub fn prev_seat(&self) -> usize {
        (1..self.players())
            .map(|k| self.seat_at(self.players() - k))
            .find(|&p| self.is_active(p))
            .unwrap_or(self.seat)
    }

    /// Active opponents.
    pub fn opponents(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.players()).filter(move |&p| p != self.seat && self.is_active(p))
    }

    /// Number of active players.
    pub fn num_active(&self) -> usize {
        self.state.num_active()
    }
}

/// Count per face of a set of physical cards.
pub fn face_counts(game: &Game, cards: u128) -> [u8; NUM_FACES] {
    let mut c = [0u8; NUM_FACES];
    let mut m = cards;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        c[game.face_of(i).index()] += 1;
    }
    c
}
