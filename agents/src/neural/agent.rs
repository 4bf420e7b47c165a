//! The neural agent: a checkpointed policy playing through the [`Agent`] trait.
//!
//! It encodes what its seat may see ([`uno_env::obs::encode`]), masks illegal
//! actions and plays the masked argmax (or samples, when built with
//! `sample = true`). Decisions with one legal action need no network call.
//! [`register`] makes `checkpoint:<dir>` agent specs buildable; the checkpoint's
//! observation version and sizes are checked when it is loaded, and
//! [`check_compatible`] checks its rules and table size against a game.

use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use uno_env::obs::{OBS_SIZE, encode};
use uno_env::{Game, NUM_ACTIONS, OBS_VERSION, State};

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
    obs: Vec<f32>,
    mask: Vec<bool>,
    logits: Vec<f32>,
    name: String,
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
            obs: vec![0.0; OBS_SIZE],
            mask: vec![false; NUM_ACTIONS],
            logits: vec![0.0; NUM_ACTIONS],
            name: format!("checkpoint:{}", dir.display()),
        })
    }

    /// The checkpoint's metadata.
    pub fn meta(&self) -> &CheckpointMeta {
        &self.meta
    }
}

impl Agent for NeuralAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        let m = game.legal_mask(state);
        if m.count_ones() == 1 {
            return m.trailing_zeros() as usize;
        }
        encode(game, state, seat, &mut self.obs);
        for (i, b) in self.mask.iter_mut().enumerate() {
            *b = m >> i & 1 == 1;
        }
        let first_legal = m.trailing_zeros() as usize;
        if self
            .policy
            .act_batch(&self.obs, &self.mask, 1, &mut self.logits)
            .is_err()
        {
            return first_legal;
        }
        let pick = if self.sample {
            sample_masked(&self.logits, &self.mask, &mut self.rng).map(|(a, _)| a)
        } else {
            masked_argmax(&self.logits, &self.mask)
        };
        pick.filter(|&a| m >> a & 1 == 1).unwrap_or(first_legal)
    }

    fn act_batch(&mut self, game: &Game, states: &[&State], seats: &[usize], out: &mut [usize]) {
        let n = states.len();
        let mut obs = vec![0.0; n * OBS_SIZE];
        let mut mask = vec![false; n * NUM_ACTIONS];
        for (i, (s, &seat)) in states.iter().zip(seats).enumerate() {
            encode(game, s, seat, &mut obs[i * OBS_SIZE..(i + 1) * OBS_SIZE]);
            let m = game.legal_mask(s);
            for (j, b) in mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS]
                .iter_mut()
                .enumerate()
            {
                *b = m >> j & 1 == 1;
            }
        }
        let mut logits = vec![0.0; n * NUM_ACTIONS];
        let ok = self.policy.act_batch(&obs, &mask, n, &mut logits).is_ok();
        for i in 0..n {
            let row = i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS;
            let m = game.legal_mask(states[i]);
            let pick = if !ok {
                None
            } else if self.sample {
                sample_masked(&logits[row.clone()], &mask[row], &mut self.rng).map(|(a, _)| a)
            } else {
                masked_argmax(&logits[row.clone()], &mask[row])
            };
            out[i] = pick
                .filter(|&a| m >> a & 1 == 1)
                .unwrap_or(m.trailing_zeros() as usize);
        }
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// Builds `checkpoint:<dir>` specs (greedy play; `<dir>?sample` samples from the policy).
pub fn build_checkpoint(path: &Path, seed: u64) -> Result<Box<dyn Agent + Send>, AgentError> {
    let text = path.to_string_lossy();
    let (dir, sample) = match text.strip_suffix("?sample") {
        Some(d) => (Path::new(d).to_path_buf(), true),
        None => (path.to_path_buf(), false),
    };
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

/// Checks that a checkpoint was trained for these rules: its observation
/// version and sizes and its rules name must match (a different table size is
/// allowed — the observation is padded to 10 seats — and reported in the Ok value).
pub fn check_compatible(dir: &Path, game: &Game) -> Result<Option<String>, NeuralError> {
    let dir = Path::new(
        dir.to_str()
            .and_then(|s| s.strip_suffix("?sample"))
            .unwrap_or_else(|| dir.to_str().unwrap_or("")),
    );
    let meta = read_meta(dir)?;
    meta.check_expected(EXPECTED)?;
    if meta.rules != game.rules().name {
        return Err(NeuralError::InvalidConfig(format!(
            "checkpoint {} was trained for rules `{}`, not `{}`",
            dir.display(),
            meta.rules,
            game.rules().name
        )));
    }
    Ok((meta.players != game.num_players()).then(|| {
        format!(
            "note: checkpoint {} was trained with {} players, playing with {}",
            dir.display(),
            meta.players,
            game.num_players()
        )
    }))
}
