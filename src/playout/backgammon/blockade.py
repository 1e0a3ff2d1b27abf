"""Blockade inputs (numba): escapes, containment and mobility, after gnubg's contact-net
inputs (:func:`escape_inputs`, :data:`ESC`, :data:`ESC1`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.shots import _INV36


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
#: rolls of 36 that let a checker escape past the nearest blocked point (``I_BACKRESCAPES``,
#: :mod:`playout.backgammon.contact`)
ESC1 = _escape_table(past_nearest=True)
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
