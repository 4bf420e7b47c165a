//! Property tests (C-9, invariants): random legal play over every preset and
//! table size never panics, never breaks an invariant, and every round ends
//! (or hits the documented decision cap, counted as truncation).

use proptest::prelude::*;
use uno_env::rng::ChanceRng;
use uno_env::{Game, PRESETS, Rules, State};

/// Plays one round with uniformly random legal actions; returns the decisions taken.
fn random_round(game: &Game, s: &mut State, pick: &mut ChanceRng) -> u32 {
    let mut n = 0;
    while !s.is_round_over() {
        let legal = game.legal_actions(s);
        assert!(!legal.is_empty(), "no legal action in {:?}", s.phase());
        let a = legal[pick.below(legal.len() as u32) as usize];
        game.apply(s, a)
            .unwrap_or_else(|e| panic!("legal action {a} refused: {e}"));
        if let Err(e) = game.check_invariants(s) {
            panic!(
                "invariant violated after {}: {e}\n{}",
                uno_env::action_name(a),
                s.to_json()
            );
        }
        n += 1;
    }
    n
}

proptest! {
    // A fixed seed: the same 60 cases every run, so a failure reproduces
    // (change the seed here to explore other cases).
    #![proptest_config(ProptestConfig {
        cases: 60,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0fa1),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_play_keeps_invariants(seed in any::<u64>(), preset in 0usize..5, players in 2usize..=10) {
        let game = Game::new(Rules::preset(PRESETS[preset]).unwrap(), players).unwrap();
        let mut s = game.new_state(seed);
        prop_assert!(game.check_invariants(&s).is_ok(), "{:?}", game.check_invariants(&s));
        let mut pick = ChanceRng::new(seed ^ 0x9e37, 1);
        for _ in 0..3 {
            random_round(&game, &mut s, &mut pick);
            prop_assert!(s.is_round_over());
            prop_assert!(s.round_winner().is_some() || s.is_truncated());
            if s.is_match_over() { break; }
            game.next_round(&mut s).unwrap();
            prop_assert!(game.check_invariants(&s).is_ok());
        }
    }
}

#[test]
fn many_rounds_every_preset_every_size() {
    for preset in PRESETS {
        for players in 2..=10 {
            let game = Game::new(Rules::preset(preset).unwrap(), players).unwrap();
            let mut pick = ChanceRng::new(99, 2);
            for seed in 0..40u64 {
                let mut s = game.new_state(seed);
                let d = random_round(&game, &mut s, &mut pick);
                // A round takes decisions and ends with a winner or at the cap.
                assert!(d > 0, "{preset} {players}: no decision");
                assert!(
                    s.round_winner().is_some() || s.is_truncated(),
                    "{preset} {players}: ended with neither a winner nor the cap"
                );
            }
        }
    }
}

#[test]
fn same_seed_same_actions_same_states() {
    for preset in PRESETS {
        let game = Game::new(Rules::preset(preset).unwrap(), 4).unwrap();
        let run = || {
            let mut s = game.new_state(123);
            let mut pick = ChanceRng::new(5, 0);
            let mut trace = vec![s.clone()];
            while !s.is_round_over() {
                let legal = game.legal_actions(&s);
                let a = legal[pick.below(legal.len() as u32) as usize];
                game.apply(&mut s, a).unwrap();
                trace.push(s.clone());
            }
            trace
        };
        assert_eq!(run(), run(), "{preset}");
    }
}

#[test]
fn serialize_restore_continue_equals_never_stopping() {
    for preset in PRESETS {
        let game = Game::new(Rules::preset(preset).unwrap(), 3).unwrap();
        let mut a = game.new_state(77);
        let mut pick = ChanceRng::new(8, 0);
        let mut restored = false;
        for i in 0.. {
            if a.is_round_over() {
                break;
            }
            if i == 15 {
                // Snapshot mid-game; replay the rest on the restored copy.
                let mut b = State::from_json(&a.to_json()).unwrap();
                let mut pick_b = pick.clone();
                let mut a2 = a.clone();
                while !a2.is_round_over() {
                    let legal = game.legal_actions(&a2);
                    let x = legal[pick.below(legal.len() as u32) as usize];
                    let y = game.legal_actions(&b)[pick_b.below(legal.len() as u32) as usize];
                    assert_eq!(x, y);
                    game.apply(&mut a2, x).unwrap();
                    game.apply(&mut b, y).unwrap();
                    assert_eq!(a2, b, "{preset}");
                }
                restored = true;
                break;
            }
            let legal = game.legal_actions(&a);
            let x = legal[pick.below(legal.len() as u32) as usize];
            game.apply(&mut a, x).unwrap();
        }
        assert!(restored, "{preset}: the round ended before the snapshot");
    }
}

/// Every preset with one rule option changed from its preset value: random
/// play keeps every invariant (the options reshape the phase machine: C-4's
/// explicit UNO call puts a decision between a wild and its colour, F-6's
/// bluffing adds challenges, F-2's draw-then-play an after-draw decision, …).
#[test]
fn every_option_variant_keeps_invariants() {
    use uno_env::rules::{AttackResume, TurnOrder, UnoCall};
    type Tweak = (&'static str, fn(&mut Rules));
    let tweaks: [Tweak; 13] = [
        ("uno_call = explicit (C-4)", |r| {
            r.options.uno_call = UnoCall::Explicit
        }),
        ("uno_call = explicit, catch 0.5 (C-4)", |r| {
            r.options.uno_call = UnoCall::Explicit;
            r.options.catch_probability = 0.5;
        }),
        ("stop_hits_on_fire flipped", |r| {
            r.options.stop_hits_on_fire = !r.options.stop_hits_on_fire
        }),
        ("mega_hit flipped", |r| {
            r.options.mega_hit = !r.options.mega_hit
        }),
        ("attack_resume = after-target", |r| {
            r.options.attack_resume = AttackResume::AfterTarget
        }),
        ("bonus_play_after_skip flipped", |r| {
            r.options.bonus_play_after_skip = !r.options.bonus_play_after_skip
        }),
        ("targeted_draws flipped", |r| {
            r.options.targeted_draws = !r.options.targeted_draws
        }),
        ("wd4_bluffing flipped", |r| {
            r.options.wd4_bluffing = !r.options.wd4_bluffing
        }),
        ("draw_then_play flipped", |r| {
            r.options.draw_then_play = !r.options.draw_then_play
        }),
        ("turn_order = random-unit", |r| {
            r.options.turn_order = TurnOrder::RandomUnit
        }),
        ("timeouts (F-3)", |r| r.options.timeout_chance = 0.2),
        ("wild-custom as Trade Hands (A-19, A-9)", |r| {
            if let Some(k) = r.kinds.get_mut(&uno_env::Kind::WildCustom) {
                k.effect = uno_env::Effect::TradeHands;
            }
        }),
        ("bonus play with explicit UNO and targeted draws", |r| {
            r.options.bonus_play_after_skip = true;
            r.options.uno_call = UnoCall::Explicit;
            r.options.targeted_draws = true;
        }),
    ];
    for preset in PRESETS {
        for (what, tweak) in &tweaks {
            let mut rules = Rules::preset(preset).unwrap();
            tweak(&mut rules);
            if rules.validate().is_err() {
                continue;
            }
            for players in [2, 4, 10] {
                let game = Game::new(rules.clone(), players).unwrap();
                let mut pick = ChanceRng::new(7, players as u64);
                for seed in 0..30u64 {
                    let mut s = game.new_state(seed);
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        random_round(&game, &mut s, &mut pick)
                    }));
                    assert!(
                        result.is_ok(),
                        "{preset}, {what}, {players} players, seed {seed}"
                    );
                }
            }
        }
    }
}
