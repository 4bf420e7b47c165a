"""python/bench.py: its header and its argument checks."""

import subprocess
import sys

from conftest import PYTHON_DIR

BENCH = PYTHON_DIR / "bench.py"


def run(*args):
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=300)


def test_header_shows_fractional_seconds():
    r = run("--seconds", "0.05", "--envs", "8", "--threads", "1", "--rules", "classic", "--players", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "classic, 2 players, 0.05 s per cell; steps/s (M)"
    assert lines[2].split()[:2] == ["8", "1"]


def test_bad_arguments_are_one_line_errors():
    for args, message in [
        (("--seconds", "0"), "--seconds must be a positive number of seconds, got 0"),
        (("--seconds", "-1"), "--seconds must be a positive number of seconds, got -1"),
        (("--seconds", "nan"), "--seconds must be a positive number"),
        (("--seconds", "inf"), "--seconds must be a positive number"),
        (("--envs", "0"), "--envs must be at least 1, got 0"),
        (("--threads", "0"), "--threads must be at least 1, got 0"),
        (("--players", "11"), "invalid player count 11"),
        (("--threads", "1000", "--seconds", "0.01"), "threads"),
    ]:
        r = run(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert message in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_a_bad_cell_is_refused_before_any_cell_runs():
    # The first cell is fine, the second asks for too many threads: the
    # error comes before the table, with nothing measured.
    r = run("--seconds", "0.01", "--envs", "8", "--threads", "1", "1000", "--rules", "classic", "--players", "2")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "--envs 8 --threads 1000" in r.stderr, r.stderr
    assert r.stdout == "", r.stdout
