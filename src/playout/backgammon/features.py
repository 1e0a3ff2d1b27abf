"""Shot features (numba): how exposed each side's blots are to the other side's next roll.

Tesauro's raw inputs tell a network where every checker is, but not whether a
blot can be hit: that is a non-linear function of distances, dice and blocking
points, and the single most important fact for choosing a play at 1-ply (the
opponent rolls next).  TD-Gammon (Tesauro 1995) and gnubg (its ``P1``/``P2``
"pip loss" inputs, ``eval.c``) therefore add it by hand.  We add two numbers per
direction, computed exactly over the 21 distinct rolls:

* ``hit``  -- the fraction of the 36 rolls on which the hitter can hit at least
  one blot (direct shots, and indirect ones whose intermediate landing point is
  not blocked by two or more of the defender's checkers);
* ``loss`` -- the mean, over the 36 rolls, of the pips the defender loses on
  the farthest-advanced blot that roll can hit, / 25 (0 when no hit).

Bar checkers must enter first (a non-double with two or more on the bar hits only
on its entry points; with one on the bar the other die is free; a double enters
as many checkers as are on the bar and plays the rest).  Simplification (as in
gnubg's shot counts): whether the rest of the roll can be played legally is ignored.

Board convention (:mod:`playout.backgammon.board`): ``b[1..24]`` positive for
the side to act (moving 24 -> 1, bar ``b[25]``), negative for the opponent
(moving 1 -> 24, bar ``b[0]``, stored as a positive count).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: the 21 distinct rolls (a >= c) and their weight out of 36
_RA = np.array([a for a in range(1, 7) for c in range(1, a + 1)], dtype=np.int64)
_RC = np.array([c for a in range(1, 7) for c in range(1, a + 1)], dtype=np.int64)
_RW = np.where(_RA == _RC, 1, 2).astype(np.int64)


@njit(cache=True)
def _best_hit(a, c, hc, blot, blocked):
    """The largest ``t`` (hitter's numbering) of a blot dice ``a``/``c`` can hit, or 0.

    Bar checkers enter first (a non-double with two or more on the bar can hit only on
    its entry points; with one, the other die is free); a combination shot needs an open
    intermediate point.  Whether the rest of the roll can be played legally is ignored.
    """
    nbar = hc[25]
    best = 0
    if a != c:
        if nbar >= 2:
            for e in (25 - a, 25 - c):
                if blot[e] != 0 and e > best:
                    best = e
            return best
        if nbar == 1:
            for order in range(2):
                first = a if order == 0 else c
                second = c if order == 0 else a
                e = 25 - first
                if blocked[e] != 0:
                    continue
                if blot[e] != 0 and e > best:
                    best = e
                for t in range(24, best, -1):
                    if blot[t] != 0:
                        src = t + second
                        if src == e or (src <= 24 and hc[src] > 0):
                            best = t
                            break
            return best
        for t in range(24, 0, -1):
            if blot[t] == 0:
                continue
            for src in range(min(24, t + a + c), t, -1):
                if hc[src] == 0:
                    continue
                D = src - t
                if D == a or D == c:
                    return t
                if D == a + c and (blocked[src - a] == 0 or blocked[src - c] == 0):
                    return t
        return 0
    d = a
    m = 4
    e = -1
    if nbar > 0:
        e = 25 - d
        if blocked[e] != 0:
            return 0
        if blot[e] != 0:
            best = e
        m = 4 - nbar
        if m <= 0:
            return best
    for t in range(24, best, -1):
        if blot[t] == 0:
            continue
        for k in range(1, m + 1):
            src = t + k * d
            if src > 24 and src != e:
                break
            if src == e or hc[src] > 0:
                ok = True
                for j in range(1, k):
                    if blocked[src - j * d] != 0:
                        ok = False
                        break
                if ok:
                    return t
    return best


@njit(cache=True)
def shot_stats(b, hitter_is_mover, hc, blot, blocked):
    """(hit fraction, mean pip loss / 25) of the defender's blots on the hitter's next roll.

    ``hc``/``blot``/``blocked`` are int64 work arrays of length 26 (overwritten).
    In the hitter's numbering (it moves from 25 = its bar toward 1), ``hc[p]`` is its
    checkers on p, ``blot[p]`` a single defender checker, ``blocked[p]`` two or more.
    """
    for p in range(26):
        hc[p] = 0
        blot[p] = 0
        blocked[p] = 0
    nb = 0
    for i in range(1, 25):
        v = int(b[i])
        p = i if hitter_is_mover else 25 - i
        if not hitter_is_mover:
            v = -v
        if v > 0:
            hc[p] = v
        elif v == -1:
            blot[p] = 1
            nb += 1
        elif v <= -2:
            blocked[p] = 1
    if nb == 0:
        return 0.0, 0.0
    hc[25] = int(b[25]) if hitter_is_mover else int(b[0])
    hit36 = 0
    loss = 0
    for r in range(21):
        best = _best_hit(_RA[r], _RC[r], hc, blot, blocked)
        if best > 0:
            hit36 += _RW[r]
            loss += _RW[r] * best
    return hit36 / 36.0, loss / (36.0 * 25.0)


@njit(cache=True)
def shot_inputs(b, x, base, flipped, work):
    """Write the four shot inputs of board ``b`` to ``x[base:base + 4]``.

    Order (for the side to act ``A`` and its opponent ``O`` of the *encoded* board):
    A hits O (hit, loss), then O hits A (hit, loss).  With ``flipped`` the encoded
    board is ``flip(b)`` (the opponent of ``b``'s mover is to act).  ``work`` is an
    int64[78] scratch array.
    """
    hc = work[0:26]
    blot = work[26:52]
    blocked = work[52:78]
    h1, l1 = shot_stats(b, not flipped, hc, blot, blocked)
    h2, l2 = shot_stats(b, flipped, hc, blot, blocked)
    x[base] = h1
    x[base + 1] = l1
    x[base + 2] = h2
    x[base + 3] = l2
