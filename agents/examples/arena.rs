//! Measures agents against each other with the arena (used to tune the heuristic).
//!
//! `cargo run -p uno-agents --no-default-features --release --example arena -- \
//!     <preset> <players> <games> <spec> [<spec> ...]`
//!
//! With `league` as the first argument the remaining specs play a round robin:
//! `... --example arena -- league <preset> <players> <games-per-pair> <spec> <spec> ...`
//!
//! Environment: `SEED=N` (default 1) seeds the games; `JSON=1` prints the
//! report as JSON instead of the table.

use uno_agents::{ArenaConfig, LeagueConfig, parse_spec, run_arena, run_league};
use uno_env::Rules;

const USAGE: &str = "usage: arena [league] <preset> <players> <games> <spec> <spec> [<spec> ...]  (env: SEED=N, JSON=1)";

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let league = args.first().is_some_and(|a| a == "league");
    if league {
        args.remove(0);
    }
    // At least two agents: one agent in every seat compares nothing.
    if args.len() < 5 {
        return Err(USAGE.into());
    }
    let rules = Rules::load(&args[0])?;
    let players: usize = args[1]
        .parse()
        .map_err(|_| format!("players must be a whole number, not `{}`", args[1]))?;
    let games: u64 = args[2]
        .parse()
        .map_err(|_| format!("games must be a whole number, not `{}`", args[2]))?;
    let specs = args[3..]
        .iter()
        .map(|s| parse_spec(s))
        .collect::<Result<Vec<_>, _>>()?;
    let seed = match std::env::var("SEED") {
        Ok(s) => s
            .parse()
            .map_err(|_| format!("SEED must be a whole number, not `{s}`"))?,
        Err(_) => 1,
    };
    let json = std::env::var("JSON").is_ok();
    let t = std::time::Instant::now();
    if league {
        let cfg = LeagueConfig {
            rules,
            players,
            specs,
            games_per_pair: games,
            seed,
            threads: 2,
        };
        let r = run_league(&cfg, None)?;
        if json {
            println!("{}", serde_json::to_string_pretty(&r)?);
        } else {
            print!("{r}");
        }
    } else {
        let cfg = ArenaConfig {
            rules,
            players,
            agents: specs,
            games,
            seed,
            threads: 2,
        };
        let r = run_arena(&cfg, None)?;
        if json {
            println!("{}", serde_json::to_string_pretty(&r)?);
        } else {
            print!("{r}");
        }
    }
    eprintln!("({:.1}s)", t.elapsed().as_secs_f64());
    Ok(())
}
