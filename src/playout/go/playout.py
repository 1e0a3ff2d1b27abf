"""Pattern-value playouts (numba), GNU Go 3.8 ``--monte-carlo`` style.

Every empty point ``q`` has, for each colour ``c``, a value
``values[geometry[nbr_index(q, c)], code(q, c)]`` (0 if ``c`` may not play there): the
3x3 neighbourhood seen from ``c`` selects a geometry class of the compiled database
(:mod:`playout.go.patterns`) and the move's *property code* selects the cell.  Property code bits
(GNU Go 3.8 ``engine/montecarlo.c``, see ``docs/go-mc-patterns.md``):

=====  =================================================================================
bit 7  opponent suicide: an opponent stone here would have no liberty and capture nothing
bit 6  own self-atari: the move leaves its string with exactly one liberty
bit 5  opponent self-atari
4-3    stones the move captures (0, 1, 2, 3 = three or more)
2-1    stones an opponent move here would capture (0..3+)
bit 0  near the previous (opponent) move, per the doc's definition (:func:`build_near`)
=====  =================================================================================

The neighbour index and the packed table are :mod:`playout.go.tables`; the property codes are
computed by :mod:`playout.go.properties`.

Values are kept incrementally: after a move only the points listed by
:func:`playout.go.rules.play` (neighbours of the move and of captured stones, liberties of strings
whose liberty count changed in the atari range, ko points) get their properties recomputed; the
old and new *near* sets only get their near bit flipped (property codes are cached per point).
The costly bits 5..7 (self-atari and suicide analysis) are computed only where the point's value
row depends on them for the rest of its code (:data:`playout.go.tables.COSTLY_BITS`); elsewhere
the cached code is marked :data:`LAZY` and completed when a later geometry or near bit needs
them.  The values are the same either way (tested against a full recomputation); with
mc_mogo_classic, whose rows use them only for captures and escapes near the last move, this
saved ~10% of a heavy playout.
Sampling is strictly proportional to value with per-row partial sums (like GNU Go's partitions):
draw a row by its sum, then a point in it, ``O(N)`` per draw.  During a playout, *light* and
*far-light* tables keep no value rows at all (:mod:`playout.go.samplers`): light tables (values
that ignore the property code, e.g. ``mc_uniform``) draw by exact rejection over the empty-point
list; far-light tables (away from the last move and from strings in atari the values depend on
the 3x3 shape, within a factor 4: GNU Go's three databases) value the near points and the atari
liberties when they draw and the rest by rejection.  This made mc_mogo_classic playouts 1.65x
faster (18,200 -> 30,000 a second from the empty 9x9 board here) and mc_montegnu_classic 1.6x
(16,200 -> 26,000), from the same distribution.  A side whose total is 0 passes; the playout
ends after three consecutive passes (GNU Go) or at ``max_moves``.  Simple ko is respected;
superko is not checked inside playouts.  Score: area with an empty point counting for the colour
of an adjacent stone (if only one colour touches it).

Performance notes: all state is one int64 array and the kernels are compiled without numba's
reference counting (``_nrt=False``; they allocate nothing), which made moves several times
cheaper; the pattern table is packed as ``int32`` with the distinct value rows only.
Compile time: the self-atari analysis (:func:`playout.go.properties.move_props`, the rare path)
is called, not inlined at numba-IR level; inlined, ~20 copies of it made the first ``genmove``
after an install compile for 204 s CPU (play_update alone 122 s), called 35 s (play_update
9 s; ``benchmarks/compile_cost.py go``), for 3-4% fewer mc_montegnu_classic playouts a second
(9x9: 23,800 -> 23,000) and 0-2% for the other databases.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.go.board import Board
from playout.go.lowlib import twolib_move
from playout.go.nakade import nakade_move
from playout.go.properties import cheap_codes, move_props, point_codes
from playout.go.rules import (
    BLACK,
    BORDER,
    CODE,
    COLOR,
    EMPTY,
    M_INVW,
    M_KO,
    M_LAST,
    M_LAST2,
    M_MOVES,
    M_NCAP,
    M_NEARGEN,
    M_NEARN,
    M_SEEN,
    M_TOMOVE,
    M_TOT,
    M_W,
    META,
    NEARL,
    NEARM,
    NLIB,
    NXT,
    PASS,
    REP,
    RSUM,
    SEEN,
    SSIZE,
    VAL,
    WHITE,
    is_suicide,
    play,
    string_libs,
)
from playout.go.samplers import (
    _first_liberty,
    exact_value,
    init_atari,
    light_value,
    note_atari,
    sample_far_light,
    sample_light,
)
from playout.go.tables import (
    T_DEP,
    T_FARCAP,
    T_FARLIGHT,
    T_GEOM,
    T_LIGHT,
    T_VALUES,
    Table,
    nbr_index,
)
from playout.jitcache import announce_compile, flush_stale_caches, siblings

#: flags of a cached property code (row ``CODE``): the colour may not play here (suicide) /
#: bits 5..7 not computed yet (see :func:`revalue`).
ILLEGAL, LAZY = 256, 512


# ---------------------------------------------------------------------------------------------
# incremental values
# ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always", _nrt=False)
def _set_val(S, ci, q, W, v):
    dv = v - S[VAL + ci, q]
    if dv != 0:
        S[VAL + ci, q] = v
        S[RSUM + ci, (q * S[META, M_INVW]) >> 16] += dv
        S[META, M_TOT + ci] += dv


@njit(cache=True, _nrt=False)
def _complete_codes(S, B, q):
    """Replace ``q``'s lazy property codes by the full ones (bits 5..7 included).

    A call, not inlined (the lazy codes are completed rarely): :func:`revalue` is inlined five
    times into :func:`play_update`, and each copy carried two of
    :func:`playout.go.properties.move_props`, see the module's performance notes."""
    lb, lw, cb, cw = point_codes(S, B, q)
    S[CODE, q] = cb if lb else ILLEGAL
    S[CODE + 1, q] = cw if lw else ILLEGAL


@njit(cache=True, inline="always", _nrt=False)
def revalue(S, B, T, q):
    """Values at empty ``q`` from the cached property codes (row ``CODE``), near bits and ko.

    A cached code marked :data:`LAZY` lacks bits 5..7; they are computed here only when the
    value row depends on them for the rest of the code (``T_DEP``).
    """
    W = S[META, M_W]
    g = T[T_GEOM + nbr_index(S, W, q)]
    gb = g & 0xFFFF
    gw = g >> 16
    ko = S[META, M_KO]
    tm = S[META, M_TOMOVE]
    dep = T[T_DEP]
    nb = S[NEARM, q] == S[META, M_NEARGEN]
    nw = S[NEARM + 1, q] == S[META, M_NEARGEN + 1]
    cb = S[CODE, q]
    cw = S[CODE + 1, q]
    if (cb & LAZY and T[dep + gb * 32 + (cb & 31 | nb)] != 0) or (
            cw & LAZY and T[dep + gw * 32 + (cw & 31 | nw)] != 0):
        _complete_codes(S, B, q)
        cb = S[CODE, q]
        cw = S[CODE + 1, q]
    vb = 0
    vw = 0
    if not (cb & ILLEGAL) and not (q == ko and tm == BLACK):
        vb = T[T_VALUES + gb * 256 + (cb & 255 | nb)]
    if not (cw & ILLEGAL) and not (q == ko and tm == WHITE):
        vw = T[T_VALUES + gw * 256 + (cw & 255 | nw)]
    _set_val(S, 0, q, W, vb)
    _set_val(S, 1, q, W, vw)


@njit(cache=True, inline="always", _nrt=False)
def update_point(S, B, T, q):
    """Recompute both colours' values at ``q`` (properties too) and fix the partial sums."""
    W = S[META, M_W]
    if S[COLOR, q] != EMPTY:
        _set_val(S, 0, q, W, 0)
        _set_val(S, 1, q, W, 0)
        return
    if T[T_LIGHT] != 0:
        g = T[T_GEOM + nbr_index(S, W, q)]
        gb = g & 0xFFFF
        gw = g >> 16
        ko = S[META, M_KO]
        tm = S[META, M_TOMOVE]
        vb = T[T_VALUES + gb * 256]
        vw = T[T_VALUES + gw * 256]
        if vb != 0 and (is_suicide(S, q, BLACK) or (q == ko and tm == BLACK)):
            vb = 0
        if vw != 0 and (is_suicide(S, q, WHITE) or (q == ko and tm == WHITE)):
            vw = 0
        _set_val(S, 0, q, W, vb)
        _set_val(S, 1, q, W, vw)
        return
    # no stone orthogonally adjacent: nothing to capture, >= 2 liberties, legal for both
    a = S[COLOR, q - W]
    b = S[COLOR, q + W]
    d = S[COLOR, q - 1]
    e = S[COLOR, q + 1]
    if (a == EMPTY or a == BORDER) and (b == EMPTY or b == BORDER) and (d == EMPTY or d == BORDER) \
            and (e == EMPTY or e == BORDER):
        S[CODE, q] = 0
        S[CODE + 1, q] = 0
    else:
        lb, lw, cb, cw, exact = cheap_codes(S, q)
        lazy = 0 if exact else LAZY
        S[CODE, q] = (cb | lazy) if lb else ILLEGAL
        S[CODE + 1, q] = (cw | lazy) if lw else ILLEGAL
    revalue(S, B, T, q)


@njit(cache=True, _nrt=False)
def build_near(S, B, p, c):
    """Replace the near set of the side to move after ``c`` played ``p`` (doc's definition).

    The set: ``p``'s 8 neighbours; the liberties of ``p``'s string if it has at most 2; the
    liberties (at most 2) of opponent strings touching ``p``; after a capture, the captured
    points, their empty neighbours and the liberties (at most 2) of ``c``'s strings next to them.
    Empty after a pass.  Writes the list into row ``NEARL + o`` (``o`` = side to move, 0-based).
    """
    W = S[META, M_W]
    l0b = B.shape[0] - 8
    c0 = 16 * S.shape[1]
    o = 2 - c  # index of the opponent colour (3 - c) - 1
    S[META, M_NEARGEN + o] += 1
    g = S[META, M_NEARGEN + o]
    n = 0
    if p != PASS:
        for d in (-W - 1, -W, -W + 1, -1, 1, W - 1, W, W + 1):
            x = p + d
            if S[COLOR, x] == EMPTY and S[NEARM + o, x] != g:
                S[NEARM + o, x] = g
                S[NEARL + o, n] = x
                n += 1
        s = S[REP, p]
        if S[NLIB, s] <= 2:
            k = string_libs(S, s, B, l0b, S[NLIB, s])  # all of its <= 2
            for i in range(k):
                x = B[l0b + i]
                if S[NEARM + o, x] != g:
                    S[NEARM + o, x] = g
                    S[NEARL + o, n] = x
                    n += 1
        for d in (-W, -1, 1, W):
            r = p + d
            if S[COLOR, r] == 3 - c and S[NLIB, S[REP, r]] <= 2:
                k = string_libs(S, S[REP, r], B, l0b, S[NLIB, S[REP, r]])
                for i in range(k):
                    x = B[l0b + i]
                    if S[NEARM + o, x] != g:
                        S[NEARM + o, x] = g
                        S[NEARL + o, n] = x
                        n += 1
        for j in range(S[META, M_NCAP]):
            q = B[c0 + j]
            if S[NEARM + o, q] != g:
                S[NEARM + o, q] = g
                S[NEARL + o, n] = q
                n += 1
            for d in (-W, -1, 1, W):
                r = q + d
                if S[COLOR, r] == EMPTY:
                    if S[NEARM + o, r] != g:
                        S[NEARM + o, r] = g
                        S[NEARL + o, n] = r
                        n += 1
                elif S[COLOR, r] == c and S[NLIB, S[REP, r]] <= 2:
                    k = string_libs(S, S[REP, r], B, l0b, S[NLIB, S[REP, r]])
                    for i in range(k):
                        x = B[l0b + i]
                        if S[NEARM + o, x] != g:
                            S[NEARM + o, x] = g
                            S[NEARL + o, n] = x
                            n += 1
    S[META, M_NEARN + o] = n


@njit(cache=True, _nrt=False)
def play_update(S, B, T, p, c):
    """Play ``c`` at ``p`` and bring values, partial sums and near sets up to date."""
    o = 2 - c
    # old near points of the side about to move must lose their near bit
    light = T[T_LIGHT] != 0
    nold = S[META, M_NEARN + o]
    base = 17 * S.shape[1]  # old near set saved in B[17 n:]
    for i in range(nold):
        B[base + i] = S[NEARL + o, i]
    naff = play(S, B, p, c, True)
    if not light:
        build_near(S, B, p, c)
    # recompute each listed point once (stamps in row SEEN)
    S[META, M_SEEN] += 1
    st = S[META, M_SEEN]
    for i in range(naff):
        q = B[i]
        if S[COLOR, q] != BORDER and S[SEEN, q] != st:
            S[SEEN, q] = st
            update_point(S, B, T, q)
    if p != PASS:
        # diagonal neighbours of the move: new geometry, same cached property codes
        W = S[META, M_W]
        for d in (-W - 1, -W + 1, W - 1, W + 1):
            q = p + d
            if S[COLOR, q] == EMPTY and S[SEEN, q] != st:
                S[SEEN, q] = st
                if light:
                    update_point(S, B, T, q)
                else:
                    revalue(S, B, T, q)
    if not light:
        # near-set changes only flip the near bit: reuse the cached property codes
        for i in range(nold):
            q = B[base + i]
            if S[SEEN, q] != st and S[COLOR, q] == EMPTY:
                S[SEEN, q] = st
                revalue(S, B, T, q)
        for i in range(S[META, M_NEARN + o]):
            q = S[NEARL + o, i]
            if S[SEEN, q] != st and S[COLOR, q] == EMPTY:
                S[SEEN, q] = st
                revalue(S, B, T, q)


@njit(cache=True, _nrt=False)
def init_values(S, B, T):
    """Compute every value from scratch (near sets as currently marked)."""
    S[VAL : VAL + 2, :] = 0
    S[RSUM : RSUM + 2, :] = 0
    S[META, M_TOT] = 0
    S[META, M_TOT + 1] = 0
    N = S[META, 0]
    W = S[META, M_W]
    for r in range(N):
        for k in range(N):
            q = (r + 1) * W + k + 1
            update_point(S, B, T, q)


@njit(cache=True, inline="always", _nrt=False)
def sample_move(S, ci, W):
    """A point drawn with probability ``S[VAL + ci, q] / S[META, M_TOT + ci]`` (``S[META, M_TOT + ci] > 0``)."""
    r = np.random.randint(0, S[META, M_TOT + ci])
    row = 0
    while r >= S[RSUM + ci, row]:
        r -= S[RSUM + ci, row]
        row += 1
    q = row * W
    while r >= S[VAL + ci, q]:
        r -= S[VAL + ci, q]
        q += 1
    return q


@njit(cache=True, _nrt=False)
def playout_score(S):
    """Black minus White: stones plus empty points whose neighbours are of one colour only."""
    N = S[META, 0]
    W = S[META, M_W]
    s = 0
    for r in range(N):
        for k in range(N):
            q = (r + 1) * W + k + 1
            cq = S[COLOR, q]
            if cq == BLACK:
                s += 1
            elif cq == WHITE:
                s -= 1
            else:
                t = 0
                for d in (-W, -1, 1, W):
                    t |= 1 << S[COLOR, q + d]
                t &= 6
                if t == 2:
                    s += 1
                elif t == 4:
                    s -= 1
    return s


@njit(cache=True, _nrt=False)
def atari_reply(S, B, c):
    """The answer of ``c`` to an atari of the previous move (MoGo's/Pachi's first playout rule),
    or ``PASS`` for none: capture the previous move's string if it is in atari; else, for the
    largest of ``c``'s strings next to the previous move that has one liberty, capture an
    adjacent opponent string in atari, or extend at the liberty when that is no self-atari."""
    last = S[META, M_LAST]
    if last == PASS or S[COLOR, last] == EMPTY:
        return PASS
    W = S[META, M_W]
    opp = 3 - c
    t = S[REP, last]
    if S[COLOR, last] == opp and S[NLIB, t] == 1:
        q = _first_liberty(S, t)
        if q != PASS and q != S[META, M_KO] and not is_suicide(S, q, c):
            return q
    best = PASS
    best_n = 0
    for d in (-W, -1, 1, W):
        r = last + d
        if S[COLOR, r] != c:
            continue
        s = S[REP, r]
        if S[NLIB, s] != 1 or S[SSIZE, s] <= best_n:
            continue
        mv = PASS
        x = s  # an adjacent opponent string in atari: capture it
        while mv == PASS:
            for dd in (-W, -1, 1, W):
                y = x + dd
                if S[COLOR, y] == opp and S[NLIB, S[REP, y]] == 1:
                    q = _first_liberty(S, S[REP, y])
                    if q != PASS and q != S[META, M_KO] and not is_suicide(S, q, c):
                        mv = q
                        break
            x = S[NXT, x]
            if x == s:
                break
        if mv == PASS:
            q = _first_liberty(S, s)
            if q != PASS and q != S[META, M_KO]:
                sui, sa, _ = move_props(S, B, q, c)
                if not sui and not sa:
                    mv = q
        if mv != PASS:
            best = mv
            best_n = S[SSIZE, s]
    return best


@njit(cache=True, _nrt=False)
def policy_value(S, B, T, q, c):
    """The playout policy's value of ``c`` (to move) at ``q``: 0 for a pass, an occupied, ko or
    suicide point, or a move the pattern table never plays (e.g. filling an own eye); else its
    value with the near bit as the policy sees it (light tables: :func:`light_value`; others
    :func:`exact_value`, which equals the incremental rows and the far-light sampler's values).
    A call, not inlined, so that the reply rules add no inlined copy of the value code."""
    if q <= 0 or S[COLOR, q] != EMPTY or q == S[META, M_KO]:
        return 0
    if T[T_LIGHT] != 0:
        return light_value(S, T, q, c)
    o = c - 1
    near = 1 if S[NEARM + o, q] == S[META, M_NEARGEN + o] else 0
    return exact_value(S, B, T, q, c, near)


@njit(cache=True, _nrt=False)
def lgrf_move(S, B, T, LG, lgrf, c):
    """The last-good-reply move of ``c`` (to move), or ``PASS`` for none (Baier & Drake 2010,
    "The Power of Forgetting", IEEE TCIAIG 2(4): LGRF-1 / LGRF-2).

    ``LG`` (int64, shape ``(2, n + 1, n)``, ``n`` = padded points ``S.shape[1]``, -1 = none):
    ``LG[c - 1, p2, p1]`` is the stored reply of ``c`` to the moves ``p2``, ``p1`` (the last
    two, ``S[META, M_LAST2]``, ``S[META, M_LAST]``; 0 = pass), ``LG[c - 1, n, p1]`` the reply
    to ``p1`` alone.  With ``lgrf`` 2 the two-move reply is tried first, then (``lgrf`` >= 1)
    the one-move reply; a reply is played only where :func:`policy_value` is positive (legal,
    and a move the pattern policy itself could draw).  See :func:`lgrf_update`."""
    p1 = S[META, M_LAST]
    if p1 < 0:
        return PASS
    ci = c - 1
    if lgrf >= 2:
        p2 = S[META, M_LAST2]
        if p2 >= 0:
            m = LG[ci, p2, p1]
            if m > 0 and policy_value(S, B, T, m, c) > 0:
                return m
    m = LG[ci, LG.shape[2], p1]
    if m > 0 and policy_value(S, B, T, m, c) > 0:
        return m
    return PASS


@njit(cache=True, _nrt=False)
def lgrf_update(LG, seq, n, c0, winner):
    """Learn and forget replies from one finished simulation (Baier & Drake 2010, LGRF).

    ``seq[0]``, ``seq[1]``: the two moves before the simulation's first (the game's; -1 =
    none, 0 = pass); ``seq[2:n]``: the simulation's moves (tree moves, then playout moves) as
    points, 0 = pass, ``seq[2]`` by colour ``c0`` and alternating.  ``winner``: BLACK or
    WHITE (a tie: do not call).  For each move ``m`` (not a pass) of colour ``c`` after
    ``p2``, ``p1``: if ``c`` won, ``m`` becomes ``c``'s reply to ``p1`` and to ``(p2, p1)``
    (``LG`` as in :func:`lgrf_move`); if ``c`` lost, a stored reply equal to ``m`` is deleted
    (the forgetting); others are kept.  Later moves overwrite earlier ones."""
    nn = LG.shape[2]
    c = c0
    for i in range(2, n):
        m = seq[i]
        p1 = seq[i - 1]
        p2 = seq[i - 2]
        if m > 0 and p1 >= 0:
            ci = c - 1
            if c == winner:
                LG[ci, nn, p1] = m
                if p2 >= 0:
                    LG[ci, p2, p1] = m
            else:
                if LG[ci, nn, p1] == m:
                    LG[ci, nn, p1] = -1
                if p2 >= 0 and LG[ci, p2, p1] == m:
                    LG[ci, p2, p1] = -1
        c = 3 - c


def lgrf_table(npoints: int) -> np.ndarray:
    """An empty reply table for :func:`lgrf_move` / :func:`lgrf_update`: int64, shape
    ``(2, npoints + 1, npoints)`` (``npoints`` = padded points, ``Board.S.shape[1]``), all -1."""
    return np.full((2, npoints + 1, npoints), -1, np.int64)


@njit(cache=True, _nrt=False)
def run_playout(S, B, T, movebuf, max_moves, reply=0, lgrf=0, LG=None, twolib=0, twolib_escape=2,
                nakade=0):
    """Play to the end from the current (value-initialised) state; return moves played.

    ``reply`` (percent, 0 = off; far-light tables, GNU Go's databases): with this probability
    the move of :func:`atari_reply`, when there is one, is played instead of a drawn one.
    ``twolib`` (percent, 0 = off; far-light tables): when that gave no move, with this
    probability the two-liberty answer :func:`playout.go.lowlib.twolib_move`, when there is
    one (0 draws no random number: the moves are those played without it), with the atari
    bound ``twolib_escape`` (:func:`playout.go.lowlib.atari_choice`'s ``escape``).
    ``nakade`` (percent, 0 = off; far-light tables): when the atari answer gave no move, with
    this probability the vital point of a small eye space next to the previous move
    (:func:`playout.go.nakade.nakade_move`), before the two-liberty rule (0 draws no random
    number).
    ``lgrf`` (0 = off, 1, 2) with the reply table ``LG``: the move of :func:`lgrf_move`, when
    there is one, is played before either (it draws no random number, so ``lgrf`` 0 plays
    exactly the moves it played before).

    ``movebuf[i]`` is the point of move ``i`` (0 = pass), negated for White.  Stops after three
    consecutive passes or when ``S[META, M_MOVES]`` reaches ``max_moves``.  With a light or
    far-light table the value rows are not maintained (moves come from
    :mod:`playout.go.samplers`; the near sets are); call :func:`init_values` before reading them
    again.
    """
    W = S[META, M_W]
    n = 0
    passes = 0
    light = T[T_LIGHT] != 0
    far_light = T[T_FARLIGHT] != 0
    far_cap = far_light and T[T_FARCAP] != 0
    nat = init_atari(S, B) if far_cap else 0
    while S[META, M_MOVES] < max_moves:
        c = S[META, M_TOMOVE]
        ci = c - 1
        p = PASS
        if LG is not None:
            if lgrf > 0:
                p = lgrf_move(S, B, T, LG, lgrf, c)
        if light:
            if p == PASS:
                p = sample_light(S, T, c)
            passes = passes + 1 if p == PASS else 0
            play(S, B, p, c, False)
        elif far_light:
            if p == PASS and reply > 0 and np.random.randint(0, 100) < reply:
                p = atari_reply(S, B, c)
            if p == PASS and nakade > 0 and np.random.randint(0, 100) < nakade:
                p = nakade_move(S, B, c)
            if p == PASS and twolib > 0 and np.random.randint(0, 100) < twolib:
                p = twolib_move(S, B, c, twolib_escape)
            if p == PASS:
                p, nat = sample_far_light(S, B, T, c, nat)
            passes = passes + 1 if p == PASS else 0
            play(S, B, p, c, False)
            build_near(S, B, p, c)
            if far_cap:
                nat = note_atari(S, B, p, nat)
        else:
            if p != PASS:
                passes = 0
            elif S[META, M_TOT + ci] <= 0:
                passes += 1
            else:
                p = sample_move(S, ci, W)
                passes = 0
            play_update(S, B, T, p, c)
        movebuf[n] = p if c == BLACK else -p
        n += 1
        if passes >= 3:
            break
    return n


# ---------------------------------------------------------------------------------------------
# Python layer
# ---------------------------------------------------------------------------------------------
def _announce_compile() -> None:
    """One stderr line when the playout and search kernels are about to compile (cold cache;
    ~60 s CPU for a first genmove on the 2-core reference machine, ``python
    benchmarks/compile_cost.py go``: 58 s before the nakade rule, 61 s with it, session 34)."""
    from playout.go import search  # imported here: playout.go.search imports this module

    announce_compile("the Go playout and search kernels", "~60 s", search.search, init_values,
                     build_near, play_update)


class PlayoutState:
    """A board plus incremental value rows, for running playouts from a position.

    ``PlayoutState(board, table)`` computes every value from scratch (near set from the board's
    last move and the points it captured, :meth:`Board.last_captures`: the set
    :func:`play_update` would have built).  ``value(q, c)`` is colour ``c``'s value at padded point ``q``.
    """

    def __init__(self, board: Board, table: "Table"):
        _announce_compile()
        self.board = board.copy()
        self.table = table
        self.S = self.board.S
        self.B = self.board.B
        S = self.S
        S[VAL : VAL + 2] = 0
        S[NEARM : NEARM + 2] = 0
        S[META, M_NEARGEN] = 1
        S[META, M_NEARGEN + 1] = 1
        S[META, M_NEARN] = 0
        S[META, M_NEARN + 1] = 0
        last = int(S[META, M_LAST])
        # the near set as the incremental path (play_update) builds it after the last move,
        # the points it captured included (docs/go-mc-patterns.md; GNU Go 3.8 queues them in
        # mc_remove_string); the copy's scratch B does not hold them, the board's record does
        caps = self.board.last_captures()
        S[META, M_NCAP] = len(caps)
        c0 = 16 * S.shape[1]
        self.B[c0 : c0 + len(caps)] = caps
        if last > 0 and not table.light:
            c_last = 3 - int(S[META, M_TOMOVE])
            build_near(S, self.B, last, c_last)
        self.refresh()

    @property
    def val(self) -> np.ndarray:
        """Values, shape (2, W*W): row 0 Black, row 1 White (a view)."""
        return self.S[VAL : VAL + 2]

    @property
    def tot(self) -> np.ndarray:
        return self.S[META, M_TOT : M_TOT + 2]

    @property
    def rsum(self) -> np.ndarray:
        return self.S[RSUM : RSUM + 2]

    def refresh(self) -> None:
        """Recompute all values from scratch."""
        init_values(self.S, self.B, self.table.T)

    def play(self, p: int, c: int | None = None) -> None:
        """Play without legality checks (use :meth:`Board.is_legal` first) and update values."""
        c = int(self.S[META, M_TOMOVE]) if c is None else c
        play_update(self.S, self.B, self.table.T, p, c)

    def value(self, p: int, c: int) -> int:
        return int(self.S[VAL + c - 1, p])

    def code(self, p: int, c: int) -> int:
        """The property code of ``c`` at empty ``p`` including the near bit (for tests)."""
        lb, lw, cb, cw = point_codes(self.S, self.B, p)
        code = cb if c == BLACK else cw
        if self.S[NEARM + c - 1, p] == self.S[META, M_NEARGEN + c - 1]:
            code |= 1
        return int(code)

    def near_points(self, c: int) -> list[int]:
        """Points marked near for colour ``c`` (the side replying to the last move)."""
        return sorted(int(x) for x in self.S[NEARL + c - 1, : self.S[META, M_NEARN + c - 1]])

    def step(self, max_moves: int) -> int:
        """Run the playout until ``max_moves`` moves in all; returns moves played now."""
        movebuf = np.zeros(max(1, max_moves - int(self.S[META, M_MOVES])) + 4, np.int64)
        return int(run_playout(self.S, self.B, self.table.T, movebuf, max_moves, 0))

    def run(self, seed: int | None = None, max_moves: int = 600) -> tuple[int, np.ndarray]:
        """One playout in place from this state; returns (Black-minus-White score, moves)."""
        if seed is not None:
            seed_rng(seed)
        movebuf = np.zeros(max_moves + 4, np.int64)
        n = run_playout(self.S, self.B, self.table.T, movebuf,
                        int(self.S[META, M_MOVES]) + max_moves, 0)
        return int(playout_score(self.S)), movebuf[:n]


@njit(cache=True)
def seed_rng(seed):
    """Seed numba's generator (used by the kernels) in this process."""
    np.random.seed(seed)


@njit(cache=True)
def run_many(S0, B, T, n_playouts, max_moves, seed):
    """Run ``n_playouts`` from copies of ``S0``; return (Black wins at komi 0, total moves)."""
    np.random.seed(seed)
    movebuf = np.zeros(max_moves + 4, np.int64)
    S = S0.copy()
    wins = 0
    moves = 0
    for _ in range(n_playouts):
        S[:, :] = S0
        moves += run_playout(S, B, T, movebuf, max_moves, 0)
        if playout_score(S) > 0:
            wins += 1
    return wins, moves


def playouts_from(state: PlayoutState, n: int, seed: int = 1, max_moves: int = 600):
    """Run ``n`` playouts from copies of ``state``; return (Black wins at komi 0, total moves)."""
    return run_many(state.S, state.B, state.table.T, n, int(state.S[META, M_MOVES]) + max_moves, seed)


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "tables.py", "properties.py",
                                        "samplers.py", "lowlib.py", "nakade.py"))
