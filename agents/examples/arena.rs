//! Measures agents against each other with the arena (used to tune the heuristic).
//!
//! `cargo run -p uno-agents --no-default-features --release --example arena -- \
//!     <preset> <players> <games> <spec> [<spec> ...]`
//!
//! With `league` as the first argument the remaining specs play a round robin:
//! `... --example arena -- league <preset> <players> <games-per-pair> <spec> <spec> ...`

use uno_agents::{ArenaConfig, LeagueConfig, parse_spec, run_arena, run_league};
use uno_env::Rules;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let league = args.first().is_some_and(|a| a == "league");
    if league {
        args.remove(0);
    }
    if args.len() < 4 {
        eprintln!("usage: arena [league] <preset> <players> <games> <spec> [<spec> ...]");
        std::process::exit(2);
    }
    let rules = Rules::load(&args[0])?;
    let players: usize = args[1].parse()?;
    let games: u64 = args[2].parse()?;
    let specs = args[3..]
        .iter()
        .map(|s| parse_spec(s))
        .collect::<Result<Vec<_>, _>>()?;
    let seed = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
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
        print!("{}", run_league(&cfg, None)?);
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
        print!("{r}");
        if std::env::var("JSON").is_ok() {
            println!("{}", serde_json::to_string_pretty(&r)?);
        }
    }
    eprintln!("({:.1}s)", t.elapsed().as_secs_f64());
    Ok(())
}
