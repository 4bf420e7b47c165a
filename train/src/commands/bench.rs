//! `uno-attack bench`: environment throughput with random legal actions.

use super::{CmdResult, load_game};
use uno_env::{EnvConfig, bench};

/// Flags of `bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Preset or TOML path.
    #[arg(long, default_value = "attack-2010")]
    rules: String,
    /// Players at the table (2..=10).
    #[arg(long, default_value_t = 4)]
    players: usize,
    /// Games stepped together.
    #[arg(long, default_value_t = 1024)]
    envs: usize,
    /// Threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Measure only the engine (no observation/mask writing).
    #[arg(long)]
    no_obs: bool,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bench`: with `--no-obs` the engine alone, otherwise both with and without observations.
pub fn run(a: Args) -> CmdResult {
    let game = load_game(&a.rules, a.players)?;
    if !(1..=uno_env::MAX_ENVS).contains(&a.envs) {
        return Err(format!(
            "--envs must be between 1 and {}, not {}",
            uno_env::MAX_ENVS,
            a.envs
        ));
    }
    if !(1..=uno_env::MAX_THREADS).contains(&a.threads) {
        return Err(format!(
            "--threads must be between 1 and {}, not {}",
            uno_env::MAX_THREADS,
            a.threads
        ));
    }
    if !(a.seconds > 0.0 && a.seconds <= 3600.0) {
        return Err(format!("--seconds must be in (0, 3600], not {}", a.seconds));
    }
    let modes: &[bool] = if a.no_obs { &[false] } else { &[false, true] };
    let mut reports = Vec::new();
    for &obs in modes {
        let cfg = EnvConfig::new(game.rules().clone(), a.players);
        let r = bench::run(cfg, a.envs, a.threads, a.seconds, obs, a.seed)
            .map_err(|e| e.to_string())?;
        if !a.json {
            println!(
                "{} · {}p · {} envs · {} thread(s) · {}: {:.2}M steps/s ({:.2}M per thread), {} episodes, state {} bytes",
                r.rules,
                r.players,
                r.envs,
                r.threads,
                if obs {
                    "engine + obs + mask"
                } else {
                    "engine only"
                },
                r.steps_per_sec / 1e6,
                r.steps_per_sec_per_thread / 1e6,
                r.episodes,
                r.state_bytes
            );
        }
        reports.push(r);
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
        );
    }
    Ok(())
}
