"""Cube model vs GNU Backgammon 1.07 (issue 17 items 1-2).

The pinned values were printed by Debian gnubg 1.07 (``gnubg -t``, 0-ply ``eval``,
``set output digits 6``; match figures MWC) for the positions named; the sample
cross-check runs the live program (skipped only where /usr/games/gnubg is absent).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD
from playout.backgammon.cube import cube_action, cubeful_equity, money_cubeful
from playout.backgammon.ids import (decode_match_id, match_id, parse_position, parse_xgid,
                                    PositionError, xgid)

GNUBG = Path("/usr/games/gnubg")
OPENING = "4HPwATDgc/ABMA"
# gnubg 1.07 0-ply probabilities of the opening position (side on roll)
P_OPEN = [0.521483, 0.153909, 0.007563, 0.129867, 0.007548]
# side on roll: one checker left on its 1-point; opponent: 15 checkers on our 13-point
FINISHED = "APj/AwABAAAAAA"
P_FIN = [1.0, 1.0, 0.0, 0.0, 0.0]


def _cube(text, probs, **kw):
    pos = parse_position(text)
    return pos, cube_action(pos.board, pos.cube_value, pos.cube_owner, probs=probs,
                            jacoby=pos.jacoby, match_length=pos.match_length, score=pos.score,
                            crawford=pos.crawford, **kw)


def test_post_crawford_from_the_match_id():
    # 7-point match, side on roll 4 (3-away), opponent 6 (1-away), Crawford bit clear:
    # post-Crawford.  gnubg: ND 31.28729%, DT 33.76962%, DP 48.80300%, "Double, take"
    pos, d = _cube(f"{OPENING}:cAngAGAAIAAA", P_OPEN)
    assert pos.post_crawford and not pos.crawford and pos.score == (4, 6)
    assert d.equity_nd == pytest.approx(0.3128729, abs=2e-6)
    assert d.equity_dt == pytest.approx(0.3376962, abs=2e-6)
    assert d.equity_dp == pytest.approx(0.48803, abs=2e-6)  # the pre-Crawford row gave ~0.32
    assert d.optimal_action == "Double, take" and d.double and d.take


def test_crawford_game_and_post_crawford_leader_are_dead_cubes():
    # the same score as the Crawford game (bit set): gnubg's cubeful = cubeless 26.01234%
    pos, d = _cube(f"{OPENING}:8AngAGAAIAAA", P_OPEN)
    assert pos.crawford and not pos.post_crawford
    assert d.equity_nd == pytest.approx(0.2601234, abs=2e-6) and not d.can_double
    # post-Crawford, the side on roll leads 6-4: it may not double; gnubg ND 71.67146%
    pos, d = _cube(f"{OPENING}:cAngAEAAMAAA", P_OPEN)
    assert pos.post_crawford and pos.score == (6, 4)
    assert d.equity_nd == pytest.approx(0.7167146, abs=2e-6) and not d.can_double
    assert d.optimal_action == "Never double, take (dead cube)"


def test_post_crawford_from_an_xgid():
    # the XGID of the post-Crawford position above (crawford field 0) gives gnubg's figures
    pos = parse_position(f"{OPENING}:cAngAGAAIAAA")
    x = parse_xgid(xgid(pos))
    assert x.post_crawford and x.score == (4, 6) and x.match_length == 7
    d = cube_action(x.board, 1, "centered", probs=P_OPEN, match_length=7, score=x.score,
                    crawford=x.crawford)
    assert d.equity_dp == pytest.approx(0.48803, abs=2e-6)


def test_no_jacoby_bit_of_the_match_id():
    # gnubg writes bit 66 when the Jacoby rule is off (money): ND 0.091955 vs 0.084256
    assert decode_match_id("cAkAAAAAAAAE")["no_jacoby"] == 1
    assert decode_match_id("cAkAAAAAAAAA")["no_jacoby"] == 0
    pos, d = _cube(f"{OPENING}:cAkAAAAAAAAE", P_OPEN)
    assert not pos.jacoby and match_id(pos, turn=1) == "cAkAAAAAAAAE"
    assert d.equity_nd == pytest.approx(0.091955, abs=2e-6)
    pos, d = _cube(f"{OPENING}:cAkAAAAAAAAA", P_OPEN)
    assert pos.jacoby and d.equity_nd == pytest.approx(0.084256, abs=2e-6)
    assert d.equity_dt == pytest.approx(-0.191344, abs=2e-6) and d.is_beaver
    assert d.optimal_action == "No double, beaver"


def test_jacoby_only_while_centred():
    # the side on roll owns a 2-cube: gnubg gives 0.244328 with the Jacoby rule on or off
    for mid in ("UQkAAAAAAAAA", "UQkAAAAAAAAE"):
        pos, d = _cube(f"{OPENING}:{mid}", P_OPEN)
        assert pos.cube_owner == "player" and pos.cube_value == 2
        assert d.equity_nd == pytest.approx(0.244328, abs=2e-6)
        assert d.optimal_action == "No redouble, beaver"
    p = np.array(P_OPEN)
    for owner in (1, 2):
        assert money_cubeful(p, owner, 0.68, True) == money_cubeful(p, owner, 0.68, False)
    assert money_cubeful(p, 0, 0.68, True) != money_cubeful(p, 0, 0.68, False)


def test_finished_game_is_points_times_cube():
    # a certain gammon win (gnubg: Win 1, W(g) 1): cubeful = cubeless points per unit cube;
    # gnubg: centred with Jacoby 1.0, without 2.0, owned by either side 2.0
    assert _cube(f"{FINISHED}:cAkAAAAAAAAA", P_FIN)[1].equity_nd == pytest.approx(1.0)
    _, d = _cube(f"{FINISHED}:cAkAAAAAAAAE", P_FIN)
    assert d.equity_nd == pytest.approx(2.0) and d.optimal_action == "Too good to double, pass"
    _, d = _cube(f"{FINISHED}:UQkAAAAAAAAA", P_FIN)
    assert d.equity_nd == pytest.approx(2.0) and d.optimal_action == "Too good to redouble, pass"
    assert _cube(f"{FINISHED}:QQkAAAAAAAAA", P_FIN)[1].equity_nd == pytest.approx(2.0)
    for owner in ("centered", "player", "opponent"):
        assert cubeful_equity([0, 0, 0, 1, 1], owner, 0.68) == pytest.approx(-3.0)
        assert cubeful_equity([1, 0, 0, 0, 0], owner, 0.68, jacoby=True) == pytest.approx(1.0)


def test_cubeful_rollout_gammon_counts_with_an_owned_cube():
    # the side on roll bears off its last checker; the opponent has all 15 on its 12-point.
    # Owning the cube, it plays on for the gammon (gnubg: too good to redouble): 2 points a
    # game even with the Jacoby rule (it applies only while the cube is centred).
    from playout.backgammon.rollout import rollout

    b = np.zeros(26, dtype=np.int8)
    b[1] = 1
    b[13] = -15
    res = rollout([b], trials=36, chunk=36, workers=0, post_move=False, cubeful=True,
                  cube_owner="player", jacoby=True)[0]
    assert res["equity"] == pytest.approx(2.0)
    res = rollout([b], trials=36, chunk=36, workers=0, post_move=False, cube_owner="player",
                  jacoby=True, vr=False)[0]
    assert res["cubeful_equity"] == pytest.approx(2.0)
    # centred with Jacoby: the cubeless trials' cubeful figure counts the gammon as 1
    res = rollout([b], trials=36, chunk=36, workers=0, post_move=False, cube_owner="centered",
                  jacoby=True, vr=False)[0]
    assert res["cubeful_equity"] == pytest.approx(1.0)


def test_xgid_max_cube_round_trip():
    opening = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:8"
    pos = parse_xgid(opening)
    assert pos.max_cube_log2 == 8 and xgid(pos) == opening
    assert parse_xgid(opening[:-2]).max_cube_log2 == 10  # field absent: XG's default
    with pytest.raises(PositionError, match="max cube"):
        parse_xgid(opening[:-1] + "99")


@pytest.mark.skipif(not GNUBG.exists(), reason="Debian gnubg (/usr/games/gnubg) not installed")
def test_crosscheck_sample_against_gnubg():
    from playout.backgammon.cube_crosscheck import cases_for, compare, pick_boards, run_gnubg

    boards = pick_boards(3)
    cases = cases_for(boards)[::3]
    res = compare(cases, run_gnubg(cases, timeout=120))
    assert res["cases"] == len(cases) > 250
    assert res["disagreements"] == [] and res["agree"] + res["ties"] == res["cases"]
    analysed = sum(r["cube_analyses"] for r in res["table"])
    assert analysed > 60  # gnubg gave a full cube analysis for a good share of them
