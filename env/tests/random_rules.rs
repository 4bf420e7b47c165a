//! Property tests over rule sets a user could write (C-9, invariants): a preset
//! with random changes to its deck, card effects, launcher and options, at a
//! random table size. Each such rule set is either refused with an error
//! (`Rules::validate`, `Game::new`) or plays: random legal rounds keep every
//! invariant, every round ends (or reaches the decision cap), observations are
//! finite, the mask is exactly the set of actions `apply` accepts, a refused
//! action leaves the state unchanged, and the rules survive a TOML round trip. Nothing panics.
//!
//! The single-option tweaks of every preset are in `random_play.rs`; this file
//! draws combinations of them, custom decks and launcher models
//! (`common/rules_strategy.rs`; `agents/tests/random_rules.rs` plays the same
//! rule sets with the hand-written agents).

#[path = "common/rules_strategy.rs"]
mod rules_strategy;

use proptest::prelude::*;
use rules_strategy::rules_draw;
use std::collections::BTreeMap;
use uno_env::rng::ChanceRng;
use uno_env::vec_env::{Buffers, EnvConfig, Episode, RewardMode, VecEnv};
use uno_env::{Game, OBS_SIZE, Rules};

/// Plays up to three rounds of the match with random legal actions, checking
/// after every action what the module doc lists.
fn play(game: &Game, seed: u64) -> Result<(), TestCaseError> {
    let mut s = game.new_state(seed);
    let mut pick = ChanceRng::new(seed ^ 0x51de, 3);
    let mut obs = vec![0.0f32; OBS_SIZE];
    let cap = game.rules().options.max_decisions;
    for _ in 0..3 {
        let mut steps = 0u32;
        while !s.is_round_over() {
            prop_assert!(steps <= cap, "the round ran past max_decisions ({cap})");
            let mask = game.legal_mask(&s);
            let legal = game.legal_actions(&s);
            prop_assert!(!legal.is_empty(), "no legal action in {:?}", s.phase());
            let seat = s
                .current_player()
                .expect("a seat acts while the round runs");
            uno_env::obs::encode(game, &s, seat, &mut obs)
                .map_err(|e| TestCaseError::fail(format!("encode refused the acting seat: {e}")))?;
            prop_assert!(
                obs.iter().all(|v| v.is_finite()),
                "a non-finite observation value"
            );
            // The mask is exactly what `apply` accepts (every action id, at
            // every fourth decision), and a refused action changes nothing.
            if steps.is_multiple_of(4) {
                for action in 0..uno_env::NUM_ACTIONS {
                    let mut t = s.clone();
                    let accepted = game.apply(&mut t, action).is_ok();
                    prop_assert_eq!(
                        accepted,
                        mask >> action & 1 == 1,
                        "{} in {:?}",
                        uno_env::action_name(action),
                        s.phase()
                    );
                    if !accepted {
                        prop_assert_eq!(&t, &s, "a refused action changed the state");
                    }
                }
            }
            let a = legal[pick.below(legal.len() as u32) as usize];
            game.apply(&mut s, a)
                .map_err(|e| TestCaseError::fail(format!("legal action {a} refused: {e}")))?;
            if let Err(e) = game.check_invariants(&s) {
                return Err(TestCaseError::fail(format!(
                    "invariant violated after {}: {}",
                    uno_env::action_name(a),
                    e.message()
                )));
            }
            steps += 1;
        }
        prop_assert!(s.round_winner().is_some() || s.is_truncated());
        if s.is_match_over() {
            break;
        }
        game.next_round(&mut s)
            .map_err(|e| TestCaseError::fail(format!("next_round refused: {e}")))?;
    }
    Ok(())
}

proptest! {
    // A fixed seed: the same cases every run, so a failure reproduces.
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0c57_0b0a),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_rule_set_is_refused_or_plays_cleanly(draw in rules_draw(), players in 2usize..=10, seed in any::<u64>()) {
        let rules = draw.rules();
        // `Game::new` validates the rules, then checks the table size.
        match Game::new(rules.clone(), players).map_err(|e| e.to_string()) {
            Err(message) => {
                prop_assert!(!message.is_empty());
            }
            Ok(game) => {
                // What a user writes to a file reads back as the same rules.
                let back = Rules::from_toml_str(&rules.to_toml())
                    .map_err(|e| TestCaseError::fail(format!("to_toml does not read back: {e}")))?;
                prop_assert_eq!(&back, &rules);
                play(&game, seed)?;
                vec_env_steps(&rules, players, seed)?;
            }
        }
    }
}

/// The vectorized core on the same rules, with match episodes and points
/// rewards (the other branch of each): 300 random batched steps on 1 and 2
/// threads write the same buffers, finite observations and rewards, and
/// zero-sum rewards for every finished episode.
fn vec_env_steps(rules: &Rules, players: usize, seed: u64) -> Result<(), TestCaseError> {
    let config = EnvConfig {
        rules: rules.clone(),
        players,
        episode: if seed.is_multiple_of(2) {
            Episode::Match
        } else {
            Episode::Round
        },
        reward: if seed.is_multiple_of(3) {
            RewardMode::Points
        } else {
            RewardMode::Win
        },
    };
    let run = |threads: usize| -> Result<Vec<Buffers>, String> {
        let mut env = VecEnv::new(config.clone(), 3, seed, threads).map_err(|e| e.to_string())?;
        let mut buf = Buffers::new(3);
        env.reset(buf.batch()).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for step in 0..300 {
            env.step_random(buf.batch(), true)
                .map_err(|e| e.to_string())?;
            if step % 50 == 49 {
                out.push(buf.clone());
            }
        }
        Ok(out)
    };
    let one = run(1).map_err(|e| TestCaseError::fail(format!("VecEnv on 1 thread: {e}")))?;
    let two = run(2).map_err(|e| TestCaseError::fail(format!("VecEnv on 2 threads: {e}")))?;
    for (a, b) in one.iter().zip(&two) {
        prop_assert!(
            a.obs == b.obs && a.rewards == b.rewards && a.mask == b.mask,
            "1 and 2 threads differ"
        );
        prop_assert!(a.obs.iter().chain(a.rewards.iter()).all(|v| v.is_finite()));
        for (i, rewards) in a.rewards.chunks(uno_env::MAX_PLAYERS).enumerate() {
            if a.terminated[i] == 1 {
                let sum: f32 = rewards.iter().sum();
                prop_assert!(
                    sum.abs() < 1e-4,
                    "a finished episode's rewards sum to {sum}: {rewards:?}"
                );
            }
        }
    }
    Ok(())
}

/// The strategy is worth running only if it reaches both outcomes; this runs
/// the same draws without playing and counts them.
#[test]
fn the_rule_sets_drawn_are_both_playable_and_refused() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    let mut runner = TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(0x0c57_0b0a),
        ..Config::default()
    });
    let strategy = (rules_draw(), 2usize..=10);
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for _ in 0..400 {
        let (draw, players) = strategy.new_tree(&mut runner).expect("a draw").current();
        let ok = Game::new(draw.rules(), players).is_ok();
        *tally
            .entry(if ok { "plays" } else { "refused" })
            .or_default() += 1;
    }
    let plays = tally.get("plays").copied().unwrap_or(0);
    let refused = tally.get("refused").copied().unwrap_or(0);
    assert!(
        plays >= 150,
        "only {plays} of 400 drawn rule sets play: {tally:?}"
    );
    assert!(
        refused >= 20,
        "only {refused} of 400 drawn rule sets are refused: {tally:?}"
    );
}
