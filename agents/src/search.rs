//! `search`: a determinized rollout agent (perfect-information Monte Carlo
//! over resampled deals, with the heuristic as the rollout policy) on top of
//! a base agent (`heuristic` unless `base=` names another).
//!
//! At a decision with more than one legal action it asks the base agent for
//! its choice, then draws `samples` states that its seat cannot tell from the
//! real one ([`Game::resample_hidden`]: the cards it cannot see dealt anew, a
//! fresh chance generator). On each it plays every legal action and then the
//! rest of the round with the `heuristic` at every seat. A won playout is
//! worth 1 less 10^-5 per decision it took (of two moves that always win, the
//! sooner is better), a lost one 0. Every action is tried on the same samples
//! with the same rollout seeds (common random numbers), so each sample gives
//! a *paired* difference between an action and the base's choice. The search
//! plays the action with the largest mean difference if that mean is more
//! than `z` standard errors above zero, and the base's choice otherwise: with
//! few samples it falls back to the base agent rather than to noise. (Each
//! action's samples count one tie more, so that samples which all agree, with
//! no spread, overrule the base only when there are more than `z` of them.)
//!
//! It reads no hidden information: the real state is used only through the
//! resampling, which keeps the seat's hand, the discard pile and every hand's
//! size (not what the seat learnt from its own Trade Hands or a Wild Draw Four
//! challenge: a little weaker, never cheating). It assumes every seat
//! plays like the heuristic, which is right against `heuristic` opponents and
//! an approximation against others. Cost: `samples × legal actions` playouts
//! per decision (about 15 ms of CPU per 4-player attack-2010 game at the
//! default 64 samples).
//!
//! The base's own options cannot contain a comma (`base=heuristic:danger_cards=1`
//! works; a second heuristic option would be read as a search option).

use crate::agent::{Agent, mix_seed};
use crate::error::AgentError;
use crate::heuristic::{Heuristic, HeuristicParams};
use crate::spec::AgentSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use uno_env::{Game, MAX_PLAYERS, NUM_ACTIONS, State};

/// Most resampled deals per decision a search may ask for (at the default
/// 64 a decision takes milliseconds; this many, seconds to minutes).
pub const MAX_SAMPLES: u64 = 100_000;

/// Parameters of the [`Search`] agent (spec `search:key=value,…`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchParams {
    /// Resampled deals per decision; each legal action is played out once on each.
    pub samples: u64,
    /// Standard errors by which an action's mean paired gain over the
    /// base agent's choice must exceed zero before the search plays it.
    pub z: f64,
    /// The agent whose choice the search keeps unless an action is
    /// significantly better (any spec but `search`; e.g. `checkpoint:<dir>`).
    pub base: String,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            samples: 64,
            z: 2.0,
            base: "heuristic".into(),
        }
    }
}

impl SearchParams {
    /// Checks every parameter (a margin `z`, 1 to [`MAX_SAMPLES`] samples, a
    /// base that parses and is not itself a search) and returns the base's
    /// spec: a spec that parses is one that builds, as far as its own values go.
    pub fn check(&self) -> Result<AgentSpec, AgentError> {
        if !(self.z >= 0.0 && self.z.is_finite()) {
            return Err(AgentError::BadParam {
                key: "z".into(),
                reason: format!(
                    "{} is not a margin (a finite number of standard errors >= 0)",
                    self.z
                ),
            });
        }
        if self.samples == 0 || self.samples > MAX_SAMPLES {
            return Err(AgentError::BadParam {
                key: "samples".into(),
                reason: format!(
                    "{} is not 1 to {MAX_SAMPLES} deals per decision (each costs a playout per legal action; \
                     with none, search would only ever play its base agent)",
                    self.samples
                ),
            });
        }
        let spec = crate::spec::parse_spec(&self.base)?;
        if matches!(spec, AgentSpec::Search(_)) {
            return Err(AgentError::BadParam {
                key: "base".into(),
                reason: "the base of a search cannot be a search".into(),
            });
        }
        Ok(spec)
    }
}

/// The determinized rollout agent (see the module docs).
pub struct Search {
    /// Its parameters, checked by [`Search::new`] (read them with
    /// [`Search::params`]; the base is built from them once).
    params: SearchParams,
    rng: ChaCha8Rng,
    /// The base agent: its choice stands unless the search finds better.
    me: Box<dyn Agent + Send>,
    /// The rollout policy, one per seat.
    rollout: Vec<Heuristic>,
}

impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("params", &self.params)
            .field("base", &self.me.name())
            .finish_non_exhaustive()
    }
}

impl Search {
    /// Its parameters.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// A search agent with these parameters and seed; fails when a parameter
    /// is out of range or the base agent cannot be built (or is itself a search).
    pub fn new(params: SearchParams, seed: u64) -> Result<Self, AgentError> {
        let spec = params.check()?;
        let me = crate::spec::build(&spec, mix_seed(seed, 1))?;
        Ok(Search {
            params,
            rng: ChaCha8Rng::seed_from_u64(seed),
            me,
            rollout: (0..MAX_PLAYERS)
                .map(|_| Heuristic::new(HeuristicParams::default(), 0))
                .collect(),
        })
    }

    /// Plays `s` to the end of the round with the heuristic at every seat.
    /// Its value for `seat`: 0 for a loss; for a win, 1 less 10^-5 per
    /// decision it took, so that of two moves that both win every sample the
    /// one that wins sooner (and risks less that the samples missed) is better.
    fn playout(&mut self, game: &Game, mut s: State, seat: usize, seed: u64) -> f64 {
        for (i, h) in self.rollout.iter_mut().enumerate() {
            h.reset(mix_seed(seed, i as u64));
        }
        let start = s.decisions();
        while let Some(p) = s.current_player() {
            let a = self.rollout[p].act(game, &s, p);
            if game.apply(&mut s, a).is_err() {
                // The heuristic only returns legal actions; stop rather than loop.
                break;
            }
        }
        if s.round_winner() == Some(seat) {
            1.0 - 1e-5 * f64::from((s.decisions() - start).min(1000))
        } else {
            0.0
        }
    }
}

impl Agent for Search {
    fn name(&self) -> String {
        AgentSpec::Search(self.params.clone()).to_string()
    }

    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        let fallback = self.me.act(game, state, seat);
        let mask = game.legal_mask(state);
        if mask.count_ones() <= 1 || self.params.samples == 0 {
            return fallback;
        }
        // Per action, the sum and the sum of squares of its paired difference
        // to the fallback's value (same deal, same rollout seeds).
        let mut sum = [0f64; NUM_ACTIONS];
        let mut sq = [0f64; NUM_ACTIONS];
        for _ in 0..self.params.samples {
            let deal = self.rng.random::<u64>();
            let rollout_seed = self.rng.random::<u64>();
            // A state or seat not of this game: no sample to search on.
            let Ok(sample) = game.resample_hidden(state, seat, deal) else {
                return fallback;
            };
            let value = |a: usize, this: &mut Self| {
                let mut s = sample.clone();
                match game.apply(&mut s, a) {
                    Ok(()) => this.playout(game, s, seat, rollout_seed),
                    Err(_) => 0.0,
                }
            };
            let base = value(fallback, self);
            for a in uno_env::game::iter_bits(mask).filter(|&a| a != fallback) {
                let d = value(a, self) - base;
                sum[a] += d;
                sq[a] += d * d;
            }
        }
        // Leave the base's choice only for an action whose mean paired gain
        // is `z` standard errors above zero (see `gain`).
        let mut best = (fallback, 0.0f64);
        for a in uno_env::game::iter_bits(mask).filter(|&a| a != fallback) {
            if let Some(mean) = gain(sum[a], sq[a], self.params.samples, self.params.z)
                && mean > best.1
            {
                best = (a, mean);
            }
        }
        if best.0 != fallback {
            // The base remembers its own moves (the heuristic, the colour
            // after them): it must remember the one made.
            self.me.overruled(game, state, seat, best.0);
        }
        best.0
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.me.reset(mix_seed(seed, 1));
    }
}

/// The mean paired gain of an action over the base's choice, if it is more
/// than `z` standard errors above zero: `sum` and `sq` are the sum and the
/// sum of squares of its differences on `samples` samples. Every action's
/// samples get one more, a tie (difference 0, adding nothing to the sums):
/// the mean shrinks towards the base's choice and the (unbiased) variance
/// is never zero, so samples that all agree overrule the base only when
/// there are more than `z` of them (their mean is then exactly `samples`
/// standard errors above zero), and one sample never does at z >= 1.
fn gain(sum: f64, sq: f64, samples: u64, z: f64) -> Option<f64> {
    let n = samples as f64 + 1.0;
    let mean = sum / n;
    let var = ((sq - n * mean * mean) / (n - 1.0)).max(0.0);
    let se = (var / n).sqrt();
    (mean > 0.0 && mean > z * se).then_some(mean)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uno_env::Rules;

    #[test]
    fn plays_legal_actions_and_is_deterministic() {
        let game = Game::new(Rules::preset("attack-2010").unwrap(), 3).unwrap();
        let params = SearchParams {
            samples: 4,
            ..SearchParams::default()
        };
        let play = |seed: u64| {
            let mut agents: Vec<Search> = (0..3)
                .map(|i| Search::new(params.clone(), seed + i).unwrap())
                .collect();
            let mut s = game.new_state(seed);
            let mut actions = vec![];
            while let Some(p) = s.current_player() {
                let a = agents[p].act(&game, &s, p);
                assert!(game.legal_mask(&s) >> a & 1 == 1, "illegal {a}");
                game.apply(&mut s, a).unwrap();
                actions.push(a);
            }
            actions
        };
        assert_eq!(play(5), play(5));
    }

    #[test]
    fn bad_bases_are_errors() {
        for spec in [
            "search:base=nobody",
            "search:base=search",
            "search:samples=x",
            "search:samples=0",
            "search:samples=100001",
            "search:z=-1",
            "search:z=inf",
        ] {
            // Refused when parsed, as a heuristic's bad values are (these
            // used to parse and fail only when built).
            let err = crate::parse_spec(spec).unwrap_err();
            assert!(
                err.to_string().contains("agent")
                    || matches!(err, crate::AgentError::BadParam { .. }),
                "{spec}: {err}"
            );
        }
        assert!(crate::parse_spec("search:samples=8,z=0.5,base=greedy").is_ok());
    }

    /// Positions of heuristic-played classic games where the acting seat
    /// holds one card and may play it (or draw instead).
    fn last_card_positions(game: &Game) -> Vec<State> {
        let mut out = vec![];
        for seed in 0..200 {
            let mut s = game.new_state(seed);
            let mut h = Heuristic::new(HeuristicParams::default(), seed);
            while let Some(p) = s.current_player() {
                let mask = game.legal_mask(&s);
                if s.hand_len(p) == 1
                    && mask & (1 << uno_env::action::DRAW) != 0
                    && mask.count_ones() > 1
                {
                    out.push(s.clone());
                }
                let a = h.act(game, &s, p);
                game.apply(&mut s, a).unwrap();
            }
        }
        out
    }

    #[test]
    fn overrules_a_bad_base_to_go_out() {
        // On top of `random`, which draws half of the time instead of playing
        // its last card, the search always goes out: on every sample the
        // play wins at once and drawing rarely wins. A search that kept the
        // base's choice would fail here with probability 1 - 2^-positions.
        let game = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
        let positions = last_card_positions(&game);
        assert!(positions.len() > 20, "only {} positions", positions.len());
        let params = SearchParams {
            samples: 32,
            z: 1.0,
            base: "random".into(),
        };
        let mut search = Search::new(params, 1).unwrap();
        for s in &positions {
            let p = s.current_player().unwrap();
            let mut t = s.clone();
            game.apply(&mut t, search.act(&game, s, p)).unwrap();
            assert_eq!(
                t.hand_len(p),
                0,
                "did not go out at decision {}",
                s.decisions()
            );
        }
    }

    #[test]
    fn keeps_the_base_choice_without_significant_evidence() {
        // With an unreachable margin the search plays exactly its base, also
        // with one sample or a few that all agree (no spread: a zero standard
        // error used to let any gain through, whatever the margin).
        let game = Game::new(Rules::preset("attack-2010").unwrap(), 3).unwrap();
        for samples in [1, 2, 4, 16] {
            for z in [1e9, 2.0] {
                if z == 2.0 && samples > 2 {
                    continue; // a real margin: 4 agreeing samples may overrule
                }
                let params = SearchParams {
                    samples,
                    z,
                    base: "first-legal".into(),
                };
                let mut search = Search::new(params, 1).unwrap();
                for seed in 0..6 {
                    let mut s = game.new_state(seed);
                    while let Some(p) = s.current_player() {
                        let a = search.act(&game, &s, p);
                        assert_eq!(a, game.legal_actions(&s)[0], "{samples} samples, z {z}");
                        game.apply(&mut s, a).unwrap();
                    }
                }
            }
        }
    }

    #[test]
    fn agreeing_samples_overrule_the_base_only_beyond_the_margin() {
        // k samples that all give the same gain d (no spread): mean k d /
        // (k + 1), standard error d / (k + 1), so exactly k standard errors.
        for k in 1..=10u64 {
            for z in [0.5, 1.0, 2.0, 3.5, 1e9] {
                for d in [1.0, 0.25] {
                    let got = gain(k as f64 * d, k as f64 * d * d, k, z);
                    assert_eq!(got.is_some(), k as f64 > z, "{k} samples of {d}, z {z}");
                }
            }
        }
        // By hand: differences 1, 1, 0 and the tie: mean 0.5, unbiased
        // variance (2 - 4 * 0.25) / 3 = 1/3, standard error sqrt(1/12):
        // 1.732 standard errors.
        assert_eq!(gain(2.0, 2.0, 3, 1.7), Some(0.5));
        assert_eq!(gain(2.0, 2.0, 3, 1.8), None);
        // A loss never overrules.
        assert_eq!(gain(-3.0, 3.0, 3, 0.0), None);
    }
}
