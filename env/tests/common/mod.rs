//! Helpers shared by the clause-by-clause rules tests (`rules_*.rs`).
#![allow(dead_code)]

use uno_env::rules::LauncherModel;
use uno_env::{Action, Event, EventLog, Face, Game, Phase, Rules, Scenario, State};

/// A face by name (`R5`, `G-hit1`, `wild-attack-attack`); panics on a typo.
pub fn face(name: &str) -> Face {
    Face::parse(name).unwrap_or_else(|| panic!("unknown face `{name}`"))
}

/// Faces by name.
pub fn faces(names: &[&str]) -> Vec<Face> {
    names.iter().map(|n| face(n)).collect()
}

/// An action id by name (`play:R5`, `draw`, `colour:red`, `target:+2`, …).
pub fn id(name: &str) -> usize {
    Action::parse(name)
        .unwrap_or_else(|| panic!("unknown action `{name}`"))
        .id()
}

/// A preset's rules, changed by `edit`.
pub fn rules(preset: &str, edit: impl FnOnce(&mut Rules)) -> Rules {
    let mut r = Rules::preset(preset).unwrap();
    edit(&mut r);
    r
}

/// A game of `preset` for `players`, its rules changed by `edit`.
pub fn game_with(preset: &str, players: usize, edit: impl FnOnce(&mut Rules)) -> Game {
    Game::new(rules(preset, edit), players).unwrap()
}

/// A game of `preset` for `players` whose launcher fires the scripted outcomes
/// (cycled). Ignored by draw-pile presets.
pub fn scripted(preset: &str, players: usize, outcomes: &[u8]) -> Game {
    game_with(preset, players, |r| {
        r.launcher = LauncherModel::Scripted {
            outcomes: outcomes.to_vec(),
        }
    })
}

/// A scenario with these hands and top card, `current` to play; everything
/// else default (the rest of the deck in the launcher / draw pile).
pub fn scenario(hands: &[&[&str]], top: &str, current: usize) -> Scenario {
    Scenario {
        hands: hands.iter().map(|h| faces(h)).collect(),
        top: Some(face(top)),
        current,
        ..Default::default()
    }
}

/// Builds the scenario's position and checks it.
pub fn build(game: &Game, sc: &Scenario) -> State {
    let s = game
        .scenario(sc)
        .unwrap_or_else(|e| panic!("scenario: {e}"));
    game.check_invariants(&s).unwrap();
    s
}

/// Applies the named actions in turn (panicking on a refusal), checking the
/// invariants after each; returns the events.
pub fn run(game: &Game, s: &mut State, actions: &[&str]) -> Vec<Event> {
    let mut log = EventLog::default();
    for a in actions {
        let who = s.current_player();
        game.apply_with(s, id(a), &mut log)
            .unwrap_or_else(|e| panic!("`{a}` by seat {who:?} refused: {e}"));
        game.check_invariants(s)
            .unwrap_or_else(|e| panic!("invariant after `{a}`: {e}"));
    }
    log.0
}

/// A seat's hand as face names, in face-index order.
pub fn hand(game: &Game, s: &State, seat: usize) -> Vec<String> {
    s.hand_faces(game, seat).iter().map(|f| f.name()).collect()
}

/// The seat to play in phase `phase`.
#[track_caller]
pub fn expect_turn(s: &State, seat: usize, phase: Phase) {
    assert_eq!(
        (s.current_player(), s.phase()),
        (Some(seat), phase),
        "expected seat {seat} in {phase:?}"
    );
}

/// The `pressed` events of `seat`, as cards fired per press.
pub fn presses(events: &[Event], seat: usize) -> Vec<usize> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Pressed { seat: s, fired } if *s == seat => Some(*fired),
            _ => None,
        })
        .collect()
}

/// Loops seeds until `new_state` turns a start card of `start`; returns the
/// state (the start card is `s.top_face`). Panics after many tries.
pub fn deal_with_start(game: &Game, start: &str) -> State {
    let want = face(start).kind();
    for seed in 0..20_000u64 {
        let s = game.new_state(seed);
        if s.top_face(game).kind() == want {
            return s;
        }
    }
    panic!("no seed turns a `{start}` start card");
}

/// Every physical card of the deck, by face (a face appears once per copy).
pub fn deck_faces(game: &Game) -> Vec<Face> {
    Face::all()
        .flat_map(|f| std::iter::repeat_n(f, game.cards_of_face(f).count_ones() as usize))
        .collect()
}

/// `all` minus one copy of each face in `minus`.
pub fn without(mut all: Vec<Face>, minus: &[Face]) -> Vec<Face> {
    for m in minus {
        let i = all
            .iter()
            .position(|f| f == m)
            .unwrap_or_else(|| panic!("no {m} left to remove"));
        all.remove(i);
    }
    all
}
