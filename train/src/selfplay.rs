//! Self-play PPO on the vectorized core.
//!
//! Every seat of every game is played either by the learner or by an opponent
//! drawn per episode: with probability `self_play` all seats are the learner;
//! otherwise one seat is the learner and the others one opponent from the pool
//! (a past snapshot of the learner, `heuristic` or `random`, by weight). Each
//! step, the seats to act are grouped: learner seats and each snapshot run one
//! batched forward pass; hand-written agents act on the state. Networks choose
//! among the actions of `playing_mask`, as the `checkpoint:` agent does.
//! Decisions with a single action to choose are played without a network call
//! and are not training samples. Each (game, seat) keeps its own trajectory; when a game ends, its
//! trajectories get the terminal rewards, GAE(λ), and join the training batch
//! (trajectories still open carry over to the next update). Updates happen
//! every `batch_samples` samples; the learning rate anneals linearly. With
//! `[learner.critic]` the values behind GAE come from an oracle critic that
//! reads the full state (`encode_oracle` from the acting seat) instead of the
//! policy network's value head.
//!
//! A run directory holds `latest/` (learner checkpoint: model, optimizer,
//! learner state, meta), `trainer.json` (counters and the opponent pool),
//! `pool/` (policy snapshots), `metrics.jsonl` and TensorBoard event files.

use crate::learner::{Learner, LearnerConfig, LearnerError, RolloutBatch, UpdateStats};
use crate::metrics::{MetricsError, MetricsSink};
use crate::ppo::compute_gae;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use uno_agents::neural::{
    CheckpointMeta, MAX_WEIGHT, NetConfig, NeuralPolicy, PolicyValueNet, TableMeta, bad_weights,
    naming_checkpoint, playing_choices, sample_masked, save_checkpoint,
};
use uno_agents::{Agent, AgentSpec, ArenaConfig, build, run_arena_until};
use uno_env::obs::{OBS_SIZE, ORACLE_SIZE, encode_oracle};
use uno_env::{
    Buffers, ConfigError, EnvConfig, Game, MAX_PLAYERS, NUM_ACTIONS, OBS_VERSION, RewardMode,
    Rules, State, VecEnv,
};

/// Weights of the opponents drawn for the non-learner seats of an episode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpponentMix {
    /// Probability that every seat of an episode is the learner.
    pub self_play: f64,
    /// Weight of past snapshots of the learner.
    pub snapshot: f64,
    /// Weight of the `heuristic` agent.
    pub heuristic: f64,
    /// Weight of the `random` agent.
    pub random: f64,
}

impl Default for OpponentMix {
    fn default() -> Self {
        OpponentMix {
            self_play: 0.5,
            snapshot: 0.35,
            heuristic: 0.5,
            random: 0.15,
        }
    }
}

/// Everything a training run needs (`train.toml`; every field has a default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Preset name or TOML path.
    pub rules: String,
    /// Players per table.
    pub players: usize,
    /// Train one network on several tables at once: `"RULES:PLAYERS"` each
    /// (e.g. `["attack-2010:4", "classic:2"]`; RULES a preset or TOML path).
    /// When given it replaces `rules` and `players` (which become its first
    /// entry), and the `envs` games are shared out evenly among the tables.
    pub tables: Vec<String>,
    /// Environment steps (all decisions of all seats) to train for.
    pub steps: u64,
    /// Games played in parallel.
    pub envs: usize,
    /// Training samples (learner decisions with a choice) per PPO update.
    pub batch_samples: usize,
    /// Hidden layer widths.
    pub hidden: Vec<usize>,
    /// LayerNorm after each hidden layer.
    pub layer_norm: bool,
    /// PPO hyper-parameters.
    pub learner: LearnerConfig,
    /// Anneal the learning rate linearly to 10 % over the run.
    pub lr_anneal: bool,
    /// Discount.
    #[serde(serialize_with = "crate::learner::short_f32::one")]
    pub gamma: f32,
    /// GAE λ.
    #[serde(serialize_with = "crate::learner::short_f32::one")]
    pub lambda: f32,
    /// Opponent mix.
    pub opponents: OpponentMix,
    /// Add a snapshot of the learner to the pool every this many updates.
    pub snapshot_every: u64,
    /// Snapshots kept in the pool.
    pub pool_size: usize,
    /// Evaluate against random and heuristic every this many updates (0 = never).
    pub eval_every: u64,
    /// Games per evaluation opponent (0 = never evaluate; at least one game
    /// per seat otherwise).
    pub eval_games: u64,
    /// Save a checkpoint every this many updates.
    pub checkpoint_every: u64,
    /// Seed.
    pub seed: u64,
    /// Threads for environment stepping and evaluation (0 = as many as
    /// rayon's global pool has: every core unless the caller built it).
    pub threads: usize,
    /// Write TensorBoard event files.
    pub tensorboard: bool,
    /// Reward every learner seat gets when a round is cut short at the decision
    /// cap. The environment gives 0 there; training uses a penalty by default
    /// because A-1 lets a player press the launcher instead of playing, and
    /// with 0 a losing self-play learner learns to stall until the cap.
    #[serde(serialize_with = "crate::learner::short_f32::one")]
    pub truncation_reward: f32,
    /// Rewards the learner trains on: `win` (+1 for the winner, -1/(N-1) for
    /// the others) or `points` (the winner + the points left in the other
    /// hands / 100, every other seat - its own points / 100): a denser signal
    /// at big tables, where one win among N seats says little.
    pub reward: RewardMode,
    /// Start a new run from this checkpoint's weights (fresh optimizer and
    /// counters); its network shape replaces `hidden` and `layer_norm`. Any
    /// checkpoint with this build's observation version works, whatever rules
    /// or table size it was trained for (one action and observation space).
    pub init: Option<PathBuf>,
    /// With `init`: grow the checkpoint's network to `hidden` (same function, more capacity:
    /// every layer at least as wide, extra layers at the end) instead of adopting its shape.
    pub grow: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            rules: "attack-2010".into(),
            players: 2,
            tables: Vec::new(),
            steps: 2_000_000,
            envs: 256,
            batch_samples: 16_384,
            hidden: vec![256, 256],
            layer_norm: false,
            learner: LearnerConfig {
                minibatch_size: 4096,
                epochs: 3,
                entropy_coef: 0.01,
                ..LearnerConfig::default()
            },
            lr_anneal: true,
            gamma: 1.0,
            lambda: 0.95,
            opponents: OpponentMix::default(),
            snapshot_every: 10,
            pool_size: 8,
            eval_every: 25,
            eval_games: 1000,
            checkpoint_every: 10,
            seed: 0,
            threads: 2,
            tensorboard: true,
            truncation_reward: -1.0,
            reward: RewardMode::Win,
            init: None,
            grow: false,
        }
    }
}

/// Most games an evaluation plays per opponent and table (an evaluation
/// cannot be interrupted, so a typo must not make it last for days).
pub const MAX_EVAL_GAMES: u64 = 1_000_000;

/// Most learner samples one PPO update may collect. A sample takes about
/// 2 KB (its observation, mask and targets; more with an oracle critic) and
/// the whole batch is held in memory, so this is about 4 GB: a typo (an
/// extra digit or three) is refused instead of running the machine out of
/// memory part-way through a rollout, which would lose the run's progress.
pub const MAX_BATCH_SAMPLES: usize = 1 << 21;

/// File of a run directory holding its counters and pool ([`TrainerState`]).
pub const TRAINER_FILE: &str = "trainer.json";
/// The run's settings as it trains them, in its directory (read back by `--resume`).
pub const CONFIG_FILE: &str = "config.toml";

/// Parses a table of a mixed run, `"RULES:PLAYERS"` (e.g. `attack-2010:4`).
pub fn parse_table(s: &str) -> Result<(String, usize), TrainError> {
    table_of(s).map_err(TrainError::Config)
}

/// `spec` with a rules file's relative path made absolute (a preset name,
/// or anything that is not an existing file, as it is: its error names it
/// as given).
fn absolute_rules_path(spec: &str) -> String {
    let path = std::path::Path::new(spec);
    if uno_env::rules::preset_name(spec).is_some() || path.is_absolute() || !path.is_file() {
        return spec.to_string();
    }
    std::path::absolute(path)
        .ok()
        .and_then(|p| p.to_str().map(String::from))
        .unwrap_or_else(|| spec.to_string())
}

/// [`parse_table`], its problem in words.
fn table_of(s: &str) -> Result<(String, usize), String> {
    let bad = || format!("table `{s}` is not RULES:PLAYERS (e.g. attack-2010:4)");
    let (rules, players) = s.trim().rsplit_once(':').ok_or_else(bad)?;
    let players = players.trim().parse::<usize>().map_err(|_| bad())?;
    if rules.trim().is_empty() {
        return Err(bad());
    }
    Ok((rules.trim().to_string(), players))
}

impl TrainConfig {
    /// The threads to step and evaluate on: `threads`, or with 0 the size of
    /// rayon's global pool (at most [`uno_env::MAX_THREADS`]).
    pub fn resolved_threads(&self) -> usize {
        match self.threads {
            0 => rayon::current_num_threads().clamp(1, uno_env::MAX_THREADS),
            t => t,
        }
    }

    /// The tables of the run, `(rules, players)`: `tables`, or the one of `rules` and `players`.
    pub fn table_list(&self) -> Result<Vec<(String, usize)>, TrainError> {
        self.tables_of().map_err(TrainError::Config)
    }

    /// [`TrainConfig::table_list`], its problem in words.
    fn tables_of(&self) -> Result<Vec<(String, usize)>, String> {
        if self.tables.is_empty() {
            Ok(vec![(self.rules.clone(), self.players)])
        } else {
            self.tables.iter().map(|t| table_of(t)).collect()
        }
    }

    /// Checks every value before a run starts (one message naming the field),
    /// so a bad config is refused instead of failing mid-run: a
    /// [`TrainError::Config`].
    pub fn validate(&self) -> Result<(), TrainError> {
        self.first_problem().map_err(TrainError::Config)
    }

    /// The check of [`TrainConfig::validate`], its problem in words.
    fn first_problem(&self) -> Result<(), String> {
        for (name, v) in [
            ("steps", self.steps),
            ("envs", self.envs as u64),
            ("batch_samples", self.batch_samples as u64),
        ] {
            if v == 0 {
                return Err(format!("{name} must be positive, not 0"));
            }
        }
        let tables = self.tables_of()?;
        for (k, t) in tables.iter().enumerate() {
            if tables[..k].contains(t) {
                return Err(format!("table {}:{} is listed twice", t.0, t.1));
            }
        }
        if self.envs < tables.len() {
            return Err(format!(
                "envs ({}) must be at least the number of tables ({})",
                self.envs,
                tables.len()
            ));
        }
        if self.envs > uno_env::MAX_ENVS {
            return Err(format!("envs must be at most {}", uno_env::MAX_ENVS));
        }
        if self.batch_samples > MAX_BATCH_SAMPLES {
            return Err(format!(
                "batch_samples must be at most {MAX_BATCH_SAMPLES} (the update's samples are held in memory, about 2 KB each), not {}",
                self.batch_samples
            ));
        }
        if self.threads > uno_env::MAX_THREADS {
            return Err(format!("threads must be at most {}", uno_env::MAX_THREADS));
        }
        if self.hidden.is_empty() || self.hidden.iter().any(|&h| h == 0 || h > 4096) {
            return Err("hidden layers must be 1..=4096 wide".into());
        }
        // TOML integers are 64-bit signed: a larger seed could not be
        // written to the run's config.toml (or read back by --resume).
        if self.seed > i64::MAX as u64 {
            return Err(format!(
                "seed must be at most {} (a TOML integer), not {}",
                i64::MAX,
                self.seed
            ));
        }
        if self.eval_games > MAX_EVAL_GAMES {
            return Err(format!(
                "eval_games must be at most {MAX_EVAL_GAMES} per opponent and table, not {}",
                self.eval_games
            ));
        }
        for (name, v) in [
            ("checkpoint_every", self.checkpoint_every),
            ("pool_size", self.pool_size as u64),
        ] {
            if v == 0 {
                return Err(format!("{name} must be at least 1, not 0"));
            }
        }
        if self.grow && self.init.is_none() {
            return Err("grow needs init: the checkpoint whose network to grow".into());
        }
        for (name, v) in [("gamma", self.gamma), ("lambda", self.lambda)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{name} must be in [0, 1], not {v}"));
            }
        }
        if !(self.truncation_reward.is_finite() && self.truncation_reward.abs() <= 100.0) {
            return Err(format!(
                "truncation_reward must be a finite number in [-100, 100], not {}",
                self.truncation_reward
            ));
        }
        let o = &self.opponents;
        if !(0.0..=1.0).contains(&o.self_play) {
            return Err(format!(
                "opponents.self_play is a probability in [0, 1], not {}",
                o.self_play
            ));
        }
        for (name, w) in [
            ("snapshot", o.snapshot),
            ("heuristic", o.heuristic),
            ("random", o.random),
        ] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!(
                    "opponents.{name} must be a finite weight >= 0, not {w}"
                ));
            }
        }
        let total = o.snapshot + o.heuristic + o.random;
        if !total.is_finite() {
            // The draw divides by the sum: an infinite one always picked `random`.
            return Err(format!(
                "opponents: snapshot + heuristic + random must be finite, not {total} (the weights are relative: scale them down)"
            ));
        }
        if o.self_play < 1.0 && total <= 0.0 {
            return Err(
                "opponents: snapshot, heuristic and random are all 0, so games that are not self-play have no opponent (set one, or self_play = 1)".into(),
            );
        }
        self.learner.validate().map_err(|e| e.to_string())
    }
}

/// Counters and pool that `--resume` restores (`trainer.json`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrainerState {
    /// Environment steps so far.
    pub steps: u64,
    /// Training samples so far.
    pub samples: u64,
    /// Episodes finished.
    pub episodes: u64,
    /// PPO updates.
    pub updates: u64,
    /// Snapshot directories in the pool (oldest first), relative to the run
    /// directory (`pool/update-NNNNNN`). Runs written before 2026-11-24 hold
    /// the paths as `--out` was given; [`Trainer::new`] reads those as the
    /// snapshot of that name in the run's own `pool/`.
    pub pool: Vec<PathBuf>,
    /// Last evaluation results.
    pub eval: serde_json::Value,
    /// Wall-clock seconds spent so far.
    pub seconds: f64,
    /// Best evaluation win rate against `heuristic` so far (the one in `best/`;
    /// for a run on several tables, the mean over its tables).
    #[serde(default)]
    pub best_vs_heuristic: Option<f64>,
    /// Episodes finished on each table of the run, in `tables` order.
    #[serde(default)]
    pub episodes_per_table: Vec<u64>,
    /// Seed of the evaluation deals, fixed when the run starts: a resume with
    /// another `--seed` still evaluates on the deals `best_vs_heuristic` was
    /// measured on. Runs written before 2026-11-26 have none and take it
    /// from the seed they resume with, as they always did.
    #[serde(default)]
    pub eval_seed: Option<u64>,
}

/// Mixed into the run's seed for its evaluation deals.
const EVAL_SALT: u64 = 0xE7A1;

/// Multiplies a table's index into its environment seed (an odd constant
/// other than the one [`uno_env::vec_env::episode_seed`] uses).
const TABLE_MIX: u64 = 0xD1B5_4A32_D192_ED03;

/// Mixed into the run's seed for the trainer's own draws (the self-play
/// coin, learner seats, opponent picks), so they are not the numbers table
/// 0's first game deals from (its environment seed is the run's seed).
const ROLLOUT_SALT: u64 = 0x0990_5EA7_5EA7_0990;

/// An error of the trainer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrainError {
    /// Bad configuration.
    #[error("invalid training config: {0}")]
    Config(String),
    /// Learner failure (checkpoint, shapes…).
    #[error(transparent)]
    Learner(#[from] LearnerError),
    /// A file or directory of the run cannot be created, read or written.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        /// What was being done: `create`, `read`, `write`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// `--out` names a file, not a directory.
    #[error("--out {} is a file, not a directory: a run needs a new or empty directory", .0.display())]
    NotADirectory(PathBuf),
    /// A file of the run directory does not hold what it should.
    #[error("{} does not parse: {message}", .path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A record of the run could not be serialized.
    #[error("cannot serialize {what}: {message}")]
    Serialize {
        /// The record: `config.toml`, `trainer.json`.
        what: &'static str,
        /// The serializer's error.
        message: String,
    },
    /// Writing the metrics (`metrics.jsonl`, TensorBoard) failed.
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    /// Building an opponent or running an evaluation failed.
    #[error(transparent)]
    Agent(#[from] uno_agents::AgentError),
    /// Saving a file atomically failed.
    #[error(transparent)]
    Save(uno_agents::neural::NeuralError),
    /// The environment refused a step.
    #[error("environment: {0}")]
    Env(#[from] uno_env::VecEnvError),
    /// `--resume` found no run, or an incomplete one, in the output directory.
    #[error("{0}")]
    NoRun(String),
    /// The output directory already holds a run and `--resume` was not given.
    #[error("{} already holds a training run: continue it with --resume, or train into a new --out", .0.display())]
    RunExists(PathBuf),
    /// The output directory holds other files and `--resume` was not given.
    #[error("{} is not empty (it holds {}): a new run needs a new or empty --out (--resume continues a run stopped before its first checkpoint)", .0.display(), .1)]
    NotEmpty(PathBuf, String),
    /// `--resume` of a run that already has the steps asked for: nothing
    /// was trained and nothing in the run was changed (not a failure).
    #[error(
        "the run in {} already has {steps} steps, which reaches --steps {budget}: nothing to train, and the run is left as it was (give a larger --steps to continue it)",
        out.display()
    )]
    NothingToTrain {
        /// The run directory.
        out: PathBuf,
        /// Steps the run has.
        steps: u64,
        /// The step budget asked for.
        budget: u64,
    },
    /// Another `train` holds the run directory's lock file.
    #[error("{0}")]
    Locked(String),
    /// The checkpoint a run starts from (`--init`) or continues (`--resume`)
    /// cannot be used; the message names it.
    #[error("{0}")]
    Checkpoint(String),
    /// An update left the loss or the network's weights not finite (NaN or
    /// infinite); nothing was saved after it.
    #[error(
        "training diverged at update {update}: {what} (NaN or infinite). Nothing was saved from it; \
         {kept}. Lower [learner] lr or max_grad_norm in the config"
    )]
    Diverged {
        /// The update that diverged.
        update: u64,
        /// What was not finite.
        what: String,
        /// What the run directory keeps, and how to go on.
        kept: String,
    },
}

/// Lock file a training process holds in its run directory (it contains the
/// process id; removed when the trainer is dropped).
pub const LOCK_FILE: &str = "train.lock";

/// The lock of a run directory: `train.lock`, locked by the operating system
/// (`flock` on Unix, `LockFileEx` on Windows, through [`std::fs::File::try_lock`])
/// for as long as the trainer lives, and holding its process id for the
/// messages. The system releases the lock when the process ends, however it
/// ends (SIGKILL, a container's kill, running out of memory), so a file left
/// behind is simply taken over, with a note; its process id decides nothing
/// (in a container `train` gets the same id on every start, and after a
/// reboot another process may have it).
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    /// The open, locked file: closing it (when the lock is dropped) releases the lock.
    _file: std::fs::File,
    /// Says whose stale lock was taken over, if one was.
    note: Option<String>,
}

/// True when `path` still names the file open as `file` (on Unix: the same
/// device and inode). A trainer that ends removes its lock file before
/// closing it, so a lock taken on a file that has since been removed (or
/// replaced) is no lock: the caller tries again.
fn still_names(path: &Path, file: &std::fs::File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(path), file.metadata()) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        // No inode to compare: the path is taken to name it.
        let _ = (path, file);
        true
    }
}

impl RunLock {
    /// Whose stale lock was taken over when this one was acquired, if any
    /// ([`Trainer::notes`] repeats it).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Takes the lock of run directory `dir` (which must exist).
    pub fn acquire(dir: &Path) -> Result<RunLock, TrainError> {
        use std::io::{Read, Seek, Write};
        let path = dir.join(LOCK_FILE);
        let me = std::process::id();
        for _ in 0..8 {
            let mut file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io_error("create", &path))?;
            let mut owner = String::new();
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    // Its holder may still be writing its id: then "a process".
                    let _ = file.read_to_string(&mut owner);
                    return Err(TrainError::Locked(format!(
                        "another `train` ({}) is using {} (it holds {}): wait for it to end",
                        match owner.trim().parse::<u32>() {
                            Ok(p) if p == me => "a Trainer of this same process".to_string(),
                            Ok(p) => format!("process {p}"),
                            Err(_) => "a process".to_string(),
                        },
                        dir.display(),
                        path.display(),
                    )));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(TrainError::Locked(format!(
                        "cannot lock {}: {e} (the file system may not support file locks; \
                         give --out on a local disk)",
                        path.display()
                    )));
                }
            }
            if !still_names(&path, &file) {
                continue;
            }
            file.read_to_string(&mut owner)
                .map_err(io_error("read", &path))?;
            let note = (!owner.trim().is_empty()).then(|| {
                format!(
                    "note: taking over the lock {} of a `train` that is no longer running (process {})",
                    path.display(),
                    owner.trim()
                )
            });
            file.set_len(0)
                .and_then(|()| file.rewind())
                .and_then(|()| writeln!(file, "{me}"))
                .map_err(io_error("write", &path))?;
            return Ok(RunLock {
                path,
                _file: file,
                note,
            });
        }
        Err(TrainError::Locked(format!(
            "another `train` is starting and ending in {} over and over: try again",
            dir.display()
        )))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Removed while still locked (see `still_names`); closing the file
        // (after this) releases the lock.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The snapshot an entry of `trainer.json`'s pool names, relative to the run
/// directory: `pool/<name>`. Entries written before 2026-11-24 hold the path as
/// `--out` was given then (relative to that working directory, or absolute);
/// the trainer only ever writes snapshots into its own `pool/`, so such an
/// entry names the snapshot of that name in this run's `pool/`, wherever the
/// run directory has moved since. `None` for an entry that is no snapshot
/// of a run's `pool/` (a hand-edited file).
fn pool_entry(entry: &Path) -> Option<PathBuf> {
    let name = entry.file_name()?;
    (entry.parent()?.file_name()? == "pool").then(|| Path::new("pool").join(name))
}

/// What one progress report carries.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Environment steps so far.
    pub steps: u64,
    /// Target steps.
    pub total: u64,
    /// Recent env steps per second.
    pub steps_per_sec: f64,
    /// Recent learner win rate against non-self opponents.
    pub win_rate: f64,
    /// Updates so far.
    pub updates: u64,
}

enum Ctl {
    Learner,
    Snapshot(usize),
    Agent(Box<dyn Agent + Send>),
}

/// After the pool drops its oldest snapshot (index 0), running episodes keep
/// their opponents: every snapshot index moves down by one. Seats that played
/// the dropped snapshot take the next oldest for the rest of their episode.
fn drop_oldest_snapshot(ctl: &mut [Vec<Ctl>]) {
    for c in ctl.iter_mut().flatten() {
        if let Ctl::Snapshot(k) = c {
            *k = k.saturating_sub(1);
        }
    }
}

#[derive(Default)]
struct Traj {
    obs: Vec<f32>,
    masks: Vec<bool>,
    actions: Vec<u32>,
    logp: Vec<f32>,
    values: Vec<f32>,
    rewards: Vec<f32>,
    /// The oracle critic's inputs (empty without a critic).
    oracle: Vec<f32>,
}

impl Traj {
    fn len(&self) -> usize {
        self.actions.len()
    }
    fn clear(&mut self) {
        self.obs.clear();
        self.masks.clear();
        self.actions.clear();
        self.logp.clear();
        self.values.clear();
        self.rewards.clear();
        self.oracle.clear();
    }
}

/// A batched policy call: rows gathered from the env buffers.
#[derive(Default)]
struct Group {
    envs: Vec<usize>,
    obs: Vec<f32>,
    masks: Vec<bool>,
    logits: Vec<f32>,
    values: Vec<f32>,
    /// Full-state inputs of the oracle critic (learner group only, with a critic).
    oracle: Vec<f32>,
}

impl Group {
    fn clear(&mut self) {
        self.envs.clear();
        self.obs.clear();
        self.masks.clear();
        self.oracle.clear();
    }
    /// Adds game `i` of the run, row `j` of its table's buffers, choosing among
    /// the actions of `mask` (the network's [`playing_mask`](uno_agents::neural::playing_mask)).
    fn push(&mut self, i: usize, buf: &Buffers, j: usize, mask: u128) {
        self.envs.push(i);
        self.obs
            .extend_from_slice(&buf.obs[j * OBS_SIZE..(j + 1) * OBS_SIZE]);
        self.masks
            .extend((0..NUM_ACTIONS).map(|a| mask >> a & 1 == 1));
    }
    /// Appends the full state of `s` as seen from `seat`, for the oracle critic.
    fn push_oracle(&mut self, game: &Game, s: &State, seat: usize) {
        let at = self.oracle.len();
        self.oracle.resize(at + ORACLE_SIZE, 0.0);
        encode_oracle(game, s, seat, &mut self.oracle[at..])
            .expect("an ORACLE_SIZE row and the acting seat of this game");
    }
    /// Replaces the values of the policy's forward pass by the oracle critic's.
    fn critic_values(&mut self, critic: &NeuralPolicy) -> Result<(), TrainError> {
        critic
            .values_batch(&self.oracle, self.envs.len(), &mut self.values)
            .map_err(|e| TrainError::Learner(e.into()))
    }
    fn forward(&mut self, policy: &NeuralPolicy) -> Result<(), TrainError> {
        let n = self.envs.len();
        self.logits.resize(n * NUM_ACTIONS, 0.0);
        self.values.resize(n, 0.0);
        policy
            .forward_batch(
                &self.obs,
                &self.masks,
                n,
                &mut self.logits,
                Some(&mut self.values),
            )
            .map_err(|e| TrainError::Learner(e.into()))
    }
}

/// One table of a run (rules and table size) with its games.
struct Table {
    rules: Rules,
    /// The rules as the run names them: its `--rules` / `--tables` spec (a
    /// preset or a file's path), or, for a file gone since the run started,
    /// the name of the rules its checkpoint records.
    spec: String,
    players: usize,
    env: VecEnv,
    buf: Buffers,
    /// Index of the table's first game among the run's games.
    offset: usize,
    /// Episodes finished since the last update's log, and their total length (decisions).
    ended: (u64, u64),
}

impl Table {
    /// `rules-Np`: the table's name in metrics and evaluation results.
    fn tag(&self) -> String {
        format!("{}-{}p", self.rules.name, self.players)
    }
}

/// The self-play trainer.
pub struct Trainer {
    cfg: TrainConfig,
    out: PathBuf,
    /// The run's tables (one for most runs); `tables[0]` names the checkpoints' rules.
    tables: Vec<Table>,
    /// Table of each game.
    table_of: Vec<usize>,
    learner: Learner,
    device: burn::tensor::Device,
    policy: NeuralPolicy,
    /// Inference copy of the learner's oracle critic, if it has one.
    critic: Option<NeuralPolicy>,
    pool: Vec<NeuralPolicy>,
    ctl: Vec<Vec<Ctl>>,
    trajs: Vec<Vec<Traj>>,
    ready: RolloutBatch,
    rng: ChaCha8Rng,
    state: TrainerState,
    metrics: MetricsSink,
    /// Whether the learner won each of the last 500 episodes that had a
    /// seat played by someone else (a snapshot, `heuristic` or `random`).
    recent: VecDeque<bool>,
    /// Notes printed while starting (dropped pool snapshots, changed settings).
    notes: Vec<String>,
    /// The update count of the last checkpoint saved (or resumed from).
    saved_update: u64,
    /// The run continues from a checkpoint (false for a new run, and for a
    /// `--resume` that found none and started anew).
    resumed: bool,
    /// Snapshot directories dropped from the pool, deleted at the next save
    /// (once trainer.json no longer lists them).
    pruned: Vec<PathBuf>,
    /// The run directory's lock, held as long as the trainer lives.
    _lock: RunLock,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("out", &self.out)
            .field("config", &self.cfg)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// The network shape a config asks for.
pub fn net_config(cfg: &TrainConfig) -> NetConfig {
    let mut net = NetConfig::new(OBS_SIZE, NUM_ACTIONS);
    net.hidden = cfg.hidden.clone();
    net.layer_norm = cfg.layer_norm;
    net
}

/// The `[learner]` settings that differ between `before` and `now`, each as
/// `key old → new` (dotted keys inside tables; `none` for a missing one).
fn changed_settings(before: &LearnerConfig, now: &LearnerConfig) -> Vec<String> {
    fn flat(
        prefix: &str,
        v: &serde_json::Value,
        out: &mut std::collections::BTreeMap<String, String>,
    ) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    flat(&key, v, out);
                }
            }
            serde_json::Value::Null => {}
            // Numbers as serialized: f32 settings already show as written
            // (0.01, not 0.009999999776482582; `learner::short_f32`).
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    let map = |c: &LearnerConfig| {
        let mut m = std::collections::BTreeMap::new();
        flat("", &serde_json::to_value(c).unwrap_or_default(), &mut m);
        m
    };
    let (a, b) = (map(before), map(now));
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let none = "none".to_string();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            format!(
                "{k} {} → {}",
                a.get(k).unwrap_or(&none),
                b.get(k).unwrap_or(&none)
            )
        })
        .collect()
}

/// Makes an I/O error of the run's file or directory `path` a
/// [`TrainError::Io`] saying what was being done (`"create"`, `"read"`…).
fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> TrainError {
    let path = path.to_path_buf();
    move |source| TrainError::Io {
        action,
        path,
        source,
    }
}

impl Trainer {
    /// Starts a run in `out` (or resumes the one there when `resume`).
    ///
    /// The trainer holds the run directory's lock ([`LOCK_FILE`]) as long as
    /// it lives, so a second trainer on the same directory is refused. A new
    /// run needs `out` to be missing or empty; a refused run leaves nothing
    /// behind (no directory it created, no file).
    pub fn new(cfg: TrainConfig, out: &Path, resume: bool) -> Result<Trainer, TrainError> {
        cfg.validate()?;
        if out.exists() && !out.is_dir() {
            return Err(if resume {
                TrainError::NoRun(format!(
                    "--out {} is a file, not a directory: there is no run to resume",
                    out.display()
                ))
            } else {
                TrainError::NotADirectory(out.to_path_buf())
            });
        }
        if resume && !out.exists() {
            return Err(TrainError::NoRun(format!(
                "no run to resume in {}: the directory does not exist",
                out.display()
            )));
        }
        // The directories this call creates (the deepest first), removed
        // again when the run is refused.
        let created: Vec<PathBuf> = out
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
            .map(Path::to_path_buf)
            .collect();
        let started = std::fs::create_dir_all(out)
            .map_err(io_error("create", out))
            .and_then(|()| RunLock::acquire(out))
            .and_then(|lock| Self::start(cfg, out, resume, lock));
        if started.is_err() {
            for d in &created {
                let _ = std::fs::remove_dir(d);
            }
        }
        started
    }

    /// [`Trainer::new`] once the run directory exists and is locked.
    fn start(
        mut cfg: TrainConfig,
        out: &Path,
        resume: bool,
        lock: RunLock,
    ) -> Result<Trainer, TrainError> {
        // Evaluations play `checkpoint:` agents.
        uno_agents::neural::register();
        // What a run has trained lives in these; a run without any of them
        // (stopped before its first checkpoint) has nothing to lose.
        let trained = [TRAINER_FILE, "latest", "best", "pool"]
            .iter()
            .any(|f| out.join(f).exists());
        if !resume && trained {
            return Err(TrainError::RunExists(out.to_path_buf()));
        }
        // The directory's entries other than those `ours` accepts, sorted.
        let others = |ours: &dyn Fn(&str) -> bool| -> Result<Vec<String>, TrainError> {
            let mut names: Vec<String> = std::fs::read_dir(out)
                .map_err(io_error("read", out))?
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !ours(n))
                .collect();
            names.sort();
            Ok(names)
        };
        if !resume {
            // Anything else in the directory is not ours to overwrite (a
            // config.toml of the user's, a metrics.jsonl to append to).
            let others = others(&|n| n == LOCK_FILE)?;
            if !others.is_empty() {
                return Err(TrainError::NotEmpty(
                    out.to_path_buf(),
                    uno_agents::neural::summarize(&others),
                ));
            }
        } else if !trained {
            // A run stopped before its first checkpoint holds only what it
            // writes at its start. Anything else means --out is not a run's
            // directory (the parent of several runs, a home directory), and
            // a new run would be written in among the files there.
            let others = others(&|n| {
                n == LOCK_FILE
                    || n == CONFIG_FILE
                    || n == crate::metrics::METRICS_JSONL
                    || n.starts_with(crate::metrics::TFEVENTS_PREFIX)
            })?;
            if !others.is_empty() {
                return Err(TrainError::NoRun(format!(
                    "cannot resume: {} holds no training run (no {TRAINER_FILE}, latest/, best/ or pool/) but other files ({}); \
                     give the run's own directory as --out (nothing was changed)",
                    out.display(),
                    uno_agents::neural::summarize(&others)
                )));
            }
        }
        let mut notes: Vec<String> = lock.note().map(String::from).into_iter().collect();
        let mut note = |n: String| notes.push(n);
        let latest = out.join("latest");
        let meta_file = latest.join("meta.json");
        if resume && trained && !meta_file.is_file() {
            // Point at best/ only when it holds a checkpoint (a run with
            // evaluation off has none).
            let best = out.join("best");
            let start = if best.join("meta.json").is_file() {
                format!(", with --init {} to start from its weights", best.display())
            } else {
                String::new()
            };
            return Err(TrainError::NoRun(format!(
                "cannot resume: {} is missing, so the run's last checkpoint is incomplete \
                 (nothing was changed; train into a new --out{start})",
                meta_file.display(),
            )));
        }
        let mut list = cfg.table_list()?;
        if !resume {
            // A rules file is recorded in config.toml by its absolute path, so
            // that `--resume` finds it from any directory.
            for (name, _) in &mut list {
                *name = absolute_rules_path(name);
            }
            if !cfg.tables.is_empty() {
                cfg.tables = list.iter().map(|(r, p)| format!("{r}:{p}")).collect();
            }
        }
        (cfg.rules, cfg.players) = list[0].clone();
        let mut tables = Vec::with_capacity(list.len());
        let mut table_of = Vec::with_capacity(cfg.envs);
        for (k, (name, players)) in list.iter().enumerate() {
            let (rules, spec) = match Rules::load(name) {
                Ok(rules) => (rules, name.clone()),
                // A rules file gone since the run started (moved, or a relative
                // path of a run from before 2026-11-29 resumed from another
                // directory): the run goes on with the rules its last
                // checkpoint records.
                Err(ConfigError::Io(e)) if resume && meta_file.is_file() => {
                    let recorded = uno_agents::neural::read_meta(&latest)
                        .ok()
                        .and_then(|m| m.all_tables().get(k).and_then(|t| t.trained_rules()))
                        .ok_or_else(|| TrainError::Config(format!("cannot read rules file {e}")))?;
                    note(format!(
                        "note: cannot read rules file {e}; resuming with the rules `{}` that {} records",
                        recorded.name,
                        meta_file.display()
                    ));
                    let spec = recorded.name.clone();
                    (recorded, spec)
                }
                Err(e) => return Err(TrainError::Config(e.to_string())),
            };
            let env_cfg = EnvConfig {
                reward: cfg.reward,
                ..EnvConfig::new(rules.clone(), *players)
            };
            // The games shared out evenly; table 0 keeps the run's seed (a
            // one-table run plays exactly the games it always did), the others
            // get seeds of their own. With several tables each steps on one
            // thread: stepping is a small part of a training step, and the
            // spinning worker teams of several envs would compete for the cores.
            let n = cfg.envs / list.len() + usize::from(k < cfg.envs % list.len());
            // (Not the constant `episode_seed` mixes episodes with: table 1
            // would replay table 0's second episode's numbers.)
            let seed = cfg.seed ^ (k as u64).wrapping_mul(TABLE_MIX);
            let threads = if list.len() > 1 {
                1
            } else {
                cfg.resolved_threads()
            };
            let env = VecEnv::new(env_cfg, n, seed, threads)
                .map_err(|e| TrainError::Config(e.to_string()))?;
            tables.push(Table {
                rules,
                spec,
                players: *players,
                env,
                buf: Buffers::new(n),
                offset: table_of.len(),
                ended: (0, 0),
            });
            table_of.extend(std::iter::repeat_n(k, n));
        }
        // Tables are told apart by rules name and size (in metrics and meta.json).
        for (k, t) in tables.iter().enumerate() {
            if tables[..k].iter().any(|u| u.tag() == t.tag()) {
                return Err(TrainError::Config(format!(
                    "two tables are {}: their rules have the same name",
                    t.tag()
                )));
            }
        }
        let expected = Some((OBS_VERSION, OBS_SIZE, NUM_ACTIONS));
        let resumed = resume && meta_file.is_file();
        let (mut learner, mut state) = if resumed {
            // The learner continues with the config's settings (the device
            // and the optimizer's included), not the checkpoint's: what
            // config.toml and meta.json record is what trains.
            let mut lc = cfg.learner.clone();
            lc.seed = cfg.seed;
            let (learner, meta, before) = Learner::resume(&latest, expected, lc.clone())
                .map_err(|e| TrainError::Checkpoint(naming_checkpoint(&latest, &e)))?;
            let names = |v: Vec<(String, usize)>| {
                v.iter()
                    .map(|(r, p)| format!("{r} with {p} players"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let trained: Vec<(String, usize)> = meta
                .all_tables()
                .into_iter()
                .map(|t| (t.rules, t.players))
                .collect();
            let asked: Vec<(String, usize)> = tables
                .iter()
                .map(|t| (t.rules.name.clone(), t.players))
                .collect();
            if trained != asked {
                return Err(TrainError::Config(format!(
                    "cannot resume: the run in {} trains {}, not {}",
                    out.display(),
                    names(trained),
                    names(asked)
                )));
            }
            // Same names, but the rules themselves (a rules file edited since,
            // a preset changed by an update) must be the ones trained on.
            for (t, table) in meta.all_tables().iter().zip(&tables) {
                let Some(was) = t.trained_rules() else {
                    continue;
                };
                let diff = was.differences(&table.rules);
                if !diff.is_empty() {
                    return Err(TrainError::Config(format!(
                        "cannot resume: the run in {} trained on `{}` with other settings than the rules given now ({} differ); \
                         resume with the rules it was trained on (its latest/meta.json holds them), or start a new run from its weights with --init {}",
                        out.display(),
                        t.rules,
                        uno_agents::neural::summarize(&diff),
                        latest.display()
                    )));
                }
            }
            // The network is the checkpoint's: a config asking for another
            // shape would be written to config.toml and describe another run.
            let net = learner.net_config();
            if net.hidden != cfg.hidden || net.layer_norm != cfg.layer_norm {
                return Err(TrainError::Config(format!(
                    "cannot resume: the config asks for hidden = {:?}, layer_norm = {}, but the run's network has hidden = {:?}, layer_norm = {}",
                    cfg.hidden, cfg.layer_norm, net.hidden, net.layer_norm
                )));
            }
            let changed = changed_settings(&before, &lc);
            if !changed.is_empty() {
                note(format!(
                    "note: resuming with other [learner] settings than the run's last checkpoint, applied from the next update: {}",
                    changed.join(", ")
                ));
            }
            let trainer_file = out.join(TRAINER_FILE);
            let text =
                std::fs::read_to_string(&trainer_file).map_err(io_error("read", &trainer_file))?;
            let state: TrainerState =
                serde_json::from_str(&text).map_err(|e| TrainError::Corrupt {
                    path: trainer_file.clone(),
                    message: e.to_string(),
                })?;
            // Each file is written atomically, the set is not: a kill between
            // latest/ and trainer.json leaves them one update apart.
            if learner.updates() != state.updates {
                note(format!(
                    "note: latest/ holds the network after update {} but {TRAINER_FILE} the counters after update {} (a save was cut short); continuing with that network and those counters",
                    learner.updates(),
                    state.updates
                ));
            }
            (learner, state)
        } else {
            if resume {
                note(format!(
                    "note: no checkpoint in {} yet; starting a new run",
                    out.display()
                ));
            }
            let mut lc = cfg.learner.clone();
            lc.seed = cfg.seed;
            let learner = match &cfg.init {
                Some(dir) => {
                    let grow_to = cfg.grow.then(|| net_config(&cfg));
                    let (learner, _) =
                        Learner::from_policy_checkpoint(dir, expected, lc, grow_to.as_ref())
                            .map_err(|e| {
                                TrainError::Checkpoint(format!(
                                    "--init: {}",
                                    naming_checkpoint(dir, &e)
                                ))
                            })?;
                    cfg.hidden = learner.net_config().hidden.clone();
                    cfg.layer_norm = learner.net_config().layer_norm;
                    learner
                }
                None => Learner::new(net_config(&cfg), lc)?,
            };
            (learner, TrainerState::default())
        };
        // Checked once the run and the config were found to fit each other,
        // and before anything is written (the metrics, config.toml).
        if resume && state.steps >= cfg.steps {
            return Err(TrainError::NothingToTrain {
                out: out.to_path_buf(),
                steps: state.steps,
                budget: cfg.steps,
            });
        }
        state.episodes_per_table.resize(tables.len(), 0);
        state.eval_seed.get_or_insert(cfg.seed ^ EVAL_SALT);
        learner.attach_critic(ORACLE_SIZE)?;
        // The pool: snapshots in this run's own pool/ (see `pool_entry`); one
        // that is gone or cannot be loaded leaves the pool with a note, so
        // the loaded policies and the listed paths stay in step.
        let mut pool = Vec::new();
        let mut kept: Vec<PathBuf> = Vec::new();
        for entry in std::mem::take(&mut state.pool) {
            let Some(rel) = pool_entry(&entry) else {
                note(format!(
                    "note: {TRAINER_FILE} lists {} as an opponent snapshot, which is not one in {}; left out of the pool",
                    entry.display(),
                    out.join("pool").display()
                ));
                continue;
            };
            if kept.contains(&rel) {
                continue;
            }
            let dir = out.join(&rel);
            match NeuralPolicy::load(&dir, expected) {
                Ok((p, _)) => {
                    pool.push(p);
                    kept.push(rel);
                }
                Err(e) => note(format!(
                    "note: opponent snapshot {} cannot be loaded ({e}); left out of the pool",
                    dir.display()
                )),
            }
        }
        state.pool = kept;
        let metrics = if resume {
            let (sink, dropped) = MetricsSink::resume(out, cfg.tensorboard, state.steps)?;
            if dropped > 0 && resumed {
                note(format!(
                    "note: {dropped} line(s) of {} came after the checkpoint this run continues from (step {}), from a run that stopped without saving them; removed, and TensorBoard hides their points",
                    crate::metrics::METRICS_JSONL,
                    state.steps
                ));
            } else if dropped > 0 {
                note(format!(
                    "note: {dropped} line(s) of {} came from a run stopped before its first checkpoint; removed, and TensorBoard hides their points",
                    crate::metrics::METRICS_JSONL,
                ));
            }
            sink
        } else {
            MetricsSink::new(out, cfg.tensorboard)?
        };
        let device = uno_agents::neural::device_by_name(&learner.config().device)
            .map_err(|e| TrainError::Learner(e.into()))?;
        let policy = NeuralPolicy::new_on(learner.inference_model(), device.clone());
        let critic = learner
            .critic_inference_model()
            .map(|c| NeuralPolicy::new_on(c, device.clone()));
        let n = cfg.envs;
        let mut t = Trainer {
            rng: ChaCha8Rng::seed_from_u64(
                cfg.seed ^ ROLLOUT_SALT ^ state.updates.wrapping_mul(0x9E37_79B9),
            ),
            out: out.to_path_buf(),
            trajs: table_of
                .iter()
                .map(|&k| (0..tables[k].players).map(|_| Traj::default()).collect())
                .collect(),
            tables,
            table_of,
            learner,
            device,
            policy,
            critic,
            pool,
            ctl: (0..n).map(|_| Vec::new()).collect(),
            ready: RolloutBatch::default(),
            metrics,
            recent: VecDeque::new(),
            notes,
            saved_update: state.updates,
            resumed,
            pruned: Vec::new(),
            state,
            _lock: lock,
            cfg,
        };
        // A resumed run deals new games, not the ones its start dealt (the
        // same mix of the update count as the opponent generator's).
        let resumed = t.state.updates.wrapping_mul(0x9E37_79B9);
        for table in &mut t.tables {
            let seed = table.env.seed() ^ resumed;
            table.env.reseed(seed);
            table
                .env
                .reset(table.buf.batch())
                .map_err(|e| TrainError::Config(e.to_string()))?;
        }
        for i in 0..n {
            t.assign(i)?;
        }
        let toml = toml::to_string(&t.cfg).map_err(|e| TrainError::Serialize {
            what: CONFIG_FILE,
            message: e.to_string(),
        })?;
        let path = t.out.join(CONFIG_FILE);
        std::fs::write(&path, toml).map_err(io_error("write", &path))?;
        Ok(t)
    }

    /// What starting the run has to say (a stale lock taken over, opponent
    /// snapshots left out of the pool, settings that changed on resume): the
    /// library prints nothing, `uno-attack train` prints these.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// True when the run continues from a checkpoint: false for a new run,
    /// and for a `--resume` that found no checkpoint and started anew.
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// True when the run evaluates: `eval_every` and `eval_games` both above 0.
    fn evaluates(&self) -> bool {
        self.cfg.eval_every > 0 && self.cfg.eval_games > 0
    }

    /// Counters so far.
    pub fn state(&self) -> &TrainerState {
        &self.state
    }

    /// What the run plays, as its start line says: `rules at N players`, or
    /// `rules:N, rules:N…` for several tables. The rules as the run names
    /// them (a preset or a file's path), but for a rules file gone since the
    /// run started the name of the rules it resumed with.
    pub fn describe_tables(&self) -> String {
        match self.tables.as_slice() {
            [t] => format!("{} at {} players", t.spec, t.players),
            tables => tables
                .iter()
                .map(|t| format!("{}:{}", t.spec, t.players))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &TrainConfig {
        &self.cfg
    }

    /// Draws who plays each seat of game `i` for its new episode.
    fn assign(&mut self, i: usize) -> Result<(), TrainError> {
        let n = self.tables[self.table_of[i]].players;
        let mix = &self.cfg.opponents;
        let mut ctl: Vec<Ctl> = Vec::with_capacity(n);
        if self.rng.random::<f64>() < mix.self_play {
            ctl.extend((0..n).map(|_| Ctl::Learner));
        } else {
            let learner_seat = self.rng.random_range(0..n);
            let snap = if self.pool.is_empty() {
                0.0
            } else {
                mix.snapshot
            };
            let total = snap + mix.heuristic + mix.random;
            let u = self.rng.random::<f64>() * total;
            let pick = if total <= 0.0 {
                2
            } else if u < snap {
                0
            } else if u < snap + mix.heuristic {
                1
            } else {
                2
            };
            let snapshot = if self.pool.is_empty() {
                0
            } else {
                self.rng.random_range(0..self.pool.len())
            };
            for s in 0..n {
                let c = if s == learner_seat {
                    Ctl::Learner
                } else {
                    let seed = self.rng.random::<u64>();
                    match pick {
                        0 => Ctl::Snapshot(snapshot),
                        1 => Ctl::Agent(build(&AgentSpec::Heuristic(Default::default()), seed)?),
                        _ => Ctl::Agent(build(&AgentSpec::Random, seed)?),
                    }
                };
                ctl.push(c);
            }
        }
        self.ctl[i] = ctl;
        Ok(())
    }

    /// One environment step for every game. Returns the env steps taken.
    fn step(
        &mut self,
        learner: &mut Group,
        snaps: &mut [Group],
        actions: &mut [u32],
    ) -> Result<u64, TrainError> {
        learner.clear();
        for g in snaps.iter_mut() {
            g.clear();
        }
        for table in &self.tables {
            let buf = &table.buf;
            for j in 0..table.env.num_envs() {
                let i = table.offset + j;
                let seat = buf.seat[j] as usize;
                let (game, state) = (table.env.game(), table.env.state(j));
                let legal = table.env.legal_mask(j);
                // Networks choose among the actions of `playing_mask`, in
                // training as when they play as `checkpoint:` agents (a press
                // that can bring no card is left out while a card can be
                // played); hand-written agents among the legal ones.
                let choices = match self.ctl[i][seat] {
                    Ctl::Agent(_) => legal,
                    _ => playing_choices(legal, state),
                };
                if choices.count_ones() == 1 {
                    actions[i] = choices.trailing_zeros();
                    continue;
                }
                match &mut self.ctl[i][seat] {
                    Ctl::Learner => {
                        learner.push(i, buf, j, choices);
                        if self.critic.is_some() {
                            learner.push_oracle(game, state, seat);
                        }
                    }
                    Ctl::Snapshot(k) => snaps[*k].push(i, buf, j, choices),
                    Ctl::Agent(agent) => actions[i] = agent.act(game, state, seat) as u32,
                }
            }
        }
        if !learner.envs.is_empty() {
            learner.forward(&self.policy)?;
            if let Some(critic) = &self.critic {
                learner.critic_values(critic)?;
            }
            for (r, &i) in learner.envs.iter().enumerate() {
                let logits = &learner.logits[r * NUM_ACTIONS..(r + 1) * NUM_ACTIONS];
                let mask = &learner.masks[r * NUM_ACTIONS..(r + 1) * NUM_ACTIONS];
                let (a, logp) = sample_masked(logits, mask, &mut self.rng).unwrap_or((0, 0.0));
                actions[i] = a as u32;
                let table = &self.tables[self.table_of[i]];
                let seat = table.buf.seat[i - table.offset] as usize;
                let t = &mut self.trajs[i][seat];
                t.obs
                    .extend_from_slice(&learner.obs[r * OBS_SIZE..(r + 1) * OBS_SIZE]);
                t.masks.extend_from_slice(mask);
                t.actions.push(a as u32);
                t.logp.push(logp);
                t.values.push(learner.values[r]);
                t.rewards.push(0.0);
                if self.critic.is_some() {
                    t.oracle
                        .extend_from_slice(&learner.oracle[r * ORACLE_SIZE..(r + 1) * ORACLE_SIZE]);
                }
            }
        }
        for (k, g) in snaps.iter_mut().enumerate() {
            if g.envs.is_empty() {
                continue;
            }
            g.forward(&self.pool[k])?;
            for (r, &i) in g.envs.iter().enumerate() {
                let logits = &g.logits[r * NUM_ACTIONS..(r + 1) * NUM_ACTIONS];
                let mask = &g.masks[r * NUM_ACTIONS..(r + 1) * NUM_ACTIONS];
                actions[i] =
                    sample_masked(logits, mask, &mut self.rng).map_or(0, |(a, _)| a as u32);
            }
        }
        for table in &mut self.tables {
            let n = table.env.num_envs();
            table
                .env
                .step(&actions[table.offset..table.offset + n], table.buf.batch())?;
        }
        for k in 0..self.tables.len() {
            let (offset, n) = (self.tables[k].offset, self.tables[k].env.num_envs());
            for j in 0..n {
                let i = offset + j;
                let buf = &self.tables[k].buf;
                let rewards = &buf.rewards[j * MAX_PLAYERS..(j + 1) * MAX_PLAYERS];
                for (seat, t) in self.trajs[i].iter_mut().enumerate() {
                    if rewards[seat] != 0.0
                        && let Some(r) = t.rewards.last_mut()
                    {
                        *r += rewards[seat];
                    }
                }
                if buf.truncated[j] == 1 {
                    for t in self.trajs[i].iter_mut() {
                        if let Some(r) = t.rewards.last_mut() {
                            *r += self.cfg.truncation_reward;
                        }
                    }
                }
                if buf.terminated[j] == 1 || buf.truncated[j] == 1 {
                    let winner = buf.winner[j];
                    let len = u64::from(buf.episode_len[j]);
                    let ended = &mut self.tables[k].ended;
                    *ended = (ended.0 + 1, ended.1 + len);
                    self.state.episodes_per_table[k] += 1;
                    self.finish_episode(i, winner);
                    self.assign(i)?;
                }
            }
        }
        Ok(self.cfg.envs as u64)
    }

    /// Closes every trajectory of game `i`: GAE and into the training batch.
    fn finish_episode(&mut self, i: usize, winner: i32) {
        self.state.episodes += 1;
        let learners: Vec<bool> = self.ctl[i]
            .iter()
            .map(|c| matches!(c, Ctl::Learner))
            .collect();
        if learners.iter().any(|l| !l) {
            let won = winner >= 0 && learners[winner as usize];
            self.recent.push_back(won);
            if self.recent.len() > 500 {
                self.recent.pop_front();
            }
        }
        for t in self.trajs[i].iter_mut() {
            let len = t.len();
            if len == 0 {
                continue;
            }
            let mut dones = vec![false; len];
            dones[len - 1] = true;
            let gae = compute_gae(
                &t.rewards,
                &t.values,
                &dones,
                &[0.0],
                1,
                self.cfg.gamma,
                self.cfg.lambda,
            );
            let b = &mut self.ready;
            b.obs.extend_from_slice(&t.obs);
            b.masks.extend_from_slice(&t.masks);
            b.actions.extend_from_slice(&t.actions);
            b.old_logp.extend_from_slice(&t.logp);
            b.advantages.extend_from_slice(&gae.advantages);
            b.returns.extend_from_slice(&gae.returns);
            b.old_values.extend_from_slice(&t.values);
            b.critic_obs.extend_from_slice(&t.oracle);
            t.clear();
        }
    }

    /// Runs until `cfg.steps` env steps (or `stop` is raised), reporting progress.
    pub fn run(
        &mut self,
        stop: Arc<AtomicBool>,
        mut on_progress: impl FnMut(&Progress),
    ) -> Result<(), TrainError> {
        let n = self.cfg.envs;
        let mut learner = Group::default();
        let mut snaps: Vec<Group> = Vec::new();
        let mut actions = vec![0u32; n];
        let start = Instant::now();
        let base_seconds = self.state.seconds;
        let first_update = self.state.updates;
        let mut window = (Instant::now(), self.state.steps);
        let mut rate = 0.0;
        while self.state.steps < self.cfg.steps && !stop.load(Ordering::Relaxed) {
            snaps.resize_with(self.pool.len(), Group::default);
            let roll = Instant::now();
            let steps_before = self.state.steps;
            // A rollout cut short by a stop is thrown away, so the counters
            // go back to where the last update left them: the steps of that
            // rollout are not trained on and do not use up the run's --steps.
            let counted = (self.state.episodes, self.state.episodes_per_table.clone());
            while self.ready.len() < self.cfg.batch_samples && !stop.load(Ordering::Relaxed) {
                self.state.steps += self.step(&mut learner, &mut snaps, &mut actions)?;
                if window.0.elapsed().as_secs_f64() > 2.0 {
                    rate = (self.state.steps - window.1) as f64 / window.0.elapsed().as_secs_f64();
                    window = (Instant::now(), self.state.steps);
                    on_progress(&self.progress(rate));
                }
            }
            if stop.load(Ordering::Relaxed) {
                self.state.steps = steps_before;
                (self.state.episodes, self.state.episodes_per_table) = counted;
                break;
            }
            let rollout_secs = roll.elapsed().as_secs_f64();
            let frac = (self.state.steps as f64 / self.cfg.steps as f64).min(1.0);
            let lr = if self.cfg.lr_anneal {
                self.cfg.learner.lr * (1.0 - 0.9 * frac)
            } else {
                self.cfg.learner.lr
            };
            // The batch is checked first: weights that grew huge but stayed
            // finite can make the rollout's outputs NaN (a divergence, not a bug).
            let stats = match self.learner.try_update(&self.ready, lr) {
                Ok(stats) => stats,
                Err(e) => {
                    return Err(TrainError::Diverged {
                        update: self.state.updates + 1,
                        what: format!("the rollout it would train on ({e})"),
                        kept: self.kept_checkpoint(),
                    });
                }
            };
            self.state.samples += self.ready.len() as u64;
            self.ready.clear();
            self.state.updates += 1;
            let model = self.learner.inference_model();
            self.check_finite(&stats, &model, rollout_secs)?;
            self.policy = NeuralPolicy::new_on(model, self.device.clone());
            self.critic = self
                .learner
                .critic_inference_model()
                .map(|c| NeuralPolicy::new_on(c, self.device.clone()));
            // The update's own rate: its env steps over its rollout and
            // learning (the evaluations and checkpoints between updates are
            // not counted; the progress line's rate counts everything).
            let update_rate =
                (self.state.steps - steps_before) as f64 / roll.elapsed().as_secs_f64().max(1e-9);
            self.log_update(&stats, rollout_secs, update_rate)?;
            // Until the first two-second window ends, the progress line shows
            // the update's rate (a short run would show 0 steps/s throughout).
            if rate == 0.0 {
                rate = update_rate;
            }
            if self.cfg.snapshot_every > 0
                && self.state.updates.is_multiple_of(self.cfg.snapshot_every)
            {
                self.add_snapshot()?;
            }
            // Saved at every multiple of `checkpoint_every` updates of the
            // run (not of this session: a resumed run keeps the schedule its
            // pool snapshots follow), and before every evaluation.
            let evaluate =
                self.evaluates() && self.state.updates.is_multiple_of(self.cfg.eval_every);
            if evaluate
                || self
                    .state
                    .updates
                    .is_multiple_of(self.cfg.checkpoint_every.max(1))
            {
                self.state.seconds = base_seconds + start.elapsed().as_secs_f64();
                self.save()?;
            }
            if evaluate {
                self.evaluate_until(&stop)?;
            }
            on_progress(&self.progress(rate));
        }
        // A run that ends between evaluations is evaluated once more, so that
        // even a short run has results and a `best/` (not after Ctrl-C).
        let finished = self.state.steps >= self.cfg.steps && !stop.load(Ordering::Relaxed);
        if finished
            && self.evaluates()
            && self.state.updates > first_update
            && !self.state.updates.is_multiple_of(self.cfg.eval_every)
        {
            self.state.seconds = base_seconds + start.elapsed().as_secs_f64();
            self.save()?;
            self.evaluate_until(&stop)?;
        }
        self.state.seconds = base_seconds + start.elapsed().as_secs_f64();
        self.save()?;
        self.metrics.flush()?;
        Ok(())
    }

    /// Stops the run at the first update whose loss or resulting weights are
    /// not finite numbers, before anything is saved from it (its metrics are
    /// still logged, so the divergence shows in `metrics.jsonl`).
    fn check_finite(
        &mut self,
        stats: &UpdateStats,
        model: &PolicyValueNet,
        rollout_secs: f64,
    ) -> Result<(), TrainError> {
        let (bad, total) = bad_weights(model);
        let what = if bad > 0 {
            format!(
                "{bad} of the network's {total} weights are not finite numbers within ±{MAX_WEIGHT:e}"
            )
        } else if !stats.total_loss.is_finite() {
            format!("the loss is {}", stats.total_loss)
        } else {
            return Ok(());
        };
        let _ = self.log_update(stats, rollout_secs, 0.0);
        let _ = self.metrics.flush();
        Err(TrainError::Diverged {
            update: self.state.updates,
            what,
            kept: self.kept_checkpoint(),
        })
    }

    /// What the run directory keeps after a divergence, and how to go on.
    fn kept_checkpoint(&self) -> String {
        if self
            .out
            .join("latest")
            .join(uno_agents::neural::META_FILE)
            .is_file()
        {
            format!(
                "latest/ and trainer.json keep the checkpoint of update {} (continue from it with --resume --config FILE)",
                self.saved_update
            )
        } else {
            "no checkpoint had been saved yet".to_string()
        }
    }

    fn progress(&self, rate: f64) -> Progress {
        let wins = self.recent.iter().filter(|&&w| w).count();
        Progress {
            steps: self.state.steps,
            total: self.cfg.steps,
            steps_per_sec: rate,
            win_rate: if self.recent.is_empty() {
                0.0
            } else {
                wins as f64 / self.recent.len() as f64
            },
            updates: self.state.updates,
        }
    }

    fn log_update(
        &mut self,
        s: &UpdateStats,
        rollout_secs: f64,
        rate: f64,
    ) -> Result<(), TrainError> {
        let mut scalars: Vec<(String, f64)> = s
            .scalars()
            .into_iter()
            .map(|(k, v)| {
                let tag = if k.contains('/') {
                    k.to_string()
                } else {
                    format!("train/{k}")
                };
                (tag, v)
            })
            .collect();
        scalars.push(("perf/rollout_seconds".into(), rollout_secs));
        scalars.push(("perf/steps_per_sec".into(), rate));
        scalars.push(("train/episodes".into(), self.state.episodes as f64));
        // Mean episode length (decisions of every seat) of the episodes
        // finished since the last update: overall, and per table when several.
        let (mut eps, mut len) = (0, 0);
        let several = self.tables.len() > 1;
        for table in &mut self.tables {
            let (e, l) = std::mem::take(&mut table.ended);
            if several && e > 0 {
                let tag = format!("train/{}/episode_length", table.tag());
                scalars.push((tag, l as f64 / e as f64));
            }
            (eps, len) = (eps + e, len + l);
        }
        if eps > 0 {
            scalars.push(("train/episode_length".into(), len as f64 / eps as f64));
        }
        scalars.push(("train/samples".into(), self.state.samples as f64));
        let p = self.progress(rate);
        scalars.push(("train/recent_win_rate_vs_opponents".into(), p.win_rate));
        Ok(self.metrics.log(self.state.steps, &scalars)?)
    }

    fn meta(&self) -> CheckpointMeta {
        let main = &self.tables[0];
        let mut meta = CheckpointMeta::new(
            main.rules.name.clone(),
            main.players,
            OBS_VERSION,
            self.learner.net_config().clone(),
        );
        meta.steps = self.state.steps;
        meta.updates = self.state.updates;
        meta.rules_toml = Some(main.rules.to_toml());
        if self.tables.len() > 1 {
            meta.tables = self
                .tables
                .iter()
                .map(|t| TableMeta {
                    rules: t.rules.name.clone(),
                    players: t.players,
                    rules_toml: Some(t.rules.to_toml()),
                })
                .collect();
        }
        meta.trained_with = serde_json::to_value(&self.cfg).unwrap_or_default();
        meta.eval = self.state.eval.clone();
        meta
    }

    /// Saves `latest/` and `trainer.json` (each file written atomically).
    pub fn save(&mut self) -> Result<(), TrainError> {
        let meta = self.meta();
        self.learner.save(&self.out.join("latest"), &meta)?;
        let json = serde_json::to_vec_pretty(&self.state).map_err(|e| TrainError::Serialize {
            what: TRAINER_FILE,
            message: e.to_string(),
        })?;
        uno_agents::neural::write_atomic(&self.out.join(TRAINER_FILE), &json)
            .map_err(TrainError::Save)?;
        self.saved_update = self.state.updates;
        for old in self.pruned.drain(..) {
            let _ = std::fs::remove_dir_all(self.out.join(old));
        }
        Ok(())
    }

    fn add_snapshot(&mut self) -> Result<(), TrainError> {
        // Recorded relative to the run directory, so the run can move.
        let rel = Path::new("pool").join(format!("update-{:06}", self.state.updates));
        let meta = self.meta();
        save_checkpoint(&self.out.join(&rel), &self.learner.inference_model(), &meta)
            .map_err(|e| TrainError::Learner(e.into()))?;
        self.pool
            .push(NeuralPolicy::new(self.learner.inference_model()));
        self.state.pool.push(rel);
        while self.pool.len() > self.cfg.pool_size.max(1) {
            self.pool.remove(0);
            drop_oldest_snapshot(&mut self.ctl);
            let old = self.state.pool.remove(0);
            // Only ever a directory of this run's own pool/, and only once
            // trainer.json no longer lists it (at the next save): a run killed
            // before then resumes with every snapshot its trainer.json names.
            if pool_entry(&old).as_ref() == Some(&old) {
                self.pruned.push(old);
            }
        }
        Ok(())
    }

    /// Plays the latest checkpoint against `random` and `heuristic` in the
    /// arena, on every table of the run (`eval_games` games each).
    ///
    /// One table: `eval/win_rate_vs_{random,heuristic}` and `eval` =
    /// `{opponent: {win_rate, ci, games, chance, truncated}}`. Several: the same per
    /// table under `eval/<rules>-<N>p/…` and `eval.tables`, and the means
    /// over the tables in the one-table places (`best/` keeps the best mean).
    pub fn evaluate(&mut self) -> Result<(), TrainError> {
        self.evaluate_until(&AtomicBool::new(false)).map(|_| ())
    }

    /// [`Trainer::evaluate`] that gives up when `stop` is raised (Ctrl-C
    /// during a long evaluation): nothing of it is recorded, and the result
    /// is `false`.
    pub fn evaluate_until(&mut self, stop: &AtomicBool) -> Result<bool, TrainError> {
        let latest = self.out.join("latest");
        let several = self.tables.len() > 1;
        let mut scalars = Vec::new();
        let mut per_table = serde_json::Map::new();
        // Per opponent: sums of win rate and chance over the tables, and games.
        let mut sums = [(0.0, 0.0, 0u64); 2];
        for table in &self.tables {
            let mut results = serde_json::Map::new();
            for (o, opp) in ["random", "heuristic"].into_iter().enumerate() {
                let cfg = ArenaConfig {
                    rules: table.rules.clone(),
                    players: table.players,
                    agents: eval_agents(&latest, opp, table.players),
                    games: self.cfg.eval_games.max(table.players as u64),
                    // The same deals at every evaluation (paired comparisons:
                    // differences between evaluations, and so `best/`, reflect
                    // the network rather than the luck of new deals).
                    // (Set when the run starts; see `TrainerState::eval_seed`.)
                    seed: self.state.eval_seed.unwrap_or(self.cfg.seed ^ EVAL_SALT),
                    threads: self.cfg.resolved_threads(),
                };
                let report = match run_arena_until(&cfg, None, stop) {
                    Ok(r) => r,
                    Err(uno_agents::AgentError::Interrupted) => return Ok(false),
                    Err(e) => return Err(e.into()),
                };
                let me = &report.agents[0];
                let prefix = if several {
                    format!("eval/{}/", table.tag())
                } else {
                    "eval/".to_string()
                };
                scalars.push((format!("{prefix}win_rate_vs_{opp}"), me.win_rate));
                scalars.push((format!("{prefix}points_vs_{opp}"), me.points_won));
                results.insert(
                    opp.to_string(),
                    serde_json::json!({ "win_rate": me.win_rate, "ci": me.win_ci, "games": me.games, "chance": me.chance, "truncated": report.truncated }),
                );
                sums[o].0 += me.win_rate;
                sums[o].1 += me.chance;
                sums[o].2 += me.games;
            }
            per_table.insert(table.tag(), serde_json::Value::Object(results));
        }
        let count = self.tables.len() as f64;
        let mean = |o: usize| sums[o].0 / count;
        self.state.eval = if several {
            for (o, opp) in ["random", "heuristic"].into_iter().enumerate() {
                scalars.push((format!("eval/win_rate_vs_{opp}"), mean(o)));
            }
            let mut results = serde_json::Map::new();
            for (o, opp) in ["random", "heuristic"].into_iter().enumerate() {
                results.insert(
                    opp.to_string(),
                    serde_json::json!({ "win_rate": mean(o), "games": sums[o].2, "chance": sums[o].1 / count, "mean_over_tables": true }),
                );
            }
            results.insert("tables".into(), serde_json::Value::Object(per_table));
            serde_json::Value::Object(results)
        } else {
            per_table
                .into_iter()
                .next()
                .map_or(serde_json::Value::Null, |(_, v)| v)
        };
        self.metrics.log(self.state.steps, &scalars)?;
        let vs_heuristic = mean(1);
        if self
            .state
            .best_vs_heuristic
            .is_none_or(|b| vs_heuristic > b)
        {
            self.state.best_vs_heuristic = Some(vs_heuristic);
            save_checkpoint(
                &self.out.join("best"),
                &self.learner.inference_model(),
                &self.meta(),
            )
            .map_err(|e| TrainError::Learner(e.into()))?;
        }
        self.save()?;
        Ok(true)
    }
}

/// The agent list of an evaluation: the checkpoint in one seat of every
/// `players / k` block, the opponent elsewhere (1 checkpoint vs players-1 opponents).
fn eval_agents(latest: &Path, opp: &str, players: usize) -> Vec<AgentSpec> {
    let me = AgentSpec::Checkpoint(latest.to_path_buf());
    let them = if opp == "random" {
        AgentSpec::Random
    } else {
        AgentSpec::Heuristic(Default::default())
    };
    let mut v = vec![me];
    v.extend((1..players).map(|_| them.clone()));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_files_show_settings_as_written_and_read_them_back_unchanged() {
        let mut cfg = TrainConfig::default();
        cfg.learner.target_kl = Some(0.02);
        let text = toml::to_string(&cfg).unwrap();
        for line in [
            "lambda = 0.95",
            "clip_eps = 0.2",
            "entropy_coef = 0.01",
            "adam_eps = 0.00001",
            "target_kl = 0.02",
        ] {
            assert!(text.contains(line), "{line}: {text}");
        }
        assert!(!text.contains("0.9499999"), "{text}");
        assert_eq!(toml::from_str::<TrainConfig>(&text).unwrap(), cfg);
        let json = serde_json::to_value(&cfg).unwrap();
        assert_eq!(serde_json::from_value::<TrainConfig>(json).unwrap(), cfg);
    }
    use uno_agents::neural::playing_mask;

    #[test]
    fn running_episodes_keep_their_snapshot_when_the_pool_drops_its_oldest() {
        let mut ctl = vec![
            vec![Ctl::Learner, Ctl::Snapshot(2), Ctl::Snapshot(0)],
            vec![Ctl::Snapshot(1), Ctl::Learner],
        ];
        drop_oldest_snapshot(&mut ctl);
        let idx = |c: &Ctl| match c {
            Ctl::Snapshot(k) => Some(*k),
            _ => None,
        };
        let got: Vec<Vec<Option<usize>>> =
            ctl.iter().map(|r| r.iter().map(idx).collect()).collect();
        // Pool [s0, s1, s2] became [s1, s2]: s2 is now 1, s1 is now 0, and the
        // seat that played the dropped s0 plays the next oldest (s1, now 0).
        assert_eq!(got, [vec![None, Some(1), Some(0)], vec![Some(0), None]]);
    }

    /// A tiny all-self-play run on 8 games: no evaluations, snapshots or logs.
    fn small_self_play(rules: String) -> TrainConfig {
        TrainConfig {
            rules,
            envs: 8,
            batch_samples: 64,
            hidden: vec![16],
            opponents: OpponentMix {
                self_play: 1.0,
                snapshot: 0.0,
                heuristic: 0.0,
                random: 0.0,
            },
            eval_every: 0,
            snapshot_every: 0,
            threads: 1,
            tensorboard: false,
            ..TrainConfig::default()
        }
    }

    /// Classic with a 4-decision cap: every round is cut short.
    fn capped(dir: &Path, truncation_reward: f32) -> Trainer {
        let rules = dir.join("capped.toml");
        std::fs::write(
            &rules,
            "preset = \"classic\"\n[options]\nmax_decisions = 4\n",
        )
        .unwrap();
        let cfg = TrainConfig {
            truncation_reward,
            ..small_self_play(rules.display().to_string())
        };
        Trainer::new(cfg, &dir.join(format!("run{truncation_reward}")), false).unwrap()
    }

    /// Rolls out until some episodes have closed; returns the batch's returns.
    fn returns_after_rollout(t: &mut Trainer) -> Vec<f32> {
        let (mut learner, mut snaps, mut actions) = (Group::default(), Vec::new(), vec![0; 8]);
        while t.state.episodes < 16 {
            t.step(&mut learner, &mut snaps, &mut actions).unwrap();
        }
        t.ready.returns.clone()
    }

    #[test]
    fn a_truncated_round_costs_every_learner_seat_the_truncation_reward() {
        let dir = tempfile::tempdir().unwrap();
        // The last decision of each closed trajectory returns exactly the
        // truncation reward (gamma = 1, no bootstrap past the end).
        let penalised = returns_after_rollout(&mut capped(dir.path(), -7.0));
        let last = penalised.iter().filter(|&&r| r == -7.0).count();
        assert!(
            last >= 16,
            "{last} trajectories closed with -7: {penalised:?}"
        );
        // With reward 0 (the environment's own), no return is near -7.
        let plain = returns_after_rollout(&mut capped(dir.path(), 0.0));
        assert!(plain.iter().all(|&r| r.abs() < 3.0), "{plain:?}");
    }

    /// Classic 2-player self-play with the given reward mode.
    fn classic_with(dir: &Path, reward: RewardMode) -> Trainer {
        let cfg = TrainConfig {
            reward,
            ..small_self_play("classic".into())
        };
        Trainer::new(cfg, &dir.join(format!("{reward:?}")), false).unwrap()
    }

    #[test]
    fn networks_choose_among_the_playing_mask_in_training() {
        // The learner's samples hold the actions it chose among: the
        // checkpoint agent's playing mask, which leaves out a press that can
        // bring no card (empty launcher, nothing to reload) while a card can
        // be played, so that training and play use one policy.
        let dir = tempfile::tempdir().unwrap();
        // Big hands leave the launcher few cards, so it runs dry often.
        let rules = dir.path().join("big-hands.toml");
        std::fs::write(
            &rules,
            "preset = \"attack-1999\"\n[options]\nhand_size = 50\n",
        )
        .unwrap();
        let cfg = TrainConfig {
            players: 2,
            ..small_self_play(rules.display().to_string())
        };
        let mut t = Trainer::new(cfg, &dir.path().join("run"), false).unwrap();
        let (mut learner, mut snaps, mut actions) = (Group::default(), Vec::new(), vec![0; 8]);
        let (mut rows, mut narrowed) = (0, 0);
        for _ in 0..30_000 {
            let before: Vec<(u128, u128)> = (0..8)
                .map(|j| {
                    let (g, s) = (t.tables[0].env.game(), t.tables[0].env.state(j));
                    (playing_mask(g, s), g.legal_mask(s))
                })
                .collect();
            t.step(&mut learner, &mut snaps, &mut actions).unwrap();
            for (r, &i) in learner.envs.iter().enumerate() {
                let row = &learner.masks[r * NUM_ACTIONS..(r + 1) * NUM_ACTIONS];
                let (playing, legal) = before[i];
                let want: Vec<bool> = (0..NUM_ACTIONS).map(|a| playing >> a & 1 == 1).collect();
                assert_eq!(row, &want[..]);
                assert!(playing >> actions[i] & 1 == 1);
                rows += 1;
                narrowed += usize::from(playing != legal);
            }
            if narrowed >= 3 {
                break;
            }
        }
        assert!(narrowed >= 3, "{narrowed} narrowed masks in {rows} rows");
    }

    #[test]
    fn the_trainer_the_learner_and_table_0_draw_from_different_streams() {
        // Table 0's environment is seeded with the run's seed; the trainer's
        // own draws and the learner's shuffles are salted, so game 0's first
        // deal and the first self-play coins are not the same numbers.
        use rand::RngCore;
        let dir = tempfile::tempdir().unwrap();
        let cfg = small_self_play("classic".into());
        let t = Trainer::new(cfg.clone(), &dir.path().join("run"), false).unwrap();
        // (The trainer has drawn for its games' seats already: look for its
        // next numbers anywhere in the start of the unsalted stream.)
        let draws = |mut r: ChaCha8Rng, k: usize| (0..k).map(|_| r.next_u64()).collect::<Vec<_>>();
        let plain = draws(ChaCha8Rng::seed_from_u64(cfg.seed), 4096);
        let trainer = draws(t.rng.clone(), 4);
        let learner = draws(t.learner.shuffle_rng().clone(), 4);
        for (name, next) in [("trainer", &trainer), ("learner", &learner)] {
            assert!(
                !plain.windows(4).any(|w| w == next.as_slice()),
                "the {name} draws table 0's numbers"
            );
        }
        assert_ne!(trainer, learner);
    }

    #[test]
    fn points_reward_trains_on_hand_points() {
        let dir = tempfile::tempdir().unwrap();
        let max_abs = |v: &[f32]| v.iter().fold(0.0f32, |m, r| m.max(r.abs()));
        // Win: returns are mixes of +-1 and a fresh network's small values.
        let mut win = classic_with(dir.path(), RewardMode::Win);
        assert_eq!(win.tables[0].env.config().reward, RewardMode::Win);
        let win_returns = returns_after_rollout(&mut win);
        assert!(max_abs(&win_returns) < 1.3, "{win_returns:?}");
        // Points (C-6): a winner's return is the points left in the other hand
        // / 100, past the win mode's bound in some of 64 classic rounds
        // (a wild alone is 50).
        let mut points = classic_with(dir.path(), RewardMode::Points);
        assert_eq!(points.tables[0].env.config().reward, RewardMode::Points);
        let (mut learner, mut snaps, mut actions) = (Group::default(), Vec::new(), vec![0; 8]);
        while points.state.episodes < 64 {
            points.step(&mut learner, &mut snaps, &mut actions).unwrap();
        }
        let point_returns = &points.ready.returns;
        assert!(max_abs(point_returns) > 1.5, "{point_returns:?}");
    }

    #[test]
    fn oracle_critic_sees_the_full_state_and_survives_resume() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = small_self_play("attack-2010".into());
        cfg.learner.critic = Some(crate::learner::CriticConfig {
            hidden: vec![16],
            warmup_updates: 1,
            lr_scale: 2.0,
        });
        cfg.steps = 1500;
        let run = dir.path().join("critic");
        let mut t = Trainer::new(cfg.clone(), &run, false).unwrap();
        assert_eq!(t.learner.critic_input_dim(), Some(ORACLE_SIZE));
        returns_after_rollout(&mut t);
        let b = &t.ready;
        assert!(!b.is_empty());
        assert_eq!(b.critic_obs.len(), b.len() * ORACLE_SIZE);
        for i in 0..b.len() {
            let oracle = &b.critic_obs[i * ORACLE_SIZE..(i + 1) * ORACLE_SIZE];
            // The oracle input is the sample's own observation followed by the hidden part:
            // the other player's hand (not empty while the round goes on) and the launcher.
            assert_eq!(
                &oracle[..OBS_SIZE],
                &b.obs[i * OBS_SIZE..(i + 1) * OBS_SIZE]
            );
            let other_hand: f32 = oracle[OBS_SIZE..OBS_SIZE + uno_env::NUM_FACES].iter().sum();
            assert!(
                other_hand >= 1.0,
                "sample {i}: other hand holds {other_hand}"
            );
        }
        t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
        let updates = t.learner.updates();
        assert!(updates >= 1);
        assert!(
            run.join("latest")
                .join(crate::learner::CRITIC_FILE)
                .is_file()
        );
        // Resuming restores the critic (same shape, same weights) and keeps counting.
        let critic_before = t.critic.as_ref().unwrap().net().clone();
        let probe = &b_obs_probe(&t);
        drop(t);
        let mut more = cfg.clone();
        more.steps = 3000;
        let t2 = Trainer::new(more, &run, true).unwrap();
        assert_eq!(t2.learner.updates(), updates);
        let values = |p: &NeuralPolicy| {
            let mut v = vec![0.0; 1];
            p.values_batch(probe, 1, &mut v).unwrap();
            v[0]
        };
        let resumed = NeuralPolicy::new(t2.learner.critic_inference_model().unwrap());
        assert_eq!(values(&resumed), values(&NeuralPolicy::new(critic_before)));
    }

    #[test]
    fn a_resumed_run_deals_new_games() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = small_self_play("classic".into());
        let run = dir.path().join("run");
        let mut t = Trainer::new(cfg.clone(), &run, false).unwrap();
        let first: Vec<State> = (0..8).map(|j| t.tables[0].env.state(j).clone()).collect();
        // The same config deals the same games from the start.
        let again = Trainer::new(cfg.clone(), &dir.path().join("again"), false).unwrap();
        assert_eq!(again.tables[0].env.state(0), &first[0]);
        t.run(Arc::new(AtomicBool::new(false)), |_| {}).unwrap();
        assert!(t.learner.updates() >= 1);
        drop(t);
        let mut more = cfg;
        more.steps *= 2;
        let t2 = Trainer::new(more, &run, true).unwrap();
        for (j, s) in first.iter().enumerate() {
            assert_ne!(t2.tables[0].env.state(j), s, "game {j} dealt again");
        }
    }

    #[test]
    fn a_one_entry_table_list_is_the_same_run_as_rules_and_players() {
        let dir = tempfile::tempdir().unwrap();
        let plain = small_self_play("attack-2010".into());
        let listed = TrainConfig {
            tables: vec!["attack-2010:2".into()],
            rules: "classic".into(),
            players: 5,
            ..plain.clone()
        };
        let mut a = Trainer::new(plain, &dir.path().join("a"), false).unwrap();
        let mut b = Trainer::new(listed, &dir.path().join("b"), false).unwrap();
        assert_eq!((b.cfg.rules.as_str(), b.cfg.players), ("attack-2010", 2));
        let (ra, rb) = (returns_after_rollout(&mut a), returns_after_rollout(&mut b));
        assert!(!ra.is_empty());
        assert_eq!(ra, rb);
        assert_eq!(a.ready.actions, b.ready.actions);
        assert_eq!(b.state.episodes_per_table, vec![b.state.episodes]);
        assert!(
            b.meta().tables.is_empty(),
            "one table: no `tables` in meta.json"
        );
    }

    #[test]
    fn a_second_table_does_not_replay_the_first_tables_episodes() {
        // Game g of episode e deals from `episode_seed(table seed, e)` on
        // stream g: table 1's seed must not be one of table 0's episode seeds.
        let dir = tempfile::tempdir().unwrap();
        let cfg = TrainConfig {
            tables: vec!["classic:2".into(), "attack-2010:2".into()],
            ..small_self_play("classic".into())
        };
        let t = Trainer::new(cfg, &dir.path().join("two"), false).unwrap();
        let (s0, s1) = (t.tables[0].env.seed(), t.tables[1].env.seed());
        assert_eq!(s0, t.cfg.seed, "table 0 keeps the run's seed");
        for e in 0..100_000 {
            assert_ne!(uno_env::vec_env::episode_seed(s0, e), s1, "episode {e}");
        }
    }

    #[test]
    fn grow_without_init_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = TrainConfig {
            grow: true,
            ..small_self_play("classic".into())
        };
        let err = Trainer::new(cfg, dir.path(), false).expect_err("refused");
        assert!(err.to_string().contains("grow needs init"), "{err}");
    }

    /// The oracle input of game 0 from its acting seat.
    fn b_obs_probe(t: &Trainer) -> Vec<f32> {
        let mut v = vec![0.0; ORACLE_SIZE];
        let table = &t.tables[0];
        let seat = table.buf.seat[0] as usize;
        encode_oracle(table.env.game(), table.env.state(0), seat, &mut v).unwrap();
        v
    }
}
