#![allow(clippy::needless_range_loop)] // tests index several parallel buffers by game
//! The vectorized core and observations: masks, hidden information,
//! auto-reset, thread-count determinism, illegal actions.

use uno_env::obs::{OBS_SIZE, ORACLE_SIZE, encode, encode_oracle};
use uno_env::vec_env::Picker;
use uno_env::{
    Buffers, EnvConfig, Episode, Game, NUM_ACTIONS, PRESETS, RewardMode, Rules, VecEnv, VecEnvError,
};

fn config(preset: &str, players: usize) -> EnvConfig {
    EnvConfig::new(Rules::preset(preset).unwrap(), players)
}

/// Picks a random legal action for each game from the mask buffer.
fn pick_all(buf: &Buffers, pickers: &mut [Picker], actions: &mut [u32]) {
    for (i, a) in actions.iter_mut().enumerate() {
        let row = &buf.mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS];
        let mut m = 0u128;
        for (j, &b) in row.iter().enumerate() {
            m |= (b as u128) << j;
        }
        *a = pickers[i].pick(m) as u32;
    }
}

#[test]
fn mask_matches_engine_on_every_step() {
    for preset in PRESETS {
        for players in [2, 4, 7] {
            let n = 16;
            let mut env = VecEnv::new(config(preset, players), n, 3, 1).unwrap();
            let mut buf = Buffers::with_legal_ids(n);
            env.reset(buf.batch()).unwrap();
            let mut pickers: Vec<Picker> = (0..n as u64).map(|i| Picker::new(9, i)).collect();
            let mut actions = vec![0u32; n];
            for _ in 0..400 {
                for i in 0..n {
                    let legal = env.game().legal_actions(env.state(i));
                    let row: Vec<usize> = (0..NUM_ACTIONS)
                        .filter(|&a| buf.mask[i * NUM_ACTIONS + a] == 1)
                        .collect();
                    assert_eq!(legal, row, "{preset} {players}");
                    let k = buf.legal_count[i] as usize;
                    let ids: Vec<usize> = buf.legal_ids[i * NUM_ACTIONS..i * NUM_ACTIONS + k]
                        .iter()
                        .map(|&a| a as usize)
                        .collect();
                    assert_eq!(legal, ids, "{preset} {players}: legal-id list");
                    assert_eq!(
                        env.legal_mask(i),
                        env.game().legal_mask(env.state(i)),
                        "{preset} {players}: the kept mask"
                    );
                    assert_eq!(buf.seat[i], env.state(i).current_player().unwrap() as i32);
                    let mut obs = vec![0.0; OBS_SIZE];
                    encode(env.game(), env.state(i), buf.seat[i] as usize, &mut obs).unwrap();
                    assert_eq!(&obs[..], &buf.obs[i * OBS_SIZE..(i + 1) * OBS_SIZE]);
                }
                pick_all(&buf, &mut pickers, &mut actions);
                env.step(&actions, buf.batch()).unwrap();
            }
        }
    }
}

#[test]
fn encoding_overwrites_every_value_of_a_reused_buffer() {
    // The encoder clears only its sparse pieces and writes the dense ones
    // whole, so a buffer holding garbage (here NaN, or a larger table's
    // observation) must end up equal to one written from zeros.
    use uno_env::rng::ChanceRng;
    let mut dirty = vec![f32::NAN; OBS_SIZE];
    let mut pick = ChanceRng::new(17, 0);
    for preset in PRESETS {
        for players in [10, 2, 7, 3] {
            let game = Game::new(Rules::preset(preset).unwrap(), players).unwrap();
            let mut s = game.new_state(players as u64);
            for _ in 0..300 {
                if s.is_round_over() {
                    s = game.new_state(pick.below(1000) as u64);
                }
                let seat = s.current_player().unwrap();
                let mut clean = vec![0.0; OBS_SIZE];
                encode(&game, &s, seat, &mut clean).unwrap();
                encode(&game, &s, seat, &mut dirty).unwrap();
                assert_eq!(
                    clean.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    dirty.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "{preset} {players}: a value of the reused buffer was left stale"
                );
                let legal = game.legal_actions(&s);
                let a = legal[pick.below(legal.len() as u32) as usize];
                game.apply(&mut s, a).unwrap();
            }
        }
    }
}

#[test]
fn observation_hides_other_hands_and_the_launcher() {
    // Two positions that differ only in hidden information (which card an
    // opponent holds vs which is in the launcher) encode identically for the
    // observer; the oracle encoding tells them apart.
    use uno_env::{Face, Scenario};
    let f = |n: &str| Face::parse(n).unwrap();
    for preset in PRESETS {
        let game = Game::new(Rules::preset(preset).unwrap(), 3).unwrap();
        let make = |swap: bool| {
            let (held, loaded) = if swap { ("B9", "G2") } else { ("G2", "B9") };
            game.scenario(&Scenario {
                hands: vec![
                    vec![f("R5"), f("Y7")],
                    vec![f("R1"), f(held)],
                    vec![f("Y3")],
                ],
                top: Some(f("R8")),
                launcher: Some(vec![f(loaded), f("Y1"), f("Y2")]),
                current: 0,
                seed: 4,
                ..Default::default()
            })
            .unwrap()
        };
        let (s, t) = (make(false), make(true));
        assert!(game.check_invariants(&s).is_ok() && game.check_invariants(&t).is_ok());
        assert_ne!(s, t);
        let (mut o1, mut o2) = (vec![0.0; OBS_SIZE], vec![0.0; OBS_SIZE]);
        encode(&game, &s, 0, &mut o1).unwrap();
        encode(&game, &t, 0, &mut o2).unwrap();
        assert_eq!(
            o1, o2,
            "{preset}: hidden information leaked into the observation"
        );
        let (mut f1, mut f2) = (vec![0.0; ORACLE_SIZE], vec![0.0; ORACLE_SIZE]);
        encode_oracle(&game, &s, 0, &mut f1).unwrap();
        encode_oracle(&game, &t, 0, &mut f2).unwrap();
        assert_ne!(
            f1, f2,
            "{preset}: the oracle encoding must show hidden cards"
        );
        // And the observer's own hand does change the observation.
        let mut o3 = vec![0.0; OBS_SIZE];
        encode(&game, &s, 1, &mut o3).unwrap();
        assert_ne!(o1, o3);
    }
}

#[test]
fn auto_reset_keeps_final_observation_and_rewards() {
    let n = 8;
    let mut env = VecEnv::new(config("classic", 2), n, 5, 1).unwrap();
    let mut buf = Buffers::new(n);
    env.reset(buf.batch()).unwrap();
    let mut finished = 0;
    for _ in 0..20_000 {
        let before: Vec<_> = (0..n).map(|i| env.state(i).clone()).collect();
        env.step_random(buf.batch(), true).unwrap();
        for i in 0..n {
            if buf.terminated[i] == 1 {
                finished += 1;
                let w = buf.winner[i];
                assert!(w == 0 || w == 1);
                let r = &buf.rewards[i * uno_env::MAX_PLAYERS..i * uno_env::MAX_PLAYERS + 2];
                assert_eq!(r[w as usize], 1.0);
                assert_eq!(r[1 - w as usize], -1.0);
                assert!(buf.episode_len[i] > 0);
                // The final observation is the terminal position seen by the last actor,
                // and the live observation is a fresh deal.
                let actor = before[i].current_player().unwrap();
                let fin = &buf.final_obs[i * OBS_SIZE..(i + 1) * OBS_SIZE];
                let hand: f32 = fin[..uno_env::NUM_FACES].iter().sum();
                assert_eq!(
                    actor as i32 == w,
                    hand == 0.0,
                    "winner's final hand is empty"
                );
                assert_eq!(env.state(i).decisions(), 0);
                let live: f32 = buf.obs[i * OBS_SIZE..i * OBS_SIZE + uno_env::NUM_FACES]
                    .iter()
                    .sum();
                assert!(live >= 7.0, "auto-reset deals a new hand");
            } else {
                assert!(
                    buf.rewards[i * uno_env::MAX_PLAYERS..(i + 1) * uno_env::MAX_PLAYERS]
                        .iter()
                        .all(|r| *r == 0.0)
                );
                // No end this step: no length, no winner (not the last end's, kept).
                assert_eq!((buf.episode_len[i], buf.winner[i]), (0, -1), "game {i}");
            }
        }
        if finished > 50 {
            break;
        }
    }
    assert!(finished > 50);
}

#[test]
fn one_and_two_threads_give_identical_trajectories() {
    for preset in ["attack-2010", "flash"] {
        // Under Miri (`cargo +nightly miri test -p uno-env --test vec_env
        // one_and`), which checks the team's hand-over of the games for
        // undefined behaviour, a few games and steps: the interpreter is slow.
        let (n, steps) = if cfg!(miri) { (7, 6) } else { (33, 300) };
        let run = |threads| {
            let mut env = VecEnv::new(config(preset, 4), n, 21, threads).unwrap();
            let mut buf = Buffers::with_legal_ids(n);
            env.reset(buf.batch()).unwrap();
            let mut pickers: Vec<Picker> = (0..n as u64).map(|i| Picker::new(1, i)).collect();
            let mut actions = vec![0u32; n];
            // Every buffer a step writes, compared whole: a part stepped from
            // its last game to its first, as on several threads, must leave
            // the same rows.
            let mut trace = Vec::new();
            for _ in 0..steps {
                pick_all(&buf, &mut pickers, &mut actions);
                env.step(&actions, buf.batch()).unwrap();
                trace.push(buf.clone());
            }
            for _ in 0..steps {
                env.step_random(buf.batch(), true).unwrap();
                trace.push(buf.clone());
            }
            trace
        };
        let one = run(1);
        assert!(one == run(2), "{preset}: 1 and 2 threads differ");
        assert!(one == run(3), "{preset}: 1 and 3 threads differ");
        // Nine threads: 33 games in parts of uneven size (3 or 4 games each;
        // under Miri, 7 games: more threads than games).
        assert!(one == run(9), "{preset}: 1 and 9 threads differ");
    }
}

/// A team keeps each thread's part from one step to the next and rewrites it
/// only when it changed: steps into other buffers (one of them allocated
/// after another was dropped, so likely at its address), with given or random
/// actions, with and without observations, and after the env itself moved,
/// must step exactly the games one thread steps.
#[test]
fn threads_follow_the_buffers_actions_and_env_of_every_step() {
    let (n, rounds) = if cfg!(miri) { (7, 2) } else { (1_100, 12) };
    let run = |threads| {
        let env = VecEnv::new(config("attack-2010", 4), n, 3, threads).unwrap();
        let mut env = Box::new(env);
        let mut a = Buffers::new(n);
        let mut b = Buffers::with_legal_ids(n);
        env.reset(a.batch()).unwrap();
        let mut trace = Vec::new();
        let given = |env: &VecEnv, k: usize| -> Vec<u32> {
            (0..n)
                .map(|i| {
                    let legal = env.game().legal_actions(env.state(i));
                    legal[(k * 7 + i) % legal.len()] as u32
                })
                .collect()
        };
        for k in 0..rounds {
            let actions = given(&env, k);
            env.step(&actions, a.batch()).unwrap();
            trace.push(a.clone());
            env.step_random(b.batch(), k % 2 == 0).unwrap();
            trace.push(b.clone());
            // A new set of buffers where `b` was, then `b` again.
            drop(b);
            let mut c = Buffers::with_legal_ids(n);
            env.step_random(c.batch(), true).unwrap();
            trace.push(c.clone());
            b = c;
            // The env moves (its parts' slots go with it), and back.
            let mut moved = vec![*env];
            let actions = given(&moved[0], k + 1);
            moved[0].step(&actions, b.batch()).unwrap();
            trace.push(b.clone());
            *env = moved.pop().unwrap();
        }
        (trace, env.states().to_vec())
    };
    let one = run(1);
    assert!(one == run(2), "1 and 2 threads differ");
    assert!(one == run(3), "1 and 3 threads differ");
}

/// `VecEnv::new` deals exactly what `reset` deals: a step before any reset
/// plays the same games as a step after one.
#[test]
fn stepping_before_reset_plays_the_reset_deals() {
    let n = 8;
    let run = |reset_first: bool| {
        let mut env = VecEnv::new(config("attack-2010", 4), n, 5, 1).unwrap();
        let mut buf = Buffers::new(n);
        if reset_first {
            env.reset(buf.batch()).unwrap();
        }
        let actions: Vec<u32> = (0..n)
            .map(|i| *env.game().legal_actions(env.state(i)).last().unwrap() as u32)
            .collect();
        env.step(&actions, buf.batch()).unwrap();
        let mut trace = vec![(buf.obs.clone(), buf.mask.clone(), buf.rewards.clone())];
        for _ in 0..50 {
            env.step_random(buf.batch(), true).unwrap();
            trace.push((buf.obs.clone(), buf.mask.clone(), buf.rewards.clone()));
        }
        (actions, trace, env.states().to_vec())
    };
    assert!(run(true) == run(false));
}

#[test]
fn illegal_action_in_a_batch_changes_nothing() {
    let n = 4;
    let mut env = VecEnv::new(config("attack-2010", 3), n, 2, 1).unwrap();
    let mut buf = Buffers::new(n);
    env.reset(buf.batch()).unwrap();
    let before: Vec<_> = env.states().to_vec();
    let mut actions: Vec<u32> = (0..n)
        .map(|i| env.game().legal_actions(env.state(i))[0] as u32)
        .collect();
    actions[2] = 94; // challenge: never legal in a Play phase
    let err = env.step(&actions, buf.batch()).unwrap_err().to_string();
    assert!(err.contains("game 2"), "{err}");
    assert_eq!(env.states(), &before[..]);
    let err = env.step(&[0, 1], buf.batch()).unwrap_err();
    assert_eq!(err, VecEnvError::ActionCount { given: 2, games: 4 });
    assert!(err.to_string().contains("2 actions for 4 games"), "{err}");
    assert_eq!(env.states(), &before[..]);
    // The optional legal-id buffers come as a pair of the right sizes.
    let mut half = Buffers::with_legal_ids(n);
    half.legal_count.clear();
    let err = env.step(&actions, half.batch()).unwrap_err().to_string();
    assert!(err.contains("legal_ids") && err.contains("both"), "{err}");
    let mut short = Buffers::with_legal_ids(n);
    short.legal_ids.pop();
    let err = env.step(&actions, short.batch()).unwrap_err().to_string();
    assert!(err.contains("buffer `legal_ids`"), "{err}");
    assert_eq!(env.states(), &before[..]);
    assert!(VecEnv::new(config("classic", 11), 1, 0, 1).is_err());
}

#[test]
fn match_episodes_and_points_rewards_are_zero_sum() {
    let mut cfg = config("attack-2010", 3);
    cfg.episode = Episode::Match;
    cfg.reward = RewardMode::Points;
    cfg.rules.options.target_score = 400;
    let n = 4;
    let mut env = VecEnv::new(cfg, n, 8, 1).unwrap();
    let mut buf = Buffers::new(n);
    env.reset(buf.batch()).unwrap();
    let mut rounds = 0;
    let mut matches = 0;
    for _ in 0..400_000 {
        env.step_random(buf.batch(), false).unwrap();
        for i in 0..n {
            let r = &buf.rewards[i * uno_env::MAX_PLAYERS..(i + 1) * uno_env::MAX_PLAYERS];
            if r.iter().any(|x| *x != 0.0) {
                rounds += 1;
                assert!(
                    r.iter().sum::<f32>().abs() < 1e-3,
                    "points rewards are zero-sum: {r:?}"
                );
            }
            matches += buf.terminated[i] as usize;
        }
        if matches >= 3 {
            break;
        }
    }
    assert!(
        matches >= 3 && rounds > matches,
        "rounds {rounds} matches {matches}"
    );
}

#[test]
fn vec_env_sizes_out_of_range_are_errors_not_aborts() {
    // A typo such as num_envs = 10**9 would ask for hundreds of GB: refused
    // before anything is allocated, with the limit in the message.
    let e = VecEnv::new(config("classic", 2), uno_env::MAX_ENVS + 1, 0, 1)
        .expect_err("too many games")
        .to_string();
    assert!(
        e.contains("num_envs") && e.contains(&uno_env::MAX_ENVS.to_string()),
        "{e}"
    );
    assert!(!e.contains("rules"), "not a rules problem: {e}");
    let e = VecEnv::new(config("classic", 2), 0, 0, 1)
        .expect_err("no games")
        .to_string();
    assert!(e.contains("num_envs"), "{e}");
    let e = VecEnv::new(config("classic", 2), 4, 0, uno_env::MAX_THREADS + 1)
        .expect_err("too many threads")
        .to_string();
    assert!(e.contains("threads"), "{e}");
    // More threads than games: one per game at most (the results do not
    // depend on the thread count, so nothing else changes).
    let env = VecEnv::new(config("classic", 2), 3, 0, 8).unwrap();
    assert_eq!(env.threads(), 3);
    let env = VecEnv::new(config("classic", 2), 3, 0, 0).unwrap();
    assert_eq!(env.threads(), 1);
}

#[test]
fn match_episodes_count_every_round_and_end_truncated_at_the_cap() {
    // C-7 match episodes: `episode_len` is the whole match's decisions (every
    // step of every round), and a round cut at `max_decisions` ends the
    // episode as truncated instead of rolling silently into the next round.
    for (cap, want_truncated) in [(10_000u32, false), (40, true)] {
        let mut cfg = config("classic", 2);
        cfg.episode = Episode::Match;
        cfg.rules.options.max_decisions = cap;
        let n = 4;
        let mut env = VecEnv::new(cfg, n, 3, 1).unwrap();
        let mut buf = Buffers::new(n);
        env.reset(buf.batch()).unwrap();
        let mut steps = vec![0u32; n];
        let (mut ended, mut truncated, mut multi_round) = (0, 0, 0);
        for _ in 0..200_000 {
            let rounds_before: Vec<usize> = env.states().iter().map(|s| s.round()).collect();
            env.step_random(buf.batch(), false).unwrap();
            for i in 0..n {
                steps[i] += 1;
                if buf.terminated[i] == 1 || buf.truncated[i] == 1 {
                    assert_eq!(buf.episode_len[i], steps[i], "game {i}");
                    multi_round += (rounds_before[i] > 1) as usize;
                    truncated += buf.truncated[i] as usize;
                    ended += 1;
                    steps[i] = 0;
                }
            }
            if ended >= 12 {
                break;
            }
        }
        assert!(ended >= 12, "cap {cap}: {ended} episodes");
        // The running count the benchmark reads counts matches, truncated or not.
        assert_eq!(env.episodes_finished(), ended as u64, "cap {cap}");
        if want_truncated {
            assert_eq!(truncated, ended, "every episode stalls at a cap of {cap}");
        } else {
            assert_eq!(truncated, 0);
            assert!(multi_round > 0, "some matches last several rounds");
        }
    }
}

#[test]
fn episodes_finished_counts_every_done_flag_and_restarts_at_reset() {
    // `uno-attack bench` counts episodes with `episodes_finished` instead of
    // reading every batch's done flags: the two must agree, on any thread count.
    for threads in [1, 2] {
        let n = 33;
        let mut cfg = config("attack-2010", 3);
        cfg.rules.options.max_decisions = 60; // some episodes end truncated
        let mut env = VecEnv::new(cfg, n, 11, threads).unwrap();
        let mut buf = Buffers::new(n);
        env.reset(buf.batch()).unwrap();
        assert_eq!(env.episodes_finished(), 0);
        let (mut flags, mut truncated) = (0u64, 0u64);
        for _ in 0..400 {
            env.step_random(buf.batch(), true).unwrap();
            for i in 0..n {
                assert!(buf.terminated[i] + buf.truncated[i] <= 1);
                flags += (buf.terminated[i] + buf.truncated[i]) as u64;
                truncated += buf.truncated[i] as u64;
            }
        }
        assert!(flags > 2 * n as u64 && truncated > 0, "{flags} {truncated}");
        assert_eq!(env.episodes_finished(), flags, "{threads} threads");
        env.reset(buf.batch()).unwrap();
        assert_eq!(env.episodes_finished(), 0);
    }
}
