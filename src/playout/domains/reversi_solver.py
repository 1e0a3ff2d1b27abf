"""Exact Othello endgame solver: negamax with alpha-beta over bitboards (numba).

The oracle for Monte Carlo searches from Reversi endgames: it gives the
perfect-play final disc differential of every move of a position.

Method (the standard endgame solver, as in Edax or Buro's ``Zebra``-era
programs; our own numba implementation):

* bitboards ``own`` / ``opp`` (uint64, bit ``row * 8 + col`` as in
  :mod:`playout.domains.reversi_nb`, whose move generation and flips it uses);
* fail-soft negamax with alpha-beta; a player without a move passes, the game
  ends when neither side can move;
* move ordering: the transposition table's best move first, then *fastest
  first* (fewest replies for the opponent, corner replies counted twice, our
  own corner moves a step earlier) while more than
  :data:`SHALLOW` squares are empty; nearer the end (:func:`shallow`) no move
  generation or table, each empty square tried in turn, those of quadrants
  holding an odd number of empties first (*parity*);
* the exact score by null-window probes (:func:`solve_exact`, MTD(f));
* a transposition table (``2**TT_BITS`` entries, always-replace) of lower and
  upper bounds and the best move, keyed by both bitboards, for positions with
  at least :data:`TT_MIN_EMPTIES` empties;
* the last empty square is scored directly (no move generation).

Score convention (FFO / ``.obf`` files, World Othello Federation rules): the
final disc differential from the side to move, empty squares counted for the
winner (so a win with ``b`` of the opponent's discs left scores ``64 - 2 b``, a
draw 0); every score is even.  Its sign is the game-theoretic result, which the
MCTS reward ``(mover - opponent) / 64`` (empties not awarded) shares.

>>> from playout.domains.reversi import parse_obf
>>> pos = parse_obf("XXXOXXXXOXXXXXXXOOXXXXXXOOOXXXXXOOOXXOO-OOOOO---OOOOOOO-OOOOOOO- X;")
>>> s = Solver()
>>> s.solve(pos.state)
6
>>> {Reversi.action_name(a): v for a, v in s.move_scores(pos.state).items()}
{'h5': 6, 'f6': -4, 'g6': -2, 'h6': -10}
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.domains import reversi_nb
from playout.domains.reversi import PASS, Reversi, ReversiState
from playout.domains.reversi_nb import flips_of, moves_of, popcount, to_array, trailing_zeros
from playout.jitcache import flush_stale_caches

#: transposition table size, log2 (about 18 bytes an entry: 75 MB at 22).
TT_BITS = 22
#: positions with fewer empties are not stored in the table.
TT_MIN_EMPTIES = 7
#: at or below this many empties, :func:`shallow` searches (parity order, no table).
SHALLOW = 6

_U0 = np.uint64(0)
_U1 = np.uint64(1)

_CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)
#: the four 4 x 4 quadrants (parity ordering).
QUADRANTS = np.array([0x0F0F0F0F, 0xF0F0F0F0, 0x0F0F0F0F << 32, 0xF0F0F0F0 << 32], dtype=np.uint64)
#: bonus (in replies) subtracted for a corner move in fastest-first ordering.
_CORNER_BONUS = 1


@njit(cache=True, inline="always")
def final_score(own, opp):
    """Final disc differential for ``own``'s owner, empties to the winner."""
    a = popcount(own)
    b = popcount(opp)
    if a > b:
        return 64 - 2 * b
    if a < b:
        return 2 * a - 64
    return 0


@njit(cache=True)
def _last_square(own, opp, sq):
    """Exact score with exactly one empty square ``sq``, ``own`` to move."""
    f = flips_of(own, opp, sq)
    if f:
        return final_score(own | f | (_U1 << np.uint64(sq)), opp & ~f)
    f = flips_of(opp, own, sq)
    if f:  # own passes, opp fills the square
        return final_score(own & ~f, opp | f | (_U1 << np.uint64(sq)))
    return final_score(own, opp)


_SHALLOW_SIG = "int64(uint64, uint64, int64, int64, int64, int64[::1])"


@njit(_SHALLOW_SIG, cache=True)
def shallow(own, opp, alpha, beta, empties, counter):
    """Exact score within ``(alpha, beta)`` (fail-soft) near the end: no table, no move
    generation; each empty square is tried in turn, those in quadrants with an
    odd number of empties first (parity ordering)."""
    counter[0] += 1
    empty = ~(own | opp)
    if empties == 1:
        return _last_square(own, opp, trailing_zeros(empty))
    odd = _U0
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & 1:
            odd |= QUADRANTS[q]
    best = -1000
    for group in range(2):
        m = empty & odd if group == 0 else empty & ~odd
        while m:
            low = m & (~m + _U1)
            sq = trailing_zeros(m)
            m ^= low
            f = flips_of(own, opp, sq)
            if f == _U0:
                continue
            v = -shallow(opp & ~f, own | f | low, -beta, -alpha, empties - 1, counter)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        return best
    if best == -1000:  # no move: pass, or the game is over
        if moves_of(opp, own) == _U0:
            return final_score(own, opp)
        return -shallow(opp, own, -beta, -alpha, empties, counter)
    return best


@njit(cache=True, inline="always")
def _tt_index(own, opp, mask):
    h = own * np.uint64(0x9E3779B97F4A7C15) ^ (opp + np.uint64(0x632BE59BD9B4E019)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask)


# One explicit signature: a recursive function compiled for several argument types
# (literal windows) segfaults when loaded from numba's cache (numba issue #6713).
_NEGAMAX_SIG = ("int64(uint64, uint64, int64, int64, int64, uint64[::1], uint64[::1], int8[::1], int8[::1], "
                "int8[::1], int64[:, ::1], int64[:, ::1], int64[::1])")


@njit(_NEGAMAX_SIG, cache=True)
def negamax(own, opp, alpha, beta, empties, tt_own, tt_opp, tt_lo, tt_hi, tt_move, mv_buf, sc_buf,
            counter):
    """Exact score within ``(alpha, beta)`` of the position ``own`` to move (fail-soft:
    a result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound).

    ``empties`` = number of empty squares; ``mv_buf`` / ``sc_buf`` are (61, 32)
    scratch rows indexed by it.
    """
    if empties <= SHALLOW:
        return shallow(own, opp, alpha, beta, empties, counter)
    counter[0] += 1
    moves = moves_of(own, opp)
    if moves == _U0:
        if moves_of(opp, own) == _U0:
            return final_score(own, opp)
        return -negamax(opp, own, -beta, -alpha, empties, tt_own, tt_opp, tt_lo, tt_hi, tt_move,
                        mv_buf, sc_buf, counter)
    use_tt = empties >= TT_MIN_EMPTIES
    idx = 0
    hint = -1
    if use_tt:
        idx = _tt_index(own, opp, np.uint64(tt_own.shape[0] - 1))
        if tt_own[idx] == own and tt_opp[idx] == opp:
            lo = np.int64(tt_lo[idx])
            hi = np.int64(tt_hi[idx])
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            hint = np.int64(tt_move[idx])
    alpha0 = alpha
    best = -1000
    best_sq = -1
    n = 0
    # fastest first: fewest opponent replies after the move
    m = moves
    while m:
        low = m & (~m + _U1)
        sq = trailing_zeros(m)
        m ^= low
        f = flips_of(own, opp, sq)
        no = opp & ~f
        nown = own | f | low
        om = moves_of(no, nown)
        sc = popcount(om) + popcount(om & np.uint64(_CORNERS))  # opponent corners count twice
        if low & np.uint64(_CORNERS):
            sc -= _CORNER_BONUS
        if sq == hint:
            sc = -100
        mv_buf[empties, n] = sq
        sc_buf[empties, n] = sc
        n += 1
    for i in range(n):
        # pick the lowest remaining score (selection sort, lazily)
        k = i
        for j in range(i + 1, n):
            if sc_buf[empties, j] < sc_buf[empties, k]:
                k = j
        if k != i:
            t = mv_buf[empties, i]
            mv_buf[empties, i] = mv_buf[empties, k]
            mv_buf[empties, k] = t
            t = sc_buf[empties, i]
            sc_buf[empties, i] = sc_buf[empties, k]
            sc_buf[empties, k] = t
        sq = mv_buf[empties, i]
        f = flips_of(own, opp, sq)
        v = -negamax(opp & ~f, own | f | (_U1 << np.uint64(sq)), -beta, -alpha, empties - 1,
                     tt_own, tt_opp, tt_lo, tt_hi, tt_move, mv_buf, sc_buf, counter)
        if v > best:
            best = v
            best_sq = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if use_tt:
        if tt_own[idx] != own or tt_opp[idx] != opp:
            tt_own[idx] = own
            tt_opp[idx] = opp
            tt_lo[idx] = -64
            tt_hi[idx] = 64
        if best <= alpha0:  # fail low: an upper bound
            if best < tt_hi[idx]:
                tt_hi[idx] = best
        elif best >= beta:  # fail high: a lower bound
            if best > tt_lo[idx]:
                tt_lo[idx] = best
        else:
            tt_lo[idx] = best
            tt_hi[idx] = best
        tt_move[idx] = best_sq
    return best


@njit(cache=True)
def solve_window(own, opp, alpha, beta, tt_own, tt_opp, tt_lo, tt_hi, tt_move, mv_buf, sc_buf, counter):
    """:func:`negamax` from a root (counts the empties)."""
    empties = 64 - popcount(own | opp)
    if empties == 0:
        return final_score(own, opp)
    return negamax(own, opp, alpha, beta, empties, tt_own, tt_opp, tt_lo, tt_hi, tt_move, mv_buf, sc_buf,
                   counter)


@njit(cache=True)
def solve_exact(own, opp, tt_own, tt_opp, tt_lo, tt_hi, tt_move, mv_buf, sc_buf, counter):
    """Exact score of ``own`` to move by null-window probes (MTD(f), Plaat et al. 1996):
    each probe ``(m - 1, m)`` tells whether the score is at least ``m``; its fail-soft
    result is a new bound, and the next probe sits just beyond it.  The first probe is
    at 0 (win / draw / loss); scores are even, so the bounds meet."""
    lo = np.int64(-64)
    hi = np.int64(64)
    m = np.int64(0)
    while lo < hi:
        r = solve_window(own, opp, m - 1, m, tt_own, tt_opp, tt_lo, tt_hi, tt_move, mv_buf, sc_buf, counter)
        if r >= m:
            lo = r
        else:
            hi = r
        # MTD(f): the next probe just beyond the last bound found
        m = lo + 2 if r >= m else r
        if m > hi:
            m = hi
        if m <= lo:
            m = lo + 2
    return lo


class Solver:
    """A reusable exact Othello solver holding its transposition table.

    Table entries are exact facts about positions (bounds on their score), so
    the table stays valid across calls and positions.  Memory: about
    ``18 * 2**tt_bits`` bytes (75 MB at the default 22).
    """

    def __init__(self, tt_bits: int = TT_BITS) -> None:
        if not 10 <= tt_bits <= 28:
            raise ValueError(f"tt_bits must be in 10..28, got {tt_bits}")
        size = 1 << tt_bits
        self.tt_own = np.zeros(size, dtype=np.uint64)
        self.tt_opp = np.zeros(size, dtype=np.uint64)  # (0, 0) is no reachable position
        self.tt_lo = np.zeros(size, dtype=np.int8)
        self.tt_hi = np.zeros(size, dtype=np.int8)
        self.tt_move = np.zeros(size, dtype=np.int8)
        self.mv_buf = np.zeros((61, 32), dtype=np.int64)
        self.sc_buf = np.zeros((61, 32), dtype=np.int64)
        self.counter = np.zeros(1, dtype=np.int64)

    def _args(self):
        return (self.tt_own, self.tt_opp, self.tt_lo, self.tt_hi, self.tt_move, self.mv_buf, self.sc_buf,
                self.counter)

    @staticmethod
    def _boards(state: ReversiState) -> tuple[np.uint64, np.uint64]:
        arr = to_array(state)[:2].view(np.uint64)
        p = state.to_play
        return arr[p], arr[1 - p]

    def solve_boards(self, own: int, opp: int) -> int:
        """Exact score (see module doc) of the position ``own`` (bitboard) to move."""
        return int(solve_exact(np.uint64(own), np.uint64(opp), *self._args()))

    def solve(self, state: ReversiState) -> int:
        """Exact final disc differential for ``state.to_play`` (empties to the winner).

        A finished game scores its final position.
        """
        own, opp = self._boards(state)
        return self.solve_boards(own, opp)

    def move_scores(self, state: ReversiState) -> dict[int, int]:
        """Exact score of each legal action (square index, or :data:`PASS` when it is the
        only one) from the mover's view, in the order of ``Reversi().actions``; ``{}``
        when the game is over."""
        game = Reversi()
        out = {}
        for a in game.actions(state):
            out[a] = -self.solve(game.transition(state, a))
        return out

    def best_moves(self, state: ReversiState) -> list[int]:
        """The actions of the highest exact score (all of them tied)."""
        scores = self.move_scores(state)
        top = max(scores.values(), default=None)
        return [a for a, v in scores.items() if v == top]

    @property
    def nodes(self) -> int:
        """Negamax nodes searched so far."""
        return int(self.counter[0])


# the kernels inline reversi_nb's primitives: drop their caches if it changed
flush_stale_caches(globals(), [reversi_nb.__file__])

__all__ = ["Solver", "final_score", "negamax", "solve_exact", "PASS"]
