"""Timing, crunch and back-game inputs (numba): contact breaking, free pips, timing, anchors,
entering, back games, after the rest of gnubg's contact-net inputs (:func:`contact_inputs`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.blockade import ESC1
from playout.backgammon.shots import _INV36


# The rest of gnubg's contact-net inputs (eval.c, its input list and ``CalculateHalfInputs()``;
# definitions and scalings only, our own code): each describes one side ``S`` against the rearmost
# checker of its opponent ``O``.  gnubg's weights were trained on these exact formulas, quirks
# included (noted where they look odd), so they are kept as they are.

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
