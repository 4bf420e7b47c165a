//! Edge cases of the rules that the clause-by-clause suites leave open: start
//! cards at 2 and 10 players, A-13 at 3 players, C-7 ties, C-8 for every
//! attack card, C-4 on action cards and after a draw, F-6 head to head, an
//! exhausted F-9 supply and deals with hands near the size limit. Every test
//! cites its clause of `shared/rules/RULES.md` (or the reading of
//! `docs/env.md` it pins); none depends on a lucky seed.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use common::*;
use uno_env::rules::{AttackResume, Scoring, UnoCall};
use uno_env::{Colour, Event, EventLog, Game, Kind, LauncherModel, Phase, Rules, State};

fn classic(players: usize) -> Game {
    Game::new(Rules::preset("classic").unwrap(), players).unwrap()
}

/// The first `count` deals (seeds 0, 1, …) whose start card is of `start`'s
/// kind, each with the events of the deal (start card and its effect).
fn deals_with_start(game: &Game, start: &str, count: usize) -> Vec<(State, Vec<Event>)> {
    let want = face(start).kind();
    let mut found = Vec::new();
    for seed in 0..50_000u64 {
        let mut log = EventLog::default();
        let s = game.new_state_with(seed, 0, &mut log);
        if s.top_face(game).kind() == want {
            game.check_invariants(&s).unwrap();
            found.push((s, log.0));
            if found.len() == count {
                return found;
            }
        }
    }
    panic!("fewer than {count} seeds turn a `{start}` start card");
}

// ----- A-7 / K-3 start cards at two players (C-8) ---------------------------

/// Checks the start cards that C-8 turns into "the dealer plays" at two
/// players: Reverse acts as Skip (no change of direction), Skip skips the
/// player left of the dealer, and a Hit/Draw card is taken by that player.
/// `hits` lists (start card, cards the left player ends up with).
fn two_player_start_cards(game: &Game, hits: &[(&str, usize)]) {
    let name = &game.rules().name;
    for start in ["R-reverse", "R-skip"] {
        for (s, ev) in deals_with_start(game, start, 6) {
            let d = s.dealer();
            let left = 1 - d;
            assert!(
                ev.contains(&Event::Skipped { seat: left }),
                "{name} {start}"
            );
            assert!(!ev.contains(&Event::Reversed), "{name} {start}: C-8");
            assert_eq!(s.direction(), 1, "{name} {start}");
            assert_eq!((s.hand_len(0), s.hand_len(1)), (7, 7), "{name} {start}");
            expect_turn(&s, d, Phase::Play);
        }
    }
    for &(start, cards) in hits {
        for (s, _) in deals_with_start(game, start, 6) {
            let d = s.dealer();
            assert_eq!(s.hand_len(1 - d), cards, "{name} {start}");
            assert_eq!(s.hand_len(d), 7, "{name} {start}");
            expect_turn(&s, d, Phase::Play);
        }
    }
}

#[test]
fn k3_c8_classic_start_cards_at_two_players() {
    // K-3 + C-8: Reverse and Skip give the dealer the first turn; Draw Two:
    // the player left of the dealer draws two and the dealer begins.
    let g = classic(2);
    two_player_start_cards(&g, &[("R-draw2", 9)]);
    for (s, ev) in deals_with_start(&g, "R-draw2", 3) {
        assert!(ev.contains(&Event::Drew {
            seat: 1 - s.dealer(),
            n: 2
        }));
    }
    // Wild: the player left of the dealer names the colour and plays.
    for (mut s, _) in deals_with_start(&g, "wild", 3) {
        let left = 1 - s.dealer();
        expect_turn(&s, left, Phase::ChooseColour);
        run(&g, &mut s, &["colour:blue"]);
        expect_turn(&s, left, Phase::Play);
        assert_eq!(s.active_colour(), Some(Colour::Blue));
    }
}

#[test]
fn a7_c8_attack_start_cards_at_two_players() {
    // A-7 + C-8, scripted launcher firing one card a press: Hit N makes the
    // player left of the dealer press N times, then the dealer begins.
    two_player_start_cards(&scripted("attack-1999", 2, &[1]), &[("R-hit2", 9)]);
    two_player_start_cards(&scripted("attack-2010", 2, &[1]), &[("R-hit1", 8)]);
    two_player_start_cards(&scripted("attack-modern", 2, &[1]), &[("R-hit2", 9)]);
}

#[test]
fn a11_a18_wild_hit_start_cards_at_two_players() {
    // the player left of the dealer presses until the launcher fires
    // (two misses, then one card), then the next player (the dealer) names
    // the colour [reading] and begins.
    let g = scripted("attack-1999", 2, &[0, 0, 1]);
    for (mut s, ev) in deals_with_start(&g, "wild-hit-fire", 4) {
        let d = s.dealer();
        assert_eq!(presses(&ev, 1 - d), vec![0, 0, 1]);
        assert_eq!(s.hand_len(1 - d), 8);
        expect_turn(&s, d, Phase::ChooseColour);
        run(&g, &mut s, &["colour:green"]);
        expect_turn(&s, d, Phase::Play);
    }
    // the player left of the dealer presses four times; the second
    // player (the dealer, at two players) names the colour and plays.
    let g = scripted("attack-modern", 2, &[1]);
    for (mut s, ev) in deals_with_start(&g, "wild-hit4", 4) {
        let d = s.dealer();
        assert_eq!(presses(&ev, 1 - d), vec![1, 1, 1, 1]);
        assert_eq!(s.hand_len(1 - d), 11);
        expect_turn(&s, d, Phase::ChooseColour);
        run(&g, &mut s, &["colour:red"]);
        expect_turn(&s, d, Phase::Play);
    }
}

#[test]
fn a17_c8_wild_attack_attack_start_card_at_two_players_the_dealer_plays_next() {
    // A-17 start card [reading, docs/env.md]: the player left of the dealer
    // names the colour and attacks the dealer, the only other seat, who
    // presses twice; play then proceeds to "the second player", the dealer.
    // (The same card played in a turn returns play to the attacker, C-8:
    // `c8_a13_a17_two_players_attack_attack_returns_to_the_player_in_both_resume_modes`.)
    for preset in ["attack-modern", "attack-2010"] {
        let g = game_with(preset, 2, |r| {
            r.options.stop_hits_on_fire = false;
            r.launcher = LauncherModel::Scripted { outcomes: vec![1] };
        });
        for (mut s, _) in deals_with_start(&g, "wild-attack-attack", 3) {
            let d = s.dealer();
            expect_turn(&s, 1 - d, Phase::ChooseColour);
            run(&g, &mut s, &["colour:blue"]);
            expect_turn(&s, 1 - d, Phase::ChooseTarget);
            let ev = run(&g, &mut s, &["target:+1"]);
            assert_eq!(presses(&ev, d), vec![1, 1], "{preset}");
            assert!(presses(&ev, 1 - d).is_empty(), "{preset}");
            assert_eq!((s.hand_len(d), s.hand_len(1 - d)), (9, 7), "{preset}");
            expect_turn(&s, d, Phase::Play);
        }
    }
}

// ----- A-7 / K-3 start cards at ten players ---------------------------------

#[test]
fn a7_k3_start_cards_at_ten_players() {
    for (g, hit, taken) in [
        (classic(10), "R-draw2", 9),
        (scripted("attack-1999", 10, &[1]), "R-hit2", 9),
    ] {
        let name = g.rules().name.clone();
        // Reverse: the dealer plays first and play goes right.
        for (s, ev) in deals_with_start(&g, "R-reverse", 3) {
            assert!(ev.contains(&Event::Reversed), "{name}");
            assert_eq!(s.direction(), -1, "{name}");
            expect_turn(&s, s.dealer(), Phase::Play);
        }
        // Skip: the player left of the dealer is skipped.
        for (s, ev) in deals_with_start(&g, "R-skip", 3) {
            let d = s.dealer();
            assert!(
                ev.contains(&Event::Skipped { seat: (d + 1) % 10 }),
                "{name}"
            );
            assert_eq!(s.direction(), 1, "{name}");
            expect_turn(&s, (d + 2) % 10, Phase::Play);
        }
        // Draw Two / Hit 2: the player left of the dealer takes two, the next begins.
        for (s, _) in deals_with_start(&g, hit, 3) {
            let d = s.dealer();
            for p in 0..10 {
                let want = if p == (d + 1) % 10 { taken } else { 7 };
                assert_eq!(s.hand_len(p), want, "{name} seat {p}");
            }
            expect_turn(&s, (d + 2) % 10, Phase::Play);
        }
    }
}

// ----- A-13 at three players -------------------------------------------------

/// attack-2010, 3 players: seat 0 attacks the seat at `target` with a Wild
/// Attack-Attack; returns the state and events. No one holds a Hit card, so
/// Mega Hit (on in the preset) offers no stacking.
fn attack_attack_3p(resume: AttackResume, direction: i32, target: &str) -> (State, Vec<Event>) {
    let g = game_with("attack-2010", 3, |r| {
        r.options.attack_resume = resume;
        r.options.stop_hits_on_fire = false;
        r.launcher = LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut sc = scenario(
        &[&["wild-attack-attack", "R7"], &["G1", "G2"], &["B1", "B2"]],
        "R5",
        0,
    );
    sc.direction = direction;
    let mut s = build(&g, &sc);
    let ev = run(
        &g,
        &mut s,
        &["play:wild-attack-attack", "colour:yellow", target],
    );
    (s, ev)
}

#[test]
fn a13_three_players_literal_resume_the_target_of_seat_plus_two_plays_next() {
    // A-13 [reading: literal]: play continues with the second player from the
    // attacker in the current direction. At three players that is seat 2,
    // whoever was attacked: attacked, seat 2 presses twice and then plays.
    let (s, ev) = attack_attack_3p(AttackResume::SkipNext, 1, "target:+2");
    assert!(ev.contains(&Event::Hit { seat: 2, n: 2 }));
    assert_eq!(presses(&ev, 2), vec![1, 1]);
    assert_eq!(s.hand_len(2), 4);
    assert_eq!(s.hand_len(1), 2);
    expect_turn(&s, 2, Phase::Play);
    assert_eq!(s.active_colour(), Some(Colour::Yellow));
    // Attacking seat 1 instead: seat 1 presses, seat 2 still plays next.
    let (s, ev) = attack_attack_3p(AttackResume::SkipNext, 1, "target:+1");
    assert_eq!(presses(&ev, 1), vec![1, 1]);
    expect_turn(&s, 2, Phase::Play);
    // Going right (0 → 2 → 1): the second player from the attacker is seat 1.
    let (s, ev) = attack_attack_3p(AttackResume::SkipNext, -1, "target:+1");
    assert_eq!(presses(&ev, 1), vec![1, 1]);
    expect_turn(&s, 1, Phase::Play);
    let (s, ev) = attack_attack_3p(AttackResume::SkipNext, -1, "target:+2");
    assert_eq!(presses(&ev, 2), vec![1, 1]);
    expect_turn(&s, 1, Phase::Play);
}

#[test]
fn a13_three_players_after_target_option_resumes_after_the_target() {
    // A-13 option `attack_resume = after_target` (000's rule): play continues
    // with the player after the target, in the current direction.
    for (direction, target, victim, next) in [
        (1, "target:+1", 1, 2),
        (1, "target:+2", 2, 0),
        (-1, "target:+1", 1, 0),
        (-1, "target:+2", 2, 1),
    ] {
        let (s, ev) = attack_attack_3p(AttackResume::AfterTarget, direction, target);
        assert_eq!(presses(&ev, victim), vec![1, 1], "{direction} {target}");
        assert_eq!(s.hand_len(victim), 4);
        expect_turn(&s, next, Phase::Play);
    }
}

// ----- C-6 / C-7 scoring ---------------------------------------------------

#[test]
fn c7_penalty_scoring_tie_for_lowest_total_goes_to_the_lowest_seat() {
    // C-7 `scoring = penalty` + docs/env.md [reading]: ties for the lowest
    // total go to the lowest seat, not to the round's winner.
    let g = game_with("classic", 3, |r| {
        r.options.scoring = Scoring::Penalty;
        r.options.target_score = 100;
    });
    // Seat 2 goes out; seat 1 reaches 104; seats 0 and 2 tie on 20.
    let mut sc = scenario(&[&["R0", "Y0"], &["G9"], &["R7"]], "R5", 2);
    sc.scores = Some(vec![20, 95, 20]);
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["play:R7"]);
    assert_eq!(s.round_winner(), Some(2));
    assert_eq!(s.scores(), &[20, 104, 20]);
    assert!(s.is_match_over());
    assert_eq!(s.match_winner(), Some(0));

    // Four players: seat 0 goes out; two other seats tie below everyone.
    let g = game_with("classic", 4, |r| {
        r.options.scoring = Scoring::Penalty;
        r.options.target_score = 100;
    });
    for (before, totals, winner) in [
        ([50, 10, 2, 95], [50, 11, 11, 104], 1),
        ([50, 10, 95, 2], [50, 11, 104, 11], 1),
        // Control: no tie, the single lowest total wins.
        ([50, 10, 1, 95], [50, 11, 10, 104], 2),
    ] {
        let mut sc = scenario(&[&["R7"], &["G1"], &["G9"], &["B9"]], "R5", 0);
        sc.scores = Some(before.to_vec());
        let mut s = build(&g, &sc);
        run(&g, &mut s, &["play:R7"]);
        assert_eq!(s.scores(), &totals, "{before:?}");
        assert!(s.is_match_over());
        assert_eq!(s.match_winner(), Some(winner), "{before:?}");
    }
}

/// Classic, 10 players: seat 0 goes out on `R7` while the others hold one
/// card of every classic kind (and numbers 0, 9, 5, 1, 3); 178 points.
fn ten_players_every_kind(scores: Vec<u32>) -> (Game, State) {
    let g = game_with("classic", 10, |r| r.options.target_score = 500);
    let mut sc = scenario(
        &[
            &["R7"],
            &["R0", "Y9"],
            &["G-skip"],
            &["B-reverse"],
            &["Y-draw2"],
            &["wild"],
            &["wild-draw4"],
            &["G5"],
            &["B1"],
            &["Y3"],
        ],
        "R5",
        0,
    );
    sc.scores = Some(scores);
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["play:R7"]);
    (g, s)
}

const EVERY_KIND_POINTS: u32 = 9 + 20 + 20 + 20 + 50 + 50 + 5 + 1 + 3;

#[test]
fn c6_k4_every_classic_kind_scores_at_ten_players() {
    // C-6 + K-4: numbers at face value (0 and 9 included); Skip, Reverse,
    // Draw Two 20; Wild and Wild Draw Four 50 — summed over nine hands.
    let (g, s) = ten_players_every_kind(vec![0; 10]);
    assert_eq!(EVERY_KIND_POINTS, 178);
    assert_eq!(s.round_winner(), Some(0));
    assert_eq!(s.round_points()[0], EVERY_KIND_POINTS);
    assert_eq!(s.scores()[0], EVERY_KIND_POINTS);
    assert!(s.scores()[1..].iter().all(|&p| p == 0));
    for (f, p) in [
        ("R0", 0),
        ("Y9", 9),
        ("G-skip", 20),
        ("B-reverse", 20),
        ("Y-draw2", 20),
        ("wild", 50),
        ("wild-draw4", 50),
    ] {
        assert_eq!(g.score_of(face(f)), p, "{f}");
    }
}

#[test]
fn c7_winner_scoring_ends_the_match_at_exactly_the_target() {
    // C-7: first to the target wins; reaching it exactly (500 >= 500) is enough,
    // one point short is not — even with another seat at 499.
    let mut before = vec![500 - EVERY_KIND_POINTS, 499, 0, 0, 0, 0, 0, 0, 0, 0];
    let (_, s) = ten_players_every_kind(before.clone());
    assert_eq!(s.scores()[0], 500);
    assert!(s.is_match_over());
    assert_eq!(s.phase(), Phase::MatchOver);
    assert_eq!(s.match_winner(), Some(0));

    before[0] -= 1;
    let (g, mut s) = ten_players_every_kind(before);
    assert_eq!(s.scores()[0], 499);
    assert_eq!(s.phase(), Phase::RoundOver);
    assert!(!s.is_match_over());
    assert_eq!(s.match_winner(), None);
    g.next_round(&mut s).unwrap();
    g.check_invariants(&s).unwrap();
}

// ----- C-8 at two players for the attack cards --------------------------------

/// Two players, seat 0 holds `card` and two red cards, seat 1 two green ones.
fn two_players(game: &Game, card: &str) -> State {
    build(
        game,
        &scenario(&[&[card, "R7", "R8"], &["G1", "G2"]], "R5", 0),
    )
}

#[test]
fn c8_a11_two_players_wild_hit_fire_returns_to_the_player() {
    // A-11 + C-8: the opponent presses until the launcher fires (two misses,
    // then one card), loses the turn, and play returns to the player.
    let g = scripted("attack-1999", 2, &[0, 0, 1]);
    let mut s = two_players(&g, "wild-hit-fire");
    let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
    assert_eq!(presses(&ev, 1), vec![0, 0, 1]);
    assert!(presses(&ev, 0).is_empty());
    assert_eq!(s.hand_len(1), 3);
    assert_eq!(s.hand_len(0), 2);
    expect_turn(&s, 0, Phase::Play);
}

#[test]
fn c8_a13_a17_two_players_attack_attack_returns_to_the_player_in_both_resume_modes() {
    // A-13 (attack-2010) and A-17 (attack-modern) + C-8: the opponent is the
    // only target and presses twice; with either `attack_resume` mode play
    // returns to the attacker (skip-next: second from the attacker; after-target:
    // the player after the target).
    for preset in ["attack-2010", "attack-modern"] {
        for resume in [AttackResume::SkipNext, AttackResume::AfterTarget] {
            let g = game_with(preset, 2, |r| {
                r.options.attack_resume = resume;
                r.options.stop_hits_on_fire = false;
                r.launcher = LauncherModel::Scripted { outcomes: vec![1] };
            });
            let mut s = two_players(&g, "wild-attack-attack");
            run(&g, &mut s, &["play:wild-attack-attack", "colour:red"]);
            expect_turn(&s, 0, Phase::ChooseTarget);
            assert_eq!(g.legal_actions(&s), vec![id("target:+1")], "{preset}");
            let ev = run(&g, &mut s, &["target:+1"]);
            assert!(ev.contains(&Event::Hit { seat: 1, n: 2 }), "{preset}");
            assert_eq!(presses(&ev, 1), vec![1, 1], "{preset} {resume:?}");
            assert_eq!(s.hand_len(1), 4);
            expect_turn(&s, 0, Phase::Play);
        }
    }
}

#[test]
fn c8_a18_two_players_wild_hit4_returns_to_the_player() {
    // A-18 + C-8: the opponent presses four times, no challenge, play returns.
    let g = scripted("attack-modern", 2, &[1]);
    let mut s = two_players(&g, "wild-hit4");
    let ev = run(&g, &mut s, &["play:wild-hit4", "colour:red"]);
    assert!(ev.contains(&Event::Hit { seat: 1, n: 4 }));
    assert_eq!(presses(&ev, 1), vec![1, 1, 1, 1]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Challenge { .. })));
    assert_eq!(s.hand_len(1), 6);
    expect_turn(&s, 0, Phase::Play);
}

// ----- C-4 explicit UNO beyond a number card ----------------------------------

fn explicit_uno(preset: &str) -> Game {
    game_with(preset, 3, |r| {
        r.options.uno_call = UnoCall::Explicit;
        r.options.catch_probability = 1.0;
        r.launcher = LauncherModel::Scripted { outcomes: vec![1] };
    })
}

#[test]
fn c4_f2_explicit_uno_through_draw_then_play() {
    // C-4 + F-2: a card drawn and played at once can be the second-to-last
    // card; the UNO decision follows it like any other play.
    let g = explicit_uno("classic");
    // Three cards after the draw: playing one leaves two, no decision.
    let mut sc = scenario(&[&["R7", "B9"], &["G1", "G2"], &["B1", "B2"]], "R5", 0);
    sc.launcher = Some(faces(&["R3"]));
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["draw"]);
    expect_turn(&s, 0, Phase::AfterDraw);
    run(&g, &mut s, &["play:R3"]);
    assert_eq!(s.hand_len(0), 2);
    expect_turn(&s, 1, Phase::Play);

    // Two cards after the draw: the drawn card is the second-to-last.
    for (call, left) in [("no-uno", 3), ("uno", 1)] {
        let mut sc = scenario(&[&["B9"], &["G1", "G2"], &["B1", "B2"]], "R5", 0);
        // The pile holds only R3 (a pile has no order); the penalty draws
        // reshuffle the discard pile (F-9).
        sc.launcher = Some(faces(&["R3"]));
        let mut s = build(&g, &sc);
        run(&g, &mut s, &["draw", "play:R3"]);
        expect_turn(&s, 0, Phase::UnoCall);
        assert_eq!(g.legal_actions(&s), vec![id("uno"), id("no-uno")]);
        let ev = run(&g, &mut s, &[call]);
        let called = call == "uno";
        assert!(ev.contains(&Event::Uno {
            seat: 0,
            called,
            caught: !called
        }));
        assert_eq!(ev.contains(&Event::Drew { seat: 0, n: 2 }), !called);
        assert_eq!(s.hand_len(0), left, "{call}");
        assert_eq!(s.uno_called(0), called);
        expect_turn(&s, 1, Phase::Play);
    }
}

#[test]
fn c4_k1_explicit_uno_on_a_draw_two() {
    // C-4 + K-1: the second-to-last card is a Draw Two. Not calling is caught
    // (draw two) and the Draw Two still resolves: seat 1 draws two and loses
    // the turn.
    let g = explicit_uno("classic");
    let mut sc = scenario(&[&["R-draw2", "B9"], &["G1", "G2"], &["B1", "B2"]], "R5", 0);
    sc.launcher = Some(faces(&["Y4", "Y5", "Y6", "Y7"]));
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["play:R-draw2"]);
    expect_turn(&s, 0, Phase::UnoCall);
    let ev = run(&g, &mut s, &["no-uno"]);
    assert!(ev.contains(&Event::Uno {
        seat: 0,
        called: false,
        caught: true
    }));
    assert!(ev.contains(&Event::Drew { seat: 0, n: 2 }));
    assert!(ev.contains(&Event::Drew { seat: 1, n: 2 }));
    assert_eq!(s.hand_len(0), 3);
    assert_eq!(s.hand_len(1), 4);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn c4_a3_a4_explicit_uno_on_attack_action_cards() {
    // C-4 in attack-1999: a Skip or Hit 2 as the second-to-last card. The
    // penalty is two presses; the card's effect is unchanged.
    let g = explicit_uno("attack-1999");
    for (call, left) in [("no-uno", 3), ("uno", 1)] {
        let mut s = build(
            &g,
            &scenario(&[&["R-skip", "B9"], &["G1", "G2"], &["B1", "B2"]], "R5", 0),
        );
        let ev = run(&g, &mut s, &["play:R-skip", call]);
        assert!(ev.contains(&Event::Skipped { seat: 1 }), "{call}");
        let penalty: &[usize] = if call == "uno" { &[] } else { &[1, 1] };
        assert_eq!(presses(&ev, 0), penalty, "{call}");
        assert_eq!(s.hand_len(0), left, "{call}");
        assert_eq!(s.hand_len(1), 2);
        expect_turn(&s, 2, Phase::Play);

        let mut s = build(
            &g,
            &scenario(&[&["R-hit2", "B9"], &["G1", "G2"], &["B1", "B2"]], "R5", 0),
        );
        let ev = run(&g, &mut s, &["play:R-hit2", call]);
        assert_eq!(presses(&ev, 0), penalty, "{call}");
        assert_eq!(presses(&ev, 1), vec![1, 1], "{call}");
        assert_eq!(s.hand_len(0), left, "{call}");
        assert_eq!(s.hand_len(1), 4);
        expect_turn(&s, 2, Phase::Play);
    }
}

#[test]
fn c4_a8_the_uno_penalty_is_not_cut_short_by_stop_hits_on_fire() {
    // C-4 + A-8 [reading, docs/env.md]: in attack-2010 (`stop_hits_on_fire`)
    // a Hit 2 stops at the first press that fires, but the missed-UNO
    // penalty is not a Hit card: both of its presses are made.
    let g = game_with("attack-2010", 3, |r| {
        r.options.uno_call = UnoCall::Explicit;
        r.options.catch_probability = 1.0;
        r.launcher = LauncherModel::Scripted { outcomes: vec![3] };
    });
    assert!(g.rules().options.stop_hits_on_fire);
    let mut s = build(
        &g,
        &scenario(&[&["R-hit2", "R7"], &["G1", "G2"], &["B1", "B2"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:R-hit2", "no-uno"]);
    assert_eq!(presses(&ev, 0), vec![3, 3]);
    assert_eq!(presses(&ev, 1), vec![3]);
    assert_eq!((s.hand_len(0), s.hand_len(1)), (7, 5));
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn a5_a9_discard_all_can_take_a_trade_hands_out_with_it() {
    // A-9 + A-5 [reading, docs/env.md]: Trade Hands cannot be played as the
    // only card, but a Discard All throws it away with the rest of its
    // colour, without effect, and the hand goes out (C-5).
    let g = scripted("attack-1999", 3, &[1]);
    let alone = build(
        &g,
        &scenario(&[&["R-trade-hands"], &["G1", "G2"], &["B1", "B2"]], "R5", 0),
    );
    assert!(!g.legal_actions(&alone).contains(&id("play:R-trade-hands")));
    let mut s = build(
        &g,
        &scenario(
            &[
                &["R-discard-all", "R-trade-hands"],
                &["G1", "G2"],
                &["B1", "B2"],
            ],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:R-discard-all"]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Traded { .. })));
    assert_eq!(s.hand_len(0), 0);
    assert!(s.is_round_over());
    assert_eq!(s.round_winner(), Some(0));
    assert_eq!((s.hand_len(1), s.hand_len(2)), (2, 2));
}

// ----- F-6 at two players ------------------------------------------------------

#[test]
fn f6_c8_two_players_wild_draw_four() {
    let g = classic(2);
    // Legal (no red card held): accepted, seat 1 draws four and play returns
    // to seat 0 (C-8); challenged, seat 1 draws six and seat 0 plays again.
    for (answer, drawn) in [("accept", 4), ("challenge", 6)] {
        let mut s = build(
            &g,
            &scenario(&[&["wild-draw4", "G3", "B3"], &["G1"]], "R5", 0),
        );
        run(&g, &mut s, &["play:wild-draw4", "colour:green"]);
        expect_turn(&s, 1, Phase::Challenge);
        let ev = run(&g, &mut s, &[answer]);
        if answer == "challenge" {
            assert!(ev.contains(&Event::Challenge {
                challenger: 1,
                offender: 0,
                bluff: false,
                shown: faces(&["G3", "B3"]),
            }));
        }
        assert!(ev.contains(&Event::Drew { seat: 1, n: drawn }), "{answer}");
        assert_eq!((s.hand_len(0), s.hand_len(1)), (2, 1 + drawn), "{answer}");
        expect_turn(&s, 0, Phase::Play);
        assert_eq!(s.active_colour(), Some(Colour::Green));
    }
    // A bluff (R3 matches the active red) challenged: the offender draws four
    // and the challenger plays [reading].
    let mut s = build(
        &g,
        &scenario(&[&["wild-draw4", "R3", "B3"], &["G1"]], "R5", 0),
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
        shown: faces(&["R3", "B3"]),
    }));
    assert!(ev.contains(&Event::Drew { seat: 0, n: 4 }));
    assert_eq!((s.hand_len(0), s.hand_len(1)), (6, 1));
    expect_turn(&s, 1, Phase::Play);
}

// ----- F-9 exhausted supply -------------------------------------------------

#[test]
fn f9_discard_pile_too_small_to_refill_draws_take_what_exists() {
    // Every card but the top is in a hand: a Draw Two finds only the card
    // under it to reshuffle, so seat 1 draws one card; then a voluntary draw
    // finds nothing at all and passes the turn. No panic, invariants hold
    // (`run` checks them after every action).
    let g = classic(2);
    let rest = without(deck_faces(&g), &[face("R5"), face("R-draw2"), face("R8")]);
    let mut sc = scenario(&[&["R-draw2", "R8"], &[]], "R5", 0);
    sc.hands[1] = rest;
    sc.launcher = Some(vec![]);
    let mut s = build(&g, &sc);
    assert_eq!(s.pile_len(), 0);
    assert_eq!(s.discard().count_ones(), 1);
    let before = s.hand_len(1);
    let ev = run(&g, &mut s, &["play:R-draw2"]);
    assert!(ev.contains(&Event::Refill { n: 1 }), "{ev:?}");
    assert!(ev.contains(&Event::Drew { seat: 1, n: 1 }), "{ev:?}");
    assert_eq!(s.hand_len(1), before + 1);
    assert_eq!(s.pile_len(), 0);
    assert_eq!(s.discard().count_ones(), 1);
    expect_turn(&s, 0, Phase::Play);

    let ev = run(&g, &mut s, &["draw"]);
    assert!(ev.contains(&Event::Drew { seat: 0, n: 0 }), "{ev:?}");
    assert_eq!(s.hand_len(0), 1);
    expect_turn(&s, 1, Phase::Play);

    // Flash: a voluntary draw with nothing anywhere leaves the hand as it was
    // and the unit picks the next player.
    let g = Game::new(Rules::preset("flash").unwrap(), 2).unwrap();
    let rest = without(deck_faces(&g), &[face("R5"), face("B9")]);
    for seed in 0..20 {
        let mut sc = scenario(&[&["B9"], &[]], "R5", 0);
        sc.hands[1] = rest.clone();
        sc.launcher = Some(vec![]);
        sc.seed = seed;
        let mut s = build(&g, &sc);
        let before = s.hand_len(1);
        run(&g, &mut s, &["draw"]);
        assert_eq!((s.hand_len(0), s.hand_len(1)), (1, before));
        assert_eq!(s.phase(), Phase::Play);
        assert_eq!(s.pile_len(), 0);
    }
}

// ----- C-2 deals with hands near the size limit --------------------------------

#[test]
fn c2_a9_f8_k3_hands_near_the_size_limit_still_deal() {
    // C-2 with the largest hands the rules accept (see
    // `c2_a_deal_that_could_leave_only_returned_start_cards_is_refused`):
    // every deal ends (guarded by a time limit), each hand holds `hand_size`
    // cards unless the start card gave it more, and a returned start card
    // (A-9 Trade Hands, F-8 WD4/SLAP, K-3 WD4) never stays on top. A new
    // round (`next_round`) deals the same way.
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        for (preset, players, size, seeds) in [
            ("attack-1999", 3, 35, 100),
            ("classic", 2, 51, 100),
            ("flash", 4, 23, 100),
        ] {
            let g = game_with(preset, players, |r| r.options.hand_size = size);
            let returned = [Kind::TradeHands, Kind::WildDraw4, Kind::Slap];
            let size = usize::from(size);
            let check = |s: &State, what: &str| {
                g.check_invariants(s).unwrap();
                let top = s.top_face(&g).kind();
                assert!(!returned.contains(&top), "{preset} {what}: {top:?}");
                let plain = top.number().is_some() || top == Kind::DiscardAll;
                let held: usize = (0..players).map(|p| s.hand_len(p)).sum();
                assert!(held >= players * size, "{preset} {what}");
                if plain {
                    for p in 0..players {
                        assert_eq!(s.hand_len(p), size, "{preset} {what}");
                    }
                    assert_eq!(s.pile_len(), g.deck_size() - players * size - 1);
                }
                plain
            };
            let plain = (0..seeds)
                .filter(|&seed| check(&g.new_state(seed), &format!("seed {seed}")))
                .count();
            assert!(
                2 * plain as u64 > seeds,
                "{preset}: {plain} plain start cards"
            );
            // Later rounds: seat 0 goes out on a scenario, the next round is dealt.
            let all: [&[&str]; 4] = [&["R7"], &["G1"], &["G2"], &["G3"]];
            let hands = &all[..players];
            for seed in 0..seeds / 4 {
                let mut sc = scenario(hands, "R5", 0);
                sc.seed = seed;
                let mut s = build(&g, &sc);
                run(&g, &mut s, &["play:R7"]);
                assert_eq!(s.phase(), Phase::RoundOver);
                g.next_round(&mut s).unwrap();
                check(&s, &format!("round 2, seed {seed}"));
            }
        }
        tx.send(()).unwrap();
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(()) => worker.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The worker panicked: report its message.
            worker.join().unwrap();
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("C-2: a deal did not end within 120 s"),
    }
}
