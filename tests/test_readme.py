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


def test_readme_commands_exist():
    """Every `playout CMD [SUB]` the README shows answers --help."""
    from click.testing import CliRunner

    from playout.cli import main

    code, inside = [], False
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            code.append(line)
    seen = set()
    for line in code:
        for part in re.findall(r"playout ([a-z0-9-]+)(?: ([a-z0-9-]+))?", line):
            cmd = [p for p in part if p]
            if cmd[0] in ("go", "bg", "bench") and len(cmd) == 2:
                seen.add(tuple(cmd))
            else:
                seen.add((cmd[0],))
    assert ("solve",) in seen and ("bg", "pr") in seen and ("go", "patterns") in seen
    for cmd in sorted(seen):
        r = CliRunner().invoke(main, [*cmd, "--help"])
        assert r.exit_code == 0, (cmd, r.output)
        assert "unavailable" not in r.output, cmd
