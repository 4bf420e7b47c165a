"""`uno_attack.Policy`: a checkpoint's network from Python."""

import shutil
from pathlib import Path

import numpy as np
import pytest

import uno_attack as ua

CKPT = Path(__file__).resolve().parents[2] / "checkpoints" / "attack-2010-4p"


def numpy_forward(params, obs, layer_norm=False):
    """The forward pass from the documented parameter layout, in numpy."""
    h = obs.astype(np.float64)
    i = 0
    while f"trunk.{i}.weight" in params:
        h = h @ params[f"trunk.{i}.weight"] + params[f"trunk.{i}.bias"]
        if layer_norm:
            mean = h.mean(axis=1, keepdims=True)
            var = h.var(axis=1, keepdims=True)
            h = (h - mean) / np.sqrt(var + 1e-5) * params[f"norms.{i}.gamma"] + params[f"norms.{i}.beta"]
        h = np.maximum(h, 0.0)
        i += 1
    return h @ params["policy.weight"] + params["policy.bias"], (h @ params["value.weight"] + params["value.bias"])[:, 0]


def test_forward_matches_the_checkpoint_agent_and_the_parameters():
    p = ua.Policy(CKPT)
    assert (p.obs_dim, p.num_actions) == (ua.OBS_SIZE, ua.NUM_ACTIONS)
    assert p.hidden == [256, 256] and not p.layer_norm
    assert p.meta["rules"] == "attack-2010" and p.meta["players"] == 4
    assert "attack-2010" in repr(p)

    env = ua.VecEnv("attack-2010", players=4, num_envs=64, seed=3)
    obs, mask, _ = env.reset()
    logits, values = p.forward(obs, mask)
    assert logits.shape == (64, ua.NUM_ACTIONS) and logits.dtype == np.float32
    assert values.shape == (64,) and np.isfinite(values).all()
    assert (logits[mask == 0] == -1e9).all()
    # Right after the deal the launcher is full, so the checkpoint agent's
    # playing mask is the legal mask: its greedy actions are the argmax.
    agent = ua.Agent(f"checkpoint:{CKPT}")
    np.testing.assert_array_equal(np.argmax(logits, axis=1), agent.act_batch(env))

    # Without a mask: the raw logits, equal to the masked ones where legal.
    raw, raw_values = p.forward(obs)
    np.testing.assert_array_equal(raw[mask == 1], logits[mask == 1])
    np.testing.assert_array_equal(raw_values, values)
    assert (raw > -1e8).all()

    # The parameters compute the same function (a port to another framework).
    params = p.parameters()
    assert list(params) == [
        "trunk.0.weight", "trunk.0.bias", "trunk.1.weight", "trunk.1.bias",
        "policy.weight", "policy.bias", "value.weight", "value.bias",
    ]
    assert params["trunk.0.weight"].shape == (ua.OBS_SIZE, 256)
    assert params["value.weight"].shape == (256, 1)
    np_logits, np_values = numpy_forward(params, obs)
    np.testing.assert_allclose(np_logits, raw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np_values, values, rtol=1e-4, atol=1e-4)

    # One row in, one row out; any array-like of numbers.
    one_logits, one_value = p.forward(obs[5].astype(np.float64).tolist(), mask[5])
    assert one_logits.shape == (ua.NUM_ACTIONS,) and isinstance(one_value, float)
    np.testing.assert_array_equal(one_logits, logits[5])
    assert one_value == values[5]


def test_a_batch_run_in_pieces_gives_the_numbers_of_each_row_alone():
    """`forward` runs more than 4,096 rows in pieces (so Ctrl-C can stop it):
    rows on both sides of a piece's edge, and in the last short piece, come
    out as each row alone: the logits exactly, the values to the last bits
    (the backend's product for the 1-wide value head rounds differently at
    different batch sizes, in one call too)."""
    p = ua.Policy(CKPT)
    env = ua.VecEnv("attack-2010", players=4, num_envs=1250, seed=5)
    obs, mask, _ = env.reset()
    for _ in range(3):
        env.step_random()
    obs = np.concatenate([env.obs, obs, env.obs, obs])  # 5,000 rows
    mask = np.concatenate([env.mask, mask, env.mask, mask])
    logits, values = p.forward(obs, mask)
    assert logits.shape == (5000, ua.NUM_ACTIONS) and values.shape == (5000,)
    for i in (0, 4094, 4095, 4096, 4097, 4999):
        one_logits, one_value = p.forward(obs[i], mask[i])
        np.testing.assert_array_equal(logits[i], one_logits)
        assert values[i] == pytest.approx(one_value, rel=1e-6, abs=1e-6)


def test_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="checkpoint"):
        ua.Policy(tmp_path / "nothing-here")
    broken = tmp_path / "broken"
    shutil.copytree(CKPT, broken)
    model = broken / "model.bpk"
    model.write_bytes(model.read_bytes()[:1000])
    with pytest.raises(ValueError, match="broken"):
        ua.Policy(broken)

    p = ua.Policy(CKPT)
    obs = np.zeros((3, ua.OBS_SIZE), np.float32)
    with pytest.raises(ValueError, match=rf"\(n, {ua.OBS_SIZE}\)"):
        p.forward(np.zeros((3, 10), np.float32))
    with pytest.raises(ValueError, match=rf"got \(2, 3, {ua.OBS_SIZE}\)$"):
        p.forward(np.zeros((2, 3, ua.OBS_SIZE), np.float32))
    # The caller's shape, as Python writes it (numpy makes a 0-d array 1-d on the way).
    with pytest.raises(ValueError, match=r"got \(\)$"):
        p.forward(np.float32(1.0))
    with pytest.raises(ValueError, match=r"got \(10,\)$"):
        p.forward(np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="2 rows for 3"):
        p.forward(obs, np.ones((2, ua.NUM_ACTIONS), np.uint8))
    with pytest.raises(ValueError, match="mask"):
        p.forward(obs, np.ones((3, 5), np.uint8))
    with pytest.raises(TypeError, match="obs"):
        p.forward("not numbers")
    # An empty batch is fine.
    logits, values = p.forward(np.zeros((0, ua.OBS_SIZE), np.float32))
    assert logits.shape == (0, ua.NUM_ACTIONS) and values.shape == (0,)


def test_a_garbled_checkpoint_is_a_value_error_not_a_panic(tmp_path):
    # Bytes of model.bpk's header and metadata overwritten, and meta.json
    # mangled: a ValueError naming the problem (pyo3 turns a Rust panic into
    # PanicException, which is not one), or, where the byte did not matter,
    # a network that runs. Every variant is checked in Rust by
    # agents/tests/checkpoint_corrupt.rs; this is the binding's path.
    broken = tmp_path / "broken"
    shutil.copytree(CKPT, broken)
    model = broken / "model.bpk"
    meta = broken / "meta.json"
    good_model, good_meta = model.read_bytes(), meta.read_bytes()
    obs = np.zeros((1, ua.OBS_SIZE), np.float32)
    for at in [*range(0, 12), 40, 100, 250, 600, 1200, len(good_model) - 1]:
        for value in (0x00, 0xFF, ord("7")):
            garbled = bytearray(good_model)
            garbled[at] = value
            model.write_bytes(bytes(garbled))
            try:
                logits, values = ua.Policy(broken).forward(obs)
            except ValueError as e:
                assert "model.bpk" in str(e), f"byte {at} = {value}: {e}"
            else:
                assert np.isfinite(logits).all() and np.isfinite(values).all(), f"byte {at} = {value}"
    # A tensor whose stored type became i32 (same width): burn used to panic.
    model.write_bytes(good_model.replace(b"\x63F32", b"\x63I32", 1))
    with pytest.raises(ValueError, match="not as f32"):
        ua.Policy(broken)
    model.write_bytes(good_model)
    text = good_meta.decode()
    for bad, names in [
        (b"\xff\xfe{}", "meta.json"),
        (text.replace('"hidden": [', '"hidden": [1e18, ', 1).encode(), "meta.json"),
        # A huge network that the weights cannot fit: refused before it is built.
        (text.replace('"hidden": [', '"hidden": [16000, 15000, ', 1).encode(), "model.bpk"),
        (text.replace('"obs_dim": ', '"obs_dim": 1').encode(), "obs"),
        (("[" * 100_000).encode(), "meta.json"),
    ]:
        meta.write_bytes(bad)
        with pytest.raises(ValueError, match=names):
            ua.Policy(broken)


def test_weights_from_elsewhere_become_a_checkpoint(tmp_path):
    """`with_parameters` + `save`: a port trained in another framework comes back."""
    p = ua.Policy(CKPT)
    params = p.parameters()
    env = ua.VecEnv("attack-2010", players=4, num_envs=32, seed=5)
    obs, mask, _ = env.reset()
    logits, values = p.forward(obs, mask)

    # The same weights (as float64, in another key order) compute the same function.
    same = p.with_parameters({k: params[k].astype(np.float64) for k in reversed(list(params))})
    np.testing.assert_array_equal(same.forward(obs, mask)[0], logits)

    # Edited weights: +1 on the value bias moves every value by one, and round-trips
    # through a checkpoint directory that the arena's agents load.
    edited = dict(params)
    edited["value.bias"] = params["value.bias"] + 1.0
    q = p.with_parameters(edited)
    q_logits, q_values = q.forward(obs, mask)
    np.testing.assert_array_equal(q_logits, logits)
    np.testing.assert_allclose(q_values, values + 1.0, atol=1e-5)
    out = tmp_path / "ported"
    q.save(out, note="value bias shifted by one in a test")
    r = ua.Policy(out)
    np.testing.assert_array_equal(r.forward(obs, mask)[1], q_values)
    assert r.meta["eval"] == {}
    assert r.meta["trained_with"]["parameters_from_python"] is True
    assert r.meta["trained_with"]["from"] == str(CKPT)
    assert r.meta["trained_with"]["before"] == p.meta["trained_with"]
    assert r.meta["trained_with"]["note"] == "value bias shifted by one in a test"
    assert (r.meta["rules"], r.meta["players"]) == ("attack-2010", 4)
    agent = ua.Agent(f"checkpoint:{out}")
    np.testing.assert_array_equal(agent.act_batch(env), np.argmax(q_logits, axis=1))
    # The original is untouched.
    np.testing.assert_array_equal(p.forward(obs, mask)[1], values)
    # Saving an unedited policy keeps its metadata, with the checksum of the
    # weights file it writes (a version-2 checkpoint is saved widened to version 3).
    p.save(tmp_path / "copy")
    copy = ua.Policy(tmp_path / "copy").meta
    assert len(copy.pop("model_crc32")) == 8
    assert copy == {k: v for k, v in p.meta.items() if k != "model_crc32"}
    # An empty directory is fine.
    (tmp_path / "empty").mkdir()
    p.save(tmp_path / "empty")
    assert ua.Policy(tmp_path / "empty").meta == ua.Policy(tmp_path / "copy").meta


def test_save_refuses_a_directory_in_use_unless_told_to_overwrite(tmp_path):
    p = ua.Policy(CKPT)
    q = p.with_parameters({**p.parameters(), "value.bias": np.array([3.0], dtype=np.float32)})
    out = tmp_path / "ckpt"
    p.save(out)
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    # Over a checkpoint (here, p's copy): refused, nothing written.
    with pytest.raises(FileExistsError, match=r"already holds meta.json, model.bpk; pass overwrite=True"):
        q.save(out)
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    # Any other directory with files in it: refused too, naming a few of them.
    other = tmp_path / "notes"
    other.mkdir()
    for i in range(5):
        (other / f"n{i}.txt").write_text("keep")
    with pytest.raises(FileExistsError, match=r"holds n0.txt, n1.txt, n2.txt and 2 more"):
        q.save(other)
    assert sorted(f.name for f in other.iterdir()) == [f"n{i}.txt" for i in range(5)]
    # overwrite=True replaces the checkpoint there.
    q.save(out, overwrite=True)
    assert ua.Policy(out).parameters()["value.bias"][0] == 3.0


def test_bad_weights_are_a_clear_error(tmp_path):
    p = ua.Policy(CKPT)
    params = p.parameters()
    missing = {k: v for k, v in params.items() if k != "policy.bias"}
    with pytest.raises(ValueError, match="policy.bias is missing"):
        p.with_parameters(missing)
    with pytest.raises(ValueError, match="unknown parameter"):
        p.with_parameters({**params, "trunk.9.weight": np.zeros((2, 2))})
    with pytest.raises(ValueError, match=r"must have shape \[256, 1\]"):
        p.with_parameters({**params, "value.weight": np.zeros((1, 256))})
    nan = dict(params)
    nan["trunk.0.bias"] = params["trunk.0.bias"].copy()
    nan["trunk.0.bias"][3] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        p.with_parameters(nan)
    # Finite but far beyond any trained weight (a damaged exponent): refused too.
    huge = dict(params)
    huge["trunk.0.bias"] = params["trunk.0.bias"].copy()
    huge["trunk.0.bias"][3] = 1e35
    with pytest.raises(ValueError, match=r"trunk.0.bias holds a value that is beyond ±1e6"):
        p.with_parameters(huge)
    with pytest.raises(TypeError, match="policy.weight"):
        p.with_parameters({**params, "policy.weight": "weights"})
    # A file where the directory should go: an error naming it, nothing written.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="file"):
        p.save(blocker)
    assert blocker.read_text() == "x"


def test_a_network_from_weights_alone(tmp_path):
    """`Policy.from_parameters`: any MLP in the documented layout, for any table."""
    rng = np.random.default_rng(4)
    n, a = ua.OBS_SIZE, ua.NUM_ACTIONS
    params = {  # given out of order: the layout is read from the names
        "value.bias": np.array([0.25]),
        "policy.weight": rng.normal(size=(16, a)) * 0.1,
        "trunk.0.bias": rng.normal(size=16),
        "trunk.0.weight": rng.normal(size=(n, 16)) * 0.05,
        "policy.bias": np.zeros(a),
        "value.weight": rng.normal(size=(16, 1)),
    }
    p = ua.Policy.from_parameters(params, rules="classic", players=3)
    assert p.path is None and p.hidden == [16] and not p.layer_norm
    assert (p.meta["rules"], p.meta["players"], p.meta["obs_version"]) == ("classic", 3, ua.OBS_VERSION)
    assert "from parameters" in repr(p)
    env = ua.VecEnv("classic", players=3, num_envs=16, seed=2)
    obs, mask, _ = env.reset()
    logits, values = p.forward(obs)
    np_logits, np_values = numpy_forward(params, obs)
    np.testing.assert_allclose(logits, np_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, np_values, rtol=1e-4, atol=1e-4)

    out = tmp_path / "mlp"
    p.save(out, note="random weights")
    q = ua.Policy(out)
    assert q.meta["trained_with"] == {"parameters_from_python": True, "note": "random weights"}
    np.testing.assert_array_equal(q.forward(obs)[0], logits)
    agent = ua.Agent(f"checkpoint:{out}")
    np.testing.assert_array_equal(agent.act_batch(env), np.argmax(p.forward(obs, mask)[0], axis=1))

    # A linear policy: no trunk at all.
    lin = ua.Policy.from_parameters({
        "policy.weight": np.zeros((n, a)), "policy.bias": np.arange(a, dtype=np.float32),
        "value.weight": np.zeros((n, 1)), "value.bias": np.zeros(1)}, rules="classic", players=2)
    assert lin.hidden == []
    np.testing.assert_array_equal(lin.forward(obs)[0][0], np.arange(a))

    with pytest.raises(ValueError, match="reads"):
        ua.Policy.from_parameters({"policy.weight": np.zeros((5, a)), "policy.bias": np.zeros(a),
                                   "value.weight": np.zeros((5, 1)), "value.bias": np.zeros(1)},
                                  rules="classic", players=2)
    with pytest.raises(ValueError, match="policy.weight is missing"):
        ua.Policy.from_parameters({"value.bias": np.zeros(1)}, rules="classic", players=2)
    with pytest.raises(ValueError, match="players"):
        ua.Policy.from_parameters(params, rules="classic", players=11)
    with pytest.raises(ValueError, match="parameter tensors"):
        ua.Policy.from_parameters({**params, "bogus": np.zeros(3)}, rules="classic", players=2)


def test_check_table_refuses_other_rules_and_notes_another_table_size(tmp_path):
    p = ua.Policy(CKPT)
    assert p.check_table("attack-2010", 4) == []
    assert p.check_table(ua.Game("attack-2010", players=4)) == []
    (note,) = p.check_table("attack-2010", 2)
    assert note == f"note: checkpoint {CKPT} was trained with 4 players, playing with 2"
    with pytest.raises(ValueError, match=rf"checkpoint {CKPT} was trained for rules `attack-2010`, not `classic`"):
        p.check_table("classic", 4)
    # The same cards under another name play, with a note; other cards under the name do not.
    renamed = {"preset": "attack-2010", "name": "mine"}
    (note,) = p.check_table(renamed, 4)
    assert "was trained on `attack-2010`, the same rules as `mine`" in note
    with pytest.raises(ValueError, match="other cards"):
        p.check_table({"preset": "attack-2010", "deck": {"wild": 8}}, 4)
    # A network from weights alone is checked against the table it records.
    q = ua.Policy.from_parameters(p.parameters(), rules="classic", players=2)
    assert q.check_table("classic", 2) == []
    with pytest.raises(ValueError, match=r"checkpoint \(from parameters\) was trained for rules `classic`"):
        q.check_table("flash", 2)
    # Bad tables are the Game's errors.
    with pytest.raises(ValueError, match="players"):
        p.check_table("attack-2010", 11)
