"""Every user mistake gives a one-line error naming what is wrong, never a traceback."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from playout.agents import SpecError, parse_spec
from playout.mcts import GenericSolver
from playout.mdp import Game, MDPError

USER_MODULE = """
from playout.mdp import MDP
class NeedsArgs(MDP):
    def __init__(self, size): self.size = size
    def initial_state(self): return 0
    def actions(self, s): return [1]
    def transition(self, s, a, rng): return s + 1
    def reward(self, s, a, t): return 0.0
    def is_terminal(self, s): return s > 2
"""


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "playout.cli", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("args,message", [
    (["solve", ":"], "use module:Class"),
    (["solve", "./mymod.py:Bandit"], "name the module, not the file"),
    (["solve", "nosuchmodule:X"], "cannot load 'nosuchmodule:X'"),
    (["solve", "usermod:NeedsArgs"], "cannot build 'usermod:NeedsArgs' without arguments"),
    (["solve", "connect4", "--c", "-1"], "must be a finite number >= 0"),
    (["solve", "connect4", "--c", "nan"], "must be a finite number >= 0"),
    (["solve", "connect4", "--iterations", "0"], "Invalid value for '--iterations'"),
    (["solve", "openspiel:nope"], "unknown OpenSpiel game 'nope'"),
    (["arena", "chess", "--a", "random", "--b", "random"], "unknown game 'chess'"),
    (["arena", "connect4", "--a", "mcts:iterations=0", "--b", "random"], "iterations must be >= 1"),
    (["arena", "connect4", "--a", "mcts:discount=2", "--b", "random"], "discount must be in (0, 1]"),
    (["arena", "connect4", "--a", "mcts:seconds=-1", "--b", "random"], "seconds must be a finite number > 0"),
    (["arena", "connect4", "--a", "mcts:c=-1", "--b", "random"], "c must be a finite number >= 0"),
    (["bg", "hint", "4HPwATDgc/ABMA:zzzzzzzzzzzz", "--dice", "31"],
     "match ID 'zzzzzzzzzzzz': score 32563-26521 is not below the match length 26239"),
    (["bg", "eval", "4HPwATDgc/ABMA", "--ply", "-3"], "ply: '-3' is out of range"),
    (["bg", "eval", "4HPwATDgc/ABMA", "--ply", "-1"], "ply: '-1' is out of range"),
    (["gtp", "--komi", "nan"], "komi must be a finite number"),
    (["go", "match", "a", "b", "--out", "m.jsonl", "--komi", "inf"], "komi must be a finite number"),
    (["go", "selfplay", "games", "--komi", "-nan"], "komi must be a finite number"),
])
def test_cli_usage_errors_are_one_line_exit_2(tmp_path, args, message):
    (tmp_path / "usermod.py").write_text(USER_MODULE)
    r = cli(*args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 4  # click's usage line, hint and the error


def test_trace_to_unwritable_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = cli("trace", "gridworld", "-n", "10", "--out", str(blocker / "sub"))
    assert r.returncode == 1 and "cannot write the trace" in r.stderr and "Traceback" not in r.stderr


def test_spec_duplicates_and_flags():
    with pytest.raises(SpecError, match="iterations is given twice"):
        parse_spec("mcts:iterations=50,iterations=60")
    with pytest.raises(SpecError, match=r"reuse='maybe' is not a true/false \(1/0\)"):
        parse_spec("mcts:reuse=maybe")
    assert parse_spec("mcts:reuse=true")[1] == {"reuse": 1}


class Faulty(Game):
    """A game whose members misbehave on demand."""

    def __init__(self, fault):
        self.fault = fault

    def initial_state(self):
        return 0

    def actions(self, s):
        return None if self.fault == "none-actions" else [1, 2]

    def transition(self, s, a, rng):
        return s + a

    def reward(self, s, a, t):
        return {"inf": math.inf, "str": "1"}.get(self.fault, 1.0 if t >= 4 else 0.0)

    def is_terminal(self, s):
        return s >= 4

    def to_play(self, s):
        return "white" if self.fault == "player" else s % 2


@pytest.mark.parametrize("fault,message", [
    ("none-actions", r"Faulty\.actions must return a sequence of actions, got None for state 0"),
    ("inf", r"Faulty\.reward returned inf \(not finite\)"),
    ("str", r"Faulty\.reward returned '1' \(not a real number\)"),
    ("player", r"Faulty\.to_play must return 0 or 1, got 'white'"),
])
def test_user_game_faults_name_the_member(fault, message):
    with pytest.raises(MDPError, match=message):
        GenericSolver(Faulty(fault), seed=0).run_tree_search(iterations=20)


def test_solver_rejects_bad_exploration_constant():
    with pytest.raises(ValueError, match="exploration_constant must be finite"):
        GenericSolver(Faulty("ok"), exploration_constant=math.nan)


def test_openspiel_action_names():
    pytest.importorskip("pyspiel")
    from playout.interop.openspiel import OpenSpielGame

    assert OpenSpielGame("tic_tac_toe").action_name(4) == "x(1,1)"
