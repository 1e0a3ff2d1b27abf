"""A user's compiled Connect 4 on Pons' two-bitboard position (the README's example).

State ``[stones of the player to move, all stones, moves, winner (-1 none)]``; bit
``col * 7 + row`` (row 0 at the bottom; the 7th bit of each column stays empty, so line
shifts do not wrap).  Player 0 moves first, so the player to move is ``moves % 2``.
Run: ``playout solve tests/data/user_connect4_bits.py:DOMAIN``.
"""

import numpy as np
from numba import njit

from playout.mcts import CompiledDomain


@njit(cache=True)
def legal(s, out):  # columns whose top cell (row 5) is empty, ascending
    if s[3] >= 0 or s[2] == 42:
        return 0
    n = 0
    for c in range(7):
        if not (s[1] >> (c * 7 + 5)) & 1:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def step(s, a, rng_state):  # drop a stone in column a; reward 1 to a mover who connects four
    mask = s[1] | (s[1] + (np.int64(1) << (a * 7)))
    mine = s[0] | (mask ^ s[1])
    s[0], s[1], s[2] = mine ^ mask, mask, s[2] + 1
    for d in (1, 7, 6, 8):  # vertical, horizontal, the two diagonals
        m = mine & (mine >> d)
        if m & (m >> (2 * d)):
            s[3] = (s[2] - 1) % 2
            return 1.0
    return 0.0


@njit(cache=True)
def is_terminal(s):
    return s[3] >= 0 or s[2] == 42


@njit(cache=True)
def to_play(s):
    return s[2] % 2


def initial_state():
    return np.array([0, 0, 0, -1], dtype=np.int64)


def to_array(state):
    """A :class:`playout.domains.connect4.Connect4State` (``cells[row * 7 + col]``: 0, 1 or 2)."""
    mine = both = 0
    for i, v in enumerate(state.cells):
        if v:
            bit = 1 << (i % 7 * 7 + i // 7)
            both |= bit
            mine |= bit if v - 1 == state.to_play else 0
    return np.array([mine, both, state.moves, state.winner], dtype=np.int64)


DOMAIN = CompiledDomain("my_connect4", n_actions=7, legal=legal, step=step, is_terminal=is_terminal,
                        to_play=to_play, initial_state=initial_state, to_array=to_array,
                        action_name=lambda col: str(col + 1), c=1.4, discount=0.7, depth=800)
