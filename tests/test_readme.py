"""The README's example MDP runs and prints what the README says."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_mdp_example(capsys):
    text = README.read_text()
    block = re.search(r"## Your own MDP.*?```python\n(.*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "right"
    assert len(out) == 3 and all(line.startswith("ActionStats(") for line in out[1:])


def test_readme_has_two_setup_commands():
    text = README.read_text()
    setup = text.split("## Set up a fresh machine", 1)[1].split("## ", 1)[0]
    cmds = re.findall(r"```bash\n(.*?)\n```", setup, re.S)
    assert len(cmds) == 2
    assert "playout solve connect4" in cmds[0]
    assert "pytest" in cmds[1] and ".[test]" in cmds[1]
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert cmds[1].split("activate && ", 1)[1] in ci  # CI runs the README's test command
