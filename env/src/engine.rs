//! Transitions: legal actions, applying an action, dealing, chance.
//!
//! # State machine
//!
//! A turn starts in [`Phase::Play`]. Playing a card moves it to the discard
//! pile and then walks through *stages*, each a decision only when needed:
//! `UnoCall` (explicit UNO, hand now 1) → `ChooseColour` (wild) →
//! `ChooseTarget` (Trade Hands, targeted hits) → the effect is resolved. The
//! effect may open `Stack` (Mega Hit, for the victim), `Challenge` (Wild Draw
//! Four, for the victim) or `BonusPlay` (A-21, for the player), or hand the turn
//! on. Drawing with a draw pile may open `AfterDraw` (F-2). A player whose hand
//! is empty once the effect is resolved wins the round (C-5): `RoundOver`, or
//! `MatchOver` when the match is decided (C-7). All chance (deal, launcher,
//! Flash's unit, SLAP, catches) draws from the state's own generator.
//!
//! Effects are resolved from the kind's [`Effect`] (data), never from an
//! edition's name: one engine serves every edition.

use crate::action::{
    ACCEPT, ActionMask, CALL_UNO, CHALLENGE, COLOUR, DRAW, NO_UNO, NUM_ACTIONS, PASS, TARGET,
    action_name,
};
use crate::card::{Colour, Face};
use crate::error::ActionError;
use crate::events::Events;
use crate::game::{Game, Launcher, MAX_FIRE, MAX_PLAYERS, select_bit};
use crate::rng::ChanceRng;
use crate::rules::{AttackResume, Effect, MAX_PRESSES_UNTIL_FIRE, Scoring, UnoCall};
use crate::state::{LAST_COLOUR_SHIFT, NAMED_SHIFT, NONE, PRESSED_BITS, Phase, State, TAKEN_MAX};

const NO_COLOUR: u8 = 4;

impl Game {
    /// A new match: dealer drawn at random (C-2), first round dealt. Stream 0 of `seed`.
    pub fn new_state(&self, seed: u64) -> State {
        self.new_state_on_stream(seed, 0)
    }

    /// A new match on ChaCha stream `stream` of `seed` (vectorized envs use one stream each).
    pub fn new_state_on_stream(&self, seed: u64, stream: u64) -> State {
        self.new_state_with(seed, stream, &mut ())
    }

    /// [`Game::new_state_on_stream`], reporting the first deal's events (the
    /// start card and its effect, e.g. F-8's Draw Two) to `ev`.
    pub fn new_state_with<E: Events>(&self, seed: u64, stream: u64, ev: &mut E) -> State {
        let n = self.num_players() as u8;
        let mut s = State {
            hands: [0; MAX_PLAYERS],
            pile: self.all_cards,
            discard: 0,
            rng: ChanceRng::new(seed, stream),
            scores: [0; MAX_PLAYERS],
            round_points: [0; MAX_PLAYERS],
            played: [0; crate::card::NUM_FACES],
            pressed_on: [0; MAX_PLAYERS],
            since_play: [0; MAX_PLAYERS],
            uno_called: 0,
            active: (1u16 << n) - 1,
            decisions: 0,
            round: 0,
            presses_since_refill: 0,
            script_pos: 0,
            players: n,
            top: 0,
            colour: NO_COLOUR,
            current: 0,
            phase: Phase::RoundOver,
            reversed: false,
            dealer: 0,
            misses: 0,
            last_fired: 0,
            stack: 0,
            stack_origin: NONE,
            pending_face: NONE,
            pending_card: NONE,
            stage: 0,
            target: NONE,
            from: NONE,
            offender: NONE,
            wd4_legal: false,
            start: false,
            bonus: false,
            final_round: false,
            truncated: false,
            winner: NONE,
            match_winner: NONE,
        };
        s.dealer = s.rng.below(n as u32) as u8;
        Ctx {
            g: self,
            s: &mut s,
            ev,
        }
        .deal();
        s
    }

    /// Starts the next round of the match (C-2: the deal passes left).
    pub fn next_round(&self, s: &mut State) -> Result<(), ActionError> {
        self.next_round_with(s, &mut ())
    }

    /// [`Game::next_round`], reporting events.
    pub fn next_round_with<E: Events>(&self, s: &mut State, ev: &mut E) -> Result<(), ActionError> {
        if s.phase != Phase::RoundOver {
            return Err(ActionError::Illegal {
                action: "next-round".into(),
                phase: s.phase.name().into(),
                reason: "a new round starts only after a round is over and the match goes on"
                    .into(),
            });
        }
        self.check_table(s)?;
        let mut c = Ctx { g: self, s, ev };
        c.s.dealer = c.s.seat_after(c.s.dealer, false);
        c.deal();
        Ok(())
    }

    /// The legal actions as a bit mask (bit i = action i); empty when the round is over.
    ///
    /// The state must be one of this game's (this is the step's hot path,
    /// so nothing is checked here, unlike [`Game::apply`]): a state of
    /// another table size gives a meaningless mask, and one read from JSON
    /// that breaks an invariant may panic. Check a state from elsewhere with
    /// [`Game::check_invariants`] first.
    #[inline]
    pub fn legal_mask(&self, s: &State) -> ActionMask {
        let seat = s.current as usize;
        // Nearly nine decisions in ten are a normal turn: one well-predicted
        // compare for it, and the jump table (a mispredicted indirect jump
        // about one step in four) only for the others.
        if s.phase == Phase::Play {
            return self.turn_mask(s, seat);
        }
        self.legal_mask_other(s)
    }

    /// The legal actions of a normal turn: the playable cards, and drawing.
    #[inline(always)]
    fn turn_mask(&self, s: &State, seat: usize) -> ActionMask {
        self.faces_mask(self.playable(s, seat)) | 1 << DRAW
    }

    /// [`Game::legal_mask`] in the phases other than a normal turn (kept out
    /// of line, so that the compiler does not fold the normal turn back into
    /// the jump table).
    #[inline(never)]
    fn legal_mask_other(&self, s: &State) -> ActionMask {
        let seat = s.current as usize;
        match s.phase {
            Phase::Play => self.turn_mask(s, seat),
            Phase::BonusPlay => self.faces_mask(self.playable(s, seat)) | 1 << PASS,
            Phase::ChooseColour => 0b1111 << COLOUR,
            Phase::ChooseTarget => {
                // Active seats rotated so that bit k is the seat k to the left,
                // then offsets 1..n as target actions.
                let n = s.players as u32;
                let active = s.active as u32;
                let rotated = (active >> seat | active << (n - seat as u32)) & ((1 << n) - 1);
                ((rotated >> 1) as u128) << TARGET
            }
            Phase::AfterDraw => 1 << self.card_face[s.pending_card as usize] | 1 << PASS,
            Phase::Stack => self.faces_mask(s.hands[seat] & self.stackable) | 1 << DRAW,
            Phase::Challenge => 1 << CHALLENGE | 1 << ACCEPT,
            Phase::UnoCall => 1 << CALL_UNO | 1 << NO_UNO,
            Phase::RoundOver | Phase::MatchOver => 0,
        }
    }

    /// The legal action ids, ascending.
    pub fn legal_actions(&self, s: &State) -> Vec<usize> {
        crate::game::iter_bits(self.legal_mask(s)).collect()
    }

    /// Physical cards `seat` may play on the current top card (C-3, A-9, F-6).
    ///
    /// # Panics
    /// If `seat` is [`MAX_PLAYERS`] or more (unlike the
    /// state's per-seat accessors, which read such a seat as empty).
    #[inline(always)]
    pub fn playable(&self, s: &State, seat: usize) -> u128 {
        let hand = s.hands[seat];
        // Branch-free: whether the hand is one card, or holds the active
        // colour, changes from step to step.
        let colour_set = self.colour_or_none[(s.colour as usize).min(NO_COLOUR as usize)];
        let m = hand & (self.match_top[s.top as usize] | colour_set);
        // One card left; a Wild Draw Four needs no card of the active colour (F-6).
        let last = 0u128.wrapping_sub((hand & hand.wrapping_sub(1) == 0) as u128);
        let coloured = 0u128.wrapping_sub((hand & colour_set != 0) as u128);
        m & !(self.not_last & last) & !(self.restricted_enforced & coloured)
    }

    /// Applies `action` for the current player. An illegal action returns an
    /// error naming the reason and leaves the state unchanged.
    ///
    /// # Panics
    /// May panic on a state that breaks an invariant (one built by hand or
    /// read with [`State::from_json`] and not checked): check a state from
    /// elsewhere with [`Game::check_invariants`] first.
    #[inline]
    pub fn apply(&self, s: &mut State, action: usize) -> Result<(), ActionError> {
        self.apply_with(s, action, &mut ())
    }

    /// [`Game::apply`], reporting events to `ev`.
    pub fn apply_with<E: Events>(
        &self,
        s: &mut State,
        action: usize,
        ev: &mut E,
    ) -> Result<(), ActionError> {
        if action >= NUM_ACTIONS {
            return Err(ActionError::OutOfRange(action, NUM_ACTIONS));
        }
        if s.phase.is_over() {
            return Err(ActionError::RoundOver);
        }
        self.check_table(s)?;
        if self.legal_mask(s) >> action & 1 == 0 {
            return Err(self.illegal(s, action));
        }
        self.apply_checked_with(s, action, ev);
        Ok(())
    }

    /// Applies an action already known to be legal (taken from [`Game::legal_mask`]).
    #[inline]
    pub(crate) fn apply_checked_with<E: Events>(&self, s: &mut State, action: usize, ev: &mut E) {
        let mut c = Ctx { g: self, s, ev };
        c.act(action);
        c.count_decision();
    }

    /// F-3: the current player's time ran out (an input event from whoever
    /// drives the game): they take `timeout_draw` cards and the turn passes.
    /// It counts as the player's decision towards `max_decisions`.
    /// \[reading\] In every edition, as the timer options are (docs/env.md);
    /// with a launcher every one of the `timeout_draw` presses is made.
    pub fn timeout<E: Events>(&self, s: &mut State, ev: &mut E) -> Result<(), ActionError> {
        if s.phase != Phase::Play {
            return Err(ActionError::Illegal {
                action: "timeout".into(),
                phase: s.phase.name().into(),
                reason: "a time-out ends a normal turn only".into(),
            });
        }
        self.check_table(s)?;
        let mut c = Ctx { g: self, s, ev };
        let seat = c.s.current;
        c.ev.timeout(seat as usize);
        c.take(seat, c.g.rules().options.timeout_draw, false);
        let next = c.next(seat);
        c.begin_turn(next);
        c.count_decision();
        Ok(())
    }

    /// A cheap guard for the public entry points, each of which acts in a
    /// match that goes on: the state is of this table ([`Game::table_error`]),
    /// its seat to act is one of the table's, and at least two seats are still
    /// in the match (C-7; with none, a round would be dealt to no one and
    /// Flash's unit, F-1, would pick a seat from an empty set).
    fn check_table(&self, s: &State) -> Result<(), ActionError> {
        if let Some(e) = self.table_error(s) {
            return Err(ActionError::InvalidState(e));
        }
        if s.current as usize >= self.num_players() {
            return Err(ActionError::InvalidState(format!(
                "seat {} to act is not a seat",
                s.current
            )));
        }
        if s.num_active() < 2 {
            return Err(ActionError::InvalidState(format!(
                "{} seats in the match: no round to deal or play",
                s.num_active()
            )));
        }
        Ok(())
    }

    fn illegal(&self, s: &State, action: usize) -> ActionError {
        let seat = s.current as usize;
        let reason = match (s.phase, action) {
            (Phase::Play | Phase::BonusPlay, a) if a < DRAW => {
                let face = Face(a as u8);
                let held = s.hands[seat] & self.face_cards[a];
                if held == 0 {
                    format!("you hold no {face}")
                } else if s.hands[seat].is_power_of_two() && held & self.not_last != 0 {
                    format!("{face} cannot be your last card (A-9)")
                } else if held & self.restricted != 0 {
                    format!("{face} needs a hand with no card of the active colour (F-6)")
                } else {
                    let top = self.face_of(s.top as usize);
                    let colour = s.active_colour().map_or("none", |c| c.name());
                    format!("{face} does not match {top} (active colour {colour}) (C-3)")
                }
            }
            (Phase::Stack, a) if a < DRAW => {
                "only a Hit card you hold can be stacked (A-14)".into()
            }
            (Phase::AfterDraw, a) if a < DRAW => {
                "only the card just drawn may be played (F-2)".into()
            }
            (Phase::ChooseTarget, a) if (TARGET..CHALLENGE).contains(&a) => {
                "that seat is empty, eliminated or your own".into()
            }
            (p, _) => {
                let legal: Vec<String> = crate::game::iter_bits(self.legal_mask(s))
                    .map(action_name)
                    .collect();
                format!("phase {} allows only: {}", p.name(), legal.join(", "))
            }
        };
        ActionError::Illegal {
            action: action_name(action),
            phase: s.phase.name().into(),
            reason,
        }
    }
}

/// A game, a state and an event sink: the engine's working set for one step.
struct Ctx<'a, E: Events> {
    g: &'a Game,
    s: &'a mut State,
    ev: &'a mut E,
}

impl<E: Events> Ctx<'_, E> {
    fn act(&mut self, action: usize) {
        let seat = self.s.current;
        // A normal turn first, as in `legal_mask`.
        if self.s.phase == Phase::Play {
            return self.turn(seat, action);
        }
        self.act_other(action);
    }

    /// A normal turn's action: play a card, or draw.
    #[inline(always)]
    fn turn(&mut self, seat: u8, action: usize) {
        if action == DRAW {
            self.voluntary_draw(seat);
        } else {
            self.play(seat, action as u8, NONE);
        }
    }

    /// [`Ctx::act`] in the phases other than a normal turn (out of line, as
    /// [`Game::legal_mask`]'s).
    #[inline(never)]
    fn act_other(&mut self, action: usize) {
        let seat = self.s.current;
        match self.s.phase {
            Phase::Play => self.turn(seat, action),
            Phase::BonusPlay => {
                if action == PASS {
                    self.s.bonus = false;
                    let next = self.next(self.s.from);
                    self.begin_turn(next);
                } else {
                    self.play(seat, action as u8, NONE);
                }
            }
            Phase::AfterDraw => {
                if action == PASS {
                    let next = self.next(seat);
                    self.begin_turn(next);
                } else {
                    self.play(seat, action as u8, self.s.pending_card);
                }
            }
            Phase::ChooseColour => {
                let c = (action - COLOUR) as u8;
                self.s.colour = c;
                let named = &mut self.s.pressed_on[seat as usize];
                *named = (*named & PRESSED_BITS) | (c + 1) << NAMED_SHIFT;
                self.ev.colour(seat as usize, Colour::ALL[c as usize]);
                if self.s.start {
                    self.start_after_colour();
                } else {
                    self.s.stage = 2;
                    self.continue_play();
                }
            }
            Phase::ChooseTarget => {
                let t = crate::state::seat_plus(seat, (action - TARGET + 1) as u8, self.s.players);
                self.s.target = t;
                self.ev.target(seat as usize, t as usize);
                if self.s.start {
                    self.start_after_target();
                } else {
                    self.s.stage = 3;
                    self.continue_play();
                }
            }
            Phase::Stack => {
                if action == DRAW {
                    self.press_stack(seat);
                } else {
                    self.play(seat, action as u8, NONE);
                }
            }
            Phase::Challenge => self.resolve_challenge(seat, action == CHALLENGE),
            Phase::UnoCall => {
                if action == CALL_UNO {
                    self.s.uno_called |= 1 << seat;
                    self.ev.uno(seat as usize, true, false);
                } else {
                    let drawn = self
                        .s
                        .rng
                        .chance(self.g.rules().options.catch_probability as f32);
                    // An interactive game may impose the real catch (C-4).
                    let caught = self.ev.uno_caught(seat as usize, drawn);
                    self.ev.uno(seat as usize, false, caught);
                    let trade = self.g.effect[Face(self.s.pending_face).kind().index()]
                        == Effect::TradeHands;
                    if caught && trade {
                        // C-4 + A-9 [reading]: the penalty is pressed after the
                        // swap, into the hand the offender ends up holding
                        // (`offender` marks it until then).
                        self.s.offender = seat;
                    } else if caught {
                        // C-4 + A-8 [reading]: the penalty is not a Hit card, so
                        // `stop_hits_on_fire` does not cut it short.
                        self.take(seat, self.g.rules().options.uno_penalty, false);
                    }
                }
                self.s.stage = 1;
                self.continue_play();
            }
            Phase::RoundOver | Phase::MatchOver => {}
        }
    }

    // ----- seating -------------------------------------------------------

    /// C-8: with two players (and a direction of play) Reverse acts as Skip.
    fn reverse_is_skip(&self) -> bool {
        self.s.num_active() == 2 && !self.g.random_unit
    }

    /// Counts one decision; a round that reaches `max_decisions` is cut short.
    #[inline]
    fn count_decision(&mut self) {
        self.s.decisions = self.s.decisions.saturating_add(1);
        if !self.s.phase.is_over() && self.s.decisions >= self.g.rules().options.max_decisions {
            self.truncate();
        }
    }

    /// Who plays after `seat`: the next seat in the direction of play, or
    /// Flash's unit's uniform pick among all active players (F-1).
    #[inline(always)]
    fn next(&mut self, seat: u8) -> u8 {
        if self.g.random_unit {
            self.next_random()
        } else {
            self.s.seat_after(seat, self.s.reversed)
        }
    }

    /// [`Ctx::next`] under Flash's random turn unit (F-1), out of line so
    /// that the seating path inlines into its callers.
    #[inline(never)]
    fn next_random(&mut self) -> u8 {
        // [reading] F-4, F-5, F-6, F-8 with F-1: a player who misses the
        // turn the unit gave them (Skip, Draw Two, Wild Draw Four) is
        // followed by a fresh uniform pick, which may fall on them again.
        // [reading] C-5 with F-4/F-6: a player who has gone out (their
        // last card's effect still resolving) is not among the unit's picks.
        let pool = match self.s.active & !self.out_seats() {
            0 => self.s.active,
            p => p,
        };
        let k = self.s.rng.below(pool.count_ones());
        select_bit(pool as u128, k) as u8
    }

    /// Active seats holding no cards: a player who has just gone out, while
    /// their last card's effect resolves (C-5).
    fn out_seats(&self) -> u16 {
        let mut out = 0u16;
        for (p, &h) in self.s.hands[..self.s.players as usize].iter().enumerate() {
            out |= ((h == 0) as u16) << p;
        }
        out & self.s.active
    }

    /// Starts `seat`'s turn (with F-3 simulated time-outs when configured).
    #[inline]
    fn begin_turn(&mut self, mut seat: u8) {
        if self.g.rules().options.timeout_chance > 0.0 {
            seat = self.timeouts(seat);
        }
        self.s.current = seat;
        self.s.phase = Phase::Play;
        self.s.pending_face = NONE;
        self.s.bonus = false;
    }

    /// F-3 simulated time-outs before `seat`'s turn; returns the seat that plays.
    #[cold]
    #[inline(never)]
    fn timeouts(&mut self, mut seat: u8) -> u8 {
        // C-5: once a player has gone out the round is over; no one times out.
        if self.out_seats() != 0 {
            return seat;
        }
        let p = self.g.rules().options.timeout_chance as f32;
        let mut guard = 0;
        while guard < 100 && self.s.rng.chance(p) {
            self.ev.timeout(seat as usize);
            self.take(seat, self.g.rules().options.timeout_draw, false);
            seat = self.next(seat);
            guard += 1;
        }
        seat
    }

    // ----- cards ---------------------------------------------------------

    /// Moves the discard pile but its top card into the launcher / draw pile (A-2, F-9).
    fn refill(&mut self) {
        let top = 1u128 << self.s.top;
        let back = self.s.discard & !top;
        if back != 0 {
            self.s.pile |= back;
            self.s.discard &= top;
            self.s.played = [0; crate::card::NUM_FACES];
            self.s.played[self.g.card_face[self.s.top as usize] as usize] = 1;
            self.s.presses_since_refill = 0;
            self.ev.refill(back.count_ones() as usize);
        }
    }

    /// One uniformly random card from the pile into `seat`'s hand (a shuffled
    /// pile, drawn lazily). Returns the card, or `NONE` when the pile is empty.
    #[inline]
    fn draw_card(&mut self, seat: u8) -> u8 {
        let s = &mut *self.s;
        if s.pile == 0 {
            return NONE;
        }
        let (card, bit) = s.rng.take(&mut s.pile);
        s.hands[seat as usize] |= bit;
        let t = &mut s.since_play[seat as usize];
        *t += (*t & TAKEN_MAX != TAKEN_MAX) as u8;
        card
    }

    /// Cards fired: 1 + the number of thresholds `cuts[0..max-1]` (a CDF as
    /// [`crate::rng::cut`]s) that a uniform draw reaches. The CDF is
    /// non-decreasing and its tail (from index `max - 1`) is 1.0, which no
    /// draw in [0, 1) reaches, so counting over the whole array gives the
    /// same number without a loop whose exit depends on the draw.
    fn sample_count(&mut self, cuts: &[u32; MAX_FIRE], max: u8) -> u8 {
        debug_assert!(
            cuts[(max as usize).saturating_sub(1)..]
                .iter()
                .all(|&c| c >= 1 << 24)
        );
        self.s.rng.reached(cuts) as u8 + 1
    }

    /// One press of the launcher (L-1..L-3); returns the cards fired. With a
    /// draw pile it is one draw (reshuffling an empty pile first, F-9).
    fn press(&mut self, seat: u8) -> u8 {
        let (fire, want) = match &self.g.launcher {
            Launcher::Pile => {
                if self.s.pile == 0 {
                    self.refill();
                }
                let got = (self.draw_card(seat) != NONE) as u8;
                return got;
            }
            Launcher::Hazard {
                hazard,
                len,
                cdf,
                max,
            } => {
                let h = hazard[(self.s.misses as usize).min(*len as usize - 1)];
                if self.s.rng.chance_by_cut(h) {
                    (true, self.sample_count(cdf, *max))
                } else {
                    (false, 0)
                }
            }
            Launcher::Pattern {
                fires,
                period,
                cdf,
                max,
            } => {
                let i = self.s.presses_since_refill % *period;
                if fires >> i & 1 == 1 {
                    (true, self.sample_count(cdf, *max))
                } else {
                    (false, 0)
                }
            }
            Launcher::DrawOne => (true, 1),
            Launcher::Scripted(v) => {
                let o = v[self.s.script_pos as usize % v.len()];
                self.s.script_pos = self.s.script_pos.wrapping_add(1);
                (o > 0, o)
            }
        };
        self.s.presses_since_refill = self.s.presses_since_refill.saturating_add(1);
        if !fire {
            self.s.misses = self.s.misses.saturating_add(1);
            self.s.last_fired = 0;
            self.ev.pressed(seat as usize, 0);
            return 0;
        }
        // [reading] L-2: a firing resets the miss counter even when nothing
        // is left to come out; a refill does not (docs/env.md).
        self.s.misses = 0;
        if want as u32 > self.s.pile.count_ones() {
            self.refill();
        }
        let k = (want as u32).min(self.s.pile.count_ones()) as u8;
        for _ in 0..k {
            self.draw_card(seat);
        }
        self.s.last_fired = k;
        self.ev.pressed(seat as usize, k as usize);
        k
    }

    /// `seat` takes `n`: n presses of the launcher, or n cards from the pile.
    /// With `stop_on_fire` the presses stop at the first that fires.
    fn take(&mut self, seat: u8, n: u8, stop_on_fire: bool) -> u32 {
        let mut total = 0u32;
        if self.g.uses_pile() {
            for _ in 0..n {
                total += self.press(seat) as u32;
            }
            self.ev.drew(seat as usize, total as usize);
        } else {
            for _ in 0..n {
                let k = self.press(seat);
                total += k as u32;
                if k > 0 && stop_on_fire {
                    break;
                }
            }
        }
        self.uno_flag_needs_one_card(seat);
        total
    }

    /// C-4: a called UNO stands while the seat holds exactly one card; any
    /// other hand size clears it (after a play or a Hit). A seat's own press
    /// or draw clears it outright: see `voluntary_draw`.
    #[inline]
    fn uno_flag_needs_one_card(&mut self, seat: u8) {
        if !self.s.hands[seat as usize].is_power_of_two() {
            self.s.uno_called &= !(1 << seat);
        }
    }

    /// L-3: presses until the launcher fires (or nothing is left to fire).
    fn press_until_fire(&mut self, seat: u8) {
        if self.g.uses_pile() {
            self.take(seat, 1, false);
            return;
        }
        for _ in 0..MAX_PRESSES_UNTIL_FIRE {
            self.press(seat);
            // A press that fires resets the miss counter; stop there, or when nothing is left.
            if self.s.misses == 0 || (self.s.pile == 0 && self.s.discard.count_ones() <= 1) {
                break;
            }
        }
        self.s.uno_called &= !(1 << seat);
    }

    fn hit_victim(&mut self, victim: u8, n: u8) {
        self.ev.hit(victim as usize, n as usize);
        // [reading] A-8 says the victim "may" forfeit the remaining hits; the
        // engine always does (no decision), as a player always would.
        let stop = self.g.rules().options.stop_hits_on_fire;
        self.take(victim, n, stop);
    }

    // ----- a turn ----------------------------------------------------------

    fn voluntary_draw(&mut self, seat: u8) {
        if let Some(c) = self.s.active_colour() {
            self.s.pressed_on[seat as usize] |= 1 << c.index();
        }
        if self.g.uses_pile() {
            if self.s.pile == 0 {
                self.refill();
            }
            let card = self.draw_card(seat);
            self.ev.drew(seat as usize, (card != NONE) as usize);
            // C-4 [reading]: a seat's own press or draw ends its UNO call even
            // when no card comes (so does pressing until a Hit-Fire fires);
            // the shipped networks were trained on this.
            self.s.uno_called &= !(1 << seat);
            if card != NONE
                && self.g.rules().options.draw_then_play
                && self.g.playable(self.s, seat as usize) >> card & 1 == 1
            {
                self.s.pending_card = card;
                self.s.phase = Phase::AfterDraw;
                return;
            }
        } else {
            self.press(seat);
            self.s.uno_called &= !(1 << seat);
        }
        let next = self.next(seat);
        self.begin_turn(next);
    }

    /// Plays a card of `face` (the physical `card` when given) from `seat`'s hand.
    fn play(&mut self, seat: u8, face: u8, card: u8) {
        let hand = self.s.hands[seat as usize];
        let card = if card != NONE {
            card
        } else {
            (hand & self.g.face_cards[face as usize]).trailing_zeros() as u8
        };
        let bit = 1u128 << card;
        let f = Face(face);
        // F-6: a Wild Draw Four is legal only without a card of the active colour.
        if self.g.restricted & bit != 0 {
            let colour_set = if self.s.colour < NO_COLOUR {
                self.g.colour_cards[self.s.colour as usize]
            } else {
                0
            };
            self.s.wd4_legal = hand & colour_set == 0;
        }
        let mut hand = hand & !bit;
        self.s.discard |= bit;
        self.s.played[face as usize] += 1;
        self.s.top = card;
        self.s.pressed_on[seat as usize] &= !PRESSED_BITS;
        let since = &mut self.s.since_play[seat as usize];
        *since = match f.colour() {
            Some(c) => (c.index() as u8 + 1) << LAST_COLOUR_SHIFT,
            None => *since & !TAKEN_MAX,
        };
        self.ev.played(seat as usize, f);
        match f.colour() {
            Some(c) => {
                self.s.colour = c.index() as u8;
                if self.g.effect[f.kind().index()] == Effect::DiscardAll {
                    // every other card of its colour goes too, without
                    // effect. A-9 + A-5 [reading]: that includes a Trade Hands,
                    // so a Discard All can empty a hand that holds one (A-9
                    // forbids only *playing* it as the last card).
                    let extra = hand & self.g.colour_cards[c.index()];
                    hand &= !extra;
                    self.s.discard |= extra;
                    for c in crate::game::iter_bits(extra) {
                        self.s.played[self.g.card_face[c] as usize] += 1;
                    }
                    self.ev
                        .discarded_all(seat as usize, extra.count_ones() as usize);
                }
            }
            None => self.s.colour = NO_COLOUR,
        }
        self.s.hands[seat as usize] = hand;
        self.uno_flag_needs_one_card(seat);
        if let Some(n) = self.g.rules().options.refill_at_discard
            && self.s.discard.count_ones() >= n as u32
        {
            self.refill();
        }
        self.s.pending_face = face;
        self.s.stage = 0;
        self.s.target = NONE;
        self.continue_play();
    }

    /// Walks the stages of a play: UNO call, colour, target, effect.
    fn continue_play(&mut self) {
        let seat = self.s.current;
        let face = Face(self.s.pending_face);
        let effect = self.g.effect[face.kind().index()];
        if self.s.stage == 0 {
            if self.s.hands[seat as usize].is_power_of_two() {
                if self.g.rules().options.uno_call == UnoCall::Explicit {
                    self.s.phase = Phase::UnoCall;
                    return;
                }
                self.s.uno_called |= 1 << seat;
            }
            self.s.stage = 1;
        }
        if self.s.stage == 1 {
            if face.is_wild() {
                self.s.phase = Phase::ChooseColour;
                return;
            }
            self.s.stage = 2;
        }
        if self.s.stage == 2 {
            if effect.names_a_seat() {
                self.s.phase = Phase::ChooseTarget;
                return;
            }
            self.s.stage = 3;
        }
        self.resolve(seat, effect);
    }

    /// Resolves a played card's effect and hands the turn on (C-5 going out included).
    fn resolve(&mut self, seat: u8, effect: Effect) {
        let from = if self.s.bonus { self.s.from } else { seat };
        let was_bonus = self.s.bonus;
        self.s.bonus = false;
        self.s.pending_face = NONE;
        let g = self.g;
        let options = &g.rules().options;
        let bonus = options.bonus_play_after_skip && !was_bonus;
        match effect {
            Effect::None | Effect::DiscardAll => {
                let next = self.next(from);
                self.begin_turn(next);
            }
            Effect::Skip => {
                let victim = self.next(from);
                self.ev.skipped(victim as usize);
                self.after_skip(seat, victim, bonus);
            }
            Effect::Reverse => {
                if self.reverse_is_skip() {
                    // C-8: with two players Reverse acts as Skip.
                    let victim = self.next(from);
                    self.ev.skipped(victim as usize);
                    self.after_skip(seat, victim, bonus);
                } else {
                    self.s.reversed = !self.s.reversed;
                    self.ev.reversed();
                    // Play goes the other way from the player who played it,
                    // also for an A-21 bonus Reverse after a Skip (`from`, the
                    // skipped seat, would hand the turn back to the player).
                    if bonus {
                        self.s.from = seat;
                        self.s.bonus = true;
                        self.s.phase = Phase::BonusPlay;
                        self.s.current = seat;
                    } else {
                        let next = self.next(seat);
                        self.begin_turn(next);
                    }
                }
            }
            Effect::Hit { n, targeted } => {
                let victim = if targeted {
                    self.s.target
                } else {
                    self.next(from)
                };
                let kind_rule = self.g.restricted >> self.s.top & 1 == 1;
                if kind_rule && options.wd4_bluffing && victim != seat {
                    self.s.offender = seat;
                    self.s.current = victim;
                    self.s.phase = Phase::Challenge;
                    return;
                }
                if options.mega_hit && self.g.stackable >> self.s.top & 1 == 1 {
                    self.stack_add(seat, from, n, victim);
                    // C-5, A-16: going out on a Hit card (the stack pressed first).
                    self.check_out(seat);
                    return;
                }
                self.hit_victim(victim, n);
                let resume = self.hit_resume(from, victim);
                self.begin_turn(resume);
            }
            Effect::HitUntilFire => {
                let victim = self.next(from);
                self.ev.hit(victim as usize, 0);
                self.press_until_fire(victim);
                let next = self.next(victim);
                self.begin_turn(next);
            }
            Effect::AllHit { n } => {
                let mut p = self.s.seat_after(seat, self.s.reversed);
                while p != seat {
                    self.hit_victim(p, n);
                    p = self.s.seat_after(p, self.s.reversed);
                }
                let next = self.next(from);
                self.begin_turn(next);
            }
            Effect::TradeHands => {
                let t = self.s.target as usize;
                self.s.hands.swap(seat as usize, t);
                // What the public knows of a hand follows it: the colours its
                // holder pressed on (it held none of them) and the cards that
                // entered it unseen. What the seat itself did (the colour it
                // named, the colour it last played) stays with the seat.
                let u = seat as usize;
                let swap_bits = |v: &mut [u8; MAX_PLAYERS], mask: u8| {
                    let (a, b) = (v[u] & mask, v[t] & mask);
                    v[u] = (v[u] & !mask) | b;
                    v[t] = (v[t] & !mask) | a;
                };
                swap_bits(&mut self.s.pressed_on, PRESSED_BITS);
                swap_bits(&mut self.s.since_play, TAKEN_MAX);
                let (a, b) = (self.s.uno_called >> seat & 1, self.s.uno_called >> t & 1);
                self.s.uno_called &= !(1 << seat | 1 << t);
                self.s.uno_called |= b << seat | a << t;
                self.ev.traded(seat as usize, t);
                if self.s.offender == seat {
                    self.s.offender = NONE;
                    self.take(seat, options.uno_penalty, false);
                }
                let next = self.next(from);
                self.begin_turn(next);
            }
            Effect::Slap { n } => {
                let others = self.s.active & !(1 << seat);
                let k = self.s.rng.below(others.count_ones());
                let drawn = select_bit(others as u128, k) as usize;
                // F-7: an interactive game may impose the real race's loser.
                let chosen = self.ev.slap_loser(others, drawn);
                let loser = if chosen < 16 && others >> chosen & 1 == 1 {
                    chosen as u8
                } else {
                    drawn as u8
                };
                self.ev.slap(loser as usize);
                self.take(loser, n, false);
                let next = self.next(from);
                self.begin_turn(next);
            }
        }
        self.check_out(seat);
    }

    /// Where play resumes once `victim` has taken the top card's hit, played
    /// from `from`: after the victim (A-3, A-17, C-8, K-1, and a hit targeted
    /// only by `targeted_draws`), or for a Wild Attack-Attack (a kind whose
    /// own effect is targeted) under `attack_resume = skip-next` the second
    /// player from the attacker.
    fn hit_resume(&mut self, from: u8, victim: u8) -> u8 {
        if self.g.attack_cards >> self.s.top & 1 == 1
            && self.g.rules().options.attack_resume == AttackResume::SkipNext
        {
            let skipped = self.next(from);
            self.next(skipped)
        } else {
            self.next(victim)
        }
    }

    fn after_skip(&mut self, seat: u8, victim: u8, bonus: bool) {
        // A-21 + C-8 [reading]: at two active seats C-8's "the same player
        // plays again" is already the one more card, so there is no separate
        // bonus play (a bonus card resolved from the skipped seat would hit
        // or skip its own player).
        if bonus && !self.reverse_is_skip() {
            // A-21 [reading]: one more card, resolved as if played from the skipped seat.
            self.s.from = victim;
            self.s.bonus = true;
            self.s.phase = Phase::BonusPlay;
            self.s.current = seat;
        } else {
            let next = self.next(victim);
            self.begin_turn(next);
        }
    }

    /// C-5: a player with no cards once their card's effect is resolved wins the round.
    #[inline]
    fn check_out(&mut self, seat: u8) {
        if self.s.hands[seat as usize] == 0
            && !self.s.phase.is_over()
            && self.s.phase != Phase::Challenge
        {
            self.end_round(seat);
        }
    }

    /// A-14 Mega Hit: add to the stack and offer it to the victim.
    /// `from` is the seat the card is resolved from: `seat`, or the skipped
    /// seat for an A-21 bonus card, as in `resolve`.
    fn stack_add(&mut self, seat: u8, from: u8, n: u8, victim: u8) {
        if self.s.stack == 0 {
            self.s.stack_origin = from;
        }
        self.s.stack = self.s.stack.saturating_add(n);
        self.ev.stacked(seat as usize, self.s.stack as usize);
        // [reading] A player who goes out on a stacked card ends the stack: the victim presses it.
        if self.s.hands[seat as usize] != 0 && self.s.hands[victim as usize] & self.g.stackable != 0
        {
            self.s.current = victim;
            self.s.phase = Phase::Stack;
        } else {
            self.press_stack(victim);
        }
    }

    /// The victim presses the whole stack; play resumes after the first hitter.
    fn press_stack(&mut self, victim: u8) {
        let total = self.s.stack;
        self.s.stack = 0;
        self.hit_victim(victim, total);
        // after a real stack play resumes after the first hitter.
        // [reading] At two players that is the first hitter's opponent even
        // when the stack went back and forth, where C-8 read alone would
        // return the turn to the last hitter (docs/env.md). A Hit
        // nobody stacked on (the total is the top card's own) resolves as
        // without Mega Hit: the victim loses the turn.
        let origin = self.s.stack_origin;
        let next = match self.g.effect[self.g.face_of(self.s.top as usize).kind().index()] {
            Effect::Hit { n, .. } if total <= n => self.hit_resume(origin, victim),
            _ => self.next(origin),
        };
        self.s.stack_origin = NONE;
        self.begin_turn(next);
    }

    /// F-6: the victim challenges a Wild Draw Four, or accepts it.
    fn resolve_challenge(&mut self, victim: u8, challenge: bool) {
        let offender = self.s.offender;
        let n = match self.g.effect[self.g.face_of(self.s.top as usize).kind().index()] {
            Effect::Hit { n, .. } => n,
            _ => 4,
        };
        self.s.offender = NONE;
        if challenge {
            let bluff = !self.s.wd4_legal;
            // F-6: the offender shows their hand (to the challenger; the
            // observation does not carry it, see docs/env.md).
            let mut buf = [Face(0); 128];
            let shown = self.s.hand_faces_in(self.g, offender as usize, &mut buf);
            self.ev
                .challenge(victim as usize, offender as usize, bluff, shown);
            if bluff {
                // The offender draws instead; [reading] the challenger then plays their turn.
                self.take(offender, n, false);
                self.begin_turn(victim);
            } else {
                self.take(victim, self.g.rules().options.challenge_penalty, false);
                let next = self.next(victim);
                self.begin_turn(next);
            }
        } else {
            self.ev.hit(victim as usize, n as usize);
            self.take(victim, n, false);
            let next = self.next(victim);
            self.begin_turn(next);
        }
        self.check_out(offender);
    }

    // ----- rounds ------------------------------------------------------------

    /// C-2: shuffle, deal, turn the start card and apply it (A-7, F-8, K-3).
    fn deal(&mut self) {
        let final_round =
            self.g.rules().options.scoring == Scoring::Challenge && self.s.num_active() == 2;
        let s = &mut *self.s;
        s.hands = [0; MAX_PLAYERS];
        s.pile = self.g.all_cards;
        s.discard = 0;
        s.round = s.round.saturating_add(1);
        s.clear_round(final_round);
        let hand = self.g.rules().options.hand_size;
        let mut p = self.s.dealer;
        for _ in 0..self.s.num_active() {
            p = self.s.seat_after(p, false);
            for _ in 0..hand {
                self.draw_card(p);
            }
        }
        // Turn the start card; some kinds go back and another is turned.
        let card = loop {
            let k = self.s.rng.below(self.s.pile.count_ones());
            let c = select_bit(self.s.pile, k) as u8;
            if self.g.redraw >> c & 1 == 0 {
                break c;
            }
        };
        self.s.pile &= !(1u128 << card);
        self.s.discard = 1u128 << card;
        self.s.top = card;
        self.s.played = [0; crate::card::NUM_FACES];
        self.s.played[self.g.card_face[card as usize] as usize] = 1;
        let face = self.g.face_of(card as usize);
        self.ev.start_card(face);
        self.s.colour = face.colour().map_or(NO_COLOUR, |c| c.index() as u8);
        self.apply_start(face);
    }

    /// F-8, K-3: the start card's effect.
    fn apply_start(&mut self, face: Face) {
        let dealer = self.s.dealer;
        let left = self.next(dealer);
        let wild = face.is_wild();
        let effect = self.g.effect[face.kind().index()];
        let begin = match effect {
            Effect::None | Effect::DiscardAll | Effect::TradeHands | Effect::Slap { .. } => left,
            Effect::Skip => {
                self.ev.skipped(left as usize);
                self.next(left)
            }
            Effect::Reverse => {
                if self.reverse_is_skip() {
                    self.ev.skipped(left as usize);
                    self.next(left)
                } else {
                    self.s.reversed = true;
                    self.ev.reversed();
                    dealer
                }
            }
            Effect::Hit { targeted: true, .. } if wild => {
                // the player left of the dealer names the colour and launches the attack.
                // [reading] "may launch": the attack is always launched (a target
                // must be chosen); attack-2010 has no start rule of its own for
                // this card, so it follows A-17 too (no Mega Hit stacking at the start).
                self.s.start = true;
                self.s.current = left;
                self.s.phase = Phase::ChooseColour;
                return;
            }
            Effect::Hit { n, .. } => {
                self.hit_victim(left, n);
                self.next(left)
            }
            Effect::HitUntilFire => {
                self.ev.hit(left as usize, 0);
                self.press_until_fire(left);
                self.next(left)
            }
            Effect::AllHit { n } => {
                let mut p = left;
                while p != dealer {
                    self.hit_victim(p, n);
                    p = self.s.seat_after(p, false);
                }
                left
            }
        };
        if wild {
            // The player who begins names the colour first ([reading] for Hit-Fire and Hit 4: ).
            self.s.start = true;
            self.s.current = begin;
            self.s.phase = Phase::ChooseColour;
        } else {
            self.begin_turn(begin);
        }
    }

    fn start_after_colour(&mut self) {
        let face = self.g.face_of(self.s.top as usize);
        if matches!(
            self.g.effect[face.kind().index()],
            Effect::Hit { targeted: true, .. }
        ) {
            self.s.phase = Phase::ChooseTarget;
        } else {
            self.s.start = false;
            let seat = self.s.current;
            self.begin_turn(seat);
        }
    }

    fn start_after_target(&mut self) {
        let face = self.g.face_of(self.s.top as usize);
        let n = match self.g.effect[face.kind().index()] {
            Effect::Hit { n, .. } => n,
            _ => 2,
        };
        self.s.start = false;
        let target = self.s.target;
        self.hit_victim(target, n);
        // play proceeds to the second player (the one after the attacker).
        // A-17 + C-8 [reading]: at two players that is the dealer, who was just
        // attacked; C-8's "play returns to the player who played it" is read
        // as applying to a card played in a turn, not to the start card.
        let next = self.next(self.s.current);
        self.begin_turn(next);
    }

    /// C-5..C-7: score the round, update the match.
    fn end_round(&mut self, winner: u8) {
        let n = self.s.players as usize;
        let g = self.g;
        let opts = &g.rules().options;
        let mut points = 0u32;
        for p in 0..n {
            if p != winner as usize {
                let pts = g.points(self.s.hands[p]);
                points += pts;
                if opts.scoring != Scoring::Winner && self.s.active >> p & 1 == 1 {
                    self.s.round_points[p] = pts.min(u16::MAX as u32) as u16;
                    self.s.scores[p] = self.s.scores[p].saturating_add(pts);
                }
            }
        }
        self.s.winner = winner;
        self.s.pending_face = NONE;
        self.s.stack = 0;
        self.ev.round_over(Some(winner as usize), points);
        let target = opts.target_score;
        let over = match opts.scoring {
            Scoring::Winner => {
                self.s.round_points[winner as usize] = points.min(u16::MAX as u32) as u16;
                self.s.scores[winner as usize] =
                    self.s.scores[winner as usize].saturating_add(points);
                (self.s.scores[winner as usize] >= target).then_some(winner)
            }
            Scoring::Penalty => {
                let reached = (0..n).any(|p| self.s.scores[p] >= target);
                reached.then(|| {
                    (0..n)
                        .min_by_key(|&p| (self.s.scores[p], p))
                        .map_or(winner, |p| p as u8)
                })
            }
            Scoring::Challenge => {
                for p in 0..n {
                    if self.s.scores[p] >= target {
                        self.s.active &= !(1 << p);
                    }
                }
                if self.s.final_round || self.s.num_active() == 1 {
                    Some(winner)
                } else {
                    None
                }
            }
        };
        match over {
            Some(w) => {
                self.s.match_winner = w;
                self.s.phase = Phase::MatchOver;
            }
            None => self.s.phase = Phase::RoundOver,
        }
    }

    /// Cuts the round short at the decision cap (truncation: no winner, no points).
    fn truncate(&mut self) {
        self.s.truncated = true;
        self.s.winner = NONE;
        self.s.phase = Phase::RoundOver;
        self.s.pending_face = NONE;
        self.s.stack = 0;
        // A start card's choice or a bonus play cut short ends with the round.
        self.s.start = false;
        self.s.bonus = false;
        self.ev.round_over(None, 0);
    }
}
