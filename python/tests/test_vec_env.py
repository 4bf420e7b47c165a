"""VecEnv: buffers, zero-copy, auto-reset, errors, thread independence."""

import numpy as np
import pytest

import uno_attack as ua


def random_actions(rng, mask):
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def test_shapes_and_dtypes():
    env = ua.VecEnv("attack-2010", 4, num_envs=32, seed=1)
    obs, mask, seat = env.reset()
    assert obs.shape == (32, ua.OBS_SIZE) and obs.dtype == np.float32
    assert mask.shape == (32, 98) and mask.dtype == np.uint8
    assert seat.shape == (32,) and seat.dtype == np.int32
    assert env.rewards.shape == (32, 10) and env.rewards.dtype == np.float32
    assert env.final_obs.shape == (32, ua.OBS_SIZE)
    assert env.episode_len.dtype == np.uint32 and env.winner.dtype == np.int32
    assert env.terminated.dtype == np.uint8 and env.truncated.dtype == np.uint8
    assert len(env) == env.num_envs == 32 and env.num_players == 4
    assert (mask.sum(axis=1) > 0).all()
    for i in range(32):
        st = env.state(i)
        assert st.current_player == seat[i]
        assert np.array_equal(st.observation(), obs[i])
        assert np.array_equal(st.legal_mask(), mask[i])


def test_same_arrays_every_step_no_realloc():
    env = ua.VecEnv("attack-2010", 4, num_envs=64, seed=2, threads=2)
    first = env.reset()
    ptrs = [a.__array_interface__["data"][0] for a in first]
    final_obs = env.final_obs
    final_ptr = final_obs.__array_interface__["data"][0]
    rng = np.random.default_rng(0)
    out1 = env.step(random_actions(rng, first[1]))
    out2 = env.step(random_actions(rng, out1[1]))
    out3 = env.step_random()
    for a, b, c in zip(out1, out2, out3):
        assert a is b is c
    assert out1[0] is first[0] and out1[1] is first[1] and out1[2] is first[2]
    assert [a.__array_interface__["data"][0] for a in out2[:3]] == ptrs
    assert env.obs is first[0] and env.final_obs is final_obs
    assert env.final_obs.__array_interface__["data"][0] == final_ptr
    assert out2[3] is env.reward and out2[4] is env.terminated and out2[5] is env.truncated


def test_buffers_are_aligned_contiguous_views_with_unused_memory_after_them():
    # Each buffer is a view of a longer allocation that starts on a cache line
    # (two threads' parts then share no line) and leaves at least 4096 spare
    # bytes after it (the core's TAIL_PAD): the thread stepping the last games
    # prefetches into them, not into the next buffer's first rows
    # (docs/performance-log.md, session 41).
    env = ua.VecEnv("attack-2010", 4, num_envs=5, seed=2, threads=2, legal_ids=True)
    env.reset()
    names = ["obs", "mask", "seat", "reward", "rewards", "terminated", "truncated",
             "final_obs", "episode_len", "winner", "legal_ids", "legal_count"]
    for name in names:
        a = getattr(env, name)
        assert a.flags.c_contiguous and a.flags.writeable, name
        assert a.base is not None, name
        start = a.__array_interface__["data"][0]
        base = a.base.__array_interface__["data"][0]
        assert start % 64 == 0, name
        assert base <= start < base + 64, name
        assert start + a.nbytes + 4096 <= base + a.base.nbytes, name
    assert (env.winner == -1).all()


def test_step_matches_single_game_engine():
    env = ua.VecEnv("flash", 3, num_envs=8, seed=3)
    obs, mask, seat = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(200):
        before = [env.state(i) for i in range(8)]
        acts = random_actions(rng, mask)
        obs, mask, seat, reward, term, trunc = env.step(acts)
        for i in range(8):
            st = before[i]
            actor = st.current_player
            st.apply(int(acts[i]))
            if term[i] or trunc[i]:
                assert st.is_round_over()
                assert np.array_equal(env.final_obs[i], st.observation(actor))
                assert env.episode_len[i] == st.decisions
                assert env.winner[i] == (st.round_winner if st.round_winner is not None else -1)
                assert reward[i] == pytest.approx(st.rewards("win")[actor])
            else:
                assert env.state(i) == st
                assert np.array_equal(obs[i], st.observation())
                assert reward[i] == 0.0


def test_threads_give_identical_results():
    runs = []
    for threads in (1, 2):
        env = ua.VecEnv("attack-2010", 4, num_envs=100, seed=7, threads=threads)
        obs, mask, _ = env.reset()
        rng = np.random.default_rng(5)
        snaps = []
        for t in range(150):
            if t % 2:
                out = env.step_random()
            else:
                out = env.step(random_actions(rng, mask))
            obs, mask = out[0], out[1]
            snaps.append((obs.copy(), mask.copy(), env.rewards.copy(), env.winner.copy()))
        assert env.threads == threads
        runs.append(snaps)
    for a, b in zip(*runs):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


def test_illegal_or_malformed_actions():
    env = ua.VecEnv("attack-2010", 4, num_envs=4, seed=1)
    obs, mask, seat = env.reset()
    before = obs.copy()
    bad = np.argmax(mask, axis=1)
    bad[2] = int(np.flatnonzero(mask[2] == 0)[0])
    with pytest.raises(ValueError, match="game 2"):
        env.step(bad)
    assert np.array_equal(obs, before)  # nothing applied
    with pytest.raises(ValueError, match="actions for 4 games"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 0, 0, 200]))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([-1, 0, 0, 0]))
    # any integer dtype or a list works
    good = np.argmax(mask, axis=1)
    env.step(good.astype(np.int32))
    _, mask, _ = env.reset()
    env.step([int(a) for a in np.argmax(mask, axis=1)])


def test_auto_reset_and_match_episodes():
    env = ua.VecEnv("classic", 2, num_envs=16, seed=4, episode="match", reward="points")
    env.reset()
    round_ends = 0
    total = np.zeros(16)
    for _ in range(2000):
        _, _, _, reward, term, trunc = env.step_random()
        total += env.rewards[:, :2].sum(axis=1)
        round_ends += int((env.rewards[:, :2] != 0).any(axis=1).sum())
    assert np.allclose(total, 0.0, atol=1e-3)  # zero-sum points at every round's end
    assert round_ends > 0
    env = ua.VecEnv("classic", 2, num_envs=16, seed=4, episode="round")
    env.reset()
    finished = 0
    for _ in range(1000):
        _, _, _, reward, term, trunc = env.step_random()
        done = (term | trunc).astype(bool)
        finished += int(done.sum())
        assert (env.winner[term.astype(bool)] >= 0).all()
        assert (env.episode_len[done] > 0).all()
        # Rows where nothing ended hold no length and no winner (not the last end's).
        assert (env.episode_len[~done] == 0).all() and (env.winner[~done] == -1).all()
        assert (env.state(int(np.argmax(done))).decisions == 0) or not done.any()
    assert finished > 0


def test_step_random_without_obs():
    env = ua.VecEnv("attack-2010", 4, num_envs=16, seed=4)
    env.reset()
    longest = 0
    for _ in range(100):
        env.step_random(write_obs=False)
        longest = max(longest, int(env.episode_len.max()))
    assert longest > 0


def test_legal_id_lists_match_the_mask_and_sample_in_numpy():
    env = ua.VecEnv("attack-2010", 4, num_envs=64, seed=9, threads=2, legal_ids=True)
    _, mask, _ = env.reset()
    ids, count = env.legal_ids, env.legal_count
    assert ids.shape == (64, 98) and ids.dtype == np.uint8 and count.dtype == np.uint8
    rng = np.random.default_rng(3)
    rows = np.arange(64)
    for _ in range(300):
        for i in range(64):
            k = int(count[i])
            assert list(ids[i, :k]) == list(np.flatnonzero(mask[i])), i
        # uniform legal action per game: one index per row, no scan of the mask
        pick = ids[rows, (rng.random(64) * count).astype(np.intp)]
        assert (mask[rows, pick] == 1).all()
        _, mask, _, _, _, _ = env.step(pick)  # uint8 actions are accepted
        assert env.legal_ids is ids  # same buffer every step
    off = ua.VecEnv("attack-2010", 4, num_envs=8)
    assert off.legal_ids.shape == (0, 98) and off.legal_count.shape == (0,)
    off.reset()
    off.step_random()


def _snapshot(env):
    return [env.state(i).to_json() for i in range(env.num_envs)], env.obs.copy(), env.mask.copy()


@pytest.mark.parametrize(
    "make, dtype_name",
    [
        (lambda good: good.astype(np.float64) + 0.7, "float64"),
        (lambda good: good.astype(np.float64), "float64"),  # whole values are refused too
        (lambda good: good.astype(np.float32), "float32"),
        (lambda good: good.astype(str), "str"),
        (lambda good: good.astype(complex), "complex128"),
        (lambda good: np.full(len(good), np.nan), "float64"),
        (lambda good: good.astype(bool), "bool"),  # e.g. a mask row passed by mistake
        (lambda good: [float(a) for a in good], "float64"),
        (lambda good: [str(a) for a in good], "str"),
    ],
)
def test_non_integer_actions_are_refused_and_change_nothing(make, dtype_name):
    env = ua.VecEnv("classic", players=2, num_envs=4, seed=0)
    _, mask, _ = env.reset()
    good = np.array([np.flatnonzero(m)[0] for m in mask])
    before = _snapshot(env)
    with pytest.raises(TypeError, match=f"actions must be integer action ids, got {dtype_name}"):
        env.step(make(good))
    after = _snapshot(env)
    assert before[0] == after[0]
    assert np.array_equal(before[1], after[1]) and np.array_equal(before[2], after[2])
    env.step(good)  # the env still steps


def test_every_integer_dtype_is_accepted():
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        env = ua.VecEnv("classic", players=2, num_envs=4, seed=0)
        _, mask, _ = env.reset()
        good = np.array([np.flatnonzero(m)[0] for m in mask])
        env.step(good.astype(dtype))
        env.step(np.argmax(env.mask, axis=1).astype(dtype)[::-1].copy()[::-1])  # non-contiguous views too
        env.step(np.argmax(env.mask, axis=1).astype(np.dtype(dtype).newbyteorder(">")))  # byte-swapped


def test_huge_or_misshapen_actions_name_the_problem():
    env = ua.VecEnv("classic", players=2, num_envs=4, seed=0)
    _, mask, _ = env.reset()
    good = np.array([np.flatnonzero(m)[0] for m in mask])
    before = _snapshot(env)
    with pytest.raises(ValueError, match="game 1: action id 1180591620717411303424 is out of range"):
        env.step([int(good[0]), 2**70, 0, 0])
    with pytest.raises(ValueError, match=f"action id {2**63 + 5} is out of range"):
        env.step(np.full(4, 2**63 + 5, dtype=np.uint64))
    with pytest.raises(ValueError, match="one-dimensional"):
        env.step(good.reshape(2, 2))
    with pytest.raises(ValueError, match="one-dimensional"):
        env.step(3)
    assert _snapshot(env)[0] == before[0]


def test_sizes_outside_the_limits_are_value_errors():
    # A huge batch used to abort the interpreter on the allocation.
    with pytest.raises(ValueError, match="num_envs") as e:
        ua.VecEnv("classic", players=2, num_envs=10**9)
    assert "invalid rules" not in str(e.value)
    with pytest.raises(ValueError, match="threads") as e:
        ua.VecEnv("classic", players=2, num_envs=4, threads=1000)
    assert "invalid rules" not in str(e.value)
    with pytest.raises(ValueError, match="num_envs must be at least 1, got 0"):
        ua.VecEnv("classic", players=2, num_envs=0)
    with pytest.raises(ValueError, match="num_envs must be at least 1, got -1"):
        ua.VecEnv("classic", players=2, num_envs=-1)
    with pytest.raises(ValueError, match="threads must be at least 1, got -2"):
        ua.VecEnv("classic", players=2, num_envs=4, threads=-2)
    with pytest.raises(ValueError, match="player count -1"):
        ua.VecEnv("classic", players=-1, num_envs=4)
    with pytest.raises(ValueError, match="num_envs"):
        ua.VecEnv("classic", players=2, num_envs=2**64)
    # Seeds are unsigned 64-bit (documented): a negative one is an OverflowError.
    with pytest.raises(OverflowError):
        ua.VecEnv("classic", players=2, num_envs=4, seed=-1)
    with pytest.raises(IndexError, match="game -1"):
        ua.VecEnv("classic", players=2, num_envs=4).state(-1)


def test_stepping_before_the_first_reset_is_refused():
    # Until reset() the buffers hold zeros; a loop that forgot it would record them as
    # every game's first observation.
    env = ua.VecEnv("classic", 2, num_envs=4, seed=1)
    with pytest.raises(ValueError, match=r"call reset\(\) first"):
        env.step_random()
    with pytest.raises(ValueError, match=r"call reset\(\) first"):
        env.step(np.zeros(4, dtype=np.int64))
    assert not env.obs.any()
    obs, mask, seat = env.reset()
    assert obs.any() and mask.any()
    env.step_random()
