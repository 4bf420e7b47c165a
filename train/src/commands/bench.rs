//! `uno-attack bench`: environment throughput with random legal actions.

use super::{CmdResult, all_cores_if_zero, load_game, parse_envs, parse_threads};
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Games stepped together (e.g. 1024 or 4e3).
    #[arg(long, default_value_t = 1024, value_parser = parse_envs)]
    envs: usize,
    /// Threads (0 = all cores; at most 256).
    #[arg(long, default_value_t = 1, value_parser = parse_threads)]
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
    /// Measure the single-agent env instead: these agents (one spec for
    /// every other seat, or a comma-separated list, one per seat after the
    /// learner's) play every seat but a rotating learner's, whose random
    /// legal actions are the counted steps.
    #[arg(long)]
    opponents: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bench`: with `--no-obs` the engine alone, otherwise both with and without observations.
pub fn run(mut a: Args) -> CmdResult {
    let game = load_game(&a.rules, a.players)?;
    a.threads = all_cores_if_zero(a.threads);
    if !(a.seconds > 0.0 && a.seconds <= 3600.0) {
        // `{:e}` keeps 1e99 short (`{}` would print all hundred digits).
        let shown = if a.seconds.abs() >= 1e6 {
            format!("{:e}", a.seconds)
        } else {
            a.seconds.to_string()
        };
        return Err(format!("--seconds must be in (0, 3600], not {shown}"));
    }
    let modes: &[bool] = if a.no_obs { &[false] } else { &[false, true] };
    // Ctrl-C (or SIGTERM) ends the measurement under way: its figures are
    // printed (over the time it ran, marked stopped early), no further
    // mode is measured, and the exit code is 130.
    let stop = super::stop_on_signal(
        "interrupted: reporting what was measured so far (Ctrl-C again to quit at once)",
        || {},
    );
    let mut reports = Vec::new();
    for &obs in modes {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let cfg = EnvConfig::new(game.rules().clone(), a.players);
        let mut r = match &a.opponents {
            None => bench::run(cfg, a.envs, a.threads, a.seconds, obs, a.seed, &stop)
                .map_err(|e| e.to_string())?,
            // The opponents' notes (another table size, …) once, not per mode.
            Some(spec) => solo(cfg, &a, spec, obs, reports.is_empty(), &stop)?,
        };
        // A rules file that starts from a preset keeps its name: say what differs.
        r.rules_changed = uno_env::Rules::preset(&game.rules().name)
            .map(|p| p.differences(game.rules()))
            .unwrap_or_default();
        if !a.json {
            println!(
                "{}{} · {}p · {} envs · {} thread(s) · {}: {:.2}M steps/s ({:.2}M per thread; median round {:.2}M), {} episodes, state {} bytes{}",
                r.rules,
                if r.rules_changed.is_empty() {
                    String::new()
                } else {
                    format!(" (changed: {})", r.rules_changed.join(", "))
                },
                r.players,
                r.envs,
                r.threads,
                match (&r.opponents, obs) {
                    (Some(_), true) => "learner decisions, with obs + mask",
                    (Some(_), false) => "learner decisions, engine only",
                    (None, true) => "engine + obs + mask",
                    (None, false) => "engine only",
                },
                r.steps_per_sec / 1e6,
                r.steps_per_sec_per_thread / 1e6,
                r.steady_steps_per_sec / 1e6,
                r.episodes,
                r.state_bytes,
                if r.stopped_early {
                    format!(" (stopped early: {:.2} of {} s)", r.seconds, a.seconds)
                } else {
                    String::new()
                }
            );
        }
        // Another process on the cores lowers every rate here, and the
        // two-thread one most (each batch waits for the slower thread). Not
        // said of short runs, whose start (a worker waking up) weighs more.
        if let Some(share) = r
            .cpu_share
            .filter(|&s| s < LOW_CPU_SHARE && r.seconds >= NOTE_SECONDS)
        {
            eprintln!(
                "note: this run had the CPU for {:.0} % of its time on {} thread(s): another process used the cores, so the rates above are low (measure with nothing else running, and read `--json` output from a file rather than a pipe into a program that starts beside it)",
                share * 100.0,
                r.threads
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
    if stop.load(Ordering::SeqCst) {
        std::process::exit(super::INTERRUPTED);
    }
    Ok(())
}

/// Below this share of its time on the CPU ([`bench::BenchReport::cpu_share`])
/// a run says that something else used the cores. On two threads 0.97 means
/// 6 % of one thread's time taken, which the team loses in full (every batch
/// waits for the slower thread); a run of a second with nothing else beside
/// it reads 0.98 or more.
const LOW_CPU_SHARE: f64 = 0.97;

/// Runs shorter than this (seconds) say nothing of their CPU share: alone,
/// a run of 0.05 s on two threads reads 0.97–0.99, one of a second 0.98–1.
const NOTE_SECONDS: f64 = 0.5;

/// Benchmarks the single-agent env: random learner actions against `spec`
/// (printing the opponents' notes when `say_notes`).
fn solo(
    cfg: EnvConfig,
    a: &Args,
    spec: &str,
    obs: bool,
    say_notes: bool,
    stop: &AtomicBool,
) -> Result<bench::BenchReport, String> {
    crate::commands::register_neural();
    let specs = uno_agents::parse_spec_list(spec).map_err(|e| e.to_string())?;
    let (rules, players) = (cfg.rules.name.clone(), cfg.players);
    let mut env = uno_agents::SoloVecEnv::new(cfg, a.envs, a.seed, a.threads, &specs, None)
        .map_err(|e| e.to_string())?;
    if say_notes {
        for note in env.notes() {
            eprintln!("{note}");
        }
    }
    let mut buf = uno_env::Buffers::new(a.envs);
    env.reset(buf.batch()).map_err(|e| e.to_string())?;
    // The single-agent env keeps no count of finished episodes: they are
    // counted from each batch's done flags.
    let m = bench::measure(
        &mut env,
        a.envs,
        a.seconds,
        &mut buf,
        stop,
        |env, b| env.step_random(b.batch(), obs),
        None,
    )
    .map_err(|e| e.to_string())?;
    let mut r = bench::BenchReport::new(rules, players, a.envs, env.threads(), obs, m);
    r.opponents = Some(spec.to_string());
    Ok(r)
}
