//! Throughput measurement behind `uno-attack bench`: random legal play in a
//! [`VecEnv`], with or without observation and mask writing.

use crate::error::ConfigError;
use crate::state::State;
use crate::vec_env::{Buffers, EnvConfig, VecEnv};
use serde::Serialize;
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
}

/// Steps `envs` random games for about `seconds` and reports the rate.
pub fn run(
    config: EnvConfig,
    envs: usize,
    threads: usize,
    seconds: f64,
    obs: bool,
    seed: u64,
) -> Result<BenchReport, ConfigError> {
    let rules = config.rules.name.clone();
    let players = config.players;
    let mut env = VecEnv::new(config, envs, seed, threads)?;
    let threads = env.threads();
    let mut buf = Buffers::new(envs);
    env.reset(buf.batch())?;
    // Warm-up.
    for _ in 0..20 {
        env.step_random(buf.batch(), obs)?;
    }
    let budget = Duration::from_secs_f64(seconds.max(0.01));
    let start = Instant::now();
    let mut steps = 0u64;
    let mut episodes = 0u64;
    while start.elapsed() < budget {
        for _ in 0..16 {
            env.step_random(buf.batch(), obs)?;
            steps += envs as u64;
            episodes += buf
                .terminated
                .iter()
                .chain(&buf.truncated)
                .map(|&d| d as u64)
                .sum::<u64>();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let rate = steps as f64 / secs;
    Ok(BenchReport {
        rules,
        players,
        envs,
        threads,
        obs,
        steps,
        episodes,
        seconds: secs,
        steps_per_sec: rate,
        steps_per_sec_per_thread: rate / threads.max(1) as f64,
        state_bytes: std::mem::size_of::<State>(),
    })
}
