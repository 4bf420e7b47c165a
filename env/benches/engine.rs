//! Criterion benchmarks of the hot paths: one engine step, the legal-action
//! mask, and observation encoding (`cargo bench -p uno-env`).

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use uno_env::obs::{OBS_SIZE, encode, write_mask};
use uno_env::vec_env::Picker;
use uno_env::{Game, NUM_ACTIONS, Rules, State};

/// A pool of mid-game positions from random play.
fn positions(game: &Game, n: usize) -> Vec<State> {
    let mut out = Vec::with_capacity(n);
    let mut pick = Picker::new(1, 0);
    let mut seed = 0;
    while out.len() < n {
        let mut s = game.new_state(seed);
        seed += 1;
        while !s.is_round_over() && out.len() < n {
            out.push(s.clone());
            let a = pick.pick(game.legal_mask(&s));
            game.apply(&mut s, a).unwrap();
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    for (preset, players) in [("attack-2010", 4), ("classic", 2)] {
        let game = Game::new(Rules::preset(preset).unwrap(), players).unwrap();
        let states = positions(&game, 4096);
        let mut pick = Picker::new(2, 0);
        c.bench_function(&format!("{preset}/{players}p/step"), |b| {
            let mut s = game.new_state(9);
            b.iter(|| {
                if s.is_round_over() {
                    s = game.new_state(pick.next_u64());
                }
                let a = pick.pick(game.legal_mask(&s));
                game.apply(&mut s, a).unwrap();
            })
        });
        c.bench_function(&format!("{preset}/{players}p/legal_mask"), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 4095;
                black_box(game.legal_mask(black_box(&states[i])))
            })
        });
        c.bench_function(&format!("{preset}/{players}p/encode_obs_and_mask"), |b| {
            let mut obs = vec![0.0f32; OBS_SIZE];
            let mut mask = vec![0u8; NUM_ACTIONS];
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 4095;
                let s = &states[i];
                encode(&game, s, s.current_player().unwrap(), &mut obs).unwrap();
                write_mask(game.legal_mask(s), &mut mask).unwrap();
                black_box((&obs, &mask));
            })
        });
    }
}

criterion_group!(engine, benches);
criterion_main!(engine);
