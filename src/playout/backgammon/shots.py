"""Shot inputs (numba): how exposed each side's blots are to the other side's next roll.

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


@njit(cache=True, inline="always")
def _leading_zeros_loop(v):
    """Leading zero bits of int64 ``v`` (the fallback for LLVM's ctlz)."""
    n = 0
    while n < 64 and (v >> (63 - n)) & 1 == 0:
        n += 1
    return n


@njit(cache=True, inline="always")
def _trailing_zeros_loop(v):
    """Trailing zero bits of int64 ``v`` (the fallback for LLVM's cttz)."""
    n = 0
    while n < 64 and (v >> n) & 1 == 0:
        n += 1
    return n


try:  # LLVM's ctlz/cttz intrinsics (numba has shipped them here since 0.4x)
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
except ImportError:  # pragma: no cover - a numba that moved them: the loops, same results
    leading_zeros, trailing_zeros = _leading_zeros_loop, _trailing_zeros_loop

#: the 21 distinct rolls (a >= c) and their weight out of 36
_RA = np.array([a for a in range(1, 7) for c in range(1, a + 1)], dtype=np.int64)
_RC = np.array([c for a in range(1, 7) for c in range(1, a + 1)], dtype=np.int64)
_RW = np.where(_RA == _RC, 1, 2).astype(np.int64)


def _shot_tables():
    """Per distance D (1..24): rolls hitting directly, and the rolls that need intermediates.

    ``direct[D]``: bitmask (bit r = roll r) of the rolls with a die equal to D;
    ``combo[D, j] = (r, a, c)``: non-doubles with a + c = D (an open point at s - a or s - c);
    ``dbl[D, j] = (r, d, k)``: doubles d with k d = D, 2 <= k <= 4 (open points s - d ...).
    """
    direct = np.zeros(25, dtype=np.int64)
    combo = np.full((25, 3, 3), -1, dtype=np.int64)
    dbl = np.full((25, 3, 3), -1, dtype=np.int64)
    nc = np.zeros(25, dtype=np.int64)
    nd = np.zeros(25, dtype=np.int64)
    for r in range(21):
        a, c = int(_RA[r]), int(_RC[r])
        direct[a] |= 1 << r
        direct[c] |= 1 << r
        if a != c:
            combo[a + c, nc[a + c]] = (r, a, c)
            nc[a + c] += 1
        else:
            for k in range(2, 5):
                dbl[k * a, nd[k * a]] = (r, a, k)
                nd[k * a] += 1
    return direct, combo, dbl


_DIRECT, _COMBO, _DBL = _shot_tables()


#: The two inputs are counts out of 36 (and 36 x 25) times these constants, never divisions:
#: numba compiles a function called from a ``fastmath`` function it inlines (``inline="always"``,
#: as :mod:`playout.backgammon.incremental` does) with fastmath too, and LLVM then turns
#: ``n / 36.0`` into ``n * (1 / 36.0)``; which version a process (or the on-disk cache) holds
#: would depend on what was compiled first.  A product is the same either way.
_INV36 = 1.0 / 36.0
_INV900 = 1.0 / 900.0

#: bitmask of the six doubles among the 21 rolls
_DOUBLES = int(sum(1 << r for r in range(21) if _RA[r] == _RC[r]))


@njit(cache=True, inline="always")
def _popcount(v):
    """Set bits of a non-negative ``v`` below bit 32 (SWAR)."""
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    return ((v * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(cache=True, inline="always")
def _on(mask, p):
    return (mask >> p) & 1 != 0


@njit(cache=True)
def _best_hit(a, c, occ, blots, blocks, nbar):
    """The largest ``t`` (hitter's numbering) of a blot dice ``a``/``c`` can hit, or 0.

    Bit ``p`` of ``occ``/``blots``/``blocks``: the hitter has a checker on ``p``, the defender
    a blot, the defender two or more; ``nbar`` hitter checkers on its bar (point 25).
    Bar checkers enter first (a non-double with two or more on the bar can hit only on
    its entry points; with one, the other die is free); a combination shot needs an open
    intermediate point.  Whether the rest of the roll can be played legally is ignored.
    """
    best = 0
    if a != c:
        if nbar >= 2:
            for e in (25 - a, 25 - c):
                if _on(blots, e) and e > best:
                    best = e
            return best
        if nbar == 1:
            for order in range(2):
                first = a if order == 0 else c
                second = c if order == 0 else a
                e = 25 - first
                if _on(blocks, e):
                    continue
                if _on(blots, e) and e > best:
                    best = e
                for t in range(24, best, -1):
                    if _on(blots, t):
                        src = t + second
                        if src == e or (src <= 24 and _on(occ, src)):
                            best = t
                            break
            return best
        for t in range(24, 0, -1):
            if not _on(blots, t):
                continue
            if t + c <= 24 and _on(occ, t + c):
                return t
            if t + a <= 24 and _on(occ, t + a):
                return t
            src = t + a + c
            if src <= 24 and _on(occ, src) and (not _on(blocks, src - a) or not _on(blocks, src - c)):
                return t
        return 0
    d = a
    m = 4
    e = -1
    if nbar > 0:
        e = 25 - d
        if _on(blocks, e):
            return 0
        if _on(blots, e):
            best = e
        m = 4 - nbar
        if m <= 0:
            return best
    for t in range(24, best, -1):
        if not _on(blots, t):
            continue
        for k in range(1, m + 1):
            src = t + k * d
            if src > 24 and src != e:
                break
            if src == e or _on(occ, src):
                ok = True
                for j in range(1, k):
                    if _on(blocks, src - j * d):
                        ok = False
                        break
                if ok:
                    return t
    return best


@njit(cache=True)
def _masks(b, hitter_is_mover):
    """(occ, blots, blocks, nbar) bitmasks of ``b`` in the hitter's numbering (see below)."""
    occ = np.int64(0)
    blots = np.int64(0)
    blocks = np.int64(0)
    for i in range(1, 25):
        v = int(b[i])
        p = i if hitter_is_mover else 25 - i
        if not hitter_is_mover:
            v = -v
        if v > 0:
            occ |= np.int64(1) << p
        elif v == -1:
            blots |= np.int64(1) << p
        elif v <= -2:
            blocks |= np.int64(1) << p
    nbar = int(b[25]) if hitter_is_mover else int(b[0])
    return occ, blots, blocks, nbar


@njit(cache=True)
def shot_stats_reference(b, hitter_is_mover):
    """:func:`shot_stats` roll by roll (21 x :func:`_best_hit`); the fast path is tested against it."""
    occ, blots, blocks, nbar = _masks(b, hitter_is_mover)
    if blots == 0:
        return 0.0, 0.0
    hit36 = 0
    loss = 0
    for r in range(21):
        best = _best_hit(_RA[r], _RC[r], occ, blots, blocks, nbar)
        if best > 0:
            hit36 += _RW[r]
            loss += _RW[r] * best
    return hit36 * _INV36, loss * _INV900


@njit(cache=True, inline="always")
def roll_targets(a, c, occ, blocks, nbar):
    """Bitmask of the points the hitter can reach with dice ``a``/``c``: :func:`_best_hit` as
    bitmask moves (bit ``p`` = point ``p`` of the hitter's numbering; ``>> d`` = ``d`` pips on).

    No bar checkers: one die from any checker, or both dice by one checker through an open
    intermediate point (doubles: up to four steps, each landing open).  Non-doubles with two
    or more on the bar reach only the entry points ``25 - a``, ``25 - c``; with one, a die
    enters on an open point ``e`` and the other moves any checker, the entered one included,
    one step.  Doubles enter on ``25 - a`` if open and have ``4 - nbar`` steps left for one
    checker.  Bits outside 1..24 may be set; callers mask with the blots.
    """
    one = np.int64(1)
    if a != c:
        if nbar >= 2:
            return (one << (25 - a)) | (one << (25 - c))
        if nbar == 1:
            targets = np.int64(0)
            for order in range(2):
                first = a if order == 0 else c
                second = c if order == 0 else a
                e = one << (25 - first)
                if blocks & e:
                    continue
                targets |= e | ((occ | e) >> second)
            return targets
        return (occ >> a) | (occ >> c) | (((occ >> a) & ~blocks) >> c) | (((occ >> c) & ~blocks) >> a)
    cont = occ
    targets = np.int64(0)
    steps = 4
    if nbar > 0:
        e = one << (25 - a)
        if blocks & e:
            return np.int64(0)
        targets = e
        cont = occ | e
        steps = 4 - nbar
    for _ in range(steps):
        cont >>= a
        targets |= cont
        cont &= ~blocks
    return targets


@njit(cache=True, inline="always")
def _bar_stats(occ, blots, blocks, nbar):
    """(hit36, loss36) over the 21 rolls from :func:`roll_targets` (hitter checkers on the bar)."""
    hit36 = 0
    loss = 0
    for r in range(21):
        a = _RA[r]
        c = _RC[r]
        h = roll_targets(a, c, occ, blocks, nbar) & blots
        if h != 0:
            w = 1 if a == c else 2
            hit36 += w
            loss += w * (63 - leading_zeros(h))
    return hit36, loss


@njit(cache=True)
def shot_stats(b, hitter_is_mover):
    """(hit fraction, mean pip loss / 25) of the defender's blots on the hitter's next roll.

    In the hitter's numbering it moves from 25 (its bar) toward 1; the pip loss of a blot
    hit on ``t`` is ``t`` (it had ``25 - t`` pips to go, and 25 after the hit).  Without
    hitter checkers on the bar the rolls that hit each blot are gathered as a bitmask over
    its sources (distance tables :data:`_DIRECT`, :data:`_COMBO`, :data:`_DBL`), blots taken
    from the largest loss down; with checkers on the bar roll by roll as bitmask moves
    (:func:`_bar_stats`).
    """
    occ, blots, blocks, nbar = _masks(b, hitter_is_mover)
    if blots == 0:
        return 0.0, 0.0
    if nbar > 0:
        hit36, loss = _bar_stats(occ, blots, blocks, nbar)
        return hit36 * _INV36, loss * _INV900
    covered = np.int64(0)
    hit36 = 0
    loss = 0
    rest = blots
    while rest != 0:
        t = 63 - leading_zeros(rest)  # the farthest-advanced blot left
        rest &= ~(np.int64(1) << t)
        m = np.int64(0)
        srcs = (occ >> (t + 1)) & 0xFFFFFF  # hitter checkers 1..24 pips above t
        while srcs != 0:
            D = trailing_zeros(srcs) + 1
            srcs &= srcs - 1
            src = t + D
            m |= _DIRECT[D]
            for j in range(3):
                r = _COMBO[D, j, 0]
                if r < 0:
                    break
                if (m >> r) & 1 == 0 and (not _on(blocks, src - _COMBO[D, j, 1])
                                          or not _on(blocks, src - _COMBO[D, j, 2])):
                    m |= np.int64(1) << r
            for j in range(3):
                r = _DBL[D, j, 0]
                if r < 0:
                    break
                if (m >> r) & 1 == 0:
                    d = _DBL[D, j, 1]
                    ok = True
                    for i in range(1, _DBL[D, j, 2]):
                        if _on(blocks, src - i * d):
                            ok = False
                            break
                    if ok:
                        m |= np.int64(1) << r
        new = m & ~covered
        covered |= m
        # rolls out of 36: 2 per non-double, 1 per double
        w36 = 2 * _popcount(new) - _popcount(new & _DOUBLES)
        hit36 += w36
        loss += w36 * t
    return hit36 * _INV36, loss * _INV900


@njit(cache=True)
def shot_inputs(b, x, base, flipped):
    """Write the four shot inputs of board ``b`` to ``x[base:base + 4]``.

    Order (for the side to act ``A`` and its opponent ``O`` of the *encoded* board):
    A hits O (hit, loss), then O hits A (hit, loss).  With ``flipped`` the encoded
    board is ``flip(b)`` (the opponent of ``b``'s mover is to act).
    """
    # np.bool_: one specialisation of shot_stats (a literal True/False compiles one each)
    h1, l1 = shot_stats(b, np.bool_(not flipped))
    h2, l2 = shot_stats(b, np.bool_(flipped))
    x[base] = h1
    x[base + 1] = l1
    x[base + 2] = h2
    x[base + 3] = l2
