"""Legal plays (numba): every distinct board a roll can lead to.

Rules (standard backgammon, as in gnubg's ``GenerateMoves``): a checker on the
bar must enter first (die ``d`` enters on point ``25 - d``); a point holding two
or more opponent checkers is blocked; landing on a single opponent checker hits
it onto the opponent's bar; once all the mover's checkers are in points 1-6 they
may bear off, with an exact die or, when no checker stands on a higher point, a
larger one.  Both dice must be played if any sequence allows it, otherwise the
larger die if it can be played, else the smaller; doubles are played four times
(as many as possible).  Different sequences that reach the same board count once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.board import flip  # noqa: F401  (re-exported)

#: Capacity of the move buffer (the largest count seen for any roll is < 1,000).
MAX_MOVES = 4096
_HSIZE = 8192
_HMASK = _HSIZE - 1


@njit(cache=True, inline="always")
def _can_move(b, src, die):
    """Whether the mover may move a checker from ``src`` (25 = bar) by ``die``."""
    if b[src] <= 0:
        return False
    if src != 25 and b[25] > 0:
        return False
    dst = src - die
    if dst >= 1:
        return b[dst] >= -1
    # bearing off: all checkers home (points 1..6), none on the bar
    for p in range(7, 26):
        if b[p] > 0:
            return False
    if dst == 0:
        return True
    for p in range(src + 1, 7):
        if b[p] > 0:
            return False
    return True


@njit(cache=True, inline="always")
def _apply(b, src, die):
    """A copy of ``b`` with a checker moved from ``src`` by ``die`` (legality assumed)."""
    nb = b.copy()
    nb[src] -= 1
    dst = src - die
    if dst >= 1:
        if nb[dst] == -1:
            nb[dst] = 1
            nb[0] += 1
        else:
            nb[dst] += 1
    return nb


#: Zobrist keys: point i holding v checkers (v in -15..15) -> a random 64-bit word (fixed seed).
_ZOB = np.random.default_rng(20261130).integers(0, 2**63 - 1, size=(26, 31), dtype=np.int64).astype(np.uint64)


@njit(cache=True, inline="always")
def _hash(b):
    h = np.uint64(0)
    for i in range(26):
        h ^= _ZOB[i, int(b[i]) + 15]
    return h


@njit(cache=True, inline="always")
def _rehash(h, w, i, old):
    """Update a Zobrist hash after point ``i`` changed from ``old`` to ``w[i]``."""
    return h ^ _ZOB[i, old + 15] ^ _ZOB[i, int(w[i]) + 15]


@njit(cache=True, inline="always")
def _do_h(w, src, die, h):
    """:func:`_do` that also updates the Zobrist hash; returns (hit, new hash)."""
    dst = src - die
    o_src = int(w[src])
    if dst >= 1:
        o_dst = int(w[dst])
        o_bar = int(w[0])
        hit = _do(w, src, die)
        h = _rehash(h, w, src, o_src)
        h = _rehash(h, w, dst, o_dst)
        if hit:
            h = _rehash(h, w, 0, o_bar)
        return hit, h
    hit = _do(w, src, die)
    return hit, _rehash(h, w, src, o_src)


@njit(cache=True)
def _add(b, out, n, table, hashes, slots):
    """Insert ``b`` into ``out[:n]`` unless present; returns the new count."""
    return _add_h(b, _hash(b), out, n, table, hashes, slots)


@njit(cache=True)
def _add_h(b, h, out, n, table, hashes, slots):
    """:func:`_add` with the board's hash given."""
    slot = np.int64(h & np.uint64(_HMASK))
    while table[slot] >= 0:
        j = table[slot]
        if hashes[j] == h:
            same = True
            for i in range(26):
                if out[j, i] != b[i]:
                    same = False
                    break
            if same:
                return n
        slot = (slot + 1) & _HMASK
    if n >= out.shape[0]:
        return n  # cannot happen for legal boards (capacity 4096)
    out[n, :] = b
    hashes[n] = h
    table[slot] = n
    slots[n] = slot
    return n + 1


@njit(cache=True, inline="always")
def _clear(table, slots, n):
    """Empty the hash table (only the slots the first ``n`` entries used)."""
    for i in range(n):
        table[slots[i]] = -1


@njit(cache=True)
def new_workspace():
    """(table, hashes, slots) work arrays for :func:`legal_moves_ws` (reusable across calls)."""
    return (np.full(_HSIZE, -1, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.uint64),
            np.zeros(MAX_MOVES, dtype=np.int64))


@njit(cache=True)
def legal_moves_into(board, d1, d2, out):
    """Fill ``out[:n]`` with the distinct boards reachable with dice ``d1, d2``; return n.

    ``out`` must be ``int8[>=MAX_MOVES, 26]``.  When no checker can move the
    single result is ``board`` unchanged (n = 1).
    """
    table, hashes, slots = new_workspace()
    return legal_moves_ws(board, d1, d2, out, table, hashes, slots)


@njit(cache=True)
def legal_moves_ws(board, d1, d2, out, table, hashes, slots):
    """:func:`legal_moves_into` with a caller's workspace from :func:`new_workspace`.

    The hash table is left empty on return, ready for the next call.
    """
    n = legal_moves_core(board, d1, d2, out, table, hashes, slots)
    _clear(table, slots, n if not (n == 1 and slots[0] < 0) else 0)
    return n


@njit(cache=True, inline="always")
def _do(w, src, die):
    """Move a checker in place; returns 1 if it hit a blot (for :func:`_undo`)."""
    w[src] -= 1
    dst = src - die
    if dst >= 1:
        if w[dst] == -1:
            w[dst] = 1
            w[0] += 1
            return 1
        w[dst] += 1
    return 0


@njit(cache=True, inline="always")
def _undo(w, src, die, hit):
    dst = src - die
    if dst >= 1:
        if hit:
            w[dst] = -1
            w[0] -= 1
        else:
            w[dst] -= 1
    w[src] += 1


# legal_moves_core calls these two instead of inlining them at numba-IR level: seven inlined
# copies of each made it the costliest compile of a first ``bg`` command (~5 s CPU of its
# ~20 s); LLVM still inlines them where it pays (same speed, benchmarks/bg_speed.py).
@njit(cache=True)
def _can_move_c(b, src, die):
    return _can_move(b, src, die)


@njit(cache=True)
def _do_h_c(w, src, die, h):
    return _do_h(w, src, die, h)


@njit(cache=True)
def legal_moves_core(board, d1, d2, out, table, hashes, slots):
    """The generator behind :func:`legal_moves_ws` (in-place do/undo on one work board)."""
    n = 0
    slots[0] = -1
    w = board.copy()
    h0 = _hash(w)
    if d1 == d2:
        d = d1
        # depth-first over up to four plays; sources non-increasing avoids
        # re-ordering the same plays (high-first is always at least as legal)
        best = 0
        for s1 in range(25, 0, -1):
            if not _can_move_c(w, s1, d):
                continue
            h1, z1 = _do_h_c(w, s1, d, h0)
            if best < 1:
                best = 1
                _clear(table, slots, n)
                n = 0
            for s2 in range(s1, 0, -1):
                if not _can_move_c(w, s2, d):
                    continue
                h2, z2 = _do_h_c(w, s2, d, z1)
                if best < 2:
                    best = 2
                    _clear(table, slots, n)
                    n = 0
                for s3 in range(s2, 0, -1):
                    if not _can_move_c(w, s3, d):
                        continue
                    h3, z3 = _do_h_c(w, s3, d, z2)
                    if best < 3:
                        best = 3
                        _clear(table, slots, n)
                        n = 0
                    for s4 in range(s3, 0, -1):
                        if not _can_move_c(w, s4, d):
                            continue
                        h4, z4 = _do_h_c(w, s4, d, z3)
                        if best < 4:
                            best = 4
                            _clear(table, slots, n)
                            n = 0
                        n = _add_h(w, z4, out, n, table, hashes, slots)
                        _undo(w, s4, d, h4)
                    if best == 3:
                        n = _add_h(w, z3, out, n, table, hashes, slots)
                    _undo(w, s3, d, h3)
                if best == 2:
                    n = _add_h(w, z2, out, n, table, hashes, slots)
                _undo(w, s2, d, h2)
            if best == 1:
                n = _add_h(w, z1, out, n, table, hashes, slots)
            _undo(w, s1, d, h1)
        if n == 0:
            out[0, :] = board
            n = 1
        return n
    # non-doubles: both orders; keep two-die plays if any exist
    hi = max(d1, d2)
    lo = min(d1, d2)
    n_two = 0
    for order in range(2):
        a = hi if order == 0 else lo
        c = lo if order == 0 else hi
        for s1 in range(25, 0, -1):
            if not _can_move_c(w, s1, a):
                continue
            h1, z1 = _do_h_c(w, s1, a, h0)
            for s2 in range(25, 0, -1):
                if not _can_move_c(w, s2, c):
                    continue
                h2, z2 = _do_h_c(w, s2, c, z1)
                n_two = _add_h(w, z2, out, n_two, table, hashes, slots)
                _undo(w, s2, c, h2)
            _undo(w, s1, a, h1)
    if n_two > 0:
        return n_two
    # only one die can be played: the larger if possible
    for a in (hi, lo):
        for s1 in range(25, 0, -1):
            if _can_move_c(w, s1, a):
                h1, z1 = _do_h_c(w, s1, a, h0)
                n = _add_h(w, z1, out, n, table, hashes, slots)
                _undo(w, s1, a, h1)
        if n > 0:
            return n
    out[0, :] = board
    return 1


def legal_moves(board26, d1: int, d2: int) -> np.ndarray:
    """All distinct boards after playing dice ``d1, d2`` from ``board26``.

    Returns ``np.int8[n, 26]`` from the mover's perspective (not flipped).  When
    the roll cannot be played (e.g. dancing on the bar) the one result is the
    board unchanged.  Raises ``ValueError`` for dice outside 1..6.
    """
    d1 = int(d1)
    d2 = int(d2)
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice: each die must be 1..6, got {d1}{d2}")
    b = np.ascontiguousarray(board26, dtype=np.int8)
    out = np.empty((MAX_MOVES, 26), dtype=np.int8)
    n = legal_moves_into(b, d1, d2, out)
    return out[:n].copy()


def random_play_positions(n_games: int, seed: int) -> list[np.ndarray]:
    """Pre-roll boards (``np.int8[26]``, the side to act) of ``n_games`` games in which both
    sides play a uniformly random legal play (``numpy`` ``default_rng(seed)``): bar entries,
    hits, races and bear-offs that self-play of a strong engine rarely reaches.  Test and
    benchmark material, reproducible from ``seed``."""
    from playout.backgammon.board import STARTING_BOARD, game_result

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        b = STARTING_BOARD.copy()
        while game_result(b) == 0:
            out.append(b)
            ms = legal_moves(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            m = ms[rng.integers(len(ms))]
            if game_result(m) != 0:
                break
            b = flip(m)
    return out


#: The 21 distinct rolls (d1 >= d2) and their probabilities out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS], dtype=np.float64) / 36.0
