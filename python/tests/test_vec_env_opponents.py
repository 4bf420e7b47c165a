"""VecEnv(opponents=...): the single-agent vectorized env, opponents stepped in Rust."""

import warnings

import numpy as np
import pytest

import uno_attack as ua

from conftest import PYTHON_DIR

CHECKPOINTS = PYTHON_DIR.parent / "checkpoints"
GOLDEN = 0x9E3779B97F4A7C15


def random_actions(rng, mask):
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


@pytest.mark.parametrize("seat", [None, 2])
def test_every_row_is_the_learners_decision(seat):
    env = ua.VecEnv("attack-2010", 4, num_envs=32, seed=3, threads=2, opponents="heuristic", seat=seat)
    assert env.opponents == ["heuristic"] * 3
    obs, mask, seats = env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        for i in range(32):
            st = env.state(i)
            assert st.current_player == seats[i]
            if seat is not None:
                assert seats[i] == seat
            assert np.array_equal(st.observation(), obs[i])
            assert np.array_equal(st.legal_mask(), mask[i])
        obs, mask, seats, reward, term, trunc = env.step(random_actions(rng, mask))
        done = term.astype(bool)
        ended += int(done.sum())
        # The learner's reward is +1 exactly when it won, and its own entry of `rewards`.
        for i in np.flatnonzero(done):
            learner = env_seat_of_finished(env, i, seats, seat)
            assert (reward[i] == 1.0) == (env.winner[i] == learner)
            assert reward[i] == env.rewards[i, learner]
    assert ended > 20


def env_seat_of_finished(env, i, seats, seat):
    """The learner's seat in the episode that just ended in game `i`."""
    if seat is not None:
        return seat
    # Rotating: episode k of game i seats the learner at (i + k) mod players; the
    # new episode's seat is one past the finished one.
    return (seats[i] - 1) % env.num_players


def test_rotation_and_rewards_per_seat():
    n, players = 12, 3
    env = ua.VecEnv("classic", players, num_envs=n, seed=5, opponents="first-legal")
    _, mask, seats = env.reset()
    np.testing.assert_array_equal(seats, np.arange(n) % players)
    episodes = np.zeros(n, dtype=np.int64)
    rng = np.random.default_rng(1)
    for _ in range(3000):
        prev = seats.copy()
        _, mask, seats, reward, term, trunc = env.step(random_actions(rng, mask))
        done = (term | trunc).astype(bool)
        for i in np.flatnonzero(done):
            # `reward` is the learner's entry of every seat's `rewards`.
            assert reward[i] == env.rewards[i, prev[i]]
        episodes += done
        np.testing.assert_array_equal(seats, (np.arange(n) + episodes) % players)
    assert episodes.min() >= 3


def test_episodes_replay_in_python_with_the_same_actions():
    # first-legal opponents need no seed: the whole episode follows from the
    # deal (Game.new_state with the documented episode seed) and the learner's actions.
    n, players, seed = 6, 3, 11
    env = ua.VecEnv("attack-2010", players, num_envs=n, seed=seed, opponents="first-legal", seat=1)
    game = ua.Game("attack-2010", players=players)
    _, mask, _ = env.reset()

    def deal(i, k):
        st = game.new_state(seed ^ (k * GOLDEN % 2**64), stream=i)
        advance(st)
        return st

    def advance(st):
        while not st.is_round_over() and st.current_player != 1:
            st.apply(st.legal_actions()[0])

    replay = [deal(i, 0) for i in range(n)]
    episode = [0] * n
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(1500):
        acts = random_actions(rng, mask)
        _, mask, _, reward, term, trunc = env.step(acts)
        for i in range(n):
            st = replay[i]
            st.apply(int(acts[i]))
            advance(st)
            if st.is_round_over():
                ended += 1
                assert term[i] + trunc[i] == 1
                assert env.winner[i] == (-1 if st.round_winner is None else st.round_winner)
                assert env.episode_len[i] == st.decisions
                np.testing.assert_array_equal(env.final_obs[i], st.observation(1))
                want = 0.0 if st.round_winner is None else (1.0 if st.round_winner == 1 else -0.5)
                assert reward[i] == want
                episode[i] += 1
                replay[i] = deal(i, episode[i])
            else:
                assert term[i] + trunc[i] == 0
            assert env.state(i).to_json() == replay[i].to_json()
    assert ended >= n


def run(threads, opponents, rules="attack-2010", players=4):
    env = ua.VecEnv(rules, players, num_envs=24, seed=9, threads=threads, opponents=opponents)
    _, mask, _ = env.reset()
    rng = np.random.default_rng(4)
    log = []
    for _ in range(100):
        out = env.step(random_actions(rng, mask))
        mask = out[1]
        log.append([a.copy() for a in out] + [env.final_obs.copy(), env.rewards.copy()])
    return log


def same(a, b):
    return all(np.array_equal(x, y) for s, t in zip(a, b) for x, y in zip(s, t))


def test_thread_count_does_not_change_results():
    opp = ["heuristic", "random", "greedy"]
    one = run(1, opp)
    assert same(one, run(2, opp))
    assert not same(one, run(1, "random"))


def test_network_opponent():
    spec = f"checkpoint:{CHECKPOINTS / 'classic-2p'}"
    one = run(1, spec, "classic", 2)
    assert same(one, run(2, spec, "classic", 2))
    with pytest.raises(ValueError, match="trained for rules `classic`"):
        ua.VecEnv("attack-2010", 2, num_envs=2, opponents=spec)
    with pytest.warns(UserWarning, match="trained with 2 players"):
        ua.VecEnv("classic", 3, num_envs=2, opponents=spec)


def test_a_random_learner_loses_to_heuristics():
    env = ua.VecEnv("attack-2010", 2, num_envs=64, seed=0, opponents="heuristic")
    _, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    total = wins = 0
    while total < 1000:
        _, mask, _, reward, term, trunc = env.step(random_actions(rng, mask))
        done = (term | trunc).astype(bool)
        total += int(done.sum())
        wins += int((reward[done] > 0).sum())
    assert wins / total < 0.2


def test_bad_arguments_and_illegal_actions():
    with pytest.raises(ValueError, match="opponents="):
        ua.VecEnv("classic", 2, num_envs=2, seat=0)
    with pytest.raises(ValueError, match="seat must be a seat of the table, 0 to 1, not"):
        ua.VecEnv("classic", 2, num_envs=2, opponents="random", seat=2)
    with pytest.raises(ValueError, match="seat must be a seat of the table, 0 to 1, not"):
        ua.VecEnv("classic", 2, num_envs=2, opponents="random", seat=-1)
    with pytest.raises(ValueError, match="2 opponent specs for 3 opponent seats"):
        ua.VecEnv("classic", 4, num_envs=2, opponents=["random", "greedy"])
    with pytest.raises(ValueError, match="unknown agent"):
        ua.VecEnv("classic", 2, num_envs=2, opponents="nobody")
    with pytest.raises(TypeError, match="opponents must be"):
        ua.VecEnv("classic", 2, num_envs=2, opponents=3)
    with pytest.raises(ValueError, match="does not exist"):
        ua.VecEnv("classic", 2, num_envs=2, opponents="checkpoint:/no/such/dir")

    env = ua.VecEnv("attack-2010", 4, num_envs=4, seed=1, threads=2, opponents="heuristic")
    with pytest.raises(ValueError, match=r"call reset\(\) first"):
        env.step([0, 0, 0, 0])
    obs, mask, seat = env.reset()
    before = [env.state(i).to_json() for i in range(4)]
    saved = obs.copy(), mask.copy(), seat.copy()
    acts = random_actions(np.random.default_rng(0), mask)
    acts[3] = int(np.flatnonzero(mask[3] == 0)[0])
    with pytest.raises(ValueError, match="game 3"):
        env.step(acts)
    with pytest.raises(ValueError):
        env.step(acts[:2])
    with pytest.raises(TypeError):
        env.step(acts.astype(np.float64))
    assert [env.state(i).to_json() for i in range(4)] == before
    for a, b in zip(saved, (obs, mask, seat)):
        np.testing.assert_array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(random_actions(np.random.default_rng(0), mask))


def test_agent_act_batch_plays_every_game_at_once():
    spec = f"checkpoint:{CHECKPOINTS / 'classic-2p'}"
    bot = ua.Agent(spec)
    env = ua.VecEnv("classic", 2, num_envs=32, seed=4)
    env.reset()
    for _ in range(50):
        acts = bot.act_batch(env)
        assert acts.shape == (32,) and acts.dtype == np.int64
        # The same choices as the agent asked game by game.
        assert [bot.act(env.state(i)) for i in range(32)] == acts.tolist()
        env.step(acts)
    # The bot as the learner of a single-agent env against the heuristic.
    env = ua.VecEnv("classic", 2, num_envs=64, seed=1, opponents="heuristic")
    env.reset()
    wins = total = 0
    while total < 300:
        _, _, _, reward, term, trunc = env.step(bot.act_batch(env))
        done = (term | trunc).astype(bool)
        total += int(done.sum())
        wins += int((reward[done] > 0).sum())
    assert 0.35 < wins / total < 0.7
    rnd = ua.Agent("random", seed=3)
    _, mask, _ = env.reset()
    acts = rnd.act_batch(env)
    assert all(mask[i, a] == 1 for i, a in enumerate(acts))
    with pytest.raises(ValueError, match="remembers its decisions"):
        ua.Agent("heuristic").act_batch(env)
    with pytest.raises(ValueError, match="trained for rules `classic`"):
        bot.act_batch(ua.VecEnv("attack-2010", 2, num_envs=2))
