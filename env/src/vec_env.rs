//! The vectorized core: N games stepped in one call, writing straight into
//! preallocated contiguous buffers (EnvPool / PufferLib style).
//!
//! Each call takes one action per game (the acting seat's) and writes, per
//! game: the next observation and legal-action mask, the seat to act, rewards,
//! `terminated` / `truncated`, and for finished episodes the final observation,
//! length and winner — then auto-resets that game, so the written observation
//! is already the new episode's first. Games are split into one contiguous
//! part per thread; each thread of a thread team (`team.rs`; the calling
//! thread is one of them) steps its own part, the same every batch (the
//! caller steps the part of a thread that misses a batch). Neighbouring parts are
//! walked away from their shared boundary, and the arrays have unused memory
//! after them ([`TAIL_PAD`]), so no core's prefetcher takes cache lines that
//! another thread is writing; they start on a cache line ([`BUFFER_ALIGN`]),
//! and large batches are cut on whole lines of games, so no line holds two
//! threads' rows. Every game draws chance
//! from its own ChaCha stream (stream = game index), so results are
//! bit-identical for any thread count. The step path does not allocate.

use crate::action::NUM_ACTIONS;
use crate::error::{ActionError, ConfigError};
use crate::game::{Game, MAX_PLAYERS};
use crate::obs::{OBS_SIZE, encode_unchecked, write_legal_ids, write_mask_unchecked};
use crate::rules::Rules;
use crate::state::{Phase, State};
use crate::team::{Job, Team};
use serde::{Deserialize, Serialize};
use std::cell::UnsafeCell;
use std::marker::PhantomData;

/// What one episode is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Episode {
    /// One round (hand): ends when someone goes out.
    Round,
    /// One match (C-7): rounds until the match is decided.
    Match,
}

/// How rewards are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RewardMode {
    /// Zero-sum: the winner +1, every other seat -1/(N-1); 0 for all when truncated.
    Win,
    /// Zero-sum points at each round's end: the winner + points won / 100, each
    /// other seat - points they held / 100.
    Points,
}

/// Everything that defines a batch of environments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnvConfig {
    /// The edition.
    pub rules: Rules,
    /// Players per table (2..=10).
    pub players: usize,
    /// Episode = round or match.
    pub episode: Episode,
    /// Reward mode.
    pub reward: RewardMode,
}

impl EnvConfig {
    /// One-round episodes with win/loss rewards.
    pub fn new(rules: Rules, players: usize) -> Self {
        EnvConfig {
            rules,
            players,
            episode: Episode::Round,
            reward: RewardMode::Win,
        }
    }
}

/// Mutable views of the batch buffers (one row per game). Every slice must
/// have exactly `num_envs` rows of the documented width.
#[derive(Debug)]
pub struct BatchMut<'a> {
    /// Observation of the seat to act: `[n, OBS_SIZE]`.
    pub obs: &'a mut [f32],
    /// Legal actions of the seat to act (1 = legal): `[n, NUM_ACTIONS]`.
    pub mask: &'a mut [u8],
    /// Seat to act: `[n]`.
    pub seat: &'a mut [i32],
    /// Reward of the seat that just acted: `[n]`.
    pub reward: &'a mut [f32],
    /// Reward of every seat this step (non-zero at episode or round ends): `[n, MAX_PLAYERS]`.
    pub rewards: &'a mut [f32],
    /// Episode ended by the rules: `[n]`.
    pub terminated: &'a mut [u8],
    /// Episode cut short by the decision cap: `[n]`.
    pub truncated: &'a mut [u8],
    /// Final observation of a finished episode, seen by the seat that acted last: `[n, OBS_SIZE]`.
    pub final_obs: &'a mut [f32],
    /// Decisions in the episode that ended at this step, 0 where none did: `[n]`.
    pub episode_len: &'a mut [u32],
    /// Winner of the episode that ended at this step (-1 when none, or none ended): `[n]`.
    pub winner: &'a mut [i32],
    /// Optional (empty to skip): the legal action ids of the seat to act, in
    /// increasing order, `[n, NUM_ACTIONS]`; only the first `legal_count[i]`
    /// entries of a row are meaningful. Lets a caller pick a uniformly random
    /// legal action with one index per game instead of a scan of the mask.
    pub legal_ids: &'a mut [u8],
    /// Optional (empty to skip, together with `legal_ids`): number of legal actions: `[n]`.
    pub legal_count: &'a mut [u8],
}

/// One buffer's length, and the length its rows should give it.
#[derive(Clone, Copy)]
struct Size {
    name: &'static str,
    got: usize,
    want: usize,
    /// May be empty instead.
    optional: bool,
}

impl Size {
    /// The buffer has the length its rows give it (or is empty, if optional).
    #[inline]
    fn fits(&self) -> bool {
        self.got == self.want || (self.optional && self.got == 0)
    }
}

impl BatchMut<'_> {
    /// Checks that every buffer has `n` rows of its documented width (the
    /// optional `legal_ids` / `legal_count` may both be empty).
    pub fn check(&self, n: usize) -> Result<(), ConfigError> {
        if self.legal_ids.is_empty() != self.legal_count.is_empty() {
            return Err(ConfigError::Env(
                "buffers `legal_ids` and `legal_count` must both be given or both be empty".into(),
            ));
        }
        match self.sizes(n).into_iter().find(|s| !s.fits()) {
            Some(Size {
                name, got, want, ..
            }) => Err(ConfigError::Env(format!(
                "buffer `{name}` has {got} values, expected {want}"
            ))),
            None => Ok(()),
        }
    }

    /// Whether every buffer has `n` rows ([`BatchMut::check`] without the message).
    #[inline]
    fn rows_fit(&self, n: usize) -> bool {
        self.sizes(n).iter().all(Size::fits)
    }

    /// Every buffer's length against the length `n` rows give it.
    #[inline]
    fn sizes(&self, n: usize) -> [Size; 12] {
        let size = |name, got, want, optional| Size {
            name,
            got,
            want,
            optional,
        };
        [
            size("obs", self.obs.len(), n * OBS_SIZE, false),
            size("mask", self.mask.len(), n * NUM_ACTIONS, false),
            size("seat", self.seat.len(), n, false),
            size("reward", self.reward.len(), n, false),
            size("rewards", self.rewards.len(), n * MAX_PLAYERS, false),
            size("terminated", self.terminated.len(), n, false),
            size("truncated", self.truncated.len(), n, false),
            size("final_obs", self.final_obs.len(), n * OBS_SIZE, false),
            size("episode_len", self.episode_len.len(), n, false),
            size("winner", self.winner.len(), n, false),
            size("legal_ids", self.legal_ids.len(), n * NUM_ACTIONS, true),
            size("legal_count", self.legal_count.len(), n, true),
        ]
    }

    /// Clears what a step reports (rewards, done flags, episode length and
    /// winner, the latter -1): the state of the buffers after a reset.
    #[doc(hidden)] // for the workspace's other crates; not part of the API
    pub fn clear_results(&mut self) {
        self.reward.fill(0.0);
        self.rewards.fill(0.0);
        self.terminated.fill(0);
        self.truncated.fill(0);
        self.winner.fill(-1);
        self.episode_len.fill(0);
    }

    /// A shorter-lived view of the same buffers (to hand them out more than once).
    #[doc(hidden)] // for the workspace's other crates; not part of the API
    pub fn reborrow(&mut self) -> BatchMut<'_> {
        BatchMut {
            obs: self.obs,
            mask: self.mask,
            seat: self.seat,
            reward: self.reward,
            rewards: self.rewards,
            terminated: self.terminated,
            truncated: self.truncated,
            final_obs: self.final_obs,
            episode_len: self.episode_len,
            winner: self.winner,
            legal_ids: self.legal_ids,
            legal_count: self.legal_count,
        }
    }

    /// The first `k` rows and the rest (for stepping parts of a batch on other threads).
    #[doc(hidden)] // for the workspace's other crates; not part of the API
    pub fn split_at(self, k: usize) -> (Self, Self) {
        let (o1, o2) = self.obs.split_at_mut(k * OBS_SIZE);
        let (m1, m2) = self.mask.split_at_mut(k * NUM_ACTIONS);
        let (s1, s2) = self.seat.split_at_mut(k);
        let (r1, r2) = self.reward.split_at_mut(k);
        let (a1, a2) = self.rewards.split_at_mut(k * MAX_PLAYERS);
        let (t1, t2) = self.terminated.split_at_mut(k);
        let (u1, u2) = self.truncated.split_at_mut(k);
        let (f1, f2) = self.final_obs.split_at_mut(k * OBS_SIZE);
        let (l1, l2) = self.episode_len.split_at_mut(k);
        let (w1, w2) = self.winner.split_at_mut(k);
        let (i1, i2) = split_optional(self.legal_ids, k * NUM_ACTIONS);
        let (c1, c2) = split_optional(self.legal_count, k);
        (
            BatchMut {
                obs: o1,
                mask: m1,
                seat: s1,
                reward: r1,
                rewards: a1,
                terminated: t1,
                truncated: u1,
                final_obs: f1,
                episode_len: l1,
                winner: w1,
                legal_ids: i1,
                legal_count: c1,
            },
            BatchMut {
                obs: o2,
                mask: m2,
                seat: s2,
                reward: r2,
                rewards: a2,
                terminated: t2,
                truncated: u2,
                final_obs: f2,
                episode_len: l2,
                winner: w2,
                legal_ids: i2,
                legal_count: c2,
            },
        )
    }
}

/// Splits an optional buffer (empty stays empty on both sides).
fn split_optional(b: &mut [u8], at: usize) -> (&mut [u8], &mut [u8]) {
    if b.is_empty() {
        (&mut [], &mut [])
    } else {
        b.split_at_mut(at)
    }
}

/// Bytes of unused memory kept after each per-game array that the vectorized
/// core writes, when it allocates the array ([`Buffers`], its own state; the
/// Python bindings' numpy buffers too): a thread stepping the last games of
/// a batch prefetches past an array's end into it, not into the next array,
/// whose first rows another thread may be writing.
pub const TAIL_PAD: usize = 4096;

/// Where every per-game array of the vectorized core starts: on a cache-line
/// boundary ([`Buffers`], the env's own per-game arrays, and the Python
/// bindings' numpy buffers). Parts of a batch are cut at multiples of 64
/// games when every part holds at least 512, so every array's part boundary
/// then lies on a line boundary too, and no line holds rows of two threads
/// (two cores writing one line take it from each other, slowly when they
/// share no cache; `docs/performance-log.md`, session 47).
pub const BUFFER_ALIGN: usize = 64;

/// A vector whose first value starts on a [`BUFFER_ALIGN`] boundary (it
/// dereferences to a slice, like `Vec`).
pub type AlignedVec<T> = aligned_vec::AVec<T, aligned_vec::ConstAlign<BUFFER_ALIGN>>;

/// `n` copies of `v`, starting on a cache line ([`BUFFER_ALIGN`]), with
/// [`TAIL_PAD`] bytes of unused capacity after them. A thread stepping the
/// last part of a batch streams up to the array's end, and its core's
/// prefetcher runs on past it: into this padding, not into the next
/// allocation, whose first rows another thread may be writing (two cores
/// taking the same cache lines from each other cost a third of the two-thread
/// speed when they do not share a cache; `docs/performance-log.md`, session 41).
pub(crate) fn padded<T: Clone>(n: usize, v: T) -> AlignedVec<T> {
    let mut out = AlignedVec::with_capacity(BUFFER_ALIGN, n + tail_pad::<T>());
    out.resize(n, v);
    out
}

/// [`TAIL_PAD`] bytes counted in values of `T` (rounded up).
pub fn tail_pad<T>() -> usize {
    TAIL_PAD.div_ceil(std::mem::size_of::<T>().max(1))
}

/// Owned batch buffers, for Rust users (Python passes numpy arrays instead).
/// Each vector starts on a cache line ([`BUFFER_ALIGN`]; a clone's do too),
/// and [`Buffers::new`] leaves [`TAIL_PAD`] bytes of spare capacity after it
/// (a clone does not: it steps as correctly, a little slower on several
/// threads whose cores share no cache). Equal buffers hold equal rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers {
    /// See [`BatchMut::obs`].
    pub obs: AlignedVec<f32>,
    /// See [`BatchMut::mask`].
    pub mask: AlignedVec<u8>,
    /// See [`BatchMut::seat`].
    pub seat: AlignedVec<i32>,
    /// See [`BatchMut::reward`].
    pub reward: AlignedVec<f32>,
    /// See [`BatchMut::rewards`].
    pub rewards: AlignedVec<f32>,
    /// See [`BatchMut::terminated`].
    pub terminated: AlignedVec<u8>,
    /// See [`BatchMut::truncated`].
    pub truncated: AlignedVec<u8>,
    /// See [`BatchMut::final_obs`].
    pub final_obs: AlignedVec<f32>,
    /// See [`BatchMut::episode_len`].
    pub episode_len: AlignedVec<u32>,
    /// See [`BatchMut::winner`].
    pub winner: AlignedVec<i32>,
    /// See [`BatchMut::legal_ids`] (empty unless made by [`Buffers::with_legal_ids`]).
    pub legal_ids: AlignedVec<u8>,
    /// See [`BatchMut::legal_count`] (empty unless made by [`Buffers::with_legal_ids`]).
    pub legal_count: AlignedVec<u8>,
}

impl Default for Buffers {
    /// Buffers for no games (nothing allocated).
    fn default() -> Self {
        Buffers {
            obs: AlignedVec::new(BUFFER_ALIGN),
            mask: AlignedVec::new(BUFFER_ALIGN),
            seat: AlignedVec::new(BUFFER_ALIGN),
            reward: AlignedVec::new(BUFFER_ALIGN),
            rewards: AlignedVec::new(BUFFER_ALIGN),
            terminated: AlignedVec::new(BUFFER_ALIGN),
            truncated: AlignedVec::new(BUFFER_ALIGN),
            final_obs: AlignedVec::new(BUFFER_ALIGN),
            episode_len: AlignedVec::new(BUFFER_ALIGN),
            winner: AlignedVec::new(BUFFER_ALIGN),
            legal_ids: AlignedVec::new(BUFFER_ALIGN),
            legal_count: AlignedVec::new(BUFFER_ALIGN),
        }
    }
}

impl Buffers {
    /// Zeroed buffers for `n` games.
    pub fn new(n: usize) -> Self {
        Buffers {
            obs: padded(n * OBS_SIZE, 0.0),
            mask: padded(n * NUM_ACTIONS, 0),
            seat: padded(n, 0),
            reward: padded(n, 0.0),
            rewards: padded(n * MAX_PLAYERS, 0.0),
            terminated: padded(n, 0),
            truncated: padded(n, 0),
            final_obs: padded(n * OBS_SIZE, 0.0),
            episode_len: padded(n, 0),
            winner: padded(n, -1),
            legal_ids: AlignedVec::new(BUFFER_ALIGN),
            legal_count: AlignedVec::new(BUFFER_ALIGN),
        }
    }

    /// Zeroed buffers for `n` games, including the legal-action id lists.
    pub fn with_legal_ids(n: usize) -> Self {
        Buffers {
            legal_ids: padded(n * NUM_ACTIONS, 0),
            legal_count: padded(n, 0),
            ..Buffers::new(n)
        }
    }

    /// Mutable views for [`VecEnv::step`].
    pub fn batch(&mut self) -> BatchMut<'_> {
        BatchMut {
            obs: &mut self.obs,
            mask: &mut self.mask,
            seat: &mut self.seat,
            reward: &mut self.reward,
            rewards: &mut self.rewards,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
            final_obs: &mut self.final_obs,
            episode_len: &mut self.episode_len,
            winner: &mut self.winner,
            legal_ids: &mut self.legal_ids,
            legal_count: &mut self.legal_count,
        }
    }
}

/// The random legal-action picker of [`VecEnv::step_random`] (an agent, not
/// game chance): SplitMix64, one per game.
#[derive(Clone, Debug)]
pub struct Picker(u64);

impl Picker {
    /// Picker for game `i` of a batch seeded with `seed`.
    pub fn new(seed: u64, i: u64) -> Self {
        Picker(seed ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0x5EED)
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform integer in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }

    /// A uniformly random set bit of a legal-action mask; for an empty one
    /// (no legal action: a state that is not live) `NUM_ACTIONS`, drawing nothing.
    #[inline]
    pub fn pick(&mut self, mask: u128) -> usize {
        if mask == 0 {
            return crate::action::NUM_ACTIONS;
        }
        crate::game::select_bit(mask, self.below(mask.count_ones() as u64) as u32) as usize
    }
}

/// How actions are chosen in a step.
#[derive(Clone, Copy)]
enum Actions<'a> {
    Given(&'a [u32]),
    Random,
}

/// A batch of games stepped together.
///
/// ```
/// use uno_env::obs::piece_by_name;
/// use uno_env::{Buffers, EnvConfig, NUM_ACTIONS, OBS_SIZE, Rules, VecEnv};
///
/// let n = 8;
/// let mut env = VecEnv::new(EnvConfig::new(Rules::preset("attack-2010")?, 4), n, 7, 1)?;
/// let mut buf = Buffers::new(n); // obs [n, OBS_SIZE], mask [n, NUM_ACTIONS], seat, reward, …
/// env.reset(buf.batch())?;
/// let hand = piece_by_name("hand").unwrap();
/// let mut actions = vec![0u32; n];
/// for _ in 0..100 {
///     for (i, a) in actions.iter_mut().enumerate() {
///         let obs = &buf.obs[i * OBS_SIZE..(i + 1) * OBS_SIZE];
///         let cards: f32 = obs[hand.offset..hand.offset + hand.size()].iter().sum();
///         assert_eq!(cards as usize, env.state(i).hand_len(buf.seat[i] as usize));
///         let mask = &buf.mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS];
///         *a = mask.iter().position(|&m| m == 1).unwrap() as u32; // or env.legal_mask(i)
///     }
///     env.step(&actions, buf.batch())?; // an illegal action is an error; nothing changes
///     for i in 0..n {
///         if buf.terminated[i] == 1 || buf.truncated[i] == 1 {
///             // The row already holds the next episode's first observation;
///             // the finished one's last is in `final_obs`.
///             let _last = &buf.final_obs[i * OBS_SIZE..(i + 1) * OBS_SIZE];
///             let _winner = buf.winner[i]; // -1 when truncated
///         }
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct VecEnv {
    game: Game,
    config: EnvConfig,
    seed: u64,
    states: Vec<State>,
    episodes: AlignedVec<u64>,
    /// Decisions of the current match's finished rounds (match episodes).
    earlier: AlignedVec<u32>,
    pickers: AlignedVec<Picker>,
    /// Legal-action mask of each game's current state, kept from the last
    /// write so that `step` checks actions and `step_random` picks them
    /// without recomputing it.
    masks: AlignedVec<u128>,
    /// The worker team and its parts' slots, when stepping on more than one thread.
    team: Option<(Team, Plan)>,
}

impl std::fmt::Debug for VecEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VecEnv")
            .field("rules", &self.game.rules().name)
            .field("players", &self.game.num_players())
            .field("num_envs", &self.states.len())
            .field("threads", &self.threads())
            .field("seed", &self.seed)
            .field("episode", &self.config.episode)
            .field("reward", &self.config.reward)
            .finish_non_exhaustive()
    }
}

/// The seed of episode `k` of a game (episode 0 uses the base seed itself).
pub fn episode_seed(seed: u64, k: u64) -> u64 {
    seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Most games one [`VecEnv`] holds (2^20: about 4 GB of batch buffers with
/// observations), so a typo cannot ask for more memory than a machine has.
pub const MAX_ENVS: usize = 1 << 20;
/// Most threads one [`VecEnv`] (or any command of the CLI) starts.
pub const MAX_THREADS: usize = 256;

impl VecEnv {
    /// `num_envs` games (1 to [`MAX_ENVS`]), seeded from `seed`, stepped on
    /// `threads` threads (0 counts as 1; at most [`MAX_THREADS`], and at most
    /// one per game). The games are dealt here, exactly as [`VecEnv::reset`]
    /// deals them: `reset` writes their first observations, and a `step`
    /// before any `reset` plays from the same deals (its actions checked
    /// against them as always).
    pub fn new(
        config: EnvConfig,
        num_envs: usize,
        seed: u64,
        threads: usize,
    ) -> Result<VecEnv, ConfigError> {
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return Err(ConfigError::Env(format!(
                "num_envs must be between 1 and {MAX_ENVS}, not {num_envs}"
            )));
        }
        if threads > MAX_THREADS {
            return Err(ConfigError::Env(format!(
                "threads must be at most {MAX_THREADS}, not {threads}"
            )));
        }
        let game = Game::new(config.rules.clone(), config.players)?;
        // More threads than games would only wait: at most one per game
        // (results do not depend on the thread count).
        let threads = threads.clamp(1, num_envs);
        let team = if threads > 1 {
            let team = Team::new(threads)
                .map_err(|e| ConfigError::Env(format!("cannot start {threads} threads: {e}")))?;
            Some((team, Plan::new(threads)))
        } else {
            None
        };
        // The largest allocation (512 bytes a game): refused with an error,
        // not an abort, when memory runs out.
        let mut states: Vec<State> = Vec::new();
        states
            .try_reserve_exact(num_envs + tail_pad::<State>())
            .map_err(|_| ConfigError::OutOfMemory {
                what: format!("{num_envs} game states"),
                mb: (num_envs * std::mem::size_of::<State>()) >> 20,
            })?;
        states.extend((0..num_envs).map(|i| game.new_state_on_stream(seed, i as u64)));
        // Filled from their sources.
        let mut pickers = padded(num_envs, Picker(0));
        let mut masks = padded(num_envs, 0);
        for (i, s) in states.iter().enumerate() {
            pickers[i] = Picker::new(seed, i as u64);
            masks[i] = game.legal_mask(s);
        }
        Ok(VecEnv {
            game,
            config,
            seed,
            states,
            episodes: padded(num_envs, 0),
            earlier: padded(num_envs, 0),
            pickers,
            masks,
            team,
        })
    }

    /// Number of games.
    pub fn num_envs(&self) -> usize {
        self.states.len()
    }

    /// Threads used.
    pub fn threads(&self) -> usize {
        self.team.as_ref().map_or(1, |(team, _)| team.threads())
    }

    /// The compiled game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The configuration.
    pub fn config(&self) -> &EnvConfig {
        &self.config
    }

    /// The state of game `i`.
    ///
    /// # Panics
    ///
    /// If `i` is not below [`VecEnv::num_envs`].
    pub fn state(&self, i: usize) -> &State {
        &self.states[i]
    }

    /// Every game's state.
    pub fn states(&self) -> &[State] {
        &self.states
    }

    /// The legal actions of game `i`'s current state as a bit set: the mask
    /// the last `reset` or step wrote to its row (kept, not recomputed).
    ///
    /// # Panics
    ///
    /// If `i` is not below [`VecEnv::num_envs`].
    pub fn legal_mask(&self, i: usize) -> u128 {
        self.masks[i]
    }

    /// The base seed: game `i`'s `k`-th episode (from 0) is dealt by
    /// `Game::new_state_on_stream(seed ^ k · 0x9E3779B97F4A7C15, i)`.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Episodes finished (and auto-reset) in every game since the last
    /// [`VecEnv::reset`] (or since the games were dealt): the sum of the
    /// games' episode counters, which the step keeps anyway.
    pub fn episodes_finished(&self) -> u64 {
        self.episodes.iter().sum()
    }

    /// Replaces the base seed. The next [`VecEnv::reset`] deals from it, and
    /// so does every auto-reset from now on (each game keeps counting its
    /// episodes until that reset).
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Restarts every game from the base seed (the same deals on every call
    /// until [`VecEnv::reseed`]) and writes the first observations.
    pub fn reset(&mut self, mut out: BatchMut<'_>) -> Result<(), ConfigError> {
        let n = self.num_envs();
        out.check(n)?;
        for i in 0..n {
            self.states[i] = self.game.new_state_on_stream(self.seed, i as u64);
            self.episodes[i] = 0;
            self.earlier[i] = 0;
            self.pickers[i] = Picker::new(self.seed, i as u64);
        }
        out.clear_results();
        for (i, s) in self.states.iter().enumerate() {
            self.masks[i] = write_current(&self.game, s, &mut out, i, true);
        }
        Ok(())
    }

    /// Applies one action per game and writes the results. Every action is
    /// checked first: if any is illegal, nothing is applied and the error names
    /// the game and the reason.
    pub fn step(&mut self, actions: &[u32], out: BatchMut<'_>) -> Result<(), VecEnvError> {
        let n = self.num_envs();
        out.check(n).map_err(VecEnvError::Config)?;
        if actions.len() != n {
            return Err(VecEnvError::ActionCount {
                given: actions.len(),
                games: n,
            });
        }
        for (i, (s, &a)) in self.states.iter().zip(actions).enumerate() {
            let a = a as usize;
            if a >= NUM_ACTIONS || self.masks[i] >> a & 1 == 0 {
                let mut probe = s.clone();
                let err = self
                    .game
                    .apply(&mut probe, a)
                    .err()
                    .unwrap_or(ActionError::RoundOver);
                return Err(VecEnvError::Action { env: i, error: err });
            }
        }
        self.run(Actions::Given(actions), out, true);
        Ok(())
    }

    /// Steps every game with a uniformly random legal action (each game has its
    /// own seeded picker). With `write_obs` false only masks-free engine work is
    /// done and just the per-step scalars are written (a benchmark of the engine).
    pub fn step_random(&mut self, out: BatchMut<'_>, write_obs: bool) -> Result<(), ConfigError> {
        out.check(self.num_envs())?;
        self.run(Actions::Random, out, write_obs);
        Ok(())
    }

    fn run(&mut self, actions: Actions<'_>, out: BatchMut<'_>, write_obs: bool) {
        let chunk = Chunk {
            base: 0,
            descending: false,
            states: &mut self.states,
            episodes: &mut self.episodes,
            earlier: &mut self.earlier,
            pickers: &mut self.pickers,
            masks: &mut self.masks,
            out,
        };
        let ctx = StepCtx {
            game: &self.game,
            config: &self.config,
            seed: self.seed,
            actions,
            write_obs,
        };
        match &mut self.team {
            Some((team, plan)) => parallel_run(team, plan, &ctx, chunk),
            None => ctx.run_chunk(chunk),
        }
    }
}

/// An error from [`VecEnv::step`].
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum VecEnvError {
    /// A buffer has the wrong size.
    #[error(transparent)]
    Config(ConfigError),
    /// A step got a number of actions other than one per game (nothing was applied).
    #[error("{given} actions for {games} games")]
    ActionCount {
        /// Actions given.
        given: usize,
        /// Games in the env.
        games: usize,
    },
    /// An action was illegal; nothing was applied.
    #[error("game {env}: {error}")]
    Action {
        /// Index of the game.
        env: usize,
        /// Why the action was refused.
        error: ActionError,
    },
}

struct Chunk<'a> {
    base: usize,
    /// Step the games from the last to the first. Two threads writing
    /// neighbouring parts of the same arrays slow each other down when the
    /// cores do not share a cache: a core's prefetcher, streaming through a
    /// part in the direction of the walk, runs on past its end and takes
    /// cache lines of the next part from the core writing them (measured,
    /// `docs/performance-log.md`, session 41). So the first of two neighbouring
    /// parts walks down from the shared boundary and the second up from it,
    /// and both streams run off into the far ends.
    descending: bool,
    states: &'a mut [State],
    episodes: &'a mut [u64],
    earlier: &'a mut [u32],
    pickers: &'a mut [Picker],
    masks: &'a mut [u128],
    out: BatchMut<'a>,
}

/// Games ahead of the one being stepped whose observation and mask rows
/// [`Chunk::prefetch_rows`] asks for (1, 2 and 4 measured alike, session 60).
const PREFETCH_AHEAD: usize = 2;

/// Asks the CPU to start loading every cache line of `row`, so that writes
/// to it a game later find the lines in L1 rather than wait on L2 or L3. A
/// hint only: it reads and writes nothing, and off x86-64 it does nothing.
#[inline(always)]
fn prefetch_lines<T>(row: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let first = row.as_ptr().cast::<i8>();
        let skew = first.addr() % BUFFER_ALIGN;
        let mut off = 0;
        while off < skew + std::mem::size_of_val(row) {
            // SAFETY: a prefetch never faults and changes no memory; the
            // address is in a line that `row` touches.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(first.wrapping_sub(skew).wrapping_add(off)) };
            off += BUFFER_ALIGN;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = row;
}

impl<'a> Chunk<'a> {
    /// Prefetches game `j`'s observation and mask rows (see [`prefetch_lines`]):
    /// with a thousand games, a batch's rows (2 MB) outgrow L2, and the
    /// encoder's writes otherwise stall on each line in turn (session 60,
    /// Intel Xeon: with observations at 1,024 games, +20–35 %).
    #[inline(always)]
    fn prefetch_rows(&self, j: usize) {
        prefetch_lines(&self.out.obs[j * OBS_SIZE..(j + 1) * OBS_SIZE]);
        prefetch_lines(&self.out.mask[j * NUM_ACTIONS..(j + 1) * NUM_ACTIONS]);
    }

    /// Whether every array holds one row per game of `states`.
    #[inline]
    fn rows_agree(&self) -> bool {
        let n = self.states.len();
        self.episodes.len() == n
            && self.earlier.len() == n
            && self.pickers.len() == n
            && self.masks.len() == n
            && self.out.rows_fit(n)
    }

    /// A uniformly random legal action for game `j`, drawn from its picker
    /// and its stored mask.
    #[inline(always)]
    fn pick(&mut self, j: usize) -> usize {
        self.pickers[j].pick(self.masks[j])
    }

    /// The first `k` games and the rest.
    fn split_at(self, k: usize) -> (Chunk<'a>, Chunk<'a>) {
        let (s1, s2) = self.states.split_at_mut(k);
        let (e1, e2) = self.episodes.split_at_mut(k);
        let (r1, r2) = self.earlier.split_at_mut(k);
        let (p1, p2) = self.pickers.split_at_mut(k);
        let (m1, m2) = self.masks.split_at_mut(k);
        let (o1, o2) = self.out.split_at(k);
        (
            Chunk {
                base: self.base,
                descending: self.descending,
                states: s1,
                episodes: e1,
                earlier: r1,
                pickers: p1,
                masks: m1,
                out: o1,
            },
            Chunk {
                base: self.base + k,
                descending: self.descending,
                states: s2,
                episodes: e2,
                earlier: r2,
                pickers: p2,
                masks: m2,
                out: o2,
            },
        )
    }
}

/// Steps `chunk` on every thread of `team`. The batch is cut into one
/// contiguous part per thread; each thread steps its own part, the same games
/// every batch, so their states stay in its core's cache (a part whose thread
/// misses the batch, e.g. one the host paused, is stepped by the caller).
/// Which thread steps a game does not change its result (every game has its
/// own streams).
///
/// One part per thread is the fastest cut measured: finer parts (2, 4 or 8 a
/// thread, taken by helpers from the front or the back of the owner's run)
/// were 2–6 % slower on two threads, each part costing its hand-over between
/// the cores more than it evened out (`docs/performance-log.md`, session 36).
///
/// Each part is written to its slot of `plan` only when it differs from the
/// last batch's (the same buffers give the same parts), so a worker finds its
/// part where its core has it cached: where the cores share no cache, every
/// line the caller rewrites costs the worker a transfer of a few hundred
/// nanoseconds (`docs/performance-log.md`, session 48).
fn parallel_run(team: &mut Team, plan: &Plan, ctx: &StepCtx<'_>, chunk: Chunk<'_>) {
    let n = chunk.states.len();
    let parts = plan.slots.len();
    let mut rest = chunk;
    for (p, slot) in plan.slots.iter().enumerate() {
        let size = part_start(n, parts, p + 1) - part_start(n, parts, p);
        let (mut part, tail) = rest.split_at(size);
        // Pairs of parts walk away from their shared boundary (see `Chunk::descending`).
        part.descending = p % 2 == 0 && p + 1 < parts;
        let raw = Some(RawPart::new(part, ctx));
        // SAFETY: no thread reads a slot between batches (`Team::run` returns
        // only once every part has run).
        unsafe {
            if *slot.0.get() != raw {
                *slot.0.get() = raw;
            }
        }
        rest = tail;
    }
    team.run(plan);
}

/// The parts of a batch stepped on several threads: one slot per thread,
/// each on cache lines of its own, holding that thread's part as plain data
/// (see [`RawPart`]). Kept by the env from batch to batch.
struct Plan {
    slots: Box<[Slot]>,
}

/// One part's slot (aligned as a team's mailbox: no other data on its lines).
#[repr(align(128))]
struct Slot(UnsafeCell<Option<RawPart>>);

// SAFETY: a slot is written by the thread that calls `VecEnv::step` between
// batches only, and read during a batch only, by the one thread that runs
// its part: the team's protocol orders the write before the read (release
// and acquire on the worker's mailbox) and the read before the next write.
unsafe impl Sync for Plan {}

impl Plan {
    /// Empty slots for a team of `threads`.
    fn new(threads: usize) -> Plan {
        Plan {
            slots: (0..threads).map(|_| Slot(UnsafeCell::new(None))).collect(),
        }
    }
}

impl Job for Plan {
    fn run(&self, part: usize) {
        // SAFETY: `parallel_run` set every slot for this batch before the
        // team runs it (see `Sync for Plan`), from a chunk of the step's
        // borrowed arrays that no other part overlaps; the borrow lasts until
        // the team returns.
        if let Some(raw) = unsafe { *self.slots[part].0.get() } {
            let (chunk, ctx) = unsafe { raw.get() };
            ctx.run_chunk(chunk);
        }
    }
}

/// A slice as plain data: its address (with its provenance exposed, so that a
/// slice rebuilt from it in a later batch is valid for the memory there then)
/// and length.
struct RawSlice<T> {
    addr: usize,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for RawSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RawSlice<T> {}

impl<T> PartialEq for RawSlice<T> {
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr && self.len == other.len
    }
}

impl<T> RawSlice<T> {
    /// `s` as plain data, to write through again.
    fn of(s: &mut [T]) -> RawSlice<T> {
        RawSlice {
            addr: s.as_mut_ptr().expose_provenance(),
            len: s.len(),
            _t: PhantomData,
        }
    }

    /// `s` as plain data, to read again.
    fn of_shared(s: &[T]) -> RawSlice<T> {
        RawSlice {
            addr: s.as_ptr().expose_provenance(),
            len: s.len(),
            _t: PhantomData,
        }
    }

    /// The slice again, for writing.
    ///
    /// # Safety
    /// It was made of a `&mut [T]` whose memory is valid and used by nothing
    /// else for `'a`.
    unsafe fn get_mut<'a>(self) -> &'a mut [T] {
        // SAFETY: as the caller promises.
        unsafe {
            std::slice::from_raw_parts_mut(
                std::ptr::with_exposed_provenance_mut(self.addr),
                self.len,
            )
        }
    }

    /// The slice again, for reading.
    ///
    /// # Safety
    /// Its memory is valid and not written for `'a`.
    unsafe fn get<'a>(self) -> &'a [T] {
        // SAFETY: as the caller promises.
        unsafe {
            std::slice::from_raw_parts(std::ptr::with_exposed_provenance(self.addr), self.len)
        }
    }
}

/// A part of a batch and how to step it (a [`Chunk`] and its [`StepCtx`]) as
/// plain data: addresses and lengths, which a later batch compares to see
/// whether its part is the same.
#[derive(Clone, Copy, PartialEq)]
struct RawPart {
    base: usize,
    descending: bool,
    states: RawSlice<State>,
    episodes: RawSlice<u64>,
    earlier: RawSlice<u32>,
    pickers: RawSlice<Picker>,
    masks: RawSlice<u128>,
    obs: RawSlice<f32>,
    mask: RawSlice<u8>,
    seat: RawSlice<i32>,
    reward: RawSlice<f32>,
    rewards: RawSlice<f32>,
    terminated: RawSlice<u8>,
    truncated: RawSlice<u8>,
    final_obs: RawSlice<f32>,
    episode_len: RawSlice<u32>,
    winner: RawSlice<i32>,
    legal_ids: RawSlice<u8>,
    legal_count: RawSlice<u8>,
    game: usize,
    config: usize,
    seed: u64,
    /// The whole batch's actions, when given.
    actions: Option<RawSlice<u32>>,
    write_obs: bool,
}

impl RawPart {
    /// `c` stepped under `ctx`, as plain data.
    fn new(c: Chunk<'_>, ctx: &StepCtx<'_>) -> RawPart {
        let o = c.out;
        RawPart {
            base: c.base,
            descending: c.descending,
            states: RawSlice::of(c.states),
            episodes: RawSlice::of(c.episodes),
            earlier: RawSlice::of(c.earlier),
            pickers: RawSlice::of(c.pickers),
            masks: RawSlice::of(c.masks),
            obs: RawSlice::of(o.obs),
            mask: RawSlice::of(o.mask),
            seat: RawSlice::of(o.seat),
            reward: RawSlice::of(o.reward),
            rewards: RawSlice::of(o.rewards),
            terminated: RawSlice::of(o.terminated),
            truncated: RawSlice::of(o.truncated),
            final_obs: RawSlice::of(o.final_obs),
            episode_len: RawSlice::of(o.episode_len),
            winner: RawSlice::of(o.winner),
            legal_ids: RawSlice::of(o.legal_ids),
            legal_count: RawSlice::of(o.legal_count),
            game: (ctx.game as *const Game).expose_provenance(),
            config: (ctx.config as *const EnvConfig).expose_provenance(),
            seed: ctx.seed,
            actions: match ctx.actions {
                Actions::Given(v) => Some(RawSlice::of_shared(v)),
                Actions::Random => None,
            },
            write_obs: ctx.write_obs,
        }
    }

    /// The chunk and its context again.
    ///
    /// # Safety
    /// What it was made of is valid for `'a`, the chunk's memory used by
    /// nothing else, the game, config and actions not written.
    unsafe fn get<'a>(self) -> (Chunk<'a>, StepCtx<'a>) {
        // SAFETY: as the caller promises.
        unsafe {
            let chunk = Chunk {
                base: self.base,
                descending: self.descending,
                states: self.states.get_mut(),
                episodes: self.episodes.get_mut(),
                earlier: self.earlier.get_mut(),
                pickers: self.pickers.get_mut(),
                masks: self.masks.get_mut(),
                out: BatchMut {
                    obs: self.obs.get_mut(),
                    mask: self.mask.get_mut(),
                    seat: self.seat.get_mut(),
                    reward: self.reward.get_mut(),
                    rewards: self.rewards.get_mut(),
                    terminated: self.terminated.get_mut(),
                    truncated: self.truncated.get_mut(),
                    final_obs: self.final_obs.get_mut(),
                    episode_len: self.episode_len.get_mut(),
                    winner: self.winner.get_mut(),
                    legal_ids: self.legal_ids.get_mut(),
                    legal_count: self.legal_count.get_mut(),
                },
            };
            let ctx = StepCtx {
                game: &*std::ptr::with_exposed_provenance::<Game>(self.game),
                config: &*std::ptr::with_exposed_provenance::<EnvConfig>(self.config),
                seed: self.seed,
                actions: match self.actions {
                    Some(v) => Actions::Given(v.get()),
                    None => Actions::Random,
                },
                write_obs: self.write_obs,
            };
            (chunk, ctx)
        }
    }
}

/// Games a cache line holds of the narrowest per-game array (one byte a
/// game: `terminated`, `truncated`, `legal_count`).
const GAMES_PER_LINE: usize = BUFFER_ALIGN;

/// The first game of part `p` of `parts` (`p == parts` gives `n`): an even
/// cut, moved to the nearest multiple of [`GAMES_PER_LINE`] games when every
/// part holds at least 8 × that many (so each cut moves by at most 1/16 of a
/// part, and not at all when `n / parts` is such a multiple, as for powers
/// of two). With arrays starting on a line ([`BUFFER_ALIGN`]), no cache line
/// then holds rows of two parts.
fn part_start(n: usize, parts: usize, p: usize) -> usize {
    let even = n * p / parts;
    if p == parts || n / parts < 8 * GAMES_PER_LINE {
        return even;
    }
    (even + GAMES_PER_LINE / 2) / GAMES_PER_LINE * GAMES_PER_LINE
}

struct StepCtx<'a> {
    game: &'a Game,
    config: &'a EnvConfig,
    seed: u64,
    actions: Actions<'a>,
    write_obs: bool,
}

/// Writes row `j` of the per-state outputs for `s` (seat to act, and with
/// `write_obs` its observation, mask and, when asked for, legal-id list);
/// returns the legal mask.
#[doc(hidden)] // for the workspace's other crates; not part of the API
#[inline(always)]
pub fn write_current(
    game: &Game,
    s: &State,
    out: &mut BatchMut<'_>,
    j: usize,
    write_obs: bool,
) -> u128 {
    let m = game.legal_mask(s);
    out.seat[j] = s.current as i32;
    if write_obs {
        encode_unchecked(
            game,
            s,
            s.current as usize,
            &mut out.obs[j * OBS_SIZE..(j + 1) * OBS_SIZE],
        );
        write_mask_unchecked(m, &mut out.mask[j * NUM_ACTIONS..(j + 1) * NUM_ACTIONS]);
    }
    if !out.legal_count.is_empty() {
        out.legal_count[j] = write_legal_ids(
            m,
            &mut out.legal_ids[j * NUM_ACTIONS..(j + 1) * NUM_ACTIONS],
        );
    }
    m
}

/// Zero-sum rewards for the end of a round (or match), per seat.
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn terminal_rewards(
    game: &Game,
    s: &State,
    mode: RewardMode,
    match_end: bool,
    out: &mut [f32],
) {
    let n = game.num_players();
    out[..n].fill(0.0);
    let winner = if match_end {
        s.match_winner()
    } else {
        s.round_winner()
    };
    let Some(w) = winner else { return };
    match mode {
        RewardMode::Win => {
            let lose = -1.0 / (n as f32 - 1.0);
            for (p, r) in out[..n].iter_mut().enumerate() {
                *r = if p == w { 1.0 } else { lose };
            }
        }
        RewardMode::Points => {
            let Some(rw) = s.round_winner() else { return };
            let mut total = 0.0;
            for (p, r) in out[..n].iter_mut().enumerate() {
                if p != rw {
                    let held = game.points(s.hand(p)) as f32 / 100.0;
                    *r = -held;
                    total += held;
                }
            }
            out[rw] = total;
        }
    }
}

/// How an episode ended (see [`settle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpisodeEnd {
    /// Cut short by the decision cap (else ended by the rules).
    pub truncated: bool,
    /// Decisions in the episode (every round of a match episode).
    pub len: u32,
    /// The episode's winner (the match's, for match episodes), if any.
    pub winner: Option<usize>,
}

/// Settles a state after an action under `config`'s episode and reward
/// rules: writes every seat's reward for the action into `rewards`
/// (`MAX_PLAYERS` values, zero unless a round ended), moves a match episode
/// on to its next round, and returns the episode's end when it ended.
/// `earlier` counts the decisions of the match's finished rounds (reset to 0
/// when the episode ends). The one episode-end rule of every vectorized env.
#[inline(always)]
pub fn settle(
    game: &Game,
    config: &EnvConfig,
    s: &mut State,
    earlier: &mut u32,
    rewards: &mut [f32],
) -> Option<EpisodeEnd> {
    rewards.fill(0.0);
    if !s.is_round_over() {
        return None;
    }
    settle_round_end(game, config, s, earlier, rewards)
}

/// [`settle`] once a round has ended, out of line: the step loops inline
/// `settle`, and most steps end no round.
#[inline(never)]
fn settle_round_end(
    game: &Game,
    config: &EnvConfig,
    s: &mut State,
    earlier: &mut u32,
    rewards: &mut [f32],
) -> Option<EpisodeEnd> {
    let match_end = s.phase() == Phase::MatchOver;
    let done = match config.episode {
        Episode::Round => {
            terminal_rewards(game, s, config.reward, false, rewards);
            true
        }
        Episode::Match => {
            if config.reward == RewardMode::Points {
                terminal_rewards(game, s, RewardMode::Points, false, rewards);
            }
            if match_end {
                if config.reward == RewardMode::Win {
                    terminal_rewards(game, s, RewardMode::Win, true, rewards);
                }
                true
            } else if s.is_truncated() {
                // A round cut at the decision cap ends the match episode as
                // truncated (no win reward): playing on would hide the stall
                // from the learner.
                true
            } else {
                *earlier += s.decisions();
                let _ = game.next_round(s);
                false
            }
        }
    };
    if !done {
        return None;
    }
    let len = *earlier + s.decisions();
    *earlier = 0;
    let winner = match config.episode {
        Episode::Match => s.match_winner(),
        Episode::Round => s.round_winner(),
    };
    Some(EpisodeEnd {
        truncated: s.is_truncated(),
        len,
        winner,
    })
}

impl StepCtx<'_> {
    fn run_chunk(&self, mut c: Chunk<'_>) {
        // Rows where no episode ends say so rather than keep the last end's values (two
        // `memset`s per chunk cost fewer instructions than two stores per row; these
        // ascend even in a descending part: filling it downwards measured no faster).
        c.out.episode_len.fill(0);
        c.out.winner.fill(-1);
        let n = c.states.len();
        // Always true (`BatchMut::check` and `Chunk::split_at` keep it so), and said
        // here so that the compiler drops the bounds check of every row index in the
        // loop: about 14 instructions a step of 634 (callgrind, session 43).
        assert!(c.rows_agree(), "a chunk's arrays have a row per game");
        // The games in order, or from the last to the first (see `Chunk::descending`).
        let descending = c.descending;
        let row = |t: usize| if descending { n - 1 - t } else { t };
        // With observations, the rows of the game `PREFETCH_AHEAD` places on.
        let prefetch = |c: &Chunk<'_>, t: usize| {
            if self.write_obs && t + PREFETCH_AHEAD < n {
                c.prefetch_rows(row(t + PREFETCH_AHEAD));
            }
        };
        match self.actions {
            Actions::Given(v) => {
                for t in 0..n {
                    let j = row(t);
                    let a = v[c.base + j] as usize;
                    prefetch(&c, t);
                    self.step_game(&mut c, j, a);
                }
            }
            Actions::Random => {
                // Each game's random action is picked two games ahead: the
                // picker's multiply chain and the bit select then run while
                // the games before are stepped, instead of delaying the
                // step's first branch (play or draw, a coin flip that
                // mispredicts often, and is repaired only once resolved).
                // Each game's picker still draws once per step, from the
                // same mask (session 45: +6 % engine only, +3 % with
                // observations, one game ahead; +1 % more for the second).
                let mut next = if n > 0 { c.pick(row(0)) } else { 0 };
                let mut next2 = if n > 1 { c.pick(row(1)) } else { 0 };
                for t in 0..n {
                    let (j, a) = (row(t), next);
                    next = next2;
                    if t + 2 < n {
                        next2 = c.pick(row(t + 2));
                    }
                    prefetch(&c, t);
                    self.step_game(&mut c, j, a);
                }
            }
        }
    }

    /// Steps game `j` of the chunk with action `a` and writes its row.
    #[inline(always)]
    fn step_game(&self, c: &mut Chunk<'_>, j: usize, a: usize) {
        let game = self.game;
        let i = c.base + j;
        let s = &mut c.states[j];
        let actor = s.current as usize;
        // Legality was checked by `step` (or the action comes from the mask).
        game.apply_checked_with(s, a, &mut ());
        let rewards = &mut c.out.rewards[j * MAX_PLAYERS..(j + 1) * MAX_PLAYERS];
        let end = settle(game, self.config, s, &mut c.earlier[j], rewards);
        c.out.reward[j] = rewards[actor];
        c.out.terminated[j] = end.is_some_and(|e| !e.truncated) as u8;
        c.out.truncated[j] = end.is_some_and(|e| e.truncated) as u8;
        if let Some(e) = end {
            c.out.episode_len[j] = e.len;
            c.out.winner[j] = e.winner.map_or(-1, |w| w as i32);
            if self.write_obs {
                encode_unchecked(
                    game,
                    s,
                    actor.min(game.num_players() - 1),
                    &mut c.out.final_obs[j * OBS_SIZE..(j + 1) * OBS_SIZE],
                );
            }
            c.episodes[j] += 1;
            *s = game.new_state_on_stream(episode_seed(self.seed, c.episodes[j]), i as u64);
        }
        c.masks[j] = write_current(game, s, &mut c.out, j, self.write_obs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spare bytes after a vector's values, and the offset of its first value
    /// from a [`BUFFER_ALIGN`] boundary.
    fn layout<T>(ptr: *const T, len: usize, capacity: usize) -> (usize, usize) {
        (
            (capacity - len) * std::mem::size_of::<T>(),
            ptr as usize % BUFFER_ALIGN,
        )
    }

    /// [`layout`] of an aligned vector.
    fn of<T>(v: &AlignedVec<T>) -> (usize, usize) {
        layout(v.as_ptr(), v.len(), v.capacity())
    }

    #[test]
    fn parts_are_cut_on_whole_lines_of_games_when_large_and_evenly_otherwise() {
        for parts in 1..=9 {
            for n in [parts, 100, 1000, 1024, 4095, 4096, 4097, 5000, 65_537] {
                if n < parts {
                    continue;
                }
                let starts: Vec<usize> = (0..=parts).map(|p| part_start(n, parts, p)).collect();
                assert_eq!(
                    (starts[0], starts[parts]),
                    (0, n),
                    "{n} games, {parts} parts"
                );
                for p in 1..parts {
                    let (start, even) = (starts[p], n * p / parts);
                    assert!(
                        starts[p - 1] < start,
                        "{n} games, {parts} parts: {starts:?}"
                    );
                    if n / parts >= 8 * GAMES_PER_LINE {
                        assert_eq!(start % GAMES_PER_LINE, 0, "{n} games, {parts} parts");
                        assert!(start.abs_diff(even) <= GAMES_PER_LINE / 2, "{starts:?}");
                    } else {
                        assert_eq!(start, even, "{n} games, {parts} parts");
                    }
                }
            }
        }
        // Powers of two are cut evenly.
        assert_eq!(part_start(1024, 2, 1), 512);
        assert_eq!(part_start(4096, 4, 3), 3072);
    }

    #[test]
    fn every_array_the_core_writes_starts_on_a_line_and_keeps_its_tail_padding() {
        for n in [1, 33, 1024] {
            let env = VecEnv::new(
                EnvConfig::new(Rules::preset("classic").unwrap(), 3),
                n,
                5,
                2,
            )
            .unwrap();
            let s = &env.states;
            let own = [
                ("states", layout(s.as_ptr(), s.len(), s.capacity())),
                ("episodes", of(&env.episodes)),
                ("earlier", of(&env.earlier)),
                ("pickers", of(&env.pickers)),
                ("masks", of(&env.masks)),
            ];
            let b = Buffers::with_legal_ids(n);
            let buffers = [
                ("obs", of(&b.obs)),
                ("mask", of(&b.mask)),
                ("seat", of(&b.seat)),
                ("reward", of(&b.reward)),
                ("rewards", of(&b.rewards)),
                ("terminated", of(&b.terminated)),
                ("truncated", of(&b.truncated)),
                ("final_obs", of(&b.final_obs)),
                ("episode_len", of(&b.episode_len)),
                ("winner", of(&b.winner)),
                ("legal_ids", of(&b.legal_ids)),
                ("legal_count", of(&b.legal_count)),
            ];
            for (name, (bytes, offset)) in own.into_iter().chain(buffers) {
                assert!(
                    bytes >= TAIL_PAD,
                    "{n} games: `{name}` has {bytes} spare bytes"
                );
                assert_eq!(
                    offset, 0,
                    "{n} games: `{name}` starts {offset} bytes into a line"
                );
            }
            // A clone's vectors start on a line too.
            let c = b.clone();
            for (name, offset) in [("obs", of(&c.obs).1), ("terminated", of(&c.terminated).1)] {
                assert_eq!(
                    offset, 0,
                    "a clone's `{name}` starts {offset} bytes into a line"
                );
            }
            assert_eq!(b.winner.to_vec(), vec![-1; n]);
            assert!(b.obs.iter().all(|&x| x == 0.0));
        }
    }
}
