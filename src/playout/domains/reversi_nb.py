"""Reversi (Othello) primitives for the compiled MCTS kernel (numba, bitboards).

The rules of :mod:`playout.domains.reversi` (standard Othello with passes): a
move must bracket opponent discs along a line, which flip; a player without a
move passes (action 64) if the opponent can move; the game ends when neither
can.  The move that ends it pays ``(mover's discs - opponent's discs) / 64`` to
the mover; other moves pay 0.  ``evaluate`` = disc difference / 64 for the side
to move.

State array (int64, shape (3,)): ``[black (player 0) bitboard, white bitboard,
to_play]``; bit ``row * 8 + col`` (row 0 = rank 1, col 0 = file a), the Python
domain's square index.  Move generation by Kogge-Stone-style shifts over the
eight directions (the usual bitboard technique, e.g. the Chess Programming
Wiki's "Dumb7Fill").
"""

from __future__ import annotations

import numpy as np
from numba import config, njit

from playout.jitcache import flush_stale_caches
from playout.mcts.compiled_domain import CompiledDomain

if config.DISABLE_JIT:  # plain-Python debugging run (NUMBA_DISABLE_JIT=1)

    def trailing_zeros(x):
        x = int(x)
        return (x & -x).bit_length() - 1

else:
    from numba.cpython.unsafe.numbers import trailing_zeros

from playout.mcts.nbrng import randint

STATE_SIZE = 3
N_ACTIONS = 65
PASS = 64

_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)  # all but file a (col 0)
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)  # all but file h (col 7)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U7 = np.uint64(7)
_U8 = np.uint64(8)
_U9 = np.uint64(9)


@njit(cache=True, inline="always")
def _shift(b, d):
    if d == 0:
        return b >> _U8
    if d == 1:
        return b << _U8
    if d == 2:
        return (b & _NOT_H) << _U1
    if d == 3:
        return (b & _NOT_A) >> _U1
    if d == 4:
        return (b & _NOT_H) >> _U7
    if d == 5:
        return (b & _NOT_A) >> _U9
    if d == 6:
        return (b & _NOT_H) << _U9
    return (b & _NOT_A) << _U7


@njit(cache=True)
def moves_of(own, opp):
    """Bitboard of legal moves for the owner of ``own`` (uint64 inputs)."""
    empty = ~(own | opp)
    m = _U0
    for d in range(8):
        x = _shift(own, d) & opp
        for _ in range(5):
            x |= _shift(x, d) & opp
        m |= _shift(x, d) & empty
    return m


@njit(cache=True)
def flips_of(own, opp, sq):
    """Discs flipped by a move of ``own``'s owner on square ``sq``."""
    mv = _U1 << np.uint64(sq)
    f = _U0
    for d in range(8):
        x = _shift(mv, d)
        line = _U0
        while x & opp:
            line |= x
            x = _shift(x, d)
        if x & own:
            f |= line
    return f


@njit(cache=True)
def popcount(x):
    c = 0
    while x:
        x &= x - _U1
        c += 1
    return c


@njit(cache=True, inline="always")
def _boards(s):
    p = s[2]
    own = np.uint64(s[p])
    opp = np.uint64(s[1 - p])
    return own, opp


@njit(cache=True)
def terminal(s):
    own, opp = _boards(s)
    return moves_of(own, opp) == _U0 and moves_of(opp, own) == _U0


@njit(cache=True)
def to_play(s):
    return s[2]


@njit(cache=True)
def legal(s, out):
    """Legal squares ascending, or [64] (pass); 0 actions when the game is over."""
    own, opp = _boards(s)
    m = moves_of(own, opp)
    if m == _U0:
        if moves_of(opp, own) == _U0:
            return 0
        out[0] = PASS
        return 1
    n = 0
    while m:
        out[n] = trailing_zeros(m)
        m &= m - _U1
        n += 1
    return n


@njit(cache=True)
def step(s, a, rs):
    p = s[2]
    own, opp = _boards(s)
    if a != PASS:
        f = flips_of(own, opp, a)
        own |= f | (_U1 << np.uint64(a))
        opp &= ~f
        s[p] = np.int64(own)
        s[1 - p] = np.int64(opp)
    s[2] = 1 - p
    if moves_of(opp, own) == _U0 and moves_of(own, opp) == _U0:
        return (popcount(own) - popcount(opp)) / 64.0
    return 0.0


@njit(cache=True)
def evaluate(s):
    own, opp = _boards(s)
    return (popcount(own) - popcount(opp)) / 64.0


@njit(cache=True)
def heuristic_action(acts, n, rs, weights):
    """Among ``acts[:n]`` those of the highest ``weights[square]``, uniformly
    (mctreesearch4j's heuristic simulation); a lone pass is returned as is."""
    if n == 1:
        return acts[0]
    best = -1e300
    k = 0
    for i in range(n):
        w = weights[acts[i]]
        if w > best:
            best = w
            k = 1
        elif w == best:
            k += 1
    j = randint(rs, k)
    for i in range(n):
        if weights[acts[i]] == best:
            if j == 0:
                return acts[i]
            j -= 1
    return acts[0]


def to_array(state) -> np.ndarray:
    """A :class:`~playout.domains.reversi.ReversiState` as the state array."""
    b = [0, 0]
    for i, v in enumerate(state.cells):
        if v:
            b[v - 1] |= 1 << i
    arr = np.zeros(STATE_SIZE, dtype=np.int64)
    arr[0] = np.uint64(b[0]).astype(np.int64)
    arr[1] = np.uint64(b[1]).astype(np.int64)
    arr[2] = state.to_play
    return arr


def weights_array(table) -> np.ndarray:
    """An 8 x 8 weight table (``table[row][col]``) as float64[64] by square index."""
    return np.array([float(table[r][c]) for r in range(8) for c in range(8)], dtype=np.float64)


def action_of(a: int) -> int:
    return int(a)


@njit(cache=True)
def rollout_action(s, acts, n, rs, params):
    """The protocol's rollout policy: :func:`heuristic_action` with ``params`` the weight table."""
    return heuristic_action(acts, n, rs, params)


def _heuristic_params() -> np.ndarray:
    from playout.domains.reversi import heuristic_weights

    return weights_array(heuristic_weights())


#: Reversi as a compiled domain; ``policy="heuristic"`` simulates with mctreesearch4j's
#: weight table (the settings and initial state are added by the registry).
DOMAIN = CompiledDomain("reversi", N_ACTIONS, legal=legal, step=step, is_terminal=terminal,
                        to_play=to_play, evaluate=evaluate, rollout_action=rollout_action,
                        policy_params=_heuristic_params, to_array=to_array, action_of=action_of)


# numba re-validates a cache only against its own file: flush this module's caches if
# a module it inlines (playout.mcts.nbrng) is newer (see playout.jitcache).
flush_stale_caches(globals())
