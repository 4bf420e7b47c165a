//! The library's arena with checkpoints (the neural builder registered:
//! kept apart from `arena.rs`, whose tests check what happens without it).
#![cfg(feature = "neural")]

use uno_agents::{AgentSpec, ArenaConfig, LeagueConfig, parse_spec, run_arena, run_league};
use uno_env::Rules;

fn specs(s: &[&str]) -> Vec<AgentSpec> {
    s.iter().map(|x| parse_spec(x).unwrap()).collect()
}

/// The library's arena and league refuse a checkpoint trained for other
/// rules before any game, as the CLI does (they used to seat it: a classic
/// network played `attack-2010` with no word).
#[test]
fn library_arena_refuses_a_checkpoint_trained_for_other_rules() {
    uno_agents::neural::register();
    let classic = format!(
        "checkpoint:{}/../checkpoints/classic-2p",
        env!("CARGO_MANIFEST_DIR")
    );
    let search = format!("search:samples=2,base={classic}");
    for spec in [classic.as_str(), search.as_str()] {
        let cfg = ArenaConfig {
            rules: Rules::preset("attack-2010").unwrap(),
            players: 2,
            agents: specs(&[spec, "heuristic"]),
            games: 2,
            seed: 0,
            threads: 1,
        };
        let e = run_arena(&cfg, None).unwrap_err().to_string();
        assert!(e.contains("trained for rules `classic`"), "{spec}: {e}");
        let league = LeagueConfig {
            rules: cfg.rules.clone(),
            players: 2,
            specs: specs(&["random", spec, "heuristic"]),
            games_per_pair: 2,
            seed: 0,
            threads: 1,
        };
        let e = run_league(&league, None).unwrap_err().to_string();
        assert!(e.contains("trained for rules `classic`"), "{spec}: {e}");
    }
    // The same checkpoint at its own rules plays.
    let cfg = ArenaConfig {
        rules: Rules::preset("classic").unwrap(),
        players: 2,
        agents: specs(&[classic.as_str(), "heuristic"]),
        games: 2,
        seed: 0,
        threads: 1,
    };
    assert_eq!(run_arena(&cfg, None).unwrap().agents.len(), 2);
}
