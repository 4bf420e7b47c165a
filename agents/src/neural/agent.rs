//! The neural agent: a checkpointed policy playing through the [`Agent`] trait.
//!
//! It encodes what its seat may see ([`uno_env::obs::encode`]), masks illegal
//! actions and plays the masked argmax (or samples, when built with
//! `sample = true`). Decisions with one legal action need no network call.
//! [`register`] makes `checkpoint:<dir>` agent specs buildable; the checkpoint's
//! observation version and sizes are checked when it is loaded, and
//! [`check_compatible`] checks its rules and table size against a game.

use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use uno_env::action::DRAW;
use uno_env::obs::{OBS_SIZE, encode};
use uno_env::{Game, NUM_ACTIONS, OBS_VERSION, Phase, State};

use super::{CheckpointMeta, NeuralError, NeuralPolicy, masked_argmax, read_meta, sample_masked};
use crate::agent::Agent;
use crate::error::AgentError;

/// What a checkpoint must match to play in this build: observation version and sizes.
pub const EXPECTED: (u32, usize, usize) = (OBS_VERSION, OBS_SIZE, NUM_ACTIONS);

/// A policy network playing one seat.
pub struct NeuralAgent {
    policy: NeuralPolicy,
    meta: CheckpointMeta,
    sample: bool,
    rng: ChaCha8Rng,
    /// Row buffers of the last call, reused by the next (`rows` rows each).
    obs: Vec<f32>,
    mask: Vec<bool>,
    logits: Vec<f32>,
    legal: Vec<u128>,
    name: String,
    /// Decisions the network failed to evaluate (each played the first legal action).
    failures: u64,
}

impl std::fmt::Debug for NeuralAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NeuralAgent")
            .field("name", &self.name)
            .field("sample", &self.sample)
            .field("net", &self.meta.net)
            .field("failures", &self.failures)
            .finish_non_exhaustive()
    }
}

impl NeuralAgent {
    /// Loads a checkpoint directory; refuses one with another observation version or size.
    pub fn load(dir: &Path, sample: bool, seed: u64) -> Result<Self, NeuralError> {
        let (policy, meta) = NeuralPolicy::load(dir, Some(EXPECTED))?;
        Ok(NeuralAgent {
            policy,
            meta,
            sample,
            rng: ChaCha8Rng::seed_from_u64(seed),
            obs: Vec::new(),
            mask: Vec::new(),
            logits: Vec::new(),
            legal: Vec::new(),
            name: format!("checkpoint:{}", dir.display()),
            failures: 0,
        })
    }

    /// Decisions the network failed to evaluate (a backend error): each
    /// played the first legal action, and the first was reported on stderr.
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// Whether a forward pass over `rows` decisions succeeded; a failure is
    /// counted (and the first reported).
    fn succeeded(&mut self, result: Result<(), NeuralError>, rows: usize) -> bool {
        let Err(e) = result else {
            return true;
        };
        if self.failures == 0 {
            eprintln!(
                "{}: the network failed ({e}); playing the first legal action instead",
                self.name
            );
        }
        self.failures += rows as u64;
        false
    }

    /// Sizes the row buffers for `rows` decisions (allocating only when a
    /// call needs more rows than any before it).
    fn rows(&mut self, rows: usize) {
        self.obs.resize(rows * OBS_SIZE, 0.0);
        self.mask.resize(rows * NUM_ACTIONS, false);
        self.logits.resize(rows * NUM_ACTIONS, 0.0);
        self.legal.resize(rows, 0);
    }

    /// The checkpoint's metadata.
    pub fn meta(&self) -> &CheckpointMeta {
        &self.meta
    }
}

/// Masked argmax (or a sample) of one row of logits; the first legal action
/// when the network failed or picked nothing legal.
fn choose(
    sample: bool,
    rng: &mut ChaCha8Rng,
    ok: bool,
    logits: &[f32],
    mask: &[bool],
    legal: u128,
) -> usize {
    let pick = if !ok {
        None
    } else if sample {
        sample_masked(logits, mask, rng).map(|(a, _)| a)
    } else {
        masked_argmax(logits, mask)
    };
    pick.filter(|&a| legal >> a & 1 == 1)
        .unwrap_or(legal.trailing_zeros() as usize)
}

/// The legal actions the network chooses from: the game's, except a press
/// (draw) that cannot bring a card while a card can be played. With the
/// launcher or draw pile empty and nothing to reload (A-2, F-9: the discard
/// pile is its top card alone, every other card is in a hand), a press is a
/// pass, and a network that prefers it keeps passing: trained networks met
/// such positions (one player holding a hundred cards) too rarely to learn
/// them, and two players passing in turn stalled rounds until the decision
/// cap (`universal` in 2-player `attack-1999`: 1.6 % of rounds against the
/// heuristic). This is the agent's choice, not a rule: the press stays legal.
pub fn playing_mask(game: &Game, state: &State) -> u128 {
    playing_choices(game.legal_mask(state), state)
}

/// [`playing_mask`] from the legal mask `m` of `state`, for callers that have it already
/// (the trainer reads it from the vectorized env's buffers).
pub fn playing_choices(m: u128, state: &State) -> u128 {
    let empty = state.pile() == 0 && state.discard().count_ones() <= 1;
    if empty && state.phase() == Phase::Play && m & !(1 << DRAW) != 0 {
        m & !(1 << DRAW)
    } else {
        m
    }
}

/// Writes one seat's observation and the boolean mask of `m` (the actions
/// the network chooses from, [`playing_mask`]).
fn encode_row(
    game: &Game,
    state: &State,
    seat: usize,
    m: u128,
    obs: &mut [f32],
    mask: &mut [bool],
) {
    encode(game, state, seat, obs).expect("an OBS_SIZE row and a seat of the game's table");
    for (i, b) in mask.iter_mut().enumerate() {
        *b = m >> i & 1 == 1;
    }
}

/// Splits `<dir>?sample` into the directory and whether to sample.
fn split_sample(path: &Path) -> (PathBuf, bool) {
    match path.to_str().and_then(|s| s.strip_suffix("?sample")) {
        Some(d) => (PathBuf::from(d), true),
        None => (path.to_path_buf(), false),
    }
}

impl Agent for NeuralAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        let m = playing_mask(game, state);
        if m.count_ones() == 1 {
            return m.trailing_zeros() as usize;
        }
        self.rows(1);
        encode_row(game, state, seat, m, &mut self.obs, &mut self.mask);
        let result = self
            .policy
            .act_batch(&self.obs, &self.mask, 1, &mut self.logits);
        let ok = self.succeeded(result, 1);
        choose(self.sample, &mut self.rng, ok, &self.logits, &self.mask, m)
    }

    /// One forward pass for every row; a sampling agent draws row `i` from
    /// `seeds[i]` when given, else from its own generator in row order.
    fn act_batch(
        &mut self,
        game: &Game,
        states: &[&State],
        seats: &[usize],
        seeds: Option<&[u64]>,
        out: &mut [usize],
    ) {
        let n = states.len();
        crate::agent::check_batch(n, seats.len(), seeds.map(<[u64]>::len), out.len());
        self.rows(n);
        for (i, ((s, &seat), legal)) in states.iter().zip(seats).zip(&mut self.legal).enumerate() {
            *legal = playing_mask(game, s);
            encode_row(
                game,
                s,
                seat,
                *legal,
                &mut self.obs[i * OBS_SIZE..(i + 1) * OBS_SIZE],
                &mut self.mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS],
            );
        }
        let result = self
            .policy
            .act_batch(&self.obs, &self.mask, n, &mut self.logits);
        let ok = self.succeeded(result, n);
        for (i, (o, &m)) in out.iter_mut().zip(&self.legal).enumerate() {
            let row = i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS;
            let mut own;
            let rng = match seeds.and_then(|s| s.get(i)) {
                Some(&seed) if self.sample => {
                    own = ChaCha8Rng::seed_from_u64(seed);
                    &mut own
                }
                _ => &mut self.rng,
            };
            *o = choose(
                self.sample,
                rng,
                ok,
                &self.logits[row.clone()],
                &self.mask[row],
                m,
            );
        }
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// Builds `checkpoint:<dir>` specs (greedy play; `<dir>?sample` samples from the policy).
pub fn build_checkpoint(path: &Path, seed: u64) -> Result<Box<dyn Agent + Send>, AgentError> {
    let (dir, sample) = split_sample(path);
    NeuralAgent::load(&dir, sample, seed)
        .map(|a| Box::new(a) as Box<dyn Agent + Send>)
        .map_err(|e| AgentError::Checkpoint {
            path: dir,
            message: e.to_string(),
        })
}

/// Registers [`build_checkpoint`] so `checkpoint:<dir>` specs build everywhere.
pub fn register() {
    let _ = crate::spec::register_checkpoint_builder(build_checkpoint);
}

/// [`check_compatible`] for every directory (a spec's, see
/// [`crate::AgentSpec::checkpoints`]): the notes, each once, or the first
/// directory that fails with its error. What every caller that seats
/// checkpoints (the arena, the single-agent env, Python) checks first.
pub fn check_compatible_all(
    dirs: &[PathBuf],
    game: &Game,
) -> Result<Vec<String>, (PathBuf, NeuralError)> {
    let mut notes: Vec<String> = Vec::new();
    for dir in dirs {
        match check_compatible(dir, game) {
            Ok(Some(note)) if !notes.contains(&note) => notes.push(note),
            Ok(_) => {}
            Err(e) => return Err((dir.clone(), e)),
        }
    }
    Ok(notes)
}

/// `e`'s message, naming checkpoint `dir` first unless the message already
/// does (a size or version mismatch does not, a corrupt file does): with
/// several checkpoints on the command line, the user learns which one.
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn naming_checkpoint(dir: &Path, e: &dyn std::fmt::Display) -> String {
    let message = e.to_string();
    let (dir, _) = split_sample(dir);
    let shown = dir.display().to_string();
    if message.contains(&shown) {
        message
    } else {
        format!("checkpoint {shown}: {message}")
    }
}

/// Checks that a checkpoint was trained for these rules: its observation
/// version and sizes and its rules name (one of its tables' names, for a run
/// on several tables) must match. A different table size (the observation is
/// padded to 10 seats) or rules of the same name with other settings (a
/// variant of the preset) are allowed and reported as a note in the Ok value.
pub fn check_compatible(dir: &Path, game: &Game) -> Result<Option<String>, NeuralError> {
    let (dir, _) = split_sample(dir);
    let meta = read_meta(&dir)?;
    check_meta_compatible(&meta, &dir.display().to_string(), game)
}

/// [`check_compatible`] on metadata already read (a network held in memory,
/// such as Python's `Policy`); `shown` names it in the messages ("checkpoint
/// {shown} was trained …").
pub fn check_meta_compatible(
    meta: &CheckpointMeta,
    shown: &str,
    game: &Game,
) -> Result<Option<String>, NeuralError> {
    meta.check_loadable(EXPECTED)
        .map_err(|e| e.in_checkpoint(Path::new(shown)))?;
    let name = &game.rules().name;
    let mut notes = Vec::new();
    // By name, or else by content: the same rules under another name (a
    // rules file that copies a preset and renames it) play too.
    let by_content = || {
        meta.table_where(game.num_players(), |t| {
            t.trained_rules()
                .is_some_and(|r| r.differences(game.rules()).is_empty())
        })
    };
    let table = match meta.table_for(name, game.num_players()) {
        Some(t) => Some(t),
        None => by_content().inspect(|t| {
            notes.push(format!(
                "note: checkpoint {} was trained on `{}`, the same rules as `{name}`",
                shown, t.rules
            ))
        }),
    };
    let Some(table) = table else {
        let mut trained: Vec<String> = Vec::new();
        for t in &meta.all_tables() {
            let quoted = format!("`{}`", t.rules);
            if !trained.contains(&quoted) {
                trained.push(quoted);
            }
        }
        return Err(NeuralError::RulesMismatch(format!(
            "checkpoint {} was trained for rules {}, not `{name}`",
            shown,
            trained.join(", ")
        )));
    };
    if table.players != game.num_players() {
        // Every table size it trained at for these rules (a multi-table run has several).
        let sizes: std::collections::BTreeSet<usize> = meta
            .all_tables()
            .iter()
            .filter(|t| t.rules == table.rules)
            .map(|t| t.players)
            .collect();
        let sizes: Vec<String> = sizes.iter().map(usize::to_string).collect();
        let sizes = match sizes.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => sizes.join(""),
        };
        notes.push(format!(
            "note: checkpoint {} was trained with {sizes} players, playing with {}",
            shown,
            game.num_players()
        ));
    }
    if let Some(trained) = table.trained_rules() {
        let diff = trained.differences(game.rules());
        // Other cards (the deck, what a kind does, launcher or draw pile)
        // make another game under the same name; other options and
        // launcher odds, a variant it can play.
        let cards: Vec<String> = diff
            .iter()
            .filter(|p| ["deck", "kinds", "supply"].contains(&p.split('.').next().unwrap_or("")))
            .cloned()
            .collect();
        if !cards.is_empty() {
            return Err(NeuralError::RulesMismatch(format!(
                "checkpoint {} was trained on `{}` with other cards ({}): these are other rules under the same name",
                shown,
                table.rules,
                summarize(&cards)
            )));
        }
        if !diff.is_empty() {
            notes.push(format!(
                "note: checkpoint {} was trained on `{}` with other settings ({}): it plays, but these rules are new to it",
                shown,
                table.rules,
                summarize(&diff)
            ));
        }
    }
    Ok((!notes.is_empty()).then(|| notes.join("\n")))
}

/// The first three of a list of names (differing settings, files), and how
/// many more: for one-line messages.
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn summarize(diff: &[String]) -> String {
    let shown = diff.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match diff.len() {
        n if n > 3 => format!("{shown} and {} more", n - 3),
        _ => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uno_env::{Rules, Scenario};

    /// Every card of the deck is in a hand but the top card: a press can bring
    /// nothing, so the network chooses among the card plays; with a
    /// card left to fire, or with no card to play, the press stays.
    #[test]
    fn a_press_that_can_bring_nothing_is_not_chosen_over_a_card() {
        let game = Game::new(Rules::preset("attack-1999").unwrap(), 2).unwrap();
        let faces: Vec<_> = (0..game.deck_size()).map(|c| game.face_of(c)).collect();
        let top = faces.iter().position(|f| f.name() == "R5").unwrap();
        let mine = faces.iter().position(|f| f.name() == "R7").unwrap();
        let theirs: Vec<_> = (0..faces.len())
            .filter(|&c| c != top && c != mine)
            .map(|c| faces[c])
            .collect();
        let sc = |launcher: Vec<_>, hand0: Vec<_>, hand1: Vec<_>| Scenario {
            hands: vec![hand0, hand1],
            top: Some(faces[top]),
            launcher: Some(launcher),
            ..Default::default()
        };
        let s = game
            .scenario(&sc(vec![], vec![faces[mine]], theirs.clone()))
            .unwrap();
        game.check_invariants(&s).unwrap();
        assert_eq!(s.pile(), 0);
        assert_eq!(s.discard().count_ones(), 1);
        let legal = game.legal_mask(&s);
        assert!(legal >> DRAW & 1 == 1, "the press stays legal");
        assert_eq!(playing_mask(&game, &s), legal & !(1 << DRAW));
        // A card left in the launcher: the press may bring it.
        let last = theirs.len() - 1;
        let s = game
            .scenario(&sc(
                vec![theirs[last]],
                vec![faces[mine]],
                theirs[..last].to_vec(),
            ))
            .unwrap();
        assert_eq!(playing_mask(&game, &s), game.legal_mask(&s));
        // No card to play (a blue 2 on the red 5): the press is all there is.
        let blue = faces.iter().position(|f| f.name() == "B2").unwrap();
        let rest: Vec<_> = (0..faces.len())
            .filter(|&c| c != top && c != blue)
            .map(|c| faces[c])
            .collect();
        let s = game.scenario(&sc(vec![], vec![faces[blue]], rest)).unwrap();
        assert_eq!(playing_mask(&game, &s), 1 << DRAW);
    }
}
