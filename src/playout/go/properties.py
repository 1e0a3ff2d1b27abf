"""Move properties of a point for the playouts (GNU Go 3.8 ``engine/montecarlo.c``).

For an empty point and a colour, the *property code* (see :mod:`playout.go.playout` for the
bit layout) says whether the move is suicide or self-atari for either colour and how many stones
either colour would capture there.  :func:`point_codes` computes both colours' codes; the
playouts cache them per point and recompute only the points a move can change.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.go.rules import (
    BLACK,
    COLOR,
    EMPTY,
    M_W,
    META,
    NLIB,
    NXT,
    REP,
    SSIZE,
    WHITE,
    string_libs,
)
from playout.jitcache import flush_stale_caches, siblings


@njit(cache=True, _nrt=False)
def move_props(S, B, q, c):
    """(suicide, self_atari, captured) for ``c`` playing at empty ``q`` (ko ignored).

    ``captured`` is the number of stones removed; ``self_atari`` means the resulting string has
    exactly one liberty (empty neighbours, other liberties of joined strings, freed points).
    """
    W = S[META, M_W]
    opp = 3 - c
    ne = 0
    e0 = -1
    o0 = -1
    o1 = -1
    o2 = -1
    o3 = -1
    nown = 0
    k0 = -1
    k1 = -1
    k2 = -1
    k3 = -1
    nks = 0
    ncap = 0
    for d in (-W, -1, 1, W):
        r = q + d
        cr = S[COLOR, r]
        if cr == EMPTY:
            ne += 1
            if e0 < 0:
                e0 = r
        elif cr == c:
            s = S[REP, r]
            if s != o0 and s != o1 and s != o2 and s != o3:
                if nown == 0:
                    o0 = s
                elif nown == 1:
                    o1 = s
                elif nown == 2:
                    o2 = s
                else:
                    o3 = s
                nown += 1
        elif cr == opp:
            s = S[REP, r]
            if S[NLIB, s] == 1 and s != k0 and s != k1 and s != k2 and s != k3:
                if nks == 0:
                    k0 = s
                elif nks == 1:
                    k1 = s
                elif nks == 2:
                    k2 = s
                else:
                    k3 = s
                nks += 1
                ncap += S[SSIZE, s]
    if ne >= 2:
        return False, False, ncap
    if ne == 0 and nks == 0:
        sui = True
        for s in (o0, o1, o2, o3):
            if s >= 0 and S[NLIB, s] >= 2:
                sui = False
        if sui:
            return True, False, 0
    # count distinct liberties of the result, stopping at 2
    l0 = e0
    nl = ne
    if nks > 0:
        for d in (-W, -1, 1, W):
            r = q + d
            if S[COLOR, r] == opp:
                s = S[REP, r]
                if s == k0 or s == k1 or s == k2 or s == k3:
                    if nl == 0:
                        l0 = r
                        nl = 1
                    elif r != l0:
                        return False, False, ncap
    for s in (o0, o1, o2, o3):
        if s >= 0:
            if S[NLIB, s] >= 3:
                return False, False, ncap
            l0b = B.shape[0] - 8
            n = string_libs(S, s, B, l0b, S[NLIB, s])  # all of its <= 2
            for i in range(n):
                x = B[l0b + i]
                if x != q:
                    if nl == 0:
                        l0 = x
                        nl = 1
                    elif x != l0:
                        return False, False, ncap
    if nks > 0 and nown > 0:
        # captured stones away from q that touch a joined string become liberties too
        for s in (k0, k1, k2, k3):
            if s >= 0:
                x = s
                while True:
                    for d in (-W, -1, 1, W):
                        r = x + d
                        if S[COLOR, r] == c:
                            t = S[REP, r]
                            if t == o0 or t == o1 or t == o2 or t == o3:
                                if nl == 0:
                                    l0 = x
                                    nl = 1
                                elif x != l0:
                                    return False, False, ncap
                    x = S[NXT, x]
                    if x == s:
                        break
    return False, nl == 1, ncap


@njit(cache=True, _nrt=False, inline="always")
def cheap_codes(S, q):
    """(legal_black, legal_white, code_black, code_white, exact) at empty ``q``, costly bits 0.

    The capture counts (bits 4..1) and legality are exact; bits 5..7 (own and opponent
    self-atari, opponent suicide) are left 0, and ``exact`` says whether that is their true value
    (always so with two or more empty neighbours, where neither colour can be in self-atari or
    suicide).  :func:`point_codes` gives the full codes; the playouts call it only where a value
    depends on bits 5..7.
    """
    W = S[META, M_W]
    ne = 0
    capb = 0
    capw = 0
    s0 = -1
    s1 = -1
    s2 = -1
    safe_b = False  # an adjacent Black string keeps a liberty after a Black move here
    safe_w = False
    for d in (-W, -1, 1, W):
        r = q + d
        cr = S[COLOR, r]
        if cr == EMPTY:
            ne += 1
        elif cr == BLACK or cr == WHITE:
            s = S[REP, r]
            nl = S[NLIB, s]
            if nl >= 2:
                if cr == BLACK:
                    safe_b = True
                else:
                    safe_w = True
            elif s != s0 and s != s1 and s != s2:
                if s0 < 0:
                    s0 = s
                elif s1 < 0:
                    s1 = s
                else:
                    s2 = s
                if cr == WHITE:
                    capb += S[SSIZE, s]
                else:
                    capw += S[SSIZE, s]
    cb3 = min(capb, 3)
    cw3 = min(capw, 3)
    legal_b = ne > 0 or capb > 0 or safe_b
    legal_w = ne > 0 or capw > 0 or safe_w
    return legal_b, legal_w, (cb3 << 3) | (cw3 << 1), (cw3 << 3) | (cb3 << 1), ne >= 2


@njit(cache=True, _nrt=False, inline="always")
def point_codes(S, B, q):
    """(legal_black, legal_white, code_black, code_white) at empty ``q``; near bit and ko excluded.

    Fast path (:func:`cheap_codes`): with two or more empty neighbours neither colour can be in
    suicide or self-atari, so only the strings in atari next to ``q`` (captures) matter.
    """
    lb, lw, cb, cw, exact = cheap_codes(S, q)
    if exact:
        return lb, lw, cb, cw
    # a call, not inlined: this is the rare path (a point with at most one empty neighbour),
    # and inlining it put ~10 copies of its body into every playout kernel (compile time);
    # np.int64 keeps one specialisation (a literal colour would compile one per colour)
    sb, ab, capb = move_props(S, B, q, np.int64(BLACK))
    sw, aw, capw = move_props(S, B, q, np.int64(WHITE))
    cb3 = min(capb, 3)
    cw3 = min(capw, 3)
    code_b = (int(sw) << 7) | (int(ab) << 6) | (int(aw) << 5) | (cb3 << 3) | (cw3 << 1)
    code_w = (int(sb) << 7) | (int(aw) << 6) | (int(ab) << 5) | (cw3 << 3) | (cb3 << 1)
    return not sb, not sw, code_b, code_w


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py"))
