//! UNO Attack! clauses A-1..A-21, each from an explicit scenario with a
//! scripted launcher so every press's outcome is exact.

mod common;

use common::*;
use uno_env::rules::{AttackResume, UnoCall};
use uno_env::{Colour, Effect, Event, Face, Game, Kind, Phase, Rules};

// ----- A-1 -----------------------------------------------------------------

#[test]
fn a1_press_adds_fired_cards_and_ends_the_turn() {
    let g = scripted("attack-1999", 3, &[3, 0]);
    let mut s = build(&g, &scenario(&[&["R7", "G2"], &["G1"], &["B1"]], "R5", 0));
    // Reneging is allowed: R7 could be played.
    assert!(g.legal_actions(&s).contains(&id("play:R7")));
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 0), vec![3]);
    assert_eq!(s.hand_len(0), 5);
    // The turn is over: a launched card is never played the same turn.
    expect_turn(&s, 1, Phase::Play);
    // A press may fire nothing; the turn is over all the same.
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 1), vec![0]);
    assert_eq!(s.hand_len(1), 1);
    expect_turn(&s, 2, Phase::Play);
    assert_eq!(s.last_fired(), 0);
}

// ----- A-2 -----------------------------------------------------------------

#[test]
fn a2_refill_from_discard_when_launcher_runs_short() {
    let g = scripted("attack-1999", 2, &[3]);
    let mut sc = scenario(&[&["R7", "G2"], &["G1"]], "R5", 0);
    // Two cards loaded; every other card lies under the top of the discard pile.
    sc.launcher = Some(faces(&["B1", "B2"]));
    let mut s = build(&g, &sc);
    let under = s.discard().count_ones() as usize - 1;
    let ev = run(&g, &mut s, &["draw"]);
    assert!(ev.contains(&Event::Refill { n: under }), "{ev:?}");
    assert_eq!(presses(&ev, 0), vec![3]);
    assert_eq!(s.discard().count_ones(), 1, "only the top card stays");
    assert_eq!(s.top_face(&g), face("R5"));
    assert_eq!(s.pile_len(), 2 + under - 3);
}

#[test]
fn a2_nothing_to_reload_shoots_what_is_left() {
    let g = scripted("attack-1999", 2, &[3]);
    // Seat 1 holds the whole deck but the top card, seat 0's hand and one loaded card.
    let rest = without(deck_faces(&g), &faces(&["R5", "R7", "G2", "B1"]));
    let mut sc = scenario(&[&["R7", "G2"], &[]], "R5", 0);
    sc.hands[1] = rest;
    sc.launcher = Some(faces(&["B1"]));
    let mut s = build(&g, &sc);
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 0), vec![1]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Refill { .. })));
    assert_eq!(s.pile_len(), 0);
    let before = s.hand_len(1);
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(
        presses(&ev, 1),
        vec![0],
        "nothing left: the press shoots nothing"
    );
    assert_eq!(s.hand_len(1), before);
}

#[test]
fn a2_refill_at_discard_option() {
    let g = game_with("attack-1999", 2, |r| {
        r.options.refill_at_discard = Some(4);
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut sc = scenario(&[&["R7", "R8", "G2"], &["G1", "G3"]], "R5", 0);
    sc.discard = faces(&["B4", "B6"]);
    let mut s = build(&g, &sc);
    let loaded = s.pile_len();
    assert_eq!(s.discard().count_ones(), 3);
    let ev = run(&g, &mut s, &["play:R7"]);
    // The discard pile reached 4 cards: all but R7 go back into the launcher.
    assert!(ev.contains(&Event::Refill { n: 3 }), "{ev:?}");
    assert_eq!(s.discard().count_ones(), 1);
    assert_eq!(s.top_face(&g), face("R7"));
    assert_eq!(s.pile_len(), loaded + 3);
    // Off by default.
    assert_eq!(
        Rules::preset("attack-1999")
            .unwrap()
            .options
            .refill_at_discard,
        None
    );
}

// ----- A-3 -----------------------------------------------------------------

#[test]
fn a3_hit2_next_player_presses_twice_and_loses_turn() {
    let g = scripted("attack-1999", 3, &[1]);
    let mut s = build(
        &g,
        &scenario(&[&["R-hit2", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:R-hit2"]);
    assert!(ev.contains(&Event::Hit { seat: 1, n: 2 }));
    assert_eq!(presses(&ev, 1), vec![1, 1]);
    assert_eq!(s.hand_len(1), 3);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn a3_hit1_with_mega_hit_on_but_nothing_stacked_skips_the_victim() {
    // attack-2010 (mega_hit on): a Hit nobody stacks on resolves as A-3.
    let g = scripted("attack-2010", 4, &[1]);
    let mut s = build(
        &g,
        &scenario(&[&["R-hit1", "R7"], &["G1"], &["B1"], &["Y1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:R-hit1"]);
    assert_eq!(presses(&ev, 1), vec![1]);
    expect_turn(&s, 2, Phase::Play);

    // The victim holds a Hit card but declines to stack: the same.
    let mut s = build(
        &g,
        &scenario(
            &[&["R-hit2", "R7"], &["G-hit1", "G1"], &["B1"], &["Y1"]],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:R-hit2"]);
    expect_turn(&s, 1, Phase::Stack);
    assert_eq!(s.pending_hits(), 2);
    let ev = run(&g, &mut s, &["draw"]);
    // stop_hits_on_fire (A-8): the first press fires.
    assert_eq!(presses(&ev, 1), vec![1]);
    expect_turn(&s, 2, Phase::Play);
}

// ----- A-4 -----------------------------------------------------------------

#[test]
fn a4_skip_and_reverse_as_standard() {
    let g = scripted("attack-1999", 4, &[1]);
    let hands: &[&[&str]] = &[&["R-skip", "R-reverse", "R7"], &["G1"], &["B1"], &["Y1"]];
    let mut s = build(&g, &scenario(hands, "R5", 0));
    let ev = run(&g, &mut s, &["play:R-skip"]);
    assert!(ev.contains(&Event::Skipped { seat: 1 }));
    expect_turn(&s, 2, Phase::Play);

    let mut s = build(&g, &scenario(hands, "R5", 0));
    let ev = run(&g, &mut s, &["play:R-reverse"]);
    assert!(ev.contains(&Event::Reversed));
    assert_eq!(s.direction(), -1);
    expect_turn(&s, 3, Phase::Play);
}

// ----- A-5 -----------------------------------------------------------------

#[test]
fn a5_discard_all_discards_every_card_of_its_colour() {
    let g = scripted("attack-2010", 3, &[1]);
    let mut s = build(
        &g,
        &scenario(
            &[
                &["R-discard-all", "R1", "R-skip", "G3", "wild"],
                &["G1"],
                &["B1"],
            ],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:R-discard-all"]);
    assert!(ev.contains(&Event::DiscardedAll { seat: 0, n: 2 }));
    assert_eq!(hand(&g, &s, 0), vec!["G3", "wild"]);
    assert_eq!(s.top_face(&g), face("R-discard-all"), "Discard All on top");
    assert_eq!(s.discard().count_ones(), 4);
    // The discarded Skip has no effect.
    assert!(!ev.iter().any(|e| matches!(e, Event::Skipped { .. })));
    expect_turn(&s, 1, Phase::Play);

    // Matched by colour or by another Discard All.
    let s = build(
        &g,
        &scenario(
            &[&["Y-discard-all", "B2"], &["G1"], &["B1"]],
            "G-discard-all",
            0,
        ),
    );
    assert_eq!(
        g.legal_actions(&s),
        vec![id("play:Y-discard-all"), id("draw")]
    );

    // Discarding the whole hand goes out (C-5).
    let mut s = build(
        &g,
        &scenario(&[&["R-discard-all", "R1", "R2"], &["G1"], &["B1"]], "R5", 0),
    );
    run(&g, &mut s, &["play:R-discard-all"]);
    assert_eq!(s.round_winner(), Some(0));
}

// ----- A-6 -----------------------------------------------------------------

#[test]
fn a6_wild_names_colour_playable_anytime() {
    let g = scripted("attack-1999", 3, &[1]);
    let mut s = build(
        &g,
        &scenario(&[&["wild", "R7", "R8"], &["G1"], &["B1"]], "R5", 0),
    );
    assert!(g.legal_actions(&s).contains(&id("play:wild")));
    run(&g, &mut s, &["play:wild"]);
    expect_turn(&s, 0, Phase::ChooseColour);
    let ev = run(&g, &mut s, &["colour:blue"]);
    assert!(ev.contains(&Event::Colour {
        seat: 0,
        colour: Colour::Blue
    }));
    assert_eq!(s.active_colour(), Some(Colour::Blue));
    expect_turn(&s, 1, Phase::Play);
    assert!(!g.legal_actions(&s).contains(&id("play:G1")));
}

// ----- A-7 -----------------------------------------------------------------

#[test]
fn a7_start_number_and_discard_all_are_ordinary() {
    let g = scripted("attack-2010", 4, &[1]);
    let s = deal_with_start(&g, "R-discard-all");
    let left = (s.dealer() + 1) % 4;
    expect_turn(&s, left, Phase::Play);
    assert_eq!(s.active_colour(), s.top_face(&g).colour());
    for p in 0..4 {
        assert_eq!(s.hand_len(p), 7);
    }
}

#[test]
fn a7_start_reverse_dealer_plays_first_going_right() {
    let g = scripted("attack-1999", 4, &[1]);
    let s = deal_with_start(&g, "R-reverse");
    expect_turn(&s, s.dealer(), Phase::Play);
    assert_eq!(s.direction(), -1);
}

#[test]
fn a7_start_skip_skips_left_of_dealer() {
    let g = scripted("attack-1999", 4, &[1]);
    let s = deal_with_start(&g, "R-skip");
    expect_turn(&s, (s.dealer() + 2) % 4, Phase::Play);
    assert_eq!(s.direction(), 1);
}

#[test]
fn a7_start_wild_left_names_colour_then_plays() {
    let g = scripted("attack-1999", 4, &[1]);
    let mut s = deal_with_start(&g, "wild");
    let left = (s.dealer() + 1) % 4;
    expect_turn(&s, left, Phase::ChooseColour);
    assert_eq!(s.active_colour(), None);
    run(&g, &mut s, &["colour:yellow"]);
    expect_turn(&s, left, Phase::Play);
    assert_eq!(s.active_colour(), Some(Colour::Yellow));
}

#[test]
fn a7_start_hit_left_presses_n_then_next_begins() {
    let g = scripted("attack-1999", 4, &[1]);
    let s = deal_with_start(&g, "R-hit2");
    let left = (s.dealer() + 1) % 4;
    assert_eq!(s.hand_len(left), 9);
    expect_turn(&s, (s.dealer() + 2) % 4, Phase::Play);

    let g = scripted("attack-2010", 4, &[1]);
    let s = deal_with_start(&g, "R-hit1");
    let left = (s.dealer() + 1) % 4;
    assert_eq!(s.hand_len(left), 8);
    expect_turn(&s, (s.dealer() + 2) % 4, Phase::Play);
}

// ----- A-8 -----------------------------------------------------------------

#[test]
fn a8_hits_stop_on_fire_option() {
    let hands: &[&[&str]] = &[&["R-hit2", "R7"], &["G1"], &["B1"]];
    // attack-2010: on. The first press fires 3: the second is forfeited.
    let g = scripted("attack-2010", 3, &[3]);
    assert!(g.rules().options.stop_hits_on_fire);
    let mut s = build(&g, &scenario(hands, "R5", 0));
    let ev = run(&g, &mut s, &["play:R-hit2"]);
    assert_eq!(presses(&ev, 1), vec![3]);
    assert_eq!(s.hand_len(1), 4);
    expect_turn(&s, 2, Phase::Play);
    // A miss does not stop the presses.
    let g = scripted("attack-2010", 3, &[0, 2]);
    let mut s = build(&g, &scenario(hands, "R5", 0));
    let ev = run(&g, &mut s, &["play:R-hit2"]);
    assert_eq!(presses(&ev, 1), vec![0, 2]);
    // Off elsewhere: every press is made.
    for preset in ["attack-1999", "attack-modern"] {
        let g = scripted(preset, 3, &[3]);
        assert!(!g.rules().options.stop_hits_on_fire);
        let mut s = build(&g, &scenario(hands, "R5", 0));
        let ev = run(&g, &mut s, &["play:R-hit2"]);
        assert_eq!(presses(&ev, 1), vec![3, 3], "{preset}");
    }
}

// ----- A-9 -----------------------------------------------------------------

#[test]
fn a9_trade_hands_must_swap_with_chosen_player() {
    let g = scripted("attack-1999", 3, &[1]);
    let mut s = build(
        &g,
        &scenario(
            &[
                &["R-trade-hands", "R1", "R2"],
                &["G1"],
                &["B1", "B2", "B3", "B4"],
            ],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:R-trade-hands"]);
    expect_turn(&s, 0, Phase::ChooseTarget);
    // No way out of the trade: only targets are legal.
    assert_eq!(g.legal_actions(&s), vec![id("target:+1"), id("target:+2")]);
    let ev = run(&g, &mut s, &["target:+2"]);
    assert!(ev.contains(&Event::Traded { a: 0, b: 2 }));
    assert_eq!(hand(&g, &s, 0), vec!["B1", "B2", "B3", "B4"]);
    assert_eq!(hand(&g, &s, 2), vec!["R1", "R2"]);
    expect_turn(&s, 1, Phase::Play);
}

#[test]
fn a9_trade_hands_not_playable_as_last_card() {
    let g = scripted("attack-1999", 3, &[1]);
    let s = build(
        &g,
        &scenario(&[&["R-trade-hands"], &["G1"], &["B1"]], "R5", 0),
    );
    assert_eq!(g.legal_actions(&s), vec![id("draw")]);
    let mut t = s.clone();
    let e = g.apply(&mut t, id("play:R-trade-hands")).unwrap_err();
    assert!(e.to_string().contains("A-9"), "{e}");
    assert_eq!(t, s);
    // Also on another Trade Hands.
    let s = build(
        &g,
        &scenario(&[&["G-trade-hands"], &["G1"], &["B1"]], "R-trade-hands", 0),
    );
    assert_eq!(g.legal_actions(&s), vec![id("draw")]);
}

#[test]
fn a9_trade_hands_never_starts_the_discard_pile() {
    let g = scripted("attack-1999", 4, &[1]);
    for seed in 0..1500 {
        let s = g.new_state(seed);
        assert_ne!(s.top_face(&g).kind(), Kind::TradeHands, "seed {seed}");
        g.check_invariants(&s).unwrap();
    }
}

// ----- A-10 ----------------------------------------------------------------

#[test]
fn a10_wild_all_hit_every_other_player_presses_once() {
    let g = scripted("attack-1999", 4, &[2]);
    let mut s = build(
        &g,
        &scenario(
            &[&["wild-all-hit", "R7"], &["G1"], &["B1"], &["Y1"]],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:wild-all-hit", "colour:green"]);
    let hits: Vec<usize> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Hit { seat, n: 1 } => Some(*seat),
            _ => None,
        })
        .collect();
    assert_eq!(hits, vec![1, 2, 3], "starting with the next player");
    for p in 1..4 {
        assert_eq!(presses(&ev, p), vec![2]);
        assert_eq!(s.hand_len(p), 3);
    }
    assert_eq!(s.hand_len(0), 1);
    expect_turn(&s, 1, Phase::Play);
    assert_eq!(s.active_colour(), Some(Colour::Green));
}

#[test]
fn a10_wild_all_hit_start_card() {
    let g = scripted("attack-1999", 4, &[1]);
    let mut s = deal_with_start(&g, "wild-all-hit");
    let d = s.dealer();
    for p in 0..4 {
        assert_eq!(s.hand_len(p), if p == d { 7 } else { 8 }, "seat {p}");
    }
    let left = (d + 1) % 4;
    expect_turn(&s, left, Phase::ChooseColour);
    run(&g, &mut s, &["colour:red"]);
    expect_turn(&s, left, Phase::Play);
}

// ----- A-11 ----------------------------------------------------------------

#[test]
fn a11_wild_hit_fire_presses_until_it_fires() {
    let g = scripted("attack-1999", 3, &[0, 0, 0, 2]);
    let mut s = build(
        &g,
        &scenario(&[&["wild-hit-fire", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-hit-fire", "colour:red"]);
    assert_eq!(presses(&ev, 1), vec![0, 0, 0, 2]);
    assert_eq!(s.hand_len(1), 3);
    expect_turn(&s, 2, Phase::Play);
    assert_eq!(s.misses(), 0);
}

#[test]
fn a11_wild_hit_fire_start_card() {
    let g = scripted("attack-1999", 4, &[0, 3]);
    let mut s = deal_with_start(&g, "wild-hit-fire");
    let d = s.dealer();
    let left = (d + 1) % 4;
    assert_eq!(s.hand_len(left), 10);
    // [reading] (A-11) the next player, who begins, names the colour.
    let second = (d + 2) % 4;
    expect_turn(&s, second, Phase::ChooseColour);
    run(&g, &mut s, &["colour:red"]);
    expect_turn(&s, second, Phase::Play);
}

// ----- scores (A-12, A-15, A-20) --------------------------------------------

fn scores_of(preset: &str, table: &[(&str, u16)]) {
    let g = Game::new(Rules::preset(preset).unwrap(), 2).unwrap();
    for (f, pts) in table {
        assert_eq!(g.score_of(face(f)), *pts, "{preset} {f}");
    }
    for n in 1..10u16 {
        assert_eq!(g.score_of(face(&format!("B{n}"))), n, "{preset} numbers");
    }
    // And they count when a round is scored (C-6).
    let held: Vec<&str> = table.iter().map(|(f, _)| *f).collect();
    let mut sc = scenario(&[&["R7"], &held], "R5", 0);
    sc.launcher = None;
    let mut s = build(&g, &sc);
    run(&g, &mut s, &["play:R7"]);
    let total: u32 = table.iter().map(|(_, p)| *p as u32).sum();
    assert_eq!(s.scores()[0], total, "{preset}");
}

#[test]
fn a12_attack_1999_scores() {
    scores_of(
        "attack-1999",
        &[
            ("R-reverse", 20),
            ("G-skip", 20),
            ("B-hit2", 20),
            ("Y-discard-all", 30),
            ("R-trade-hands", 30),
            ("wild", 50),
            ("wild-all-hit", 50),
            ("wild-hit-fire", 50),
        ],
    );
}

#[test]
fn a15_attack_2010_scores() {
    scores_of(
        "attack-2010",
        &[
            ("R-reverse", 20),
            ("G-skip", 20),
            ("B-hit1", 20),
            ("Y-hit2", 40),
            ("Y-discard-all", 30),
            ("wild", 50),
            ("wild-attack-attack", 50),
        ],
    );
}

#[test]
fn a20_attack_modern_scores() {
    scores_of(
        "attack-modern",
        &[
            ("R-reverse", 20),
            ("G-skip", 20),
            ("B-hit2", 20),
            ("Y-discard-all", 30),
            ("wild-hit4", 40),
            ("wild", 50),
            ("wild-attack-attack", 50),
            ("wild-custom", 50),
        ],
    );
}

// ----- A-13 ----------------------------------------------------------------

/// attack-2010, 5 players: seat 0 attacks seat 3 with a Wild Attack-Attack.
fn attack_attack_2010(resume: Option<AttackResume>) -> (uno_env::State, Vec<Event>) {
    let g = game_with("attack-2010", 5, |r| {
        if let Some(a) = resume {
            r.options.attack_resume = a;
        }
        r.options.stop_hits_on_fire = false;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut s = build(
        &g,
        &scenario(
            &[
                &["wild-attack-attack", "R7"],
                &["G1"],
                &["B1"],
                &["Y1"],
                &["Y2"],
            ],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:wild-attack-attack", "colour:blue"]);
    expect_turn(&s, 0, Phase::ChooseTarget);
    assert_eq!(g.legal_actions(&s).len(), 4, "any other player");
    let ev = run(&g, &mut s, &["target:+3"]);
    (s, ev)
}

#[test]
fn a13_wild_attack_attack_literal_resume_second_from_attacker() {
    let (s, ev) = attack_attack_2010(None);
    assert!(ev.contains(&Event::Target { seat: 0, target: 3 }));
    assert!(ev.contains(&Event::Hit { seat: 3, n: 2 }));
    assert_eq!(presses(&ev, 3), vec![1, 1]);
    assert_eq!(s.hand_len(3), 3);
    // [reading] literal 003: the player after the attacker (seat 1) is passed over.
    expect_turn(&s, 2, Phase::Play);
    assert_eq!(s.active_colour(), Some(Colour::Blue));
}

#[test]
fn a13_attack_resume_after_target_option() {
    let (s, _) = attack_attack_2010(Some(AttackResume::AfterTarget));
    expect_turn(&s, 4, Phase::Play);
    assert_eq!(
        Rules::preset("attack-2010").unwrap().options.attack_resume,
        AttackResume::SkipNext
    );
    // A rules file takes the value as rules files spell values, and as RULES.md does.
    for value in ["after-target", "after_target"] {
        let r = Rules::from_toml_str(&format!(
            "preset = \"attack-2010\"\n[options]\nattack_resume = \"{value}\"\n"
        ))
        .unwrap();
        assert_eq!(
            r.options.attack_resume,
            AttackResume::AfterTarget,
            "{value}"
        );
    }
}

// ----- A-14 ----------------------------------------------------------------

fn mega_example(players: usize) {
    // The issue's example: attack-2010, mega_hit and stop_hits_on_fire on.
    let g = scripted("attack-2010", players, &[0, 0, 4, 9]);
    assert!(g.rules().options.mega_hit && g.rules().options.stop_hits_on_fire);
    let mut hands: Vec<&[&str]> = vec![
        &["R-hit1", "R7", "G2"],
        &["B-hit2", "B6"],
        &["wild-attack-attack", "Y4"],
    ];
    let extra: [&[&str]; 7] = [
        &["Y1"],
        &["Y2"],
        &["Y3"],
        &["Y6"],
        &["Y7"],
        &["Y8"],
        &["Y9"],
    ];
    hands.extend(&extra[..players - 3]);
    let mut s = build(&g, &scenario(&hands, "R5", 0));
    let back_to_0 = format!("target:+{}", players - 2);
    let ev = run(&g, &mut s, &["play:R-hit1"]);
    assert!(ev.contains(&Event::Stacked { seat: 0, total: 1 }));
    expect_turn(&s, 1, Phase::Stack);
    // Any Hit card, whatever its colour, or press.
    assert_eq!(g.legal_actions(&s), vec![id("play:B-hit2"), id("draw")]);
    let ev = run(&g, &mut s, &["play:B-hit2"]);
    assert!(ev.contains(&Event::Stacked { seat: 1, total: 3 }));
    expect_turn(&s, 2, Phase::Stack);
    assert_eq!(s.pending_hits(), 3);
    run(&g, &mut s, &["play:wild-attack-attack", "colour:green"]);
    expect_turn(&s, 2, Phase::ChooseTarget);
    let ev = run(&g, &mut s, &[&back_to_0]);
    assert!(ev.contains(&Event::Target { seat: 2, target: 0 }));
    assert!(ev.contains(&Event::Stacked { seat: 2, total: 5 }));
    assert!(ev.contains(&Event::Hit { seat: 0, n: 5 }));
    // Five presses due; the third fires and the rest are forfeited (A-8).
    assert_eq!(presses(&ev, 0), vec![0, 0, 4]);
    assert_eq!(s.hand_len(0), 2 + 4);
    assert_eq!(s.pending_hits(), 0);
    // Play resumes with the player after the first hitter.
    expect_turn(&s, 1, Phase::Play);
    assert_eq!(s.active_colour(), Some(Colour::Green));
}

#[test]
fn a14_mega_hit_stack_returns_to_first_hitter_issue_example() {
    mega_example(3);
    mega_example(4);
    mega_example(6);
}

#[test]
fn a14_first_player_who_does_not_stack_presses_the_total() {
    let g = game_with("attack-2010", 4, |r| {
        r.options.stop_hits_on_fire = false;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut s = build(
        &g,
        &scenario(
            &[
                &["R-hit2", "R7"],
                &["Y-hit2", "B6"],
                &["G-hit1", "Y4"],
                &["Y1"],
            ],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:R-hit2", "play:Y-hit2"]);
    expect_turn(&s, 2, Phase::Stack);
    // Seat 2 holds a Hit 1 but presses the total (4).
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 2), vec![1; 4]);
    assert_eq!(s.hand_len(2), 6);
    expect_turn(&s, 1, Phase::Play);
}

#[test]
fn a14_c8_two_players_a_stack_resumes_after_the_first_hitter() {
    // [reading] A-14 over C-8 at two players: after a stack, play goes on
    // with the player after the first hitter, i.e. the first hitter's
    // opponent, even when the stack went back and forth so that C-8 alone
    // ("play returns to the player who played it") would return the turn to
    // the last hitter.
    let g = game_with("attack-2010", 2, |r| {
        r.options.stop_hits_on_fire = false;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    // Stacked once: seat 1 stacks on seat 0's Hit 2 and seat 0 presses 4.
    // Both readings give seat 1 the turn.
    let mut s = build(
        &g,
        &scenario(&[&["R-hit2", "Y-hit1", "R7"], &["G-hit2", "G1"]], "R5", 0),
    );
    run(&g, &mut s, &["play:R-hit2", "play:G-hit2"]);
    expect_turn(&s, 0, Phase::Stack);
    let ev = run(&g, &mut s, &["draw"]);
    assert_eq!(presses(&ev, 0), vec![1; 4]);
    assert_eq!(s.hand_len(0), 2 + 4);
    expect_turn(&s, 1, Phase::Play);
    // Stacked twice: seat 0 stacks back and seat 1, with no Hit card left,
    // presses 5 at once; the turn goes to seat 1, the player after the first
    // hitter (A-14), not back to seat 0, the last hitter (C-8 read alone).
    let mut s = build(
        &g,
        &scenario(
            &[&["R-hit2", "Y-hit1", "R7"], &["G-hit2", "G1", "G2"]],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:R-hit2", "play:G-hit2", "play:Y-hit1"]);
    assert!(ev.contains(&Event::Hit { seat: 1, n: 5 }));
    assert_eq!(presses(&ev, 1), vec![1; 5]);
    assert_eq!(s.hand_len(1), 2 + 5);
    expect_turn(&s, 1, Phase::Play);
}

#[test]
fn a14_attack_attack_starts_stack_target_stacks_to_next() {
    let g = game_with("attack-2010", 4, |r| {
        r.options.stop_hits_on_fire = false;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut s = build(
        &g,
        &scenario(
            &[
                &["wild-attack-attack", "R7"],
                &["Y1"],
                &["G-hit1", "Y4"],
                &["Y2"],
            ],
            "R5",
            0,
        ),
    );
    run(
        &g,
        &mut s,
        &["play:wild-attack-attack", "colour:red", "target:+2"],
    );
    expect_turn(&s, 2, Phase::Stack);
    // The attacked player stacks: the total passes to the player after them.
    let ev = run(&g, &mut s, &["play:G-hit1"]);
    assert!(ev.contains(&Event::Hit { seat: 3, n: 3 }));
    assert_eq!(presses(&ev, 3), vec![1, 1, 1]);
    // After the stack: the player after the first hitter (seat 0).
    expect_turn(&s, 1, Phase::Play);
}

#[test]
fn a14_off_in_other_presets_no_stacking() {
    for preset in ["attack-1999", "attack-modern"] {
        let g = scripted(preset, 3, &[1]);
        assert!(!g.rules().options.mega_hit);
        let mut s = build(
            &g,
            &scenario(&[&["R-hit2", "R7"], &["B-hit2", "B6"], &["Y1"]], "R5", 0),
        );
        run(&g, &mut s, &["play:R-hit2"]);
        assert_eq!(s.hand_len(1), 4, "{preset}");
        expect_turn(&s, 2, Phase::Play);
    }
}

#[test]
fn a14_going_out_on_a_stacked_card_ends_the_stack() {
    // [reading] (engine): the victim presses the total at once.
    let g = game_with("attack-2010", 3, |r| {
        r.options.stop_hits_on_fire = false;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut s = build(
        &g,
        &scenario(
            &[&["R-hit1", "R7"], &["Y-hit2"], &["G-hit1", "Y4"]],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:R-hit1", "play:Y-hit2"]);
    assert!(ev.contains(&Event::Hit { seat: 2, n: 3 }));
    assert_eq!(s.round_winner(), Some(1));
    assert_eq!(s.hand_len(2), 5);
}

// ----- A-16 ----------------------------------------------------------------

#[test]
fn a16_going_out_on_attack_attack_resolves_attack_first() {
    let g = scripted("attack-2010", 3, &[2]);
    let mut sc = scenario(
        &[&["wild-attack-attack"], &["G-hit1", "G9"], &["B1"]],
        "R5",
        0,
    );
    sc.launcher = Some(faces(&["R1", "Y1"]));
    let mut s = build(&g, &sc);
    let ev = run(
        &g,
        &mut s,
        &["play:wild-attack-attack", "colour:red", "target:+1"],
    );
    assert!(ev.contains(&Event::Hit { seat: 1, n: 2 }));
    // Seat 1 may not stack (the attacker is out); stop on fire after 2 cards.
    assert_eq!(presses(&ev, 1), vec![2]);
    assert_eq!(s.round_winner(), Some(0));
    // G-hit1 20 + G9 + R1 + Y1 + B1.
    assert_eq!(s.scores()[0], 20 + 9 + 1 + 1 + 1);
}

// ----- A-17 ----------------------------------------------------------------

#[test]
fn a17_modern_attack_attack_resumes_after_target() {
    let g = scripted("attack-modern", 5, &[1]);
    assert_eq!(g.rules().options.attack_resume, AttackResume::AfterTarget);
    let mut s = build(
        &g,
        &scenario(
            &[
                &["wild-attack-attack", "R7"],
                &["G1"],
                &["B1"],
                &["Y1"],
                &["Y2"],
            ],
            "R5",
            0,
        ),
    );
    let ev = run(
        &g,
        &mut s,
        &["play:wild-attack-attack", "colour:red", "target:+2"],
    );
    assert_eq!(presses(&ev, 2), vec![1, 1]);
    expect_turn(&s, 3, Phase::Play);
}

#[test]
fn a17_modern_attack_attack_start_card() {
    let g = scripted("attack-modern", 4, &[1]);
    let mut s = deal_with_start(&g, "wild-attack-attack");
    let d = s.dealer();
    let left = (d + 1) % 4;
    expect_turn(&s, left, Phase::ChooseColour);
    run(&g, &mut s, &["colour:green"]);
    expect_turn(&s, left, Phase::ChooseTarget);
    // Attack the dealer (offset +3 from the left of the dealer).
    let ev = run(&g, &mut s, &["target:+3"]);
    assert!(ev.contains(&Event::Hit { seat: d, n: 2 }));
    assert_eq!(s.hand_len(d), 9);
    // Play proceeds to the second player.
    expect_turn(&s, (d + 2) % 4, Phase::Play);
}

// ----- A-18 ----------------------------------------------------------------

#[test]
fn a18_wild_hit4_presses_four_no_challenge() {
    let g = scripted("attack-modern", 3, &[1]);
    let mut s = build(
        &g,
        &scenario(&[&["wild-hit4", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-hit4", "colour:yellow"]);
    assert_eq!(presses(&ev, 1), vec![1, 1, 1, 1]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Challenge { .. })));
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn a18_wild_hit4_start_card() {
    let g = scripted("attack-modern", 4, &[1]);
    let mut s = deal_with_start(&g, "wild-hit4");
    let d = s.dealer();
    assert_eq!(s.hand_len((d + 1) % 4), 11);
    // [reading] the second player names the colour and plays.
    let second = (d + 2) % 4;
    expect_turn(&s, second, Phase::ChooseColour);
    run(&g, &mut s, &["colour:blue"]);
    expect_turn(&s, second, Phase::Play);
}

// ----- A-19 ----------------------------------------------------------------

#[test]
fn a19_wild_custom_plays_as_wild_by_default() {
    let g = scripted("attack-modern", 3, &[1]);
    assert_eq!(g.effect_of(Kind::WildCustom), Effect::None);
    let mut s = build(
        &g,
        &scenario(&[&["wild-custom", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-custom", "colour:green"]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Pressed { .. })));
    expect_turn(&s, 1, Phase::Play);
    assert_eq!(s.active_colour(), Some(Colour::Green));
}

#[test]
fn a19_wild_custom_effect_from_config() {
    let mut r = Rules::from_toml_str(
        r#"
        preset = "attack-modern"
        [kinds.wild-custom]
        effect = { type = "hit", n = 3 }
        score = 50
        [launcher]
        model = "scripted"
        outcomes = [1]
        "#,
    )
    .unwrap();
    let g = Game::new(r.clone(), 3).unwrap();
    let mut s = build(
        &g,
        &scenario(&[&["wild-custom", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-custom", "colour:green"]);
    assert_eq!(presses(&ev, 1), vec![1, 1, 1]);
    expect_turn(&s, 2, Phase::Play);

    // Another effect: Skip.
    r.kinds.get_mut(&Kind::WildCustom).unwrap().effect = Effect::Skip;
    let g = Game::new(r, 3).unwrap();
    let mut s = build(
        &g,
        &scenario(&[&["wild-custom", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-custom", "colour:green"]);
    assert!(ev.contains(&Event::Skipped { seat: 1 }));
    expect_turn(&s, 2, Phase::Play);
}

// ----- A-21 ----------------------------------------------------------------

fn bonus_game(on: bool) -> Game {
    game_with("attack-modern", 4, |r| {
        r.options.bonus_play_after_skip = on;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    })
}

const BONUS_HANDS: &[&[&str]] = &[
    &["R-skip", "G-skip", "R-reverse", "R7", "B9"],
    &["G1"],
    &["B1"],
    &["Y1"],
];

#[test]
fn a21_bonus_play_off_by_default() {
    assert!(
        !Rules::preset("attack-modern")
            .unwrap()
            .options
            .bonus_play_after_skip
    );
    let g = bonus_game(false);
    let mut s = build(&g, &scenario(BONUS_HANDS, "R5", 0));
    run(&g, &mut s, &["play:R-skip"]);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn a21_bonus_play_after_skip_one_more_card() {
    let g = bonus_game(true);
    let mut s = build(&g, &scenario(BONUS_HANDS, "R5", 0));
    run(&g, &mut s, &["play:R-skip"]);
    expect_turn(&s, 0, Phase::BonusPlay);
    // Only matching cards, or pass; no press.
    let legal = g.legal_actions(&s);
    assert!(legal.contains(&id("pass")) && legal.contains(&id("play:R7")));
    assert!(!legal.contains(&id("draw")) && !legal.contains(&id("play:B9")));
    run(&g, &mut s, &["play:R7"]);
    expect_turn(&s, 2, Phase::Play);

    // Passing hands the turn to the player after the skipped one.
    let mut s = build(&g, &scenario(BONUS_HANDS, "R5", 0));
    run(&g, &mut s, &["play:R-skip", "pass"]);
    expect_turn(&s, 2, Phase::Play);

    // A Skip as the bonus card skips again but gives no further bonus.
    let mut s = build(&g, &scenario(BONUS_HANDS, "R5", 0));
    let ev = run(&g, &mut s, &["play:R-skip", "play:G-skip"]);
    assert!(ev.contains(&Event::Skipped { seat: 2 }));
    expect_turn(&s, 3, Phase::Play);
}

#[test]
fn a21_bonus_play_after_reverse() {
    let g = bonus_game(true);
    let mut s = build(&g, &scenario(BONUS_HANDS, "R5", 0));
    run(&g, &mut s, &["play:R-reverse"]);
    expect_turn(&s, 0, Phase::BonusPlay);
    assert_eq!(s.direction(), -1);
    run(&g, &mut s, &["pass"]);
    expect_turn(&s, 3, Phase::Play);
}

/// RULES.md "Editions (presets)" and the attack sections (A-*): every face an
/// attack edition's rules name is in its deck.
#[test]
fn a_faces_of_each_attack_edition_are_in_its_deck() {
    let g = Game::new(Rules::preset("attack-2010").unwrap(), 2).unwrap();
    assert!(g.has_face(Face::parse("R-hit1").unwrap()));
    assert!(!g.has_face(Face::parse("R-trade-hands").unwrap()));
}

#[test]
fn a7_a13_attack_2010_attack_attack_start_card_follows_a17() {
    // [reading] 003 gives no start rule for Wild Attack-Attack: as A-17, the
    // player left of the dealer names the colour and attacks; the second player
    // then begins (no stacking at the start).
    let g = scripted("attack-2010", 4, &[1]);
    let mut s = deal_with_start(&g, "wild-attack-attack");
    let d = s.dealer();
    let left = (d + 1) % 4;
    run(&g, &mut s, &["colour:red"]);
    expect_turn(&s, left, Phase::ChooseTarget);
    let ev = run(&g, &mut s, &["target:+2"]);
    let victim = (left + 2) % 4;
    assert!(ev.contains(&Event::Hit { seat: victim, n: 2 }));
    // Stop on fire (A-8): one press of the scripted 1 card.
    assert_eq!(s.hand_len(victim), 8);
    expect_turn(&s, (d + 2) % 4, Phase::Play);
}

#[test]
fn a21_a14_bonus_attack_attack_resumes_the_same_with_or_without_mega_hit() {
    // attack-2010 with A-21 on, 5 players: seat 0 skips seat 1, then plays a
    // Wild Attack-Attack as the bonus card at seat 4, who cannot stack. The
    // bonus card is resolved as if played from the skipped seat ([reading],
    // A-21), so A-13 resumes two seats after seat 1: seat 3 — with Mega Hit on
    // or off alike, since nobody stacked.
    for mega in [false, true] {
        let g = game_with("attack-2010", 5, |r| {
            r.options.bonus_play_after_skip = true;
            r.options.mega_hit = mega;
            r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
        });
        let mut s = build(
            &g,
            &scenario(
                &[
                    &["R-skip", "wild-attack-attack", "R7"],
                    &["G1"],
                    &["B1"],
                    &["Y1"],
                    &["Y2"],
                ],
                "R5",
                0,
            ),
        );
        let ev = run(
            &g,
            &mut s,
            &[
                "play:R-skip",
                "play:wild-attack-attack",
                "colour:red",
                "target:+4",
            ],
        );
        assert!(ev.contains(&Event::Hit { seat: 4, n: 2 }), "mega {mega}");
        expect_turn(&s, 3, Phase::Play);
    }
}

#[test]
fn a21_skip_then_bonus_reverse_sends_play_the_other_way_from_the_player() {
    // A-21 with A-4: seat 0 skips seat 1, then plays a Reverse as the bonus
    // card. Play goes the other way from seat 0: seat 3 is next, not seat 0
    // again (resolving the Reverse from the skipped seat gave seat 0 a turn).
    let g = bonus_game(true);
    let mut s = build(&g, &scenario(BONUS_HANDS, "R5", 0));
    run(&g, &mut s, &["play:R-skip", "play:R-reverse"]);
    assert_eq!(s.direction(), -1);
    expect_turn(&s, 3, Phase::Play);
    // At 3 players: seat 0 skips seat 1, reverses, and seat 2 plays.
    let g = game_with("attack-modern", 3, |r| {
        r.options.bonus_play_after_skip = true;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let mut s = build(
        &g,
        &scenario(&[&["R-skip", "R-reverse", "R7"], &["G1"], &["B1"]], "R5", 0),
    );
    run(&g, &mut s, &["play:R-skip", "play:R-reverse"]);
    expect_turn(&s, 2, Phase::Play);
}

#[test]
fn a21_c8_two_players_a_skip_or_reverse_gives_one_more_turn_not_a_bonus_too() {
    // [reading] A-21 + C-8: at two players C-8's "the same player plays
    // again" is the one more card; there is no separate bonus play (which
    // would have resolved a bonus Hit or Skip against its own player).
    for preset in ["attack-1999", "attack-2010", "attack-modern"] {
        let g = game_with(preset, 2, |r| {
            r.options.bonus_play_after_skip = true;
            r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
        });
        for first in ["play:R-skip", "play:R-reverse"] {
            let mut s = build(
                &g,
                &scenario(
                    &[&["R-skip", "R-reverse", "R-hit2", "R7"], &["G1", "G2"]],
                    "R5",
                    0,
                ),
            );
            let ev = run(&g, &mut s, &[first]);
            assert!(ev.contains(&Event::Skipped { seat: 1 }), "{preset} {first}");
            // A full turn: the player may also press.
            expect_turn(&s, 0, Phase::Play);
            assert!(g.legal_actions(&s).contains(&id("draw")));
            // The Hit played on that turn hits the opponent, and play returns (C-8).
            let ev = run(&g, &mut s, &["play:R-hit2"]);
            assert!(
                ev.contains(&Event::Hit { seat: 1, n: 2 }),
                "{preset} {first}: {ev:?}"
            );
            assert_eq!(s.hand_len(0), 2, "{preset}: the player took nothing");
            expect_turn(&s, 0, Phase::Play);
        }
    }
}

#[test]
fn a10_c8_two_players_wild_all_hit_opponent_presses_once_then_plays() {
    // [reading] A-10 at two players: the opponent presses once and then plays
    // ("play continues with the next player"); unlike C-8's Hit cards, All Hit
    // takes no one's turn.
    let g = scripted("attack-1999", 2, &[1]);
    let mut s = build(
        &g,
        &scenario(&[&["wild-all-hit", "R7"], &["G1", "G2"]], "R5", 0),
    );
    let ev = run(&g, &mut s, &["play:wild-all-hit", "colour:red"]);
    assert!(ev.contains(&Event::Hit { seat: 1, n: 1 }), "{ev:?}");
    assert_eq!(s.hand_len(1), 3);
    expect_turn(&s, 1, Phase::Play);
}

#[test]
fn a9_c4_explicit_uno_penalty_is_pressed_after_the_trade() {
    // [reading] C-4 + A-9: seat 0 plays Trade Hands as its second-to-last card
    // without calling UNO and is caught. The two penalty presses go into the
    // hand seat 0 ends up with, after the swap; the partner gets only the one
    // card seat 0 had left.
    let g = game_with("attack-1999", 3, |r| {
        r.options.uno_call = UnoCall::Explicit;
        r.options.catch_probability = 1.0;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    let position = || {
        build(
            &g,
            &scenario(
                &[
                    &["R-trade-hands", "R1"],
                    &["G1", "G2", "G3"],
                    &["B1", "B2", "B3", "B4"],
                ],
                "R5",
                0,
            ),
        )
    };
    let mut s = position();
    let ev = run(&g, &mut s, &["play:R-trade-hands", "no-uno", "target:+2"]);
    assert!(ev.contains(&Event::Traded { a: 0, b: 2 }), "{ev:?}");
    assert_eq!(hand(&g, &s, 2), ["R1"]);
    assert_eq!(
        s.hand_len(0),
        6,
        "seat 0: the four traded cards and two penalty cards"
    );
    let traded = ev.iter().position(|e| *e == Event::Traded { a: 0, b: 2 });
    let pressed = ev
        .iter()
        .position(|e| matches!(e, Event::Pressed { seat: 0, .. }));
    assert!(traded < pressed, "the penalty comes after the swap: {ev:?}");
    expect_turn(&s, 1, Phase::Play);
    // Called, there is no penalty.
    let mut s = position();
    run(&g, &mut s, &["play:R-trade-hands", "uno", "target:+2"]);
    assert_eq!(s.hand_len(0), 4);
    assert!(
        s.uno_called(2),
        "the partner holds one card and the call that came with it"
    );
}

#[test]
fn a9_a19_a_trade_hands_effect_is_never_a_last_card() {
    // A-9 on a Wild Customizable given the Trade Hands effect (A-19): it is
    // not playable as the only card, so no partner is left with an empty hand.
    let mut r = rules("attack-modern", |r| {
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    r.kinds.get_mut(&Kind::WildCustom).unwrap().effect = uno_env::Effect::TradeHands;
    let g = Game::new(r, 3).unwrap();
    let s = build(
        &g,
        &scenario(&[&["wild-custom"], &["G1", "G2"], &["B1", "B2"]], "R5", 0),
    );
    assert_eq!(g.legal_actions(&s), vec![id("draw")]);
    // With another card in hand it is playable, and trades.
    let mut s = build(
        &g,
        &scenario(
            &[&["wild-custom", "B7"], &["G1", "G2"], &["B1", "B2"]],
            "R5",
            0,
        ),
    );
    let ev = run(&g, &mut s, &["play:wild-custom", "colour:red", "target:+1"]);
    assert!(ev.contains(&Event::Traded { a: 0, b: 1 }));
    assert_eq!(hand(&g, &s, 1), ["B7"]);
}

#[test]
fn a9_a19_a_trade_hands_effect_is_put_back_as_the_start_card() {
    // A-9 "As start card: put back into the launcher, turn another", on a
    // Wild Customizable given the Trade Hands effect (A-19): about 2.7 % of
    // deals turned it and kept it as a plain wild before the fix.
    let starts = |trade: bool| {
        let g = game_with("attack-modern", 4, |r| {
            if trade {
                r.kinds.get_mut(&Kind::WildCustom).unwrap().effect = Effect::TradeHands;
            }
        });
        (0..3000)
            .filter(|&seed| {
                let s = g.new_state(seed);
                g.check_invariants(&s).unwrap();
                s.top_face(&g) == face("wild-custom")
            })
            .count()
    };
    assert!(starts(false) > 30, "as a plain wild it starts rounds");
    assert_eq!(starts(true), 0);
}

#[test]
fn a3_k1_a_hit_targeted_by_targeted_draws_resumes_after_the_victim() {
    // A-3 / K-1: after a Hit 2 (Draw Two) play continues with the player after
    // the victim. `targeted_draws` (F-4's variant) only lets the player name
    // the victim; A-13's `attack_resume = skip-next` is Wild Attack-Attack's
    // and does not apply (before the fix, attack-2010 resumed at seat 2).
    // With Mega Hit on, a victim holding no Hit card presses at once, and the
    // unstacked hit resumes the same way (A-14's own resume is for real stacks).
    for (preset, mega_hit) in [
        ("attack-2010", false),
        ("attack-2010", true),
        ("attack-modern", false),
        ("attack-modern", true),
        ("classic", false),
    ] {
        let g = game_with(preset, 4, |r| {
            r.options.targeted_draws = true;
            r.options.mega_hit = mega_hit;
            r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
        });
        let hit = if preset == "classic" {
            "R-draw2"
        } else {
            "R-hit2"
        };
        let mut s = build(
            &g,
            &scenario(&[&[hit, "R7"], &["G1"], &["B1"], &["Y1"]], "R5", 0),
        );
        run(&g, &mut s, &[&format!("play:{hit}"), "target:+3"]);
        let what = format!("{preset}, mega_hit {mega_hit}");
        assert!(s.hand_len(3) > 1, "{what}: seat 3 took the hit");
        assert_eq!(s.current_player(), Some(0), "{what}: after seat 3");
    }
    // Wild Attack-Attack itself keeps A-13's literal resume in attack-2010.
    let g = game_with("attack-2010", 4, |r| {
        r.options.targeted_draws = true;
        r.options.mega_hit = false;
        r.launcher = uno_env::LauncherModel::Scripted { outcomes: vec![1] };
    });
    assert_eq!(g.rules().options.attack_resume, AttackResume::SkipNext);
    let mut s = build(
        &g,
        &scenario(
            &[&["wild-attack-attack", "R7"], &["G1"], &["B1"], &["Y1"]],
            "R5",
            0,
        ),
    );
    run(
        &g,
        &mut s,
        &["play:wild-attack-attack", "colour:red", "target:+3"],
    );
    assert_eq!(s.current_player(), Some(2), "A-13: two seats from seat 0");
}

#[test]
fn a19_a5_discard_all_is_refused_on_a_wild_kind() {
    // A-5 discards the cards of the Discard All's colour; a wild has none.
    let mut r = Rules::preset("attack-modern").unwrap();
    r.kinds.get_mut(&Kind::WildCustom).unwrap().effect = uno_env::Effect::DiscardAll;
    let e = Game::new(r, 3).unwrap_err().to_string();
    assert!(
        e.contains("wild-custom") && e.contains("discard-all"),
        "{e}"
    );
}
