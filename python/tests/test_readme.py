"""The README's "From Python" example runs as written (the package README and the root one)."""

import re

import pytest

from conftest import PYTHON_DIR

READMES = [PYTHON_DIR / "README.md", PYTHON_DIR.parent / "README.md"]


def snippet(path):
    text = path.read_text()
    section = text.split("## From Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.parametrize("path", READMES, ids=["python/README.md", "README.md"])
def test_readme_example_runs(capsys, path):
    code = snippet(path)
    assert len(code.strip().splitlines()) <= 15
    exec(compile(code, str(path), "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "round won by" in out and "episodes finished" in out
