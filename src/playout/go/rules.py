"""Go rules kernels (numba): the state layout, strings and liberties, play, legality, area score.

The Python face of these kernels is :class:`playout.go.board.Board` (and
:class:`playout.go.board.GoGame` for the core solvers).

Layout
------
An ``N x N`` board (5 <= N <= 19) is a 1-D array over a padded ``(N+2) x (N+2)`` grid:
point ``(row, col)`` (0-based, row 0 at the top, as GTP prints it) is
``p = (row + 1) * W + col + 1`` with ``W = N + 2``; the frame is :data:`BORDER`.
Point 0 is always border, so :data:`PASS` ``= 0`` doubles as the pass move.

The whole state is one array ``S`` = int64[NROWS, W*W] (one array rather than many: numba
reference-counts every array passed between kernels, which dominated the cost per move):

* ``S[COLOR]`` -- :data:`EMPTY`, :data:`BLACK`, :data:`WHITE`, :data:`BORDER`;
* ``S[REP]``   -- representative stone of the string holding a stone;
* ``S[NXT]``   -- next stone of the same string (circular list);
* ``S[NLIB]``  -- exact liberty count, indexed by representative (kept incrementally);
* ``S[SSIZE]`` -- stones in the string, indexed by representative;
* ``S[MARK]``  -- scratch stamps (no meaning between calls);
* ``S[META]``  -- the ``M_*`` fields (size, ko point, side to move, hash, ...);
* ``S[EMP]``, ``S[EIDX]`` -- the empty points (first ``S[META, M_NEMPTY]``) and their indices;
* rows ``VAL`` .. ``RSUM`` -- the playouts' incremental values (:mod:`playout.go.playout`).

``B`` = int64[:func:`scratch_len`] is scratch (affected points, captured points).

Rules of these kernels (as GNU Go's playouts use them): a move is illegal on an occupied
point, as suicide (no liberty after removing captured opponent strings), or on the simple-ko
point (the single stone just captured by a single stone left in atari).  The game's ruleset
(positional or situational superko, simple ko, multi-stone suicide under Tromp-Taylor and New
Zealand rules: :mod:`playout.go.rulesets`) is applied on top, with 64-bit Zobrist hashes, by
the game record (:class:`playout.go.board.Board`) and along tree paths (:mod:`playout.go.search`).
Area scoring: stones plus empty regions that touch one colour only, minus komi for White.
"""

from __future__ import annotations

import numpy as np
from numba import njit


EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
PASS = 0
MIN_SIZE, MAX_SIZE = 5, 19

# rows of the state array S (int64[NROWS, W*W]); rows VAL.. are used by the playouts only
COLOR, REP, NXT, NLIB, SSIZE, MARK, VAL, NEARM, NEARL, SEEN, META, RSUM = 0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 13, 14
EMP, EIDX = 16, 17  # list of empty points and each point's index in it
CODE = 18  # playouts: cached property code per colour (2 rows), bit 8 = suicide
NROWS = 20
# fields of row META
M_N, M_W, M_KO, M_TOMOVE, M_PASSES, M_LAST, M_MOVES, M_HASH, M_STAMP = 0, 1, 2, 3, 4, 5, 6, 7, 8
M_CAPB, M_CAPW, M_NCAP, M_LAST2 = 9, 10, 11, 12
M_TOT, M_NEARN, M_NEARGEN, M_SEEN, M_NEMPTY = 14, 16, 18, 20, 21  # two slots: M_TOT..M_NEARGEN
M_INVW = 22  # ceil(2**16 / W): row of q is (q * inv) >> 16 exactly for q < W*W (no division)
META_LEN = 24


def scratch_len(npoints: int) -> int:
    """Length of the scratch array B: affected points (16 n), captured (n), old near set (n), 8."""
    return 18 * npoints + 8

COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP skips I

#: Zobrist keys for (colour, point) on the largest padded board, fixed seed so hashes are stable.
ZOBRIST = np.random.default_rng(20240917).integers(
    1, 2**63 - 1, size=(4, (MAX_SIZE + 2) ** 2), dtype=np.int64
)
#: XORed into the hash when White is to move (positions differ by side to move).
ZOB_WHITE_TO_MOVE = np.int64(0x2545F4914F6CDD1D)


# ---------------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always", _nrt=False)
def new_stamp(S):
    """A fresh stamp value for ``mark`` (resets the array on wrap-around)."""
    S[META, M_STAMP] += 1
    if S[META, M_STAMP] > 2_000_000_000:
        S[MARK, :] = 0
        S[META, M_STAMP] = 1
    return np.int32(S[META, M_STAMP])


@njit(cache=True, _nrt=False)
def string_libs(S, s, out, off, maxn):
    """Write up to ``maxn`` distinct liberties of the string of ``s`` to ``out[off:]``; return count."""
    W = S[META, M_W]
    st = new_stamp(S)
    n = 0
    q = s
    while True:
        for d in (-W, -1, 1, W):
            r = q + d
            if S[COLOR, r] == EMPTY and S[MARK, r] != st:
                S[MARK, r] = st
                out[off + n] = r
                n += 1
                if n >= maxn:
                    return n
        q = S[NXT, q]
        if q == s:
            break
    return n


@njit(cache=True, _nrt=False)
def count_libs(S, s):
    """Exact liberty count of the string of ``s`` by traversal (used to check ``nlib``)."""
    W = S[META, M_W]
    st = new_stamp(S)
    n = 0
    q = s
    while True:
        for d in (-W, -1, 1, W):
            r = q + d
            if S[COLOR, r] == EMPTY and S[MARK, r] != st:
                S[MARK, r] = st
                n += 1
        q = S[NXT, q]
        if q == s:
            break
    return n


@njit(cache=True, inline="always", _nrt=False)
def is_suicide(S, p, c):
    """Whether ``c`` playing at empty ``p`` would be suicide (no liberty, captures nothing)."""
    W = S[META, M_W]
    for d in (-W, -1, 1, W):
        q = p + d
        cq = S[COLOR, q]
        if cq == EMPTY:
            return False
        if cq == c:
            if S[NLIB, S[REP, q]] >= 2:
                return False
        elif cq != BORDER:
            if S[NLIB, S[REP, q]] == 1:
                return False
    return True


@njit(cache=True, _nrt=False)
def is_legal(S, p, c):
    """Whether ``c`` may play at ``p`` (pass is always legal); superko is not checked here."""
    if p == PASS:
        return True
    if S[COLOR, p] != EMPTY:
        return False
    if p == S[META, M_KO] and c == S[META, M_TOMOVE]:
        return False
    return not is_suicide(S, p, c)


@njit(cache=True, inline="always", _nrt=False)
def _add(B, naff, p):
    if naff < (B.shape[0] - 8) // 18 * 16:
        B[naff] = p
        naff += 1
    return naff


@njit(cache=True, _nrt=False)
def play(S, B, p, c, track):
    """Play ``c`` at ``p`` (assumed legal; ``PASS`` allowed) and update the rows of ``S``.

    ``B[:naff]`` receives the points whose move properties may have changed (the move, its
    empty orthogonal neighbours, the empty 8 neighbours of captured stones, liberties of strings whose
    liberty count changed near the atari range, old and new ko points); duplicates are
    possible.  The move's four diagonal neighbours are not listed: only their 3x3 geometry
    changed, and the caller (``playout.play_update``) refreshes them.
    ``B[16 n:]`` receives the captured points (their number is ``S[META, M_NCAP]``).
    Returns ``naff``.  With ``track`` False nothing is written to ``B[:16 n]`` (faster; for
    callers that keep no incremental values).
    """
    W = S[META, M_W]
    opp = 3 - c
    naff = 0
    c0 = 16 * S.shape[1]  # captured points go to B[c0:]
    oldko = S[META, M_KO]
    if oldko != 0 and track:
        naff = _add(B, naff, oldko)
    S[META, M_KO] = 0
    S[META, M_NCAP] = 0
    S[META, M_LAST2] = S[META, M_LAST]
    S[META, M_LAST] = p
    S[META, M_MOVES] += 1
    S[META, M_TOMOVE] = opp
    S[META, M_HASH] ^= ZOB_WHITE_TO_MOVE
    if p == PASS:
        S[META, M_PASSES] += 1
        return naff
    S[META, M_PASSES] = 0
    if track:
        # orthogonal neighbours only: a diagonal neighbour's move properties cannot change
        # (its liberties and adjacent strings are the same, and every string whose liberty
        # count changed within the atari range has its liberties listed below); only its 3x3
        # geometry changes, which the caller refreshes
        for d in (-W, -1, 1, W):
            if S[COLOR, p + d] == EMPTY:  # a stone's properties stay "occupied"
                naff = _add(B, naff, p + d)
        naff = _add(B, naff, p)

    # neighbours: distinct own and opponent strings, empties
    own0 = -1
    own1 = -1
    own2 = -1
    own3 = -1
    nown = 0
    x0 = -1
    x1 = -1
    x2 = -1
    x3 = -1
    nopp = 0
    nempty = 0
    minold = 1 << 30
    for d in (-W, -1, 1, W):
        q = p + d
        cq = S[COLOR, q]
        if cq == EMPTY:
            nempty += 1
        elif cq == c:
            s = S[REP, q]
            if s != own0 and s != own1 and s != own2 and s != own3:
                if nown == 0:
                    own0 = s
                elif nown == 1:
                    own1 = s
                elif nown == 2:
                    own2 = s
                else:
                    own3 = s
                nown += 1
                if S[NLIB, s] < minold:
                    minold = S[NLIB, s]
        elif cq == opp:
            s = S[REP, q]
            if s != x0 and s != x1 and s != x2 and s != x3:
                if nopp == 0:
                    x0 = s
                elif nopp == 1:
                    x1 = s
                elif nopp == 2:
                    x2 = s
                else:
                    x3 = s
                nopp += 1

    S[COLOR, p] = c
    # remove p from the empty list
    ne_ = S[META, M_NEMPTY] - 1
    i_ = S[EIDX, p]
    last_ = S[EMP, ne_]
    S[EMP, i_] = last_
    S[EIDX, last_] = i_
    S[META, M_NEMPTY] = ne_
    S[META, M_HASH] ^= ZOBRIST[c, p]
    # opponent strings lose the liberty p
    for s in (x0, x1, x2, x3):
        if s >= 0:
            S[NLIB, s] -= 1

    # merge
    if nown == 0:
        S[REP, p] = p
        S[NXT, p] = p
        S[SSIZE, p] = 1
        S[NLIB, p] = nempty
        base = p
    elif nown == 1:
        base = own0
        add = 0
        for d in (-W, -1, 1, W):
            e = p + d
            if S[COLOR, e] == EMPTY:
                adj = False
                for d2 in (-W, -1, 1, W):
                    r = e + d2
                    if r != p and S[COLOR, r] == c and S[REP, r] == base:
                        adj = True
                if not adj:
                    add += 1
        S[NLIB, base] = S[NLIB, base] - 1 + add
        S[REP, p] = base
        S[NXT, p] = S[NXT, base]
        S[NXT, base] = p
        S[SSIZE, base] += 1
    else:
        base = own0
        for s in (own1, own2, own3):
            if s >= 0 and S[SSIZE, s] > S[SSIZE, base]:
                base = s
        S[REP, p] = base
        S[NXT, p] = S[NXT, base]
        S[NXT, base] = p
        S[SSIZE, base] += 1
        for s in (own0, own1, own2, own3):
            if s >= 0 and s != base:
                q = s
                while True:
                    S[REP, q] = base
                    q = S[NXT, q]
                    if q == s:
                        break
                t = S[NXT, base]
                S[NXT, base] = S[NXT, s]
                S[NXT, s] = t
                S[SSIZE, base] += S[SSIZE, s]
        S[NLIB, base] = count_libs(S, base)

    # captures
    ncap = 0
    for s in (x0, x1, x2, x3):
        if s < 0:
            continue
        if S[NLIB, s] == 0:
            q = s
            while True:
                S[COLOR, q] = EMPTY
                S[EIDX, q] = S[META, M_NEMPTY]
                S[EMP, S[META, M_NEMPTY]] = q
                S[META, M_NEMPTY] += 1
                S[META, M_HASH] ^= ZOBRIST[opp, q]
                B[c0 + ncap] = q
                ncap += 1
                q = S[NXT, q]
                if q == s:
                    break
        elif S[NLIB, s] <= 2 and track:
            naff = _add_libs(S, s, B, naff)
    if ncap > 0:
        if c == BLACK:
            S[META, M_CAPB] += ncap
        else:
            S[META, M_CAPW] += ncap
        S[META, M_NCAP] = ncap
        for i in range(ncap):
            q = B[c0 + i]
            a0 = -1
            a1 = -1
            a2 = -1
            for d in (-W, -1, 1, W):
                r = q + d
                if S[COLOR, r] == c:
                    s = S[REP, r]
                    if s != a0 and s != a1 and s != a2:
                        S[NLIB, s] += 1
                        if a0 < 0:
                            a0 = s
                        elif a1 < 0:
                            a1 = s
                        else:
                            a2 = s
            if track:
                for d in (-W - 1, -W, -W + 1, -1, 1, W - 1, W, W + 1):
                    if S[COLOR, q + d] == EMPTY:
                        naff = _add(B, naff, q + d)
                naff = _add(B, naff, q)
        # liberties of the capturing strings changed: refresh them
        st2 = new_stamp(S)
        for i in range(ncap if track else 0):
            q = B[c0 + i]
            for d in (-W, -1, 1, W):
                r = q + d
                if S[COLOR, r] == c:
                    s = S[REP, r]
                    if S[MARK, s] != st2:
                        S[MARK, s] = st2
                        naff = _add_libs_nostamp(S, s, B, naff)
        if ncap == 1 and S[SSIZE, base] == 1 and S[NLIB, base] == 1:
            S[META, M_KO] = B[c0]
            if track:
                naff = _add(B, naff, B[c0])
    # (the liberties of a lone new stone are its neighbours, already listed)
    if track and nown > 0 and (minold <= 2 or S[NLIB, base] <= 2):
        naff = _add_libs(S, base, B, naff)
    return naff


@njit(cache=True, _nrt=False)
def _add_libs(S, s, B, naff):
    """List the liberties of the string of ``s``; the walk stops once all ``NLIB`` are found."""
    W = S[META, M_W]
    st = new_stamp(S)
    left = S[NLIB, S[REP, s]]
    q = s
    while left > 0:
        for d in (-W, -1, 1, W):
            r = q + d
            if S[COLOR, r] == EMPTY and S[MARK, r] != st:
                S[MARK, r] = st
                naff = _add(B, naff, r)
                left -= 1
        q = S[NXT, q]
        if q == s:
            break
    return naff


@njit(cache=True, _nrt=False)
def _add_libs_nostamp(S, s, B, naff):
    W = S[META, M_W]
    q = s
    while True:
        for d in (-W, -1, 1, W):
            r = q + d
            if S[COLOR, r] == EMPTY:
                naff = _add(B, naff, r)
        q = S[NXT, q]
        if q == s:
            break
    return naff


@njit(cache=True)
def area_score(S):
    """Black minus White in area scoring (stones + empty regions touching one colour), no komi."""
    N = S[META, M_N]
    W = S[META, M_W]
    size = W * W
    region = np.zeros(size, np.int32)
    stack = np.empty(size, np.int32)
    score = 0
    rid = 0
    for r in range(N):
        for k in range(N):
            p = (r + 1) * W + k + 1
            cp = S[COLOR, p]
            if cp == BLACK:
                score += 1
            elif cp == WHITE:
                score -= 1
            elif region[p] == 0:
                rid += 1
                region[p] = rid
                stack[0] = p
                ns = 1
                cnt = 0
                touch = 0
                while ns > 0:
                    ns -= 1
                    q = stack[ns]
                    cnt += 1
                    for d in (-W, -1, 1, W):
                        t = q + d
                        ct = S[COLOR, t]
                        if ct == EMPTY:
                            if region[t] == 0:
                                region[t] = rid
                                stack[ns] = t
                                ns += 1
                        elif ct == BLACK:
                            touch |= 1
                        elif ct == WHITE:
                            touch |= 2
                if touch == 1:
                    score += cnt
                elif touch == 2:
                    score -= cnt
    return score


@njit(cache=True)
def _rebuild_strings(S):
    """Recompute strings and liberties from ``color`` alone (after loading a position)."""
    N = S[META, M_N]
    W = S[META, M_W]
    size = W * W
    stack = np.empty(size, np.int32)
    ne = 0
    for p in range(size):
        S[REP, p] = 0
        S[NXT, p] = p
        if S[COLOR, p] == EMPTY:
            S[EMP, ne] = p
            S[EIDX, p] = ne
            ne += 1
    S[META, M_NEMPTY] = ne
    st = new_stamp(S)
    for r in range(N):
        for k in range(N):
            p = (r + 1) * W + k + 1
            c = S[COLOR, p]
            if (c == BLACK or c == WHITE) and S[MARK, p] != st:
                S[MARK, p] = st
                stack[0] = p
                ns = 1
                prev = p
                S[REP, p] = p
                n = 1
                while ns > 0:
                    ns -= 1
                    q = stack[ns]
                    for d in (-W, -1, 1, W):
                        t = q + d
                        if S[COLOR, t] == c and S[MARK, t] != st:
                            S[MARK, t] = st
                            S[REP, t] = p
                            S[NXT, prev] = t
                            prev = t
                            n += 1
                            stack[ns] = t
                            ns += 1
                S[NXT, prev] = p
                S[SSIZE, p] = n
    for r in range(N):
        for k in range(N):
            p = (r + 1) * W + k + 1
            c = S[COLOR, p]
            if (c == BLACK or c == WHITE) and S[REP, p] == p:
                S[NLIB, p] = count_libs(S, p)
