"""2048 primitives for the compiled MCTS kernel (numba).

The rules of :mod:`playout.domains.twenty48` (Cirulli's 2048): a move slides all
tiles toward one side, each pair of equal neighbours merging once per move (the
pair nearest the wall first); the move is legal only if it changes the board;
then a tile spawns on a uniformly chosen empty cell, 2 with probability 0.9,
else 4.  Reward: log2 of the largest tile after the transition
(mctreesearch4j's).  Terminal: no move changes the board, or with the anchor's
rule (mctreesearch4j) the grid is full or holds 2048.

State array (int64, shape (17,)): 16 tile exponents row-major, top row first
(0 empty, k for the tile 2**k), then the anchor-rule flag.  Action ids 0..3 =
up, down, left, right (the Python domain's order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.jitcache import flush_stale_caches
from playout.mcts.compiled_domain import CompiledDomain

from playout.mcts.nbrng import randint, uniform

STATE_SIZE = 17
N_ACTIONS = 4
ACTIONS = ("up", "down", "left", "right")
P_TWO = 0.9
WIN_EXP = 11  # 2048


@njit(cache=True, inline="always")
def _cell(d, line, k):
    """Index of the ``k``-th cell of ``line`` counted from the wall tiles move to."""
    if d == 0:  # up: column `line`, from the top
        return k * 4 + line
    if d == 1:  # down
        return (3 - k) * 4 + line
    if d == 2:  # left: row `line`, from the left
        return line * 4 + k
    return line * 4 + 3 - k


@njit(cache=True)
def can_move(s, d):
    """Whether direction ``d`` changes the board."""
    for line in range(4):
        for k in range(3):
            a = s[_cell(d, line, k)]
            b = s[_cell(d, line, k + 1)]
            if b != 0 and (a == 0 or a == b):
                return True
    return False


@njit(cache=True)
def slide(s, d):
    """Apply direction ``d`` in place (no spawn); no allocation (hot in rollouts)."""
    for line in range(4):
        w = 0  # next cell to write; never ahead of the cell being read
        last = 0  # value of the last written tile if it may still merge, else 0
        for k in range(4):
            v = s[_cell(d, line, k)]
            if v == 0:
                continue
            if v == last:
                s[_cell(d, line, w - 1)] = v + 1
                last = 0
            else:
                s[_cell(d, line, w)] = v
                w += 1
                last = v
        for k in range(w, 4):
            s[_cell(d, line, k)] = 0


@njit(cache=True)
def _max_exp(s):
    m = 0
    for i in range(16):
        if s[i] > m:
            m = s[i]
    return m


@njit(cache=True)
def terminal(s):
    if s[16] and _anchor_over(s):
        return True
    for d in range(4):
        if can_move(s, d):
            return False
    return True


@njit(cache=True)
def to_play(s):
    return 0


@njit(cache=True)
def _anchor_over(s):
    """The anchor's extra terminal rule: a full grid or a 2048 tile."""
    full = True
    for i in range(16):
        if s[i] == 0:
            full = False
            break
    return full or _max_exp(s) >= WIN_EXP


@njit(cache=True)
def legal(s, out):
    """Moves that change the grid (up, down, left, right order); 0 when terminal."""
    if s[16] and _anchor_over(s):
        return 0
    n = 0
    for d in range(4):
        if can_move(s, d):
            out[n] = d
            n += 1
    return n


@njit(cache=True)
def spawn(s, rs):
    empty = 0
    for i in range(16):
        if s[i] == 0:
            empty += 1
    if empty == 0:
        return
    k = randint(rs, empty)
    v = 1 if uniform(rs) < P_TWO else 2
    for i in range(16):
        if s[i] == 0:
            if k == 0:
                s[i] = v
                return
            k -= 1


@njit(cache=True)
def step(s, a, rs):
    slide(s, a)
    spawn(s, rs)
    return float(_max_exp(s))


@njit(cache=True)
def evaluate(s):
    return 0.0


def to_array(state, anchor_terminal: bool = False) -> np.ndarray:
    """The 16-tuple of tile values (0 empty) as the state array."""
    arr = np.zeros(STATE_SIZE, dtype=np.int64)
    for i, v in enumerate(state):
        arr[i] = 0 if v == 0 else int(v).bit_length() - 1
    arr[16] = 1 if anchor_terminal else 0
    return arr


def action_of(a: int) -> str:
    return ACTIONS[a]


#: twenty48 as a compiled domain (the settings and initial state are added by the registry).
DOMAIN = CompiledDomain("twenty48", N_ACTIONS, legal=legal, step=step, is_terminal=terminal,
                        to_play=to_play, evaluate=evaluate, to_array=to_array, action_of=action_of)


# numba re-validates a cache only against its own file: flush this module's caches if
# a module it inlines (playout.mcts.nbrng) is newer (see playout.jitcache).
flush_stale_caches(globals())
