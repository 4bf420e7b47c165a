//! Resampling a state from one seat's information (OpenSpiel's
//! `ResampleFromInfostate`), for search agents that must not see hidden cards.
//!
//! `docs/rules.md`, *Information*: a seat sees its own hand and public facts; other
//! hands and the launcher / draw pile are hidden. [`Game::resample_hidden`]
//! keeps everything a seat sees and deals the cards it cannot see (the other
//! hands and the pile together) anew, uniformly at random with the same hand
//! sizes, and gives the state a fresh chance generator, so what the launcher
//! fires next is not the real future either. A determinized search (play out
//! each action on many resampled states) then decides on the seat's
//! information alone.
//!
//! Choices where the state holds a hidden fact that is not a card place:
//! - **F-6 challenge.** Whether the Wild Draw Four being challenged was legal
//!   depends on the offender's hand before the play, which no other seat saw
//!   and the state no longer holds (the previous active colour is gone). A
//!   resampled state for any seat but the offender (the challenged seat or
//!   a third one) draws it as a fair coin; the offender's keeps it.
//! - **F-2 card just drawn.** While another seat decides whether to play the
//!   card it just drew, that card stays in its hand (it is the one card of
//!   that hand the resampled state does not redeal). A seat deciding its own
//!   draw knows the card anyway.
//!
//! The uniform deal ignores what behaviour reveals (a seat that pressed on
//! red probably holds no red); a search may weight or filter samples itself.

use crate::error::EncodeError;
use crate::game::Game;
use crate::rng::ChanceRng;
use crate::state::{NONE, Phase, State};

impl Game {
    /// A state that `observer` cannot tell from `s`: its own hand and every
    /// public fact are kept; the other hands (same sizes) and the launcher /
    /// draw pile are redealt uniformly from the cards `observer` cannot see;
    /// the chance generator is reseeded. Deterministic in `seed`. What the
    /// observer learnt earlier and the state does not record (the hand it gave
    /// away with Trade Hands, a hand shown at a challenge) is not kept. Once
    /// the round is over the hands have been shown (C-6 scores them), so only
    /// the chance generator is reseeded.
    ///
    /// A state of another table size, or an observer who is not a seat of
    /// the table, is an error (a smaller table's game would keep the real
    /// hands of the seats past it).
    ///
    /// # Panics
    /// May panic on a state that breaks an invariant (one built by hand or
    /// read with [`State::from_json`] and not checked): check a state from
    /// elsewhere with [`Game::check_invariants`] first.
    pub fn resample_hidden(
        &self,
        s: &State,
        observer: usize,
        seed: u64,
    ) -> Result<State, EncodeError> {
        // The encoders' own check of the table and the seat (no buffer here).
        crate::obs::check(self, s, observer, 0, 0)?;
        let n = self.num_players();
        let mut t = s.clone();
        if s.is_round_over() {
            t.rng = ChanceRng::new(seed, 1);
            return Ok(t);
        }
        // Stream 0 deals; stream 1 is the resampled state's own chance.
        let mut deal = ChanceRng::new(seed, 0);
        let kept = if s.phase == Phase::AfterDraw && s.current as usize != observer {
            1u128 << s.pending_card
        } else {
            0
        };
        let mut unseen = s.pile;
        for p in (0..n).filter(|&p| p != observer) {
            unseen |= s.hands[p];
        }
        unseen &= !kept;
        for p in (0..n).filter(|&p| p != observer) {
            let keep = s.hands[p] & kept;
            let mut hand = keep;
            for _ in 0..(s.hands[p] & !keep).count_ones() {
                hand |= deal.take(&mut unseen).1;
            }
            t.hands[p] = hand;
        }
        t.pile = unseen;
        // Only the offender knows whether its Wild Draw Four was legal: the
        // challenged seat and every other seat draw it (before 2026-11-29
        // only the challenged seat did, and a search run for a third seat
        // kept the real answer).
        if s.phase == Phase::Challenge && s.offender != NONE && s.offender as usize != observer {
            t.wd4_legal = deal.below(2) == 1;
        }
        t.rng = ChanceRng::new(seed, 1);
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use crate::obs::encode;
    use crate::{Game, OBS_SIZE, Rules};

    /// Plays `steps` lowest-legal actions from seed `seed`.
    fn midgame(game: &Game, seed: u64, steps: usize) -> crate::State {
        let mut s = game.new_state(seed);
        for _ in 0..steps {
            if s.is_round_over() {
                break;
            }
            let a = game.legal_actions(&s)[0];
            game.apply(&mut s, a).unwrap();
        }
        s
    }

    #[test]
    fn keeps_what_the_observer_sees_and_redeals_the_rest() {
        for rules in ["attack-2010", "classic", "flash"] {
            let game = Game::new(Rules::preset(rules).unwrap(), 4).unwrap();
            for seed in 0..40 {
                let s = midgame(&game, seed, (seed as usize * 7) % 60);
                if s.is_round_over() {
                    continue;
                }
                let me = s.current_player().unwrap();
                let t = game.resample_hidden(&s, me, 1000 + seed).unwrap();
                game.check_invariants(&t).unwrap();
                // The observer's observation and legal actions are unchanged.
                let (mut a, mut b) = ([0f32; OBS_SIZE], [0f32; OBS_SIZE]);
                encode(&game, &s, me, &mut a).unwrap();
                encode(&game, &t, me, &mut b).unwrap();
                assert_eq!(a, b, "{rules} seed {seed}");
                assert_eq!(game.legal_mask(&s), game.legal_mask(&t));
                assert_eq!(t.hand(me), s.hand(me));
                assert_eq!(t.discard(), s.discard());
                let mut hidden = (s.pile(), t.pile());
                for p in (0..4).filter(|&p| p != me) {
                    assert_eq!(t.hand_len(p), s.hand_len(p));
                    hidden.0 |= s.hand(p);
                    hidden.1 |= t.hand(p);
                }
                // The same unseen cards, placed anew.
                assert_eq!(hidden.0, hidden.1);
            }
        }
    }

    #[test]
    fn deterministic_in_the_seed_and_varied_across_seeds() {
        let game = Game::new(Rules::preset("attack-2010").unwrap(), 4).unwrap();
        let s = midgame(&game, 3, 10);
        let me = s.current_player().unwrap();
        assert_eq!(
            game.resample_hidden(&s, me, 9).unwrap(),
            game.resample_hidden(&s, me, 9).unwrap()
        );
        let other = (me + 1) % 4;
        let distinct: std::collections::HashSet<u128> = (0..20)
            .map(|k| game.resample_hidden(&s, me, k).unwrap().hand(other))
            .collect();
        assert!(distinct.len() > 15, "{} distinct hands", distinct.len());
        // A fresh chance generator: the resampled future differs from the real one.
        let t = game.resample_hidden(&s, me, 9).unwrap();
        assert_ne!(t.to_json(), s.to_json());
    }

    #[test]
    fn resampled_states_play_to_the_end() {
        let game = Game::new(Rules::preset("attack-2010").unwrap(), 3).unwrap();
        for seed in 0..20 {
            let s = midgame(&game, seed, 15);
            let Some(me) = s.current_player() else {
                continue;
            };
            let mut t = game.resample_hidden(&s, me, seed).unwrap();
            while !t.is_round_over() {
                let a = game.legal_actions(&t)[0];
                game.apply(&mut t, a).unwrap();
                game.check_invariants(&t).unwrap();
            }
        }
    }

    #[test]
    fn only_the_offender_keeps_whether_its_wild_draw_four_was_legal() {
        // F-6 and `docs/rules.md`, Information: whether a Wild Draw Four was legal
        // depends on the offender's hand before the play, which no other
        // seat saw.
        let game = Game::new(Rules::preset("classic").unwrap(), 3).unwrap();
        let mut found = 0;
        for seed in 0..400 {
            let mut s = game.new_state(seed);
            // Random play (a Wild Draw Four is the lowest legal id rarely).
            let mut rng = crate::rng::ChanceRng::new(seed, 7);
            while !s.is_round_over() && s.phase != crate::state::Phase::Challenge {
                let legal = game.legal_actions(&s);
                let a = legal[rng.below(legal.len() as u32) as usize];
                game.apply(&mut s, a).unwrap();
            }
            if s.is_round_over() {
                continue;
            }
            found += 1;
            let offender = s.offender as usize;
            for observer in 0..3 {
                let drawn: std::collections::HashSet<bool> = (0..32)
                    .map(|k| game.resample_hidden(&s, observer, k).unwrap().wd4_legal)
                    .collect();
                if observer == offender {
                    assert_eq!(
                        drawn,
                        [s.wd4_legal].into(),
                        "seed {seed}: the offender knows"
                    );
                } else {
                    assert_eq!(drawn.len(), 2, "seed {seed}, seat {observer}: a coin");
                }
            }
        }
        assert!(found >= 10, "{found} challenges reached");
    }

    #[test]
    fn another_tables_state_or_an_observer_off_the_table_is_an_error() {
        use crate::EncodeError;
        let four = Game::new(Rules::preset("attack-2010").unwrap(), 4).unwrap();
        let two = Game::new(Rules::preset("attack-2010").unwrap(), 2).unwrap();
        let s = four.new_state(3);
        // A 2-player game used to keep seats 2 and 3's real hands.
        assert_eq!(
            two.resample_hidden(&s, 0, 99),
            Err(EncodeError::Table { state: 4, game: 2 })
        );
        // An observer off the table used to redeal every hand.
        assert_eq!(
            four.resample_hidden(&s, 4, 99),
            Err(EncodeError::Seat {
                seat: 4,
                players: 4
            })
        );
    }

    #[test]
    fn a_finished_round_keeps_its_shown_hands() {
        // After the round the hands are scored in the open (C-6): redealing
        // them broke the round's points (the invariant check refused it).
        for players in [2, 4] {
            let game = Game::new(Rules::preset("classic").unwrap(), players).unwrap();
            let mut s = game.new_state(5);
            while !s.is_round_over() {
                let a = game.legal_actions(&s)[0];
                game.apply(&mut s, a).unwrap();
            }
            let t = game.resample_hidden(&s, 0, 9).unwrap();
            game.check_invariants(&t).unwrap();
            for p in 0..players {
                assert_eq!(t.hand(p), s.hand(p));
            }
        }
    }
}
