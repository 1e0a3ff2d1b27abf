"""Board26 helpers: the starting position, flipping, validation, pip counts, game end.

A board is ``np.int8[26]`` from the side to act (bgsage's layout):
``[1..24]`` points (positive = mover, negative = opponent), ``[25]`` mover's bar,
``[0]`` opponent's bar.  The mover moves 24 -> 1 and bears off below 1; this was
checked against bgsage's ``STARTING_BOARD`` and gnubg's move generator (tests in
``tests/test_bg_rules.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_CHECKERS = 15

#: The opening position (standard rules; equal to ``bgsage.STARTING_BOARD``).
STARTING_BOARD = np.array(
    [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0],
    dtype=np.int8,
)


@njit(cache=True)
def opening_roll():
    """The first roll of a game (numba's generator): two different dice, doubles re-rolled.

    Standard rules: each player throws one die and the higher starts, playing both numbers,
    so the opening roll is never a double.
    """
    while True:
        d1 = np.random.randint(1, 7)
        d2 = np.random.randint(1, 7)
        if d1 != d2:
            return d1, d2


class BoardError(ValueError):
    """A board is not a legal backgammon position; the message names the field."""


@njit(cache=True)
def flip(board):
    """The same position seen by the other side (reverse and negate points, swap bars)."""
    out = np.empty(26, dtype=np.int8)
    for p in range(1, 25):
        out[p] = -board[25 - p]
    out[0] = board[25]
    out[25] = board[0]
    return out


@njit(cache=True)
def checkers_off(board):
    """(mover's, opponent's) checkers borne off."""
    m = int(board[25])
    o = int(board[0])
    for p in range(1, 25):
        v = int(board[p])
        if v > 0:
            m += v
        elif v < 0:
            o -= v
    return N_CHECKERS - m, N_CHECKERS - o


@njit(cache=True)
def pip_counts(board):
    """(mover's, opponent's) pip counts; a checker on the bar counts 25."""
    m = 25 * int(board[25])
    o = 25 * int(board[0])
    for p in range(1, 25):
        v = int(board[p])
        if v > 0:
            m += v * p
        elif v < 0:
            o -= v * (25 - p)
    return m, o


@njit(cache=True)
def is_race(board):
    """True when no contact is left: every mover checker is past every opponent checker."""
    if board[25] > 0 or board[0] > 0:
        return False
    top = 0  # mover's rearmost checker
    for p in range(24, 0, -1):
        if board[p] > 0:
            top = p
            break
    low = 25  # opponent's rearmost checker (lowest point in mover's numbering)
    for p in range(1, 25):
        if board[p] < 0:
            low = p
            break
    return top < low


@njit(cache=True)
def game_result(board):
    """Points won by the side whose checkers are all off, from the *mover's* view.

    Returns +1/+2/+3 if the mover has borne off all 15 (single, gammon,
    backgammon: the loser has none off, and for a backgammon also a checker on
    the bar or in the winner's home board, points 1-6), -1/-2/-3 if the
    opponent has, and 0 while the game goes on.
    """
    m_off, o_off = checkers_off(board)
    if m_off == N_CHECKERS:
        if o_off > 0:
            return 1
        if board[0] > 0:
            return 3
        for p in range(1, 7):
            if board[p] < 0:
                return 3
        return 2
    if o_off == N_CHECKERS:
        if m_off > 0:
            return -1
        if board[25] > 0:
            return -3
        for p in range(19, 25):
            if board[p] > 0:
                return -3
        return -2
    return 0


def as_board(values) -> np.ndarray:
    """Validate 26 numbers as a board26 and return it as ``np.int8[26]``.

    Raises :class:`BoardError` naming the field: wrong length, a bar count that
    is negative, more than 15 checkers for a side.
    """
    arr = np.asarray(values)
    if arr.shape != (26,):
        raise BoardError(f"board26: expected 26 numbers, got {arr.size}")
    if arr.dtype.kind not in "iu":
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            raise BoardError("board26: every entry must be an integer")
    arr = arr.astype(np.int64)
    if arr[0] < 0:
        raise BoardError("board26[0] (opponent's bar) must be >= 0")
    if arr[25] < 0:
        raise BoardError("board26[25] (mover's bar) must be >= 0")
    mover = int(arr[25] + arr[1:25][arr[1:25] > 0].sum())
    opp = int(arr[0] - arr[1:25][arr[1:25] < 0].sum())
    if mover > N_CHECKERS:
        raise BoardError(f"board26: the mover has {mover} checkers (at most 15)")
    if opp > N_CHECKERS:
        raise BoardError(f"board26: the opponent has {opp} checkers (at most 15)")
    return arr.astype(np.int8)


def board_key(board) -> bytes:
    """A hashable key for a board (its 26 bytes)."""
    return np.ascontiguousarray(board, dtype=np.int8).tobytes()


def apply_steps(board, steps) -> np.ndarray | None:
    """``board`` (board26, mover's view) with one mover checker moved per ``(from, to)`` step,
    in order: ``from`` 25 = the bar, ``to`` 0 = borne off; a checker landing on a single
    opponent checker (a blot) hits it, sending it to the opponent's bar ``[0]``.

    Returns a new ``np.int8[26]``, or ``None`` if a step has no mover checker on ``from`` or
    lands on a point the opponent holds with two or more.  Dice and legality (the order of
    entering, bearing off) are not checked: that is :func:`playout.backgammon.moves.legal_moves`.
    """
    b = np.array(board, dtype=np.int8)
    for src, dst in steps:
        src, dst = int(src), int(dst)
        if b[src] <= 0:
            return None
        b[src] -= 1
        if dst > 0:
            if b[dst] < -1:
                return None
            if b[dst] == -1:
                b[dst] = 1
                b[0] += 1
            else:
                b[dst] += 1
    return b
