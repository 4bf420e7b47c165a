"""python/examples/reinforce_numpy.py: it learns, it is deterministic, its CLI works.

The example runs in a subprocess (``sys.executable``), as a user runs it: it
limits the BLAS threads before numpy is imported, which an import into this
process (numpy already loaded) could not do.
"""

import json
import math
import subprocess
import sys

from conftest import PYTHON_DIR

EXAMPLE = PYTHON_DIR / "examples" / "reinforce_numpy.py"

# Loads the example by path, calls main(argv) and prints its results as JSON
# on the last line (the weights as a SHA-256 of their bytes).
RUN_MAIN = """
import hashlib, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("reinforce_numpy", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
r = mod.main(sys.argv[2:])
digest = hashlib.sha256(b"".join(r["params"][k].tobytes() for k in sorted(r["params"])))
print(json.dumps({"before": r["before"], "after": r["after"], "params": digest.hexdigest()}))
"""

# About 3 s a run on the 2-core machine. Against random-play the untrained
# (uniform) policy wins 2.5-5.2% of these 400 rounds and the trained one
# 43-58% over seeds 0..7 (seed 0: 2.8% -> 50.7%, 18 standard errors apart).
QUICK = ["--updates", "30", "--envs", "32", "--eval-games", "400", "--quiet"]


def run_main(*argv):
    out = subprocess.run(
        [sys.executable, "-c", RUN_MAIN, str(EXAMPLE), *argv],
        capture_output=True, text=True, timeout=300, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_training_beats_the_untrained_policy_and_is_deterministic():
    first = run_main(*QUICK, "--seed", "0")
    (w0, n0), (w1, n1) = first["before"], first["after"]
    assert n0 == n1 == 400
    p0, p1 = w0 / n0, w1 / n1
    # Standard error of the difference of two independent win rates. Both
    # evaluations play the same deals, which only correlates them positively,
    # so this overstates the noise of the difference.
    se = math.sqrt(p0 * (1 - p0) / n0 + p1 * (1 - p1) / n1)
    assert p1 - p0 > 4 * se, (first, se)
    assert p1 > 0.2, first
    # Same seed, same everything: evaluations and the trained weights, bit for bit.
    assert run_main(*QUICK, "--seed", "0") == first
    # The seed is used: another one trains other weights (same flags).
    assert run_main(*QUICK, "--seed", "1")["params"] != first["params"]


def run_cli(*argv):
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *argv], capture_output=True, text=True, timeout=120
    )


def test_help_exits_0():
    out = run_cli("--help")
    assert out.returncode == 0, out.stderr
    assert "--eval-games" in out.stdout and "--opponent" in out.stdout


def test_bad_flags_are_usage_errors():
    for argv in (["--updates", "x"], ["--envs", "0"], ["--rules", "nope"],
                 ["--opponent", "bogus"], ["--players", "11"], ["--no-such-flag"],
                 # A NaN step size trained a NaN network that still "won" (its first legal action).
                 ["--lr", "nan"], ["--lr", "0"], ["--entropy", "-1"], ["--entropy", "inf"]):
        out = run_cli(*argv)
        assert out.returncode == 2, (argv, out.stderr)
        assert "error:" in out.stderr and "Traceback" not in out.stderr, (argv, out.stderr)


EVALUATE = PYTHON_DIR / "examples" / "evaluate_policy.py"
CLASSIC = str(PYTHON_DIR.parent / "checkpoints" / "classic-2p")


def run_evaluate(*argv):
    return subprocess.run(
        [sys.executable, str(EVALUATE), *argv], capture_output=True, text=True, timeout=300
    )


def test_evaluate_policy_measures_a_checkpoint_reproducibly():
    quick = ["--rules", "classic", "--players", "2", "--opponent", "random", "--games", "1000",
             "--envs", "100", "--json"]
    out = run_evaluate("--checkpoints", CLASSIC, *quick)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    # Every one of the 100 games plays 10 rounds; the shipped network wins
    # 98% of rounds against `random` on 20,000 (checkpoints/README.md).
    assert r["rounds"] == 1000 and r["truncated"] == 0
    assert r["win_rate"] > 0.9 and r["ci95"][0] < r["win_rate"] < r["ci95"][1], r
    assert json.loads(run_evaluate("--checkpoints", CLASSIC, *quick).stdout) == r
    # An ensemble of one network with itself plays as that network.
    twice = run_evaluate("--checkpoints", f"{CLASSIC},{CLASSIC}", "--weights", "0.3,0.7", *quick)
    assert json.loads(twice.stdout) == r
    # Another table size than the network's gets a note, and still runs.
    other = run_evaluate("--checkpoints", CLASSIC, "--rules", "classic", "--players", "3", "--games", "10",
                         "--json")
    assert other.returncode == 0, other.stderr
    assert "was trained with 2 players, playing with 3" in other.stderr
    # Other rules are refused, as `uno-attack arena` refuses them (the default rules
    # are attack-2010).
    wrong = run_evaluate("--checkpoints", CLASSIC, "--players", "2", "--games", "10")
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr, wrong.stderr
    assert "was trained for rules `classic`, not `attack-2010`" in wrong.stderr
    assert wrong.stdout == ""


def test_evaluate_policy_bad_flags_are_usage_errors():
    for argv in (["--checkpoints", "no-such-dir"], ["--checkpoints", CLASSIC, "--weights", "1,2"],
                 ["--checkpoints", CLASSIC, "--weights", "x"], ["--checkpoints", CLASSIC, "--opponent", "bogus"],
                 ["--checkpoints", CLASSIC, "--games", "0"], ["--checkpoints", CLASSIC, "--players", "11"],
                 # Weights of 0, below 0 or NaN undid the mask: illegal actions were played.
                 ["--checkpoints", CLASSIC, "--weights", "0"], ["--checkpoints", CLASSIC, "--weights=-1"],
                 ["--checkpoints", CLASSIC, "--weights", "nan"]):
        out = run_evaluate(*argv)
        assert out.returncode == 2, (argv, out.stderr)
        assert "error:" in out.stderr and "Traceback" not in out.stderr, (argv, out.stderr)


def test_save_into_a_directory_in_use_is_refused_before_training(tmp_path):
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("keep me")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for target, says in ((used, "already holds files"), (blocker, "a file is in the way")):
        run = run_cli(*QUICK, "--save", str(target))
        assert run.returncode == 2 and says in run.stderr, run.stderr
        assert "update" not in run.stdout, run.stdout  # refused before any training
    assert sorted(p.name for p in used.iterdir()) == ["notes.txt"]
    assert blocker.read_text() == "x"


def test_save_writes_a_checkpoint_the_rust_side_plays(tmp_path):
    import numpy as np
    import uno_attack as ua

    out = tmp_path / "linear"
    run = run_cli(*QUICK, "--save", str(out))
    assert run.returncode == 0, run.stderr
    assert f"saved {out}" in run.stdout
    policy = ua.Policy(out)
    assert policy.hidden == [] and (policy.meta["rules"], policy.meta["players"]) == ("classic", 2)
    assert "reinforce_numpy.py, 30 updates" in policy.meta["trained_with"]["note"]
    # The saved policy is the trained one: played greedily by the `checkpoint:` agent
    # against random-play it wins far more than the untrained (uniform) policy's 2.5-5.2%.
    bot = ua.Agent(f"checkpoint:{out}")
    env = ua.VecEnv("classic", players=2, num_envs=100, seed=1, opponents="random-play", seat=0)
    env.reset()
    wins = rounds = 0
    while rounds < 400:
        _, _, _, reward, terminated, truncated = env.step(bot.act_batch(env))
        done = (terminated | truncated).astype(bool)
        wins += int((reward[done] > 0).sum())
        rounds += int(done.sum())
    assert wins / rounds > 0.2, (wins, rounds)
