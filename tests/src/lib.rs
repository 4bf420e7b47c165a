//! `uno-e2e`: cross-crate end-to-end checks.
//!
//! [`fixture`] builds the trajectory file `python/tests/data/trajectory.json`
//! that both the Rust test (`tests/python_fixture.rs`) and the Python test
//! (`python/tests/test_fixture.py`) replay, so the engine seen from Python and
//! from Rust provably agree: same seed and actions, same states (CRC-32 of the
//! state JSON), same observations (CRC-32 of the little-endian `f32` bytes),
//! and the same vectorized batches (CRC-32 of every buffer after every step).

#![warn(missing_docs)]

use serde_json::{Value, json};
use uno_env::obs::encode;
use uno_env::vec_env::Picker;
use uno_env::{Buffers, EnvConfig, Episode, Game, OBS_SIZE, RewardMode, Rules, State, VecEnv};

/// CRC-32 (IEEE, as Python's `zlib.crc32`) of `data`, continuing from `crc`.
pub fn crc32(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Little-endian bytes of a slice of plain numbers.
pub fn le_bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|x| f(*x)).collect()
}

/// CRC-32 of the observation of the seat to act (seat 0 once the round is over).
pub fn obs_crc(game: &Game, s: &State) -> u32 {
    let mut obs = vec![0f32; OBS_SIZE];
    encode(game, s, s.current_player().unwrap_or(0), &mut obs).unwrap();
    crc32(0, &le_bytes(&obs, f32::to_le_bytes))
}

/// One single-game trajectory: random legal actions from a seeded picker, a
/// new round (action -1) after each round until the match ends or `max_steps`.
pub fn trajectory(rules: &str, players: usize, seed: u64, max_steps: usize) -> Value {
    let game = Game::new(Rules::preset(rules).expect("preset"), players).expect("game");
    let mut s = game.new_state(seed);
    let mut picker = Picker::new(seed, 0);
    let mut steps = Vec::new();
    for _ in 0..max_steps {
        let action: i64 = if s.is_match_over() {
            break;
        } else if s.is_round_over() {
            game.next_round(&mut s).expect("next round");
            -1
        } else {
            let a = picker.pick(game.legal_mask(&s));
            game.apply(&mut s, a).expect("legal");
            a as i64
        };
        steps.push(json!({
            "action": action,
            "state": crc32(0, s.to_json().as_bytes()),
            "obs": obs_crc(&game, &s),
        }));
    }
    let s0 = game.new_state(seed);
    json!({
        "rules": rules,
        "players": players,
        "seed": seed,
        "initial": {"state": crc32(0, s0.to_json().as_bytes()), "obs": obs_crc(&game, &s0)},
        "steps": steps,
        "final_state": s.to_json(),
    })
}

/// CRC-32 of every buffer of a batch, in the documented order.
pub fn buffers_crc(b: &Buffers) -> u32 {
    let mut c = crc32(0, &le_bytes(&b.obs, f32::to_le_bytes));
    c = crc32(c, &b.mask);
    c = crc32(c, &le_bytes(&b.seat, i32::to_le_bytes));
    c = crc32(c, &le_bytes(&b.reward, f32::to_le_bytes));
    c = crc32(c, &le_bytes(&b.rewards, f32::to_le_bytes));
    c = crc32(c, &b.terminated);
    c = crc32(c, &b.truncated);
    c = crc32(c, &le_bytes(&b.final_obs, f32::to_le_bytes));
    c = crc32(c, &le_bytes(&b.episode_len, u32::to_le_bytes));
    crc32(c, &le_bytes(&b.winner, i32::to_le_bytes))
}

/// A vectorized run: reset, then `steps` calls of `step_random` (with observations).
#[allow(clippy::too_many_arguments)]
pub fn vec_run(
    rules: &str,
    players: usize,
    num_envs: usize,
    seed: u64,
    episode: &str,
    reward: &str,
    steps: usize,
    threads: usize,
) -> Value {
    let config = EnvConfig {
        rules: Rules::preset(rules).expect("preset"),
        players,
        episode: if episode == "match" {
            Episode::Match
        } else {
            Episode::Round
        },
        reward: if reward == "points" {
            RewardMode::Points
        } else {
            RewardMode::Win
        },
    };
    let mut env = VecEnv::new(config, num_envs, seed, threads).expect("env");
    let mut b = Buffers::new(num_envs);
    env.reset(b.batch()).expect("reset");
    let mut crcs = vec![buffers_crc(&b)];
    let mut finished = 0u64;
    for _ in 0..steps {
        env.step_random(b.batch(), true).expect("step");
        finished += b
            .terminated
            .iter()
            .chain(b.truncated.iter())
            .map(|&x| x as u64)
            .sum::<u64>();
        crcs.push(buffers_crc(&b));
    }
    json!({
        "rules": rules,
        "players": players,
        "num_envs": num_envs,
        "seed": seed,
        "episode": episode,
        "reward": reward,
        "steps": steps,
        "finished": finished,
        "crc": crcs,
    })
}

/// The whole fixture file's content.
pub fn fixture() -> Value {
    json!({
        "about": "Written by the uno-e2e crate (UPDATE_FIXTURE=1 cargo test -p uno-e2e); \
                  replayed by tests/python_fixture.rs and python/tests/test_fixture.py. \
                  crc = CRC-32 (zlib) of the state JSON / the observation's little-endian f32 bytes \
                  (seat to act, seat 0 once the round is over) / every VecEnv buffer after each step; \
                  action -1 = next_round.",
        "obs_version": uno_env::OBS_VERSION,
        "trajectories": [
            trajectory("attack-2010", 4, 42, 400),
            trajectory("attack-modern", 3, 7, 250),
            trajectory("flash", 5, 3, 250),
            trajectory("classic", 2, 11, 250),
        ],
        "vec": [
            // Long enough for games to end and reset automatically (final_obs, winner, ...).
            vec_run("attack-2010", 4, 16, 5, "round", "win", 500, 1),
            vec_run("attack-1999", 3, 8, 9, "match", "points", 500, 1),
        ],
    })
}
