//! `checkpoint:` specs work without a call to `neural::register()` first (a
//! library user's arena used to fail with "neural agents need the `neural`
//! feature"). Its own test binary: nothing else here registers the builder.

#![cfg(feature = "neural")]

use uno_agents::{AgentSpec, ArenaConfig, run_arena};
use uno_env::Rules;

#[test]
fn a_checkpoint_spec_plays_without_registering_first() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../checkpoints/attack-2010-2p");
    let cfg = ArenaConfig {
        rules: Rules::preset("attack-2010").unwrap(),
        players: 2,
        agents: vec![AgentSpec::Checkpoint(dir.into()), AgentSpec::Random],
        games: 8,
        seed: 1,
        threads: 1,
    };
    let r = run_arena(&cfg, None).unwrap();
    assert_eq!(r.games, 8);
    assert!(r.agents[0].wins > 0);
}
