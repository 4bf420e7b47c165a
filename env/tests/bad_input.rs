//! Bad input to the library API gets a typed error naming the problem, never
//! a panic or a silently wrong result: states edited or loaded from elsewhere,
//! states of another table, impossible scenarios, short observation buffers,
//! malformed rules files and action values outside the action space.

mod common;

use common::*;
use uno_env::obs::{ORACLE_SIZE, encode, encode_oracle, write_mask};
use uno_env::{
    Action, ActionError, EncodeError, Face, Game, NUM_ACTIONS, OBS_SIZE, Phase, Rules, Scenario,
    State,
};

/// `json` with the value of top-level field `key` replaced by `val` (the
/// hands are u128 numbers, which `serde_json::Value` cannot hold).
fn set_field(json: &str, key: &str, val: &str) -> String {
    let pat = format!("\"{key}\":");
    let i = json.find(&pat).unwrap_or_else(|| panic!("no field {key}")) + pat.len();
    let rest = &json[i..];
    let end = if rest.starts_with('[') {
        rest.find(']').unwrap() + 1
    } else {
        rest.find([',', '}']).unwrap()
    };
    format!("{}{val}{}", &json[..i], &rest[end..])
}

/// A fresh classic 2-player state with some fields replaced through its JSON.
fn edited(game: &Game, edits: &[(&str, &str)]) -> State {
    let mut j = game.new_state(3).to_json();
    for (k, v) in edits {
        j = set_field(&j, k, v);
    }
    State::from_json(&j).expect("well-formed JSON")
}

#[test]
fn states_edited_into_impossible_positions_fail_the_invariant_check() {
    let game = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    for (edits, want) in [
        (
            &[("phase", "\"after-draw\""), ("pending_card", "255")][..],
            "no drawn card",
        ),
        (
            &[("phase", "\"choose-colour\""), ("pending_face", "255")][..],
            "no card being played",
        ),
        (&[("phase", "\"uno-call\"")][..], "no card being played"),
        // C-4: the UNO call is decided with one card left, not seven.
        (
            &[("phase", "\"uno-call\""), ("pending_face", "3")][..],
            "exactly one card",
        ),
        // pending hits outside a stack.
        (
            &[("stack", "2"), ("stack_origin", "0")][..],
            "pending hits in phase play",
        ),
        (&[("stack", "2")][..], "no `stack_origin`"),
        (&[("current", "50")][..], "current seat 50 is not a seat"),
        (
            &[("scores", "[600,0,0,0,0,0,0,0,0,0]")][..],
            "past the target",
        ),
        (&[("active", "1")][..], "eliminated"),
        // the start card's colour and target come first in a round, and only then.
        (
            &[("start", "true")][..],
            "start card's choice flagged in phase play",
        ),
        (
            &[
                ("start", "true"),
                ("phase", "\"choose-colour\""),
                ("pending_face", "3"),
                ("decisions", "8"),
            ][..],
            "after 8 decisions",
        ),
    ] {
        let s = edited(&game, edits);
        let e = game.check_invariants(&s).unwrap_err();
        assert!(e.message().contains(want), "{edits:?}: {e}");
        // A typed error: it travels through `?` as any `std::error::Error`.
        let boxed: Box<dyn std::error::Error> = e.clone().into();
        assert_eq!(boxed.to_string(), e.message());
    }
    // A drawn card that sits in the other seat's hand.
    let s = game.new_state(3);
    let theirs = s.hand(1 - s.current_player().unwrap()).trailing_zeros();
    let s = edited(
        &game,
        &[
            ("phase", "\"after-draw\""),
            ("pending_card", &theirs.to_string()),
        ],
    );
    assert!(
        game.check_invariants(&s)
            .unwrap_err()
            .message()
            .contains("no drawn card")
    );
    // Unknown fields are refused when read.
    let j = game
        .new_state(3)
        .to_json()
        .replacen('{', "{\"bogus\":1,", 1);
    assert!(
        State::from_json(&j)
            .unwrap_err()
            .to_string()
            .contains("bogus")
    );
}

#[test]
fn lost_duplicated_or_miscounted_cards_and_wrong_round_points_fail_the_invariant_check() {
    let game = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    let s = game.new_state(3);
    let j = s.to_json();
    let hands = |h: [u128; 2]| {
        let mut all = vec!["0".to_string(); 10];
        all[0] = h[0].to_string();
        all[1] = h[1].to_string();
        format!("[{}]", all.join(","))
    };
    let (h0, h1) = (s.hand(0), s.hand(1));
    let low = h0 & h0.wrapping_neg();
    let mut played: Vec<String> = s.played_counts().iter().map(|c| c.to_string()).collect();
    played[0] = (s.played_counts()[0] + 1).to_string();
    let in_hand = h0.trailing_zeros().to_string();
    for (field, val, want) in [
        // C-1: every card in exactly one place.
        ("hands", hands([h0 & !low, h1]), "card conservation"),
        ("hands", hands([h0, h1 | low]), "also elsewhere"),
        ("played", format!("[{}]", played.join(",")), "played counts"),
        ("top", in_hand, "top card is not on the discard pile"),
        // No round points while a round goes on.
        (
            "round_points",
            "[5,0,0,0,0,0,0,0,0,0]".to_string(),
            "round points set",
        ),
    ] {
        let e = game
            .check_invariants(&State::from_json(&set_field(&j, field, &val)).unwrap())
            .unwrap_err();
        assert!(e.message().contains(want), "{field}: {e}");
    }
    // C-6: a finished round's points are the cards left in the other hands.
    let s = played_to_round_end(&game, 3);
    let w = s.round_winner().unwrap();
    let pts = s.round_points()[w];
    assert_eq!(pts, game.points(s.hand(1 - w)));
    let mut rp = vec!["0".to_string(); 10];
    rp[w] = (pts + 1).to_string();
    let e = game
        .check_invariants(
            &State::from_json(&set_field(
                &s.to_json(),
                "round_points",
                &format!("[{}]", rp.join(",")),
            ))
            .unwrap(),
        )
        .unwrap_err();
    assert!(e.message().contains("the cards left say"), "{e}");
}

#[test]
fn a_round_just_scored_with_a_total_at_the_target_fails_the_invariant_check() {
    // C-7: a total at the target ends the match, so a round-over state (the
    // match not over) edited to hold one is impossible: `next_round` would
    // otherwise deal on past the target.
    let game = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    let s = played_to_round_end(&game, 3);
    assert_eq!(
        s.phase(),
        Phase::RoundOver,
        "the first round should not end the match"
    );
    assert_eq!(game.check_invariants(&s), Ok(()));
    let j = set_field(&s.to_json(), "scores", "[600,0,0,0,0,0,0,0,0,0]");
    let e = game
        .check_invariants(&State::from_json(&j).unwrap())
        .unwrap_err();
    assert!(e.message().contains("past the target"), "{e}");
}

#[test]
fn a_state_of_another_table_or_seat_is_refused_by_apply_and_the_encoders() {
    let two = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    let ten = Game::new(Rules::preset("attack-2010").unwrap(), 10).unwrap();
    let mut s = ten.new_state(1);
    let before = s.clone();
    let e = two.apply(&mut s, id("draw")).unwrap_err();
    assert!(
        matches!(e, ActionError::InvalidState(ref m) if m.contains("10 players")),
        "{e}"
    );
    assert!(two.timeout(&mut s, &mut ()).is_err());
    assert_eq!(s, before);
    let mut obs = vec![0.0; OBS_SIZE];
    assert_eq!(
        encode(&two, &s, 0, &mut obs),
        Err(EncodeError::Table { state: 10, game: 2 })
    );
    // A seat to act that is no seat (apply without check_invariants first).
    let mut s = edited(&two, &[("current", "50")]);
    let e = two.apply(&mut s, id("draw")).unwrap_err();
    assert!(matches!(e, ActionError::InvalidState(_)), "{e}");
}

#[test]
fn encoders_refuse_short_buffers_and_seats_off_the_table() {
    let game = Game::new(Rules::preset("attack-2010").unwrap(), 4).unwrap();
    let s = game.new_state(2);
    let mut short = vec![0.0; OBS_SIZE - 1];
    assert_eq!(
        encode(&game, &s, 0, &mut short),
        Err(EncodeError::Buffer {
            got: OBS_SIZE - 1,
            need: OBS_SIZE
        })
    );
    let mut obs = vec![0.0; OBS_SIZE];
    for seat in [4, 10, usize::MAX] {
        assert_eq!(
            encode(&game, &s, seat, &mut obs),
            Err(EncodeError::Seat { seat, players: 4 })
        );
    }
    assert!(obs.iter().all(|&v| v == 0.0), "nothing written");
    assert!(matches!(
        encode_oracle(&game, &s, 0, &mut obs),
        Err(EncodeError::Buffer { need, .. }) if need == ORACLE_SIZE
    ));
    let mut mask = [0u8; 10];
    assert!(write_mask(game.legal_mask(&s), &mut mask).is_err());
    assert_eq!(mask, [0; 10]);
    // A longer buffer takes the mask in its first NUM_ACTIONS bytes (it
    // used to be refused as "holds 100 values, needs 98").
    let mut long = [7u8; NUM_ACTIONS + 2];
    write_mask(game.legal_mask(&s), &mut long).unwrap();
    assert_eq!(long[NUM_ACTIONS..], [7, 7]);
    let mut mask = [0u8; NUM_ACTIONS];
    write_mask(game.legal_mask(&s), &mut mask).unwrap();
    assert_eq!(long[..NUM_ACTIONS], mask);
    assert_eq!(
        mask.iter().filter(|&&b| b == 1).count(),
        game.legal_actions(&s).len()
    );
}

#[test]
fn scenarios_the_engine_cannot_play_are_refused() {
    let game = Game::new(Rules::preset("classic").unwrap(), 3).unwrap();
    let base = scenario(&[&["R1"], &["G1"], &["B1"]], "R5", 0);
    let refused = |sc: &Scenario, want: &str| {
        let e = game.scenario(sc).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    };
    // Face ids past the 79 faces (the field is public).
    let mut sc = base.clone();
    sc.hands[1] = vec![Face(79)];
    refused(&sc, "face id 79 is not a face");
    let mut sc = base.clone();
    sc.top = Some(Face(200));
    refused(&sc, "face id 200");
    // The player to move, or anyone, holding no cards mid-round (C-5).
    let mut sc = base.clone();
    sc.hands[0].clear();
    refused(&sc, "seat 0 holds no cards");
    let mut sc = base.clone();
    sc.hands[2].clear();
    refused(&sc, "seat 2 holds no cards");
    // A total at the target while the match goes on (C-7).
    let mut sc = base.clone();
    sc.scores = Some(vec![10_000, 0, 0]);
    refused(&sc, "past the target");
    // Eliminations exist only under challenge scoring (C-7).
    let mut sc = base.clone();
    sc.hands[2].clear();
    sc.eliminated = vec![2];
    refused(&sc, "only challenge scoring eliminates");
}

#[test]
fn rules_files_that_would_lose_an_override_or_a_kind_are_refused() {
    // Kind names are written in lower case: `WILD` would sit beside the
    // preset's `wild`, and one of the two counts would be lost.
    let e = Rules::from_toml_str("preset = \"classic\"\n[deck]\nWILD = 0\n").unwrap_err();
    assert!(
        e.to_string().contains("write the card kind as `wild`"),
        "{e}"
    );
    let e = Rules::from_toml_str("preset = \"classic\"\n[deck]\nwild = 1\nWild = 3\n").unwrap_err();
    assert!(e.to_string().contains("`Wild`"), "{e}");
    // A kind given a rule but no count in the deck would never be dealt.
    let e = Rules::from_toml_str(
        "preset = \"attack-2010\"\n[kinds.wild-custom]\neffect = { type = \"hit\", n = 3 }\nscore = 50\n",
    )
    .unwrap_err();
    assert!(e.to_string().contains("[deck] wild-custom = N"), "{e}");
    let ok = Rules::from_toml_str(
        "preset = \"attack-2010\"\n[kinds.wild-custom]\neffect = { type = \"hit\", n = 3 }\nscore = 50\n[deck]\nwild-custom = 2\n",
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn action_values_outside_the_action_space_have_no_id_of_another_action() {
    for a in [
        Action::Target(0),
        Action::Target(10),
        Action::Play(Face(79)),
        Action::Play(Face(200)),
    ] {
        assert_eq!(a.id(), NUM_ACTIONS, "{a:?}");
        assert_eq!(Action::from_id(a.id()), None);
    }
    assert_eq!(Action::Play(Face(200)).name(), "play:?200");
    assert_eq!(Action::Target(9).id(), id("target:+9"));
}

#[test]
fn time_outs_count_towards_max_decisions() {
    // F-3's time-out is a turn's decision: a driver that only times players
    // out still reaches the cap and the round is cut short.
    let game = game_with("classic", 2, |r| r.options.max_decisions = 5);
    let mut s = game.new_state(4);
    while s.phase() != Phase::Play {
        let a = game.legal_actions(&s)[0];
        game.apply(&mut s, a).unwrap();
    }
    for _ in 0..5 {
        if s.is_round_over() {
            break;
        }
        game.timeout(&mut s, &mut ()).unwrap();
    }
    assert!(s.is_round_over() && s.is_truncated(), "{:?}", s.phase());
    assert!(game.timeout(&mut s, &mut ()).is_err());
}

#[test]
fn a_toml_error_always_names_its_reason() {
    // The toml crate gives an empty message for a key with no value at the
    // end of the text (a transcript's rules, a config without a final
    // newline): the reason is read from the text at the place it names.
    let e = Rules::from_toml_str("garbage =").unwrap_err().to_string();
    assert_eq!(
        e,
        "invalid rules TOML: line 1, column 10: a value is missing after `=` in `garbage =`"
    );
    // A message the parser gives is kept.
    let e = Rules::from_toml_str("garbage =\n").unwrap_err().to_string();
    assert!(
        e.starts_with("invalid rules TOML: line 1, column 10: invalid string"),
        "{e}"
    );
    let e = Rules::from_toml_str("preset = \"classic\"\n[options\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("invalid rules TOML: line 2"), "{e}");
    assert!(!e.trim_end().ends_with(':'), "{e}");
}

#[test]
fn rule_sets_the_engine_cannot_play_are_refused() {
    use uno_env::Kind;
    let invalid = |edit: &dyn Fn(&mut Rules), want: &str| {
        let mut r = Rules::preset("attack-2010").unwrap();
        edit(&mut r);
        let e = r.validate().unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        assert!(Game::new(r, 3).is_err());
    };
    // only Hit cards stack; a stacked Skip left the stack pending in play.
    invalid(
        &|r| r.kinds.get_mut(&Kind::Skip).unwrap().stackable = true,
        "stackable (A-14) needs a hit effect",
    );
    // A challengeable Wild Draw Four (C-8) settles before it could stack.
    let mut r = Rules::preset("classic").unwrap();
    r.options.mega_hit = true;
    r.kinds.get_mut(&Kind::WildDraw4).unwrap().stackable = true;
    assert!(
        r.validate()
            .unwrap_err()
            .to_string()
            .contains("without no_active_colour")
    );
    // ... while stacking Draw Twos is a rule the engine plays.
    let mut r = Rules::preset("classic").unwrap();
    r.options.mega_hit = true;
    r.kinds.get_mut(&Kind::Draw2).unwrap().stackable = true;
    assert_eq!(r.validate().map_err(|e| e.to_string()), Ok(()));
    // An empty deck says so, however it was emptied (before: an error
    // about a kind's rule, or about scores).
    invalid(&|r| r.deck.clear(), "the deck is empty");
    invalid(
        &|r| r.deck.values_mut().for_each(|n| *n = 0),
        "the deck is empty",
    );
    // C-7: a deck that scores nothing could never end a match.
    invalid(
        &|r| r.kinds.values_mut().for_each(|k| k.score = 0),
        "scores 0 points",
    );
    // C-5: a round ends when a hand empties; with only cards that cannot be
    // played last, every round ran to the decision cap.
    let mut r = Rules::preset("classic").unwrap();
    r.kinds.values_mut().for_each(|k| k.not_last = true);
    let e = r.validate().unwrap_err().to_string();
    assert!(e.contains("no round could end"), "{e}");
    assert!(Game::new(r, 3).is_err());
    // ... unless a Discard All can shed the last cards at once, as
    // attack-2010's can.
    let mut r = Rules::preset("attack-2010").unwrap();
    r.kinds.values_mut().for_each(|k| k.not_last = true);
    assert!(
        r.kinds
            .values()
            .any(|k| k.effect == uno_env::Effect::DiscardAll)
    );
    assert_eq!(r.validate().map_err(|e| e.to_string()), Ok(()));
    // A launcher probability the engine's f32 chance cannot tell from 0
    // (1e-50 became 0: the launcher never fired).
    invalid(
        &|r| {
            r.launcher = uno_env::LauncherModel::Bernoulli {
                p: 1e-50,
                cards: Default::default(),
            }
        },
        "launcher p must be in",
    );
    invalid(
        &|r| {
            r.launcher = uno_env::LauncherModel::Hazard {
                hazard: vec![0.5, 1e-60],
                cards: Default::default(),
            }
        },
        "the last probability must be at least",
    );
    let mut r = Rules::preset("attack-2010").unwrap();
    r.launcher = uno_env::LauncherModel::Bernoulli {
        p: uno_env::MIN_CHANCE,
        cards: Default::default(),
    };
    assert_eq!(r.validate().map_err(|e| e.to_string()), Ok(()));
    // The name is printed: no escape sequences.
    invalid(
        &|r| r.name = "cl\u{1b}[31massic".into(),
        "control characters",
    );
    // ... and not empty (a header would read "rules  · 3 players").
    invalid(&|r| r.name = " ".into(), "the rules' name is empty");
}

#[test]
fn a_rules_file_without_preset_or_name_says_how_to_start() {
    for text in ["", "[options]\nmega_hit = false\n"] {
        let e = Rules::from_toml_str(text).unwrap_err().to_string();
        assert!(e.contains("neither `preset` nor `name`"), "{e}");
        assert!(e.contains("preset = \"attack-2010\""), "{e}");
    }
    let e = Rules::from_toml_str("preset = \"classic\"\nname = \"\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("the rules' name is empty"), "{e}");
    // An empty name alone says no more than no name.
    for text in [
        "name = \"\"\n",
        "name = \" \"\n[options]\nmega_hit = false\n",
    ] {
        let e = Rules::from_toml_str(text).unwrap_err().to_string();
        assert!(e.contains("an empty `name` and no `preset`"), "{e}");
        assert!(e.contains("preset = \"attack-2010\""), "{e}");
    }
    // A named file without a preset must give every setting: the missing one
    // is named, with how a rules file starts.
    let e = Rules::from_toml_str("name = \"mine\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing field `deck`"), "{e}");
    assert!(
        e.contains("a rules file without `preset` gives every setting"),
        "{e}"
    );
    assert!(e.contains("uno-attack rules --rules attack-2010"), "{e}");
    // A preset's file keeps serde's message as it was (nothing is missing there).
    let full = Rules::preset("classic").unwrap().to_toml();
    assert!(Rules::from_toml_str(&full).is_ok());
    // Every setting, not only the top-level ones: an option, a kind's flag or
    // a launcher parameter left out of a named file used to take serde's
    // default and quietly play other rules (options.mega_hit = false here).
    let full = Rules::preset("attack-2010").unwrap().to_toml().replacen(
        "name = \"attack-2010\"",
        "name = \"mine\"",
        1,
    );
    assert!(Rules::from_toml_str(&full).is_ok());
    for (line, path) in [
        ("mega_hit = true", "options.mega_hit"),
        ("[options]", "options"),
        ("stackable = true", "kinds.hit1.stackable"),
        ("hazard = ", "launcher.hazard"),
    ] {
        let cut: String = if line == "[options]" {
            // The whole table.
            full.split("\n[options]\n").next().unwrap().to_string()
        } else {
            let mut cut = full
                .lines()
                .filter(|l| !l.starts_with(line))
                .collect::<Vec<_>>()
                .join("\n");
            cut.push('\n');
            cut
        };
        assert_ne!(cut, full, "{line}");
        let e = Rules::from_toml_str(&cut).unwrap_err().to_string();
        assert!(
            e.contains(&format!(": `{path}` is missing: a rules file")),
            "{line}: {e}"
        );
        assert!(e.contains("gives every setting"), "{e}");
    }
}

#[test]
fn misspelt_or_stray_fields_of_an_effect_or_a_launcher_are_refused() {
    // Serde drops keys beside an internal tag: these used to load as
    // another game, silently.
    for (text, want) in [
        (
            "preset = \"classic\"\n[kinds.draw2]\neffect = { type = \"hit\", n = 2, targetted = true }\n",
            "`kinds.draw2.effect`: unknown field `targetted` for an effect of type `hit`",
        ),
        (
            "preset = \"classic\"\n[kinds.skip]\neffect = { type = \"skip\", n = 5 }\n",
            "`kinds.skip.effect`: unknown field `n` for an effect of type `skip`",
        ),
        (
            "preset = \"attack-2010\"\n[launcher]\nmodel = \"draw-one\"\np = 0.5\n",
            "`launcher`: unknown field `p` for the launcher model `draw-one`",
        ),
    ] {
        let e = Rules::from_toml_str(text).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
    // An effect of another type replaces the preset's whole: a Draw Two
    // made a Skip keeps no `n` from the Hit it was.
    let r =
        Rules::from_toml_str("preset = \"classic\"\n[kinds.draw2]\neffect = { type = \"skip\" }\n")
            .unwrap();
    assert_eq!(r.kinds[&uno_env::Kind::Draw2].effect, uno_env::Effect::Skip);
    // The same type merges field by field, as before.
    let r = Rules::from_toml_str(
        "preset = \"classic\"\n[kinds.draw2]\neffect = { type = \"hit\", n = 3 }\n",
    )
    .unwrap();
    assert_eq!(
        r.kinds[&uno_env::Kind::Draw2].effect,
        uno_env::Effect::Hit {
            n: 3,
            targeted: false
        }
    );
}

#[test]
fn a_round_cut_short_during_the_start_cards_choice_is_a_valid_state() {
    // a wild start card's colour is the first decision; a cap of one
    // decision cuts the round there, and the start flag goes with it.
    let game = game_with("attack-2010", 4, |r| r.options.max_decisions = 1);
    let mut cut = 0;
    for seed in 0..200 {
        let mut s = game.new_state(seed);
        if !s.is_round_over() {
            let a = game.legal_actions(&s)[0];
            game.apply(&mut s, a).unwrap();
        }
        assert!(s.is_round_over() && s.is_truncated());
        assert_eq!(game.check_invariants(&s), Ok(()), "seed {seed}");
        cut += 1;
    }
    assert_eq!(cut, 200);
    // A live state past the cap (JSON) is refused rather than counted on.
    let game = Game::new(Rules::preset("classic").unwrap(), 2).unwrap();
    let j = set_field(&game.new_state(3).to_json(), "decisions", "4294967295");
    let e = game
        .check_invariants(&State::from_json(&j).unwrap())
        .unwrap_err();
    assert!(e.message().contains("cuts it short"), "{e}");
}

#[test]
fn seat_accessors_past_the_table_read_an_empty_seat_not_another_or_a_panic() {
    let g = Game::new(Rules::preset("classic").unwrap(), 4).unwrap();
    let s = g.new_state(1);
    // A plain shift by 16 wrapped to seat 0's flag in release builds.
    for seat in [4, 10, 15, 16, 17, 64, 200, usize::MAX] {
        assert!(!s.is_active(seat), "{seat}");
        assert!(!s.uno_called(seat), "{seat}");
        // Every per-seat accessor reads such a seat as empty; none panics
        // (seats 10 and up indexed past the per-seat tables).
        assert_eq!((s.hand(seat), s.hand_len(seat)), (0, 0), "{seat}");
        assert!(s.hand_faces(&g, seat).is_empty(), "{seat}");
        assert_eq!(s.pressed_on(seat), 0, "{seat}");
        assert_eq!(s.pressed_colours(seat).count(), 0, "{seat}");
        assert_eq!(s.named_colour(seat), None, "{seat}");
        assert_eq!(s.last_played_colour(seat), None, "{seat}");
        assert_eq!(s.taken_since_play(seat), 0, "{seat}");
    }
    assert!(s.is_active(0));
    assert_eq!(s.hand_len(0), 7);
    // A face past the face table is in no deck.
    assert!(!g.has_face(uno_env::Face(200)));
    assert!(!g.has_face(uno_env::Face(79)));
    assert!(g.has_face(uno_env::Face(0)));
}

/// The first round of `game`'s deal `seed`, played to its end with the first
/// legal action every time.
fn played_to_round_end(game: &Game, seed: u64) -> State {
    let mut s = game.new_state(seed);
    while !s.is_round_over() {
        let a = game.legal_actions(&s)[0];
        game.apply(&mut s, a).unwrap();
    }
    s
}

/// A finished round of `game` after which the match goes on.
fn round_over(game: &Game) -> State {
    (0..)
        .map(|seed| played_to_round_end(game, seed))
        .find(|s| s.phase() == Phase::RoundOver)
        .unwrap()
}

#[test]
fn states_with_too_few_seats_in_the_match_fail_the_check_and_are_not_dealt() {
    // Found by fuzzing: a round-over state with nobody in the match passed the
    // check; `next_round` then dealt to no one, and under Flash's random unit
    // (F-1) picked seat 128 to play, which panicked.
    let challenge = |preset: &str, n: usize| {
        game_with(preset, n, |r| {
            r.options.scoring = uno_env::rules::Scoring::Challenge;
        })
    };
    for (game, active, want) in [
        // C-7: only challenge scoring eliminates seats.
        (
            Game::new(Rules::preset("flash").unwrap(), 2).unwrap(),
            "0",
            "eliminated under a scoring mode without eliminations",
        ),
        (
            Game::new(Rules::preset("attack-2010").unwrap(), 4).unwrap(),
            "7",
            "eliminated under a scoring mode without eliminations",
        ),
        // C-7: under challenge scoring a match goes on while two seats are in it.
        (
            challenge("flash", 3),
            "0",
            "fewer than 2 seats in the match (0)",
        ),
        (
            challenge("classic", 4),
            "4",
            "fewer than 2 seats in the match (1)",
        ),
    ] {
        let s = round_over(&game);
        game.check_invariants(&s).unwrap();
        let bad = State::from_json(&set_field(&s.to_json(), "active", active)).unwrap();
        let e = game.check_invariants(&bad).unwrap_err();
        assert!(e.message().contains(want), "{e}");
        if bad.num_active() < 2 {
            let mut t = bad.clone();
            let e = game.next_round(&mut t).unwrap_err();
            assert!(matches!(e, ActionError::InvalidState(_)), "{e}");
            assert!(e.to_string().contains("no round to deal"), "{e}");
            assert_eq!(t, bad, "a refused deal changes nothing");
        }
    }
    // The seat to act must be a seat in every phase, a finished round's too.
    let game = Game::new(Rules::preset("classic").unwrap(), 4).unwrap();
    let s = round_over(&game);
    let bad = State::from_json(&set_field(&s.to_json(), "current", "7")).unwrap();
    let e = game.check_invariants(&bad).unwrap_err();
    assert!(e.message().contains("current seat 7 is not a seat"), "{e}");
}

/// `got` passes the check when `ok`; otherwise it fails with a message
/// containing `needle` (`what` names the case in a failure).
fn passes_or_names(got: Result<(), uno_env::InvariantError>, ok: bool, needle: &str, what: &str) {
    match got {
        Ok(()) => assert!(ok, "{what}: passed the check, expected `{needle}`"),
        Err(e) => {
            assert!(!ok, "{what}: {e}");
            assert!(e.message().contains(needle), "{what}: {e}");
        }
    }
}

#[test]
fn a_colour_or_target_decision_needs_a_card_that_asks_for_it() {
    // Found by fuzzing: a target decision for a Hit being stacked, with a top
    // card or options that do not stack it, passed the check; after the
    // target the pending hits were left in a normal turn. During a play's
    // stages the card being played is the top card; a colour is named for a
    // wild card, a target chosen for a Trade Hands or a targeted Hit.
    // Attack 1999's deck has every kind of card this needs.
    let game = Game::new(Rules::preset("attack-1999").unwrap(), 4).unwrap();
    let hands: &[&[&str]] = &[&["R1", "R2"], &["Y1", "Y2"], &["G1", "G2"], &["B1", "B2"]];
    // A position with this top card (a wild one on red).
    let at = |top: &str| Scenario {
        colour: face(top).is_wild().then_some(uno_env::Colour::Red),
        ..scenario(hands, top, 0)
    };
    for (phase, top, ok) in [
        ("choose-colour", "R3", false),
        ("choose-colour", "R-hit2", false),
        ("choose-colour", "wild", true),
        ("choose-target", "R3", false),
        ("choose-target", "R-hit2", false),
        ("choose-target", "R-trade-hands", true),
    ] {
        let s = build(&game, &at(top));
        let j = set_field(&s.to_json(), "phase", &format!("\"{phase}\""));
        let j = set_field(&j, "pending_face", &face(top).0.to_string());
        let got = game.check_invariants(&State::from_json(&j).unwrap());
        passes_or_names(got, ok, "does not ask for it", &format!("{phase} {top}"));
    }
    // The card being played is the top card.
    let s = build(&game, &at("wild"));
    let j = set_field(&s.to_json(), "phase", "\"choose-colour\"");
    let j = set_field(&j, "pending_face", &face("wild-all-hit").0.to_string());
    let e = game
        .check_invariants(&State::from_json(&j).unwrap())
        .unwrap_err();
    assert!(e.message().contains("is not the top card (wild)"), "{e}");
    // hits are stacked only with Mega Hit.
    for mega_hit in [true, false] {
        let g = game_with("attack-2010", 4, |r| r.options.mega_hit = mega_hit);
        let s = build(&g, &scenario(hands, "R-hit2", 0));
        let j = set_field(&s.to_json(), "phase", "\"stack\"");
        let j = set_field(&j, "stack", "2");
        let j = set_field(&j, "stack_origin", "3");
        let got = g.check_invariants(&State::from_json(&j).unwrap());
        passes_or_names(got, mega_hit, "2 pending hits without mega_hit", "");
    }
}

#[test]
fn a_chance_generator_at_the_end_of_its_counter_wraps() {
    // Found by fuzzing: a state whose generator position (read from JSON)
    // sits at the end of ChaCha's 64-bit counter overflowed at the next
    // refill — a panic in builds with overflow checks (`cargo test` without
    // `--release`, `maturin develop`). It wraps to block 0, as the counter does.
    let game = Game::new(Rules::preset("attack-1999").unwrap(), 2).unwrap();
    let j = game.new_state(5).to_json();
    let j = set_field(&j, "word_pos", &(u64::MAX - 15).to_string());
    let mut s = State::from_json(&set_field(&j, "idx", "16")).unwrap();
    game.check_invariants(&s).unwrap();
    for i in 0..200 {
        if s.is_round_over() {
            break;
        }
        let legal = game.legal_actions(&s);
        game.apply(&mut s, legal[i % legal.len()]).unwrap();
        game.check_invariants(&s).unwrap();
    }
    assert!(s.to_json().contains("\"word_pos\":"));
}

#[test]
fn a_trade_hands_being_played_from_an_empty_hand_fails_the_check() {
    // Found by fuzzing: a target decision for a Trade Hands whose player holds
    // no cards passed the check (C-5 lets a player who went out name a target),
    // and the trade then handed the empty hand on. A-9: a Trade Hands is never
    // the last card, so nobody goes out on one.
    let game = Game::new(Rules::preset("attack-1999").unwrap(), 4).unwrap();
    let hands: &[&[&str]] = &[&["R1"], &["Y1", "Y2"], &["G1", "G2"], &["B1", "B2"]];
    // A wild is a card one may go out on, naming the colour after.
    for (phase, top, ok) in [
        ("choose-target", "R-trade-hands", false),
        ("choose-colour", "wild", true),
    ] {
        let sc = Scenario {
            colour: face(top).is_wild().then_some(uno_env::Colour::Red),
            ..scenario(hands, top, 0)
        };
        let s = build(&game, &sc);
        // Seat 0's last card back into the launcher: it has gone out.
        let hand = s.hand(0);
        let mut hands = vec!["0".to_string(); 10];
        for (p, h) in hands.iter_mut().enumerate().skip(1).take(3) {
            *h = s.hand(p).to_string();
        }
        let j = set_field(&s.to_json(), "hands", &format!("[{}]", hands.join(",")));
        let j = set_field(&j, "pile", &(s.pile() | hand).to_string());
        let j = set_field(&j, "uno_called", "0");
        let j = set_field(&j, "phase", &format!("\"{phase}\""));
        let j = set_field(&j, "pending_face", &face(top).0.to_string());
        let got = game.check_invariants(&State::from_json(&j).unwrap());
        passes_or_names(got, ok, "holds no cards", top);
    }
}
