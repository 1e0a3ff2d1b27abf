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


def test_readme_compiled_domain_example(tmp_path, monkeypatch):
    """The README's compiled Connect 4 searches exactly as the built-in does (same seed, same
    visits), written to a file as a user would (numba caches need a source file)."""
    import importlib

    from playout.domains.connect4 import Connect4
    from playout.mcts import compiled

    text = README.read_text()
    block = re.search(r"## Your own compiled domain.*?```python\n(.*?)```", text, re.S).group(1)
    path = tmp_path / "readme_connect4.py"
    path.write_text(block)
    monkeypatch.syspath_prepend(str(tmp_path))  # the user's `import mymodule`
    mod = importlib.import_module("readme_connect4")
    ours = compiled.search(mod.DOMAIN, None, 300, seed=3)
    builtin = compiled.search("connect4", Connect4.from_moves(""), 300, seed=3)
    assert ours.action == builtin.action
    assert [s.visits for s in ours.stats] == [s.visits for s in builtin.stats]
