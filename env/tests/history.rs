//! The observation's `history` piece (version 2): what every seat has shown
//! of its hand this round — the colour it last named after a wild, the
//! colour of the last coloured card it played, and how many cards entered its
//! hand since it last played (A-1 presses, F-2 draws, the deal). All of it is
//! public: every player at the table saw it happen.

mod common;

use common::*;
use uno_env::obs::{HISTORY_FEATURES, OBS_SIZE, encode, piece_by_name};
use uno_env::{Colour, Game, Rules};

/// The `history` row of relative seat `k` in `seat`'s observation.
fn history_row(game: &Game, s: &uno_env::State, seat: usize, k: usize) -> Vec<f32> {
    let mut obs = vec![0.0; OBS_SIZE];
    encode(game, s, seat, &mut obs).unwrap();
    let p = piece_by_name("history").expect("history piece");
    let start = p.offset + k * HISTORY_FEATURES;
    obs[start..start + HISTORY_FEATURES].to_vec()
}

#[test]
fn a6_a1_history_records_named_colour_last_colour_and_cards_taken() {
    // Every press fires two cards.
    let g = scripted("attack-1999", 3, &[2]);
    let mut s = build(
        &g,
        &scenario(
            &[&["R7", "wild", "G2"], &["G1", "B3", "B4"], &["Y1", "Y4"]],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:R7"]);
    assert_eq!(s.last_played_colour(0), Some(Colour::Red));
    assert_eq!(s.named_colour(0), None);
    assert_eq!(s.taken_since_play(0), 0);

    // seat 1 presses on red and takes the two fired cards.
    run(&g, &mut s, &["draw"]);
    assert_eq!(s.taken_since_play(1), 2);
    assert_eq!(s.pressed_on(1), 1 << Colour::Red as u8);
    run(&g, &mut s, &["draw"]);
    assert_eq!(s.taken_since_play(2), 2);

    // seat 0 plays a wild and names blue; its last coloured card stays red.
    run(&g, &mut s, &["play:wild", "colour:blue"]);
    assert_eq!(s.named_colour(0), Some(Colour::Blue));
    assert_eq!(s.last_played_colour(0), Some(Colour::Red));
    // The named colour does not leak into the pressed-on flags.
    assert_eq!(s.pressed_on(0), 0);

    // Seat 1 plays blue: its count of cards taken starts again.
    run(&g, &mut s, &["play:B3"]);
    assert_eq!(s.taken_since_play(1), 0);
    assert_eq!(s.pressed_on(1), 0);
    assert_eq!(s.last_played_colour(1), Some(Colour::Blue));

    // Seat 2's view: itself (k = 0), seat 0 (k = 1), seat 1 (k = 2).
    let me = history_row(&g, &s, 2, 0);
    assert_eq!(me, [0., 0., 0., 0., 0., 0., 0., 0., 0.2]);
    let seat0 = history_row(&g, &s, 2, 1);
    assert_eq!(seat0, [0., 0., 0., 1., 1., 0., 0., 0., 0.]);
    let seat1 = history_row(&g, &s, 2, 2);
    assert_eq!(seat1, [0., 0., 0., 0., 0., 0., 0., 1., 0.]);
    // Padding seats stay zero.
    assert!(history_row(&g, &s, 2, 3).iter().all(|&v| v == 0.0));

    // Seat 2 presses again, on blue now (it has not played since pressing on
    // red); seat 0's named colour is untouched.
    run(&g, &mut s, &["draw"]);
    assert_eq!(
        s.pressed_on(2),
        1 << Colour::Red as u8 | 1 << Colour::Blue as u8
    );
    assert_eq!(s.taken_since_play(2), 4);
    assert_eq!(s.named_colour(0), Some(Colour::Blue));
}

#[test]
fn c2_history_starts_each_round_from_the_deal() {
    for preset in ["classic", "attack-2010", "flash"] {
        let g = Game::new(Rules::preset(preset).unwrap(), 4).unwrap();
        let s = g.new_state(3);
        let hand = g.rules().options.hand_size as usize;
        assert_eq!(s.decisions(), 0);
        for seat in 0..4 {
            // Nothing named or played yet; the whole hand came from the deal
            // (and from a start card's draw, F-8).
            assert_eq!(s.named_colour(seat), None, "{preset}");
            assert_eq!(s.last_played_colour(seat), None, "{preset}");
            assert!(s.taken_since_play(seat) >= hand, "{preset} seat {seat}");
            assert_eq!(s.taken_since_play(seat), s.hand_len(seat), "{preset}");
        }
    }
}

/// RULES.md "Information": nothing hidden reaches the history piece.
#[test]
fn history_is_identical_for_states_differing_only_in_hidden_cards() {
    // Resampling the hidden cards keeps every public fact, the history included.
    let g = Game::new(Rules::preset("attack-2010").unwrap(), 4).unwrap();
    let mut s = g.new_state(9);
    let mut pick = uno_env::rng::ChanceRng::new(5, 0);
    for _ in 0..40 {
        if s.is_round_over() {
            break;
        }
        let legal = g.legal_actions(&s);
        let a = legal[pick.below(legal.len() as u32) as usize];
        g.apply(&mut s, a).unwrap();
    }
    let seat = s.current_player().unwrap_or(0);
    let other = g.resample_hidden(&s, seat, 77).unwrap();
    for k in 0..4 {
        assert_eq!(
            history_row(&g, &s, seat, k),
            history_row(&g, &other, seat, k)
        );
    }
}

#[test]
fn a9_after_a_trade_what_was_shown_of_each_hand_follows_it() {
    // Every press fires two cards.
    let g = scripted("attack-1999", 3, &[2]);
    let mut s = build(
        &g,
        &scenario(
            &[
                &["R-trade-hands", "R1", "G7"],
                &["G2", "B3", "B4"],
                &["Y1", "Y4"],
            ],
            "R5",
            0,
        ),
    );
    run(&g, &mut s, &["play:R1"]);
    // seats 1 and 2 hold no red and no 1: each presses and takes two.
    run(&g, &mut s, &["draw", "draw"]);
    for p in [1, 2] {
        assert_eq!(s.pressed_on(p), 1 << Colour::Red as u8);
        assert_eq!(s.taken_since_play(p), 2);
    }
    // seat 0 trades hands with seat 2. Seat 0 now holds the hand that
    // held no red and took two unseen cards; seat 2 holds the one seat 0 has
    // just played from. What each seat did itself stays with it.
    run(&g, &mut s, &["play:R-trade-hands", "target:+2"]);
    assert_eq!(s.hand_len(0), 4);
    assert_eq!(s.hand_len(2), 1);
    assert_eq!(s.pressed_on(0), 1 << Colour::Red as u8);
    assert_eq!(s.taken_since_play(0), 2);
    assert_eq!(s.pressed_on(2), 0);
    assert_eq!(s.taken_since_play(2), 0);
    assert_eq!(s.last_played_colour(0), Some(Colour::Red));
    assert_eq!(s.last_played_colour(2), None);
    // Seat 1 is not part of the trade.
    assert_eq!(s.pressed_on(1), 1 << Colour::Red as u8);
    assert_eq!(s.taken_since_play(1), 2);
    // The observation says the same (seat 0's own row, seat 2's from seat 0).
    let own = history_row(&g, &s, 0, 0);
    assert_eq!(own[8], 0.2);
    assert_eq!(history_row(&g, &s, 0, 2)[8], 0.0);
}
