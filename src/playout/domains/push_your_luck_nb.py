"""Push Your Luck primitives for the compiled MCTS kernel (numba).

The rules of :mod:`playout.domains.push_your_luck` (mctreesearch4j's game with
its bugs fixed): one fair six-sided die; ``roll`` toggles the mark of the rolled
face (reward 0); ``cashout`` pays the product of the marked faces (0 if none)
and clears them.  Never terminal.

State array (int64, shape (1,)): a 6-bit mask, bit ``i`` set when face ``i + 1``
is marked.  Action ids 0 = roll, 1 = cashout.  The step is branch-free (the
die is drawn on every step, cash-outs included) since rollouts pick the two
actions at random and a branch would be mispredicted half the time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.jitcache import flush_stale_caches
from playout.mcts.compiled_domain import CompiledDomain

from playout.mcts.nbrng import randint

STATE_SIZE = 1
N_ACTIONS = 2
ACTIONS = ("roll", "cashout")


def _products() -> np.ndarray:
    out = np.zeros(64, dtype=np.float64)
    for m in range(1, 64):
        p = 1
        for i in range(6):
            if m >> i & 1:
                p *= i + 1
        out[m] = p
    return out


#: cash-out value of each mask (product of marked faces; 0 for no mark).
CASHOUT = _products()


@njit(cache=True)
def terminal(s):
    return False


@njit(cache=True)
def to_play(s):
    return 0


@njit(cache=True)
def legal(s, out):
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True)
def step(s, a, rs):
    face = randint(rs, 6)
    roll = np.int64(a == 0)
    m = s[0]
    reward = CASHOUT[m] * (1 - roll)
    s[0] = (m ^ (np.int64(1) << face)) * roll
    return reward


@njit(cache=True)
def evaluate(s):
    return 0.0


def to_array(state) -> np.ndarray:
    """The 6-tuple of marks (face ``i + 1`` at index ``i``) as the state array."""
    m = 0
    for i, marked in enumerate(state):
        if marked:
            m |= 1 << i
    return np.array([m], dtype=np.int64)


def action_of(a: int) -> str:
    return ACTIONS[a]


#: push_your_luck as a compiled domain (the settings and initial state are added by the registry).
DOMAIN = CompiledDomain("push_your_luck", N_ACTIONS, legal=legal, step=step, is_terminal=terminal,
                        to_play=to_play, evaluate=evaluate, to_array=to_array, action_of=action_of)


# numba re-validates a cache only against its own file: flush this module's caches if
# a module it inlines (playout.mcts.nbrng) is newer (see playout.jitcache).
flush_stale_caches(globals())
