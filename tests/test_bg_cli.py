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
    out = json.loads(r.output)
    assert out["moves"][0]["move"] == "8 6 -> 5 5"  # the standard 3-1 opening: make the 5-point
    eqs = [m["equity"] for m in out["moves"]]
    assert eqs == sorted(eqs, reverse=True)


def test_hint_gnubg_ply_spelling_and_match_id_dice():
    r = run("hint", START + ":cIkFAAAAAAAA", "--ply", "1g", "--json", "--top", "3")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["ply"] == 2 and out["dice"] == [3, 1]


def test_eval_cube_play_rollout_json():
    r = run("eval", START, "--json")
    assert r.exit_code == 0 and len(json.loads(r.output)["probs"]) == 5
    r = run("cube", START, "--json")
    d = json.loads(r.output)
    assert r.exit_code == 0 and d["double"] is False and d["equity_dp"] == 1.0
    r = run("play", "--seed", "2", "--json")
    g = json.loads(r.output)
    assert r.exit_code == 0 and g["points"] in (1, 2, 3) and g["plies"] == len(g["record"])
    r = run("rollout", START, "--dice", "31", "--trials", "36", "--truncate", "2", "--workers", "0",
            "--candidates", "2", "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)["results"]
    assert len(res) == 2 and all(x["trials"] == 36 and x["std_error"] >= 0 for x in res)


@pytest.mark.parametrize("args, field", [
    (["hint", "4HPwATDgc/AB", "--dice", "31"], "POSITION"),
    (["hint", START, "--dice", "71"], "--dice"),
    (["hint", START], "--dice"),
    (["hint", START, "--dice", "31", "--ply", "x"], "--ply"),
    (["eval", "1,2,3"], "POSITION"),
    (["eval", START, "--evaluator", "nope"], "--evaluator"),
    (["eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0"], "POSITION"),
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
    assert move_text(b, a) == "6 3 -> 4* off"
    assert move_text(STARTING_BOARD, STARTING_BOARD) == "(no play)"


def test_cube_match_play_from_xgid():
    # 7-point match, 6-4 (side to act leads 1-away vs 3-away), Crawford game: no cube
    r = run("cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:4:1:7:10", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["can_double"] is False and 0.5 < d["equity_nd"] < 1.0
