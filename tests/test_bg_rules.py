"""Rules: direction of play, legal plays vs gnubg/bgsage, game end."""

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, flip, game_result, is_race, pip_counts
from playout.backgammon.moves import legal_moves

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
IDS = SHARED / "gnubg_selfplay_position_ids.txt"


def test_start_matches_bgsage_and_direction():
    bgsage = pytest.importorskip("bgsage")
    assert list(STARTING_BOARD) == list(bgsage.STARTING_BOARD)
    # 6-5 from the start: the back checker runs 24/13 (mover moves from 24 towards 1)
    boards = {tuple(b) for b in legal_moves(STARTING_BOARD, 6, 5)}
    run = STARTING_BOARD.copy()
    run[24] -= 1
    run[13] += 1
    assert tuple(run) in boards
    assert len(boards) == len(bgsage.possible_moves(list(map(int, STARTING_BOARD)), 6, 5))


def test_flip_involution_and_pips():
    b = flip(STARTING_BOARD)
    assert list(flip(b)) == list(STARTING_BOARD)
    assert pip_counts(STARTING_BOARD) == (167, 167)


def test_bar_entry_first_and_dance():
    b = np.zeros(26, dtype=np.int8)
    b[25] = 1
    b[6] = 14
    for p in range(19, 25):
        b[p] = -2
    b[0] = 0
    b[1] = -3  # 15 opponent checkers: 12 + 3
    out = legal_moves(b, 6, 5)
    assert out.shape == (1, 26) and (out[0] == b).all()  # dances: board unchanged
    b[19] = 0
    b[1] = -5
    out = legal_moves(b, 6, 5)  # must enter on 19 with the 6 (20 is blocked), then play the 5
    assert all(m[25] == 0 for m in out)
    keys = {tuple(m) for m in out}
    run = b.copy()
    run[25] = 0
    run[14] = 1
    assert tuple(run) in keys  # bar/19/14


def test_larger_die_rule():
    # one checker on 7, opponent blocks 1 and 2: 6-5 -> only 7/1? blocked; 7/2 blocked; play...
    b = np.zeros(26, dtype=np.int8)
    b[9] = 1
    b[24] = 14  # pass 14 checkers on 24 (cannot move 6 or 5: 18 and 19 blocked)
    b[18] = -2
    b[19] = -2
    b[4] = -2  # 9-5
    b[3] = -2  # 9-6
    b[1] = -7
    out = legal_moves(b, 6, 5)
    # 9/3 blocked, 9/4 blocked, 24/18 and 24/19 blocked: nothing moves
    assert len(out) == 1 and (out[0] == b).all()
    b[3] = 0
    b[2] = -2  # now only 9/3 with the 6 possible, after which 3/-2 cannot bear off (not all home)
    out = legal_moves(b, 6, 5)
    assert len(out) == 1 and out[0][3] == 1 and out[0][9] == 0


def test_bear_off_from_higher_point():
    b = np.zeros(26, dtype=np.int8)
    b[3] = 2
    b[24] = -15
    out = {tuple(m) for m in legal_moves(b, 6, 5)}
    assert out == {tuple(np.where(np.arange(26) == 3, 0, b))}
    # the loser has none off but all in its own home board (mover's 19..24): a gammon
    assert game_result(np.array(next(iter(out)), dtype=np.int8)) == 2


def test_game_result_kinds():
    b = np.zeros(26, dtype=np.int8)
    b[20] = -15  # loser has none off, all in its own home board (mover's 19..24): gammon
    assert game_result(b) == 2
    b[20] = -14
    b[3] = -1  # one in the winner's home board: backgammon
    assert game_result(b) == 3
    b[3] = 0
    b[0] = 1  # one on the bar: backgammon
    assert game_result(b) == 3
    b[0] = 0
    b[20] = -1  # loser has borne off 14: single game
    assert game_result(b) == 1
    b[5] = 1  # mover still has a checker: the game goes on
    assert game_result(b) == 0
    assert game_result(flip(np.where(np.arange(26) == 5, 0, b).astype(np.int8))) == -1
    assert not is_race(STARTING_BOARD)


def test_legal_moves_match_gnubg_and_bgsage_sample():
    pytest.importorskip("gnubg")
    pytest.importorskip("bgsage")
    from playout.backgammon.crosscheck import compare_moves
    from playout.backgammon.ids import board_from_position_id

    ids = IDS.read_text().split()
    assert len(ids) == 3177
    res = compare_moves([board_from_position_id(p) for p in ids[::10]])
    assert res["cases"] == 318 * 21
    assert res["differences_gnubg"] == 0, res["examples"]
    assert res["differences_bgsage"] == 0, res["examples"]
    assert res["gnubg_full_moves_checked"] > 0.9 * res["moves"]


def test_bad_dice():
    with pytest.raises(ValueError, match="dice"):
        legal_moves(STARTING_BOARD, 7, 1)
