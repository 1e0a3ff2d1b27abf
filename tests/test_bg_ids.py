"""Codecs: gnubg position/match IDs, XGID, board26 parsing, ASCII board."""

from pathlib import Path

import pytest

from playout.backgammon.board import STARTING_BOARD, flip
from playout.backgammon.ids import (Position, PositionError, ascii_board, board_from_position_id,
                                    board_to_gnubg, decode_match_id, encode_match_id, match_id,
                                    parse_position, position_id, xgid)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
IDS = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()


def test_round_trip_all_selfplay_ids():
    assert len(IDS) == 3177
    for pid in IDS:
        b = board_from_position_id(pid)
        assert position_id(b) == pid
        assert int(b[25] + b[1:25][b[1:25] > 0].sum()) <= 15


def test_side_order_against_gnubg():
    gnubg = pytest.importorskip("gnubg")
    for pid in IDS[::25]:
        b = board_from_position_id(pid)
        assert board_to_gnubg(b) == tuple(tuple(h) for h in gnubg.position_from_id(pid))
    # gnubg's second half is the side on roll: its move generator moves that side's 24-point checker
    start = board_to_gnubg(STARTING_BOARD)
    moves = gnubg.find_best_moves(start, gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 1, 0, 0), (6, 5))
    assert any(m["move"][:2] == (24, 18) or m["move"][:4] == (24, 18, 18, 13) for m in moves)


def test_opening_ids():
    assert position_id(STARTING_BOARD) == "4HPwATDgc/ABMA"
    f = decode_match_id("cIkFAAAAAAAA")
    assert (f["cube_log2"], f["cube_owner"], f["turn"], f["die1"], f["die2"], f["match_length"]) == \
        (0, 3, 1, 3, 1, 0)
    assert encode_match_id(f) == "cIkFAAAAAAAA"
    pos = parse_position("4HPwATDgc/ABMA:cIkFAAAAAAAA")
    assert pos.dice == (3, 1) and pos.cube_owner == "centered" and pos.match_length == 0
    assert match_id(pos, turn=1) == "cIkFAAAAAAAA"


def test_xgid():
    pos = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert (pos.board == STARTING_BOARD).all() and pos.dice is None
    assert xgid(pos) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    # top player (turn -1) to act: the board comes back flipped, cube ownership swapped
    p2 = parse_position("XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:0:0:3:0:10")
    assert (p2.board == flip(STARTING_BOARD)).all()
    assert p2.cube_owner == "opponent" and p2.cube_value == 2 and p2.dice == (5, 2)
    assert p2.jacoby and p2.beaver
    b = board_from_position_id(IDS[100])
    assert (parse_position(xgid(Position(b))).board == b).all()


def test_board26_text():
    txt = ",".join(str(v) for v in STARTING_BOARD)
    assert (parse_position(txt).board == STARTING_BOARD).all()
    assert (parse_position("[" + txt.replace(",", " ") + "]").board == STARTING_BOARD).all()


@pytest.mark.parametrize("text, field", [
    ("4HPwATDgc/AB", "position ID: expected 14"),
    ("4HPwATDgc/AB!A", "not base64"),
    ("////////////AA", "checkers"),
    ("4HPwATDgc/ABMA:cIkFAAAAAA", "match ID: expected 12"),
    ("XGID=-b----E-C---eE---c-e---:0:0:1:00:0:0:0:0:10", "XGID position field"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:0:0:10", "XGID dice field"),
    ("XGID=-b----P-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "bad character"),
    ("XGID=-b----O-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "checkers"),
    ("1,2,3", "board26: expected 26"),
    (",".join(["0"] + ["1"] * 16 + ["0"] * 9), "16 checkers"),
    # a match's scores are below its length (before: a ZeroDivisionError in bg hint's EMG)
    ("4HPwATDgc/ABMA:zzzzzzzzzzzz", "match ID 'zzzzzzzzzzzz': score 32563-26521 is not below "
                                    "the match length 26239"),
    ("4HPwATDgc/ABMA:cAmgACAAOAAA", "score 2-7 is not below the match length 5"),
    ("4HPwATDgc/ABMA:cAmgAFAAEAAA", "score 5-2 is not below the match length 5"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:5:2:0:5:10", "XGID: score 5-2 is not below"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:2:0:5:10", "XGID: negative score"),
])
def test_bad_positions_name_the_field(text, field):
    with pytest.raises(PositionError, match=field):
        parse_position(text)


def test_both_sides_on_a_point_in_gnubg_pair():
    from playout.backgammon.ids import gnubg_to_board
    from playout.backgammon.board import BoardError

    op = [0] * 25
    me = [0] * 25
    op[23] = 1  # opponent's 24 = mover's 1
    me[0] = 1
    with pytest.raises(BoardError, match="point 1"):
        gnubg_to_board((op, me))


def test_ascii_board_shows_counts():
    text = ascii_board(STARTING_BOARD, dice=(3, 1))
    assert "pips 167" in text and "dice 31" in text
    assert text.count("X") >= 15


def test_gnubg_also_refuses_a_score_above_the_match_length():
    # Debian gnubg 1.07: "Illegal match ID" for 2-7 in a 5-point match; it accepts 5-2 (a
    # match already won: nothing to evaluate), which we refuse as well.
    import shutil
    import subprocess

    exe = shutil.which("gnubg") or "/usr/games/gnubg"
    if not Path(exe).exists():
        pytest.skip("Debian gnubg is not installed")
    r = subprocess.run([exe, "-t", "-q"], input="new match 5\nset matchid cAmgACAAOAAA\n",
                       capture_output=True, text=True, timeout=60)
    assert "Illegal match ID 'cAmgACAAOAAA'" in r.stdout + r.stderr
    with pytest.raises(PositionError, match="score 2-7 is not below the match length 5"):
        parse_position("4HPwATDgc/ABMA:cAmgACAAOAAA")
