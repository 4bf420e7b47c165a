//! `obs::bounds`: every value of every observation and oracle vector met in
//! play lies within the bounds the Python spaces declare, in every edition,
//! table size and scoring mode, across whole matches (scores near the
//! target, eliminated seats, long rounds).

use uno_env::obs::{ORACLE_SIZE, bounds, encode_oracle};
use uno_env::rules::Scoring;
use uno_env::vec_env::Picker;
use uno_env::{Game, OBS_SIZE, PRESETS, Rules};

#[test]
fn every_value_met_in_play_is_within_the_bounds() {
    let mut buf = vec![0.0f32; ORACLE_SIZE];
    let mut steps = 0u64;
    for preset in PRESETS {
        for (players, scoring) in [
            (2, Scoring::Winner),
            (4, Scoring::Penalty),
            (4, Scoring::Challenge),
            (10, Scoring::Winner),
        ] {
            let mut rules = Rules::preset(preset).unwrap();
            rules.options.scoring = scoring;
            // A low target makes matches short and scores end far past it.
            rules.options.target_score = 60;
            let game = Game::new(rules, players).unwrap();
            let (low, high) = bounds(&game);
            assert_eq!((low.len(), high.len()), (ORACLE_SIZE, ORACLE_SIZE));
            // The direction is the only value that can be negative.
            assert_eq!(low.iter().filter(|&&l| l < 0.0).count(), 1);
            for seed in 0..3 {
                let mut s = game.new_state(seed);
                let mut pick = Picker::new(seed, 0);
                loop {
                    for seat in 0..players {
                        encode_oracle(&game, &s, seat, &mut buf).unwrap();
                        for (i, v) in buf.iter().enumerate() {
                            assert!(
                                low[i] <= *v && *v <= high[i],
                                "{preset} {players}p {scoring:?}: value {i} = {v} outside [{}, {}] ({})",
                                low[i],
                                high[i],
                                if i < OBS_SIZE {
                                    "observation"
                                } else {
                                    "oracle"
                                }
                            );
                        }
                    }
                    steps += 1;
                    if s.is_match_over() {
                        break;
                    }
                    if s.is_round_over() {
                        game.next_round(&mut s).unwrap();
                        continue;
                    }
                    let a = pick.pick(game.legal_mask(&s));
                    game.apply(&mut s, a).unwrap();
                }
            }
        }
    }
    assert!(steps > 50_000, "{steps}");
}

#[test]
fn the_bounds_are_tight_where_they_are_exact() {
    // Classic has two of each coloured 1-9 face, one of each 0, four of each wild.
    let game = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    let (_, high) = bounds(&game);
    // (A face the deck lacks keeps 1: no range is empty.)
    let mut counts: Vec<f32> = high[..uno_env::NUM_FACES].to_vec();
    counts.sort_by(f32::total_cmp);
    counts.dedup();
    assert_eq!(counts, [1.0, 2.0, 4.0]);
    let (low, high) = bounds(&game);
    assert!(low.iter().zip(&high).all(|(l, h)| l < h));
}

#[test]
fn a_picker_given_no_legal_action_returns_the_action_space_size() {
    // Not an action id, and no hang (the portable bit select would loop).
    let mut pick = Picker::new(1, 0);
    assert_eq!(pick.pick(0), uno_env::NUM_ACTIONS);
    // ... and a one-action mask still picks it.
    assert_eq!(pick.pick(1 << 97), 97);
}

/// docs/env.md's observation table is `obs::PIECES` (what `examples/obs_layout`
/// prints, and what Python's `obs_pieces()` returns): same rows, same words.
#[test]
fn the_documented_layout_is_the_encoders() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/env.md"))
        .expect("docs/env.md");
    let rows: Vec<&str> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| piece | offset | shape | meaning |"))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .collect();
    let want: Vec<String> = uno_env::obs::PIECES
        .iter()
        .map(|p| {
            format!(
                "| `{}` | {} | {:?} | {} |",
                p.name, p.offset, p.shape, p.doc
            )
        })
        .collect();
    assert_eq!(rows, want);
    let total = format!(
        "Total: {OBS_SIZE} values (`OBS_SIZE`), version {}; oracle: {ORACLE_SIZE} values.",
        uno_env::OBS_VERSION
    );
    assert!(doc.contains(&total), "{total}");
}
