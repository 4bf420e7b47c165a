//! The strongest hand-written player: a one-ply scorer over the legal actions
//! driven by a documented parameter set ([`HeuristicParams`]).
//!
//! It reads only public facts through [`PublicView`] plus its own memory of
//! what it saw at its previous decision (used to judge Wild Draw Four bluffs).
//! Every legal card play gets a score from: cards it leaves that can follow
//! (colour control), points it dumps (weighted up when an opponent is close to
//! going out), the expected cards its effect makes a victim take (launcher
//! presses are valued with the public miss counter and hazard model), turns
//! it costs the victim (weighted by how close the victim is to going out),
//! the extra turn it earns at a two-player table, and the cost of spending a
//! Wild (held for finishing and escaping). Pressing / drawing gets a fixed
//! cost plus the expected cards taken; reneging happens only when every play
//! scores below that.

use crate::agent::Agent;
use crate::view::PublicView;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use uno_env::action::{ACCEPT, CALL_UNO, CHALLENGE, COLOUR, DRAW, PASS, TARGET};
use uno_env::card::{Colour, Face, Kind, NUM_COLOURED_KINDS, NUM_COLOURS, NUM_FACES};
use uno_env::game::iter_bits;
use uno_env::rules::{LauncherModel, Supply};
use uno_env::{Effect, Game, Phase, State};

/// Tunable parameters of [`Heuristic`]. Defaults were tuned with the arena
/// (`examples/arena.rs`, 20k games per setting); every field can be overridden in a spec string,
/// e.g. `heuristic:wild_penalty=2.5,danger_cards=1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeuristicParams {
    /// An opponent with at most this many cards is "close to going out".
    pub danger_cards: usize,
    /// Value per remaining card that can follow the play (same colour or same
    /// symbol), counted up to `follow_cap`. Tuned negative: shed the short
    /// colours first and keep the long colour (re-established later with a
    /// same-number card or a Wild) for the finish.
    pub w_follow: f64,
    /// Most follow-up cards counted by `w_follow`.
    pub follow_cap: usize,
    /// Value per point dumped when nobody is close to going out.
    pub w_points: f64,
    /// Value per point dumped when an opponent is close to going out.
    pub w_points_danger: f64,
    /// Cost of spending a Wild while holding more than `wild_free_hand` other cards.
    pub wild_penalty: f64,
    /// With at most this many cards left after the play, Wilds cost nothing.
    pub wild_free_hand: usize,
    /// Value per expected card a victim takes (presses valued by the launcher model).
    pub w_hit_card: f64,
    /// Value of making a victim lose a turn.
    pub w_skip: f64,
    /// Multiplier on attack values when the victim is close to going out.
    pub danger_mult: f64,
    /// Value of keeping the turn (two-player Skip/Reverse/Hit) while holding a card to follow.
    pub w_extra_turn: f64,
    /// Value per extra card a Discard All dumps.
    pub w_shed: f64,
    /// A Discard All that dumps fewer extra cards than this is held (unless in danger or last resort).
    pub discard_all_min: usize,
    /// Cost of playing a Discard All too early (see `discard_all_min`).
    pub discard_all_hold: f64,
    /// Trade Hands only when the own hand (after the play) exceeds the target's by this many cards.
    pub trade_margin: usize,
    /// Value per card of hand-size gain from Trade Hands.
    pub w_trade: f64,
    /// Fixed cost of pressing / drawing instead of playing (a lost tempo). High = never renege.
    pub renege_cost: f64,
    /// After drawing a playable card (F-2), keep it when its play scores below this.
    pub keep_drawn_below: f64,
    /// Challenge a Wild Draw Four when the estimated chance that it was legal is below this.
    pub challenge_below: f64,
    /// Cost of bluffing a Wild Draw Four (playing it while holding the active colour).
    pub bluff_penalty: f64,
    /// Stack Mega Hits whenever possible.
    pub stack: bool,
    /// Colour choice: value per point of the colour held (prefer dumping colours with high cards).
    pub w_colour_points: f64,
    /// Colour choice: value when an opponent pressed/drew on the colour (they likely lack it).
    pub w_colour_pressed: f64,
    /// Colour choice: cost per unseen card of the colour as a fraction of all unseen cards.
    pub w_colour_unseen: f64,
}

impl Default for HeuristicParams {
    fn default() -> Self {
        HeuristicParams {
            danger_cards: 2,
            w_follow: -1.0,
            follow_cap: 4,
            w_points: 0.01,
            w_points_danger: 0.06,
            wild_penalty: 6.0,
            wild_free_hand: 2,
            w_hit_card: 0.6,
            w_skip: 0.6,
            danger_mult: 3.0,
            w_extra_turn: 1.0,
            w_shed: 1.0,
            discard_all_min: 2,
            discard_all_hold: 2.0,
            trade_margin: 2,
            w_trade: 1.0,
            renege_cost: 6.0,
            keep_drawn_below: -1.0,
            challenge_below: 0.5,
            bluff_penalty: 100.0,
            stack: true,
            w_colour_points: 0.02,
            w_colour_pressed: 1.0,
            w_colour_unseen: 1.0,
        }
    }
}

impl HeuristicParams {
    /// Checks that every number is finite (a NaN weight would make every
    /// comparison false and the choices arbitrary): [`crate::build`] refuses
    /// such parameters with an error naming one of them (the first in
    /// alphabetical order).
    pub fn check(&self) -> Result<(), crate::AgentError> {
        // serde_json writes a non-finite float as `null`.
        let value = serde_json::to_value(self).map_err(|e| crate::AgentError::BadParam {
            key: "?".into(),
            reason: e.to_string(),
        })?;
        let fields = value.as_object().into_iter().flatten();
        match fields.into_iter().find(|(_, v)| v.is_null()) {
            Some((key, _)) => Err(crate::AgentError::BadParam {
                key: key.clone(),
                reason: "must be a finite number".into(),
            }),
            None => Ok(()),
        }
    }
}

/// What the heuristic remembers from its previous decision (its own observations).
#[derive(Clone, Copy, Default)]
struct Memory {
    /// Discard pile it saw.
    discard: u128,
    /// Its hand then.
    hand: u128,
    /// The colour that was active once its action took effect.
    colour_after: Option<Colour>,
}

/// Presses whose expected cards [`SupplyModel`] keeps precomputed (every
/// attack of the presets asks for at most 4).
const TABLED_PRESSES: usize = 8;

/// Expected-cards model of the supply, built from the public rules.
#[derive(Clone, Debug)]
struct SupplyModel {
    /// Firing probability by misses (last entry repeats).
    hazard: Vec<f64>,
    /// Mean cards per firing.
    fire_mean: f64,
    /// [`SupplyModel::expected_by_misses`] for `stop` and up to
    /// [`TABLED_PRESSES`] presses, one flat table indexed by
    /// `((stop · (TABLED_PRESSES + 1)) + presses) · hazard.len() + misses`,
    /// computed once (the heuristic asks several times per decision).
    table: Vec<f64>,
    /// The rules it was built from (checked at every decision, so that an
    /// agent moved to another game never uses a stale model).
    source: (Supply, LauncherModel),
}

impl SupplyModel {
    fn new(game: &Game) -> Self {
        let rules = game.rules();
        let source = (rules.supply, rules.launcher.clone());
        if rules.supply == Supply::Pile {
            return SupplyModel {
                hazard: vec![1.0],
                fire_mean: 1.0,
                table: Vec::new(),
                source,
            };
        }
        let capped = |mean: f64, max: u8| (1.0 + mean).min(max as f64);
        let (hazard, fire_mean) = match &rules.launcher {
            LauncherModel::Hazard { hazard, cards } => {
                (hazard.clone(), capped(cards.mean, cards.max))
            }
            LauncherModel::Bernoulli { p, cards } => (vec![*p], capped(cards.mean, cards.max)),
            LauncherModel::Pattern {
                fires,
                period,
                cards,
            } => (
                vec![fires.len() as f64 / (*period).max(1) as f64],
                capped(cards.mean, cards.max),
            ),
            LauncherModel::DrawOne => (vec![1.0], 1.0),
            LauncherModel::Scripted { outcomes } => {
                let fired: Vec<f64> = outcomes
                    .iter()
                    .filter(|&&o| o > 0)
                    .map(|&o| o as f64)
                    .collect();
                let p = fired.len() as f64 / outcomes.len().max(1) as f64;
                let m = fired.iter().sum::<f64>() / fired.len().max(1) as f64;
                (vec![p], m)
            }
        };
        let mut m = SupplyModel {
            hazard,
            fire_mean,
            table: Vec::new(),
            source,
        };
        m.table = [false, true]
            .into_iter()
            .flat_map(|stop| (0..=TABLED_PRESSES).map(move |presses| (stop, presses)))
            .flat_map(|(stop, presses)| m.expected_by_misses(presses, stop))
            .collect();
        m
    }

    /// A draw pile: every draw is one card.
    fn pile(&self) -> bool {
        self.source.0 == Supply::Pile
    }

    /// True when this model was built from `game`'s supply rules.
    fn fits(&self, game: &Game) -> bool {
        let rules = game.rules();
        self.source.0 == rules.supply && self.source.1 == rules.launcher
    }

    /// Expected cards taken by `presses` presses starting at `misses` (stopping at the first firing if `stop`).
    fn expected(&self, presses: usize, misses: usize, stop: bool) -> f64 {
        if self.pile() {
            return presses as f64;
        }
        let l = self.hazard.len();
        let m = misses.min(l - 1);
        if presses <= TABLED_PRESSES {
            self.table[(stop as usize * (TABLED_PRESSES + 1) + presses) * l + m]
        } else {
            self.expected_by_misses(presses, stop)[m]
        }
    }

    /// Expected cards taken by `presses` presses from each miss state.
    fn expected_by_misses(&self, presses: usize, stop: bool) -> Vec<f64> {
        let l = self.hazard.len();
        // e[m] = expected cards of the remaining presses from miss state m.
        let mut e = vec![0.0; l];
        for _ in 0..presses {
            let mut next = vec![0.0; l];
            for (m, slot) in next.iter_mut().enumerate() {
                let h = self.hazard[m];
                let after_fire = if stop { 0.0 } else { e[0] };
                *slot = h * (self.fire_mean + after_fire) + (1.0 - h) * e[(m + 1).min(l - 1)];
            }
            e = next;
        }
        e
    }
}

/// The hand-written expert (spec `heuristic`, parameters in [`HeuristicParams`]).
pub struct Heuristic {
    /// Its parameters.
    pub params: HeuristicParams,
    rng: ChaCha8Rng,
    memory: Option<Memory>,
    /// Shared by the heuristics of one thread that play the same supply
    /// rules (one copy in the cache for a thousand agents of a batched env).
    supply: Option<Arc<SupplyModel>>,
}

impl std::fmt::Debug for Heuristic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Heuristic")
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

thread_local! {
    /// The last supply model built on this thread, handed to every
    /// heuristic that meets the same supply rules.
    static SHARED_SUPPLY: std::cell::RefCell<Option<Arc<SupplyModel>>> =
        const { std::cell::RefCell::new(None) };
}

/// The supply model for `game`: this thread's shared one when it fits, else
/// a new one (then shared).
fn supply_model(game: &Game) -> Arc<SupplyModel> {
    SHARED_SUPPLY.with(|cell| {
        let mut shared = cell.borrow_mut();
        match &*shared {
            Some(m) if m.fits(game) => Arc::clone(m),
            _ => {
                let m = Arc::new(SupplyModel::new(game));
                *shared = Some(Arc::clone(&m));
                m
            }
        }
    })
}

impl Heuristic {
    /// A heuristic with these parameters and seed (the seed only breaks exact
    /// ties). The parameters are taken as they are; [`HeuristicParams::check`]
    /// (which [`crate::build`] runs) refuses non-finite ones.
    pub fn new(params: HeuristicParams, seed: u64) -> Self {
        Heuristic {
            params,
            rng: ChaCha8Rng::seed_from_u64(seed),
            memory: None,
            supply: None,
        }
    }

    fn noise(&mut self) -> f64 {
        self.rng.random::<f64>() * 1e-6
    }
}

/// The faces of the wild kinds, as a range of face indices.
const WILD_FACES: std::ops::RangeFrom<usize> = NUM_COLOURED_KINDS * NUM_COLOURS..;

/// The coloured faces of colour `c`, in index order.
fn coloured_faces(c: Colour) -> impl Iterator<Item = Face> {
    Kind::ALL[..NUM_COLOURED_KINDS]
        .iter()
        .filter_map(move |&k| Face::coloured(k, c))
}

/// What [`Heuristic::play_score`] needs of the own hand, computed once per
/// decision rather than once per candidate play.
struct HandSummary {
    /// Cards per face.
    counts: [u8; NUM_FACES],
    /// Cards in all.
    total: usize,
    /// Coloured cards per colour.
    by_colour: [usize; NUM_COLOURS],
    /// Wild cards.
    wilds: usize,
    /// The colour [`Heuristic::best_colour`] names for this hand, once asked
    /// (the same after any wild is played: a wild has no colour).
    wild_colour: Option<Colour>,
}

impl HandSummary {
    fn new(counts: [u8; NUM_FACES]) -> Self {
        let mut by_colour = [0; NUM_COLOURS];
        for c in Colour::ALL {
            by_colour[c.index()] = coloured_faces(c).map(|g| counts[g.index()] as usize).sum();
        }
        HandSummary {
            total: counts.iter().map(|&c| c as usize).sum(),
            wilds: counts[WILD_FACES].iter().map(|&c| c as usize).sum(),
            counts,
            by_colour,
            wild_colour: None,
        }
    }
}

impl Heuristic {
    /// The colour to name when holding `counts`: the best score of cards
    /// held of it, their points, opponents who pressed / drew on it, and
    /// (a cost) its share of the unseen cards. All four colours are scored
    /// in one pass over the hand.
    fn best_colour(&self, v: &PublicView, counts: &[u8; NUM_FACES]) -> Colour {
        let p = &self.params;
        // Cards held and their points per colour (sums of whole numbers: exact in any order).
        let mut held = [0.0f64; NUM_COLOURS];
        let mut pts = [0.0f64; NUM_COLOURS];
        for (f, &n) in counts.iter().enumerate() {
            let face = Face(f as u8);
            if let (Some(c), true) = (face.colour(), n > 0) {
                held[c.index()] += n as f64;
                pts[c.index()] += n as f64 * v.game.score_of(face) as f64;
            }
        }
        let mut pressed = [0.0f64; NUM_COLOURS];
        let next = v.next_seat();
        for o in v.opponents() {
            let w = if o == next { 1.0 } else { 0.5 };
            for (c, slot) in pressed.iter_mut().enumerate() {
                if v.pressed_on(o) >> c & 1 == 1 {
                    *slot += w;
                }
            }
        }
        let unseen = v.unseen();
        let all = unseen.count_ones().max(1) as f64;
        let mut best = Colour::Red;
        let mut best_s = f64::NEG_INFINITY;
        for c in Colour::ALL {
            let i = c.index();
            let of_c = (unseen & v.game.cards_of_colour(c)).count_ones() as f64;
            let s = held[i] + p.w_colour_points * pts[i] + p.w_colour_pressed * pressed[i]
                - p.w_colour_unseen * of_c / all;
            if s > best_s {
                best_s = s;
                best = c;
            }
        }
        best
    }

    /// How much it matters to hurt `p` (more when `p` is close to going out).
    fn threat(&self, v: &PublicView, p: usize) -> f64 {
        if v.hand_len(p) <= self.params.danger_cards {
            self.params.danger_mult
        } else {
            1.0
        }
    }

    /// The opponent closest to going out (ties: nearest in the direction of play).
    fn leader(&self, v: &PublicView) -> usize {
        (1..v.players())
            .map(|k| v.seat_at(k))
            .filter(|&p| v.is_active(p))
            .min_by_key(|&p| v.hand_len(p))
            .unwrap_or(v.next_seat())
    }

    /// Value of an attack taking `cards` expected cards (and a turn if `turn`) from `victim`.
    fn hit_value(&self, v: &PublicView, victim: usize, cards: f64, turn: bool) -> f64 {
        let p = &self.params;
        let base = p.w_hit_card * cards + if turn { p.w_skip } else { 0.0 };
        if victim == v.seat {
            -base
        } else {
            base * self.threat(v, victim)
        }
    }

    /// Expected attack value when the victim is "the next player": the next
    /// seat, or Flash's unit's uniform pick among everyone (possibly oneself).
    fn next_victim_value(&self, v: &PublicView, cards: f64, turn: bool) -> f64 {
        if v.game.random_unit() {
            let n = v.num_active() as f64;
            (0..v.players())
                .filter(|&q| v.is_active(q))
                .map(|q| self.hit_value(v, q, cards, turn))
                .sum::<f64>()
                / n
        } else {
            self.hit_value(v, v.next_seat(), cards, turn)
        }
    }

    /// Scores playing face `f` from the hand `h`. The hand after the play
    /// ("the rest") is `h` less one `f` (and, for a Discard All, less every
    /// card of its colour); its sums are taken from `h`'s totals.
    fn play_score(&self, v: &PublicView, sm: &SupplyModel, h: &mut HandSummary, f: Face) -> f64 {
        let p = &self.params;
        let game = v.game;
        let kind = f.kind();
        let effect = game.effect_of(kind);
        let counts = &h.counts;
        // One `f` leaves the hand (none if, impossibly, it holds none).
        let sub = (counts[f.index()] > 0) as usize;
        let mut extra = 0usize;
        let mut pts = game.score_of(f) as f64;
        let discard_all = matches!(effect, Effect::DiscardAll) && f.colour().is_some();
        if let (true, Some(c)) = (discard_all, f.colour()) {
            for g in coloured_faces(c) {
                let n = counts[g.index()] as usize - if g == f { sub } else { 0 };
                extra += n;
                pts += n as f64 * game.score_of(g) as f64;
            }
        }
        let left = h.total - sub - extra;
        let opp_min = v.opponents().map(|o| v.hand_len(o)).min().unwrap_or(99);
        let danger = opp_min <= p.danger_cards;
        if left == 0 {
            return 1e6 + pts;
        }
        // A wild has no colour, so the colour named after any wild is the
        // one named for the whole hand: asked once per decision.
        let colour_after = match f.colour() {
            Some(c) => c,
            None => *h
                .wild_colour
                .get_or_insert_with(|| self.best_colour(v, &h.counts)),
        };
        let counts = &h.counts;
        // Cards of the rest that can follow this one (same colour, or same
        // coloured symbol).
        let mut follow = if f.is_wild() {
            h.by_colour[colour_after.index()]
        } else if discard_all {
            0
        } else {
            h.by_colour[colour_after.index()] - sub
        };
        if !f.is_wild() {
            follow += Colour::ALL
                .iter()
                .filter(|&&c| c != colour_after)
                .filter_map(|&c| Face::coloured(kind, c))
                .map(|g| counts[g.index()] as usize)
                .sum::<usize>();
        }
        let wilds_left = h.wilds - if f.is_wild() { sub } else { 0 };
        let has_follow = follow > 0 || wilds_left > 0;
        let mut s = p.w_follow * follow.min(p.follow_cap) as f64;
        s += pts
            * if danger {
                p.w_points_danger
            } else {
                p.w_points
            };
        if f.is_wild() && left > p.wild_free_hand {
            s -= p.wild_penalty;
        }
        let two = v.num_active() == 2 && !game.random_unit();
        let misses = v.misses();
        let stop = game.rules().options.stop_hits_on_fire;
        match effect {
            Effect::None => {}
            Effect::Skip => {
                s += self.next_victim_value(v, 0.0, true);
                if two && has_follow {
                    s += p.w_extra_turn;
                }
            }
            Effect::Reverse => {
                if two {
                    s += self.hit_value(v, v.next_seat(), 0.0, true);
                    if has_follow {
                        s += p.w_extra_turn;
                    }
                } else if !game.random_unit() {
                    // The previous player plays next instead of the next one.
                    s += 0.5
                        * p.w_skip
                        * (self.threat(v, v.next_seat()) - self.threat(v, v.prev_seat()));
                }
            }
            Effect::Hit { n, targeted } => {
                let cards = sm.expected(n as usize, misses, stop);
                s += if targeted {
                    self.hit_value(v, self.leader(v), cards, true)
                } else {
                    self.next_victim_value(v, cards, true)
                };
                if two && has_follow {
                    s += p.w_extra_turn;
                }
                if game
                    .rules()
                    .kinds
                    .get(&kind)
                    .is_some_and(|r| r.no_active_colour)
                {
                    let holds_active = v
                        .colour()
                        .is_some_and(|a| coloured_faces(a).any(|g| counts[g.index()] > 0));
                    if holds_active {
                        s -= p.bluff_penalty;
                    }
                }
            }
            Effect::HitUntilFire => {
                s += self.next_victim_value(v, sm.fire_mean, true);
                if two && has_follow {
                    s += p.w_extra_turn;
                }
            }
            Effect::AllHit { n } => {
                let cards = sm.expected(n as usize, misses, stop);
                for o in v.opponents() {
                    s += self.hit_value(v, o, cards, false);
                }
            }
            Effect::DiscardAll => {
                s += p.w_shed * extra as f64;
                if extra < p.discard_all_min && !danger {
                    s -= p.discard_all_hold;
                }
            }
            Effect::TradeHands => {
                let t = self.leader(v);
                let gain = left as i64 - v.hand_len(t) as i64;
                if gain >= p.trade_margin as i64 {
                    s += p.w_trade * gain as f64;
                } else {
                    s -= 10.0 + p.w_trade * (p.trade_margin as i64 - gain) as f64;
                }
            }
            Effect::Slap { n } => {
                let k = v.opponents().count().max(1) as f64;
                s += v
                    .opponents()
                    .map(|o| self.hit_value(v, o, n as f64, false))
                    .sum::<f64>()
                    / k;
            }
        }
        s
    }

    /// Score of pressing / drawing instead of playing.
    fn press_score(&self, v: &PublicView, sm: &SupplyModel) -> f64 {
        -(self.params.renege_cost + self.params.w_hit_card * sm.expected(1, v.misses(), false))
    }

    /// The best play among `plays` (a face mask) with its score.
    fn best_play(&mut self, v: &PublicView, sm: &SupplyModel, plays: u128) -> Option<(usize, f64)> {
        let mut h = HandSummary::new(v.own_counts());
        let mut best: Option<(usize, f64)> = None;
        for f in iter_bits(plays) {
            let s = self.play_score(v, sm, &mut h, Face(f as u8)) + self.noise();
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((f, s));
            }
        }
        best
    }

    /// Estimated chance that the Wild Draw Four just played at us was legal.
    fn wd4_legal_chance(&self, v: &PublicView, offender: Option<usize>) -> f64 {
        let game = v.game;
        let top = 1u128 << v.top_card();
        let prev_colour = self.memory.and_then(|m| {
            if v.discard() & m.discard != m.discard {
                return None; // the pile was reloaded since: unknown
            }
            let others = v.discard() & !m.discard & !m.hand & !top;
            let mut colours = 0u8;
            for c in iter_bits(others) {
                match game.face_of(c).colour() {
                    Some(col) => colours |= 1 << col.index(),
                    None => return None,
                }
            }
            match colours.count_ones() {
                0 => m.colour_after,
                1 => Colour::from_index(colours.trailing_zeros() as usize),
                _ => None,
            }
        });
        let h = offender.map_or_else(
            || {
                let opps: Vec<usize> = v.opponents().map(|o| v.hand_len(o)).collect();
                opps.iter().sum::<usize>() / opps.len().max(1)
            },
            |o| v.hand_len(o),
        );
        let unseen = v.unseen();
        let u = unseen.count_ones() as f64;
        let p_none = |c: Colour| {
            let uc = iter_bits(unseen)
                .filter(|&i| game.face_of(i).colour() == Some(c))
                .count() as f64;
            let mut p = 1.0;
            for i in 0..h {
                let i = i as f64;
                p *= ((u - uc - i) / (u - i)).max(0.0);
            }
            p
        };
        match prev_colour {
            Some(c) => p_none(c),
            None => Colour::ALL.iter().map(|&c| p_none(c)).sum::<f64>() / 4.0,
        }
    }

    /// [`Heuristic::decide_with`] and the game's supply model, built once
    /// per game (again when the agent meets other supply rules).
    fn decide(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        let sm = match self.supply.take() {
            Some(m) if m.fits(game) => m,
            _ => supply_model(game),
        };
        let a = self.decide_with(game, state, seat, &sm);
        self.supply = Some(sm);
        a
    }

    fn decide_with(&mut self, game: &Game, state: &State, seat: usize, sm: &SupplyModel) -> usize {
        let v = PublicView::new(game, state, seat);
        let mask = v.legal_mask();
        if mask == 0 {
            return DRAW;
        }
        let plays = mask & ((1u128 << DRAW) - 1);
        match v.phase() {
            Phase::Play => match self.best_play(&v, sm, plays) {
                Some((f, s)) if s >= self.press_score(&v, sm) => f,
                _ => DRAW,
            },
            Phase::BonusPlay | Phase::AfterDraw => match self.best_play(&v, sm, plays) {
                Some((f, s)) if s >= self.params.keep_drawn_below => f,
                _ => PASS,
            },
            Phase::Stack => {
                if !self.params.stack || plays == 0 {
                    return DRAW;
                }
                // Prefer coloured Hit cards (keep wilds), then the highest-scoring.
                iter_bits(plays)
                    .max_by_key(|&f| {
                        let face = Face(f as u8);
                        (!face.is_wild(), game.score_of(face), std::cmp::Reverse(f))
                    })
                    .unwrap_or(DRAW)
            }
            Phase::ChooseColour => {
                let counts = v.own_counts();
                COLOUR + self.best_colour(&v, &counts).index()
            }
            Phase::ChooseTarget => {
                let n = v.players();
                let trade = v
                    .pending_face()
                    .is_some_and(|f| f.kind() == Kind::TradeHands);
                let _ = trade; // both Trade Hands and attacks go for the opponent with the fewest cards
                (1..n)
                    .filter(|&o| mask >> (TARGET + o - 1) & 1 == 1)
                    .min_by_key(|&o| {
                        (
                            v.hand_len((seat + o) % n),
                            std::cmp::Reverse(v.scores()[(seat + o) % n]),
                            o,
                        )
                    })
                    .map_or(mask.trailing_zeros() as usize, |o| TARGET + o - 1)
            }
            Phase::Challenge => {
                let offender = last_player_guess(&v);
                if self.wd4_legal_chance(&v, offender) < self.params.challenge_below {
                    CHALLENGE
                } else {
                    ACCEPT
                }
            }
            Phase::UnoCall => CALL_UNO,
            Phase::RoundOver | Phase::MatchOver => DRAW,
        }
    }
}

/// Who most likely played the Wild Draw Four: the previous seat at a round
/// table; with Flash's unit, unknown (the average hand size is used then).
fn last_player_guess(v: &PublicView) -> Option<usize> {
    if v.game.random_unit() {
        None
    } else {
        Some(v.prev_seat())
    }
}

impl Heuristic {
    /// Remembers what was seen when `seat` took `a`, and the active colour
    /// once `a` takes effect (read at a later Wild Draw Four challenge).
    fn remember(&mut self, state: &State, seat: usize, a: usize) {
        let colour_after = if a < DRAW {
            Face(a as u8).colour().or(state.active_colour())
        } else if (COLOUR..COLOUR + 4).contains(&a) {
            Colour::from_index(a - COLOUR)
        } else {
            state.active_colour()
        };
        self.memory = Some(Memory {
            discard: state.discard(),
            hand: state.hand(seat),
            colour_after,
        });
    }
}

impl Agent for Heuristic {
    fn name(&self) -> String {
        if self.params == HeuristicParams::default() {
            "heuristic".into()
        } else {
            crate::spec::AgentSpec::Heuristic(self.params.clone()).to_string()
        }
    }

    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        let a = self.decide(game, state, seat);
        self.remember(state, seat, a);
        a
    }

    fn overruled(&mut self, _game: &Game, state: &State, seat: usize, action: usize) {
        self.remember(state, seat, action);
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.memory = None;
        // The supply model stays: it is checked against the game at every
        // decision, and rebuilding it for every round cost more than the
        // round's decisions.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overruled_choice_is_remembered_as_the_move_made() {
        // `search` may play another action than its heuristic base chose;
        // the base's memory (the colour after its move, read at a later
        // Wild Draw Four challenge) must follow the move made.
        let game = Game::new(uno_env::Rules::preset("classic").unwrap(), 2).unwrap();
        for seed in 0..50 {
            let s = game.new_state(seed);
            let seat = s.current_player().unwrap();
            let mut h = Heuristic::new(HeuristicParams::default(), 1);
            let chosen = h.act(&game, &s, seat);
            let other = game.legal_actions(&s).into_iter().find(|&a| {
                a < DRAW
                    && Face(a as u8).colour().is_some()
                    && Face(a as u8).colour() != Face(chosen as u8).colour()
            });
            let Some(other) = other.filter(|_| chosen < DRAW) else {
                continue;
            };
            h.overruled(&game, &s, seat, other);
            assert_eq!(
                h.memory.as_ref().unwrap().colour_after,
                Face(other as u8).colour()
            );
            return;
        }
        panic!("no deal offered two coloured plays of different colours");
    }

    #[test]
    fn face_shortcuts_match_the_face_table() {
        for c in Colour::ALL {
            let fast: Vec<Face> = coloured_faces(c).collect();
            let slow: Vec<Face> = Face::all().filter(|g| g.colour() == Some(c)).collect();
            assert_eq!(fast, slow, "{c:?}");
        }
        let wild: Vec<usize> = Face::all()
            .filter(|g| g.is_wild())
            .map(Face::index)
            .collect();
        assert_eq!(wild, (WILD_FACES.start..NUM_FACES).collect::<Vec<_>>());
    }

    #[test]
    fn the_supply_model_follows_the_game_at_the_same_address() {
        // One agent, two games in the same place in memory (Python's
        // `Agent.act` across games can do this): the model must be rebuilt.
        let game = |preset: &str| Game::new(uno_env::Rules::preset(preset).unwrap(), 2).unwrap();
        let mut slot = Box::new(game("classic"));
        let mut h = Heuristic::new(HeuristicParams::default(), 0);
        let decide = |h: &mut Heuristic, g: &Game| {
            let s = g.new_state(1);
            let p = s.current_player().unwrap();
            h.act(g, &s, p);
            h.supply.as_ref().map(|m| m.pile())
        };
        assert_eq!(decide(&mut h, &slot), Some(true));
        *slot = game("attack-2010");
        assert_eq!(decide(&mut h, &slot), Some(false));
        assert_ne!(h.supply.as_ref().unwrap().hazard, vec![0.35]);
        let bernoulli = "preset = \"attack-2010\"\n[launcher]\nmodel = \"bernoulli\"\np = 0.35\n";
        *slot = Game::new(uno_env::Rules::from_toml_str(bernoulli).unwrap(), 2).unwrap();
        decide(&mut h, &slot);
        assert_eq!(
            h.supply.as_ref().unwrap().hazard,
            vec![0.35],
            "the new launcher"
        );
    }

    #[test]
    fn tabled_supply_expectations_equal_the_recursion() {
        // Every preset's supply model: the precomputed table gives the same
        // numbers, to the bit, as computing them on demand.
        for preset in [
            "attack-1999",
            "attack-2010",
            "attack-modern",
            "flash",
            "classic",
        ] {
            let game = Game::new(uno_env::Rules::preset(preset).unwrap(), 4).unwrap();
            let sm = SupplyModel::new(&game);
            if sm.pile() {
                assert_eq!(sm.expected(3, 0, false), 3.0);
                continue;
            }
            for presses in 0..=TABLED_PRESSES + 2 {
                for stop in [false, true] {
                    let e = sm.expected_by_misses(presses, stop);
                    for misses in 0..e.len() + 2 {
                        let want = e[misses.min(e.len() - 1)];
                        assert_eq!(sm.expected(presses, misses, stop).to_bits(), want.to_bits());
                    }
                }
            }
            assert!(
                sm.expected(2, 0, false) > sm.expected(1, 0, false),
                "{preset}"
            );
        }
    }
}
