"""Playout samplers that keep no value rows (numba): light and far-light tables.

A *light* table's values ignore the property code (``mc_uniform``): :func:`sample_light` draws by
exact rejection over the empty-point list.  A *far-light* table
(:attr:`playout.go.tables.Table.far_light`; GNU Go's mogo_classic and montegnu_classic) values a
point by its 3x3 shape alone wherever it is not near the last move and no colour captures there:
:func:`sample_far_light` values the near points and the liberties of strings in atari exactly
when it draws and draws every other point by rejection against the largest such value.  Both
draw from exactly the distribution the incremental value rows of :mod:`playout.go.playout`
give (chi-square tests), at a fraction of the cost per move: nothing is updated after a move but
the near set (:func:`playout.go.playout.build_near`) and the list of strings in atari
(:func:`note_atari`).  GNU Go 3.8 (``engine/montecarlo.c``) likewise applies the near values
just before sampling and restores them after; it keeps every other value incrementally.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.go.properties import cheap_codes, move_props
from playout.go.rules import (
    BLACK,
    COLOR,
    EMP,
    EMPTY,
    M_KO,
    M_N,
    M_NEARGEN,
    M_NEARN,
    M_NEMPTY,
    M_SEEN,
    M_TOMOVE,
    M_W,
    META,
    NEARL,
    NEARM,
    NLIB,
    NXT,
    PASS,
    REP,
    SEEN,
    WHITE,
    is_suicide,
)
from playout.go.tables import T_DEP, T_FARCAP, T_GEOM, T_VALUES, T_VMAX, T_VMAXFAR, nbr_index
from playout.jitcache import flush_stale_caches, siblings


@njit(cache=True, inline="always", _nrt=False)
def light_value(S, T, q, c):
    """Value of ``c`` at ``q`` for a light table (geometry only): 0 if occupied or illegal."""
    if S[COLOR, q] != EMPTY:
        return 0
    idx = nbr_index(S, S[META, M_W], q)
    g = T[T_GEOM + idx]
    g = (g >> 16) if c == WHITE else (g & 0xFFFF)
    v = T[T_VALUES + g * 256]
    if v != 0:
        if (q == S[META, M_KO] and c == S[META, M_TOMOVE]) or is_suicide(S, q, c):
            return 0
    return v


@njit(cache=True, _nrt=False)
def sample_light(S, T, c):
    """A move of ``c`` drawn with probability proportional to its light-table value (0: pass).

    Rejection sampling over the empty-point list: a uniformly drawn empty point is accepted
    with probability ``value / vmax``, which yields exactly the proportional distribution; after
    12 rejections the values of all empty points are summed and drawn from directly (0 is
    returned if they are all 0).
    """
    vmax = T[T_VMAX]
    ne = S[META, M_NEMPTY]
    if ne == 0:
        return PASS
    for _ in range(12):
        q = S[EMP, np.random.randint(0, ne)]
        v = light_value(S, T, q, c)
        if v == 0:
            continue
        if v >= vmax or np.random.randint(0, vmax) < v:
            return q
    total = 0
    for k in range(ne):
        total += light_value(S, T, S[EMP, k], c)
    if total == 0:
        return PASS
    r = np.random.randint(0, total)
    for k in range(ne):
        q = S[EMP, k]
        v = light_value(S, T, q, c)
        if r < v:
            return q
        r -= v
    return PASS


@njit(cache=True, inline="always", _nrt=False)
def exact_value(S, B, T, q, c, near):
    """Value of ``c`` at empty ``q`` from scratch, with near bit ``near`` (0 or 1); 0 if illegal
    (ko not checked).  Bits 5..7 of the property code are computed only if the value depends
    on them."""
    g = T[T_GEOM + nbr_index(S, S[META, M_W], q)]
    g = (g >> 16) if c == WHITE else (g & 0xFFFF)
    lb, lw, cb, cw, exact = cheap_codes(S, q)
    legal = lb if c == BLACK else lw
    if not legal:
        return 0
    code = cb if c == BLACK else cw
    if not exact:
        code = _costly_bits(S, B, q, c, code, T[T[T_DEP] + g * 32 + (code & 31 | near)])
    return T[T_VALUES + g * 256 + (code | near)]


@njit(cache=True, inline="always", _nrt=False)
def _costly_bits(S, B, q, c, code, dep):
    """``code`` (of legal ``c`` at ``q``) with the bits 5..7 its value row needs (``dep``, see
    :data:`playout.go.tables.COSTLY_BITS`): own self-atari only if bit 1, the opponent's
    self-atari and suicide only if bit 0; bits the row ignores stay 0."""
    if dep & 2:
        sui, atari, cap = move_props(S, B, q, c)
        if atari:
            code |= 64
    if dep & 1:
        sui, atari, cap = move_props(S, B, q, 3 - c)
        if atari:
            code |= 32
        if sui:
            code |= 128
    return code


@njit(cache=True, inline="always", _nrt=False)
def far_value(S, B, T, q, c):
    """Value of ``c`` (to move) at empty ``q``, not near the last move and next to no string in
    atari (or the table's far values ignore captures): the geometry's value, its bits 5..7
    computed only if the row depends on them; 0 on the ko point or if illegal."""
    g = T[T_GEOM + nbr_index(S, S[META, M_W], q)]
    g = (g >> 16) if c == WHITE else (g & 0xFFFF)
    v = T[T_VALUES + g * 256]
    dep = T[T[T_DEP] + g * 32]
    if dep == 0 and v == 0:
        return 0
    if q == S[META, M_KO] or is_suicide(S, q, c):
        return 0
    if dep != 0:
        v = T[T_VALUES + g * 256 + _costly_bits(S, B, q, c, 0, dep)]
    return v


@njit(cache=True, _nrt=False)
def init_atari(S, B):
    """List the strings in atari (their representatives) in ``B[:k]``; return ``k``."""
    N = S[META, M_N]
    W = S[META, M_W]
    k = 0
    for r in range(N):
        for col in range(N):
            q = (r + 1) * W + col + 1
            cq = S[COLOR, q]
            if (cq == BLACK or cq == WHITE) and S[REP, q] == q and S[NLIB, q] == 1:
                B[k] = q
                k += 1
    return k


@njit(cache=True, inline="always", _nrt=False)
def _note_atari(S, B, s, k):
    if S[NLIB, s] == 1:
        for i in range(k):
            if B[i] == s:
                return k
        B[k] = s
        k += 1
    return k


@njit(cache=True, _nrt=False)
def note_atari(S, B, p, k):
    """After a move at ``p``: add the strings it put in atari (its own, opponents next to it) to
    the list ``B[:k]`` (no duplicates; entries that are no longer strings in atari stay until
    :func:`sample_far_light` drops them); return the new length.  Only these strings can have
    lost a liberty."""
    if p == PASS:
        return k
    W = S[META, M_W]
    k = _note_atari(S, B, S[REP, p], k)
    for d in (-W, -1, 1, W):
        cr = S[COLOR, p + d]
        if cr == BLACK or cr == WHITE:
            k = _note_atari(S, B, S[REP, p + d], k)
    return k


@njit(cache=True, inline="always", _nrt=False)
def _first_liberty(S, s):
    W = S[META, M_W]
    x = s
    while True:
        for d in (-W, -1, 1, W):
            if S[COLOR, x + d] == EMPTY:
                return x + d
        x = S[NXT, x]
        if x == s:
            return PASS


@njit(cache=True, _nrt=False)
def sample_far_light(S, B, T, c, nat):
    """A move of ``c`` (the side to move) drawn with probability proportional to its value, for a
    far-light table (:attr:`playout.go.tables.Table.far_light`), without value rows.

    Returns ``(move, nat)``: ``move`` is 0 for a pass; ``B[:nat]`` lists the strings in atari
    (:func:`init_atari`, :func:`note_atari`; used only if the table's far values depend on
    captures, ``T[T_FARCAP]``) and is compacted here.  The target weight of an empty point is
    its value with the near bit if it is in ``c``'s near set, else without it; the near points
    and (``T_FARCAP``) the liberties of strings in atari, the only points where a colour can
    capture, are valued exactly here (:func:`exact_value`).  Every other empty point is drawn by
    exact rejection: one random integer ``r`` below ``exact_sum + n_empty * vmax`` (``vmax`` =
    ``T[T_VMAXFAR]``, the largest such far value) either picks an exactly valued point by its
    value or an empty point ``EMP[r // vmax]`` with remainder ``u = r % vmax``, accepted if it
    is not valued exactly and ``u`` is below its value (:func:`far_value`); so each point's
    accepted mass is its weight.  After 16 rejections the far values are summed and drawn from
    directly (a side with total 0 passes).  Scratch: ``B[n:3n]`` and ``B[17n:18n]``.
    """
    o = c - 1
    ko = S[META, M_KO]
    gen = S[META, M_NEARGEN + o]
    n = S[META, M_NEARN + o]
    npt = S.shape[1]
    vb = 17 * npt
    nsum = 0
    for i in range(n):
        q = S[NEARL + o, i]
        v = 0
        if q != ko:
            v = exact_value(S, B, T, q, c, 1)
        B[vb + i] = v
        nsum += v
    # liberties of strings in atari (not near): exact far values in B[npt:], points in B[2 npt:]
    S[META, M_SEEN] += 1
    st = S[META, M_SEEN]
    nc = 0
    if T[T_FARCAP] != 0:
        k = 0
        for i in range(nat):
            s = B[i]
            cs = S[COLOR, s]
            if (cs == BLACK or cs == WHITE) and S[REP, s] == s and S[NLIB, s] == 1:
                B[k] = s
                k += 1
                x = _first_liberty(S, s)
                if S[SEEN, x] != st:
                    S[SEEN, x] = st
                    if S[NEARM + o, x] != gen:
                        v = 0
                        if x != ko:
                            v = exact_value(S, B, T, x, c, 0)
                        B[npt + nc] = v
                        B[2 * npt + nc] = x
                        nc += 1
                        nsum += v
        nat = k
    vmax = T[T_VMAXFAR]
    ne = S[META, M_NEMPTY]
    tot = nsum + ne * vmax
    if tot == 0:
        return PASS, nat
    for _ in range(16):
        r = np.random.randint(0, tot)
        if r < nsum:
            return _pick_exact(S, B, o, n, nc, r), nat
        r -= nsum
        k = r // vmax
        q = S[EMP, k]
        if S[NEARM + o, q] != gen and S[SEEN, q] != st and r - k * vmax < far_value(S, B, T, q, c):
            return q, nat
    total = nsum
    for k in range(ne):
        q = S[EMP, k]
        if S[NEARM + o, q] != gen and S[SEEN, q] != st:
            total += far_value(S, B, T, q, c)
    if total == 0:
        return PASS, nat
    r = np.random.randint(0, total)
    if r < nsum:
        return _pick_exact(S, B, o, n, nc, r), nat
    r -= nsum
    for k in range(ne):
        q = S[EMP, k]
        if S[NEARM + o, q] != gen and S[SEEN, q] != st:
            r -= far_value(S, B, T, q, c)
            if r < 0:
                return q, nat
    return PASS, nat


@njit(cache=True, inline="always", _nrt=False)
def _pick_exact(S, B, o, n, nc, r):
    """The exactly valued point that ``r`` (below their total) falls on: near points first."""
    vb = 17 * S.shape[1]
    for i in range(n):
        r -= B[vb + i]
        if r < 0:
            return S[NEARL + o, i]
    npt = S.shape[1]
    for i in range(nc):
        r -= B[npt + i]
        if r < 0:
            return B[2 * npt + i]
    return PASS


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "tables.py", "properties.py"))
