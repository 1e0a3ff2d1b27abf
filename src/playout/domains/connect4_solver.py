"""Exact Connect 4 solver: negamax with alpha-beta, a transposition table and
move ordering over bitboards (numba).

The method is Pascal Pons' "Solving Connect 4: how to build a perfect AI"
(blog.gamesolver.org, 2017), the same author as the shared test sets
``../shared/data/connect4/Test_L*_R*``; this is our own numba implementation of
it:

* bitboard per position: ``position`` (stones of the side to move) and
  ``mask`` (all stones); bit ``col * 7 + row`` (row 0 = bottom; the 7th bit of
  each column is an always-empty sentinel, so that shifts do not wrap);
* negamax with alpha-beta pruning, searching only moves that do not hand the
  opponent an immediate win, and ordered by the number of winning spots they
  create (ties: centre columns first);
* a transposition table of upper bounds keyed by ``position + mask`` (unique
  per position);
* an iterative null-window search on the score (``solve``).

Score convention (Pons', that of the shared test files): from the side to
move, ``22 - k`` for a win with its ``k``-th stone, ``0`` for a draw,
``-(22 - k)`` for a loss against the opponent's ``k``-th stone.  So a win on the
next move with ``n`` stones already played scores ``(43 - n) // 2``.

>>> solve_moves("4455667")  # the first player has already won
Traceback (most recent call last):
...
ValueError: move 7 of '4455667' ends the game; nothing to solve
>>> solve_moves("445566")   # the side to move (first player) wins now with its 4th stone
18
"""

from __future__ import annotations

import numpy as np
from numba import njit

WIDTH = 7
HEIGHT = 6
H1 = HEIGHT + 1
CELLS = WIDTH * HEIGHT
MIN_SCORE = -(CELLS // 2) + 3  # -18: fastest possible loss
MAX_SCORE = (CELLS + 1) // 2 - 3  # 18: fastest possible win

#: Transposition table size: a prime just above 2**22 (Pons uses one near 2**23).
TT_SIZE = 4194319

_BOTTOM = 0
for _c in range(WIDTH):
    _BOTTOM |= 1 << (_c * H1)
BOTTOM_MASK = np.int64(_BOTTOM)
BOARD_MASK = np.int64(_BOTTOM * ((1 << HEIGHT) - 1))
#: column exploration order: centre first.
COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)


@njit(cache=True, inline="always")
def top_mask_col(col):
    return np.int64(1) << np.int64(HEIGHT - 1 + col * H1)


@njit(cache=True, inline="always")
def bottom_mask_col(col):
    return np.int64(1) << np.int64(col * H1)


@njit(cache=True, inline="always")
def column_mask(col):
    return np.int64((1 << HEIGHT) - 1) << np.int64(col * H1)


@njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative int64."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def winning_spots(position, mask):
    """Empty cells (bitboard) where the owner of ``position`` would complete a four."""
    # vertical: three below
    r = (position << 1) & (position << 2) & (position << 3)
    # horizontal (shift H1), diagonals (shift HEIGHT and HEIGHT + 2)
    for s in (H1, HEIGHT, HEIGHT + 2):
        p = (position << s) & (position << (2 * s))
        r |= p & (position << (3 * s))
        r |= p & (position >> s)
        p = (position >> s) & (position >> (2 * s))
        r |= p & (position << s)
        r |= p & (position >> (3 * s))
    return r & (BOARD_MASK ^ mask)


@njit(cache=True, inline="always")
def possible(mask):
    """Bitboard of the cells where a stone can be dropped now."""
    return (mask + BOTTOM_MASK) & BOARD_MASK


@njit(cache=True)
def is_alignment(pos):
    """Whether bitboard ``pos`` holds four in a row."""
    for s in (1, H1, HEIGHT, HEIGHT + 2):
        m = pos & (pos >> s)
        if m & (m >> (2 * s)):
            return True
    return False


@njit(cache=True)
def can_win_next(position, mask):
    return (winning_spots(position, mask) & possible(mask)) != 0


@njit(cache=True)
def non_losing_moves(position, mask):
    """Playable cells that do not let the opponent win at once (0: all moves lose)."""
    pm = possible(mask)
    opp_win = winning_spots(position ^ mask, mask)
    forced = pm & opp_win
    if forced:
        if forced & (forced - 1):  # two threats: lost
            return np.int64(0)
        pm = forced
    return pm & ~(opp_win >> 1)  # never play just below an opponent's winning cell


@njit(cache=True)
def _tdiv2(x):
    """x / 2 truncated toward zero (C semantics, as in Pons' code)."""
    return -((-x) // 2) if x < 0 else x // 2


@njit(cache=True)
def negamax(position, mask, moves, alpha, beta, tt_keys, tt_vals, counter):
    """Score of a non-terminal position that the side to move cannot win at once,
    within the window (alpha, beta): exact inside, a bound outside."""
    counter[0] += 1
    nxt = non_losing_moves(position, mask)
    if nxt == 0:
        return -((CELLS - moves) // 2)
    if moves >= CELLS - 2:
        return 0
    lo = -((CELLS - 2 - moves) // 2)
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (CELLS - 1 - moves) // 2
    key = position + mask
    idx = key % TT_SIZE
    if tt_keys[idx] == key:
        hi = np.int64(tt_vals[idx]) + MIN_SCORE - 1
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    # move ordering: score = number of winning spots after the move
    cand = np.empty(WIDTH, dtype=np.int64)
    scores = np.empty(WIDTH, dtype=np.int64)
    n = 0
    for i in range(WIDTH - 1, -1, -1):
        mv = nxt & column_mask(COLUMN_ORDER[i])
        if mv:
            sc = popcount(winning_spots(position | mv, mask))
            # insertion sort, descending; later-added equal scores go first
            j = n
            while j > 0 and scores[j - 1] > sc:
                cand[j] = cand[j - 1]
                scores[j] = scores[j - 1]
                j -= 1
            cand[j] = mv
            scores[j] = sc
            n += 1
    # the sort above is ascending; explore from the end (highest score first)
    for k in range(n - 1, -1, -1):
        mv = cand[k]
        p2 = position ^ mask  # opponent's stones become "position" after the move
        m2 = mask | mv
        score = -negamax(p2, m2, moves + 1, -beta, -alpha, tt_keys, tt_vals, counter)
        if score >= beta:
            return score
        if score > alpha:
            alpha = score
    tt_keys[idx] = key
    tt_vals[idx] = alpha - MIN_SCORE + 1
    return alpha


@njit(cache=True)
def solve_bitboard(position, mask, moves, tt_keys, tt_vals, counter):
    """Exact score of a non-terminal position for the side to move (see module doc)."""
    if can_win_next(position, mask):
        return (CELLS + 1 - moves) // 2
    lo = -((CELLS - moves) // 2)
    hi = (CELLS + 1 - moves) // 2
    while lo < hi:
        med = lo + _tdiv2(hi - lo)
        if med <= 0 and _tdiv2(lo) < med:
            med = _tdiv2(lo)
        elif med >= 0 and _tdiv2(hi) > med:
            med = _tdiv2(hi)
        r = negamax(position, mask, moves, med, med + 1, tt_keys, tt_vals, counter)
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def move_scores_bitboard(position, mask, moves, tt_keys, tt_vals, counter, out):
    """Exact score of each column's move (from the mover's view) into ``out`` (7,).

    Full columns get -1000.  A move that wins at once scores ``(43 - moves) // 2``;
    a move that fills the board without a win scores 0.
    """
    for col in range(WIDTH):
        out[col] = -1000
        if mask & top_mask_col(col):
            continue
        mv = (mask + bottom_mask_col(col)) & column_mask(col)
        if is_alignment(position | mv):
            out[col] = (CELLS + 1 - moves) // 2
        elif moves + 1 >= CELLS:
            out[col] = 0
        else:
            out[col] = -solve_bitboard(position ^ mask, mask | mv, moves + 1, tt_keys, tt_vals, counter)


class Solver:
    """A reusable exact solver holding its transposition table (about 38 MB).

    The table stores upper bounds that are properties of positions, so it stays
    valid across positions and is kept between calls.
    """

    def __init__(self) -> None:
        self.tt_keys = np.full(TT_SIZE, -1, dtype=np.int64)
        self.tt_vals = np.zeros(TT_SIZE, dtype=np.int8)
        self.counter = np.zeros(1, dtype=np.int64)

    def solve(self, moves: str) -> int:
        """Exact score of the position after ``moves`` (columns 1-7) for the side to move.

        Raises ``ValueError`` on a bad character, a full column, or a game already over.
        """
        position, mask, n = bitboard_from_moves(moves)
        return int(solve_bitboard(position, mask, n, self.tt_keys, self.tt_vals, self.counter))

    def move_scores(self, moves: str) -> list[int | None]:
        """Exact score of each of the 7 columns' moves (None for a full column)."""
        position, mask, n = bitboard_from_moves(moves)
        out = np.empty(WIDTH, dtype=np.int64)
        move_scores_bitboard(position, mask, n, self.tt_keys, self.tt_vals, self.counter, out)
        return [None if v == -1000 else int(v) for v in out]

    @property
    def nodes(self) -> int:
        """Negamax nodes searched so far."""
        return int(self.counter[0])


def bitboard_from_moves(moves: str) -> tuple[int, int, int]:
    """``(position, mask, n_moves)`` after ``moves``, a string of columns 1-7.

    Raises ``ValueError`` naming the move index on a bad character, a full
    column, or a move after (or completing) a four.
    """
    position = 0  # stones of the side to move
    mask = 0
    moves = moves.strip()
    for i, ch in enumerate(moves):
        if ch not in "1234567":
            raise ValueError(f"move {i + 1} of {moves!r}: {ch!r} is not a column 1-7")
        col = int(ch) - 1
        if mask & (1 << (HEIGHT - 1 + col * H1)):
            raise ValueError(f"move {i + 1} of {moves!r}: column {ch} is full")
        mv = (mask + (1 << (col * H1))) & (((1 << HEIGHT) - 1) << (col * H1))
        if bool(is_alignment(np.int64(position | mv))):
            raise ValueError(f"move {i + 1} of {moves!r} ends the game; nothing to solve")
        position ^= mask
        mask |= mv
    return position, mask, len(moves)


_DEFAULT: Solver | None = None


def solve_moves(moves: str) -> int:
    """Exact score of the position after ``moves`` with a module-wide solver."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Solver()
    return _DEFAULT.solve(moves)


def read_test_file(path) -> list[tuple[str, int]]:
    """Parse a Pons test file: lines ``<moves 1-7> <score>``.

    Raises ``ValueError`` naming the file and line on a malformed line.
    """
    out = []
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2 or not parts[0].isdigit():
                raise ValueError(f"{path}:{lineno}: expected '<moves> <score>', got {line.strip()!r}")
            try:
                out.append((parts[0], int(parts[1])))
            except ValueError:
                raise ValueError(f"{path}:{lineno}: score {parts[1]!r} is not an integer") from None
    return out
