"""The MCTS commands: solve, play, trace; errors for bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

from click.testing import CliRunner

from playout.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_solve_connect4_json_python_engine():
    r = run("solve", "connect4", "--engine", "python", "-n", "300", "--json")
    assert r.exit_code == 0
    out = json.loads(r.stdout)
    assert out["iterations"] == 300
    assert sum(s["visits"] for s in out["stats"]) == 300
    assert {s["action"] for s in out["stats"]} == set("1234567")
    assert out["settings"]["c"] == 1.4 and out["settings"]["discount"] == 0.7


def test_solve_prints_table():
    r = run("solve", "gridworld", "--engine", "python", "-n", "200")
    assert r.exit_code == 0
    assert "recommended action:" in r.output and "exploration term" in r.output


def test_unknown_domain_is_one_line_exit_2():
    p = subprocess.run([sys.executable, "-m", "playout.cli", "solve", "chess"], capture_output=True, text=True)
    assert p.returncode == 2
    assert "unknown domain 'chess'" in p.stderr and "Traceback" not in p.stderr


def test_unknown_option_exit_2():
    p = subprocess.run([sys.executable, "-m", "playout.cli", "solve", "connect4", "--bogus"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "No such option" in p.stderr


def test_user_mdp_by_module_path(tmp_path):
    (tmp_path / "mymdp.py").write_text(
        "from playout.mdp import MDP\n"
        "class Corridor(MDP):\n"
        "    def initial_state(self): return 0\n"
        "    def actions(self, s): return ['left', 'right']\n"
        "    def transition(self, s, a, rng): return max(0, s - 1) if a == 'left' else s + 1\n"
        "    def reward(self, s, a, t): return 1.0 if t == 3 else 0.0\n"
        "    def is_terminal(self, s): return s == 3\n"
        "class NoMoves(Corridor):\n"
        "    def actions(self, s): return []\n")
    p = subprocess.run([sys.executable, "-m", "playout.cli", "solve", "mymdp:Corridor", "--discount", "0.9",
                        "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["action"] == "right"
    p = subprocess.run([sys.executable, "-m", "playout.cli", "solve", "mymdp:NoMoves"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1 and "NoMoves.actions returned no actions" in p.stderr
    assert "Traceback" not in p.stderr


def test_play_connect4_self_play_ends():
    r = run("play", "connect4", "--engine", "python", "-n", "100", "--quiet")
    assert r.exit_code == 0
    assert r.output.startswith("game over after ")


def test_play_stopped_at_the_step_limit_says_so_once():
    r = run("play", "gridworld", "-n", "20", "--quiet", "--max-steps", "1")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("stopped at the 1-step limit after 1 steps; total reward ")


def test_trace_gridworld_optimal_actions_lead(tmp_path):
    r = run("trace", "gridworld", "--iterations", "1000", "--c", "1.0", "--seed", "0", "--out", str(tmp_path))
    assert r.exit_code == 0
    for name in ("trace.csv", "exploration.png", "reward.png", "visits.png"):
        assert (tmp_path / name).stat().st_size > 1000
    rows = list(csv.DictReader(open(tmp_path / "trace.csv")))
    last = {r["action"]: int(r["visits"]) for r in rows if r["iteration"] == "1000"}
    assert sum(last.values()) == 1000
    top_two = sorted(last, key=last.get, reverse=True)[:2]
    assert set(top_two) == {"left", "down"}


def test_play_with_tree_reuse_carries_visits():
    r = run("play", "connect4", "--reuse", "-n", "300", "--max-steps", "3")
    assert r.exit_code == 0
    carried = [int(line.split()[1]) for line in r.output.splitlines() if line.startswith("(reused")]
    assert carried[0] == 0 and all(v > 0 for v in carried[1:])


def test_play_reversi_names_the_winner_and_the_disc_score():
    import re

    r = run("play", "reversi", "-n", "30", "--quiet", "--seed", "3")
    assert r.exit_code == 0, r.output
    m = re.fullmatch(r"game over after (\d+) moves: (X \(black\)|O \(white\)) wins \(X (\d+), O (\d+)\); "
                     r"player 0 reward ([-+]\d\.\d{3})\n", r.output)
    assert m, r.output
    winner, black, white, reward = m.group(2), int(m.group(3)), int(m.group(4)), float(m.group(5))
    assert black != white and (winner == "X (black)") == (black > white)
    assert reward == round((black - white) / 64, 3)


def test_game_result_draw_loss_and_fallback_names():
    from playout.cli_core import game_result
    from playout.domains.connect4 import Connect4
    from playout.domains.reversi import Reversi, ReversiState

    full = ReversiState(tuple([1] * 32 + [2] * 32), 0)  # 32-32 on a full board
    assert game_result(Reversi(), full, 0.0) == "draw (X 32, O 32)"
    assert game_result(Reversi(), full, -0.5) == "O (white) wins (X 32, O 32)"
    # a game without names or a score: players by number, no score
    assert game_result(Connect4(), Connect4.from_moves("4455667"), 1.0) == "player 0 wins"
    assert game_result(Connect4(), Connect4.from_moves("4455667"), -1.0) == "player 1 wins"


def test_play_connect4_names_the_winner():
    r = run("play", "connect4", "--engine", "python", "-n", "100", "--quiet")
    line = r.output.strip()
    assert line.startswith("game over after ")
    assert line.split(": ", 1)[1].split(";")[0] in ("player 0 wins", "player 1 wins", "draw"), line
