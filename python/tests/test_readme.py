"""The README's "From Python" example runs as written (the package README and the root one)."""

import re

import pytest

from conftest import PYTHON_DIR

READMES = [PYTHON_DIR / "README.md", PYTHON_DIR.parent / "README.md"]


def snippet(path):
    text = path.read_text()
    section = text.split("## From Python", 1)[1]
    # The closing fence must stand on its own line (CommonMark): a fence at the
    # end of a code line does not close the block, and the rest of the page
    # would render as code.
    m = re.search(r"^```python\n(.*?)^```$", section, re.S | re.M)
    assert m and "```" not in m.group(1), (
        f"{path}: the Python block is not closed by a fence on its own line"
    )
    return m.group(1)


@pytest.mark.parametrize("path", READMES, ids=["python/README.md", "README.md"])
def test_readme_example_runs(capsys, path):
    code = snippet(path)
    # The issue asks for a 10-line example: ten lines of code, blank ones aside.
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    exec(compile(code, str(path), "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "round won by" in out and "episodes finished" in out
