"""Lifetimes, threads, processes, copies and Ctrl-C (from an audit of the
bindings as an RL researcher uses them): a buffer outlives its env, a call
refused because another thread holds the env or its buffers is a clear
RuntimeError, a fork()ed child runs networks and drops envs without hanging or
panicking, a copy never shares a game silently, and an interrupted step never
leaves an env that goes on from a half-played position.

Cases that hung or panicked before their fix run in a subprocess with a
timeout, so that a regression fails the test instead of stopping pytest."""

import copy
import gc
import pickle
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import uno_attack as ua
from conftest import PYTHON_DIR

CHECKPOINT = PYTHON_DIR.parent / "checkpoints" / "attack-2010-4p"


def run_python(code, timeout=90):
    """Runs `code` in a fresh interpreter; a hang is a TimeoutExpired (the test fails)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


# -- lifetimes ---------------------------------------------------------------------


def test_the_buffers_outlive_their_env():
    env = ua.VecEnv("attack-2010", 4, 64, seed=0, threads=2)
    obs, mask, seat = env.reset()
    env.step_random()
    names = ["obs", "mask", "seat", "reward", "rewards", "terminated", "truncated",
             "final_obs", "episode_len", "winner"]
    kept = {k: getattr(env, k) for k in names}
    snap = {k: v.copy() for k, v in kept.items()}
    del env, obs, mask, seat
    gc.collect()
    # New allocations that would reuse freed memory.
    others = [ua.VecEnv("classic", 2, 64, seed=i) for i in range(8)]
    for e in others:
        e.reset()
        e.step_random()
    for k, v in kept.items():
        assert np.array_equal(v, snap[k]), k  # still the values of the env's last step
        v[...] = 1  # and writable: numpy owns the memory
        assert (v == 1).all(), k


# -- threads -----------------------------------------------------------------------


def hammer(calls, seconds=0.6):
    """Runs each `(name, fn)` in a loop in its own thread; returns (successes, errors)."""
    ok, errors = {}, {}
    stop = time.monotonic() + seconds

    def loop(name, fn):
        while time.monotonic() < stop:
            try:
                fn()
                ok[name] = ok.get(name, 0) + 1
            except Exception as e:  # noqa: BLE001 - counted and checked by the test
                key = (type(e).__name__, str(e)[:60])
                errors[key] = errors.get(key, 0) + 1

    threads = [threading.Thread(target=loop, args=c) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ok, errors


def test_one_env_stepped_from_two_threads_refuses_cleanly_and_stays_deterministic():
    env = ua.VecEnv("attack-2010", 4, 256, seed=3, threads=2)
    env.reset()
    ok, errors = hammer([("a", env.step_random), ("b", env.step_random),
                         ("read", lambda: env.obs.sum()), ("state", lambda: env.state(0))])
    assert {kind for kind, _ in errors} <= {"RuntimeError"}, errors
    # The steps that ran ran one at a time: a fresh env replays them exactly.
    ref = ua.VecEnv("attack-2010", 4, 256, seed=3, threads=2)
    ref.reset()
    for _ in range(ok.get("a", 0) + ok.get("b", 0)):
        ref.step_random()
    assert np.array_equal(env.obs, ref.obs) and np.array_equal(env.mask, ref.mask)
    assert all(env.state(i) == ref.state(i) for i in range(0, 256, 17))


def test_different_envs_and_one_policy_in_parallel_threads_match_a_sequential_run():
    policy = ua.Policy(CHECKPOINT)
    x = np.random.default_rng(1).random((300, ua.OBS_SIZE)).astype(np.float32)
    logits, values = policy.forward(x)

    def run(seed, out):
        env = ua.VecEnv("attack-2010", 4, 128, seed=seed, threads=2, opponents="random")
        env.reset()
        for _ in range(30):
            env.step_random()
            got = policy.forward(x)  # the same Policy from both threads at once
            assert np.array_equal(got[0], logits) and np.array_equal(got[1], values)
        out[seed] = (env.obs.copy(), env.reward.copy())

    parallel, sequential = {}, {}
    threads = [threading.Thread(target=run, args=(s, parallel)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in (1, 2):
        run(s, sequential)
    for s in (1, 2):
        assert np.array_equal(parallel[s][0], sequential[s][0])
        assert np.array_equal(parallel[s][1], sequential[s][1])


def overlap(background, foreground, want=3, seconds=20):
    """Runs `background` in a loop in another thread while calling each of
    `foreground` in turn, until `want` calls (in either thread) were refused;
    returns every exception raised."""
    errors, stop = [], threading.Event()

    def loop():
        while not stop.is_set():
            try:
                background()
            except Exception as e:  # noqa: BLE001 - checked by the caller
                errors.append(e)

    t = threading.Thread(target=loop)
    t.start()
    deadline = time.monotonic() + seconds
    try:
        while len(errors) < want and time.monotonic() < deadline:
            for call in foreground:
                try:
                    call()
                except Exception as e:  # noqa: BLE001 - checked by the caller
                    errors.append(e)
    finally:
        stop.set()
        t.join()
    return errors


def test_a_buffer_in_use_by_another_thread_is_a_runtime_error_naming_the_cause():
    """`Policy.forward(env.obs)` in one thread while another steps the env (or
    the reverse): numpy's borrow flags refuse the second call. That was a
    ValueError ("buffer `obs` cannot be written (The given array is already
    borrowed)") or a TypeError, and `describe_obs` said a (488,) row had the
    wrong shape."""
    env = ua.VecEnv("attack-2010", 4, 8192, seed=0)
    obs, _, _ = env.reset()
    policy = ua.Policy(CHECKPOINT)
    # A forward pass reads the buffer with the GIL released while a step would write it ...
    refused = overlap(lambda: policy.forward(obs), [env.step_random])
    # ... and a step writes it while a forward pass or describe_obs would read it.
    refused += overlap(env.step_random, [lambda: ua.describe_obs(obs[0]), lambda: policy.forward(obs)])
    assert len(refused) >= 6, refused
    for e in refused:
        assert isinstance(e, RuntimeError), repr(e)
        assert "in use by a call running in another thread" in str(e), str(e)
    # Nothing was left borrowed: every call works again.
    env.step_random()
    assert ua.describe_obs(env.obs[0])
    assert policy.forward(env.obs[:4])[0].shape == (4, ua.NUM_ACTIONS)


# -- processes ---------------------------------------------------------------------


def test_a_forked_child_runs_networks_after_the_parent_did():
    """A large forward pass in the parent starts rayon's global pool; a child
    forked after it inherits the pool without its threads, and any network
    call there that spread work over it waited forever (a `fork` Pool worker
    with a `checkpoint:` opponent, `Policy.forward` or `act_batch`)."""
    out = run_python(
        f"""
        import multiprocessing as mp
        import numpy as np, uno_attack as ua
        CK = {str(CHECKPOINT)!r}

        def work(seed):
            p = ua.Policy(CK)
            x = np.random.default_rng(seed).random((4096, ua.OBS_SIZE)).astype(np.float32)
            logits, values = p.forward(x)
            solo = ua.VecEnv("attack-2010", 4, 512, seed=seed, threads=2, opponents="checkpoint:" + CK)
            solo.reset()
            for _ in range(2):
                solo.step_random()
            env = ua.VecEnv("attack-2010", 4, 512, seed=seed)
            env.reset()
            acts = ua.Agent("checkpoint:" + CK).act_batch(env)
            return float(logits.sum()), float(values.sum()), float(solo.obs.sum()), acts.tolist()

        if __name__ == "__main__":
            ua.Policy(CK).forward(np.zeros((4096, ua.OBS_SIZE), np.float32))
            with mp.get_context("fork").Pool(2) as pool:
                got = pool.map(work, [1, 2])
            assert got == [work(1), work(2)], "a child computed other values"
            print("ok")
        """
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["ok"]


def test_a_threaded_env_dropped_in_a_forked_child_is_silent():
    """Its worker threads do not exist in the child: joining them panicked
    ("threads should not terminate unexpectedly") at `del env` or at the
    child's exit."""
    out = run_python(
        """
        import gc, os, sys, uno_attack as ua
        envs = [ua.VecEnv("attack-2010", 4, 64, threads=2),
                ua.VecEnv("attack-2010", 4, 64, threads=2, opponents="random")]
        for e in envs:
            e.reset()
            e.step_random()
        pid = os.fork()
        if pid == 0:
            del envs[0]
            gc.collect()
            sys.exit(0)  # the other one at the interpreter's exit
        _, status = os.waitpid(pid, 0)
        for e in envs:
            e.step_random()  # the parent's env is untouched
        print("child", status)
        """
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["child", "0"]
    assert "panicked" not in out.stderr and "PanicException" not in out.stderr, out.stderr[-3000:]


# -- copies ------------------------------------------------------------------------


def test_rust_objects_without_a_copy_refuse_every_copy_with_a_type_error():
    objects = [ua.VecEnv("classic", 2, 4), ua.VecEnv("classic", 2, 4, opponents="random"),
               ua.Agent("random"), ua.Policy(CHECKPOINT)]
    for obj in objects:
        for do in (copy.copy, copy.deepcopy, pickle.dumps):
            with pytest.raises(TypeError, match="pickle"):
                do(obj)


def test_the_gym_envs_refuse_a_shallow_copy_that_would_share_their_game():
    pytest.importorskip("gymnasium")
    from uno_attack.gym import UnoAttackEnv, UnoAttackVectorEnv

    env = UnoAttackEnv("classic", 2)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="does not copy"):
        copy.copy(env)
    vec = UnoAttackVectorEnv(4, "classic", 2)
    vec.reset(seed=0)
    with pytest.raises(TypeError, match="does not copy"):
        copy.copy(vec)
    for obj in (env, vec):
        with pytest.raises(TypeError):
            copy.deepcopy(obj)


def play(e, steps, last=False):
    """Steps the AEC env `steps` times with the first (or last) legal action."""
    for _ in range(steps):
        o, _, te, tr, _ = e.last()
        legal = np.flatnonzero(o["action_mask"])
        e.step(None if te or tr else int(legal[-1] if last else legal[0]))


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_copy_of_the_pettingzoo_env_is_independent(wrapped):
    """`copy.copy` shared the State and the reward dicts: stepping the copy
    moved the original's game without its bookkeeping (its `agent_selection`
    no longer the seat to act)."""
    pz = pytest.importorskip("uno_attack.pettingzoo")
    e = pz.env(rules="attack-2010", players=3) if wrapped else pz.raw_env(rules="attack-2010", players=3)
    e.reset(seed=3)
    play(e, 7)
    position = e.unwrapped.game_state.to_json()
    twin = copy.deepcopy(e)
    for c in (copy.copy(e), copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        play(c, 5, last=True)
        assert e.unwrapped.game_state.to_json() == position
    # The original goes on exactly as the copy taken before.
    for _ in range(40):
        if not e.agents:
            break
        a, b = e.last(), twin.last()
        assert np.array_equal(a[0]["observation"], b[0]["observation"]) and a[1:4] == b[1:4]
        assert e.agent_selection == twin.agent_selection == f"player_{e.unwrapped.game_state.current_player}"
        play(e, 1)
        play(twin, 1)


# -- Ctrl-C ------------------------------------------------------------------------


def test_ctrl_c_during_a_stepping_loop_leaves_the_env_exact():
    """SIGINT while a threaded VecEnv steps: the Rust call finishes (the
    KeyboardInterrupt comes after it), and the env is exactly one that took
    the steps that returned or ran."""
    out = run_python(
        """
        import os, signal, threading, time, numpy as np, uno_attack as ua
        # A shell that starts a job in the background (`cmd &`, as CI runners
        # may) has it ignore SIGINT, and Python then keeps SIGINT ignored.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        env = ua.VecEnv("attack-2010", 4, 16384, seed=0, threads=2)
        env.reset()
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        n = 0
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                env.step_random()
                n += 1
            print("no KeyboardInterrupt in 30 s")
            raise SystemExit(0)
        except KeyboardInterrupt:
            pass
        ref = ua.VecEnv("attack-2010", 4, 16384, seed=0, threads=2)
        ref.reset()
        for _ in range(n):
            ref.step_random()
        same = lambda: np.array_equal(env.obs, ref.obs) and np.array_equal(env.reward, ref.reward)
        if not same():  # the interrupted call itself had run
            ref.step_random()
        env.step_random()
        ref.step_random()
        print("exact" if same() else "differs")
        """
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["exact"]


def test_ctrl_c_stops_a_long_policy_forward_part_way():
    """SIGINT during a forward pass over a large batch stops the call part way
    (before 2026-11-30 it ran the whole batch first), and the policy is
    unchanged. The measure is relative: the interrupted call against an
    uninterrupted one over the same batch, in the same process."""
    out = run_python(
        f"""
        import os, signal, threading, time, numpy as np, uno_attack as ua
        signal.signal(signal.SIGINT, signal.default_int_handler)
        p = ua.Policy({str(CHECKPOINT)!r})
        obs = np.zeros((100_000, ua.OBS_SIZE), np.float32)
        obs[:, ::7] = 1.0
        before = p.forward(obs[:5])
        t0 = time.perf_counter()
        p.forward(obs)
        whole = time.perf_counter() - t0
        threading.Timer(0.05, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t0 = time.perf_counter()
        try:
            p.forward(obs)
            print("returned")
        except KeyboardInterrupt:
            cut = time.perf_counter() - t0
            print("stopped part way" if cut < whole / 2 else f"stopped after {{cut:.2f}} of {{whole:.2f}} s")
        after = p.forward(obs[:5])
        same = all(np.array_equal(a, b) for a, b in zip(before, after))
        print("unchanged" if same else "changed")
        """
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines() == ["stopped part way", "unchanged"]


class Interrupting:
    """An opponent whose first turn is cut by Ctrl-C (KeyboardInterrupt); it
    plays the first legal action after that."""

    def __init__(self):
        self.armed = True

    def act(self, state):
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt
        return state.legal_actions()[0]

    def reset(self, seed):
        pass


def test_a_gym_step_interrupted_mid_way_must_be_reset():
    """Interrupted with the opponents' turns half played, the env went on:
    the next step applied the learner's action for an opponent's seat."""
    pytest.importorskip("gymnasium")
    from uno_attack.gym import UnoAttackEnv

    env = UnoAttackEnv("attack-2010", 4, opponents="random")
    obs, info = env.reset(seed=1)
    stub = Interrupting()
    for seat in env._agents:
        env._agents[seat] = stub
    with pytest.raises(KeyboardInterrupt):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.state.current_player != env.seat  # an opponent's turn, half played
    with pytest.raises(RuntimeError, match="interrupted"):
        env.step(int(np.flatnonzero(env.state.legal_mask())[0]))
    # A refused action does not count as an interruption; a reset recovers.
    obs, info = env.reset(seed=1)
    with pytest.raises(TypeError):
        env.step(2.5)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.state.current_player == env.seat or terminated or truncated


class InterruptedOnce:
    """A State stand-in whose first `is_round_over()` is cut by Ctrl-C."""

    def __init__(self, state):
        self._state, self._armed = state, True

    def is_round_over(self):
        if self._armed:
            self._armed = False
            raise KeyboardInterrupt
        return self._state.is_round_over()

    def __getattr__(self, name):
        return getattr(self._state, name)


def test_a_pettingzoo_step_interrupted_mid_way_must_be_reset():
    """Interrupted after the move but before the bookkeeping, the env went on
    with `agent_selection` naming a seat that was not to act."""
    pz = pytest.importorskip("uno_attack.pettingzoo")
    for e in (pz.raw_env(rules="classic", players=3), pz.env(rules="classic", players=3)):
        e.reset(seed=2)
        raw = e.unwrapped
        with pytest.raises(TypeError):
            raw.step(2.5)  # refused: not an interruption
        play(e, 1)
        raw._state = InterruptedOnce(raw._state)
        before = e.agent_selection
        with pytest.raises(KeyboardInterrupt):
            play(e, 1)
        assert e.agent_selection == before  # the bookkeeping was cut off
        with pytest.raises(RuntimeError, match="interrupted"):
            e.last()
        with pytest.raises(RuntimeError, match="interrupted"):
            raw.step(0)
        e.reset(seed=2)
        play(e, 3)
        assert e.agent_selection == f"player_{raw.game_state.current_player}"


def test_final_info_seat_survives_a_vector_step_cut_after_the_rust_step():
    """Ctrl-C during `step` raises just after the Rust step returns: the
    learner's seat per game, kept from the last step, went stale, and the next
    `final_info["seat"]` was the one before for games whose episodes ended in
    both steps (frequent with one-card hands)."""
    pytest.importorskip("gymnasium")
    from uno_attack.gym import UnoAttackVectorEnv

    rules = {"preset": "classic", "options": {"hand_size": 1}}
    envs = [UnoAttackVectorEnv(256, rules, 2, opponents="random", seat="rotate") for _ in range(2)]
    rng = np.random.default_rng(0)
    infos = [e.reset(seed=4)[1] for e in envs]
    checked = 0
    for step in range(6):
        mask = infos[0]["action_mask"]
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        if step == 2:
            envs[0]._env.step(actions)  # the Rust step of an interrupted call
            infos = [envs[0]._info(), envs[1].step(actions)[4]]
            continue
        infos = [e.step(actions)[4] for e in envs]
        if "final_info" in infos[1]:
            a, b = infos[0]["final_info"], infos[1]["final_info"]
            assert np.array_equal(a["seat"], b["seat"]), step
            checked += int(b["_seat"].sum())
    assert checked > 0
