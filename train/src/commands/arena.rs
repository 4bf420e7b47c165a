//! `uno-attack arena`: agents head to head, seats rotated, with confidence
//! intervals; `--league` rates many agents round-robin (Bradley–Terry).

use super::{CmdResult, parse_count, parse_threads};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use uno_agents::{
    AgentError, ArenaConfig, LeagueConfig, parse_spec_list, run_arena_partial, run_league_until,
};
use uno_env::Rules;

/// Flags of `arena`.
#[derive(clap::Args)]
pub struct Args {
    /// Preset or TOML path.
    #[arg(long, default_value = "attack-2010")]
    rules: String,
    /// Players at the table (2..=10); the number of agents must divide it.
    #[arg(long, default_value_t = 2)]
    players: usize,
    /// Comma-separated agent specs: random, random-play, first-legal, greedy,
    /// heuristic[:key=value,...], search[:samples=N,z=Z,base=SPEC],
    /// checkpoint:<dir>[?sample].
    #[arg(long, default_value = "heuristic,random")]
    agents: String,
    /// Games (rounds) to play (per pair with --league), e.g. 20000 or 2e4.
    #[arg(long, default_value = "2000", value_parser = parse_count)]
    games: u64,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (0 = all cores; at most 256).
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
    /// Round-robin league over all the agents, rated with Bradley–Terry.
    #[arg(long)]
    league: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn progress_bar(total: u64, json: bool) -> Option<ProgressBar> {
    if json || !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games · {per_sec} · eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(pb)
}

/// Runs `arena`.
pub fn run(a: Args) -> CmdResult {
    crate::commands::register_neural();
    let rules = Rules::load(&a.rules).map_err(|e| e.to_string())?;
    let specs = parse_spec_list(&a.agents).map_err(|e| e.to_string())?;
    let game = uno_env::Game::new(rules.clone(), a.players).map_err(|e| e.to_string())?;
    let (k, league) = (specs.len(), a.league);
    let dirs: Vec<_> = specs
        .iter()
        .flat_map(uno_agents::AgentSpec::checkpoints)
        .collect();
    let arena = ArenaConfig {
        rules,
        players: a.players,
        agents: specs,
        games: a.games,
        seed: a.seed,
        threads: a.threads,
    };
    let league = league.then(|| LeagueConfig {
        rules: arena.rules.clone(),
        players: arena.players,
        specs: arena.agents.clone(),
        games_per_pair: arena.games,
        seed: arena.seed,
        threads: arena.threads,
    });
    // Errors before notes: a refused table prints only its error. The
    // library lets one agent fill every seat; the command compares agents.
    if k < 2 {
        return Err(format!(
            "--agents needs at least two agents to compare (got {}); list one twice to play it against itself",
            a.agents
        ));
    }
    match &league {
        Some(l) => l.check(),
        None => arena.check(),
    }
    .map_err(|e| e.to_string())?;
    // A checkpoint must have been trained for these rules (and this observation layout).
    // A search's base may be a checkpoint too.
    for note in uno_agents::neural::check_compatible_all(&dirs, &game)
        .map_err(|(dir, e)| uno_agents::neural::naming_checkpoint(&dir, &e))?
    {
        eprintln!("{note}");
    }
    // Each block of K games (K agents; 2 per league pairing) seats every
    // agent in every seat class once, and with several cyclic orders of the
    // agents a block of K · orders games plays each: a part block tilts the
    // seating.
    let seating = arena.seating();
    let block = if league.is_some() { 2 } else { seating.block() };
    if !a.games.is_multiple_of(block) {
        eprintln!(
            "note: {} {} not a multiple of {block} ({}): every agent sits in every seat equally only over whole blocks of {block} games",
            a.games,
            if a.games == 1 { "game is" } else { "games is" },
            match (league.is_some(), seating.orders()) {
                (true, _) => "the agents of a pairing".to_string(),
                (false, 0 | 1) => "the number of agents".to_string(),
                (false, m) => format!("{k} agents in {m} cyclic orders"),
            }
        );
    }
    // Ctrl-C (or SIGTERM) lets the games under way finish; an arena then
    // reports the games played, a league (whose ratings need every pairing
    // whole) only says that it stopped.
    let stop = super::stop_on_signal(
        if league.is_some() {
            "interrupted: finishing the games under way; a league reports only when every pairing is played (Ctrl-C again to quit at once)"
        } else {
            "interrupted: finishing the games under way, then reporting them (Ctrl-C again to quit at once)"
        },
        || {},
    );
    let is_league = league.is_some();
    let interrupted = |e: AgentError| match e {
        AgentError::Interrupted => {
            eprintln!(
                "stopped: {}",
                if is_league {
                    "the league's pairings were not all played, so there are no ratings"
                } else {
                    "no game was finished, nothing to report"
                }
            );
            std::process::exit(super::INTERRUPTED)
        }
        e => e.to_string(),
    };
    if let Some(cfg) = league {
        let pairs = (k * (k - 1) / 2) as u64;
        let report = with_progress(a.games * pairs, a.json, |cb| {
            run_league_until(&cfg, Some(cb), &stop)
        })
        .map_err(interrupted)?;
        return print_report(&report, a.json);
    }
    let report = with_progress(a.games, a.json, |cb| {
        run_arena_partial(&arena, Some(cb), &stop)
    })
    .map_err(interrupted)?;
    print_report(&report, a.json)?;
    if stop.load(Ordering::SeqCst) {
        // The report (partial or, if the signal came after the last game
        // started, whole) is out; the exit code says the run was stopped.
        std::process::exit(super::INTERRUPTED);
    }
    Ok(())
}

/// Runs `f` with a progress callback that drives a bar on a terminal.
fn with_progress<R>(total: u64, json: bool, f: impl FnOnce(&(dyn Fn(u64, u64) + Sync)) -> R) -> R {
    let pb = progress_bar(total, json);
    let cb = |done: u64, _total: u64| {
        if let Some(pb) = &pb {
            pb.set_position(done);
        }
    };
    let out = f(&cb);
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    out
}

/// Prints a report as JSON or as its table.
fn print_report<T: serde::Serialize + std::fmt::Display>(report: &T, json: bool) -> CmdResult {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(report).map_err(|e| e.to_string())?
        );
    } else {
        println!("{report}");
    }
    Ok(())
}
