"""Position classes: the rule that picks which evaluator answers a position.

gnubg evaluates each position with the network (or database) of its *class*
(``ClassifyPosition`` in gnubg's ``eval.c``: over, bear-off databases, race,
crashed, contact).  Ours so far: a finished game, a pure bear-off (answered by
the one-sided database, :mod:`playout.backgammon.bearoff`), a race (no contact:
the race net) and contact (the contact net).  The class of a board and of its
flip are the same.  More classes slot in here; callers compare against the named
constants, never the numbers.

*Crashed* (:func:`is_crashed`) is gnubg's sub-class of contact: a contact position
where one side has six or fewer checkers left in play (stacks on its 1- and 2-points
counted as in gnubg).  :func:`position_class` still answers ``CLASS_CONTACT`` for it.
A network file with a third slice (``W1[3, I, H]``, :mod:`playout.backgammon.net`) answers
crashed positions with that slice in every kernel (:func:`net_index`, as gnubg's crashed
net); a two-slice file answers them with its contact net.
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


#: gnubg's threshold N in ``ClassifyPosition`` (eval.c): a side with at most this many checkers
#: in play (bar and points), after discounting stacks on its 1- and 2-points, is crashed.
CRASHED_CHECKERS = 6


@njit(cache=True, inline="always")
def _crashed_rule(tot, n1, n2):
    """gnubg's test (:func:`crashed_side`) on a side's checkers in play ``tot`` and its stacks on
    its 1- / 2-point ``n1`` / ``n2``."""
    N = CRASHED_CHECKERS
    if tot <= N:
        return True
    if n1 > 1:
        return tot <= N + n1 or (n2 > 1 and 1 + tot - n1 - n2 <= N)
    return tot <= N + n2 - 1


@njit(cache=True)
def crashed_side(board):
    """True when the positive side of contact board26 ``board`` is *crashed*, by gnubg 1.07's
    rule (``ClassifyPosition``, eval.c): with ``tot`` its checkers in play (points 1-24 and the
    bar), ``n1`` / ``n2`` those on its 1- / 2-point and N = 6: ``tot <= N``; or, when ``n1 > 1``,
    ``tot <= N + n1`` or (``n2 > 1`` and ``1 + tot - n1 - n2 <= N``); or, when ``n1 <= 1``,
    ``tot <= N + n2 - 1``.  Race boards (no contact) are never crashed."""
    if is_race(board):
        return False
    tot = int(board[25])
    for p in range(1, 25):
        if board[p] > 0:
            tot += int(board[p])
    return _crashed_rule(tot, max(int(board[1]), 0), max(int(board[2]), 0))


@njit(cache=True)
def is_crashed(board):
    """True when board26 ``board`` is a contact position in which either side is crashed
    (:func:`crashed_side`; gnubg's ``CLASS_CRASHED``).  Same answer for a board and its flip."""
    if is_race(board):
        return False
    return contact_crashed(board)


@njit(cache=True, inline="always")
def contact_crashed(board):
    """:func:`is_crashed` of a board known to be a contact position (no race test): both sides'
    checkers in play counted in one pass over the board, nothing allocated (the kernels call
    it per evaluation with a three-slice network)."""
    tp = int(board[25])
    tn = int(board[0])
    for p in range(1, 25):
        v = int(board[p])
        if v > 0:
            tp += v
        else:
            tn -= v
    return (_crashed_rule(tp, max(int(board[1]), 0), max(int(board[2]), 0))
            or _crashed_rule(tn, max(-int(board[24]), 0), max(-int(board[23]), 0)))


#: the slices of a network file (``W1[k]``, :mod:`playout.backgammon.net`)
NET_CONTACT = 0
NET_RACE = 1
NET_CRASHED = 2  #: only in a file with three slices


@njit(cache=True, inline="always")
def net_index(W1, board):
    """The slice of network weights ``W1[n_slices, I, H]`` that evaluates board26 ``board``
    (either side's view): :data:`NET_RACE` for a race (:func:`is_race`), :data:`NET_CRASHED`
    when the file has a third slice and the position is crashed (:func:`is_crashed`, gnubg's
    ``CLASS_CRASHED`` net), else :data:`NET_CONTACT`.  A two-slice file never pays the
    crashed test."""
    if is_race(board):
        return NET_RACE
    if W1.shape[0] > 2 and contact_crashed(board):
        return NET_CRASHED
    return NET_CONTACT


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py"))
