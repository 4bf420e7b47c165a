//! The agents on rule sets a user could write: every hand-written agent (and,
//! with the `neural` feature, the shipped `universal` network) plays random
//! customised rule sets (the strategy of `env/tests/random_rules.rs`: a preset
//! with random changes to its deck, card effects, launcher and options) without
//! panicking and with a legal action at every decision. The agents' models of
//! the launcher and the deck (the heuristic's supply model, the search's
//! resampling) are built from the rules, so odd decks and launchers reach them.

#[path = "../../env/tests/common/rules_strategy.rs"]
mod rules_strategy;

use proptest::prelude::*;
use rules_strategy::rules_draw;
use uno_agents::{Agent, parse_spec};
use uno_env::Game;

/// The agents seated round the table, in turn.
const SPECS: [&str; 5] = [
    "heuristic",
    "greedy",
    "random-play",
    "search:samples=3",
    "first-legal",
];

/// Plays one round of `game` with the agents of `specs` seated in turn;
/// fails on an illegal choice or a refused action.
fn play_round(game: &Game, specs: &[&str], seed: u64) -> Result<(), TestCaseError> {
    let mut agents: Vec<Box<dyn Agent + Send>> = (0..game.num_players())
        .map(|p| {
            let spec = parse_spec(specs[p % specs.len()]).expect("a valid spec");
            uno_agents::build(&spec, seed ^ p as u64).expect("buildable")
        })
        .collect();
    let mut s = game.new_state(seed);
    while !s.is_round_over() {
        let seat = s
            .current_player()
            .expect("a seat acts while the round runs");
        let a = agents[seat].act(game, &s, seat);
        let mask = game.legal_mask(&s);
        prop_assert!(
            a < 128 && mask >> a & 1 == 1,
            "{} chose illegal action {a} in {:?}",
            agents[seat].name(),
            s.phase()
        );
        game.apply(&mut s, a)
            .map_err(|e| TestCaseError::fail(format!("legal action {a} refused: {e}")))?;
    }
    Ok(())
}

proptest! {
    // A fixed seed: the same cases every run, so a failure reproduces.
    #![proptest_config(ProptestConfig {
        cases: 120,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xa9e7_5eed),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_agents_play_any_rule_set(draw in rules_draw(), players in 2usize..=6, seed in any::<u64>()) {
        let rules = draw.rules();
        // `Game::new` refuses rules that do not validate.
        let Ok(game) = Game::new(rules, players) else {
            return Ok(());
        };
        play_round(&game, &SPECS, seed)?;
        #[cfg(feature = "neural")]
        {
            let universal = concat!(env!("CARGO_MANIFEST_DIR"), "/../checkpoints/universal");
            let spec = format!("checkpoint:{universal}");
            play_round(&game, &[spec.as_str(), "heuristic"], seed)?;
        }
    }
}
