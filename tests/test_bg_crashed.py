"""gnubg's *crashed* position class (``classes.crashed_side`` / ``is_crashed``), checked against
PyPI gnubg's own ``classify`` (its ``ClassifyPosition``: 9 = CLASS_CRASHED, 10 = CLASS_CONTACT)."""

from __future__ import annotations

import numpy as np
import pytest

from bgboards import points_board, random_game_boards
from playout.backgammon.board import flip, is_race
from playout.backgammon.classes import CLASS_CONTACT, crashed_side, is_crashed, position_class
from playout.backgammon.families import in_family

gnubg = pytest.importorskip("gnubg")
GNUBG_CRASHED, GNUBG_CONTACT = 9, 10


def _gnubg_class(b):
    from playout.backgammon.engines import to_gnubg

    return gnubg.classify(to_gnubg(b))


def test_hand_boards():
    # The side to act has 6 checkers left (9 borne off) against an anchor on its 2-point: crashed.
    b = points_board({1: 2, 3: 2, 5: 2}, {2: 2, 19: 5, 20: 4, 21: 4})
    assert crashed_side(b) and is_crashed(b) and not crashed_side(flip(b))
    assert is_crashed(flip(b))
    assert position_class(b) == CLASS_CONTACT  # a sub-class of contact
    # 8 in play, 3 of them stacked on the 1-point: 8 <= 6 + 3, crashed.
    assert crashed_side(points_board({1: 3, 4: 3, 6: 2}, {2: 2, 19: 13}))
    # 8 in play, one on the 1-point, 2 on the 2-point: 8 <= 6 + 2 - 1 is false.
    assert not crashed_side(points_board({1: 1, 2: 2, 6: 5}, {3: 2, 19: 13}))
    # The opening position is not crashed; a race never is.
    from playout.backgammon.board import STARTING_BOARD

    assert not is_crashed(STARTING_BOARD)
    race = points_board({1: 2, 2: 2}, {24: 3})
    assert is_race(race) and not is_crashed(race)


def test_matches_gnubg_classify():
    rng = np.random.default_rng(5)
    boards = random_game_boards(rng, 150)
    n_crashed = n_contact = 0
    for b in boards:
        g = _gnubg_class(b)
        if g not in (GNUBG_CRASHED, GNUBG_CONTACT):
            assert not is_crashed(b)
            continue
        assert is_crashed(b) == (g == GNUBG_CRASHED), list(b)
        assert in_family("crashed", b) == (g == GNUBG_CRASHED)
        n_crashed += g == GNUBG_CRASHED
        n_contact += g == GNUBG_CONTACT
    assert n_crashed > 200 and n_contact > 1000  # both kinds are well represented
