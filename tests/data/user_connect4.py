"""A user's compiled Connect 4, written against the protocol only (no playout.domains code).

A plain cell array instead of the built-in's bitboards: ``s[0:42]`` cells (``row * 7 +
col``, row 0 at the bottom; 0 empty, 1 or 2 for player 0 or 1), ``s[42]`` the player to
move, ``s[43]`` the winner (-1 none), ``s[44]`` stones played, ``s[45:52]`` column heights.
Same rules and action order as :mod:`playout.domains.connect4`, so a seeded search gives
the built-in's visits exactly.  Run: ``playout solve tests/data/user_connect4.py:DOMAIN``.
"""

import numpy as np
from numba import njit

from playout.mcts import CompiledDomain


@njit(cache=True)
def legal(s, out):
    if s[43] >= 0 or s[44] >= 42:
        return 0
    n = 0
    for c in range(7):
        if s[45 + c] < 6:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def _run(s, r, c, dr, dc, v):
    k = 0
    r, c = r + dr, c + dc
    while 0 <= r < 6 and 0 <= c < 7 and s[r * 7 + c] == v:
        k += 1
        r, c = r + dr, c + dc
    return k


@njit(cache=True)
def step(s, a, rng_state):
    p = s[42]
    r = s[45 + a]
    s[r * 7 + a] = p + 1
    s[45 + a] += 1
    s[42] = 1 - p
    s[44] += 1
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        if 1 + _run(s, r, a, dr, dc, p + 1) + _run(s, r, a, -dr, -dc, p + 1) >= 4:
            s[43] = p
            return 1.0  # the mover connects four
    return 0.0


@njit(cache=True)
def is_terminal(s):
    return s[43] >= 0 or s[44] >= 42


@njit(cache=True)
def to_play(s):
    return s[42]


def initial_state():
    s = np.zeros(52, dtype=np.int64)
    s[43] = -1
    return s


def to_array(state):
    """A :class:`playout.domains.connect4.Connect4State` (cells row-major, row 0 at the bottom)."""
    s = initial_state()
    for i, v in enumerate(state.cells):
        s[i] = v
        if v:
            s[45 + i % 7] += 1
    s[42], s[43], s[44] = state.to_play, state.winner, state.moves
    return s


DOMAIN = CompiledDomain("user_connect4", n_actions=7, legal=legal, step=step, is_terminal=is_terminal,
                        to_play=to_play, initial_state=initial_state, to_array=to_array,
                        action_name=lambda col: str(col + 1), c=1.4, discount=0.7, depth=800)
