"""Two-liberty playout tactics (numba): the capturing-race rule tried after the atari answer.

:func:`twolib_move` is the playout rule of ``run_playout(..., twolib=PCT)`` (``playout gtp
--twolib PCT``): with that probability, when :func:`playout.go.playout.atari_reply` gives
nothing, the side to move ``c`` answers the previous move's two-liberty strings.  The rule
follows the two-liberty checks of Pachi's playout policy (P. Baudis, "MCTS with Information
Sharing", PhD thesis, Charles University 2011, and Pachi's ``tactics/2lib.c``: ataris of
two-liberty groups that cannot escape, and defence of own two-liberty groups by extension
or by attacking a neighbour in a race) and Fuego's "low liberty" playout rule (M. Enzenberger
et al., "Fuego", IEEE TCIAIG 2(4), 2010), reduced to what the far-light playouts can afford:

1. for each of ``c``'s strings next to the previous move with two liberties (the largest
   first): capture an adjacent opponent string in atari (not on the ko point, not suicide);
2. atari the previous move's own string when it has two liberties (:func:`atari_choice`);
3. for ``c``'s two-liberty strings next to the previous move (largest first): atari an
   adjacent opponent string with two liberties (the race, :func:`atari_choice`); else extend
   at the liberty after which the string has the most liberties, when that is 3 or more.

An atari is played at a liberty that is not a self-atari for ``c`` and after which the
string's escape (the opponent playing its last liberty) leaves it at most 2 liberties (the
bound ``escape``: ``--twolib-escape 1`` chases only strings whose escape is in atari again),
preferring the liberty whose escape leaves the fewest: a string that would run out to 3 or
more liberties is not chased (Pachi's "ineffective atari").  The escape's liberties are counted
in the position before the atari, less the atari point itself (always one of them): exact
except where the atari stone changes the strings next to the escape point.

Every kernel reads the state ``S`` of :mod:`playout.go.rules`; ``B`` is the scratch array
(:func:`playout.go.properties.move_props` uses its last 8 slots; the atari list of the
far-light sampler at its start is not touched).  All return padded points, ``PASS`` = none.
"""

from __future__ import annotations

from numba import njit

from playout.go.properties import move_props
from playout.go.rules import (
    COLOR,
    EMPTY,
    M_KO,
    M_LAST,
    M_W,
    MARK,
    META,
    NLIB,
    NXT,
    PASS,
    REP,
    SSIZE,
    is_suicide,
    new_stamp,
)
from playout.jitcache import flush_stale_caches, siblings


@njit(cache=True, _nrt=False)
def libs_after(S, q, c, maxn):
    """Liberties of ``c``'s string at ``q`` after ``c`` plays at empty ``q`` (opponent strings
    in atari next to ``q`` captured; ko ignored), counted up to ``maxn`` (returns
    ``min(libs, maxn)``): ``q``'s empty neighbours, the other liberties of the own strings it
    joins, and the captured stones next to ``q`` or to a joined string.  0 for a suicide."""
    W = S[META, M_W]
    opp = 3 - c
    st = new_stamp(S)
    S[MARK, q] = st  # q itself is no liberty
    o0 = -1
    o1 = -1
    o2 = -1
    o3 = -1
    nown = 0
    n = 0
    for d in (-W, -1, 1, W):
        r = q + d
        cr = S[COLOR, r]
        if cr == EMPTY:
            if S[MARK, r] != st:
                S[MARK, r] = st
                n += 1
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
    if n >= maxn:
        return maxn
    for s in (o0, o1, o2, o3):
        if s < 0:
            continue
        x = s
        while True:
            for d in (-W, -1, 1, W):
                r = x + d
                if S[COLOR, r] == EMPTY and S[MARK, r] != st:
                    S[MARK, r] = st
                    n += 1
                    if n >= maxn:
                        return maxn
            x = S[NXT, x]
            if x == s:
                break
    # captured opponent strings: their stones next to q or to a joined string become liberties
    for d in (-W, -1, 1, W):
        r = q + d
        if S[COLOR, r] != opp or S[NLIB, S[REP, r]] != 1:
            continue
        k = S[REP, r]
        x = k
        while True:
            if S[MARK, x] != st:
                lib = False
                for dd in (-W, -1, 1, W):
                    y = x + dd
                    if y == q:
                        lib = True
                    elif S[COLOR, y] == c:
                        t = S[REP, y]
                        if t == o0 or t == o1 or t == o2 or t == o3:
                            lib = True
                if lib:
                    S[MARK, x] = st
                    n += 1
                    if n >= maxn:
                        return maxn
            x = S[NXT, x]
            if x == k:
                break
    return n


@njit(cache=True, inline="always", _nrt=False)
def _two_libs(S, s):
    """The two liberties of the string of representative ``s`` (``S[NLIB, s] == 2``)."""
    W = S[META, M_W]
    a = PASS
    x = s
    while True:
        for d in (-W, -1, 1, W):
            y = x + d
            if S[COLOR, y] == EMPTY:
                if a == PASS:
                    a = y
                elif y != a:
                    return a, y
        x = S[NXT, x]
        if x == s:
            return a, PASS


@njit(cache=True, _nrt=False)
def safe_move(S, B, q, c):
    """Whether ``c`` may play at ``q`` in a playout and the move is no self-atari: empty, not
    the ko point, not suicide, and the resulting string keeps 2+ liberties
    (:func:`playout.go.properties.move_props`)."""
    if q == PASS or S[COLOR, q] != EMPTY or q == S[META, M_KO]:
        return False
    sui, sa, _ = move_props(S, B, q, c)
    return not sui and not sa


@njit(cache=True, _nrt=False)
def atari_choice(S, B, s, c, escape=2):
    """``c``'s atari of the opponent string of representative ``s`` (2 liberties), or
    ``PASS``: at a liberty that is :func:`safe_move` for ``c``, after which the escape at the
    other liberty leaves the string at most ``escape`` liberties (:func:`libs_after` less the
    atari point; 2 by default, 1 = only ataris that leave the escape in atari again); the
    liberty with the fewer escape liberties wins, the first one found on a tie.
    Returns ``(move, escape_liberties)`` (``escape_liberties`` 9 when ``PASS``)."""
    a, b = _two_libs(S, s)
    if b == PASS:
        return PASS, 9
    opp = 3 - c
    best = PASS
    best_e = 9
    for i in range(2):
        q = a if i == 0 else b
        r = b if i == 0 else a
        e = libs_after(S, r, opp, 4) - 1
        if e <= escape and e < best_e and safe_move(S, B, q, c):
            best = q
            best_e = e
    return best, best_e


@njit(cache=True, _nrt=False)
def _capture_next_to(S, s, c):
    """The liberty of an opponent string in atari next to ``c``'s string ``s`` that ``c`` may
    take (not ko, not suicide), or ``PASS``."""
    W = S[META, M_W]
    opp = 3 - c
    x = s
    while True:
        for d in (-W, -1, 1, W):
            y = x + d
            if S[COLOR, y] == opp and S[NLIB, S[REP, y]] == 1:
                k = S[REP, y]
                z = k
                while True:  # its liberty
                    for dd in (-W, -1, 1, W):
                        q = z + dd
                        if S[COLOR, q] == EMPTY:
                            if q != S[META, M_KO] and not is_suicide(S, q, c):
                                return q
                    z = S[NXT, z]
                    if z == k:
                        break
        x = S[NXT, x]
        if x == s:
            return PASS


@njit(cache=True, _nrt=False)
def _race_atari(S, B, s, c, escape):
    """``c``'s atari (:func:`atari_choice`) of an opponent string with 2 liberties next to
    ``c``'s string ``s``: the one with the fewest escape liberties, or ``PASS``."""
    W = S[META, M_W]
    opp = 3 - c
    best = PASS
    best_e = 9
    x = s
    while True:
        for d in (-W, -1, 1, W):
            y = x + d
            if S[COLOR, y] == opp and S[NLIB, S[REP, y]] == 2:
                q, e = atari_choice(S, B, S[REP, y], c, escape)
                if q != PASS and e < best_e:
                    best = q
                    best_e = e
        x = S[NXT, x]
        if x == s:
            return best


@njit(cache=True, _nrt=False)
def _extension(S, B, s, c):
    """The liberty of ``c``'s 2-liberty string ``s`` after which it has the most liberties
    (:func:`libs_after`), when that is 3 or more and the point is not the ko point; else
    ``PASS``.  (3+ liberties: no self-atari, no suicide.)"""
    a, b = _two_libs(S, s)
    best = PASS
    best_n = 2
    for q in (a, b):
        if q != PASS and q != S[META, M_KO]:
            n = libs_after(S, q, c, 5)
            if n > best_n:
                best = q
                best_n = n
    return best


@njit(cache=True, _nrt=False)
def twolib_move(S, B, c, escape=2):
    """The two-liberty answer of ``c`` (to move) to the previous move, or ``PASS`` for none
    (the module docstring's rules 1-3, in that order; ``escape``: the bound of
    :func:`atari_choice`)."""
    last = S[META, M_LAST]
    if last <= 0 or S[COLOR, last] == EMPTY:
        return PASS
    W = S[META, M_W]
    opp = 3 - c
    # c's strings next to the previous move with 2 liberties, up to 4 (largest first)
    s0 = -1
    s1 = -1
    s2 = -1
    s3 = -1
    k = 0
    for d in (-W, -1, 1, W):
        r = last + d
        if S[COLOR, r] == c and S[NLIB, S[REP, r]] == 2:
            s = S[REP, r]
            if s != s0 and s != s1 and s != s2 and s != s3:
                if k == 0:
                    s0 = s
                elif k == 1:
                    s1 = s
                elif k == 2:
                    s2 = s
                else:
                    s3 = s
                k += 1
    t = S[REP, last]
    own2 = S[COLOR, last] == opp and S[NLIB, t] == 2
    if k == 0 and not own2:
        return PASS
    # sort the (at most 4) own strings by size, largest first (insertion by swaps)
    for _ in range(3):
        if s1 >= 0 and S[SSIZE, s1] > S[SSIZE, s0]:
            s0, s1 = s1, s0
        if s2 >= 0 and S[SSIZE, s2] > S[SSIZE, s1]:
            s1, s2 = s2, s1
        if s3 >= 0 and S[SSIZE, s3] > S[SSIZE, s2]:
            s2, s3 = s3, s2
    for s in (s0, s1, s2, s3):  # rule 1
        if s >= 0:
            q = _capture_next_to(S, s, c)
            if q != PASS:
                return q
    if own2:  # rule 2
        q, _ = atari_choice(S, B, t, c, escape)
        if q != PASS:
            return q
    for s in (s0, s1, s2, s3):  # rule 3
        if s >= 0:
            q = _race_atari(S, B, s, c, escape)
            if q == PASS:
                q = _extension(S, B, s, c)
            if q != PASS:
                return q
    return PASS


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "properties.py"))
