"""``playout bg`` commands: JSON output and one-line errors for bad input."""

import json

import pytest
from click.testing import CliRunner

from playout.backgammon.cli import bg, move_text
from playout.backgammon.board import STARTING_BOARD

START = "4HPwATDgc/ABMA"


def run(*args):
    return CliRunner().invoke(bg, list(args))


def test_hint_json_best_31():
    r = run("hint", START, "--dice", "31", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["moves"][0]["move"] == "8/5 6/5"  # the standard 3-1 opening: make the 5-point
    eqs = [m["equity"] for m in out["moves"]]
    assert eqs == sorted(eqs, reverse=True)


def test_hint_gnubg_ply_spelling_and_match_id_dice():
    r = run("hint", START + ":cIkFAAAAAAAA", "--ply", "1g", "--json", "--top", "3")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["ply"] == 2 and out["dice"] == [3, 1]


def test_eval_cube_play_rollout_json():
    r = run("eval", START, "--json")
    assert r.exit_code == 0 and len(json.loads(r.stdout)["probs"]) == 5
    r = run("cube", START, "--json")
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["double"] is False and d["equity_dp"] == 1.0
    r = run("play", "--seed", "2", "--json")
    g = json.loads(r.stdout)
    assert r.exit_code == 0 and g["points"] in (1, 2, 3) and g["plies"] == len(g["record"])
    r = run("rollout", START, "--dice", "31", "--trials", "36", "--truncate", "2", "--workers", "0",
            "--candidates", "2", "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)["results"]
    assert len(res) == 2 and all(x["trials"] == 36 and x["std_error"] >= 0 for x in res)
    assert json.loads(r.stdout)["luck"] == "ranked"
    r = run("rollout", START, "--trials", "36", "--truncate", "4", "--workers", "0", "--luck", "full",
            "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["luck"] == "full"
    # the JSON says what was done: pubeval always uses full luck, cubeful trials have no VR
    r = run("rollout", START, "--trials", "36", "--truncate", "2", "--workers", "0", "--evaluator",
            "pubeval", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["luck"] == "full"
    r = run("rollout", START, "--trials", "36", "--workers", "0", "--cubeful", "--json")
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["vr"] is False and d["luck"] is None


@pytest.mark.parametrize("args, field", [
    (["hint", "4HPwATDgc/AB", "--dice", "31"], "POSITION"),
    (["hint", START, "--dice", "71"], "--dice"),
    (["hint", START], "--dice"),
    (["hint", START, "--dice", "31", "--ply", "x"], "--ply"),
    (["eval", "1,2,3"], "POSITION"),
    (["eval", START, "--evaluator", "nope"], "--evaluator"),
    (["eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0"], "POSITION"),
    (["hint", START, "--dice", "31", "--top", "0"], "--top"),
    (["hint", START, "--dice", "31", "--ply", "5"], "--ply"),
    (["rollout", START, "--truncate", "-2"], "--truncate"),
    (["rollout", START, "--workers", "-1"], "--workers"),
    (["rollout", START, "--trials", "0"], "--trials"),
    (["rollout", START, "--luck", "half"], "--luck"),
    (["cube", START, "--cube", "0"], "--cube"),
    (["play", "--opponent", "nosuch"], "--opponent"),
    (["rollout", START, "--dice", "31", "--candidates", "0"], "--candidates"),
    # a finished game: no checkers left for either side / for one side
    (["eval", "AAAAAAAAAAAAAA"], "the game is over: both sides"),
    (["cube", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-15,0"], "the side to act has borne off"),
    (["hint", "0,15,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "--dice", "31"],
     "the opponent has borne off"),
])
def test_bad_input_one_line_exit_2(args, field):
    r = run(*args)
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert field in r.output


def test_move_text_hits_and_bearoff():
    import numpy as np

    b = np.zeros(26, dtype=np.int8)
    b[6] = 1
    b[3] = 1
    b[20] = -14
    b[4] = -1
    a = b.copy()
    a[6] = 0
    a[4] = 1
    a[0] = 1
    a[3] = 0
    assert move_text(b, a, (2, 3)) == "6/4* 3/off"
    assert move_text(STARTING_BOARD, STARTING_BOARD, (6, 6)) == "(no play)"


def test_move_text_is_standard_notation():
    import numpy as np

    from playout.backgammon.moves import legal_moves

    def texts(board, dice):
        return {move_text(board, m, dice) for m in legal_moves(board, *dice)}

    # every play of a roll gets its own text, in gnubg/XG notation
    assert {"8/5 6/5", "24/20", "13/9", "24/23 13/10"} <= texts(STARTING_BOARD, (3, 1))
    assert "13/8(4)" in texts(STARTING_BOARD, (5, 5)) and "24/18(2) 13/7(2)" in texts(STARTING_BOARD, (6, 6))
    for dice in [(3, 1), (6, 6), (2, 2), (5, 4)]:
        ms = legal_moves(STARTING_BOARD, *dice)
        assert len(texts(STARTING_BOARD, dice)) == len(ms)
    # a hit on the way is shown; entering from the bar
    b = STARTING_BOARD.copy()
    b[18], b[19] = -1, -4
    assert "24/18*/13" in texts(b, (6, 5))
    b = STARTING_BOARD.copy()
    b[24], b[25] = 1, 1
    assert {"bar/22 24/22", "bar/20", "bar/23 13/10"} <= texts(b, (3, 2))
    with pytest.raises(ValueError, match="dice"):
        move_text(STARTING_BOARD, legal_moves(STARTING_BOARD, 3, 1)[0], (6, 5))
    del np


def test_cube_on_a_rolled_position_says_the_dice_are_ignored():
    r = run("cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["dice_ignored"] == [3, 1]
    r = run("cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    assert "dice 31 are ignored" in r.output
    r = run("cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--json")
    assert "dice_ignored" not in json.loads(r.stdout)


def test_cube_match_play_from_xgid():
    # 7-point match, 6-4 (side to act leads 1-away vs 3-away), Crawford game: no cube
    r = run("cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:4:1:7:10", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["can_double"] is False and 0.5 < d["equity_nd"] < 1.0


def test_rollout_probabilities_stay_probabilities_with_few_trials():
    """Luck-adjusted means can leave [0, 1] over a few trials; the reported probabilities are
    clipped and ordered (win >= gammon >= backgammon) while the equity stays the raw mean."""
    r = run("rollout", START, "--trials", "5", "--workers", "0", "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)["results"][0]
    p = res["probs"]
    assert all(0.0 <= v <= 1.0 for v in p)
    assert p[0] >= p[1] >= p[2] and 1.0 - p[0] >= p[3] >= p[4]
    assert json.loads(r.stdout)["evaluator"] == json.loads(run("hint", START, "--dice", "31",
                                                                "--json").output)["evaluator"]


def test_play_draws_every_board_from_player_0s_side():
    r = run("play", "--seed", "3")
    assert r.exit_code == 0, r.output
    boards = r.output.split("player ")[1:-1]
    assert len(boards) > 10
    # X (player 0) always drawn as the bottom side: its pip line names X first on every board
    pip_lines = [ln.strip() for b in boards for ln in b.splitlines() if "pips" in ln]
    assert len(pip_lines) == len(boards)
    assert all(ln.startswith("X: pips") for ln in pip_lines)
    assert "rolls " in r.output and "-" in r.output.split("rolls ")[1][:3]


# -- bg play: boards numbered from the mover's side, as gnubg's show board ---------------------

def _columns(label_line, rows, mark_at, count_of):
    """``{label: (mark, count)}`` of one half board: ``rows`` from the edge inwards; the mark of
    a point stands ``mark_at`` characters from its label's last digit; ``count_of(text)`` reads
    a count written in the innermost row (None: it holds a mark)."""
    import re

    out = {}
    for m in re.finditer(r"\d+", label_line):
        col = m.end() - 1 + mark_at
        marks = [r[col] if col < len(r) else " " for r in rows]
        n = sum(c in "XO" for c in marks)
        inner = rows[-1][col - 1:col + 1].strip() if len(rows[-1]) > col else ""
        shown = count_of(inner)
        mark = next((c for c in marks if c in "XO"), None)
        out[int(m.group())] = (mark, shown if shown is not None else n) if mark else (None, 0)
    return out


def _our_points(text):
    lines = text.splitlines()
    top = _columns(lines[0], lines[1:6], -1, lambda s: int(s) if s.isdigit() else None)
    bottom = _columns(lines[12], lines[11:6:-1], -1, lambda s: int(s) if s.isdigit() else None)
    return {**top, **bottom}, (lines[0].split(), lines[12].split())


def _gnubg_points(text):
    import re

    lines = [ln for ln in text.splitlines() if ln.startswith((" +", " |", "^|", "v|"))]
    hexa = lambda s: int(s, 16) if s and all(c in "0123456789ABCDEF" for c in s) else None
    top = _columns(lines[0], lines[1:6], 0, hexa)
    bottom = _columns(lines[12], lines[11:6:-1], 0, hexa)
    labels = [[int(v) for v in re.findall(r"\d+", ln.split("+")[1])] for ln in (lines[0], lines[12])]
    return {**top, **bottom}, labels


def test_play_numbers_each_board_from_the_side_that_just_played():
    """Every play's points are read on the board drawn under it: the labels whose checkers of
    the mover changed are points of the play (O's plays were written in O's numbering on a
    board numbered from X's side)."""
    import re

    r = run("play", "--seed", "3")
    assert r.exit_code == 0, r.output
    blocks = r.output.split("\nplayer ")[1:]
    prev = None
    checked = {"X": 0, "O": 0}
    for blk in blocks:
        head, *board = blk.splitlines()
        if "wins" in head:
            break
        mark = head.split("(")[1][0]
        move = head.split(": ", 1)[1]
        pts, _ = _our_points("\n".join(board))
        named = {int(v) for v in re.findall(r"\d+", re.sub(r"\(\d\)", "", move))}
        if prev is not None:
            own = lambda d, p: d[p][1] if d[p][0] == mark else 0
            changed = {p for p in pts if own(pts, p) != own(prev, p)}
            assert changed <= named and bool(changed) == bool(named), (head, changed)
            checked[mark] += bool(changed)
        # the next mover sees points numbered from its own side
        prev = {25 - p: v for p, v in pts.items()}
    assert checked["X"] > 10 and checked["O"] > 10


@pytest.mark.skipif(not __import__("shutil").which("gnubg", path="/usr/games:/usr/bin"),
                    reason="gnubg CLI not installed")
def test_board_numbering_matches_gnubg_show_board():
    """gnubg -t (1.07) draws O at the top and X at the bottom and numbers the points from the
    player on roll; ours, for the positions before each play of a game, from either side."""
    import re
    import shutil
    import subprocess

    from playout.backgammon.board import flip
    from playout.backgammon.ids import ascii_board, board_from_position_id

    r = run("play", "--seed", "5", "--json")
    record = json.loads(r.stdout)["record"][:24]
    script = ["set player 0 human", "set player 1 human", "new game"]
    for i, ply in enumerate(record):  # gnubg's player 0 is O (drawn at the top), 1 is X
        script += [f"set turn {1 - ply['side']}", f"set board {ply['position_id']}", "show board",
                   f"set seed {i}"]  # "Seed set to i." ends each position's output
    gnubg = shutil.which("gnubg", path="/usr/games:/usr/bin")
    out = subprocess.run([gnubg, "-t", "-q"], input="\n".join(script) + "\n", capture_output=True,
                         text=True, timeout=60).stdout
    parts = re.split(r"Seed set to \d+\.", out)[:-1]
    assert len(parts) == len(record)
    shown = [p.split(" GNU Backgammon  Position ID:")[-1] for p in parts]
    assert [p.split()[0] for p in shown] == [ply["position_id"] for ply in record]
    for ply, theirs in zip(record, shown):
        b = board_from_position_id(ply["position_id"])  # from the side on roll
        ours = ascii_board(b if ply["side"] == 0 else flip(b), numbers=ply["side"])
        assert _our_points(ours)[0] == _gnubg_points(theirs)[0], ply
        labels = _our_points(ours)[1]
        assert [[int(v) for v in row if v.isdigit()] for row in labels] == _gnubg_points(theirs)[1]
