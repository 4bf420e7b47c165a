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


def test_stubs_match_the_extension(tmp_path):
    allowlist = Path(__file__).with_name("stubtest-allowlist.txt")
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "uno_attack._core", "--allowlist", str(allowlist)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
