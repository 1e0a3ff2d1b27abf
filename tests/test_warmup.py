"""Compile announcements (playout.jitcache) and ``playout warm-up``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from playout.cli import main

PROBE = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from numba import types
    import nbwarm_probe as m
    from playout.jitcache import announce_compile, is_cold
    sig = (types.int64,)
    print("cold", is_cold(m.f), is_cold(m.f, sig=sig), is_cold(m.f, sig=(types.float64,)))
    announce_compile("the probe", "~1 s", m.f)
    announce_compile("the probe", "~1 s", m.f)  # once per process
    print("value", m.f(1))
    print("after", is_cold(m.f), is_cold(m.f, sig=sig))
    """
)


def _run_probe(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True,
                          text=True, env=env, timeout=300, check=True)


def test_a_cold_cache_is_announced_once_on_stderr_and_a_warm_one_not(tmp_path):
    (tmp_path / "nbwarm_probe.py").write_text(
        "from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    first = _run_probe(tmp_path)
    assert first.stdout.split("\n")[:3] == ["cold True True True", "value 2", "after False False"]
    lines = [ln for ln in first.stderr.splitlines() if ln.startswith("playout: compiling")]
    assert len(lines) == 1 and "the probe" in lines[0] and "~1 s" in lines[0], first.stderr
    second = _run_probe(tmp_path)  # the cache written by the first process
    # int64 is cached now; float64 never was
    assert second.stdout.split("\n")[0] == "cold False False True"
    assert "playout: compiling" not in second.stderr
    # an edited source file invalidates the cache (numba's stamp): cold again
    (tmp_path / "nbwarm_probe.py").write_text(
        "from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x + 2\n")
    third = _run_probe(tmp_path)
    assert third.stdout.split("\n")[:2] == ["cold True True True", "value 3"]


def test_warm_up_steps_cover_each_part_and_all():
    from playout.warmup import STEPS, steps_for

    assert [s[1][0] for s in steps_for(("go",))] == ["gtp"]
    assert [s[1][:2] for s in steps_for(("bg",))] == [["bg", "eval"], ["bg", "hint"],
                                                      ["bg", "cube"], ["bg", "cube"],
                                                      ["bg", "rollout"]]
    # the second cube step runs the cubeful n-ply search (playout.backgammon.cubeful)
    assert steps_for(("bg",))[3][1][3:] == ["--ply", "2"]
    assert {s[1][1] for s in steps_for(("mcts",))} == {"gridworld", "push_your_luck",
                                                       "twenty48", "connect4", "reversi"}
    every = sum(len(v) for v in STEPS.values())
    assert len(steps_for(("all",))) == len(steps_for(())) == every
    assert len(steps_for(("go", "go", "bg"))) == 1 + 5


def test_warm_up_rejects_an_unknown_part_in_one_line():
    r = CliRunner().invoke(main, ["warm-up", "chess"])
    assert r.exit_code == 2
    assert "'chess' is not one of 'go', 'bg', 'mcts', 'all'" in r.output


def test_a_failing_step_is_reported_and_the_others_still_run(monkeypatch):
    from playout import warmup

    monkeypatch.setitem(warmup.STEPS, "mcts", [
        ("bad domain", ["solve", "no_such_domain", "--iterations", "5"], ""),
        ("gridworld", ["solve", "gridworld", "--iterations", "5", "--engine", "compiled"], ""),
    ])
    r = CliRunner().invoke(main, ["warm-up", "mcts"])
    assert r.exit_code == 1
    assert "warm-up 1/2: bad domain" in r.output and "FAILED" in r.output
    assert "warm-up 2/2: gridworld" in r.output
    assert "warm-up failed for: bad domain" in r.output


@pytest.mark.slow
def test_warm_up_all_succeeds_and_leaves_nothing_to_compile():
    """Every part's commands run (compiling what is cold: from a fresh clone, this is the
    suite's one cold compile; CI runs ``playout warm-up all`` first), and a second run finds
    every kernel cached: no compile announcement."""
    from playout.warmup import STEPS

    n = sum(len(v) for v in STEPS.values())
    cmd = [sys.executable, "-m", "playout.cli", "warm-up", "all"]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    assert first.returncode == 0, first.stderr[-3000:]
    assert f"warm-up: {n}/{n} steps" in first.stderr
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "playout: compiling" not in second.stderr, second.stderr


def test_bg_eval_announces_only_the_kernels_it_calls_from_python(monkeypatch):
    # A kernel called only from inside another keeps no cache of its own, so naming it made
    # `bg eval` announce a compile on every run (legal_moves_into: only checker plays call it).
    from playout.backgammon import search
    from playout.backgammon.board import STARTING_BOARD
    from playout.backgammon.evaluators import get_evaluator

    seen = []
    monkeypatch.setattr(search, "announce_compile", lambda what, est, *kernels: seen.append(kernels))
    search.pre_roll_probs(get_evaluator(), STARTING_BOARD, 1)
    assert seen == [(search.value_ply,)]
    seen.clear()
    search.choose_move(STARTING_BOARD, (3, 1))
    assert seen == [(search.value_ply, search.legal_moves_into)]
