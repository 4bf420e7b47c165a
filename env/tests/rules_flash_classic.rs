//! UNO Flash (F-1..F-10) and classic UNO (K-1..K-4), from explicit scenarios.
//! Flash's unit is random: tests either loop seeds or check distributions
//! with wide bounds (several standard deviations), never a lucky seed.

mod common;

use common::*;
use uno_env::{Event, EventLog, Game, Imposed, Kind, Phase, Rules, State};

fn flash(players: usize) -> Game {
    Game::new(Rules::preset("flash").unwrap(), players).unwrap()
}

fn classic(players: usize) -> Game {
    Game::new(Rules::preset("classic").unwrap(), players).unwrap()
}

/// Scenario with a seed.
fn seeded(hands: &[&[&str]], top: &str, current: usize, seed: u64) -> uno_env::Scenario {
    let mut sc = scenario(hands, top, current);
    sc.seed = seed;
    sc
}

/// Plays rounds until the start card of the next round is of `kind`; returns
/// that state and the events of the deal (start card and its effect).
fn next_round_starting_with(game: &Game, start: &str) -> (State, Vec<Event>) {
    rounds_starting_with(game, start, 1)
        .pop()
        .expect("one round")
}

/// `count` new rounds (from successive seeds) whose start card is of
/// `start`'s kind, each with the events of its deal.
fn rounds_starting_with(game: &Game, start: &str, count: usize) -> Vec<(State, Vec<Event>)> {
    let want = face(start).kind();
    let n = game.num_players();
    let mut hands: Vec<&[&str]> = vec![&["R7"]];
    let rest: [&[&str]; 9] = [
        &["G1"],
        &["G2"],
        &["G3"],
        &["G4"],
        &["G6"],
        &["G7"],
        &["G8"],
        &["G9"],
        &["B1"],
    ];
    hands.extend(&rest[..n - 1]);
    let mut found = Vec::with_capacity(count);
    for seed in 0..200_000 {
        let mut s = build(game, &seeded(&hands, "R5", 0, seed));
        run(game, &mut s, &["play:R7"]);
        let mut log = EventLog::default();
        game.next_round_with(&mut s, &mut log).unwrap();
        game.check_invariants(&s).unwrap();
        if s.top_face(game).kind() == want {
            found.push((s, log.0));
            if found.len() == count {
                return found;
            }
        }
    }
    panic!("fewer than {count} rounds start with {start}");
}

/// How often the seat that `victim_of` finds in each round's events is the
/// seat to play next, and how often each seat is that victim.
fn victims_and_repicks(
    rounds: &[(State, Vec<Event>)],
    players: usize,
    victim_of: impl Fn(&Event) -> Option<usize>,
) -> (Vec<u32>, u32) {
    let mut victims = vec![0u32; players];
    let mut repicked = 0;
    for (s, ev) in rounds {
        let v = ev.iter().find_map(&victim_of).expect("a victim");
        victims[v] += 1;
        repicked += u32::from(s.current_player() == Some(v));
    }
    (victims, repicked)
}

// ----- F-1 -----------------------------------------------------------------

#[test]
fn f1_unit_picks_next_player_uniformly_including_the_player() {
    let g = flash(4);
    let mut seen = [0u32; 4];
    let trials = 4000;
    for seed in 0..trials {
        let mut s = build(
            &g,
            &seeded(&[&["R7", "R8"], &["G1"], &["B1"], &["Y1"]], "R5", 0, seed),
        );
        run(&g, &mut s, &["play:R7"]);
        seen[s.current_player().unwrap()] += 1;
    }
    // Expected 1000 each, standard deviation about 27: the bound is ~5.5 sd.
    assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
}

#[test]
fn f1_unit_picks_the_first_player_uniformly_no_direction() {
    let g = flash(4);
    let mut rel = [0u32; 4];
    let mut total = 0;
    for seed in 0..3000 {
        let s = g.new_state(seed);
        if s.top_face(&g).kind().number().is_none() {
            continue;
        }
        rel[(s.current_player().unwrap() + 4 - s.dealer()) % 4] += 1;
        total += 1;
    }
    let lo = total / 4 - total / 8;
    let hi = total / 4 + total / 8;
    assert!(
        rel.iter().all(|&c| (lo..hi).contains(&c)),
        "{rel:?} of {total}"
    );
    assert!(
        !g.has_face(face("R-reverse")),
        "no direction of play, no Reverse"
    );
}

// ----- F-2 -----------------------------------------------------------------

#[test]
fn f2_drawn_playable_card_may_be_played_at_once_only_that_card() {
    for g in [flash(3), classic(3)] {
        let mut sc = scenario(&[&["R7", "B9"], &["G1"], &["B1"]], "R5", 0);
        sc.launcher = Some(faces(&["R3"]));
        let mut s = build(&g, &sc);
        let ev = run(&g, &mut s, &["draw"]);
        assert!(ev.contains(&Event::Drew { seat: 0, n: 1 }));
        expect_turn(&s, 0, Phase::AfterDraw);
        // Only the drawn card (not R7), or keep it.
        assert_eq!(g.legal_actions(&s), vec![id("play:R3"), id("pass")]);
        let mut t = s.clone();
        assert!(g.apply(&mut t, id("play:R7")).is_err());
        run(&g, &mut s, &["play:R3"]);
        assert_eq!(s.top_face(&g), face("R3"));
        assert_eq!(s.hand_len(0), 2);
    }
}

#[test]
fn f2_draw_keep_or_unplayable_ends_the_turn() {
    let g = classic(3);
    let mut sc = scenario(&[&["R7", "B9"], &["G1"], &["B1"]], "R5", 0);
    sc.launcher = Some(faces(&["R3"]));
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["draw", "pass"]);
    expect_turn(&s, 1, Phase::Play);
    assert_eq!(s.hand_len(0), 3);

    sc.launcher = Some(faces(&["G3"]));
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["draw"]);
    expect_turn(&s, 1, Phase::Play);
    assert_eq!(s.hand_len(0), 3);
}

// ----- F-3 -----------------------------------------------------------------

#[test]
fn f3_timeout_draws_two_and_passes_the_turn() {
    let g = classic(3);
    let mut s = build(&g, &scenario(&[&["R7", "B9"], &["G1"], &["B1"]], "R5", 0));
    let mut log = EventLog::default();
    g.timeout(&mut s, &mut log).unwrap();
    assert_eq!(
        log.0,
        vec![Event::Timeout { seat: 0 }, Event::Drew { seat: 0, n: 2 }]
    );
    assert_eq!(s.hand_len(0), 4);
    expect_turn(&s, 1, Phase::Play);
    g.check_invariants(&s).unwrap();

    // Only a normal turn can time out.
    let mut s = build(&g, &scenario(&[&["wild", "B9"], &["G1"], &["B1"]], "R5", 0));
    run(&g, &mut s, &["play:wild"]);
    let before = s.clone();
    assert!(g.timeout(&mut s, &mut ()).is_err());
    assert_eq!(s, before);

    // Flash: the unit picks who plays next (F-1), uniformly among everyone,
    // the player who timed out included.
    let g = flash(3);
    let mut next = [0u32; 3];
    for seed in 0..600 {
        let mut s = build(
            &g,
            &seeded(&[&["R7", "B9"], &["G1"], &["B1"]], "R5", 0, seed),
        );
        g.timeout(&mut s, &mut ()).unwrap();
        assert_eq!(s.hand_len(0), 4);
        assert_eq!(s.phase(), Phase::Play);
        next[s.current_player().unwrap()] += 1;
    }
    // 200 expected each; 4.2 standard deviations (sqrt(600 * 1/3 * 2/3) = 11.5) is 48.
    assert!(next.iter().all(|&c| (152..=248).contains(&c)), "{next:?}");
}

#[test]
fn f3_simulated_time_outs_happen_at_the_configured_rate() {
    // Each turn start draws time-outs with probability `timeout_chance`
    // until one fails (the turn then starts in the play phase): time-outs /
    // (time-outs + turns started) estimates the probability.
    for p in [0.1, 0.3] {
        let g = Game::new(rules("flash", |r| r.options.timeout_chance = p), 3).unwrap();
        let (mut timeouts, mut turns) = (0u64, 0u64);
        for seed in 0..60 {
            let mut s = g.new_state(seed);
            let mut log = EventLog::default();
            while !s.is_round_over() {
                turns += (s.phase() == Phase::Play) as u64;
                let a = g.legal_actions(&s)[0];
                g.apply_with(&mut s, a, &mut log).unwrap();
            }
            timeouts += log
                .0
                .iter()
                .filter(|e| matches!(e, Event::Timeout { .. }))
                .count() as u64;
        }
        let n = (timeouts + turns) as f64;
        let rate = timeouts as f64 / n;
        let sd = (p * (1.0 - p) / n).sqrt();
        assert!(n > 2_000.0, "only {n} draws");
        assert!(
            (rate - p).abs() < 4.0 * sd,
            "p {p}: rate {rate} over {n} draws"
        );
    }
}

#[test]
fn f3_simulated_players_time_out_only_when_configured() {
    for (chance, expect_any) in [(0.0, false), (0.3, true)] {
        let g = Game::new(rules("flash", |r| r.options.timeout_chance = chance), 3).unwrap();
        let mut any = false;
        for seed in 0..20 {
            let mut s = g.new_state(seed);
            let mut log = EventLog::default();
            while !s.is_round_over() {
                let a = g.legal_actions(&s)[0];
                g.apply_with(&mut s, a, &mut log).unwrap();
            }
            any |= log.0.iter().any(|e| matches!(e, Event::Timeout { .. }));
        }
        assert_eq!(any, expect_any, "timeout_chance {chance}");
    }
}

// ----- F-4 -----------------------------------------------------------------

#[test]
fn f4_draw_two_victim_picked_by_unit_even_the_player() {
    let g = flash(3);
    let mut victims = [0u32; 3];
    let mut repicked = 0;
    for seed in 0..600 {
        let mut s = build(
            &g,
            &seeded(&[&["R-draw2", "R8"], &["G1"], &["B1"]], "R5", 0, seed),
        );
        let ev = run(&g, &mut s, &["play:R-draw2"]);
        let v = ev
            .iter()
            .find_map(|e| match e {
                Event::Hit { seat, n: 2 } => Some(*seat),
                _ => None,
            })
            .expect("a victim");
        assert!(ev.contains(&Event::Drew { seat: v, n: 2 }));
        assert_eq!(s.hand_len(v), 3);
        victims[v] += 1;
        repicked += u32::from(s.current_player() == Some(v));
    }
    assert!(victims.iter().all(|&c| c > 120), "{victims:?}");
    // [reading] F-4 with F-1: the victim misses the turn the unit gave them,
    // and the unit then picks again among everyone, the victim included. A
    // victim who kept the turn would play next every time; here a third of
    // the time (expected 200, standard deviation about 12).
    assert!(
        (130..270).contains(&repicked),
        "victim plays next {repicked}/600"
    );
}

#[test]
fn f4_draw_two_matched_by_colour_or_draw_two() {
    let g = flash(3);
    let s = build(
        &g,
        &scenario(
            &[&["Y-draw2", "G-draw2", "R3", "B3"], &["G1"], &["B1"]],
            "G-draw2",
            0,
        ),
    );
    let mut want = vec![id("play:Y-draw2"), id("play:G-draw2"), id("draw")];
    want.sort();
    assert_eq!(g.legal_actions(&s), want);
}

#[test]
fn f4_targeted_draws_player_names_the_victim() {
    for preset in ["flash", "classic"] {
        let g = game_with(preset, 4, |r| r.options.targeted_draws = true);
        let mut s = build(
            &g,
            &scenario(&[&["R-draw2", "R8"], &["G1"], &["B1"], &["Y1"]], "R5", 0),
        );
        run(&g, &mut s, &["play:R-draw2"]);
        expect_turn(&s, 0, Phase::ChooseTarget);
        let ev = run(&g, &mut s, &["target:+2"]);
        assert!(ev.contains(&Event::Hit { seat: 2, n: 2 }), "{preset}");
        assert_eq!(s.hand_len(2), 3);
        if preset == "classic" {
            // Play continues after the victim.
            expect_turn(&s, 3, Phase::Play);
        }
        // 004's variant covers Wild Draw Four too: the player names the
        // victim after the colour, and that victim may challenge (F-6).
        let mut s = build(
            &g,
            &scenario(&[&["wild-draw4", "G8"], &["G1"], &["B1"], &["Y1"]], "R5", 0),
        );
        run(&g, &mut s, &["play:wild-draw4", "colour:blue"]);
        expect_turn(&s, 0, Phase::ChooseTarget);
        assert_eq!(
            g.legal_actions(&s),
            vec![id("target:+1"), id("target:+2"), id("target:+3")]
        );
        run(&g, &mut s, &["target:+3"]);
        expect_turn(&s, 3, Phase::Challenge);
        let ev = run(&g, &mut s, &["accept"]);
        assert!(
            ev.contains(&Event::Hit { seat: 3, n: 4 }),
            "{preset}: {ev:?}"
        );
        assert_eq!(s.hand_len(3), 5);
        // Without the variant the unit (flash) or the seating (classic) picks.
        let plain = game_with(preset, 4, |_| {});
        assert!(matches!(
            plain.effect_of(Kind::WildDraw4),
            uno_env::Effect::Hit {
                targeted: false,
                ..
            }
        ));
    }
}

#[test]
fn f4_c5_the_unit_never_picks_a_player_who_has_gone_out() {
    // [reading] C-5 with F-4: a last Draw Two's victim is picked among the
    // opponents (004: "once a player has no cards left, the round is over";
    // the next player draws the two). Before the last card the unit may still
    // pick the player (F-4, tested above).
    let g = flash(3);
    let mut victims = [0u32; 3];
    for seed in 0..300 {
        let mut s = build(
            &g,
            &seeded(&[&["R-draw2"], &["G1"], &["B1"]], "R5", 0, seed),
        );
        let ev = run(&g, &mut s, &["play:R-draw2"]);
        assert_eq!(s.round_winner(), Some(0), "seed {seed}: {ev:?}");
        let v = ev
            .iter()
            .find_map(|e| match e {
                Event::Hit { seat, .. } => Some(*seat),
                _ => None,
            })
            .expect("someone draws two");
        victims[v] += 1;
    }
    assert_eq!(victims[0], 0);
    assert!(victims[1] > 100 && victims[2] > 100, "{victims:?}");
}

// ----- F-5 -----------------------------------------------------------------

#[test]
fn f5_skip_the_picked_player_loses_the_turn() {
    let g = flash(3);
    let mut skipped = [0u32; 3];
    let mut repicked = 0;
    for seed in 0..600 {
        let mut s = build(
            &g,
            &seeded(&[&["R-skip", "R8"], &["G1"], &["B1"]], "R5", 0, seed),
        );
        let ev = run(&g, &mut s, &["play:R-skip"]);
        let v = ev
            .iter()
            .find_map(|e| match e {
                Event::Skipped { seat } => Some(*seat),
                _ => None,
            })
            .expect("someone is skipped");
        skipped[v] += 1;
        repicked += u32::from(s.current_player() == Some(v));
        assert_eq!(s.phase(), Phase::Play);
        // The skipped player loses the turn and draws nothing.
        assert_eq!(s.hand_len(v), 1);
    }
    assert!(skipped.iter().all(|&c| c > 120), "{skipped:?}");
    // [reading] F-5 with F-1: the turn the unit gave the skipped player is
    // lost and the unit picks again among everyone, the skipped player
    // included: they play next a third of the time, not never and not always
    // (expected 200, standard deviation about 12).
    assert!(
        (130..270).contains(&repicked),
        "skipped plays next {repicked}/600"
    );
}

// ----- F-6 -----------------------------------------------------------------

#[test]
fn f6_legal_wild_draw_four_challenged_challenger_draws_six() {
    let g = classic(3);
    // G5 matches by number but is not red: it does not forbid the Wild Draw Four.
    let mut s = build(
        &g,
        &scenario(
            &[&["wild-draw4", "G5", "B-skip"], &["G1"], &["B1"]],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:wild-draw4", "colour:green"]);
    expect_turn(&s, 1, Phase::Challenge);
    assert_eq!(g.legal_actions(&s), vec![id("challenge"), id("accept")]);
    let ev = run(&g, &mut s, &["challenge"]);
    // The offender shows their hand: the two cards left (F-6).
    assert!(ev.contains(&Event::Challenge {
        challenger: 1,
        offender: 0,
        bluff: false,
        shown: faces(&["G5", "B-skip"]),
    }));
    assert_eq!(s.hand_len(1), 7);
    assert_eq!(s.hand_len(0), 2);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn f6_bluff_challenged_offender_draws_four_challenger_plays() {
    let g = classic(3);
    let mut s = build(
        &g,
        &scenario(
            &[&["wild-draw4", "R3", "B-skip"], &["G1"], &["B1"]],
            "R5",
            0,
        ),
    );
    let ev = run(
        &g,
        &mut s,
        &["play:wild-draw4", "colour:green", "challenge"],
    );
    assert!(ev.contains(&Event::Challenge {
        challenger: 1,
        offender: 0,
        bluff: true,
        shown: faces(&["R3", "B-skip"]),
    }));
    assert_eq!(s.hand_len(0), 6);
    assert_eq!(s.hand_len(1), 1);
    // [reading] F-6: the challenger then plays their turn.
    expect_turn(&s, 1, Phase::Play);
    assert_eq!(s.active_colour(), Some(uno_env::Colour::Green));
}

#[test]
fn f6_accepted_victim_draws_four_and_loses_turn() {
    let g = classic(3);
    let mut s = build(
        &g,
        &scenario(
            &[&["wild-draw4", "R3", "B-skip"], &["G1"], &["B1"]],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:wild-draw4", "colour:blue", "accept"]);
    assert!(ev.contains(&Event::Drew { seat: 1, n: 4 }));
    assert_eq!(s.hand_len(1), 5);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn f6_no_bluffing_makes_illegal_wild_draw_four_unplayable() {
    let g = game_with("classic", 3, |r| r.options.wd4_bluffing = false);
    let s = build(
        &g,
        &scenario(&[&["wild-draw4", "R3"], &["G1"], &["B1"]], "R5", 0),
    );
    assert!(!g.legal_actions(&s).contains(&id("play:wild-draw4")));
    let mut t = s.clone();
    let e = g.apply(&mut t, id("play:wild-draw4")).unwrap_err();
    assert!(e.to_string().contains("F-6"), "{e}");
    assert_eq!(t, s);
    // Legal play: no challenge decision, the victim draws four at once.
    let mut s = build(
        &g,
        &scenario(&[&["wild-draw4", "G3"], &["G1"], &["B1"]], "R5", 0),
    );
    run(&g, &mut s, &["play:wild-draw4", "colour:green"]);
    assert_eq!(s.hand_len(1), 5);
    expect_turn(&s, 2, Phase::Play);
    assert!(Rules::preset("classic").unwrap().options.wd4_bluffing);
}

#[test]
fn f6_flash_wild_draw_four_challenge() {
    let g = flash(3);
    let mut found = false;
    for seed in 0..200 {
        let mut s = build(
            &g,
            &seeded(&[&["wild-draw4", "R3"], &["G1"], &["B1"]], "R5", 0, seed),
        );
        run(&g, &mut s, &["play:wild-draw4", "colour:green"]);
        if s.phase() == Phase::Challenge {
            let victim = s.current_player().unwrap();
            assert_ne!(victim, 0);
            let ev = run(&g, &mut s, &["challenge"]);
            assert!(ev.contains(&Event::Challenge {
                challenger: victim,
                offender: 0,
                bluff: true,
                shown: faces(&["R3"]),
            }));
            assert_eq!(s.hand_len(0), 5);
            expect_turn(&s, victim, Phase::Play);
            found = true;
            break;
        }
    }
    assert!(found);
}

// ----- F-7 -----------------------------------------------------------------

#[test]
fn f7_slap_slowest_opponent_draws_two_uniformly() {
    let g = flash(4);
    let mut losers = [0u32; 4];
    for seed in 0..3000 {
        let mut s = build(
            &g,
            &seeded(
                &[&["R-slap", "R8"], &["G1"], &["B1"], &["Y1"]],
                "R5",
                0,
                seed,
            ),
        );
        let ev = run(&g, &mut s, &["play:R-slap"]);
        let l = ev
            .iter()
            .find_map(|e| match e {
                Event::Slap { loser } => Some(*loser),
                _ => None,
            })
            .expect("a loser");
        assert!(ev.contains(&Event::Drew { seat: l, n: 2 }));
        assert_eq!(s.hand_len(l), 3);
        losers[l] += 1;
    }
    assert_eq!(
        losers[0], 0,
        "the player who slapped down the card never loses"
    );
    // Expected 1000 each; sd about 26.
    assert!(
        losers[1..].iter().all(|&c| (850..1150).contains(&c)),
        "{losers:?}"
    );
}

#[test]
fn f7_an_interactive_game_imposes_the_real_race_loser() {
    // F-7: "an interactive game times the real race": the timed loser is
    // imposed; the chance stream is the same as with the engine's own pick.
    let g = flash(4);
    let sc = seeded(&[&["R-slap", "R8"], &["G1"], &["B1"], &["Y1"]], "R5", 0, 7);
    let drawn = {
        let mut s = build(&g, &sc);
        let ev = run(&g, &mut s, &["play:R-slap"]);
        ev.iter()
            .find_map(|e| match e {
                Event::Slap { loser } => Some(*loser),
                _ => None,
            })
            .unwrap()
    };
    let imposed = if drawn == 3 { 1 } else { 3 };
    let mut s = build(&g, &sc);
    let mut log = EventLog::imposing(Imposed {
        slap_loser: Some(imposed),
        uno_caught: None,
    });
    g.apply_with(&mut s, id("play:R-slap"), &mut log).unwrap();
    assert!(log.0.contains(&Event::Slap { loser: imposed }));
    assert_eq!(s.hand_len(imposed), 3, "the imposed loser draws two");
    assert_eq!(s.hand_len(drawn), 1);
    g.check_invariants(&s).unwrap();
    // Replaying the recorded outcome gives the same state.
    let mut again = build(&g, &sc);
    let mut replay = EventLog::imposing(Imposed::from_events(&log.0));
    g.apply_with(&mut again, id("play:R-slap"), &mut replay)
        .unwrap();
    assert_eq!(again, s);
    // The player who slapped down the card is not in the race: imposing them is ignored.
    let mut s = build(&g, &sc);
    let mut log = EventLog::imposing(Imposed {
        slap_loser: Some(0),
        uno_caught: None,
    });
    g.apply_with(&mut s, id("play:R-slap"), &mut log).unwrap();
    assert!(log.0.contains(&Event::Slap { loser: drawn }));
}

// ----- F-8 -----------------------------------------------------------------

#[test]
fn f8_wild_draw_four_and_slap_never_start() {
    let g = flash(4);
    for seed in 0..1500 {
        let k = g.new_state(seed).top_face(&g).kind();
        assert!(k != Kind::WildDraw4 && k != Kind::Slap, "seed {seed}");
    }
}

#[test]
fn f8_start_wild_first_picked_names_colour() {
    let g = flash(4);
    let (mut s, ev) = next_round_starting_with(&g, "wild");
    assert!(ev.contains(&Event::StartCard { face: face("wild") }));
    let first = s.current_player().unwrap();
    expect_turn(&s, first, Phase::ChooseColour);
    run(&g, &mut s, &["colour:red"]);
    expect_turn(&s, first, Phase::Play);
}

#[test]
fn f8_start_draw_two_first_picked_draws_two() {
    let g = flash(4);
    let rounds = rounds_starting_with(&g, "R-draw2", 300);
    for (s, ev) in &rounds {
        let v = ev
            .iter()
            .find_map(|e| match e {
                Event::Hit { seat, n: 2 } => Some(*seat),
                _ => None,
            })
            .expect("the first player picked is hit");
        assert!(ev.contains(&Event::Drew { seat: v, n: 2 }));
        for p in 0..4 {
            assert_eq!(s.hand_len(p), if p == v { 9 } else { 7 });
        }
        assert_eq!(s.phase(), Phase::Play);
    }
    // The first player picked is any seat; they miss the turn and the unit
    // picks again among everyone (the F-4 reading): they play first a
    // quarter of the time (expected 75, standard deviation about 7.5).
    let (victims, repicked) = victims_and_repicks(&rounds, 4, |e| match e {
        Event::Hit { seat, .. } => Some(*seat),
        _ => None,
    });
    assert!(victims.iter().all(|&c| c > 40), "{victims:?}");
    assert!(
        (35..115).contains(&repicked),
        "victim plays first {repicked}/300"
    );
}

#[test]
fn f8_start_skip_first_picked_is_skipped() {
    let g = flash(4);
    let rounds = rounds_starting_with(&g, "R-skip", 300);
    for (s, ev) in &rounds {
        assert_eq!(
            ev.iter()
                .filter(|e| matches!(e, Event::Skipped { .. }))
                .count(),
            1
        );
        assert_eq!(s.phase(), Phase::Play);
        for p in 0..4 {
            assert_eq!(s.hand_len(p), 7);
        }
    }
    // As for Draw Two: any seat is skipped, and the unit picks again among
    // everyone, the skipped seat included.
    let (skipped, repicked) = victims_and_repicks(&rounds, 4, |e| match e {
        Event::Skipped { seat } => Some(*seat),
        _ => None,
    });
    assert!(skipped.iter().all(|&c| c > 40), "{skipped:?}");
    assert!(
        (35..115).contains(&repicked),
        "skipped plays first {repicked}/300"
    );
}

// ----- F-9 -----------------------------------------------------------------

#[test]
fn f9_empty_draw_pile_reshuffles_discard_but_top() {
    for g in [flash(2), classic(2)] {
        let mut sc = scenario(&[&["B9", "B8"], &["G1"]], "R5", 0);
        sc.launcher = Some(vec![]);
        let mut s = build(&g, &sc);
        let under = s.discard().count_ones() as usize - 1;
        let ev = run(&g, &mut s, &["draw"]);
        assert!(ev.contains(&Event::Refill { n: under }), "{ev:?}");
        assert_eq!(s.hand_len(0), 3);
        assert_eq!(s.discard().count_ones(), 1);
        assert_eq!(s.pile_len(), under - 1);
    }
    // A Draw Two with one card left draws it, reshuffles, draws the second.
    let g = classic(2);
    let mut sc = scenario(&[&["R-draw2", "B8"], &["G1"]], "R5", 0);
    sc.launcher = Some(faces(&["Y3"]));
    let mut s = build(&g, &sc);
    let ev = run(&g, &mut s, &["play:R-draw2"]);
    assert!(ev.iter().any(|e| matches!(e, Event::Refill { .. })));
    assert!(ev.contains(&Event::Drew { seat: 1, n: 2 }));
    assert_eq!(s.hand_len(1), 3);
}

// ----- scores (F-10, K-4) ---------------------------------------------------

fn check_scores(g: &Game, table: &[(&str, u16)]) {
    for (f, p) in table {
        assert_eq!(g.score_of(face(f)), *p, "{f}");
    }
    assert_eq!(g.score_of(face("R0")), 0);
    assert_eq!(g.score_of(face("Y9")), 9);
    let held: Vec<&str> = table.iter().map(|(f, _)| *f).collect();
    let mut s = build(g, &scenario(&[&["R7"], &held], "R5", 0));
    run(g, &mut s, &["play:R7"]);
    let total: u32 = table.iter().map(|(_, p)| *p as u32).sum();
    assert_eq!(s.scores()[0], total);
}

#[test]
fn f10_flash_scores() {
    check_scores(
        &flash(2),
        &[
            ("R-draw2", 20),
            ("G-skip", 20),
            ("B-slap", 20),
            ("wild", 50),
            ("wild-draw4", 50),
        ],
    );
}

#[test]
fn k4_classic_scores() {
    check_scores(
        &classic(2),
        &[
            ("R-draw2", 20),
            ("G-skip", 20),
            ("B-reverse", 20),
            ("wild", 50),
            ("wild-draw4", 50),
        ],
    );
}

// ----- K-1, K-2 ---------------------------------------------------------------

#[test]
fn k1_draw_two_next_player_draws_two_loses_turn() {
    let g = classic(3);
    let mut s = build(
        &g,
        &scenario(&[&["R-draw2", "R8"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:R-draw2"]);
    assert!(ev.contains(&Event::Drew { seat: 1, n: 2 }));
    assert_eq!(s.hand_len(1), 3);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn k2_reverse_and_skip_as_standard() {
    let g = classic(4);
    let hands: &[&[&str]] = &[
        &["R-skip", "R-reverse", "R8"],
        &["G1"],
        &["B1"],
        &["R1", "Y1"],
    ];
    let mut s = build(&g, &scenario(hands, "R5", 0));
    run(&g, &mut s, &["play:R-skip"]);
    expect_turn(&s, 2, Phase::Play);
    let mut s = build(&g, &scenario(hands, "R5", 0));
    run(&g, &mut s, &["play:R-reverse"]);
    expect_turn(&s, 3, Phase::Play);
    // Going right now: after seat 3 comes seat 2.
    run(&g, &mut s, &["play:R1"]);
    expect_turn(&s, 2, Phase::Play);
}

// ----- K-3 -----------------------------------------------------------------

#[test]
fn k3_classic_start_cards() {
    let g = classic(4);
    for seed in 0..1500 {
        assert_ne!(g.new_state(seed).top_face(&g).kind(), Kind::WildDraw4);
    }
    // Draw Two: the player left of the dealer draws two and loses the turn.
    let s = deal_with_start(&g, "R-draw2");
    let d = s.dealer();
    assert_eq!(s.hand_len((d + 1) % 4), 9);
    expect_turn(&s, (d + 2) % 4, Phase::Play);
    // Reverse: the dealer plays first and play goes right.
    let s = deal_with_start(&g, "R-reverse");
    expect_turn(&s, s.dealer(), Phase::Play);
    assert_eq!(s.direction(), -1);
    // Skip: the player left of the dealer is skipped.
    let s = deal_with_start(&g, "R-skip");
    expect_turn(&s, (s.dealer() + 2) % 4, Phase::Play);
    // Wild: the player left of the dealer names the colour.
    let mut s = deal_with_start(&g, "wild");
    let left = (s.dealer() + 1) % 4;
    expect_turn(&s, left, Phase::ChooseColour);
    run(&g, &mut s, &["colour:green"]);
    expect_turn(&s, left, Phase::Play);
}
