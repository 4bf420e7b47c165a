//! `uno-attack train`: self-play PPO from the command line.

use super::{CmdResult, parse_count, parse_count_or_zero, parse_envs, parse_threads};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use uno_train::selfplay::{TrainConfig, TrainError, Trainer};

/// Flags of `train`; a flag given on the command line overrides `--config`.
#[derive(clap::Args)]
pub struct Args {
    /// Preset or TOML path [default: the config's, else attack-2010].
    #[arg(long)]
    rules: Option<String>,
    /// Players per table [default: the config's, else 2].
    #[arg(long)]
    players: Option<usize>,
    /// Train one network on several tables at once, RULES:PLAYERS each
    /// (e.g. attack-2010:4,classic:2); the games are shared out evenly.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["rules", "players"])]
    tables: Option<Vec<String>>,
    /// Environment steps to train for (e.g. 2000000 or 2e6); the run ends
    /// with the first whole update past it [default: the config's, else 2e6].
    #[arg(long, value_parser = parse_count)]
    steps: Option<u64>,
    /// Run directory (checkpoints, logs).
    #[arg(long, default_value = "runs/default")]
    out: PathBuf,
    /// Training config (TOML; see docs/training.md).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Continue the run in --out from its last checkpoint (without it, --out
    /// must not exist or be empty).
    #[arg(long)]
    resume: bool,
    /// Threads for environment stepping and evaluation (0 = all cores; at most 256)
    /// [default: the config's, else 2].
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Seed [default: the config's, else 0].
    #[arg(long)]
    seed: Option<u64>,
    /// Games played in parallel (e.g. 256 or 1e3) [default: the config's, else 256].
    #[arg(long, value_parser = parse_envs)]
    envs: Option<usize>,
    /// Games per evaluation opponent (0 turns evaluation off; with --resume
    /// it replaces the run's value) [default: the config's, else 1000].
    #[arg(long, value_parser = parse_count_or_zero)]
    eval_games: Option<u64>,
    /// Start a new run from this checkpoint's weights (e.g. a 2-player model
    /// for a 4-player run); fresh optimizer and counters.
    #[arg(long, conflicts_with = "resume")]
    init: Option<PathBuf>,
    /// With --init: grow the checkpoint's network to these hidden widths (e.g. 512,512),
    /// computing the same function with more capacity.
    #[arg(long, value_delimiter = ',', conflicts_with = "resume")]
    grow: Option<Vec<usize>>,
    /// Compute device: cpu (default), or wgpu / cuda[:N] in builds with `--features wgpu` / `--features cuda`.
    #[arg(long)]
    device: Option<String>,
}

/// Runs `train`.
pub fn run(a: Args) -> CmdResult {
    crate::commands::register_neural();
    // The run's own settings, when resuming one that recorded them, and the
    // --config file's; each as its text (for merging) and as a config
    // (checked, so errors name the file's line).
    let run_config = a.out.join(uno_train::selfplay::CONFIG_FILE);
    let mut run = (a.resume && run_config.is_file())
        .then(|| read_config(&run_config, "invalid config.toml in the run:"))
        .transpose()?;
    if a.resume && run.is_none() {
        // config.toml lost: the checkpoint's meta.json records the settings
        // too (silently falling back to the defaults would resume another run).
        run = recorded_config(&a.out)?;
    }
    let run_start = run.as_ref().map(|(_, c)| (c.init.clone(), c.grow));
    let file = match a.config.as_deref() {
        Some(p) => Some((p, read_config(p, "invalid training config")?)),
        None => None,
    };
    let mut cfg = match (file, run) {
        // On resume, --config changes the settings it names; the others
        // stay the run's (not the defaults).
        (Some((p, (text, _))), Some((run, _))) => resume_with(&run, &text)
            .map_err(|e| format!("invalid training config {}: {e}", p.display()))?,
        (Some((_, (_, cfg))), None) | (None, Some((_, cfg))) => cfg,
        (None, None) => TrainConfig::default(),
    };
    // init and grow say how a run started: a resume cannot change them.
    if let Some((init, grow)) = &run_start
        && (&cfg.init != init || cfg.grow != *grow)
    {
        return Err(format!(
            "init and grow start a new run from a checkpoint; --resume continues the run in {} as it started (init = {}, grow = {grow}), so the config cannot change them",
            a.out.display(),
            init.as_ref()
                .map_or("none".to_string(), |p| format!("\"{}\"", p.display()))
        ));
    }
    if !cfg.tables.is_empty() && (a.rules.is_some() || a.players.is_some()) {
        return Err(format!(
            "the config trains on several tables ({}); change them with --tables, not --rules or --players",
            cfg.tables.join(", ")
        ));
    }
    if let Some(v) = a.tables {
        cfg.tables = v;
    }
    if let Some(v) = a.rules {
        cfg.rules = v;
    }
    if let Some(v) = a.players {
        cfg.players = v;
    }
    if let Some(v) = a.steps {
        cfg.steps = v;
    }
    if let Some(v) = a.threads {
        cfg.threads = v;
    }
    if let Some(v) = a.seed {
        cfg.seed = v;
    }
    if let Some(v) = a.envs {
        cfg.envs = v;
    }
    if let Some(v) = a.init {
        cfg.init = Some(v);
    }
    if let Some(v) = a.grow {
        cfg.hidden = v;
        cfg.grow = true;
    }
    if let Some(v) = a.device {
        uno_agents::neural::device_by_name(&v).map_err(|e| e.to_string())?;
        cfg.learner.device = v;
    }
    if let Some(v) = a.eval_games {
        // 0 turns evaluation off through `eval_games` alone, so a later
        // `--resume --eval-games N` turns it back on.
        cfg.eval_games = v;
        if v > 0 && cfg.eval_every == 0 {
            cfg.eval_every = TrainConfig::default().eval_every;
            eprintln!(
                "note: --eval-games {v} turns evaluation on, every {} updates (the config had eval_every = 0)",
                cfg.eval_every
            );
        }
    }
    // Every value checked before the thread pool is built with the config's
    // thread count (a huge `threads` in a config file used to start that
    // many threads before it was refused).
    cfg.validate().map_err(|e| e.to_string())?;
    // 0 = every core, as in `arena` (the flag or `threads = 0` in a config).
    // The run's config.toml keeps the 0, so a resume on another machine uses
    // its cores; the trainer resolves it from this pool.
    let threads = super::all_cores_if_zero(cfg.threads);
    // One global rayon pool shared by burn's kernels and the environment.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    let mut trainer = match Trainer::new(cfg, &a.out, a.resume) {
        Ok(t) => t,
        // Not a failure: the run is left as it was.
        Err(e @ TrainError::NothingToTrain { .. }) => {
            eprintln!("note: {e}");
            return Ok(());
        }
        Err(e) => return Err(e.to_string()),
    };
    for note in trainer.notes() {
        eprintln!("{note}");
    }
    {
        let c = trainer.config();
        let what = trainer.describe_tables();
        eprintln!(
            "{} {what} to {} steps in {} (Ctrl-C saves a checkpoint and stops)",
            if trainer.resumed() {
                "resuming"
            } else {
                "training"
            },
            c.steps,
            a.out.display()
        );
    }
    let lock = a.out.join(uno_train::selfplay::LOCK_FILE);
    let stop = super::stop_on_signal(
        "interrupted: saving a checkpoint (Ctrl-C again to quit at once)",
        // Quitting at once skips the trainer's clean-up: release the run
        // directory's lock here.
        move || {
            let _ = std::fs::remove_file(&lock);
        },
    );
    let total = trainer.config().steps;
    // What a resume brings along, told apart from this session's evaluation.
    let eval_before = trainer.state().eval.clone();
    let bar = std::io::stderr().is_terminal().then(|| {
        let pb = ProgressBar::new(total);
        pb.set_style(
            // The bar takes what the line leaves (fits 80 columns).
            ProgressStyle::with_template("{wide_bar} {pos}/{len} · {msg} · eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        pb.set_position(trainer.state().steps);
        pb
    });
    let mut last_print = std::time::Instant::now();
    let stopping = stop.clone();
    trainer
        .run(stop.clone(), |p| {
            // After "interrupted: saving …" the line would read as progress.
            if stopping.load(Ordering::Relaxed) {
                return;
            }
            let msg = format!(
                "{:.0} steps/s · update {} · recent wins {:.1}%",
                p.steps_per_sec,
                p.updates,
                100.0 * p.win_rate
            );
            match &bar {
                Some(pb) => {
                    pb.set_position(p.steps.min(p.total));
                    pb.set_message(msg);
                }
                None if last_print.elapsed().as_secs_f64() > 10.0 => {
                    eprintln!("{} / {} steps · {msg}", p.steps, p.total);
                    last_print = std::time::Instant::now();
                }
                None => {}
            }
        })
        .map_err(|e| e.to_string())?;
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    let s = trainer.state();
    let interrupted = stop.load(Ordering::SeqCst);
    println!(
        "{} after {} steps, {} samples, {} update{}, {} episodes in {:.0} s (the run's time, evaluations included); checkpoint: {}",
        if interrupted { "stopped" } else { "done" },
        s.steps,
        s.samples,
        s.updates,
        if s.updates == 1 { "" } else { "s" },
        s.episodes,
        s.seconds,
        a.out.join("latest").display()
    );
    if !s.eval.is_null() && s.eval == eval_before {
        // A resumed run that evaluated nothing: its last evaluation is of
        // an earlier network, not the one just saved.
        println!(
            "no evaluation in this session (the run's last one, in {}, is of the network of an earlier session)",
            a.out.join("trainer.json").display()
        );
    } else if !s.eval.is_null() {
        println!("last evaluation: {}", s.eval);
        let cut = eval_truncated(&s.eval);
        if cut > 0 {
            println!(
                "note: {cut} evaluation {} cut short at the decision cap (an untrained network that keeps pressing or drawing): {} as lost",
                if cut == 1 { "round was" } else { "rounds were" },
                if cut == 1 { "it counts" } else { "they count" },
            );
        }
    }
    if interrupted {
        // Ctrl-C: the checkpoint is saved, but the run did not finish, so
        // `train … && arena …` stops here (128 + SIGINT, as shells report it).
        drop(trainer);
        let _ = std::io::Write::flush(&mut std::io::stdout());
        std::process::exit(super::INTERRUPTED);
    }
    Ok(())
}

/// The run's config (`run`, TOML) with the settings `changes` names put in
/// its place, tables merged key by key: `[learner] lr = 1e-4` changes the
/// learning rate and keeps the run's other `[learner]` settings. A config
/// that names `tables` replaces the run's table (`rules`, `players`) and the
/// other way round.
fn resume_with(run: &str, changes: &str) -> Result<TrainConfig, String> {
    fn merge(base: &mut toml::Table, top: toml::Table) {
        for (k, v) in top {
            match (base.get_mut(&k), v) {
                (Some(toml::Value::Table(b)), toml::Value::Table(t)) => merge(b, t),
                (_, v) => {
                    base.insert(k, v);
                }
            }
        }
    }
    let mut base: toml::Table = toml::from_str(run).map_err(|e| e.to_string())?;
    let top: toml::Table = toml::from_str(changes).map_err(|e| e.to_string())?;
    if top.contains_key("tables") {
        base.remove("rules");
        base.remove("players");
    } else if top.contains_key("rules") || top.contains_key("players") {
        base.remove("tables");
    }
    merge(&mut base, top);
    toml::Value::Table(base)
        .try_into::<TrainConfig>()
        .map_err(|e| e.to_string())
}

/// Reads the training config at `path`: its text and the config it holds;
/// an error starts with `what` and names the line.
/// The settings `DIR/latest/meta.json` records (`trained_with`), as TOML text
/// and config, for a run whose config.toml is missing; `None` without a checkpoint.
fn recorded_config(out: &std::path::Path) -> Result<Option<(String, TrainConfig)>, String> {
    let latest = out.join("latest");
    if !latest.join(uno_agents::neural::META_FILE).is_file() {
        return Ok(None);
    }
    let meta = uno_agents::neural::read_meta(&latest).map_err(|e| e.to_string())?;
    let cfg: TrainConfig = serde_json::from_value(meta.trained_with).map_err(|e| {
        format!(
            "{} has no config.toml, and {}'s trained_with is not a training config ({e})",
            out.display(),
            latest.join(uno_agents::neural::META_FILE).display()
        )
    })?;
    eprintln!(
        "note: {} has no config.toml; resuming with the settings its latest/meta.json records",
        out.display()
    );
    let text = toml::to_string(&cfg).map_err(|e| e.to_string())?;
    Ok(Some((text, cfg)))
}

fn read_config(path: &std::path::Path, what: &str) -> Result<(String, TrainConfig), String> {
    // A training config is a few kilobytes.
    const MAX_CONFIG_BYTES: u64 = 1 << 20;
    let text = uno_env::file::read_text(path, MAX_CONFIG_BYTES, "training config")
        .map_err(|e| format!("cannot read {e}"))?;
    let cfg = toml::from_str::<TrainConfig>(&text)
        .map_err(|e| format!("{what} {}", toml_error(path, &text, &e)))?;
    Ok((text, cfg))
}

/// A TOML error in the file `path` on one line (see [`uno_env::rules::toml_error_line`]).
fn toml_error(path: &std::path::Path, text: &str, e: &toml::de::Error) -> String {
    format!(
        "{}: {}",
        path.display(),
        uno_env::rules::toml_error_line(text, e)
    )
}

/// Rounds of an evaluation (`trainer.json`'s `eval`) cut short at the
/// decision cap, over every opponent and table.
fn eval_truncated(eval: &serde_json::Value) -> u64 {
    let mut n = 0;
    if let Some(m) = eval.as_object() {
        for (k, v) in m {
            n += if k == "tables" {
                v.as_object()
                    .map_or(0, |t| t.values().map(eval_truncated).sum())
            } else {
                v.get("truncated")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0)
            };
        }
    }
    n
}
