"""GridWorld primitives for the compiled MCTS kernel (numba).

mctreesearch4j's GridWorld as in :mod:`playout.domains.gridworld`: an 8 x 5
grid, ``x`` 1..8, ``y`` 1..5, start (2, 2); actions ``up`` (y+1), ``down``,
``left`` (x-1), ``right`` that stay on the grid; the intended move happens with
probability 0.8, otherwise one of the other valid moves uniformly; entering
(1, 1) pays +1 and (5, 4) pays -0.5, both terminal.

State array (int64, shape (2,)): ``[x, y]``.  Action ids 0..3 = up, down, left,
right (the Python domain's order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.jitcache import flush_stale_caches
from playout.mcts.compiled_domain import CompiledDomain

from playout.mcts.nbrng import randint, uniform

STATE_SIZE = 2
N_ACTIONS = 4
ACTIONS = ("up", "down", "left", "right")
WIDTH, HEIGHT = 8, 5
INTENDED = 0.8
_DX = np.array([0, 0, -1, 1], dtype=np.int64)
_DY = np.array([1, -1, 0, 0], dtype=np.int64)


@njit(cache=True)
def terminal(s):
    return (s[0] == 1 and s[1] == 1) or (s[0] == 5 and s[1] == 4)


@njit(cache=True)
def to_play(s):
    return 0


@njit(cache=True)
def legal(s, out):
    if terminal(s):
        return 0
    n = 0
    for a in range(4):
        x = s[0] + _DX[a]
        y = s[1] + _DY[a]
        if 1 <= x <= WIDTH and 1 <= y <= HEIGHT:
            out[n] = a
            n += 1
    return n


@njit(cache=True)
def step(s, a, rs):
    if uniform(rs) >= INTENDED:
        # one of the other valid moves, uniformly (two passes: no allocation)
        k = 0
        for b in range(4):
            if b != a and 1 <= s[0] + _DX[b] <= WIDTH and 1 <= s[1] + _DY[b] <= HEIGHT:
                k += 1
        if k > 0:
            j = randint(rs, k)
            for b in range(4):
                if b != a and 1 <= s[0] + _DX[b] <= WIDTH and 1 <= s[1] + _DY[b] <= HEIGHT:
                    if j == 0:
                        a = b
                        break
                    j -= 1
    s[0] += _DX[a]
    s[1] += _DY[a]
    if s[0] == 1 and s[1] == 1:
        return 1.0
    if s[0] == 5 and s[1] == 4:
        return -0.5
    return 0.0


@njit(cache=True)
def evaluate(s):
    return 0.0


def to_array(state) -> np.ndarray:
    x, y = state
    return np.array([x, y], dtype=np.int64)


def action_of(a: int) -> str:
    return ACTIONS[a]


#: gridworld as a compiled domain (the settings and initial state are added by the registry).
DOMAIN = CompiledDomain("gridworld", N_ACTIONS, legal=legal, step=step, is_terminal=terminal,
                        to_play=to_play, evaluate=evaluate, to_array=to_array, action_of=action_of)


# numba re-validates a cache only against its own file: flush this module's caches if
# a module it inlines (playout.mcts.nbrng) is newer (see playout.jitcache).
flush_stale_caches(globals())
