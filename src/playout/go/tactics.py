"""Tactical move knowledge for the tree priors (numba): captures, atari escapes, ladders.

:func:`tactical_rate` changes a move's prior AMAF win rate at expansion
(:func:`playout.go.search.search` with ``tactics`` 1 or 2) by what the move does tactically:
captures and escapes from atari raise it, big self-ataris lower it, and with ladder reading
(:func:`ladder_captures`, :func:`_escapes`) an escape into a working ladder counts as none and an
atari whose ladder works counts as a capture.  The ladder reader agrees with GNU Go 3.8's
``ladder_attack`` on the strings of real games (``tests/test_go_tactics.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.go.properties import move_props
from playout.go.rules import (
    COLOR,
    EMPTY,
    M_TOMOVE,
    M_W,
    MARK,
    META,
    NLIB,
    NXT,
    REP,
    SSIZE,
    is_legal,
    new_stamp,
    play,
    string_libs,
)
from playout.jitcache import flush_stale_caches, siblings

#: tactical priors (``search(..., tactics=1)``): AMAF prior rate of a move that captures ``k``
#: stones or lets ``k`` stones in atari escape to three liberties or more, ``TAC_BASE +
#: TAC_STEP * k`` capped at ``TAC_MAX`` (never below the pattern rate), and at most
#: ``TAC_SELF_ATARI`` for a self-atari of two stones or more that captures nothing
#: (Fuego's/Pachi's capture, atari-escape and self-atari priors)
TAC_BASE, TAC_STEP, TAC_MAX, TAC_SELF_ATARI = 0.6, 0.1, 0.9, 0.15
#: ``tactics=2`` also reads ladders: the rate of an escape to two liberties that a ladder
#: still captures, and the moves a ladder reading examines at most per question
TAC_LADDER, LADDER_NODES = 0.2, 200


@njit(cache=True, nogil=True)
def _escapes(S, B, s, budget):
    """Whether the string of ``s`` (one liberty, its colour to move) gets out of a ladder:
    it can capture an adjacent stone in atari, or extending at its liberty gives it three
    liberties or more, or two such that no atari at either captures it in turn (recursively).
    An exhausted ``budget[0]`` (moves examined) counts as an escape."""
    if budget[0] <= 0:
        return True
    budget[0] -= 1
    c = S[COLOR, s]
    opp = 3 - c
    W = S[META, M_W]
    x = s
    while True:
        for d in (-W, -1, 1, W):
            q = x + d
            if S[COLOR, q] == opp and S[NLIB, S[REP, q]] == 1:
                return True
        x = S[NXT, x]
        if x == s:
            break
    lb = np.empty(4, np.int64)
    string_libs(S, s, lb, 0, 1)
    lib = lb[0]
    S[META, M_TOMOVE] = c
    if not is_legal(S, lib, c):
        return False
    S1 = S.copy()
    play(S1, B, lib, c, False)
    r = S1[REP, lib]
    n = string_libs(S1, r, lb, 0, 3)
    if n >= 3:
        return True
    if n <= 1:
        return False
    a0 = lb[0]
    a1 = lb[1]
    for k in range(2):
        a = a0 if k == 0 else a1
        if not is_legal(S1, a, opp):
            continue
        S2 = S1.copy()
        play(S2, B, a, opp, False)
        r2 = S2[REP, lib]
        if S2[NLIB, r2] == 1 and not _escapes(S2, B, r2, budget):
            return False
    return True


@njit(cache=True, nogil=True)
def ladder_captures(S, B, s, budget):
    """Whether the string of ``s`` (two liberties, the other colour to move) is captured by a
    ladder: an atari at one of its liberties after which it cannot get out (:func:`_escapes`)."""
    c = S[COLOR, s]
    opp = 3 - c
    lb = np.empty(4, np.int64)
    if string_libs(S, s, lb, 0, 3) != 2:
        return False
    a0 = lb[0]
    a1 = lb[1]
    S[META, M_TOMOVE] = opp
    for k in range(2):
        a = a0 if k == 0 else a1
        if not is_legal(S, a, opp):
            continue
        S2 = S.copy()
        play(S2, B, a, opp, False)
        r2 = S2[REP, s]
        if S2[NLIB, r2] == 1 and not _escapes(S2, B, r2, budget):
            return True
    return False


@njit(cache=True, nogil=True)
def tactical_rate(S, B, p, c, rate, ladders=False):
    """The prior rate ``rate`` of ``c`` playing at empty ``p``, changed by the move's tactics
    (:data:`TAC_BASE` ...): captures, escapes of own strings in atari (counted only when the
    joined string gets three liberties or more: two may be a ladder), big self-ataris.  With
    ``ladders``: an escape to two liberties counts when no ladder captures the string
    (:func:`ladder_captures`) and gets :data:`TAC_LADDER` when one does, and an atari on an
    opponent string that cannot escape its ladder counts as capturing it."""
    W = S[META, M_W]
    sui, self_atari, ncap = move_props(S, B, p, c)
    if sui:
        return rate
    # own strings next to p: distinct representatives, their sizes, those in atari
    r0 = -1
    r1 = -1
    r2 = -1
    r3 = -1
    nown = 0
    joined = 1
    save = 0
    for d in (-W, -1, 1, W):
        q = p + d
        if S[COLOR, q] == c:
            t = S[REP, q]
            if t != r0 and t != r1 and t != r2 and t != r3:
                if nown == 0:
                    r0 = t
                elif nown == 1:
                    r1 = t
                elif nown == 2:
                    r2 = t
                else:
                    r3 = t
                nown += 1
                joined += S[SSIZE, t]
                if S[NLIB, t] == 1:
                    save += S[SSIZE, t]
    if self_atari:
        if ncap == 0 and joined >= 2:
            return min(rate, TAC_SELF_ATARI)
        return rate
    best = rate
    if ncap > 0:
        best = max(best, min(TAC_MAX, TAC_BASE + TAC_STEP * ncap))
    if save > 0:
        # liberties of the joined string (up to 3): empty neighbours of p, the strings'
        # liberties other than p, and p's neighbours that the move captures
        st = new_stamp(S)
        S[MARK, p] = st
        nl = 0
        for d in (-W, -1, 1, W):
            q = p + d
            if S[COLOR, q] == EMPTY and S[MARK, q] != st:
                S[MARK, q] = st
                nl += 1
            elif S[COLOR, q] == 3 - c and S[NLIB, S[REP, q]] == 1 and S[MARK, q] != st:
                S[MARK, q] = st
                nl += 1
        for t in (r0, r1, r2, r3):
            if t < 0 or nl >= 3:
                continue
            x = t
            while nl < 3:
                for d in (-W, -1, 1, W):
                    q = x + d
                    if S[COLOR, q] == EMPTY and S[MARK, q] != st:
                        S[MARK, q] = st
                        nl += 1
                x = S[NXT, x]
                if x == t:
                    break
        if nl >= 3:
            best = max(best, min(TAC_MAX, TAC_BASE + TAC_STEP * save))
        elif nl == 2 and ladders:
            budget = np.full(1, LADDER_NODES, np.int64)
            S1 = S.copy()
            play(S1, B, p, c, False)
            if ladder_captures(S1, B, p, budget):
                return min(rate, TAC_LADDER)
            best = max(best, min(TAC_MAX, TAC_BASE + TAC_STEP * save))
    if ladders and ncap == 0:
        # ataris on opponent strings of two liberties that their ladder captures
        for d in (-W, -1, 1, W):
            q = p + d
            if S[COLOR, q] == 3 - c and S[NLIB, S[REP, q]] == 2:
                t = S[REP, q]
                k = S[SSIZE, t]
                if TAC_BASE + TAC_STEP * k <= best:
                    continue
                budget = np.full(1, LADDER_NODES, np.int64)
                S1 = S.copy()
                play(S1, B, p, c, False)
                t1 = S1[REP, t]
                if S1[NLIB, t1] == 1 and not _escapes(S1, B, t1, budget):
                    best = max(best, min(TAC_MAX, TAC_BASE + TAC_STEP * k))
    return best

# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "properties.py"))
