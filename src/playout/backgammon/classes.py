"""Position classes: the rule that picks which evaluator answers a position.

gnubg evaluates each position with the network (or database) of its *class*
(``ClassifyPosition`` in gnubg's ``eval.c``: over, bear-off databases, race,
crashed, contact).  Ours so far: a finished game, a pure bear-off (answered by
the one-sided database, :mod:`playout.backgammon.bearoff`), a race (no contact:
the race net) and contact (the contact net).  The class of a board and of its
flip are the same.  More classes (crashed, ...) slot in here; callers compare
against the named constants, never the numbers.
"""

from __future__ import annotations

from numba import njit

from playout.backgammon.board import game_result, is_race
from playout.jitcache import flush_stale_caches, siblings

CLASS_OVER = 0  #: one side has borne off all 15
CLASS_BEAROFF = 1  #: both sides have every checker in their home board (points 1-6), none on the bar
CLASS_RACE = 2  #: no contact left (:func:`playout.backgammon.board.is_race`), not a pure bear-off
CLASS_CONTACT = 3  #: anything else

NAMES = {CLASS_OVER: "over", CLASS_BEAROFF: "bearoff", CLASS_RACE: "race", CLASS_CONTACT: "contact"}


@njit(cache=True)
def is_bearoff(board):
    """True when both sides have all their checkers on their own points 1-6 (or off), none on
    the bar: board26 points 1-6 for the mover, 19-24 for the opponent (no contact is possible)."""
    if board[0] != 0 or board[25] != 0:
        return False
    for p in range(7, 25):
        if board[p] > 0:
            return False
    for p in range(1, 19):
        if board[p] < 0:
            return False
    return True


@njit(cache=True)
def position_class(board):
    """The class (``CLASS_*``) of pre- or post-move board26 ``board`` (either side's view)."""
    if game_result(board) != 0:
        return CLASS_OVER
    if is_bearoff(board):
        return CLASS_BEAROFF
    if is_race(board):
        return CLASS_RACE
    return CLASS_CONTACT


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py"))
