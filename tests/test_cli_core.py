"""The MCTS commands: solve, play, trace; errors for bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from playout.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_solve_connect4_json_python_engine():
    r = run("solve", "connect4", "--engine", "python", "-n", "300", "--json", "--exploration", "anchor")
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
    assert r.stdout.startswith("game over after ")


def test_play_stopped_at_the_step_limit_says_so_once():
    r = run("play", "gridworld", "-n", "20", "--quiet", "--max-steps", "1")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("stopped at the 1-step limit after 1 steps; total reward ")


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
                     r"player 0 reward ([-+]\d\.\d{3})\n", r.stdout)
    assert m, r.output
    winner, black, white, reward = m.group(2), int(m.group(3)), int(m.group(4)), float(m.group(5))
    assert black != white and (winner == "X (black)") == (black > white)
    assert reward == round((black - white) / 64, 3)


def test_game_result_draw_loss_and_fallback_names():
    from playout.cli.human import game_result
    from playout.domains.connect4 import Connect4
    from playout.domains.reversi import Reversi, ReversiState

    full = ReversiState(tuple([1] * 32 + [2] * 32), 0)  # 32-32 on a full board
    assert game_result(Reversi(), full, 0.0) == "draw (X 32, O 32)"
    assert game_result(Reversi(), full, -0.5) == "O (white) wins (X 32, O 32)"
    assert game_result(Connect4(), Connect4.from_moves("4455667"), 1.0) == "X wins"
    assert game_result(Connect4(), Connect4.from_moves("4455667"), -1.0) == "O wins"

    class Anonymous(Connect4):
        player_name = None  # a game without names or a score: players by number, no score

    assert game_result(Anonymous(), Connect4.from_moves("4455667"), 1.0) == "player 0 wins"
    assert game_result(Anonymous(), Connect4.from_moves("4455667"), -1.0) == "player 1 wins"


def test_play_connect4_names_the_winner():
    r = run("play", "connect4", "--engine", "python", "-n", "100", "--quiet")
    line = r.output.strip()
    assert line.startswith("game over after ")
    assert line.split(": ", 1)[1].split(";")[0] in ("X wins", "O wins", "draw"), line


# -- play --human -------------------------------------------------------------------------
PROMPT_C4 = "your move (1, 2, 3, 4, 5, 6, 7; quit to stop): "


def human(*args, input):
    return CliRunner().invoke(main, ["play", *args], input=input, catch_exceptions=False)


def test_human_connect4_rejects_bad_input_and_full_columns_and_the_game_goes_on():
    # seed 0, 200 Python iterations: the engine lets column 4 fill (X X X O X X), then wins on column 5
    r = human("connect4", "--human", "first", "--engine", "python", "-n", "200", "--exploration", "anchor",
              input="8\nabc\n\n" + "4\n" * 8 + "1\n2\n3\n5\n6\n7\n" * 7)
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("you play X (first); the engine plays O\n")
    assert PROMPT_C4 + "illegal move: not a Connect 4 column (1-7): '8'; try again\n" in out
    assert "illegal move: not a Connect 4 column (1-7): 'abc'; try again\n" in out
    full = "your move (1, 2, 3, 5, 6, 7; quit to stop): illegal move: 4 is not legal here: column 4 is full; try again\n"
    assert out.count(full) == 3  # the 6th..8th "4" after the column filled
    assert "engine plays 5 (30/200 visits, 15%)\n" in out  # the share of the root's 200 visits
    assert out.count("): engine plays ") == 8  # 16 plies, 8 of them the engine's
    assert out.endswith("O wins\ngame over after 16 moves: O wins; you played X; player 0 reward -1.000\n")


def test_human_second_engine_moves_first_and_end_of_input_stops_cleanly():
    from playout.domains.connect4 import Connect4

    r = human("connect4", "--human", "second", "--engine", "python", "-n", "50", "--exploration", "anchor",
              input="")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == "you play O (second); the engine plays X"
    assert lines[1:9] == Connect4.render(Connect4().initial_state()).splitlines()
    assert lines[9].startswith("engine plays ") and "/50 visits" in lines[9]  # then its board
    assert lines[-2] == PROMPT_C4
    assert lines[-1] == "game abandoned after 1 moves (end of input)"


def test_human_quit_and_reversi_illegal_square():
    r = human("reversi", "--human", "first", "--engine", "python", "-n", "20", input="a1\nzz\nquit\n")
    assert r.exit_code == 0, r.output
    assert "your move (d3, c4, f5, e6; quit to stop): illegal move: a1 is not legal here: " \
           "a1 is not a legal move for black; try again\n" in r.output
    assert "illegal move: not a Reversi move (a1..h8 or pass): 'zz'; try again\n" in r.output
    assert r.output.endswith("game abandoned after 0 moves (quit)\n")


def test_human_needs_a_two_player_game():
    r = CliRunner().invoke(main, ["play", "gridworld", "--human", "first"])
    assert r.exit_code == 2 and "gridworld is not a two-player game; --human needs one" in r.output


#: a random game (seed 2) after which black (to move) must pass: 58 plies
PASS_LINE = ("d3 c3 b3 e3 f3 c5 f6 g2 b5 c6 f4 a5 h1 f5 d6 e7 d7 e6 d8 c4 c7 b7 a8 b6 a4 f8 g4 b4 e8 a3 "
             "a7 g5 g8 c2 h4 g3 a2 h3 c1 d1 d2 e1 f1 f7 a6 h6 e2 b8 g7 c8 h5 g6 h2 h7 h8 g1 b2 f2")


def test_human_reversi_pass_is_prompted_and_only_pass_is_taken(capsys):
    from playout.cli.human import ask_move
    from playout.domains.reversi import PASS, Reversi

    game = Reversi()
    s = game.initial_state()
    for m in PASS_LINE.split():
        s = game.transition(s, Reversi.parse_action(m))
    assert s.to_play == 0 and game.actions(s) == [PASS]
    lines = iter(["a1\n", "d3\n", "PASS\n"])
    assert ask_move(game, s, Reversi.action_name, lambda: next(lines)) == PASS
    out = capsys.readouterr().out
    assert out.count("your move (pass; quit to stop): ") == 3
    assert "illegal move: a1 is not legal here: pass is not legal" not in out
    assert "illegal move: a1 is not legal here: a1 is not a legal move for black; try again" in out
    assert "illegal move: d3 is not legal here: d3 is not a legal move for black; try again" in out


def test_parse_move_by_name_without_parse_action():
    from playout.cli.human import parse_move
    from playout.domains.connect4 import Connect4

    class Named(Connect4):
        parse_action = None  # fall back to matching the legal moves' names

    g = Named()
    s = Connect4.from_moves("444444")
    assert parse_move(g, s, " 3 ", Connect4.action_name) == 2
    with pytest.raises(ValueError, match=r"^'4' is not a legal move here$"):
        parse_move(g, s, "4", Connect4.action_name)
