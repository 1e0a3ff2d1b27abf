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

``nbr_index``: the 8 neighbours in order NW, N, NE, W, E, SW, S, SE (N = one row up), each 2
bits (0 empty, 1 own, 2 opponent, 3 off-board), ``index = sum(state_i << 2 i)``.  Because the
board's colour codes are 0 empty, 1 black, 2 white, 3 border, the index for Black is read off the
colour array directly and White's is ``SWAP[index]``.

Values are kept incrementally: after a move only the points listed by
:func:`playout.go.board.play` (neighbours of the move and of captured stones, liberties of strings
whose liberty count changed in the atari range, ko points) and the old/new *near* sets are
recomputed.  Sampling is strictly proportional to value with per-row partial sums (like GNU Go's
partitions): draw a row by its sum, then a point in it, ``O(N)`` per draw.  A side whose total is
0 passes; the playout ends after three consecutive passes (GNU Go) or at ``max_moves``.  Simple ko
is respected; superko is not checked inside playouts.  Score: area with an empty point counting
for the colour of an adjacent stone (if only one colour touches it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.go.board import (
    BLACK,
    BORDER,
    EMPTY,
    M_KO,
    M_LAST,
    M_NCAP,
    M_PASSES,
    M_TOMOVE,
    M_W,
    M_MOVES,
    PASS,
    WHITE,
    Board,
    ZOBRIST,
    is_suicide,
    play,
    string_libs,
)

#: neighbour offsets in index order NW, N, NE, W, E, SW, S, SE, as multiples of (dy, dx).
NBR_ORDER = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _make_swap() -> np.ndarray:
    idx = np.arange(65536, dtype=np.int64)
    out = np.zeros(65536, np.int64)
    for i in range(8):
        s = (idx >> (2 * i)) & 3
        s2 = np.where(s == 1, 2, np.where(s == 2, 1, s))
        out |= s2 << (2 * i)
    return out.astype(np.int32)


#: index seen by Black -> index seen by White (own and opponent swapped).
SWAP = _make_swap()


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------
def proper_eye_geometry() -> np.ndarray:
    """bool[65536]: the centre is a proper eye of the mover (GNU Go's three ``:0`` eye shapes).

    Centre: N, W, E, S own; at most one diagonal opponent, the others own or empty.  Edge and
    corner: orthogonal on-board neighbours own, on-board diagonals own or empty.
    """
    idx = np.arange(65536)
    st = [(idx >> (2 * i)) & 3 for i in range(8)]
    nw, n, ne, w, e, sw, s, se = st
    orth_ok = np.ones(65536, bool)
    for o in (n, w, e, s):
        orth_ok &= (o == 1) | (o == 3)
    n_off = sum((o == 3).astype(int) for o in (n, w, e, s))
    diags = (nw, ne, sw, se)
    n_opp_diag = sum((d == 2).astype(int) for d in diags)
    centre = (n_off == 0) & (n_opp_diag <= 1)
    edge = (n_off >= 1) & (n_opp_diag == 0)
    # an off-board orthogonal neighbour must make its two diagonals off-board too (consistency)
    return orth_ok & (centre | edge)


def fallback_uniform_table() -> tuple[np.ndarray, np.ndarray]:
    """(geometry, values) of light playouts built here: eyes 0, everything else 1.

    Used when :mod:`playout.go.patterns` is unavailable; the shipped ``mc_uniform`` database
    compiles to the same values on every reachable geometry.
    """
    geom = np.where(proper_eye_geometry(), 0, 1).astype(np.int32)
    values = np.zeros((2, 256), np.int64)
    values[1, :] = 1
    return geom, values


class Table:
    """A compiled pattern table ready for the kernels.

    Attributes: ``name``; ``geometry`` int32[65536] (neighbour index -> class); ``values``
    int64[n_classes, 256]; ``light`` (values ignore the property code, so the kernels skip
    computing properties).
    """

    def __init__(self, geometry: np.ndarray, values: np.ndarray, name: str = "table"):
        self.name = name
        self.geometry = np.ascontiguousarray(geometry, dtype=np.int32)
        self.values = np.ascontiguousarray(values, dtype=np.int64)
        if self.geometry.shape != (65536,) or self.values.ndim != 2 or self.values.shape[1] != 256:
            raise ValueError("pattern table needs geometry[65536] and values[n_classes, 256]")
        self.light = bool(np.all(self.values == self.values[:, :1]))


_TABLES: dict[str, Table] = {}


def load_table(name: str | None = None, path: str | None = None) -> Table:
    """The table of a built-in database ``name`` (with or without ``mc_``) or of file ``path``.

    ``path`` wins over ``name``.  Without :mod:`playout.go.patterns` only ``uniform`` is
    available (:func:`fallback_uniform_table`).  Raises ValueError/OSError with the parser's
    message on a bad name or file.
    """
    key = f"file:{path}" if path else (name or "mc_montegnu_classic")
    if key in _TABLES:
        return _TABLES[key]
    try:
        from playout.go.patterns import load_patterns  # type: ignore
    except ImportError:
        load_patterns = None
    if load_patterns is not None:
        cp = load_patterns(path if path else key)
        t = Table(cp.geometry, cp.values, name=key)
    else:
        base = key[3:] if key.startswith("mc_") else key
        if base != "uniform":
            raise ValueError(f"pattern database {key!r} needs playout.go.patterns (not installed)")
        g, v = fallback_uniform_table()
        t = Table(g, v, name="mc_uniform")
    _TABLES[key] = t
    return t


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def nbr_index(color, W, q):
    """Black-relative 16-bit neighbour index of ``q`` (see module docstring)."""
    return (
        np.int32(color[q - W - 1])
        | (np.int32(color[q - W]) << 2)
        | (np.int32(color[q - W + 1]) << 4)
        | (np.int32(color[q - 1]) << 6)
        | (np.int32(color[q + 1]) << 8)
        | (np.int32(color[q + W - 1]) << 10)
        | (np.int32(color[q + W]) << 12)
        | (np.int32(color[q + W + 1]) << 14)
    )


@njit(cache=True)
def move_props(color, rep, nxt, nlib, ssize, mark, meta, q, c, libbuf):
    """(suicide, self_atari, captured) for ``c`` playing at empty ``q`` (ko ignored).

    ``captured`` is the number of stones removed; ``self_atari`` means the resulting string has
    exactly one liberty (empty neighbours, other liberties of joined strings, freed points).
    """
    W = meta[M_W]
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
        cr = color[r]
        if cr == EMPTY:
            ne += 1
            if e0 < 0:
                e0 = r
        elif cr == c:
            s = rep[r]
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
            s = rep[r]
            if nlib[s] == 1 and s != k0 and s != k1 and s != k2 and s != k3:
                if nks == 0:
                    k0 = s
                elif nks == 1:
                    k1 = s
                elif nks == 2:
                    k2 = s
                else:
                    k3 = s
                nks += 1
                ncap += ssize[s]
    if ne >= 2:
        return False, False, ncap
    if ne == 0 and nks == 0:
        sui = True
        for s in (o0, o1, o2, o3):
            if s >= 0 and nlib[s] >= 2:
                sui = False
        if sui:
            return True, False, 0
    # count distinct liberties of the result, stopping at 2
    l0 = e0
    nl = ne
    if nks > 0:
        for d in (-W, -1, 1, W):
            r = q + d
            if color[r] == opp:
                s = rep[r]
                if s == k0 or s == k1 or s == k2 or s == k3:
                    if nl == 0:
                        l0 = r
                        nl = 1
                    elif r != l0:
                        return False, False, ncap
    for s in (o0, o1, o2, o3):
        if s >= 0:
            if nlib[s] >= 3:
                return False, False, ncap
            n = string_libs(color, nxt, mark, meta, s, libbuf, 3)
            for i in range(n):
                x = libbuf[i]
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
                        if color[r] == c:
                            t = rep[r]
                            if t == o0 or t == o1 or t == o2 or t == o3:
                                if nl == 0:
                                    l0 = x
                                    nl = 1
                                elif x != l0:
                                    return False, False, ncap
                    x = nxt[x]
                    if x == s:
                        break
    return False, nl == 1, ncap


@njit(cache=True)
def point_codes(color, rep, nxt, nlib, ssize, mark, meta, q, libbuf):
    """(legal_black, legal_white, code_black, code_white) at empty ``q``; near bit and ko excluded."""
    sb, ab, cb = move_props(color, rep, nxt, nlib, ssize, mark, meta, q, BLACK, libbuf)
    sw, aw, cw = move_props(color, rep, nxt, nlib, ssize, mark, meta, q, WHITE, libbuf)
    cb3 = min(cb, 3)
    cw3 = min(cw, 3)
    code_b = (int(sw) << 7) | (int(ab) << 6) | (int(aw) << 5) | (cb3 << 3) | (cw3 << 1)
    code_w = (int(sb) << 7) | (int(aw) << 6) | (int(ab) << 5) | (cw3 << 3) | (cb3 << 1)
    return not sb, not sw, code_b, code_w


# ---------------------------------------------------------------------------------------------
# incremental values
# ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _set_val(val, rsum, tot, ci, q, W, v):
    dv = v - val[ci, q]
    if dv != 0:
        val[ci, q] = v
        rsum[ci, q // W] += dv
        tot[ci] += dv


@njit(cache=True, inline="always")
def update_point(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearm, neargen,
                 geom, values, swap, light, q, libbuf):
    """Recompute both colours' values at ``q`` and fix the partial sums."""
    W = meta[M_W]
    if color[q] != EMPTY:
        _set_val(val, rsum, tot, 0, q, W, 0)
        _set_val(val, rsum, tot, 1, q, W, 0)
        return
    idx = nbr_index(color, W, q)
    gb = geom[idx]
    gw = geom[swap[idx]]
    ko = meta[M_KO]
    tm = meta[M_TOMOVE]
    if light:
        vb = values[gb, 0]
        vw = values[gw, 0]
        if vb != 0 and (is_suicide(color, rep, nlib, meta, q, BLACK) or (q == ko and tm == BLACK)):
            vb = 0
        if vw != 0 and (is_suicide(color, rep, nlib, meta, q, WHITE) or (q == ko and tm == WHITE)):
            vw = 0
    else:
        lb, lw, cb, cw = point_codes(color, rep, nxt, nlib, ssize, mark, meta, q, libbuf)
        if nearm[0, q] == neargen[0]:
            cb |= 1
        if nearm[1, q] == neargen[1]:
            cw |= 1
        vb = values[gb, cb] if (lb and not (q == ko and tm == BLACK)) else 0
        vw = values[gw, cw] if (lw and not (q == ko and tm == WHITE)) else 0
    _set_val(val, rsum, tot, 0, q, W, vb)
    _set_val(val, rsum, tot, 1, q, W, vw)


@njit(cache=True)
def build_near(color, rep, nxt, nlib, mark, meta, capbuf, nearl, nearn, nearm, neargen, p, c, libbuf):
    """Replace the near set of the side to move after ``c`` played ``p`` (doc's definition).

    The set: ``p``'s 8 neighbours; the liberties of ``p``'s string if it has at most 2; the
    liberties (at most 2) of opponent strings touching ``p``; after a capture, the captured
    points, their empty neighbours and the liberties (at most 2) of ``c``'s strings next to them.
    Empty after a pass.  Writes the list into ``nearl[o]`` (``o`` = side to move, 0-based).
    """
    W = meta[M_W]
    o = 2 - c  # index of the opponent colour (3 - c) - 1
    neargen[o] += 1
    g = neargen[o]
    n = 0
    if p != PASS:
        for d in (-W - 1, -W, -W + 1, -1, 1, W - 1, W, W + 1):
            x = p + d
            if color[x] == EMPTY and nearm[o, x] != g:
                nearm[o, x] = g
                nearl[o, n] = x
                n += 1
        s = rep[p]
        if nlib[s] <= 2:
            k = string_libs(color, nxt, mark, meta, s, libbuf, 2)
            for i in range(k):
                x = libbuf[i]
                if nearm[o, x] != g:
                    nearm[o, x] = g
                    nearl[o, n] = x
                    n += 1
        for d in (-W, -1, 1, W):
            r = p + d
            if color[r] == 3 - c and nlib[rep[r]] <= 2:
                k = string_libs(color, nxt, mark, meta, rep[r], libbuf, 2)
                for i in range(k):
                    x = libbuf[i]
                    if nearm[o, x] != g:
                        nearm[o, x] = g
                        nearl[o, n] = x
                        n += 1
        for j in range(meta[M_NCAP]):
            q = capbuf[j]
            if nearm[o, q] != g:
                nearm[o, q] = g
                nearl[o, n] = q
                n += 1
            for d in (-W, -1, 1, W):
                r = q + d
                if color[r] == EMPTY:
                    if nearm[o, r] != g:
                        nearm[o, r] = g
                        nearl[o, n] = r
                        n += 1
                elif color[r] == c and nlib[rep[r]] <= 2:
                    k = string_libs(color, nxt, mark, meta, rep[r], libbuf, 2)
                    for i in range(k):
                        x = libbuf[i]
                        if nearm[o, x] != g:
                            nearm[o, x] = g
                            nearl[o, n] = x
                            n += 1
    nearn[o] = n


@njit(cache=True)
def play_update(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearl, nearn, nearm,
                neargen, geom, values, swap, light, aff, capbuf, libbuf, p, c):
    """Play ``c`` at ``p`` and bring values, partial sums and near sets up to date."""
    o = 2 - c
    # old near points of the side about to move must lose their near bit
    nold = nearn[o]
    base = aff.shape[0] - color.shape[0]
    for i in range(nold):
        aff[base + i] = nearl[o, i]
    naff = play(color, rep, nxt, nlib, ssize, mark, meta, ZOBRIST, p, c, aff[:base], capbuf)
    if not light:
        build_near(color, rep, nxt, nlib, mark, meta, capbuf, nearl, nearn, nearm, neargen, p, c, libbuf)
    # recompute each listed point once: seen-stamps live in libbuf[size:2 size], counter at the end
    size = color.shape[0]
    libbuf[2 * size] += 1
    if libbuf[2 * size] > 2_000_000_000:
        libbuf[size:] = 0
        libbuf[2 * size] = 1
    st = libbuf[2 * size]
    for i in range(naff):
        q = aff[i]
        if color[q] != BORDER and libbuf[size + q] != st:
            libbuf[size + q] = st
            update_point(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearm, neargen,
                         geom, values, swap, light, q, libbuf)
    if not light:
        for i in range(nold):
            q = aff[base + i]
            if libbuf[size + q] != st:
                libbuf[size + q] = st
                update_point(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearm,
                             neargen, geom, values, swap, light, q, libbuf)
        for i in range(nearn[o]):
            q = nearl[o, i]
            if libbuf[size + q] != st:
                libbuf[size + q] = st
                update_point(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearm,
                             neargen, geom, values, swap, light, q, libbuf)


@njit(cache=True)
def init_values(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearm, neargen,
                geom, values, swap, light, libbuf):
    """Compute every value from scratch (near sets as currently marked)."""
    val[:, :] = 0
    rsum[:, :] = 0
    tot[:] = 0
    N = meta[0]
    W = meta[M_W]
    for r in range(N):
        for k in range(N):
            q = (r + 1) * W + k + 1
            update_point(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearm, neargen,
                         geom, values, swap, light, q, libbuf)


@njit(cache=True, inline="always")
def sample_move(val, rsum, tot, ci, W):
    """A point drawn with probability ``val[ci, q] / tot[ci]`` (``tot[ci] > 0``)."""
    r = np.random.randint(0, tot[ci])
    row = 0
    while r >= rsum[ci, row]:
        r -= rsum[ci, row]
        row += 1
    q = row * W
    while r >= val[ci, q]:
        r -= val[ci, q]
        q += 1
    return q


@njit(cache=True)
def playout_score(color, meta):
    """Black minus White: stones plus empty points whose neighbours are of one colour only."""
    N = meta[0]
    W = meta[M_W]
    s = 0
    for r in range(N):
        for k in range(N):
            q = (r + 1) * W + k + 1
            cq = color[q]
            if cq == BLACK:
                s += 1
            elif cq == WHITE:
                s -= 1
            else:
                t = 0
                for d in (-W, -1, 1, W):
                    t |= 1 << color[q + d]
                t &= 6
                if t == 2:
                    s += 1
                elif t == 4:
                    s -= 1
    return s


@njit(cache=True)
def run_playout(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearl, nearn, nearm,
                neargen, geom, values, swap, light, aff, capbuf, libbuf, movebuf, max_moves):
    """Play to the end from the current (value-initialised) state; return moves played.

    ``movebuf[i]`` is the point of move ``i`` (0 = pass), negated for White.  Stops after three
    consecutive passes or when ``meta[M_MOVES]`` reaches ``max_moves``.
    """
    W = meta[M_W]
    n = 0
    passes = 0
    while meta[M_MOVES] < max_moves:
        c = meta[M_TOMOVE]
        ci = c - 1
        if tot[ci] <= 0:
            p = PASS
            passes += 1
        else:
            p = sample_move(val, rsum, tot, ci, W)
            passes = 0
        play_update(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearl, nearn, nearm,
                    neargen, geom, values, swap, light, aff, capbuf, libbuf, p, c)
        movebuf[n] = p if c == BLACK else -p
        n += 1
        if passes >= 3:
            break
    return n


# ---------------------------------------------------------------------------------------------
# Python layer
# ---------------------------------------------------------------------------------------------
class PlayoutState:
    """A board plus incremental value arrays, for running playouts from a position.

    ``PlayoutState(board, table)`` computes every value from scratch (near set from the board's
    last move).  ``val[c - 1, q]`` is colour ``c``'s value at padded point ``q``.
    """

    def __init__(self, board: Board, table: Table):
        self.board = board.copy()
        self.table = table
        size = board.color.shape[0]
        W = board.W
        self.val = np.zeros((2, size), np.int64)
        self.rsum = np.zeros((2, W), np.int64)
        self.tot = np.zeros(2, np.int64)
        self.nearl = np.zeros((2, size), np.int32)
        self.nearn = np.zeros(2, np.int64)
        self.nearm = np.zeros((2, size), np.int64)
        self.neargen = np.ones(2, np.int64)
        self.aff = np.zeros(17 * size, np.int32)
        self.capbuf = np.zeros(size, np.int32)
        self.libbuf = np.zeros(2 * size + 1, np.int32)
        color, rep, nxt, nlib, ssize, mark, meta = self.board.arrays
        last = int(meta[M_LAST])
        if last > 0 and not table.light:
            c_last = 3 - int(meta[M_TOMOVE])
            meta[M_NCAP] = 0
            build_near(color, rep, nxt, nlib, mark, meta, self.capbuf, self.nearl, self.nearn,
                       self.nearm, self.neargen, last, c_last, self.libbuf)
        self.refresh()

    def refresh(self) -> None:
        """Recompute all values from scratch."""
        init_values(*self.board.arrays, self.val, self.rsum, self.tot, self.nearm, self.neargen,
                    self.table.geometry, self.table.values, SWAP, self.table.light, self.libbuf)

    def kernel_args(self) -> tuple:
        """Arguments of :func:`play_update`/:func:`run_playout` up to (excluding) the move."""
        return (*self.board.arrays, self.val, self.rsum, self.tot, self.nearl, self.nearn,
                self.nearm, self.neargen, self.table.geometry, self.table.values, SWAP,
                self.table.light, self.aff, self.capbuf, self.libbuf)

    def play(self, p: int, c: int | None = None) -> None:
        """Play without legality checks (use :meth:`Board.is_legal` first) and update values."""
        c = int(self.board.meta[M_TOMOVE]) if c is None else c
        play_update(*self.kernel_args(), p, c)

    def value(self, p: int, c: int) -> int:
        return int(self.val[c - 1, p])

    def code(self, p: int, c: int) -> int:
        """The property code of ``c`` at empty ``p`` including the near bit (for tests)."""
        color, rep, nxt, nlib, ssize, mark, meta = self.board.arrays
        lb, lw, cb, cw = point_codes(color, rep, nxt, nlib, ssize, mark, meta, p, self.libbuf)
        code = cb if c == BLACK else cw
        if self.nearm[c - 1, p] == self.neargen[c - 1]:
            code |= 1
        return int(code)

    def near_points(self, c: int) -> list[int]:
        """Points marked near for colour ``c`` (the side replying to the last move)."""
        return sorted(int(x) for x in self.nearl[c - 1, : self.nearn[c - 1]])

    def run(self, seed: int | None = None, max_moves: int = 600) -> tuple[int, np.ndarray]:
        """One playout in place from this state; returns (Black-minus-White score, moves)."""
        if seed is not None:
            seed_rng(seed)
        movebuf = np.zeros(max_moves + 4, np.int32)
        n = run_playout(*self.kernel_args(), movebuf, max_moves)
        return int(playout_score(self.board.color, self.board.meta)), movebuf[:n]


@njit(cache=True)
def seed_rng(seed):
    """Seed numba's generator (used by the kernels) in this process."""
    np.random.seed(seed)


@njit(cache=True)
def run_many(color0, rep0, nxt0, nlib0, ssize0, mark0, meta0, val0, rsum0, tot0, nearl0, nearn0,
             nearm0, neargen0, geom, values, swap, light, aff, capbuf, libbuf, n_playouts,
             max_moves, seed):
    """Run ``n_playouts`` from copies of the given state; return (black wins, total moves)."""
    np.random.seed(seed)
    movebuf = np.zeros(max_moves + 4, np.int32)
    wins = 0
    moves = 0
    for _ in range(n_playouts):
        color = color0.copy()
        rep = rep0.copy()
        nxt = nxt0.copy()
        nlib = nlib0.copy()
        ssize = ssize0.copy()
        mark = mark0.copy()
        meta = meta0.copy()
        val = val0.copy()
        rsum = rsum0.copy()
        tot = tot0.copy()
        nearl = nearl0.copy()
        nearn = nearn0.copy()
        nearm = nearm0.copy()
        neargen = neargen0.copy()
        moves += run_playout(color, rep, nxt, nlib, ssize, mark, meta, val, rsum, tot, nearl, nearn,
                             nearm, neargen, geom, values, swap, light, aff, capbuf, libbuf,
                             movebuf, max_moves)
        if playout_score(color, meta) > 0:
            wins += 1
    return wins, moves


def playouts_from(state: PlayoutState, n: int, seed: int = 1, max_moves: int = 600, komi: float = 0.0):
    """Run ``n`` playouts from copies of ``state``; return (black wins with komi 0, total moves)."""
    return run_many(*state.board.arrays, state.val, state.rsum, state.tot, state.nearl, state.nearn,
                    state.nearm, state.neargen, state.table.geometry, state.table.values, SWAP,
                    state.table.light, state.aff, state.capbuf, state.libbuf, n,
                    int(state.board.meta[M_MOVES]) + max_moves, seed)
