//! The single-agent view of the vectorized core: N games in which one seat
//! is the learner and built-in agents play every other seat, stepped in Rust.
//!
//! [`SoloVecEnv::step`] takes one action per game for the learner, then plays
//! the opponents until the learner is to act again (or the episode ends and
//! the next one has reached the learner's first decision), so every row of
//! the batch is a learner decision. The buffers are the vectorized core's
//! ([`BatchMut`]); `seat` is the learner's seat, `reward` the learner's
//! reward summed over the step, `rewards` every seat's, and a finished
//! episode's `final_obs` is what the learner sees at its end (auto-reset as
//! in [`uno_env::VecEnv`], and the same episode rule, [`settle`]).
//!
//! Opponents are agent specs, one for every opponent seat or one per seat
//! after the learner's (clockwise). Hand-written agents (and `search`) get
//! one instance per game, since they may remember their last decision, and
//! are stepped on the env's threads; a `checkpoint:` network is one instance
//! per distinct checkpoint for every game and seat it plays, asked in batches
//! (one forward pass per round of opponent decisions). The learner sits in a fixed seat or rotates (episode `k` of
//! game `i` seats it at `(i + k) mod players`). Episode `k` of game `i` is
//! dealt exactly as in [`uno_env::VecEnv`], and every agent is reseeded per
//! episode from the seed, game and seat: results are identical for any
//! thread count.

use crate::agent::{Agent, mix_seed};
use crate::error::AgentError;
use crate::spec::{AgentSpec, build, check_checkpoints};
use std::sync::Mutex;
use uno_env::obs::{OBS_SIZE, encode};
use uno_env::vec_env::{BatchMut, Picker, episode_seed, settle, write_current};
use uno_env::{EnvConfig, Game, MAX_ENVS, MAX_PLAYERS, MAX_THREADS, NUM_ACTIONS, State};

/// Games below which a part is not split further across threads.
const MIN_PART: usize = 16;

/// An agent the env owns. It is only ever used through `&mut` (never
/// locked: [`Mutex::get_mut`] is free), which makes the env `Sync` for hosts
/// that share it by reference (a Python object) although agents need not be.
struct Owned(Mutex<Box<dyn Agent + Send>>);

impl Owned {
    fn new(agent: Box<dyn Agent + Send>) -> Self {
        Owned(Mutex::new(agent))
    }

    fn get(&mut self) -> &mut (dyn Agent + Send) {
        // Never locked, so never poisoned; take it either way.
        &mut **self.0.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes the allocator hands out per heap block beyond its size (glibc's header, rounded up).
const BLOCK_OVERHEAD: usize = 16;

/// Memory one game takes: its slot, its list of agents and each agent's box.
fn game_bytes(agents: &mut [Option<Owned>]) -> usize {
    let list = std::mem::size_of_val(agents) + BLOCK_OVERHEAD;
    let boxes: usize = agents
        .iter_mut()
        .flatten()
        .map(|a| std::mem::size_of_val(a.get()) + BLOCK_OVERHEAD)
        .sum();
    std::mem::size_of::<Slot>() + list + boxes
}

/// One game: its state, episode counters, learner seat and per-game agents.
struct Slot {
    state: State,
    episode: u64,
    earlier: u32,
    learner: usize,
    /// Per opponent position (1 = the seat after the learner): the game's own
    /// agent, or `None` where a batched agent plays.
    agents: Vec<Option<Owned>>,
    /// The learner is to act (its row is written).
    ready: bool,
    /// The learner has made a decision in the current episode. Until it has,
    /// nothing of the episode is reported: an episode the opponents finish
    /// before the learner's first decision (possible with tiny hands) is
    /// dropped and the next one dealt, as the Gymnasium env's `reset` redeals.
    /// The dealer is drawn per deal, so the learner soon acts.
    acted: bool,
    /// Rewards of rounds of a match episode that the opponents finished
    /// before the learner's first decision (`reward = points`), per seat:
    /// paid with that decision's step.
    carry: [f32; MAX_PLAYERS],
    /// The learner's legal actions (valid when `ready`).
    mask: u128,
    picker: Picker,
}

impl std::fmt::Debug for SoloVecEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SoloVecEnv")
            .field("rules", &self.game.rules().name)
            .field("players", &self.game.num_players())
            .field("num_envs", &self.slots.len())
            .field("threads", &self.threads())
            .field("seed", &self.seed)
            .field("seat", &self.seat)
            .field("opponents", &self.specs)
            .field("started", &self.started)
            .finish_non_exhaustive()
    }
}

/// What the steps of one call share.
struct Ctx<'a> {
    game: &'a Game,
    config: &'a EnvConfig,
    seed: u64,
    seat: Option<usize>,
    write_obs: bool,
}

/// The first illegal action an opponent returned.
#[derive(Debug)]
struct Illegal {
    agent: String,
    seat: usize,
    action: usize,
    game: u64,
    reason: String,
}

impl From<Illegal> for AgentError {
    fn from(e: Illegal) -> Self {
        AgentError::IllegalAction {
            agent: e.agent,
            seat: e.seat,
            action: e.action,
            game: e.game,
            reason: e.reason,
        }
    }
}

/// A batch of games, one learner seat each, with built-in opponents.
pub struct SoloVecEnv {
    game: Game,
    config: EnvConfig,
    seed: u64,
    seat: Option<usize>,
    specs: Vec<AgentSpec>,
    slots: Vec<Slot>,
    /// The batched agents (networks), one per distinct spec.
    batched: Vec<Owned>,
    /// Per opponent position: which batched agent plays there, if one does.
    batched_at: Vec<Option<usize>>,
    pool: Option<rayon::ThreadPool>,
    notes: Vec<String>,
    /// A reset has dealt the games and played them to the learner's turn.
    started: bool,
}

/// Opponent position of seat `p` (1 = the seat after the learner's, up to
/// `players - 1`); 0 for the learner itself.
fn position(p: usize, learner: usize, players: usize) -> usize {
    (p + players - learner) % players
}

/// The learner's seat in episode `k` of game `i`.
fn learner_seat(seat: Option<usize>, players: usize, i: usize, k: u64) -> usize {
    seat.unwrap_or(((i as u64 + k) % players as u64) as usize)
}

/// An agent's seed for opponent position `pos` of game `i` in the episode seeded `ep_seed`.
fn agent_seed(ep_seed: u64, i: usize, pos: usize) -> u64 {
    mix_seed(ep_seed, (i as u64) << 4 | pos as u64)
}

impl SoloVecEnv {
    /// `num_envs` games (1 to [`MAX_ENVS`]) seeded from `seed`, the learner in
    /// `seat` (`None`: rotating), `opponents` one spec for every opponent seat
    /// or one per seat after the learner's, stepped on `threads` threads.
    /// A checkpoint trained for other rules is refused; one trained for
    /// another table size or a variant of the preset plays, with a note in
    /// [`SoloVecEnv::notes`].
    pub fn new(
        config: EnvConfig,
        num_envs: usize,
        seed: u64,
        threads: usize,
        opponents: &[AgentSpec],
        seat: Option<usize>,
    ) -> Result<SoloVecEnv, AgentError> {
        let game = Game::new(config.rules.clone(), config.players)?;
        let n = config.players;
        let invalid = AgentError::Env;
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return Err(invalid(format!(
                "num_envs must be between 1 and {MAX_ENVS}, not {num_envs}"
            )));
        }
        if threads > MAX_THREADS {
            return Err(AgentError::ThreadPool(format!(
                "at most {MAX_THREADS} threads, not {threads}"
            )));
        }
        if let Some(s) = seat
            && s >= n
        {
            return Err(invalid(format!(
                "the learner's seat must be below the {n} players, not {s}"
            )));
        }
        let specs: Vec<AgentSpec> = match opponents.len() {
            1 => vec![opponents[0].clone(); n - 1],
            k if k == n - 1 => opponents.to_vec(),
            k => {
                return Err(invalid(format!(
                    "{k} opponent specs for {} opponent seats: give one for all, or one per seat after the learner's",
                    n - 1
                )));
            }
        };
        let notes = check_checkpoints(&specs, &game)?;
        // One network instance per distinct checkpoint spec: positions that
        // share it are asked together (bigger batches, one copy of the weights).
        let mut batched = Vec::new();
        let mut batched_specs: Vec<&AgentSpec> = Vec::new();
        let mut batched_at = Vec::with_capacity(specs.len());
        for s in &specs {
            if !matches!(s, AgentSpec::Checkpoint(_)) {
                batched_at.push(None);
                continue;
            }
            let k = match batched_specs.iter().position(|b| *b == s) {
                Some(k) => k,
                None => {
                    let k = batched.len();
                    batched.push(Owned::new(build(s, mix_seed(seed, k as u64 + 1))?));
                    batched_specs.push(s);
                    k
                }
            };
            batched_at.push(Some(k));
        }
        let build_agents = || {
            specs
                .iter()
                .map(|s| match s {
                    AgentSpec::Checkpoint(_) => Ok(None),
                    _ => build(s, 0).map(|a| Some(Owned::new(a))),
                })
                .collect::<Result<Vec<_>, _>>()
        };
        // Every game owns its opponents' agents: small boxes, and a small
        // allocation that fails aborts the process. So the memory for every
        // game is asked for first, in one allocation that may fail, sized from
        // game 0's agents with a quarter to spare, and given back: too many
        // games for the memory left are refused with an error, before any is
        // built. (A guard, not a bound: agents that allocate later are not
        // counted.)
        let mut first = Some(build_agents()?);
        let bytes = first.as_mut().map_or(0, |a| game_bytes(a));
        let bytes = num_envs.saturating_mul(bytes + bytes / 4);
        let out_of_memory = || AgentError::OutOfMemory {
            what: format!("{num_envs} games and their agents"),
            mb: bytes >> 20,
        };
        let mut probe = Vec::<u8>::new();
        probe
            .try_reserve_exact(bytes)
            .map_err(|_| out_of_memory())?;
        // Kept opaque, so that the allocation is not optimised away.
        drop(std::hint::black_box(probe));
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(num_envs)
            .map_err(|_| out_of_memory())?;
        for i in 0..num_envs {
            let agents = match first.take() {
                Some(agents) => agents,
                None => build_agents()?,
            };
            slots.push(Slot {
                state: game.new_state_on_stream(seed, i as u64),
                episode: 0,
                earlier: 0,
                learner: 0,
                agents,
                ready: false,
                acted: false,
                carry: [0.0; MAX_PLAYERS],
                mask: 0,
                picker: Picker::new(seed, i as u64),
            });
        }
        let threads = threads.clamp(1, num_envs);
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| AgentError::ThreadPool(e.to_string()))?,
            )
        } else {
            None
        };
        Ok(SoloVecEnv {
            game,
            config,
            seed,
            seat,
            specs,
            slots,
            batched,
            batched_at,
            pool,
            notes,
            started: false,
        })
    }

    /// Number of games.
    pub fn num_envs(&self) -> usize {
        self.slots.len()
    }

    /// Threads used.
    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, rayon::ThreadPool::current_num_threads)
    }

    /// The compiled game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The configuration.
    pub fn config(&self) -> &EnvConfig {
        &self.config
    }

    /// The state of game `i` (the learner is to act, after a reset or step).
    ///
    /// # Panics
    ///
    /// If `i` is not below [`SoloVecEnv::num_envs`].
    pub fn state(&self, i: usize) -> &State {
        &self.slots[i].state
    }

    /// The learner's seat in game `i`'s current episode.
    ///
    /// # Panics
    ///
    /// If `i` is not below [`SoloVecEnv::num_envs`].
    pub fn learner(&self, i: usize) -> usize {
        self.slots[i].learner
    }

    /// The opponents' specs, one per seat after the learner's.
    pub fn opponents(&self) -> &[AgentSpec] {
        &self.specs
    }

    /// Notes on the checkpoints (another table size, a variant of the preset).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The base seed (as [`uno_env::VecEnv::seed`]).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Replaces the base seed. The next [`SoloVecEnv::reset`] deals from it,
    /// and so does every auto-reset from now on (each game keeps counting its
    /// episodes until that reset).
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Restarts every game at episode 0 from the base seed, plays the
    /// opponents up to the learner's first decision and writes it.
    pub fn reset(&mut self, mut out: BatchMut<'_>) -> Result<(), AgentError> {
        out.check(self.num_envs()).map_err(buffer_error)?;
        out.clear_results();
        {
            let ctx = Ctx {
                game: &self.game,
                config: &self.config,
                seed: self.seed,
                seat: self.seat,
                write_obs: true,
            };
            for (i, slot) in self.slots.iter_mut().enumerate() {
                slot.picker = Picker::new(ctx.seed, i as u64);
                ctx.deal(slot, i, 0);
            }
        }
        for (k, agent) in self.batched.iter_mut().enumerate() {
            agent.get().reset(mix_seed(self.seed, k as u64 + 1));
        }
        // Not started if an opponent fails: the games may be half played.
        self.started = false;
        self.play_out(out, None, true)?;
        self.started = true;
        Ok(())
    }

    /// Applies one learner action per game, plays the opponents up to the
    /// learner's next decision and writes the results. Every action is
    /// checked first: if any is illegal, nothing is applied and the error
    /// names the game and the reason.
    pub fn step(&mut self, actions: &[u32], out: BatchMut<'_>) -> Result<(), AgentError> {
        let n = self.num_envs();
        out.check(n).map_err(buffer_error)?;
        self.check_started()?;
        if actions.len() != n {
            return Err(AgentError::ActionCount {
                given: actions.len(),
                games: n,
            });
        }
        for (i, (slot, &a)) in self.slots.iter().zip(actions).enumerate() {
            let a = a as usize;
            if a >= NUM_ACTIONS || slot.mask >> a & 1 == 0 {
                let mut probe = slot.state.clone();
                let reason = self
                    .game
                    .apply(&mut probe, a)
                    .err()
                    .map_or_else(|| "not legal now".to_string(), |e| e.to_string());
                return Err(AgentError::IllegalLearnerAction {
                    game: i,
                    action: a,
                    reason,
                });
            }
        }
        self.play_out_started(out, Learner::Given(actions), true)
    }

    /// Steps every game with a uniformly random legal learner action (a
    /// seeded picker per game); with `write_obs` false the observations,
    /// masks and final observations are not written (a benchmark mode).
    pub fn step_random(&mut self, out: BatchMut<'_>, write_obs: bool) -> Result<(), AgentError> {
        out.check(self.num_envs()).map_err(buffer_error)?;
        self.check_started()?;
        self.play_out_started(out, Learner::Random, write_obs)
    }

    /// [`SoloVecEnv::play_out`] on started games; an opponent's failure
    /// (an illegal action) leaves them half played, so a reset is needed.
    fn play_out_started(
        &mut self,
        out: BatchMut<'_>,
        learner: Learner<'_>,
        write_obs: bool,
    ) -> Result<(), AgentError> {
        let r = self.play_out(out, Some(learner), write_obs);
        self.started = r.is_ok();
        r
    }

    /// An error unless a reset has started the games.
    fn check_started(&self) -> Result<(), AgentError> {
        if self.started {
            Ok(())
        } else {
            Err(AgentError::NotReset)
        }
    }

    /// Plays the learner's action (if any) in every game, then the opponents
    /// until every game waits for the learner: the games' own agents on the
    /// threads, the batched ones in rounds over every game they are to act in.
    fn play_out(
        &mut self,
        mut out: BatchMut<'_>,
        learner: Option<Learner<'_>>,
        write_obs: bool,
    ) -> Result<(), AgentError> {
        let SoloVecEnv {
            game,
            config,
            seed,
            seat,
            slots,
            batched,
            batched_at,
            pool,
            ..
        } = self;
        let ctx = Ctx {
            game,
            config,
            seed: *seed,
            seat: *seat,
            write_obs,
        };
        let pool = pool.as_ref();
        run_parts(pool, slots, out.reborrow(), &|part, o, base| {
            ctx.pass(part, o, base, learner)
        })?;
        let n = game.num_players();
        let mut idx = Vec::new();
        let mut seats = Vec::new();
        let mut seeds = Vec::new();
        let mut acts = Vec::new();
        loop {
            let mut any = false;
            for (k, agent) in batched.iter_mut().enumerate() {
                let agent = agent.get();
                idx.clear();
                seats.clear();
                seeds.clear();
                for (i, slot) in slots.iter().enumerate() {
                    let Some(p) = slot.state.current_player() else {
                        continue;
                    };
                    let pos = position(p, slot.learner, n);
                    if !slot.ready && p != slot.learner && batched_at[pos - 1] == Some(k) {
                        idx.push(i);
                        seats.push(p);
                        // A sampling network draws each decision from the
                        // episode, game, seat and decision, as the per-game
                        // agents are seeded: no row depends on the batch.
                        let ep_seed = episode_seed(*seed, slot.episode);
                        seeds.push(mix_seed(
                            agent_seed(ep_seed, i, pos),
                            u64::from(slot.state.decisions()),
                        ));
                    }
                }
                if idx.is_empty() {
                    continue;
                }
                any = true;
                acts.clear();
                acts.resize(idx.len(), 0);
                let states: Vec<&State> = idx.iter().map(|&i| &slots[i].state).collect();
                agent.act_batch(game, &states, &seats, Some(&seeds), &mut acts);
                drop(states);
                for ((&i, &a), &p) in idx.iter().zip(&acts).zip(&seats) {
                    ctx.apply(&mut slots[i], &mut out, i, i, a)
                        .map_err(|reason| Illegal {
                            agent: agent.name(),
                            seat: p,
                            action: a,
                            game: i as u64,
                            reason: reason.to_string(),
                        })?;
                }
            }
            if !any {
                return Ok(());
            }
            run_parts(pool, slots, out.reborrow(), &|part, o, base| {
                ctx.pass(part, o, base, None)
            })?;
        }
    }
}

/// A buffer of the wrong size, as the env's error.
fn buffer_error(e: uno_env::ConfigError) -> AgentError {
    AgentError::Env(e.to_string())
}

/// How the learner's actions are chosen in a step.
#[derive(Clone, Copy)]
enum Learner<'a> {
    Given(&'a [u32]),
    Random,
}

/// Runs `f` over the games, split into contiguous parts on the pool's
/// threads (or all on this one); the first error in game order wins.
fn run_parts<F>(
    pool: Option<&rayon::ThreadPool>,
    slots: &mut [Slot],
    out: BatchMut<'_>,
    f: &F,
) -> Result<(), Illegal>
where
    F: Fn(&mut [Slot], BatchMut<'_>, usize) -> Result<(), Illegal> + Sync,
{
    fn split<F>(slots: &mut [Slot], out: BatchMut<'_>, base: usize, f: &F) -> Result<(), Illegal>
    where
        F: Fn(&mut [Slot], BatchMut<'_>, usize) -> Result<(), Illegal> + Sync,
    {
        if slots.len() <= MIN_PART {
            return f(slots, out, base);
        }
        let k = slots.len() / 2;
        let (a, b) = slots.split_at_mut(k);
        let (oa, ob) = out.split_at(k);
        let (ra, rb) = rayon::join(|| split(a, oa, base, f), || split(b, ob, base + k, f));
        ra.and(rb)
    }
    match pool {
        None => f(slots, out, 0),
        Some(p) => p.install(|| split(slots, out, 0, f)),
    }
}

impl Ctx<'_> {
    /// Deals episode `k` of game `i` into `slot` and reseeds its agents.
    fn deal(&self, slot: &mut Slot, i: usize, k: u64) {
        let ep_seed = episode_seed(self.seed, k);
        slot.state = self.game.new_state_on_stream(ep_seed, i as u64);
        slot.episode = k;
        slot.earlier = 0;
        slot.learner = learner_seat(self.seat, self.game.num_players(), i, k);
        slot.ready = false;
        slot.acted = false;
        slot.carry = [0.0; MAX_PLAYERS];
        for (p, a) in slot.agents.iter_mut().enumerate() {
            if let Some(a) = a {
                a.get().reset(agent_seed(ep_seed, i, p + 1));
            }
        }
    }

    /// One part of the games: the learner's action (clearing the row first),
    /// then each game's own agents until the learner or a batched agent is to act.
    fn pass(
        &self,
        part: &mut [Slot],
        mut out: BatchMut<'_>,
        base: usize,
        learner: Option<Learner<'_>>,
    ) -> Result<(), Illegal> {
        for (j, slot) in part.iter_mut().enumerate() {
            let i = base + j;
            if let Some(l) = learner {
                out.reward[j] = 0.0;
                out.rewards[j * MAX_PLAYERS..(j + 1) * MAX_PLAYERS].fill(0.0);
                out.terminated[j] = 0;
                out.truncated[j] = 0;
                out.episode_len[j] = 0;
                out.winner[j] = -1;
                let a = match l {
                    Learner::Given(v) => v[i] as usize,
                    Learner::Random => slot.picker.pick(slot.mask),
                };
                slot.ready = false;
                if !slot.acted {
                    slot.acted = true;
                    let row = &mut out.rewards[j * MAX_PLAYERS..(j + 1) * MAX_PLAYERS];
                    for (o, c) in row.iter_mut().zip(&mut slot.carry) {
                        *o += std::mem::take(c);
                    }
                    out.reward[j] += row[slot.learner];
                }
                let seat = slot.learner;
                self.apply(slot, &mut out, j, i, a).map_err(|e| Illegal {
                    agent: "learner".into(),
                    seat,
                    action: a,
                    game: i as u64,
                    reason: e.to_string(),
                })?;
            }
            if !slot.ready {
                self.advance(slot, &mut out, j, i)?;
            }
        }
        Ok(())
    }

    /// Plays game `i`'s own agents until the learner is to act (then writes
    /// its row) or a batched agent is.
    fn advance(
        &self,
        slot: &mut Slot,
        out: &mut BatchMut<'_>,
        j: usize,
        i: usize,
    ) -> Result<(), Illegal> {
        let n = self.game.num_players();
        loop {
            let p = match slot.state.current_player() {
                Some(p) if p != slot.learner => p,
                _ => {
                    slot.mask = write_current(self.game, &slot.state, out, j, self.write_obs);
                    out.seat[j] = slot.learner as i32;
                    slot.ready = true;
                    return Ok(());
                }
            };
            let pos = position(p, slot.learner, n) - 1;
            let Some(agent) = slot.agents[pos].as_mut().map(Owned::get) else {
                return Ok(());
            };
            let a = agent.act(self.game, &slot.state, p);
            if let Err(e) = self.apply(slot, out, j, i, a) {
                return Err(Illegal {
                    agent: slot.agents[pos]
                        .as_mut()
                        .map_or_else(String::new, |a| a.get().name()),
                    seat: p,
                    action: a,
                    game: i as u64,
                    reason: e.to_string(),
                });
            }
        }
    }

    /// Applies `a` in game `i` (row `j`), adds the rewards to the row and, at
    /// an episode's end, records it and deals the next episode.
    fn apply(
        &self,
        slot: &mut Slot,
        out: &mut BatchMut<'_>,
        j: usize,
        i: usize,
        a: usize,
    ) -> Result<(), uno_env::ActionError> {
        self.game.apply(&mut slot.state, a)?;
        let mut r = [0.0f32; MAX_PLAYERS];
        let end = settle(
            self.game,
            self.config,
            &mut slot.state,
            &mut slot.earlier,
            &mut r,
        );
        // Before the learner's first decision of an episode: an episode that
        // ends is dropped (see `Slot::acted`); the rewards of a round within
        // it wait for that decision's step (`Slot::carry`).
        if !slot.acted {
            if end.is_some() {
                self.deal(slot, i, slot.episode + 1);
            } else {
                for (c, v) in slot.carry.iter_mut().zip(r) {
                    *c += v;
                }
            }
            return Ok(());
        }
        for (o, v) in out.rewards[j * MAX_PLAYERS..(j + 1) * MAX_PLAYERS]
            .iter_mut()
            .zip(r)
        {
            *o += v;
        }
        out.reward[j] += r[slot.learner];
        if let Some(e) = end {
            out.terminated[j] = (!e.truncated) as u8;
            out.truncated[j] = e.truncated as u8;
            out.episode_len[j] = e.len;
            out.winner[j] = e.winner.map_or(-1, |w| w as i32);
            if self.write_obs {
                encode(
                    self.game,
                    &slot.state,
                    slot.learner,
                    &mut out.final_obs[j * OBS_SIZE..(j + 1) * OBS_SIZE],
                )
                .expect("a checked OBS_SIZE row and the learner's seat of this game");
            }
            self.deal(slot, i, slot.episode + 1);
        }
        Ok(())
    }
}
