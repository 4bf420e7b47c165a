//! The launcher model (L-1..L-3) and the `hazard` default of
//! `shared/notes/launcher.md`. Statistical tests use many presses and bounds
//! several standard deviations wide, so they do not flake.

mod common;

use common::*;
use uno_env::rules::CardCount;
use uno_env::{ConfigError, Event, Game, LauncherModel, Phase, Rules, State};

/// A 2-player attack-1999 game with this launcher model.
fn with_launcher(model: LauncherModel) -> Game {
    game_with("attack-1999", 2, |r| r.launcher = model)
}

/// Both players press in turn, `presses` times, from a fresh position on
/// `seed`; returns (misses before the press, cards fired, fired?) per press.
fn press_run(g: &Game, seed: u64, presses: usize) -> Vec<(usize, usize, bool)> {
    let mut sc = scenario(&[&["R7"], &["G1"]], "B5", 0);
    sc.seed = seed;
    let mut s: State = build(g, &sc);
    let mut out = vec![];
    for _ in 0..presses {
        let before = s.misses();
        let seat = s.current_player().unwrap();
        let ev = run(g, &mut s, &["draw"]);
        let fired = presses_of(&ev, seat);
        assert_eq!(fired.len(), 1);
        out.push((before, fired[0], s.misses() == 0));
        assert_eq!(s.last_fired(), fired[0]);
    }
    out
}

fn presses_of(ev: &[Event], seat: usize) -> Vec<usize> {
    presses(ev, seat)
}

// ----- L-1 -----------------------------------------------------------------

#[test]
fn l1_default_model_is_hazard_for_every_attack_preset() {
    for p in ["attack-1999", "attack-2010", "attack-modern"] {
        assert_eq!(
            Rules::preset(p).unwrap().launcher,
            LauncherModel::hazard(),
            "{p}"
        );
    }
    assert_eq!(
        LauncherModel::hazard(),
        LauncherModel::Hazard {
            hazard: vec![0.20, 0.20, 0.55, 1.00],
            cards: CardCount {
                r: 3.0,
                mean: 2.5,
                max: 12
            }
        }
    );
    for name in ["hazard", "bernoulli", "pattern", "draw-one"] {
        assert!(LauncherModel::by_name(name).is_some(), "{name}");
        assert_eq!(LauncherModel::by_name(name).unwrap().name(), name);
    }
    // `name` is the `model` key a rules file writes, for every model.
    let scripted = LauncherModel::Scripted {
        outcomes: vec![0, 2],
    };
    for m in ["hazard", "bernoulli", "pattern", "draw-one"]
        .map(|n| LauncherModel::by_name(n).unwrap())
        .into_iter()
        .chain([scripted])
    {
        let written = toml::Value::try_from(&m).unwrap();
        assert_eq!(
            written.get("model").and_then(|v| v.as_str()),
            Some(m.name()),
            "{m:?}"
        );
    }
}

#[test]
fn l1_hazard_fires_about_37_percent_never_more_than_4_apart() {
    let g = with_launcher(LauncherModel::hazard());
    let (mut presses, mut fires) = (0u32, 0u32);
    let mut by_misses = [(0u32, 0u32); 4];
    let mut counts = vec![];
    for seed in 0..400 {
        let mut gap = 0;
        for (before, k, fired) in press_run(&g, seed, 30) {
            presses += 1;
            let slot = &mut by_misses[before.min(3)];
            slot.0 += 1;
            gap += 1;
            if fired {
                fires += 1;
                slot.1 += 1;
                gap = 0;
                counts.push(k);
            }
            assert!(gap < 4, "more than 4 presses between firings");
            assert!(before <= 3);
        }
    }
    // 12000 presses: sd of the rate about 0.005; the bound is 6 sd.
    let rate = fires as f64 / presses as f64;
    assert!((0.337..0.397).contains(&rate), "fire rate {rate}");
    // The hazard by misses since the last firing: 0.20, 0.20, 0.55, 1.00.
    let h: Vec<f64> = by_misses
        .iter()
        .map(|(n, f)| *f as f64 / *n as f64)
        .collect();
    assert!((0.16..0.24).contains(&h[0]), "{h:?}");
    assert!((0.16..0.24).contains(&h[1]), "{h:?}");
    assert!((0.48..0.62).contains(&h[2]), "{h:?}");
    assert_eq!(
        by_misses[3].0, by_misses[3].1,
        "the fourth press always fires"
    );
    // Cards per firing: 1 + NegBin(3, 2.5) capped at 12; mean 3.5, P(>= 8) ~ 5 %.
    let mean = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
    assert!((3.2..3.8).contains(&mean), "mean cards {mean}");
    assert!(counts.iter().all(|&k| (1..=12).contains(&k)));
    let p8 = counts.iter().filter(|&&k| k >= 8).count() as f64 / counts.len() as f64;
    assert!((0.025..0.085).contains(&p8), "P(>=8) {p8}");
}

#[test]
fn l1_bernoulli_is_memoryless() {
    let g = with_launcher(LauncherModel::bernoulli());
    let (mut n, mut f) = (0u32, 0u32);
    let mut after_three = (0u32, 0u32);
    for seed in 0..300 {
        for (before, _, fired) in press_run(&g, seed, 30) {
            n += 1;
            f += fired as u32;
            if before >= 3 {
                after_three.0 += 1;
                after_three.1 += fired as u32;
            }
        }
    }
    let rate = f as f64 / n as f64;
    assert!((0.32..0.38).contains(&rate), "{rate}");
    let late = after_three.1 as f64 / after_three.0 as f64;
    assert!((0.28..0.42).contains(&late), "{late}");
}

#[test]
fn l1_pattern_replays_the_96_press_list() {
    let g = with_launcher(LauncherModel::pattern());
    let fired: Vec<bool> = press_run(&g, 3, 13).iter().map(|p| p.2).collect();
    // Presses 2, 6, 9 and 13 fire.
    let want: Vec<bool> = (1..=13).map(|i| [2, 6, 9, 13].contains(&i)).collect();
    assert_eq!(fired, want);
}

#[test]
fn l1_draw_one_and_scripted_models() {
    let g = with_launcher(LauncherModel::DrawOne);
    assert!(press_run(&g, 1, 20).iter().all(|p| p.1 == 1 && p.2));
    // Scripted outcomes are replayed in order and start over when exhausted.
    let g = scripted("attack-1999", 2, &[0, 4, 2]);
    let fired: Vec<usize> = press_run(&g, 1, 7).iter().map(|p| p.1).collect();
    assert_eq!(fired, vec![0, 4, 2, 0, 4, 2, 0]);
    // A scripted list that never fires is refused.
    let bad = rules("attack-1999", |r| {
        r.launcher = LauncherModel::Scripted {
            outcomes: vec![0, 0],
        }
    });
    assert!(matches!(Game::new(bad, 2), Err(ConfigError::Invalid(_))));
}

#[test]
fn l1_fired_cards_capped_by_cards_loaded() {
    let g = scripted("attack-1999", 2, &[12]);
    let mut sc = scenario(&[&["R7"], &["G1"]], "B5", 0);
    sc.launcher = Some(faces(&["R1", "R2", "R3"]));
    // Nothing under the top to reload: seat 1 holds the rest of the deck.
    sc.hands[1] = without(deck_faces(&g), &faces(&["B5", "R7", "R1", "R2", "R3"]));
    let mut s = build(&g, &sc);
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 0), vec![3]);
    assert_eq!(s.pile_len(), 0);
}

#[test]
fn l1_launcher_model_from_toml() {
    let r = Rules::from_toml_str(
        r#"
        preset = "attack-modern"
        [launcher]
        model = "hazard"
        hazard = [0.5, 1.0]
        cards = { r = 2.0, mean = 1.0, max = 4 }
        "#,
    )
    .unwrap();
    let g = Game::new(r, 2).unwrap();
    for seed in 0..50 {
        let mut gap = 0;
        for (_, k, fired) in press_run(&g, seed, 10) {
            gap = if fired { 0 } else { gap + 1 };
            assert!(gap < 2);
            assert!(k <= 4);
        }
    }
    // A model named alone takes the documented defaults (L-1, docs/env.md):
    // `model = "pattern"` is the 96-press list, as `LauncherModel::by_name`.
    for name in ["hazard", "bernoulli", "pattern", "draw-one"] {
        let r = Rules::from_toml_str(&format!(
            "preset = \"attack-modern\"\n[launcher]\nmodel = \"{name}\"\n"
        ))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(Some(r.launcher), LauncherModel::by_name(name), "{name}");
    }
    // A partial override keeps the preset's model and its other fields.
    let r = Rules::from_toml_str("preset = \"attack-2010\"\n[launcher.cards]\nmax = 8\n").unwrap();
    let LauncherModel::Hazard { hazard, cards } = r.launcher else {
        panic!("{:?}", r.launcher)
    };
    assert_eq!(
        (hazard, cards.max, cards.mean),
        (vec![0.20, 0.20, 0.55, 1.00], 8, 2.5)
    );
    let r = Rules::from_toml_str("preset = \"attack-2010\"\n[launcher]\nhazard = [0.3, 1.0]\n")
        .unwrap();
    assert!(
        matches!(r.launcher, LauncherModel::Hazard { ref hazard, .. } if *hazard == [0.3, 1.0])
    );
    assert!(
        Rules::from_toml_str("preset = \"attack-modern\"\n[launcher]\nmodel = \"catapult\"\n")
            .is_err()
    );
    assert!(matches!(
        Rules::from_toml_str(
            "preset = \"attack-modern\"\n[launcher]\nmodel = \"hazard\"\nhazard = [0.0]\n"
        ),
        Err(ConfigError::Invalid(_))
    ));
}

// ----- L-2 -----------------------------------------------------------------

#[test]
fn l2_miss_counter_and_fired_counts_are_public() {
    let g = scripted("attack-1999", 2, &[0, 0, 2, 0, 5]);
    let mut s = build(&g, &scenario(&[&["R7"], &["G1"]], "B5", 0));
    assert_eq!(s.misses(), 0);
    let mut seen = vec![];
    for _ in 0..5 {
        let ev = run(&g, &mut s, &["draw"]);
        seen.push((s.misses(), s.last_fired(), ev.clone()));
    }
    let m: Vec<(usize, usize)> = seen.iter().map(|x| (x.0, x.1)).collect();
    assert_eq!(m, vec![(1, 0), (2, 0), (0, 2), (1, 0), (0, 5)]);
    // Every press is reported with how many cards it fired.
    for (_, fired, ev) in &seen {
        assert!(
            ev.iter()
                .any(|e| matches!(e, Event::Pressed { fired: f, .. } if f == fired))
        );
    }
    // The counter survives serialization (it is part of the state).
    let t = State::from_json(&s.to_json()).unwrap();
    assert_eq!(t.misses(), s.misses());
    // A scenario may set it.
    let mut sc = scenario(&[&["R7"], &["G1"]], "B5", 0);
    sc.misses = 3;
    let s = build(&with_launcher(LauncherModel::hazard()), &sc);
    assert_eq!(s.misses(), 3);
}

// ----- L-3 -----------------------------------------------------------------

#[test]
fn l3_a_press_is_one_draw_from_the_model() {
    // Hit 2 with attack-1999 (no stop on fire): exactly two draws from the model.
    let g = scripted("attack-1999", 3, &[0, 3, 1]);
    let mut s = build(
        &g,
        &scenario(&[&["R-hit2", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:R-hit2"]);
    assert_eq!(presses(&ev, 1), vec![0, 3]);
    // The next press continues the script.
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 2), vec![1]);
}

#[test]
fn l3_press_until_fire_stops_at_first_firing() {
    let g = scripted("attack-1999", 3, &[0, 0, 2, 7]);
    let mut s = build(
        &g,
        &scenario(&[&["wild-hit-fire", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
    assert_eq!(presses(&ev, 1), vec![0, 0, 2]);
    expect_turn(&s, 2, Phase::Play);

    // With the hazard model it always stops within four presses.
    let g = with_launcher(LauncherModel::hazard());
    for seed in 0..200 {
        let mut sc = scenario(&[&["wild-hit-fire", "R7"], &["G1"]], "R5", 0);
        sc.seed = seed;
        let mut s = build(&g, &sc);
        let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
        let p = presses(&ev, 1);
        assert!((1..=4).contains(&p.len()), "{p:?}");
        assert!(p[..p.len() - 1].iter().all(|&k| k == 0));
        assert!(*p.last().unwrap() > 0);
    }
}

#[test]
fn l3_press_until_fire_with_little_left_takes_what_there_is() {
    // Seat 1 holds the rest of the deck; the launcher is empty. The firing
    // press reloads the discard pile under the top (one card) and stops.
    let g = scripted("attack-1999", 2, &[0, 0, 5]);
    let mut sc = scenario(&[&["wild-hit-fire", "R7"], &[]], "R5", 0);
    sc.launcher = Some(vec![]);
    sc.hands[1] = without(deck_faces(&g), &faces(&["R5", "wild-hit-fire", "R7"]));
    let mut s = build(&g, &sc);
    let before = s.hand_len(1);
    let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
    assert_eq!(presses(&ev, 1), vec![0, 0, 1]);
    assert_eq!(s.hand_len(1), before + 1);
    assert_eq!(s.pile_len(), 0);
    assert_eq!(s.discard().count_ones(), 1);
}

#[test]
fn l3_press_until_fire_waits_for_a_slow_launcher() {
    // "Press until it fires" stops at the first press that fires, however
    // many misses come first: a scripted launcher firing on its 100th press,
    // and a Bernoulli launcher firing on 1 % of presses (the engine's guard
    // is 4,096 presses, rules::MAX_PRESSES_UNTIL_FIRE).
    let mut outcomes = vec![0u8; 99];
    outcomes.push(2);
    let g = game_with("attack-1999", 3, |r| {
        r.launcher = LauncherModel::Scripted { outcomes };
    });
    let mut s = build(
        &g,
        &scenario(&[&["wild-hit-fire", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
    let p = presses(&ev, 1);
    assert_eq!(p.len(), 100);
    assert_eq!(p[99], 2);
    assert_eq!(s.hand_len(1), 3);

    let g = game_with("attack-1999", 3, |r| {
        r.launcher = LauncherModel::Bernoulli {
            p: 0.01,
            cards: CardCount::default(),
        };
    });
    for seed in 0..200 {
        let mut sc = scenario(&[&["wild-hit-fire", "R7"], &["G1"], &["B1"]], "R5", 0);
        sc.seed = seed;
        let mut s = build(&g, &sc);
        let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
        assert!(*presses(&ev, 1).last().unwrap() > 0, "seed {seed}");
        assert!(s.hand_len(1) > 1, "seed {seed}");
    }
}

#[test]
fn l1_l3_models_that_would_stop_firing_or_fire_too_many_are_refused() {
    // A hazard list applies its last probability from then on: a last 0
    // would leave the launcher dead after that many misses.
    let e = Game::new(
        rules("attack-2010", |r| {
            r.launcher = LauncherModel::Hazard {
                hazard: vec![0.3, 0.0],
                cards: CardCount::default(),
            }
        }),
        2,
    )
    .unwrap_err();
    assert!(
        matches!(e, ConfigError::Invalid(ref m) if m.contains("last probability")),
        "{e}"
    );
    // A press fires at most 32 cards: a larger `max` is refused, not capped.
    for (max, ok) in [(32u8, true), (33, false), (255, false)] {
        let r = rules("attack-2010", |r| {
            r.launcher = LauncherModel::Bernoulli {
                p: 0.5,
                cards: CardCount {
                    max,
                    ..CardCount::default()
                },
            }
        });
        assert_eq!(Game::new(r, 2).is_ok(), ok, "max {max}");
    }
}
