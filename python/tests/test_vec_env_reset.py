"""VecEnv: reset and its seed, how episodes are dealt, and what the documented
buffers hold (write_obs=False, final_obs, uint8 done flags)."""

import numpy as np
import pytest

import uno_attack as ua

GOLDEN = 0x9E3779B97F4A7C15


def random_actions(rng, mask):
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def episode_seed(seed, k):
    """The README's formula: episode k of game i is Game.new_state(this, stream=i)."""
    return seed ^ ((k * GOLDEN) % 2**64)


def snapshot(env, n):
    return [env.state(i).to_json() for i in range(n)], env.obs.copy(), env.mask.copy()


def run_random(env, steps):
    """step_random a few times; returns the per-step copies of what it wrote."""
    out = []
    for _ in range(steps):
        obs, mask, seat, reward, term, trunc = env.step_random()
        out.append((obs.copy(), mask.copy(), seat.copy(), reward.copy(), term.copy()))
    return out


def same_runs(a, b):
    return all(all(np.array_equal(x, y) for x, y in zip(p, q)) for p, q in zip(a, b))


def test_reset_without_a_seed_replays_the_same_deals():
    env = ua.VecEnv("attack-2010", 4, num_envs=8, seed=5)
    assert env.seed == 5
    env.reset()
    first = snapshot(env, 8)
    run1 = run_random(env, 300)
    env.reset()
    again = snapshot(env, 8)
    assert first[0] == again[0]
    assert np.array_equal(first[1], again[1]) and np.array_equal(first[2], again[2])
    assert same_runs(run1, run_random(env, 300))  # the per-game action pickers restart too
    assert env.seed == 5


def test_reset_with_a_seed_reseeds_like_a_new_env():
    env = ua.VecEnv("classic", 3, num_envs=6, seed=0)
    env.reset()
    before = snapshot(env, 6)[0]
    run_random(env, 50)
    env.reset(seed=1234)
    assert env.seed == 1234
    fresh = ua.VecEnv("classic", 3, num_envs=6, seed=1234)
    fresh.reset()
    assert snapshot(env, 6)[0] == snapshot(fresh, 6)[0] != before
    assert same_runs(run_random(env, 400), run_random(fresh, 400))
    # The new seed stays: a later reset without one deals from it again.
    env.reset()
    fresh.reset()
    assert env.seed == 1234 and snapshot(env, 6)[0] == snapshot(fresh, 6)[0]


def test_seed_is_read_only_and_unsigned_64_bit():
    env = ua.VecEnv("classic", 2, num_envs=2, seed=2**64 - 1)
    assert env.seed == 2**64 - 1
    with pytest.raises(AttributeError):
        env.seed = 3
    with pytest.raises(OverflowError):
        env.reset(seed=-1)
    with pytest.raises(OverflowError, match=r"^seed = 18446744073709551616 is out of range"):
        env.reset(seed=2**64)
    assert env.seed == 2**64 - 1


@pytest.mark.parametrize("seed", [77, 2**64 - 12345])
def test_episode_k_of_game_i_replays_from_the_documented_seed(seed):
    """Episode 1 of game 2, replayed from Game.new_state with the README's formula."""
    n, game_i = 4, 2
    env = ua.VecEnv("attack-2010", 4, num_envs=n, seed=0)
    obs, mask, seat = env.reset(seed=seed)
    rng = np.random.default_rng(9)
    episode, actions, replay = 0, {0: [], 1: []}, None
    for _ in range(20000):
        acts = random_actions(rng, mask)
        if episode == 1 and replay is None:
            # The first state of episode 1, as the formula deals it.
            replay = env.game.new_state(episode_seed(seed, 1), stream=game_i)
            assert env.state(game_i) == replay
        actor = int(seat[game_i])
        actions[episode].append(int(acts[game_i]))
        obs, mask, seat, reward, term, trunc = env.step(acts)
        if episode == 1 and not (term[game_i] or trunc[game_i]):
            replay.apply(actions[1][-1])
            assert env.state(game_i) == replay
        if term[game_i] or trunc[game_i]:
            if episode == 1:
                break
            episode += 1
    else:
        pytest.fail("episode 1 of game 2 never finished")
    # Replay episode 1 from scratch and compare with what the env reported.
    st = ua.Game("attack-2010", players=4).new_state(episode_seed(seed, 1), stream=game_i)
    for a in actions[1]:
        st.apply(a)
    assert st.is_round_over()
    assert env.episode_len[game_i] == st.decisions == len(actions[1])
    assert env.winner[game_i] == (-1 if st.round_winner is None else st.round_winner)
    assert bool(env.truncated[game_i]) == st.is_truncated()
    assert env.rewards[game_i, :4].tolist() == pytest.approx(st.rewards("win"))
    assert reward[game_i] == pytest.approx(st.rewards("win")[actor])
    assert np.array_equal(env.final_obs[game_i], st.observation(actor))
    # Episode 0 was dealt from the base seed itself (k = 0).
    st0 = env.game.new_state(episode_seed(seed, 0), stream=game_i)
    assert episode_seed(seed, 0) == seed
    for a in actions[0]:
        st0.apply(a)
    assert st0.is_round_over()
    # And now game 2 is at the start of episode 2.
    assert env.state(game_i) == env.game.new_state(episode_seed(seed, 2), stream=game_i)


def test_step_random_without_obs_leaves_obs_mask_and_final_obs_stale():
    n = 32
    env = ua.VecEnv("classic", 2, num_envs=n, seed=5, legal_ids=True)
    obs, mask, seat = env.reset()
    env.final_obs.fill(7.0)
    finished = 0
    for _ in range(200):
        _, _, seat, _, term, trunc = env.step_random(write_obs=False)
        finished += int((term | trunc).sum())
        states = [env.state(i) for i in range(n)]
        # Kept current: the seat to act and the legal-id lists.
        assert seat.tolist() == [s.current_player for s in states]
        for i, s in enumerate(states):
            assert env.legal_ids[i, : env.legal_count[i]].tolist() == s.legal_actions()
    assert finished > 0
    states = [env.state(i) for i in range(n)]
    # Not written: the mask, the observation and the final observation.
    stale_masks = sum(not np.array_equal(mask[i], s.legal_mask()) for i, s in enumerate(states))
    stale_obs = sum(not np.array_equal(obs[i], s.observation()) for i, s in enumerate(states))
    assert stale_masks > 0 and stale_obs > 0
    assert (env.final_obs == 7.0).all()
    # One step with write_obs=True makes them current again, so the mask can be sampled.
    obs, mask, *_ = env.step_random()
    for i in range(n):
        assert np.array_equal(mask[i], env.state(i).legal_mask())
        assert np.array_equal(obs[i], env.state(i).observation())
    env.step(random_actions(np.random.default_rng(0), mask))


def test_final_obs_is_the_last_movers_and_other_seats_come_from_a_copy():
    n = 8
    env = ua.VecEnv("flash", 3, num_envs=n, seed=6)
    obs, mask, seat = env.reset()
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(400):
        before = [env.state(i) for i in range(n)]
        acts = random_actions(rng, mask)
        actor = seat.copy()
        obs, mask, seat, reward, term, trunc = env.step(acts)
        for i in np.flatnonzero(term | trunc):
            end = before[i]
            end.apply(int(acts[i]))  # the same terminal state: the chance draws are in the state
            assert end.is_round_over()
            assert np.array_equal(env.final_obs[i], end.observation(int(actor[i])))
            for other in range(3):
                if other != actor[i]:
                    assert not np.array_equal(env.final_obs[i], end.observation(other))
            # After the auto-reset, env.state(i) is already the next episode.
            assert not env.state(i).is_round_over() and env.state(i) != end
            checked += 1
    assert checked > 0


def test_done_flags_are_uint8_so_use_astype_bool():
    env = ua.VecEnv("classic", 2, num_envs=64, seed=2)
    env.reset()
    for _ in range(300):
        _, _, _, _, term, trunc = env.step_random()
        if term.any():
            break
    assert term.dtype == np.uint8 and set(np.unique(term)) <= {0, 1}
    done = term.astype(bool)
    assert done.any() and not done.all()
    assert np.array_equal(~done, term == 0)
    assert (~term != 0).all()  # the trap the README warns about: ~ on uint8 is 255 / 254
