"""One-sided bear-off database: exact roll distributions of every home-board position.

A *one-sided* position is one side's checkers on its points 1-6 (up to 15,
the rest borne off): ``C(21, 6) = 54,264`` positions.  For each the database
holds (gnubg's one-sided database, ``makebearoff.c``, computed here, not
read from gnubg's files):

* ``P[i, t]`` -- the probability that bearing off *all* its checkers takes
  exactly ``t`` rolls (turns) when every roll is played to minimise the
  expected number of rolls left;
* ``G[i, t]`` -- the same for bearing off the *first* checker (the "gammon"
  distribution; every roll played to minimise the expected rolls until one
  checker is off; ``G[i, 0] = 1`` when one is already off).

Both are dynamic programmes over positions in order of pip count (every play
lowers it): ``P[i] = sum over the 21 rolls (weights 1/36, 2/36) of
P[best play]`` shifted by one roll.  ``t`` runs 0..31 (``N_TURNS``); the
longest bear-off, 15 checkers on the 6-point, needs at most 30 rolls (checked
when the database is built).

Two-sided pure bear-offs (both sides in their home boards, no contact) are
evaluated from the two one-sided distributions, as gnubg's ``BEAROFF1``
class (``eval.c``): the side on roll, needing ``t`` rolls, wins if the
opponent needs at least ``t``::

    P(win)         = sum_t P_me(t) * P(opp needs >= t rolls)
    P(win gammon)  = sum_t P_me(t) * P(opp's first checker needs >= t rolls)
    P(lose gammon) = sum_t P_opp(t) * P(my first checker needs > t rolls)

(no backgammon is possible: the loser's checkers are all in its own home
board).  Each side's plays ignore the other's position (the one-sided
approximation; gnubg's two-sided database is exact for up to 6 checkers
each, its one-sided evaluation the same as ours for the rest).

Index of a position (``counts[0..5]`` = checkers on points 1..6, sum <= 15):
positions are ordered by the count on the 6-point, then the 5-point's, ...;
``index = sum_k OFF[k][m_k][c_k]`` with ``m_k`` the checkers not yet placed
(a combinatorial number system; gnubg's ``PositionBearoff`` ordering differs).
The empty position is 0.

The database is built on first use (about 1-2 s in numba once compiled) and
cached in ``$PLAYOUT_CACHE_DIR`` (default ``$XDG_CACHE_HOME/playout`` or
``~/.cache/playout``) as ``bearoff1.npz``; a build that takes over 2 s says so
on stderr.  Kernels take it as the flat ``float64[N_POSITIONS * STRIDE]``
array :func:`database` returns (row ``i`` = ``P[i]`` then ``G[i]``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from playout.cache import cache_dir, write_atomic  # bearoff.cache_dir, as before
from playout.jitcache import flush_stale_caches, siblings

N_POINTS = 6
N_CHECKERS = 15
N_TURNS = 32  #: distributions over 0..31 rolls (gnubg's one-sided database also keeps 32)
STRIDE = 2 * N_TURNS  #: one row of the flat database: P then G
VERSION = 1  #: bump when the layout or the play rule changes (old cache files are rebuilt)
_BUILD_TURNS = 40  #: the DP's own horizon; the tail beyond N_TURNS must be empty


def _tables():
    """``CNT[n, m]`` = positions of <= m checkers on n points = C(n + m, n);
    ``OFF[n, m, c]`` = positions placed before those with c checkers on point n."""
    from math import comb

    cnt = np.zeros((N_POINTS + 1, N_CHECKERS + 1), dtype=np.int64)
    for n in range(N_POINTS + 1):
        for m in range(N_CHECKERS + 1):
            cnt[n, m] = comb(n + m, n)
    off = np.zeros((N_POINTS + 1, N_CHECKERS + 1, N_CHECKERS + 2), dtype=np.int64)
    for n in range(1, N_POINTS + 1):
        for m in range(N_CHECKERS + 1):
            for c in range(1, m + 2):
                off[n, m, c] = off[n, m, c - 1] + cnt[n - 1, m - (c - 1)]
    return cnt, off


_CNT, _OFF = _tables()
N_POSITIONS = int(_CNT[N_POINTS, N_CHECKERS])  #: 54,264
DB_LEN = N_POSITIONS * STRIDE  #: length of the flat database

_R1 = np.array([1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6], dtype=np.int64)
_R2 = np.array([1, 1, 2, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6], dtype=np.int64)


@njit(cache=True)
def rank(c):
    """Index of one-sided position ``c`` (``c[1..6]`` = checkers on points 1..6; ``c[0]`` unused)."""
    m = N_CHECKERS  # checkers not yet placed (the rest are off)
    r = 0
    for k in range(N_POINTS, 0, -1):
        r += _OFF[k, m, c[k]]
        m -= c[k]
    return r


@njit(cache=True)
def side_index(board, opponent):
    """Database index of the mover's (``opponent`` False) or the opponent's home board in
    board26 ``board`` (the opponent's point k is board26 ``25 - k``); checkers elsewhere
    are ignored, so call it on bear-off positions only."""
    m = N_CHECKERS
    r = 0
    for k in range(N_POINTS, 0, -1):
        ck = -board[25 - k] if opponent else board[k]
        r += _OFF[k, m, ck]
        m -= ck
    return r


@njit(cache=True, inline="always")
def _can(c, s, d):
    """Can die ``d`` move a checker from point ``s`` (bearing off below 1)?"""
    if c[s] == 0:
        return False
    if s >= d:
        return True
    for p in range(s + 1, N_POINTS + 1):  # bearing off with a larger die: s must be the highest
        if c[p] > 0:
            return False
    return True


@njit(cache=True, inline="always")
def _do(c, s, d):
    c[s] -= 1
    if s > d:
        c[s - d] += 1
    else:
        c[0] += 1  # borne off (c[0] counts them, so rank() ignores it)


@njit(cache=True, inline="always")
def _undo(c, s, d):
    c[s] += 1
    if s > d:
        c[s - d] -= 1
    else:
        c[0] -= 1


@njit(cache=True, inline="always")
def _consider(c, mean, best, bj):
    j = rank(c)
    if mean[j] < best:
        return mean[j], j
    return best, bj


@njit(cache=True)
def _best_play(c, d1, d2, mean, on):
    """Index of the position after the play of ``d1 d2`` from ``c`` that minimises ``mean``.

    ``on`` = checkers on the board (``c[0]`` counts those borne off during the play).  In a
    bear-off every die can be played while a checker is left, so every play uses both dice
    (four for a double) or ends the game.
    """
    best = 1e300
    bj = -1
    if d1 == d2:
        d = d1
        for s1 in range(N_POINTS, 0, -1):
            if not _can(c, s1, d):
                continue
            _do(c, s1, d)
            if c[0] == on:  # all off: the rest of the roll is not played
                best, bj = _consider(c, mean, best, bj)
            else:
                for s2 in range(s1, 0, -1):
                    if not _can(c, s2, d):
                        continue
                    _do(c, s2, d)
                    if c[0] == on:  # all off: the rest of the roll is not played
                        best, bj = _consider(c, mean, best, bj)
                    else:
                        for s3 in range(s2, 0, -1):
                            if not _can(c, s3, d):
                                continue
                            _do(c, s3, d)
                            if c[0] == on:  # all off: the rest of the roll is not played
                                best, bj = _consider(c, mean, best, bj)
                            else:
                                for s4 in range(s3, 0, -1):
                                    if not _can(c, s4, d):
                                        continue
                                    _do(c, s4, d)
                                    best, bj = _consider(c, mean, best, bj)
                                    _undo(c, s4, d)
                            _undo(c, s3, d)
                    _undo(c, s2, d)
            _undo(c, s1, d)
    else:
        for order in range(2):
            a = d1 if order == 0 else d2
            b = d2 if order == 0 else d1
            for s1 in range(N_POINTS, 0, -1):
                if not _can(c, s1, a):
                    continue
                _do(c, s1, a)
                if c[0] == on:  # all off: the rest of the roll is not played
                    best, bj = _consider(c, mean, best, bj)
                else:
                    for s2 in range(N_POINTS, 0, -1):
                        if not _can(c, s2, b):
                            continue
                        _do(c, s2, b)
                        best, bj = _consider(c, mean, best, bj)
                        _undo(c, s2, b)
                _undo(c, s1, a)
    return bj


@njit(cache=True)
def _positions():
    """``pos[N_POSITIONS, 7]`` (``pos[i, 1..6]`` = the counts of position ``i``) and pip counts."""
    n = N_POSITIONS
    pos = np.zeros((n, N_POINTS + 1), dtype=np.int64)
    pips = np.zeros(n, dtype=np.int64)
    c = np.zeros(N_POINTS + 1, dtype=np.int64)
    for a1 in range(16):
        for a2 in range(16 - a1):
            for a3 in range(16 - a1 - a2):
                for a4 in range(16 - a1 - a2 - a3):
                    for a5 in range(16 - a1 - a2 - a3 - a4):
                        for a6 in range(16 - a1 - a2 - a3 - a4 - a5):
                            c[1] = a1
                            c[2] = a2
                            c[3] = a3
                            c[4] = a4
                            c[5] = a5
                            c[6] = a6
                            i = rank(c)
                            pos[i, :] = c
                            pips[i] = a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6
    return pos, pips


@njit(cache=True)
def _build(terminal_below, n_turns):
    """``(dist[N, n_turns], mean[N])``: rolls until fewer than ``terminal_below`` checkers are
    on the board (1: all off; 15: the first one off), each roll minimising the mean."""
    pos, pips = _positions()
    order = np.argsort(pips)
    n = N_POSITIONS
    dist = np.zeros((n, n_turns))
    mean = np.zeros(n)
    c = np.zeros(N_POINTS + 1, dtype=np.int64)
    for oi in range(n):
        i = order[oi]
        on = 0
        for k in range(1, N_POINTS + 1):
            c[k] = pos[i, k]
            on += c[k]
        c[0] = 0
        if on < terminal_below:
            dist[i, 0] = 1.0
            continue
        m = 0.0
        for r in range(21):
            w = (1.0 if _R1[r] == _R2[r] else 2.0) / 36.0
            j = _best_play(c, _R1[r], _R2[r], mean, on)
            m += w * (1.0 + mean[j])
            for t in range(n_turns - 1):
                dist[i, t + 1] += w * dist[j, t]
        mean[i] = m
    return dist, mean


def build() -> tuple[np.ndarray, np.ndarray]:
    """Compute ``(P, G)``, each ``float64[N_POSITIONS, N_TURNS]`` (see the module docstring).

    Raises ``RuntimeError`` if a distribution would not fit in ``N_TURNS`` rolls.
    """
    p, _ = _build(1, _BUILD_TURNS)
    g, _ = _build(N_CHECKERS, _BUILD_TURNS)
    for name, a in (("P", p), ("G", g)):
        if np.any(a[:, N_TURNS:] > 0):
            raise RuntimeError(f"bear-off database: {name} needs more than {N_TURNS} turns")
    return np.ascontiguousarray(p[:, :N_TURNS]), np.ascontiguousarray(g[:, :N_TURNS])


def _load(path: Path):
    """The flat database from ``path``, or None (with a line on stderr if it is damaged)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if int(z["version"]) != VERSION:
                return None
            db = np.ascontiguousarray(z["db"], dtype=np.float64)
    except (OSError, KeyError, ValueError, EOFError) as exc:
        print(f"playout: {path}: unreadable bear-off database ({exc}); rebuilding it",
              file=sys.stderr)
        return None
    # every row of P and of G sums to 1
    if db.shape != (DB_LEN,) or abs(db.sum() - 2 * N_POSITIONS) > 1e-6:
        print(f"playout: {path}: bear-off database has the wrong size or sums; rebuilding it",
              file=sys.stderr)
        return None
    return db


def _save(path: Path, db) -> bool:
    return write_atomic(path, lambda f: np.savez_compressed(f, version=np.int64(VERSION), db=db))


_DB: np.ndarray | None = None


def database() -> np.ndarray:
    """The flat ``float64[DB_LEN]`` database (row ``i`` at ``i * STRIDE``: ``P[i]``, then
    ``G[i]``), loaded once per process from the cache file, built (and cached) if missing."""
    global _DB
    if _DB is None:
        path = cache_dir() / "bearoff1.npz"
        db = _load(path) if path.exists() else None
        if db is None:
            t0 = time.perf_counter()
            p, g = build()
            db = np.ascontiguousarray(np.concatenate([p, g], axis=1).reshape(-1))
            saved = _save(path, db)
            dt = time.perf_counter() - t0
            if dt > 2.0:
                where = f"cached in {path}" if saved else f"not cached: {path.parent} is not writable"
                print(f"playout: built the bear-off database in {dt:.1f} s ({where})",
                      file=sys.stderr)
        _DB = db
    return _DB


@njit(cache=True)
def bearoff_probs(db, board, flipped, out):
    """``out[5]`` for the side to act in pure bear-off board26 ``board`` (or in ``flip(board)``
    with ``flipped``): P(win), P(win gammon), 0, P(lose gammon), 0 (module docstring)."""
    me = side_index(board, flipped) * STRIDE
    op = side_index(board, not flipped) * STRIDE
    win = 0.0
    wg = 0.0
    lg = 0.0
    s_op = 0.0  # P(opp needs >= t)
    sg_op = 0.0  # P(opp's first checker needs >= t)
    sg_me = 0.0  # P(my first checker needs > t)
    for t in range(N_TURNS - 1, -1, -1):
        s_op += db[op + t]
        sg_op += db[op + N_TURNS + t]
        pm = db[me + t]
        win += pm * s_op
        wg += pm * sg_op
        lg += db[op + t] * sg_me
        sg_me += db[me + N_TURNS + t]
    win = min(win, 1.0)  # sums of products may pass 1 by a rounding
    out[0] = win
    out[1] = min(wg, win)
    out[2] = 0.0
    out[3] = min(lg, 1.0 - win)
    out[4] = 0.0


# -- Python helpers ---------------------------------------------------------------------------

def _counts(counts) -> np.ndarray:
    c = [int(v) for v in counts]
    if len(c) > N_POINTS or any(v < 0 for v in c) or sum(c) > N_CHECKERS:
        raise ValueError(f"bear-off position {list(counts)}: expected up to 6 non-negative "
                         f"counts (points 1..6) with at most 15 checkers")
    arr = np.zeros(N_POINTS + 1, dtype=np.int64)
    arr[1:1 + len(c)] = c
    return arr


def index(counts) -> int:
    """Database index of ``counts`` (checkers on points 1, 2, ...; up to 6 numbers)."""
    return int(rank(_counts(counts)))


def position(i: int) -> list[int]:
    """The counts on points 1..6 of database index ``i`` (inverse of :func:`index`)."""
    if not 0 <= i < N_POSITIONS:
        raise ValueError(f"bear-off index {i}: expected 0..{N_POSITIONS - 1}")
    m = N_CHECKERS
    out = [0] * N_POINTS
    for k in range(N_POINTS, 0, -1):
        c = int(np.searchsorted(_OFF[k, m, :m + 2], i, side="right")) - 1
        out[k - 1] = c
        i -= int(_OFF[k, m, c])
        m -= c
    return out


def distributions(counts) -> tuple[np.ndarray, np.ndarray]:
    """``(P, G)``: float64[N_TURNS] roll distributions of one-sided position ``counts``."""
    row = database()[index(counts) * STRIDE:(index(counts) + 1) * STRIDE]
    return row[:N_TURNS].copy(), row[N_TURNS:].copy()


def expected_rolls(counts) -> float:
    """Mean number of rolls to bear off ``counts`` with the plays that minimise it."""
    p, _ = distributions(counts)
    return float(np.dot(np.arange(N_TURNS), p))


def evaluate(board) -> np.ndarray:
    """``float64[5]`` for the side to act in pure bear-off board26 ``board`` (ValueError if
    it is not one: see :func:`playout.backgammon.classes.is_bearoff`)."""
    from playout.backgammon.board import as_board, game_result
    from playout.backgammon.classes import is_bearoff

    b = as_board(board)
    if not is_bearoff(b) or game_result(b) != 0:
        raise ValueError("bear-off database: the board is not a pure bear-off in progress "
                         "(both sides' checkers on their own points 1-6 or off, none on the bar)")
    out = np.zeros(5)
    bearoff_probs(database(), b, False, out)
    return out


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__))
