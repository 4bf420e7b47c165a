"""The Gymnasium vector env (``make_vec("UnoAttack-v0")``): a VectorEnv over VecEnv(opponents=...)."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import uno_attack as ua  # noqa: E402
from uno_attack.gym import UnoAttackVectorEnv  # noqa: E402


def legal_random(rng, mask):
    return np.argmax(rng.random(mask.shape) * (mask > 0), axis=1)


def test_make_vec_builds_the_rust_vector_env():
    env = gymnasium.make_vec("UnoAttack-v0", num_envs=8, rules="classic", players=3, opponents="heuristic")
    assert isinstance(env.unwrapped, UnoAttackVectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (ua.OBS_SIZE,)
    assert env.action_space.shape == (8,)
    obs, info = env.reset(seed=3)
    assert obs.shape == (8, ua.OBS_SIZE) and obs.dtype == np.float32
    assert info["action_mask"].shape == (8, 98) and info["action_mask"].dtype == np.int8
    assert (info["seat"] == 0).all()
    assert env.observation_space.contains(obs)
    # The per-env Python env is still there for the other modes.
    sync = gymnasium.make_vec("UnoAttack-v0", num_envs=2, vectorization_mode="sync", rules="classic", players=2)
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    sync.close()
    env.close()
    # A closed env is closed, as Gymnasium's own vector envs are.
    with pytest.raises(gymnasium.error.ClosedEnvironmentError, match="closed"):
        env.step(np.zeros(8, dtype=np.int64))
    with pytest.raises(gymnasium.error.ClosedEnvironmentError, match="closed"):
        env.reset()


def test_steps_match_the_rust_env_and_final_obs_is_kept():
    n, seed = 16, 5
    env = UnoAttackVectorEnv(n, rules="attack-2010", players=4, opponents="heuristic", seat="rotate", threads=2)
    raw = ua.VecEnv("attack-2010", 4, num_envs=n, seed=seed, opponents="heuristic")
    obs, info = env.reset(seed=seed)
    r_obs, r_mask, r_seat = raw.reset()
    np.testing.assert_array_equal(obs, r_obs)
    np.testing.assert_array_equal(info["seat"], np.arange(n) % 4)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(300):
        acts = legal_random(rng, info["action_mask"])
        obs, reward, term, trunc, info = env.step(acts)
        r_obs, r_mask, r_seat, r_reward, r_term, r_trunc = raw.step(acts)
        np.testing.assert_array_equal(obs, r_obs)
        np.testing.assert_array_equal(info["action_mask"], r_mask)
        np.testing.assert_array_equal(reward, r_reward)
        assert term.dtype == bool and trunc.dtype == bool
        np.testing.assert_array_equal(term, r_term == 1)
        done = term | trunc
        if done.any():
            np.testing.assert_array_equal(info["_final_obs"], done)
            for i in range(n):
                if done[i]:
                    finals += 1
                    np.testing.assert_array_equal(info["final_obs"][i], raw.final_obs[i])
                else:
                    assert info["final_obs"][i] is None
        else:
            assert "final_obs" not in info
    assert finals > 10
    # Returned arrays are copies: stepping again does not change them.
    kept = obs.copy()
    env.step(legal_random(rng, info["action_mask"]))
    np.testing.assert_array_equal(obs, kept)


def test_reset_seeds():
    env = UnoAttackVectorEnv(4, rules="classic", players=2, opponents="random")
    a, _ = env.reset(seed=1)
    b, _ = env.reset(seed=1)
    c, _ = env.reset()
    d, _ = env.reset()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(c, d)


def test_bad_arguments_and_illegal_actions():
    with pytest.raises(ValueError, match="seat must be"):
        UnoAttackVectorEnv(2, rules="classic", players=2, seat="random")
    with pytest.raises(ValueError, match="illegal_action"):
        UnoAttackVectorEnv(2, rules="classic", players=2, illegal_action="lose")
    with pytest.raises(ValueError, match="render"):
        UnoAttackVectorEnv(2, rules="classic", players=2, render_mode="ansi")
    with pytest.raises(ValueError, match="seat must be a seat of the table, 0 to 1, not"):
        UnoAttackVectorEnv(2, rules="classic", players=2, seat=2)
    with pytest.raises(ValueError, match="unknown agent"):
        UnoAttackVectorEnv(2, rules="classic", players=2, opponents="nobody")
    env = UnoAttackVectorEnv(3, rules="classic", players=2, opponents="heuristic")
    obs, info = env.reset(seed=0)
    acts = legal_random(np.random.default_rng(0), info["action_mask"])
    acts[1] = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    with pytest.raises(ValueError, match="game 1"):
        env.step(acts)
    with pytest.raises(TypeError):
        env.step(acts.astype(float))


def test_final_info_names_each_ended_episode_as_gymnasium_same_step_mode_does():
    env = UnoAttackVectorEnv(num_envs=8, rules="classic", players=3, opponents="heuristic", seat="rotate")
    rng = np.random.default_rng(5)
    obs, info = env.reset(seed=7)
    seats, ended = info["seat"].copy(), 0
    while ended < 20:
        obs, reward, term, trunc, info = env.step(legal_random(rng, info["action_mask"]))
        done = term | trunc
        if not done.any():
            assert "final_info" not in info
            continue
        assert (info["_final_info"] == done).all()
        assert (info["_final_obs"] == done).all()
        # Gymnasium's layout: a dict of arrays with `_key` masks.
        fi = info["final_info"]
        for key in ("seat", "winner", "episode_len"):
            assert fi[key].shape == (8,) and (fi["_" + key] == done).all()
        for i in range(8):
            if not done[i]:
                assert info["final_obs"][i] is None
                continue
            ended += 1
            assert info["final_obs"][i].shape == obs[i].shape
            # The finished episode's learner seat (rotation seats the next one elsewhere).
            assert fi["seat"][i] == seats[i] and info["seat"][i] == (seats[i] + 1) % 3
            assert fi["episode_len"][i] > 0
            won = fi["winner"][i] == fi["seat"][i]
            assert reward[i] == (1.0 if won else -0.5 if fi["winner"][i] >= 0 else 0.0)
        seats = info["seat"].copy()


def test_per_game_seeds_and_partial_resets_are_refused_not_ignored():
    env = UnoAttackVectorEnv(num_envs=4, rules="classic", players=2)
    with pytest.raises(ValueError, match="seed must be one int"):
        env.reset(seed=[1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"reset options \['reset_mask'\] are not supported"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    a, _ = env.reset(seed=np.int64(3))
    b, _ = env.reset(seed=3)
    assert (a == b).all()


def test_final_info_has_the_layout_of_gymnasiums_own_vector_envs():
    # Structured as `SyncVectorEnv` builds it in same-step mode (`_add_info`),
    # so code written for one runs on the other.
    from gymnasium.vector import AutoresetMode

    def first_end(env):
        rng = np.random.default_rng(1)
        obs, info = env.reset(seed=3)
        for _ in range(2000):
            obs, reward, term, trunc, info = env.step(legal_random(rng, info["action_mask"]))
            if (term | trunc).any():
                return term | trunc, info
        raise AssertionError("no episode ended")

    ours = UnoAttackVectorEnv(num_envs=4, rules="classic", players=2, opponents="heuristic")
    sync = gymnasium.make_vec("UnoAttack-v0", num_envs=4, vectorization_mode="sync",
                              vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
                              rules="classic", players=2, opponents="heuristic")
    for env in (ours, sync):
        done, info = first_end(env)
        fi = info["final_info"]
        assert isinstance(fi, dict), type(fi)
        assert info["_final_info"].dtype == np.bool_ and (info["_final_info"] == done).all()
        assert info["final_obs"].dtype == object and (info["_final_obs"] == done).all()
        assert fi["seat"].shape == (4,) and (fi["_seat"] == done).all()
        for i in np.flatnonzero(done):
            assert info["final_obs"][i].shape == (ua.OBS_SIZE,)


@pytest.mark.parametrize("seed, error", [(2**64, OverflowError), (-1, OverflowError), (True, ValueError)])
def test_a_refused_seed_leaves_the_generator_as_it_was(seed, error):
    # Gymnasium reseeded `np_random` before the Rust env refused the seed, so
    # the next unseeded reset dealt other games than without the failed call.
    env = UnoAttackVectorEnv(num_envs=2, rules="classic", players=2)
    twin = UnoAttackVectorEnv(num_envs=2, rules="classic", players=2)
    env.reset(seed=1)
    twin.reset(seed=1)
    with pytest.raises(error):
        env.reset(seed=seed)
    assert np.array_equal(env.reset()[0], twin.reset()[0])
