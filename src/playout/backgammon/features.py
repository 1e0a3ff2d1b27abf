"""Hand-made network inputs (numba): shots (how exposed each side's blots are to the other
side's next roll) and, at the end of the file, blockade features (escapes, containment,
mobility: :func:`escape_inputs`) and timing / crunch / back-game features (contact breaking,
timing, anchors, entering, back games: :func:`contact_inputs`).

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


# -- blockade features: escapes, containment, mobility -------------------------------------------
#
# gnubg's contact-net inputs (eval.c, its input list and ``Escapes()``; definitions only, our own
# code): a checker "escapes" with a roll when it can move the sum of the dice, landing on an open
# point, by at least one open intermediate point (a double: its single intermediate point).  Only
# the twelve points in front of it matter (the sum of two dice is at most 12; doubles are treated
# the same way, three and four steps not counted, as gnubg does).

def _escape_table(past_nearest=False):
    """``ESC[m]``, m a 12-bit mask (bit j = the point j + 1 pips in front is blocked): the
    rolls out of 36 on which a checker moves both dice past open points (see above).  With
    ``past_nearest`` only the rolls that also carry it past the nearest blocked point count (0
    when nothing blocks it): gnubg's ``Escapes1``, behind ``I_BACKRESCAPES`` (:data:`ESC1`)."""
    t = np.zeros(4096, dtype=np.int64)
    for m in range(1 if past_nearest else 0, 4096):
        low = (m & -m).bit_length() if past_nearest else 0  # pips to the nearest blocked point
        n = 0
        for a in range(1, 7):
            for c in range(1, 7):  # ordered rolls: a non-double counts twice
                land = (m >> (a + c - 1)) & 1
                via_a = (m >> (a - 1)) & 1
                via_c = (m >> (c - 1)) & 1
                if a + c > low and not land and not (via_a and via_c):
                    n += 1
        t[m] = n
    return t


#: rolls of 36 that let a checker escape, by the 12-bit mask of blocked points in front of it
ESC = _escape_table()
#: inputs per side (:func:`escape_inputs`)
N_ESCAPE_SIDE = 6
_INV3600 = 1.0 / 3600.0


@njit(cache=True, inline="always")
def _esc(blocker_made, q):
    """Escapes (of 36) of a checker on its own point ``q`` (25 = bar) past the points the other
    side holds (``blocker_made``: bit ``r`` = it holds its own point ``r`` with two or more):
    point ``q - d`` of the checker is the blocker's point ``25 - q + d``, so the twelve points
    in front are bits ``26 - q ..``."""
    return ESC[(blocker_made >> (26 - q)) & 0xFFF]


@njit(cache=True, inline="always")
def _side_escape(made, q_back, mob, x, k):
    """The six inputs of a side ``S`` into ``x[k:k + 6]`` (see :func:`escape_inputs`): ``made``
    its points (own numbering), ``q_back`` the opponent's rearmost checker (the opponent's
    numbering, 25 = bar), ``mob`` its mobility sum."""
    back = _esc(made, q_back)
    amin = 36
    cmin = 36
    for q in range(16, 26):  # O's 16 point = S's 9 point, back to O's bar
        e = _esc(made, q)
        if q <= q_back and e < amin:
            amin = e
        if (q <= 24 or q <= q_back) and e < cmin:
            cmin = e
    a = (36 - amin) * _INV36
    c = (36 - cmin) * _INV36
    x[k] = back * _INV36
    x[k + 1] = a
    x[k + 2] = a * a
    x[k + 3] = c
    x[k + 4] = c * c
    x[k + 5] = mob * _INV3600


@njit(cache=True)
def escape_inputs(b, x, base, flipped):
    """Write the blockade inputs of board ``b`` to ``x[base:base + 12]``: six for the side to
    act ``A`` of the *encoded* board, then six for its opponent (``flipped``: the encoded
    board is ``flip(b)``, as in :func:`shot_inputs`).

    For each side ``S`` and its opponent ``O`` (gnubg's ``I_BACKESCAPES``, ``I_ACONTAIN``,
    ``I_ACONTAIN2``, ``I_CONTAIN``, ``I_CONTAIN2``, ``I_MOBILITY``; eval.c), with ``e(q)`` the
    escapes (of 36, :data:`ESC`) of an ``O`` checker on ``O``'s point ``q`` past ``S``'s points:

    * ``e(back) / 36``, ``back`` = ``O``'s rearmost checker (25 on the bar): how freely it runs;
    * ``1 - min e(q) / 36`` over ``q`` from 16 (``S``'s 9 point) back to ``back`` (0 when
      ``back`` < 16): how well ``S`` contains ``O``'s rear checkers; then its square;
    * the same over ``q`` = 16..max(24, ``back``): ``S``'s blockade (9 point to 1 point) as
      such; then its square;
    * mobility: the sum over ``S``'s checkers outside its home board (the bar = point 25) of
      (point - 6) x the escapes of that checker past ``O``'s points, / 3600.

    Values: escapes and containment in [0, 1], mobility in [0, 2.85].
    """
    # one pass: made points of the positive side P (its numbering = the board's) and of the
    # negative side N (its point 25 - i), and each side's rearmost checker in its own numbering
    pm = np.int64(0)
    nm = np.int64(0)
    p_back = 25 if b[25] > 0 else 0
    n_low = 0 if b[0] > 0 else 25  # N's rearmost as a board index (0 = its bar)
    for i in range(1, 25):
        v = int(b[i])
        if v > 0:
            if v >= 2:
                pm |= np.int64(1) << i
            if p_back < i:
                p_back = i
        elif v < 0:
            if v <= -2:
                nm |= np.int64(1) << (25 - i)
            if n_low > i:
                n_low = i
    n_back = 25 - n_low
    # mobility: checkers outside the home board (bar = point 25), (point - 6) x escapes
    pmob = 19 * int(b[25]) * _esc(nm, 25)
    for p in range(7, min(p_back, 24) + 1):
        v = int(b[p])
        if v > 0:
            pmob += (p - 6) * v * _esc(nm, p)
    nmob = 19 * int(b[0]) * _esc(pm, 25)
    for q in range(7, min(n_back, 24) + 1):
        v = -int(b[25 - q])
        if v > 0:
            nmob += (q - 6) * v * _esc(pm, q)
    if flipped:  # the negative side acts in the encoded board
        _side_escape(nm, p_back, nmob, x, base)
        _side_escape(pm, n_back, pmob, x, base + N_ESCAPE_SIDE)
    else:
        _side_escape(pm, n_back, pmob, x, base)
        _side_escape(nm, p_back, nmob, x, base + N_ESCAPE_SIDE)


# -- timing, crunch and back-game features ----------------------------------------------------
#
# The rest of gnubg's contact-net inputs (eval.c, its input list and ``CalculateHalfInputs()``;
# definitions and scalings only, our own code): each describes one side ``S`` against the rearmost
# checker of its opponent ``O``.  gnubg's weights were trained on these exact formulas, quirks
# included (noted where they look odd), so they are kept as they are.

#: rolls of 36 that let a checker escape past the nearest blocked point (``I_BACKRESCAPES``)
ESC1 = _escape_table(past_nearest=True)
#: inputs per side (:func:`contact_inputs`)
N_CONTACT_SIDE = 13
_INV6 = 1.0 / 6.0
_INV24 = 1.0 / 24.0
_INV100 = 0.01
_INV167 = 1.0 / 167.0
_INV294 = 1.0 / 294.0
_INV400 = 1.0 / 400.0


@njit(cache=True, inline="always")
def _cnt(b, pos, q):
    """Checkers of side ``pos`` (True: the board's positive side) on its own point ``q`` (25 = bar)."""
    if pos:
        v = int(b[25]) if q == 25 else int(b[q])
    else:
        v = int(b[0]) if q == 25 else -int(b[25 - q])
    return v if v > 0 else 0


@njit(cache=True, inline="always")
def _side_contact(b, pos, ob, x, k):
    """The thirteen inputs of side ``S`` (``pos``: the board's positive side) into ``x[k:k + 13]``;
    ``ob`` = the point of ``S``'s numbering holding ``O``'s rearmost checker (0: ``O`` on the bar)."""
    nbar = _cnt(b, pos, 25)
    # the descending pass: bar, 24 .. 1
    brk = 0
    free = 0
    m = ob - 1 if ob - 1 > 11 else 11
    t = 24 * nbar
    spare = nbar
    made = np.int64(0)
    back = 25 if nbar > 0 else 0
    anchor = 0
    fwd_home = 0
    fwd_out = 0
    top = 0  # backbone: the rearmost made point (2..24)
    bw = 0
    btot = 0
    n_ac = 0
    bg_tot = nbar
    n_all = nbar
    s_all = 24 * nbar
    if 25 > ob:
        brk = (26 - ob) * nbar
    for q in range(24, 0, -1):
        c = _cnt(b, pos, q)
        if c == 0:
            if q <= 6 and spare >= 2:  # an empty home point takes two spares
                t -= 2 * (q - 1)
                spare -= 2
            continue
        n_all += c
        s_all += (q - 1) * c
        if back == 0:
            back = q
        if q > ob:
            brk += (q - ob + 1) * c
        elif q < ob:
            free += q * c
        if q > m + 1:  # behind O's rearmost (and the 12 point): made points stay
            if c != 2:
                n = c - 2 if c > 2 else 1
                spare += n
                t += (q - 1) * n
        elif q >= 7:
            spare += c
            t += (q - 1) * c
        elif c > 2:
            t += (q - 1) * (c - 2)
            spare += c - 2
        elif c == 1 and spare >= 1:
            t -= q - 1
            spare -= 1
        if q >= 19:
            bg_tot += c
        if c >= 2:
            made |= np.int64(1) << q
            if anchor == 0:
                anchor = q
            if q >= 19:
                fwd_home = q
                n_ac += 1
            elif q >= 13 and fwd_out == 0:
                fwd_out = q
            if q >= 2:
                if top == 0:
                    top = q
                else:
                    d = top - q
                    cw = 11 if d <= 6 else (13 - d if d <= 11 else 0)
                    bw += cw * _cnt(b, pos, top)
                    btot += _cnt(b, pos, top)
    if t < 0:
        t = 0
    # one-sided second moment above the (rounded up) mean, in gnubg's 0..24 numbering
    mean = (s_all + n_all - 1) // n_all if n_all > 0 else 0
    mj = 0
    mk = 0
    for i in range(mean + 1, 25):
        c = _cnt(b, pos, i + 1)
        if c > 0:
            mj += c
            mk += c * (i - mean) * (i - mean)
    if mj > 0:
        mk = (mk + mj - 1) // mj
    # entering: O's home points held (O's point d = S's point 25 - d)
    held = 0
    n_held = 0
    for d in range(1, 7):
        v = -int(b[25 - d]) if pos else int(b[d])
        if v >= 2:
            held |= 1 << d
            n_held += 1
    loss = 0
    if nbar > 0:
        two = nbar > 1
        for d in range(1, 7):
            if (held >> d) & 1:
                loss += 4 * d  # the double d-d fails
                for e in range(d + 1, 7):
                    if (held >> e) & 1:
                        loss += 2 * (d + e)
                    elif two:
                        loss += 2 * d
            elif two:
                for e in range(d + 1, 7):
                    if (held >> e) & 1:
                        loss += 2 * e
    if fwd_home > 0:
        fwd = (25 - fwd_home) * _INV6
    elif fwd_out > 0:
        fwd = (25 - fwd_out) * _INV6
    else:
        fwd = 2.0
    x[k] = brk * _INV167
    x[k + 1] = free * _INV100
    x[k + 2] = t * _INV100
    x[k + 3] = (back - 1) * _INV24
    x[k + 4] = (anchor - 1) * _INV24
    x[k + 5] = fwd
    x[k + 6] = mk * _INV400
    x[k + 7] = loss * _INV294
    x[k + 8] = (36 - (n_held - 6) * (n_held - 6)) * _INV36
    x[k + 9] = 1.0 - bw / (11.0 * btot) if btot > 0 else 0.0
    x[k + 10] = (bg_tot - 3) * 0.25 if n_ac > 1 else 0.0
    x[k + 11] = bg_tot * 0.125 if n_ac == 1 else 0.0
    x[k + 12] = ESC1[(made >> (ob + 1)) & 0xFFF] * _INV36


@njit(cache=True)
def contact_inputs(b, x, base, flipped):
    """Write the timing / crunch / back-game inputs of board ``b`` to ``x[base:base + 26]``:
    thirteen for the side to act ``A`` of the *encoded* board, then thirteen for its opponent
    (``flipped``: the encoded board is ``flip(b)``, as in :func:`shot_inputs`).

    For each side ``S`` (its points ``q`` 1..24 in its own numbering, 25 = its bar, ``c(q)`` its
    checkers there) and ``ob`` = the point of ``S``'s numbering holding its opponent ``O``'s
    rearmost checker (0 when ``O`` is on the bar), after gnubg's contact inputs (eval.c,
    ``CalculateHalfInputs``; the name, then the definition and scaling):

    0. ``I_BREAK_CONTACT``: sum over ``S``'s checkers behind ``ob`` (``q > ob``) of
       ``(q - ob + 1) c(q)``, / 167 (gnubg: 15 + 152, 152 being the starting position's contact);
    1. ``I_FREEPIP``: the pips ``sum q c(q)`` of ``S``'s checkers already past ``ob`` (``q < ob``),
       / 100 (0 when ``O`` is on the bar);
    2. ``I_TIMING``: the pips ``S`` can play before it must break its home board: with
       ``m = max(ob - 1, 11)``, bar checkers count 24 each; behind ``ob`` and the 12 point
       (``q > m + 1``) a made point keeps two checkers (a blot counts 1, a point of ``n > 2``
       counts ``n - 2``), each at ``q - 1``; points ``7..m + 1`` count all their checkers at
       ``q - 1``; home points (6 down to 1) add ``(q - 1)`` per checker beyond two, and an
       empty or blot point takes the 2 or 1 spares it needs (``- (q - 1)`` each) while enough
       spares have been counted; at least 0, / 100;
    3. ``I_BACK_CHEQUER``: ``(back - 1) / 24``, ``back`` = ``S``'s rearmost point (bar 25);
    4. ``I_BACK_ANCHOR``: ``(a - 1) / 24``, ``a`` = ``S``'s rearmost made point (2+ checkers)
       on 1..24 (``a = 0`` when none: -1/24, as gnubg);
    5. ``I_FORWARD_ANCHOR``: ``O``'s point number ``k = 25 - q`` / 6 of ``S``'s most advanced
       anchor in ``O``'s home board (``q`` 19..24), else of the anchor on ``q`` 13..18 nearest
       ``O``'s home (7/6..2), else 2;
    6. ``I_MOMENT2``: with gnubg's positions ``i = q - 1`` (bar 24) and ``A`` = their mean over
       ``S``'s checkers rounded up, the mean of ``(i - A)^2`` over the checkers with ``i > A``,
       rounded up, / 400 (integer arithmetic, as gnubg);
    7. ``I_ENTER``: ``S`` on the bar: summed over the rolls that fail with ``O``'s home points
       (``d``-``d`` against a held ``d``: ``4 d``; ``d``-``e``, ``d < e``, both held: ``2 (d + e)``;
       two or more on the bar and one held: 2 x the held die), / 294 (36 x 49/6); else 0;
    8. ``I_ENTER2``: ``(36 - (n - 6)^2) / 36``, ``n`` = ``O``'s home points held (gnubg's formula,
       though it describes it as the chance of a checker not entering);
    9. ``I_BACKBONE``: with ``P`` = ``S``'s rearmost made point on 2..24, for each other made
       point ``q`` on 2..``P - 1``: weight 11 if ``P - q <= 6``, ``13 - (P - q)`` if ``<= 11``,
       else 0, times ``c(P)``; ``1 - sum / (11 c(P) x count)`` (0 with fewer than two points;
       gnubg measures every point from the rearmost, never from the next one);
    10. ``I_BACKG``: two or more anchors in ``O``'s home board (``q`` 19..24): ``(N - 3) / 4``,
        ``N`` = ``S``'s checkers on 19..24 and the bar; else 0;
    11. ``I_BACKG1``: exactly one such anchor: ``N / 8``; else 0;
    12. ``I_BACKRESCAPES``: :data:`ESC1` of ``O``'s rearmost checker past ``S``'s points / 36.
    """
    # O's rearmost checker in each side's numbering: the negative side's lowest board index
    # (0: on its bar) for the positive side P; 25 - P's rearmost point for the negative side N
    p_back = 25 if b[25] > 0 else 0
    n_low = 0 if b[0] > 0 else 25
    for i in range(1, 25):
        v = int(b[i])
        if v > 0:
            if p_back < i:
                p_back = i
        elif v < 0 and n_low > i:
            n_low = i
    if flipped:
        _side_contact(b, False, 25 - p_back, x, base)
        _side_contact(b, True, n_low, x, base + N_CONTACT_SIDE)
    else:
        _side_contact(b, True, n_low, x, base)
        _side_contact(b, False, 25 - p_back, x, base + N_CONTACT_SIDE)
