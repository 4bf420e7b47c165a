"""The README's "From Python" example runs as written."""

import re

from conftest import PYTHON_DIR


def snippet():
    text = (PYTHON_DIR / "README.md").read_text()
    section = text.split("## From Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_runs(capsys):
    code = snippet()
    assert len(code.strip().splitlines()) <= 15
    exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "round won by" in out and "episodes finished" in out
