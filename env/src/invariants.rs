//! The invariant checker: card conservation and consistency of a state.

use crate::error::InvariantError;
use crate::game::Game;
use crate::state::{Phase, State};

impl Game {
    /// Why `s` cannot be a state of this table: another table size, or a
    /// dealer off the table (`None` when it can). The invariant check and
    /// the engine's public entry points share it.
    pub(crate) fn table_error(&self, s: &State) -> Option<String> {
        let n = self.num_players();
        if s.players as usize != n {
            return Some(format!(
                "the state is for {} players, the game for {n}",
                s.players
            ));
        }
        if s.dealer as usize >= n {
            return Some(format!("dealer {} is not a seat", s.dealer));
        }
        None
    }

    /// Checks that every card is in exactly one place, the top card is on the
    /// discard pile, and hands, phases, UNO flags and scores agree. Returns the
    /// first violation found.
    pub fn check_invariants(&self, s: &State) -> Result<(), InvariantError> {
        self.first_violation(s).map_err(InvariantError::new)
    }

    /// The check of [`Game::check_invariants`], its violation in words.
    fn first_violation(&self, s: &State) -> Result<(), String> {
        let n = self.num_players();
        if let Some(e) = self.table_error(s) {
            return Err(e);
        }
        check_ranges(s, n)?;
        let mut seen = s.pile;
        if s.pile & s.discard != 0 {
            return Err("a card is both in the launcher/draw pile and on the discard pile".into());
        }
        seen |= s.discard;
        for p in 0..n {
            if s.hands[p] & seen != 0 {
                return Err(format!("seat {p} holds a card that is also elsewhere"));
            }
            seen |= s.hands[p];
        }
        if s.hands[n..].iter().any(|h| *h != 0) {
            return Err("a seat beyond the table holds cards".into());
        }
        if seen != self.all_cards() {
            return Err(format!(
                "card conservation: {} cards accounted for, deck has {}",
                seen.count_ones(),
                self.deck_size()
            ));
        }
        let mut played = [0u8; crate::card::NUM_FACES];
        for c in crate::game::iter_bits(s.discard) {
            played[self.face_of(c).index()] += 1;
        }
        if played != s.played {
            return Err("played counts disagree with the discard pile".into());
        }
        if s.discard >> s.top & 1 == 0 {
            return Err("the top card is not on the discard pile".into());
        }
        for p in 0..n {
            if s.uno_called(p) && s.hand_len(p) != 1 {
                return Err(format!(
                    "seat {p} has an UNO call but holds {} cards",
                    s.hand_len(p)
                ));
            }
            // C-7 challenge: a seat eliminated by the round just scored keeps the
            // cards it was caught with until the next deal.
            if !s.is_active(p) && s.hands[p] != 0 && !s.phase.is_over() {
                return Err(format!("eliminated seat {p} holds cards"));
            }
        }
        // C-7: a total at the target ends the match (or, under challenge
        // scoring, the seat's part in it), so until the match is over (a round
        // just scored included) no seat still in it holds the target.
        let target = self.rules().options.target_score;
        let challenge = self.rules().options.scoring == crate::rules::Scoring::Challenge;
        // C-7: only challenge scoring eliminates seats, and a match goes on
        // (a round just scored included) only while two seats are still in it.
        // Checked in every phase: `next_round` deals to the seats in `active`.
        if !challenge && s.num_active() != n {
            return Err("a seat is eliminated under a scoring mode without eliminations".into());
        }
        if s.phase != Phase::MatchOver && s.num_active() < 2 {
            return Err(format!(
                "fewer than 2 seats in the match ({}) while it goes on",
                s.num_active()
            ));
        }
        if s.phase != Phase::MatchOver
            && let Some(p) =
                (0..n).find(|&p| s.scores[p] >= target && (!challenge || s.is_active(p)))
        {
            return Err(format!(
                "seat {p} has {} points, at or past the target {target}, while the match goes on",
                s.scores[p]
            ));
        }
        match s.phase {
            Phase::RoundOver | Phase::MatchOver => {
                if let Some(w) = s.round_winner() {
                    if s.hands[w] != 0 {
                        return Err(format!("round winner {w} still holds cards"));
                    }
                } else if !s.truncated {
                    return Err("round over with no winner and no truncation".into());
                }
                if s.phase == Phase::MatchOver && s.match_winner().is_none() {
                    return Err("match over with no winner".into());
                }
                // C-6 / C-7: the round's points are the cards left in hands: the
                // winner scores them all, or (penalty and challenge scoring)
                // each other seat is charged its own; a round cut short scores 0.
                let winner_scores = self.rules().options.scoring == crate::rules::Scoring::Winner;
                for p in 0..n {
                    let want = match s.round_winner() {
                        Some(w) if p == w && winner_scores => (0..n)
                            .filter(|&q| q != w)
                            .map(|q| self.points(s.hands[q]))
                            .sum(),
                        Some(w) if p != w && !winner_scores => self.points(s.hands[p]),
                        _ => 0,
                    }
                    .min(u32::from(u16::MAX));
                    if u32::from(s.round_points[p]) != want {
                        return Err(format!(
                            "seat {p} scored {} points this round, the cards left say {want} (C-6)",
                            s.round_points[p]
                        ));
                    }
                }
            }
            phase => {
                if s.round_points.iter().any(|&p| p != 0) {
                    return Err("round points set while the round goes on".into());
                }
                let cap = self.rules().options.max_decisions;
                if s.decisions >= cap {
                    return Err(format!(
                        "{} decisions while the round goes on: the cap {cap} cuts it short",
                        s.decisions
                    ));
                }
                let c = s.current as usize;
                if c >= n || !s.is_active(c) {
                    return Err(format!("current seat {c} is not an active seat"));
                }
                // The colour is unset while it is being named, and (C-4,
                // explicit UNO call) during the call that comes before it
                // when a wild was the second-to-last card.
                let naming = phase == Phase::ChooseColour
                    || (phase == Phase::UnoCall && s.pending_face().is_some_and(|f| f.is_wild()));
                if !naming && s.active_colour().is_none() {
                    return Err("no active colour outside a colour decision".into());
                }
                // outside the stack decision, pending hits are only met
                // while a stacked Hit card is being played (its colour, target
                // or UNO call still to come).
                if phase != Phase::Stack
                    && s.stack != 0
                    && !s.pending_face().is_some_and(|f| self.is_stackable(f))
                {
                    return Err(format!(
                        "{} pending hits in phase {} with no stacked Hit card being played",
                        s.stack,
                        phase.name()
                    ));
                }
                // hits are stacked only with Mega Hit.
                if s.stack != 0 && !self.rules().options.mega_hit {
                    return Err(format!("{} pending hits without mega_hit (A-14)", s.stack));
                }
                if phase == Phase::Stack && s.stack == 0 {
                    return Err("stack phase with no pending hits".into());
                }
                // The stages of a play (C-3, A-9, A-10): the card being played
                // is the top card; a colour is named for a wild card, a target
                // chosen for a Trade Hands or a targeted Hit.
                if let (false, Some(f)) = (s.start, s.pending_face()) {
                    let top = self.face_of(s.top as usize);
                    if f != top {
                        return Err(format!(
                            "phase {}: the card being played ({}) is not the top card ({})",
                            phase.name(),
                            f.name(),
                            top.name()
                        ));
                    }
                    if (phase == Phase::ChooseColour && !f.is_wild())
                        || (phase == Phase::ChooseTarget
                            && !self.effect_of(f.kind()).names_a_seat())
                    {
                        return Err(format!(
                            "phase {} for a card that does not ask for it ({})",
                            phase.name(),
                            f.name()
                        ));
                    }
                }
                if self.legal_mask(s) == 0 {
                    return Err(format!("no legal action in phase {}", phase.name()));
                }
                // C-5: a seat with no cards is the player who went out, while
                // their last card still needs a colour, a target or a challenge.
                for p in (0..n).filter(|&p| s.is_active(p) && s.hands[p] == 0) {
                    let resolving = match phase {
                        // not on a card that may not be the last one
                        // (Trade Hands would hand the empty hand on).
                        Phase::ChooseColour | Phase::ChooseTarget => {
                            c == p && self.not_last >> s.top & 1 == 0
                        }
                        Phase::Challenge => s.offender as usize == p,
                        _ => false,
                    };
                    if !resolving {
                        return Err(format!(
                            "seat {p} holds no cards while the round goes on (phase {})",
                            phase.name()
                        ));
                    }
                }
            }
        }
        if s.phase != Phase::MatchOver && s.match_winner().is_some() {
            return Err("match winner set while the match goes on".into());
        }
        Ok(())
    }
}

/// Every seat, card, face and colour field holds a value the engine can use
/// (a state read from JSON may hold anything): seats below `n` (or none where
/// a field may be unset), the fields the current phase acts on set.
fn check_ranges(s: &State, n: usize) -> Result<(), String> {
    use crate::card::NUM_FACES;
    use crate::state::NONE;
    let seats = (1u32 << n) - 1;
    if s.current as usize >= n {
        return Err(format!("current seat {} is not a seat", s.current));
    }
    if u32::from(s.active) & !seats != 0 {
        return Err(format!("`active` has seats outside the {n}-seat table"));
    }
    if u32::from(s.uno_called) & !seats != 0 {
        return Err(format!("`uno_called` has seats outside the {n}-seat table"));
    }
    for (name, v) in [
        ("target", s.target),
        ("from", s.from),
        ("offender", s.offender),
        ("stack_origin", s.stack_origin),
        ("winner", s.winner),
        ("match_winner", s.match_winner),
    ] {
        if v != NONE && v as usize >= n {
            return Err(format!("`{name}` {v} is not a seat"));
        }
    }
    let needed = match s.phase {
        Phase::Challenge => Some(("offender", s.offender)),
        Phase::Stack => Some(("stack_origin", s.stack_origin)),
        Phase::BonusPlay => Some(("from", s.from)),
        _ => None,
    };
    if let Some((name, NONE)) = needed {
        return Err(format!("phase {} with no `{name}`", s.phase.name()));
    }
    if s.bonus && s.from == NONE {
        return Err("a bonus play with no `from`".into());
    }
    if s.top >= 128 {
        return Err(format!("top card {} is not a card", s.top));
    }
    if s.colour > 4 {
        return Err(format!("colour {} is not a colour", s.colour));
    }
    if s.pending_face != NONE && s.pending_face as usize >= NUM_FACES {
        return Err(format!("pending face {} is not a face", s.pending_face));
    }
    if s.pending_card != NONE && s.pending_card >= 128 {
        return Err(format!("pending card {} is not a card", s.pending_card));
    }
    // A-17 and the wild start card: naming its colour (and its target) are the round's
    // first decisions; `start` marks them and nothing else.
    if s.start && (!matches!(s.phase, Phase::ChooseColour | Phase::ChooseTarget) || s.decisions > 1)
    {
        return Err(format!(
            "the start card's choice flagged in phase {} after {} decisions (it is the round's first)",
            s.phase.name(),
            s.decisions
        ));
    }
    // The phases that continue a play read the card being played.
    let playing = match s.phase {
        Phase::ChooseColour | Phase::ChooseTarget => !s.start,
        Phase::UnoCall => true,
        _ => false,
    };
    if playing && s.pending_face == NONE {
        return Err(format!(
            "phase {} with no card being played",
            s.phase.name()
        ));
    }
    if s.phase == Phase::AfterDraw
        && (s.pending_card >= 128
            || (s.current as usize) >= n
            || s.hands[s.current as usize] >> s.pending_card & 1 == 0)
    {
        return Err("after-draw with no drawn card in the player's hand".into());
    }
    if s.stage > 3 {
        return Err(format!("stage {} is not a stage of a play", s.stage));
    }
    // a pending stack lives from the first stacked hit until the
    // victim presses it, through the stages of a stacked card's play.
    if s.stack != 0 {
        if s.stack_origin == NONE {
            return Err("pending hits with no `stack_origin`".into());
        }
        if matches!(s.phase, Phase::Play | Phase::BonusPlay | Phase::AfterDraw) {
            return Err(format!(
                "{} pending hits in phase {}",
                s.stack,
                s.phase.name()
            ));
        }
    }
    // Explicit UNO (C-4): the call is decided with one card left.
    if s.phase == Phase::UnoCall
        && ((s.current as usize) >= n || s.hands[s.current as usize].count_ones() != 1)
    {
        return Err("phase uno-call without exactly one card in the player's hand".into());
    }
    Ok(())
}
