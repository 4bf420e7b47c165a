//! Throughput measurement behind `uno-attack bench`: random legal play in a
//! [`VecEnv`], with or without observation and mask writing, and the timing
//! loop ([`measure`]) that the single-agent env's benchmark shares.

use crate::error::ConfigError;
use crate::state::State;
use crate::vec_env::{Buffers, EnvConfig, VecEnv};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a benchmark run measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Rules name.
    pub rules: String,
    /// Players per table.
    pub players: usize,
    /// Games stepped together.
    pub envs: usize,
    /// Threads.
    pub threads: usize,
    /// Whether observations and masks were written.
    pub obs: bool,
    /// Steps (decisions) taken.
    pub steps: u64,
    /// Episodes finished.
    pub episodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Steps per second, all threads.
    pub steps_per_sec: f64,
    /// Steps per second per thread.
    pub steps_per_sec_per_thread: f64,
    /// `size_of::<State>()` in bytes.
    pub state_bytes: usize,
    /// Built-in opponents of a single-agent env (`uno-attack bench
    /// --opponents`); its steps are the learner's decisions only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opponents: Option<String>,
    /// The settings in which the rules differ from the preset of their name
    /// (a rules file that starts from a preset); empty for a preset itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_changed: Vec<String>,
    /// The measurement was stopped before its time was up (Ctrl-C): the
    /// rate is over the shorter time it ran.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped_early: bool,
}

/// What [`measure`] counted.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Steps (rows) taken.
    pub steps: u64,
    /// Episodes finished.
    pub episodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// `stop` ended the measurement before `seconds` were up.
    pub stopped_early: bool,
}

/// Calls `step` (one batched step of `envs` games of `env` writing into
/// `buf`) 20 times to warm up, then for about `seconds`, counting steps and
/// finished episodes; raising `stop` (a Ctrl-C handler) ends it sooner, after
/// at least one round of 16 batches, so the rate is always over some steps.
/// The timing loop of every environment benchmark.
///
/// Episodes are counted by `finished` (the environment's running total of
/// finished episodes), read before and after the timed steps, when the
/// environment keeps one; else (`None`) from each batch's `terminated` and
/// `truncated` flags. The flags are read on the calling thread after every
/// batch, so on several threads that share no cache they cross between the
/// caches twice a batch (to the reader, and back to the thread that writes
/// them next): with a counter the timing loop reads nothing the step wrote,
/// and measures the step alone (`docs/performance.md`, session 46).
pub fn measure<T, E>(
    env: &mut T,
    envs: usize,
    seconds: f64,
    buf: &mut Buffers,
    stop: &AtomicBool,
    mut step: impl FnMut(&mut T, &mut Buffers) -> Result<(), E>,
    finished: Option<fn(&T) -> u64>,
) -> Result<Measured, E> {
    for _ in 0..20 {
        step(env, buf)?;
    }
    let budget = Duration::from_secs_f64(seconds.max(0.01));
    let before = finished.map(|f| f(env));
    let start = Instant::now();
    let mut steps = 0u64;
    let mut episodes = 0u64;
    let mut stopped_early = false;
    while start.elapsed() < budget {
        if steps > 0 && stop.load(Ordering::Relaxed) {
            stopped_early = true;
            break;
        }
        for _ in 0..16 {
            step(env, buf)?;
            steps += envs as u64;
            if finished.is_none() {
                // Two separate sums: they vectorize, where a chained
                // iterator does not.
                episodes += ones(&buf.terminated) + ones(&buf.truncated);
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    if let (Some(f), Some(before)) = (finished, before) {
        episodes = f(env) - before;
    }
    Ok(Measured {
        steps,
        episodes,
        seconds,
        stopped_early,
    })
}

/// How many flags of `v` are set (each 0 or 1).
fn ones(v: &[u8]) -> u64 {
    v.iter().map(|&d| d as u32).sum::<u32>() as u64
}

/// Steps `envs` random games for about `seconds` (less if `stop` is raised)
/// and reports the rate.
pub fn run(
    config: EnvConfig,
    envs: usize,
    threads: usize,
    seconds: f64,
    obs: bool,
    seed: u64,
    stop: &AtomicBool,
) -> Result<BenchReport, ConfigError> {
    let rules = config.rules.name.clone();
    let players = config.players;
    let mut env = VecEnv::new(config, envs, seed, threads)?;
    let threads = env.threads();
    let mut buf = Buffers::new(envs);
    env.reset(buf.batch())?;
    let m = measure(
        &mut env,
        envs,
        seconds,
        &mut buf,
        stop,
        |env, b| env.step_random(b.batch(), obs),
        Some(VecEnv::episodes_finished),
    )?;
    Ok(BenchReport::new(rules, players, envs, threads, obs, m))
}

impl BenchReport {
    /// A report of `m`, measured on `threads` threads.
    pub fn new(
        rules: String,
        players: usize,
        envs: usize,
        threads: usize,
        obs: bool,
        m: Measured,
    ) -> BenchReport {
        let rate = m.steps as f64 / m.seconds;
        BenchReport {
            rules,
            players,
            envs,
            threads,
            obs,
            steps: m.steps,
            episodes: m.episodes,
            seconds: m.seconds,
            steps_per_sec: rate,
            steps_per_sec_per_thread: rate / threads.max(1) as f64,
            state_bytes: std::mem::size_of::<State>(),
            opponents: None,
            rules_changed: Vec::new(),
            stopped_early: m.stopped_early,
        }
    }
}
