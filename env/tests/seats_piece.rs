//! The observation's `seats` and `history` pieces, row by row, against the
//! state's public getters: row k describes the seat k places to the
//! observer's left (C-1 seating), rows past the table are zero, and the
//! `next to play` flag marks the next active seat in the direction of play.

use uno_env::obs::{HISTORY_FEATURES, OBS_SIZE, SEAT_FEATURES, encode, piece_by_name};
use uno_env::{Colour, Game, MAX_PLAYERS, Rules, State};

fn next_active(s: &State, n: usize) -> usize {
    let cur = s.current_player().expect("a decision");
    let step = if s.direction() > 0 { 1 } else { n - 1 };
    let mut p = (cur + step) % n;
    while !s.is_active(p) {
        p = (p + step) % n;
    }
    p
}

fn one_hot(c: Option<Colour>) -> [f32; 4] {
    let mut v = [0.0; 4];
    if let Some(c) = c {
        v[c.index()] = 1.0;
    }
    v
}

fn check_rows(game: &Game, s: &State, observer: usize) {
    let n = game.num_players();
    let mut obs = vec![f32::NAN; OBS_SIZE];
    encode(game, s, observer, &mut obs).unwrap();
    let seats = piece_by_name("seats").unwrap();
    let history = piece_by_name("history").unwrap();
    let target = game.rules().options.target_score as f32;
    let next = (!game.random_unit()).then(|| next_active(s, n));
    for k in 0..MAX_PLAYERS {
        let row = &obs[seats.offset + k * SEAT_FEATURES..][..SEAT_FEATURES];
        let hist = &obs[history.offset + k * HISTORY_FEATURES..][..HISTORY_FEATURES];
        if k >= n {
            assert!(
                row.iter().chain(hist).all(|&v| v == 0.0),
                "padding row {k}: {row:?} {hist:?}"
            );
            continue;
        }
        let p = (observer + k) % n;
        let pressed = s.pressed_on(p);
        let want: Vec<f32> = [
            1.0,
            s.is_active(p) as u8 as f32,
            s.hand_len(p) as f32 / 10.0,
            s.scores()[p] as f32 / target,
            s.uno_called(p) as u8 as f32,
        ]
        .into_iter()
        .chain((0..4).map(|c| (pressed >> c & 1) as f32))
        .chain([(next == Some(p)) as u8 as f32])
        .collect();
        assert_eq!(
            row,
            &want[..],
            "seats row {k} (seat {p}) seen from {observer}"
        );
        let mut want_hist: Vec<f32> = one_hot(s.named_colour(p)).to_vec();
        want_hist.extend(one_hot(s.last_played_colour(p)));
        want_hist.push(s.taken_since_play(p) as f32 / 10.0);
        assert_eq!(
            hist,
            &want_hist[..],
            "history row {k} (seat {p}) seen from {observer}"
        );
    }
}

#[test]
fn c1_seats_and_history_rows_follow_relative_seating() {
    for preset in ["attack-1999", "attack-2010", "flash", "classic"] {
        for players in [2, 3, 4, 7, 10] {
            let game = Game::new(Rules::preset(preset).unwrap(), players).unwrap();
            let mut checked = 0;
            for seed in 0..3 {
                let mut s = game.new_state(seed);
                let mut pick = seed;
                while let Some(cur) = s.current_player() {
                    check_rows(&game, &s, cur);
                    check_rows(&game, &s, (cur + 1) % players);
                    checked += 1;
                    let legal = game.legal_actions(&s);
                    pick = pick
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    game.apply(&mut s, legal[(pick >> 33) as usize % legal.len()])
                        .unwrap();
                }
            }
            assert!(checked > 50, "{preset} {players}: only {checked} decisions");
        }
    }
}
