//! The observation's front pieces (`hand`, `top_card`, `active_colour`,
//! `phase`, `pending`) and its `played` piece against the state's public
//! getters, for every seat of every preset at 2, 4 and 10 players. The hand
//! encoder counts a fixed number of cards of each half of the card set
//! without a branch and adds the count of a missing card to a value that a
//! later piece writes over (`pending`, the observer's `seats` row); this
//! proves none is left behind and every face is counted, with hands of one
//! card to dozens.

use uno_env::obs::{OBS_SIZE, encode, piece_by_name};
use uno_env::rng::ChanceRng;
use uno_env::{Game, NUM_FACES, PRESETS, Phase, Rules, State};

fn piece<'a>(obs: &'a [f32], name: &str) -> &'a [f32] {
    let p = piece_by_name(name).unwrap();
    &obs[p.offset..p.offset + p.size()]
}

fn check(game: &Game, s: &State, seat: usize, what: &str) {
    let mut obs = vec![f32::NAN; OBS_SIZE];
    encode(game, s, seat, &mut obs).unwrap();

    let mut hand = [0.0f32; NUM_FACES];
    for f in s.hand_faces(game, seat) {
        hand[f.index()] += 1.0;
    }
    assert_eq!(
        piece(&obs, "hand"),
        &hand[..],
        "{what}: hand of seat {seat}"
    );

    let mut top = [0.0f32; NUM_FACES];
    top[s.top_face(game).index()] = 1.0;
    assert_eq!(piece(&obs, "top_card"), &top[..], "{what}: top card");

    let mut colour = [0.0f32; 4];
    if let Some(c) = s.active_colour() {
        colour[c.index()] = 1.0;
    }
    assert_eq!(piece(&obs, "active_colour"), &colour[..], "{what}: colour");

    let mut phase = [0.0f32; 8];
    if let Some(i) = Phase::ALL[..8].iter().position(|&p| p == s.phase()) {
        phase[i] = 1.0;
    }
    assert_eq!(piece(&obs, "phase"), &phase[..], "{what}: phase");

    let pending = [s.pending_hits() as f32 / 10.0, s.direction() as f32];
    assert_eq!(piece(&obs, "pending"), &pending[..], "{what}: pending");

    let played: Vec<f32> = s.played_counts().iter().map(|&c| c as f32).collect();
    assert_eq!(piece(&obs, "played"), &played[..], "{what}: played");
}

#[test]
fn front_pieces_match_the_getters_for_every_seat() {
    let mut pick = ChanceRng::new(45, 0);
    let mut largest = 0;
    for preset in PRESETS {
        for players in [2, 4, 10] {
            let game = Game::new(Rules::preset(preset).unwrap(), players).unwrap();
            let mut s = game.new_state(players as u64 + 7);
            for step in 0..400 {
                if s.is_round_over() {
                    s = game.new_state(pick.below(1000) as u64);
                }
                let what = format!("{preset}, {players} players, step {step}");
                for seat in 0..players {
                    largest = largest.max(s.hand_len(seat));
                    check(&game, &s, seat, &what);
                }
                let legal = game.legal_actions(&s);
                let a = legal[pick.below(legal.len() as u32) as usize];
                game.apply(&mut s, a).unwrap();
            }
        }
    }
    // Hands past the fixed part of both halves were seen (16 cards and more).
    assert!(largest > 20, "the largest hand had {largest} cards");
}
