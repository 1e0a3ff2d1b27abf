"""Nakade playout rule (numba): play the vital point of a small eye space by the last move.

:func:`nakade_move` is the playout rule of ``run_playout(..., nakade=PCT)`` (``playout gtp
--nakade PCT``): with that probability, when the atari answer gave nothing, the side to move
looks at the empty areas touching the previous move and plays the *vital point* of one that is
a killable eye shape.  Whoever gets there first decides the life of the group around it: the
defender's stone there splits the space into two eyes, the attacker's leaves one (nakade).
3x3 patterns cannot see a whole eye space, so without the rule a playout settles such a group
by chance and the search misreads its life (MoGo's nakade rule, C.-S. Lee et al., "The
computational intelligence of MoGo revealed in Taiwan's computer Go tournaments", IEEE TCIAIG
1(1), 2009; Pachi's ``tactics/nakade.c``, P. Baudis, PhD thesis, Charles University 2011).

An *area* is a connected set of empty points whose neighbours on the board are stones of one
colour only (the owner; the frame does not count).  Areas of 3-5 points with a vital point,
classified by each point's number of neighbours inside the area (the classical eye shapes,
e.g. the Sensei's Library pages "Killable eyeshapes" and "Nakade"):

=========================  ==================  =====================================
shape                      degrees             vital point
=========================  ==================  =====================================
straight / bent three      2 1 1               the degree-2 point
pyramid four (T)           3 1 1 1             the degree-3 point
crossed five (plus)        4 1 1 1 1           the degree-4 point
bulky five                 3 2 2 2 1           the degree-3 point
=========================  ==================  =====================================

Every other area gives nothing: square four (dead as it stands), straight, bent and zigzag
four and the other five-point shapes (alive: two points miai), and anything larger.  The move
is played only where it is legal for the side to move (not the ko point, not a suicide).
An area touching the previous move has that move's stone on its border, so its owner is always
the previous mover: in playouts the rule is the attacker's placement inside the eye space the
opponent has just closed or reduced (the defender's own vital-point move is left to the
patterns).
"""

from __future__ import annotations

from numba import njit

from playout.go.rules import (
    BORDER,
    COLOR,
    EMPTY,
    M_KO,
    M_LAST,
    M_W,
    MARK,
    META,
    PASS,
    is_suicide,
    new_stamp,
)
from playout.jitcache import flush_stale_caches, siblings

#: the largest eye space the rule reads (points)
NAKADE_MAX = 5


@njit(cache=True, _nrt=False)
def nakade_point(S, B, e, off):
    """The vital point of the area of empty point ``e`` (module table), or ``PASS`` for none.

    ``B[off:off + NAKADE_MAX]`` is scratch (the area's points); ``S[MARK]`` gets a fresh stamp.
    The area is flooded from ``e`` and given up as soon as it has more than ``NAKADE_MAX``
    points or touches stones of both colours."""
    W = S[META, M_W]
    st = new_stamp(S)
    S[MARK, e] = st
    B[off] = e
    n = 1
    i = 0
    owner = EMPTY
    while i < n:
        x = B[off + i]
        i += 1
        for d in (-W, -1, 1, W):
            y = x + d
            cy = S[COLOR, y]
            if cy == EMPTY:
                if S[MARK, y] != st:
                    if n >= NAKADE_MAX:
                        return PASS
                    S[MARK, y] = st
                    B[off + n] = y
                    n += 1
            elif cy != BORDER:
                if owner == EMPTY:
                    owner = cy
                elif owner != cy:
                    return PASS
    if n < 3 or owner == EMPTY:
        return PASS
    best = PASS
    dmax = 0
    nmax = 0  # points of the largest degree
    n1 = 0  # points of degree 1
    for i in range(n):
        x = B[off + i]
        k = 0
        for d in (-W, -1, 1, W):
            if S[MARK, x + d] == st:
                k += 1
        if k == 1:
            n1 += 1
        if k > dmax:
            dmax = k
            nmax = 1
            best = x
        elif k == dmax:
            nmax += 1
    if nmax != 1:
        return PASS
    if n == 3:  # 2 1 1
        return best
    if n == 4:  # 3 1 1 1
        return best if dmax == 3 else PASS
    if dmax == 4 or (dmax == 3 and n1 == 1):  # 4 1 1 1 1, or 3 2 2 2 1 (3 2 1 1 1 is alive)
        return best
    return PASS


@njit(cache=True, _nrt=False)
def nakade_move(S, B, c):
    """The nakade move of ``c`` (to move) next to the previous move, or ``PASS`` for none: the
    vital point (:func:`nakade_point`) of the first area touching the previous move (its
    neighbours in the order up, left, right, down) that has one and where ``c`` may play.
    Scratch: ``B[3 n:3 n + NAKADE_MAX]`` (``n`` = padded points; the far-light sampler uses
    ``B[:3 n]``, :func:`playout.go.rules.play` the end)."""
    last = S[META, M_LAST]
    if last <= 0 or S[COLOR, last] == EMPTY:
        return PASS
    W = S[META, M_W]
    off = 3 * S.shape[1]
    for d in (-W, -1, 1, W):
        e = last + d
        if S[COLOR, e] != EMPTY:
            continue
        v = nakade_point(S, B, e, off)
        if v != PASS and v != S[META, M_KO] and not is_suicide(S, v, c):
            return v
    return PASS


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py"))
