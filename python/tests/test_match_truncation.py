"""Match episodes: a round cut at ``max_decisions`` ends the episode as
truncated (VecEnv, Gymnasium, PettingZoo alike), and ``episode_len`` counts
every round of the match."""

import numpy as np
import pytest

import uno_attack as ua

STALL = {"preset": "classic", "options": {"max_decisions": 30}}


def _random_actions(mask, rng):
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def test_vec_env_match_episode_ends_truncated_at_the_cap():
    env = ua.VecEnv(STALL, players=2, num_envs=4, seed=1, episode="match")
    obs, mask, seat = env.reset()
    rng = np.random.default_rng(0)
    steps = np.zeros(4, dtype=np.int64)
    truncated = 0
    for _ in range(2_000):
        obs, mask, seat, reward, term, trunc = env.step(_random_actions(mask, rng))
        steps += 1
        done = (term == 1) | (trunc == 1)
        assert (env.episode_len[done] == steps[done]).all()
        truncated += int(trunc.sum())
        steps[done] = 0
    assert truncated > 10


def test_vec_env_match_length_counts_every_round():
    env = ua.VecEnv("classic", players=2, num_envs=4, seed=1, episode="match")
    obs, mask, seat = env.reset()
    rng = np.random.default_rng(1)
    steps = np.zeros(4, dtype=np.int64)
    matches = multi_round = 0
    for _ in range(100_000):
        rounds = [env.state(i).round for i in range(4)]
        obs, mask, seat, reward, term, trunc = env.step(_random_actions(mask, rng))
        steps += 1
        for i in np.flatnonzero((term == 1) | (trunc == 1)):
            assert env.episode_len[i] == steps[i], (i, env.episode_len[i], steps[i])
            multi_round += rounds[i] > 1
            matches += 1
            steps[i] = 0
        if matches >= 4:
            break
    assert matches >= 4 and multi_round > 0


def test_gym_match_episode_ends_truncated_at_the_cap():
    gym = pytest.importorskip("gymnasium")
    env = gym.make("UnoAttack-v0", rules=STALL, players=2, episode="match")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(2)
    for _ in range(1_000):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert truncated and not terminated
    assert reward == 0.0


def test_pettingzoo_match_episode_ends_truncated_at_the_cap():
    pytest.importorskip("pettingzoo")
    from uno_attack import pettingzoo as uno_pz

    e = uno_pz.env(rules=STALL, players=2, episode="match")
    e.reset(seed=0)
    rng = np.random.default_rng(3)
    ended = None
    for agent in e.agent_iter(max_iter=1_000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            ended = (term, trunc)
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert ended == (False, True)
