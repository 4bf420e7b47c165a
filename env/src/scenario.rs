//! Explicit set-ups: build any position by hand, so a rule can be tested in isolation.
//!
//! A [`Scenario`] names each hand, the top card, the active colour, the
//! launcher's (or draw pile's) contents and who is to play. Faces are assigned
//! to physical cards of the deck; every card not named goes to the launcher
//! (when `launcher` is not given) or under the discard pile's top (when it is).
//! Combine with a `scripted` launcher model to fix every press's outcome.

use crate::card::{Colour, Face};
use crate::error::ScenarioError;
use crate::game::Game;
use crate::state::{NONE, Phase, State};
use serde::{Deserialize, Serialize};

/// A hand-built position (the start of a turn in [`Phase::Play`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// Each seat's hand.
    pub hands: Vec<Vec<Face>>,
    /// The top card of the discard pile.
    pub top: Option<Face>,
    /// The active colour (defaults to the top card's colour; needed for a wild top).
    pub colour: Option<Colour>,
    /// The launcher / draw pile contents; `None` = every card not named elsewhere.
    pub launcher: Option<Vec<Face>>,
    /// Cards under the top of the discard pile (besides the unnamed rest when `launcher` is given).
    pub discard: Vec<Face>,
    /// The seat to play.
    pub current: usize,
    /// -1 for play going right (reversed), anything else for left.
    pub direction: i32,
    /// The dealer.
    pub dealer: usize,
    /// The chance generator's seed.
    pub seed: u64,
    /// Match scores so far.
    pub scores: Option<Vec<u32>>,
    /// Launcher presses since the last firing.
    pub misses: u8,
    /// Seats already eliminated (C-7 challenge scoring).
    pub eliminated: Vec<usize>,
}

impl Game {
    /// Builds the position a scenario describes; errors name what is wrong.
    pub fn scenario(&self, sc: &Scenario) -> Result<State, ScenarioError> {
        let n = self.num_players();
        let bad = |m: String| Err(ScenarioError::Invalid(m));
        if sc.hands.len() != n {
            return bad(format!("{} hands given for {n} players", sc.hands.len()));
        }
        if sc.current >= n || sc.dealer >= n {
            return bad("current and dealer must be seats of the table".into());
        }
        let Some(top) = sc.top else {
            return bad("a top card is required".into());
        };
        // `Face`'s id is public: refuse one past the 79 faces before it indexes a table.
        let faces = std::iter::once(&top)
            .chain(sc.hands.iter().flatten())
            .chain(&sc.discard)
            .chain(sc.launcher.iter().flatten());
        if let Some(f) = faces
            .into_iter()
            .find(|f| f.index() >= crate::card::NUM_FACES)
        {
            return bad(format!("face id {} is not a face", f.0));
        }
        let colour = match (sc.colour, top.colour()) {
            (Some(c), _) | (None, Some(c)) => c,
            (None, None) => return bad("a wild top card needs an active colour".into()),
        };
        let mut s = self.new_state(sc.seed);
        let mut free = self.all_cards();
        let mut take = |f: Face| -> Result<u8, ScenarioError> {
            let avail = free & self.cards_of_face(f);
            if avail == 0 {
                return Err(ScenarioError::TooMany(f.name()));
            }
            let c = avail.trailing_zeros() as u8;
            free &= !(1u128 << c);
            Ok(c)
        };
        let t = take(top)?;
        let mut hands = [0u128; crate::game::MAX_PLAYERS];
        for (seat, h) in sc.hands.iter().enumerate() {
            for f in h {
                hands[seat] |= 1u128 << take(*f)?;
            }
        }
        let mut discard = 1u128 << t;
        for f in &sc.discard {
            discard |= 1u128 << take(*f)?;
        }
        let pile = match &sc.launcher {
            Some(l) => {
                let mut p = 0u128;
                for f in l {
                    p |= 1u128 << take(*f)?;
                }
                discard |= free;
                p
            }
            None => free,
        };
        let mut active = (1u16 << n) - 1;
        if !sc.eliminated.is_empty()
            && self.rules().options.scoring != crate::rules::Scoring::Challenge
        {
            return bad("only challenge scoring eliminates seats (C-7)".into());
        }
        for &e in &sc.eliminated {
            if e >= n || e == sc.current {
                return bad(format!("cannot eliminate seat {e}"));
            }
            if hands[e] != 0 {
                return bad(format!("eliminated seat {e} cannot hold cards"));
            }
            active &= !(1 << e);
        }
        s.active = active;
        let final_round =
            self.rules().options.scoring == crate::rules::Scoring::Challenge && s.num_active() == 2;
        s.clear_round(final_round);
        // The deal that built the base state may have pressed the launcher
        // (a Hit start card): a scripted launcher starts from its first outcome.
        s.script_pos = 0;
        s.match_winner = NONE;
        s.from = NONE;
        s.stage = 0;
        s.hands = hands;
        s.pile = pile;
        s.discard = discard;
        s.played = [0; crate::card::NUM_FACES];
        for c in crate::game::iter_bits(discard) {
            s.played[self.face_of(c).index()] += 1;
        }
        s.top = t;
        s.colour = colour.index() as u8;
        s.current = sc.current as u8;
        s.dealer = sc.dealer as u8;
        s.reversed = sc.direction == -1;
        s.phase = Phase::Play;
        s.misses = sc.misses;
        for (seat, hand) in hands.iter().enumerate().take(n) {
            if hand.count_ones() == 1 {
                s.uno_called |= 1 << seat;
            }
        }
        if let Some(sc_scores) = &sc.scores {
            if sc_scores.len() != n {
                return bad("scores needs one entry per seat".into());
            }
            s.scores[..n].copy_from_slice(sc_scores);
        }
        // A position the engine could not play on (every hand empty, one
        // seat left in the match, …) is refused here, not met later.
        if s.num_active() < 2 {
            return bad("at least two seats must be in the match".into());
        }
        self.check_invariants(&s)
            .map_err(|e| ScenarioError::Invalid(e.to_string()))?;
        Ok(s)
    }
}
