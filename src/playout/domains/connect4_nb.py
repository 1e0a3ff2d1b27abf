"""Connect 4 primitives for the compiled MCTS kernel (numba, bitboards).

State array (int64, shape (5,)): ``[stones of player 0, stones of player 1,
to_play, winner (-1 none), moves]``; bit ``col * 7 + row`` (row 0 = bottom,
the 7th bit of each column an always-empty sentinel so that line shifts do not
wrap; Pons' layout, see :mod:`playout.domains.connect4_solver`).  Actions are
columns 0..6, ascending, as in :class:`playout.domains.connect4.Connect4`;
rewards +1 to the player whose move makes four, else 0.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.mcts.compiled_domain import CompiledDomain


STATE_SIZE = 5
N_ACTIONS = 7
_COLS = 7
_ROWS = 6


@njit(cache=True, inline="always")
def _four(b):
    for s in (1, 7, 6, 8):
        m = b & (b >> s)
        if m & (m >> (2 * s)):
            return True
    return False


@njit(cache=True)
def terminal(s):
    return s[3] >= 0 or s[4] >= 42


@njit(cache=True)
def to_play(s):
    return s[2]


@njit(cache=True)
def legal(s, out):
    """Columns with room, ascending, into ``out``; returns their number (0 if over)."""
    if s[3] >= 0 or s[4] >= 42:
        return 0
    mask = s[0] | s[1]
    n = 0
    for c in range(_COLS):
        if not (mask >> (c * 7 + 5)) & 1:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def step(s, a, rs):
    """Drop a stone of ``to_play`` in column ``a``; returns the mover's reward."""
    p = s[2]
    mask = s[0] | s[1]
    col_bits = np.int64(0x3F) << (a * 7)
    mv = (mask + (np.int64(1) << (a * 7))) & col_bits
    b = s[p] | mv
    s[p] = b
    s[2] = 1 - p
    s[4] += 1
    if _four(b):
        s[3] = p
        return 1.0
    return 0.0


@njit(cache=True)
def evaluate(s):
    return 0.0


def to_array(state) -> np.ndarray:
    """A :class:`~playout.domains.connect4.Connect4State` as the state array."""
    arr = np.zeros(STATE_SIZE, dtype=np.int64)
    b = [0, 0]
    for i, v in enumerate(state.cells):
        if v:
            row, col = divmod(i, _COLS)
            b[v - 1] |= 1 << (col * 7 + row)
    arr[0], arr[1] = b
    arr[2] = state.to_play
    arr[3] = state.winner
    arr[4] = state.moves
    return arr


def action_of(a: int) -> int:
    return int(a)


#: Connect 4 as a compiled domain (the settings and initial state are added by the registry).
DOMAIN = CompiledDomain("connect4", N_ACTIONS, legal=legal, step=step, is_terminal=terminal,
                        to_play=to_play, evaluate=evaluate, to_array=to_array, action_of=action_of)
