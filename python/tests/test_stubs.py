"""The type stubs (`uno_attack/_core.pyi`) match the compiled extension.

mypy's stubtest imports the extension and compares every class, function,
constant and signature with the stub, so a parameter added in Rust and not in
the stub (or a stale one) fails here.
"""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")


def run_mypy(module: str, *args: str, cwd: Path) -> None:
    """Runs ``python -m <module> <args>`` in ``cwd`` and fails with its output unless it passes."""
    out = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_stubs_match_the_extension(tmp_path):
    allowlist = Path(__file__).with_name("stubtest-allowlist.txt")
    run_mypy("mypy.stubtest", "uno_attack._core", "--allowlist", str(allowlist), cwd=tmp_path)


def test_documented_calls_type_check(tmp_path):
    # Calls the README shows, as a user's type checker sees them: the weights
    # round trip (`Dict[str, ArrayLike]` in the stub refused the dict that
    # `parameters()` returns, as dict is invariant) and a `pathlib.Path` as
    # the rules of the Gymnasium and PettingZoo envs (the hints said str).
    src = tmp_path / "usage.py"
    src.write_text(
        "import pathlib\n"
        "import uno_attack\n"
        "from uno_attack.gym import UnoAttackEnv, UnoAttackVectorEnv\n"
        "from uno_attack.pettingzoo import raw_env\n"
        "\n"
        "def weights(p: uno_attack.Policy) -> None:\n"
        "    q = p.with_parameters(p.parameters())\n"
        "    uno_attack.Policy.from_parameters(q.parameters(), rules='classic', players=2)\n"
        "\n"
        "def envs(path: pathlib.Path) -> None:\n"
        "    UnoAttackEnv(rules=path)\n"
        "    UnoAttackVectorEnv(2, rules=path)\n"
        "    raw_env(rules=path)\n"
    )
    run_mypy("mypy", "--ignore-missing-imports", "--no-error-summary", str(src), cwd=tmp_path)
