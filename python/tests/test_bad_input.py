"""Bad input to the extension (from an adversarial audit): each case is a
clear Python exception naming the problem, with the env unchanged; never a
pyo3 PanicException, an abort or a hang."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import uno_attack as ua
from conftest import PYTHON_DIR


def test_a_forked_child_gets_an_error_not_a_hang():
    """Worker threads do not survive fork(): a threaded env used in a child
    raises at once; a single-threaded one works there; the parent goes on."""
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    threaded = ua.VecEnv("attack-2010", 4, 64, seed=0, threads=2)
    threaded.reset()
    solo = ua.VecEnv("attack-2010", 4, 64, seed=0, threads=2, opponents="random")
    solo.reset()
    single = ua.VecEnv("classic", 2, 8, seed=0, threads=1)
    single.reset()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report each outcome through the pipe, then exit
        out = []
        for env in (threaded, solo):
            try:
                env.step_random()
                out.append("stepped")
            except RuntimeError as e:
                out.append("fork" if "fork" in str(e) and "threads=2" in str(e) else str(e))
        single.step_random()
        out.append("single stepped")
        os.write(w, ",".join(out).encode())
        os._exit(0)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    got = os.read(r, 4096).decode()
    os.close(r)
    assert status == 0
    assert got == "fork,fork,single stepped"
    threaded.step_random()
    solo.step_random()


def test_out_of_memory_is_a_memory_error():
    """Buffers numpy cannot allocate raise MemoryError (not PanicException),
    and the interpreter lives on."""
    code = textwrap.dedent(
        """
        import resource, uno_attack as ua
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
        try:
            ua.VecEnv("attack-2010", 4, 1 << 20)
        except MemoryError:
            print("MemoryError")
        ua.VecEnv("attack-2010", 4, 16).reset()
        print("alive")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["MemoryError", "alive"], out.stdout + out.stderr


@pytest.mark.parametrize("opponents, spare_mb", [(None, 24), ("random", 100)])
def test_games_the_memory_cannot_hold_are_a_memory_error(opponents, spare_mb):
    """Room for the numpy buffers but not for the games: the env's own
    allocations raise MemoryError naming what ran out, and the interpreter
    lives on. Without opponents the 51 MB of game states do not fit in 24 MB
    (that was a ValueError). With them, 100 MB hold the games' slots (about
    64 MB) but not every game's nine agents besides: their small allocations
    used to abort the interpreter."""
    code = textwrap.dedent(
        f"""
        import re, resource, numpy as np, uno_attack as ua
        n = 100_000
        ua.VecEnv("attack-2010", 10, 16, opponents={opponents!r}).reset()
        # Room for what is mapped now, the env's buffers (twice an
        # observation, a mask and 76 bytes of per-game values a game) and
        # spare_mb more.
        vm = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
        per_game = 2 * 4 * ua.OBS_SIZE + ua.NUM_ACTIONS + 36 + 4 * 10
        limit = vm + n * per_game + ({spare_mb} << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
        try:
            ua.VecEnv("attack-2010", 10, n, opponents={opponents!r})
        except MemoryError as e:
            print("MemoryError", "out of memory for" in str(e))
        ua.VecEnv("attack-2010", 10, 16, opponents={opponents!r}).reset()
        print("alive")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["MemoryError", "True", "alive"], out.stdout + out.stderr


def test_a_failed_reset_keeps_the_seed():
    env = ua.VecEnv("attack-2010", 4, 8, seed=1)
    env.reset()
    before = env.obs.copy()
    env.obs.setflags(write=False)
    with pytest.raises(ValueError, match="buffer `obs`"):
        env.reset(seed=99)
    assert env.seed == 1
    env.obs.setflags(write=True)
    assert np.array_equal(env.obs, before)


def _set_strides(a, strides):
    """`a.strides = strides` (deprecated since numpy 2.4, still possible)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        a.strides = strides


@pytest.mark.parametrize(
    "name,change",
    [
        ("obs", lambda a: setattr(a, "dtype", np.int32)),
        ("mask", lambda a: setattr(a, "dtype", np.int8)),
        ("obs", lambda a: setattr(a, "shape", (-1,))),
        ("reward", lambda a: setattr(a, "dtype", np.int32)),
        # Fortran order: the same dtype and shape, but rows written in C
        # order read back scrambled (2026-11-29: stepped without an error).
        ("obs", lambda a: _set_strides(a, (4, 16))),
        # A gap between values: refused before, by a message naming no buffer.
        ("seat", lambda a: _set_strides(a, (8,))),
    ],
)
def test_a_retyped_or_reshaped_buffer_is_refused(name, change):
    env = ua.VecEnv("attack-2010", 4, 4, seed=2)
    env.reset()
    states = [env.state(i).to_json() for i in range(4)]
    change(getattr(env, name))
    with pytest.raises(ValueError, match=f"buffer `{name}` was changed"):
        env.step_random()
    assert [env.state(i).to_json() for i in range(4)] == states


def test_integer_arguments_refuse_bools_and_huge_values():
    with pytest.raises(TypeError, match="must be an int, got bool"):
        ua.action_name(True)
    with pytest.raises(ValueError, match="out of range"):
        ua.action_name(2**70)
    env = ua.VecEnv("classic", 2, 4)
    with pytest.raises(TypeError, match="got bool"):
        env.state(True)
    with pytest.raises(IndexError, match="out of range"):
        env.state(2**70)
    with pytest.raises(TypeError, match="seat must be an int, got bool"):
        ua.VecEnv("classic", 2, 2, opponents="random", seat=True)
    with pytest.raises(ValueError, match="0 to 3, not 5"):
        ua.VecEnv("attack-2010", 4, 2, opponents="random", seat=5)
    with pytest.raises(ValueError):
        ua.VecEnv("attack-2010", 4, 2, opponents="random", seat=2**200)
    assert ua.action_name(np.int64(0)) == ua.action_names()[0]


def test_numpy_scalars_in_dicts_are_their_values():
    g = ua.Game({"preset": "classic", "options": {"hand_size": np.int64(5), "mega_hit": np.bool_(False)}}, 3)
    assert g.rules()["options"]["hand_size"] == 5
    sc = g.scenario({"hands": [["R5"], ["B1"], ["Y2"]], "top": "R1", "current": np.int64(1)})
    assert sc.current_player == 1
    with pytest.raises(ValueError):
        ua.Game({"preset": "classic", "options": {"hand_size": np.float64("nan")}}, 3)
    # A value no rules file can hold, or an integer past 64 bits: the message names its key.
    with pytest.raises(TypeError, match="`options.hand_size` is a object, not a number"):
        ua.Game({"preset": "classic", "options": {"hand_size": object()}}, 3)
    with pytest.raises(ValueError, match="`options.target_score` is 1180591620717411303424, beyond"):
        ua.Game({"preset": "classic", "options": {"target_score": 2**70}}, 3)


def test_step_with_no_array_is_a_type_error():
    env = ua.VecEnv("classic", 2, 4)
    env.reset()
    for bad in (None, {}, "draw"):
        with pytest.raises(TypeError, match="one-dimensional array of integer action ids"):
            env.step(bad)


def test_describe_obs_takes_one_row_of_any_numbers():
    env = ua.VecEnv("classic", 2, 4)
    obs, _, _ = env.reset()
    text = ua.describe_obs(obs[0])
    assert ua.describe_obs(list(obs[0])) == text
    assert ua.describe_obs(obs[0].astype(np.float64)) == text
    assert ua.describe_obs(obs[:, :][0]) == text
    with pytest.raises(ValueError, match="one row of"):
        ua.describe_obs(obs)
    with pytest.raises(ValueError, match=f"has {ua.OBS_SIZE} values, got {ua.OBS_SIZE + 1}"):
        ua.describe_obs(np.zeros(ua.OBS_SIZE + 1, np.float32))
    with pytest.raises(TypeError, match="an observation must be an array"):
        ua.describe_obs("hand")


def test_rules_of_a_wrong_type_name_the_type():
    """bytes (also a bytes path) and numbers are refused with the accepted forms and the type given."""
    for bad, kind in ((b"classic", "bytes"), (3, "int"), (bytearray(b"x"), "bytearray")):
        with pytest.raises(ValueError, match=f"preset name.*not {kind}"):
            ua.Game(bad)
    assert ua.Game(pathlib_preset()).num_players == 4


def pathlib_preset():
    """A str os.PathLike to a rules file (still accepted)."""
    import pathlib
    import tempfile

    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    f.write('preset = "classic"\n')
    f.close()
    return pathlib.Path(f.name)


def test_a_mismatched_opponent_checkpoint_is_named(tmp_path):
    """With several checkpoints seated, the error says which one does not fit."""
    import json
    import shutil

    here = os.path.dirname(os.path.abspath(__file__))
    shipped = os.path.join(here, "..", "..", "checkpoints", "classic-2p")
    bad = tmp_path / "bumped"
    shutil.copytree(shipped, bad)
    meta = json.loads((bad / "meta.json").read_text())
    meta["obs_version"] += 5
    (bad / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="observation version") as e:
        ua.VecEnv("classic", 2, 4, seed=0, opponents=f"checkpoint:{bad}")
    assert str(bad) in str(e.value)


def test_none_and_object_arrays_are_not_numbers():
    # numpy would turn None into NaN (a mask of NaNs once passed silently).
    p = ua.Policy(PYTHON_DIR.parent / "checkpoints" / "classic-2p")
    obs = ua.Game("classic", 2).new_state(1).observation()
    logits, _ = p.forward(obs)
    for bad, what in ((None, "None"), ([None] * ua.OBS_SIZE, "list of objects"), (["a"] * ua.OBS_SIZE, "list of str")):
        with pytest.raises(TypeError, match=f"obs must be an array of numbers, got {what}"):
            p.forward(bad)
        with pytest.raises(TypeError, match=f"got {what}"):
            ua.describe_obs(bad)
    with pytest.raises(TypeError, match="mask must be an array of numbers, got list of objects"):
        p.forward(obs, mask=[None] * ua.NUM_ACTIONS)
    # Bools and ints are numbers.
    mask = ua.Game("classic", 2).new_state(1).legal_mask()
    assert (p.forward(obs, mask=mask.astype(bool))[0] == p.forward(obs, mask=list(mask))[0]).all()


def test_a_generator_of_actions_is_a_type_error_naming_it():
    env = ua.VecEnv("classic", 2, num_envs=4)
    env.reset()
    before = env.obs.copy()
    with pytest.raises(TypeError, match="got generator"):
        env.step(int(x) for x in env.mask.argmax(1))
    # A set has no order (it used to be a ValueError about "0 dimensions").
    for unordered in (set, frozenset):
        with pytest.raises(TypeError, match=f"got {unordered.__name__}"):
            env.step(unordered(range(4)))
    assert (env.obs == before).all()


def test_a_seed_that_is_no_int_is_a_type_error_naming_the_seed():
    # pyo3's own message named no argument ("'float' object cannot be
    # interpreted as an integer").
    with pytest.raises(TypeError, match="seed must be an int, got float"):
        ua.VecEnv("classic", 2, 2, seed=1.5)
    env = ua.VecEnv("classic", 2, 2, seed=3)
    with pytest.raises(TypeError, match="seed must be an int, got float"):
        env.reset(seed=1.0)
    assert env.seed == 3
    with pytest.raises(TypeError, match="seed must be an int, got str"):
        ua.Game("classic", 2).new_state(seed="7")


def test_a_bool_seed_is_a_type_error_as_for_every_int_argument():
    # pyo3 took True for 1 (a VecEnv's seed read 1), where `players`,
    # `num_envs`, `seat` and the Gymnasium and PettingZoo seeds refuse a bool.
    g = ua.Game("classic", 2)
    state = g.new_state(3)
    env = ua.VecEnv("classic", 2, 2, seed=3)
    for call, name in [
        (lambda: g.new_state(seed=True), "seed"),
        (lambda: g.new_state(1, stream=False), "stream"),
        (lambda: ua.VecEnv("classic", 2, 2, seed=True), "seed"),
        (lambda: env.reset(seed=True), "seed"),
        (lambda: ua.Agent("random", seed=True), "seed"),
        (lambda: ua.Agent("random").reset(False), "seed"),
        (lambda: state.resample_hidden(True), "seed"),
    ]:
        with pytest.raises(TypeError, match=f"{name} must be an int, got bool"):
            call()
    assert env.seed == 3
    assert g.new_state(1, stream=0) == g.new_state(1)


def test_a_game_as_rules_brings_its_table_size():
    g = ua.Game("classic", 2)
    assert ua.Game(g).num_players == 2
    assert ua.Game(g, 2).num_players == 2
    assert ua.VecEnv(g, num_envs=2).game.num_players == 2
    for make in (lambda: ua.Game(g, 3), lambda: ua.VecEnv(g, 4, num_envs=2)):
        with pytest.raises(ValueError, match="rules is a Game for 2 players"):
            make()
    with pytest.raises(TypeError, match="players must be an int"):
        ua.Game(g, "2")


def test_non_finite_observations_are_refused_by_policy_forward():
    # They used to come back as NaN logits and values, silently.
    p = ua.Policy(PYTHON_DIR.parent / "checkpoints" / "classic-2p")
    obs = np.stack([ua.Game("classic", 2).new_state(s).observation() for s in range(3)])
    want = p.forward(obs)
    for bad in (np.nan, np.inf, -np.inf):
        x = obs.copy()
        x[2, 7] = bad
        with pytest.raises(ValueError, match=rf"obs holds {'NaN' if np.isnan(bad) else ('-' if bad < 0 else '') + 'inf'} at row 2, column 7"):
            p.forward(x)
        one = obs[0].copy()
        one[5] = bad
        with pytest.raises(ValueError, match="at row 0, column 5"):
            p.forward(one)
    got = p.forward(obs)
    assert (got[0] == want[0]).all() and (got[1] == want[1]).all()


def test_a_bool_among_the_actions_is_a_type_error():
    # numpy made `[True, 13]` an int64 array, so game 0 played action 1.
    env = ua.VecEnv("classic", 2, 2, seed=50)
    env.reset()
    before = env.obs.copy()
    legal = [int(np.flatnonzero(m)[0]) for m in env.mask]
    for actions in ([True, legal[1]], (legal[0], np.True_), [np.bool_(False), legal[1]]):
        with pytest.raises(TypeError, match="got a bool among them"):
            env.step(actions)
    assert (env.obs == before).all()
    env.step(legal)
