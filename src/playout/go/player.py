"""UCT with RAVE over the pattern playouts: a compiled tree (numba arrays), time management, GTP glue.

Search (one simulation): copy the root state (board + incremental values), descend the tree
choosing the child with the best RAVE-UCT score, expand a leaf visited ``expand_after`` times
(one child per move of positive pattern value for the side to move, plus pass), finish with a
playout (:func:`playout.go.playout.run_playout`), and back the result up the path; AMAF
statistics ("all moves as first", Gelly & Silver 2007) update every child of a path node whose
move the same colour played later in the simulation.  Score of a child::

    beta = an / (an + n + n * an / RAVE_K)              (Silver's schedule, RAVE_K = 1000)
    (1 - beta) * wins/n + beta * awins/an + C * sqrt(ln(N + 1) / (n + 1))

with an untried, never-AMAF-sampled child scored ``FPU`` (first-play urgency).  Pass has no AMAF
statistics; it gets a low prior (``PASS_PRIOR``) instead, so it is not tried first at every node.
A playout's result for Black is 1, 0, or 1/2 for a tie (komi 7 allows one; matches count it 1/2).
Two passes in the tree do not score the stones as they stand: the simulation still ends with a
playout, which removes dead stones as the referee (GNU Go's ``final_score``) would.

Positional superko is enforced in the tree: a child whose position repeats one of the game
record or of the path is banned (and the simulation discarded).  Simple ko and suicide are
respected by construction (children are legal moves).  The tree is kept between moves: after
our move and the opponent's reply the matching grandchild becomes the root (when both were
expanded).

Transpositions (on by default; ``Player(transpositions=False)`` / ``--no-transpositions`` turns
them off): the tree is a DAG.  Every record of the node arrays is an *edge* (the move from its
parent position, with that edge's own statistics) that also owns the child *position* once the
position is expanded.  When a leaf record is due for expansion and its position is already
expanded elsewhere in the tree, the record is linked (``NI[LINK]``) to that owner instead of
being expanded, and every later walk through it continues in the owner's children.  Positions
are found through an open-addressing hash table (``Tree.HT``, linear probing) keyed by the
64-bit Zobrist hash including the side to move (``S[META, M_HASH]``), with the simple-ko point
and "the previous move was a pass" XORed in (both change the legal moves or the end of the game
for the same stones), and the key is stored in the owner (``NI[KEY]``) and compared on every hit.

Statistics follow "UCT1" of Childs, Brodeur & Kocsis (2008, "Transpositions and move groups in
Monte Carlo tree search", IEEE CIG): the win rate, visits and AMAF values of a move stay on its
edge, the children of a position (and so their edge statistics) are shared by every path into
it, and the parent count in the exploration term is the position's own count ``NF[NVISITS]``
(all walks through the position, whatever edge they came by).  A simulation is backed up along
the path actually walked only (no propagation to other parents), as in that paper; the UCD
framework of Saffidine, Cazenave & Méhat (2012, "UCD: Upper Confidence bound for rooted Directed
acyclic graphs") parameterises the other choices (means and counts over deeper parts of the
graph), not implemented here.  A walk never enters
the same position twice (a link into a position already on the path ends the descent there).
Superko bans stay on the shared child edges: a child banned for repeating a position of one
path is banned for every path into its parent (the graph-history interaction; rare, and on the
safe side -- it can only hide a move, never allow an illegal one).  With transpositions off
(or before any link) the search is exactly the plain tree search.

Final move: most-visited root child.  Resign when its win rate is below ``resign`` after at least
``min_resign_playouts``; pass when pass is the most-visited child, or when the opponent has just
passed and we win the game as it stands (dead stones from playout ownership).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from playout.jitcache import flush_stale_caches, siblings
from playout.go.board import Board, point_to_gtp
from playout.go.rules import (
    BLACK,
    COLOR,
    EMPTY,
    M_HASH,
    M_MOVES,
    M_N,
    M_NEMPTY,
    M_PASSES,
    M_TOMOVE,
    M_W,
    META,
    PASS,
    VAL,
    WHITE,
    M_KO,
    MAX_SIZE,
    ZOB_WHITE_TO_MOVE,
)
from playout.go.playout import PlayoutState, play_update, playout_score, run_playout
from playout.go.tables import T_VMAX, Table, load_table

# node rows (NI: int64, NF: float64); a record is an edge (MOVE by MOVER, its statistics) and
# the position it leads to: FIRST/NCH its children block, LINK the record owning that position
# (itself unless merged with a transposition), KEY the owner's transposition-table key.
FIRST, NCH, MOVE, MOVER, BANNED, LINK, KEY = 0, 1, 2, 3, 4, 5, 6
NI_ROWS = 7
# NVISITS: simulations through the position this record owns (any incoming edge); it is the
# parent count N of the exploration term and equals VISITS when nothing links to the record
WINS, VISITS, AWINS, AVISITS, NVISITS = 0, 1, 2, 3, 4
NF_ROWS = 5
# tree meta: next free record, root record, table entries, records linked to a transposition
T_NEXT, T_ROOT, T_HCOUNT, T_MERGED = 0, 1, 2, 3
#: the transposition table stops taking new positions at this load factor (lookups go on)
HT_MAX_LOAD = 0.7

#: keys XORed into the Zobrist hash for the simple-ko point (0: no ko) and for "the previous
#: move was a pass" (one more pass ends the game), fixed seed so that keys are reproducible
KO_KEYS = np.random.default_rng(20250611).integers(
    1, 2**63 - 1, size=(MAX_SIZE + 2) ** 2 + 1, dtype=np.int64
)
KO_KEYS[0] = 0
PASSED_KEY = np.int64(0x6A09E667F3BCC909)

RAVE_K = 1000.0
PRIOR_N = 20.0
FPU = 1.1
UCT_C = 0.15
#: AMAF prior rate of the pass child (Fuego/Pachi-style low prior for pass); pass never
#: collects real AMAF statistics, so the prior fades as its own visits grow.
PASS_PRIOR = 0.1


@njit(cache=True, nogil=True)
def black_result(score):
    """Black's result of a finished playout from its score (Black minus White, komi included):
    1 win, 0 loss, 1/2 a tie (integer komi allows one; GNU Go and match scoring count it 1/2).
    """
    if score > 0:
        return 1.0
    if score < 0:
        return 0.0
    return 0.5


@njit(cache=True, nogil=True)
def _select(NI, NF, node, rave_k):
    first = NI[FIRST, node]
    nch = NI[NCH, node]
    parent_n = NF[NVISITS, node]
    lg = math.log(parent_n + 1.0)
    best = -1
    best_v = -1e300
    for ch in range(first, first + nch):
        if NI[BANNED, ch] != 0:
            continue
        n = NF[VISITS, ch]
        an = NF[AVISITS, ch]
        if n == 0.0 and (an == 0.0 or rave_k <= 0):
            v = FPU
        else:
            q = NF[WINS, ch] / n if n > 0 else 0.0
            aq = NF[AWINS, ch] / an if an > 0 else 0.0
            beta = an / (an + n + n * an / rave_k) if (an > 0 and rave_k > 0) else 0.0
            if rave_k <= 0 and n == 0.0:
                q = FPU
            v = (1.0 - beta) * q + beta * aq + UCT_C * math.sqrt(lg / (n + 1.0))
        if v > best_v:
            best_v = v
            best = ch
    return best


@njit(cache=True, nogil=True)
def _expand(NI, NF, tm, node, S, T, cap):
    """Children of ``node`` for the side to move in ``S``: positive-value moves plus pass.

    Prior knowledge goes into the AMAF statistics (as Fuego does): ``PRIOR_N`` virtual AMAF
    visits at a rate rising with the log of the move's pattern value relative to the table's
    largest value (0.4 for value 1 ... 0.8 for the largest; 0.5 for uniform tables), except
    that ordinary (value <= 1) moves on the first line get 0.2, and on the second line 0.35
    while four fifths of the board are empty (the usual edge heuristic of Pachi/Fuego).
    """
    lvmax = math.log(float(T[T_VMAX]))
    opening = (S[META, M_N] * S[META, M_N] * 4) // 5
    c = S[META, M_TOMOVE]
    N = S[META, M_N]
    W = S[META, M_W]
    start = tm[T_NEXT]
    if start + N * N + 1 > cap:
        return False
    k = start
    for r in range(N):
        for col in range(N):
            p = (r + 1) * W + col + 1
            v = S[VAL + c - 1, p]
            if v > 0:
                NI[FIRST, k] = -1
                NI[NCH, k] = 0
                NI[MOVE, k] = p
                NI[MOVER, k] = c
                NI[BANNED, k] = 0
                NI[LINK, k] = k
                NI[KEY, k] = 0
                NF[:, k] = 0.0
                rate = 0.5
                if lvmax > 0:
                    rate = 0.4 + 0.4 * math.log(float(v)) / lvmax
                if v <= 1:
                    line = min(min(r, col), min(N - 1 - r, N - 1 - col))
                    if line == 0:
                        rate = 0.2
                    elif line == 1 and S[META, M_NEMPTY] > opening:
                        rate = 0.35
                NF[AVISITS, k] = PRIOR_N
                NF[AWINS, k] = PRIOR_N * rate
                k += 1
    NI[FIRST, k] = -1
    NI[NCH, k] = 0
    NI[MOVE, k] = PASS
    NI[MOVER, k] = c
    NI[BANNED, k] = 0
    NI[LINK, k] = k
    NI[KEY, k] = 0
    NF[:, k] = 0.0
    # pass gets a low prior instead of first-play urgency: with FPU it was tried first at
    # every new node, wasting a simulation there and mixing pass lines into young nodes
    NF[AVISITS, k] = PRIOR_N
    NF[AWINS, k] = PRIOR_N * PASS_PRIOR
    k += 1
    NI[FIRST, node] = start
    NI[NCH, node] = k - start
    tm[T_NEXT] = k
    return True


@njit(cache=True, nogil=True)
def tt_key(S):
    """Transposition-table key of the position in ``S``: the Zobrist hash of the stones and the
    side to move (``S[META, M_HASH]``), XOR the simple-ko point's key and, when the last move
    was a pass, ``PASSED_KEY``.  Equal keys mean equal positions up to 64-bit collisions."""
    k = S[META, M_HASH] ^ KO_KEYS[S[META, M_KO]]
    if S[META, M_PASSES] > 0:
        k ^= PASSED_KEY
    return k


@njit(cache=True, nogil=True)
def _ht_slot(key, size):
    h = key ^ (key >> 29)
    return h % size if h >= 0 else (-(h + 1)) % size


@njit(cache=True, nogil=True)
def tt_lookup(HT, NI, key):
    """Record owning the position ``key`` (verified against ``NI[KEY]``), or -1."""
    size = HT.shape[0]
    i = _ht_slot(key, size)
    for _ in range(size):
        e = HT[i]
        if e == 0:
            return -1
        if NI[KEY, e - 1] == key:
            return e - 1
        i += 1
        if i == size:
            i = 0
    return -1


@njit(cache=True, nogil=True)
def tt_insert(HT, NI, tm, key, node):
    """Enter ``node`` as the owner of position ``key`` (stores the key in ``NI[KEY, node]``).
    Returns False, leaving the table unchanged, when it is at ``HT_MAX_LOAD``."""
    size = HT.shape[0]
    if tm[T_HCOUNT] + 1 > HT_MAX_LOAD * size:
        return False
    NI[KEY, node] = key
    i = _ht_slot(key, size)
    while HT[i] != 0:
        i += 1
        if i == size:
            i = 0
    HT[i] = node + 1
    tm[T_HCOUNT] += 1
    return True


@njit(cache=True, nogil=True)
def _position_hash(S):
    h = S[META, M_HASH]
    if S[META, M_TOMOVE] == WHITE:
        h ^= ZOB_WHITE_TO_MOVE
    return h


@njit(cache=True, nogil=True)
def search(NI, NF, tm, HT, S0, B, T, n_sims, komi, hist, owner, max_moves, expand_after, seed,
           rave_k=RAVE_K, transpositions=True):
    """Run ``n_sims`` simulations from the root ``tm[T_ROOT]`` whose position is ``S0``.

    ``NI``, ``NF``, ``tm``, ``HT``: the arrays of a :class:`Tree`.  ``hist``: sorted
    stones-only hashes of the game record (superko).  ``owner[p]`` accumulates +1 when Black
    owns ``p`` at the end of a playout, -1 for White.  ``transpositions``: merge positions
    reached by different move orders (see the module docstring).  Returns simulations done.
    """
    if seed >= 0:
        np.random.seed(seed)
    cap = NI.shape[1]
    S = S0.copy()
    size = S.shape[1]
    N = S[META, M_N]
    W = S[META, M_W]
    path = np.zeros(1024, np.int64)
    phash = np.zeros(1024, np.int64)
    pown = np.zeros(1024, np.int64)
    tree_moves = np.zeros(1024, np.int64)
    movebuf = np.zeros(max_moves + 8, np.int64)
    amc = np.zeros(size, np.int64)
    amst = np.zeros(size, np.int64)
    stamp = 0
    done = 0
    root = tm[T_ROOT]
    for _ in range(n_sims):
        S[:, :] = S0
        node = root
        depth = 0
        path[0] = root
        pown[0] = NI[LINK, root]
        ok = True
        while True:
            pos = NI[LINK, node]  # the record owning this position
            if pos != node:
                seen = False  # guard: a walk must not enter a position twice
                for d in range(depth):
                    if pown[d] == pos:
                        seen = True
                if seen:
                    pown[depth] = -1  # back up this edge only, not the position again
                    break
            elif NI[FIRST, node] < 0:
                if NF[VISITS, node] >= expand_after and S[META, M_PASSES] < 2 and depth < 1000:
                    key = 0
                    other = -1
                    if transpositions:
                        key = tt_key(S)
                        other = tt_lookup(HT, NI, key)
                        for d in range(depth):
                            if pown[d] == other:
                                other = -2  # on this path: not a transposition, stop here
                    if other == -2:
                        break
                    if other >= 0:
                        NI[LINK, node] = other
                        tm[T_MERGED] += 1
                        pos = other
                    else:
                        if not _expand(NI, NF, tm, node, S, T, cap):
                            break
                        if transpositions:
                            tt_insert(HT, NI, tm, key, node)
                else:
                    break
            pown[depth] = pos
            if NI[NCH, pos] == 0:
                break
            ch = _select(NI, NF, pos, rave_k)
            if ch < 0:
                break
            p = NI[MOVE, ch]
            c = S[META, M_TOMOVE]
            play_update(S, B, T, p, c)
            h = _position_hash(S)
            if p != PASS:
                rep = False
                i = np.searchsorted(hist, h)
                if i < hist.shape[0] and hist[i] == h:
                    rep = True
                for d in range(depth + 1):
                    if phash[d] == h:
                        rep = True
                if rep:
                    NI[BANNED, ch] = 1
                    ok = False
                    break
            depth += 1
            path[depth] = ch
            pown[depth] = NI[LINK, ch]
            phash[depth] = h
            tree_moves[depth] = p
            node = ch
            if S[META, M_PASSES] >= 2:
                break
        if not ok:
            continue
        # two passes in the tree end the game there, but the referee (GNU Go's final_score)
        # removes dead stones first: play on with a playout, which captures what is dead,
        # instead of counting every stone as it stands
        if S[META, M_PASSES] >= 2:
            S[META, M_PASSES] = 0
        n = run_playout(S, B, T, movebuf, max_moves)
        score = playout_score(S) - komi
        bw = black_result(score)
        # ownership at the root
        for r in range(N):
            for col in range(N):
                q = (r + 1) * W + col + 1
                cq = S[COLOR, q]
                if cq == EMPTY:
                    t = 0
                    for dd in (-W, -1, 1, W):
                        t |= 1 << S[COLOR, q + dd]
                    t &= 6
                    if t == 2:
                        owner[q] += 1
                    elif t == 4:
                        owner[q] -= 1
                elif cq == BLACK:
                    owner[q] += 1
                else:
                    owner[q] -= 1
        # backup + AMAF
        stamp += 1
        for i in range(n - 1, -1, -1):
            m = movebuf[i]
            if m > 0:
                amst[m] = stamp
                amc[m] = BLACK
            elif m < 0:
                amst[-m] = stamp
                amc[-m] = WHITE
        for d in range(depth, -1, -1):
            nd = path[d]
            pos = pown[d]
            NF[VISITS, nd] += 1.0
            if d > 0:
                NF[WINS, nd] += bw if NI[MOVER, nd] == BLACK else 1.0 - bw
            first = -1
            if pos >= 0:
                NF[NVISITS, pos] += 1.0
                first = NI[FIRST, pos]
            if first >= 0:
                for ch in range(first, first + NI[NCH, pos]):
                    p = NI[MOVE, ch]
                    if p != PASS and amst[p] == stamp and amc[p] == NI[MOVER, ch]:
                        NF[AVISITS, ch] += 1.0
                        NF[AWINS, ch] += bw if NI[MOVER, ch] == BLACK else 1.0 - bw
            if d > 0:
                p = tree_moves[d]
                if p != PASS:
                    amst[p] = stamp
                    amc[p] = NI[MOVER, nd]
        done += 1
    return done


def final_choice(ranked: list) -> tuple[int, float, float]:
    """(move, visits, wins) to play from root children ranked by visits, most first.

    ``ranked`` holds ``(move, (visits, wins))``.  The most-visited move, except that a pass
    while behind (win rate below 1/2) is replaced by the most-visited real move if there is
    one: passing hands the opponent a free move, and after its pass the game.
    """
    mv, (v, w) = ranked[0]
    if mv == PASS and v and w / v < 0.5:
        for mv2, (v2, w2) in ranked[1:]:
            if mv2 != PASS and v2 > 0:
                return mv2, v2, w2
    return mv, v, w


@dataclass
class MoveInfo:
    """What :meth:`Player.genmove` decided: ``move`` (point, PASS, or -1 = resign), win rate
    of the side to move, simulations, seconds, and the principal children (gtp, visits, rate)."""

    move: int
    winrate: float
    playouts: int
    seconds: float
    top: list


class Tree:
    """Preallocated node arrays (``capacity`` records) of one search tree (a DAG with
    transpositions): ``NI`` (7, capacity) int64, ``NF`` (5, capacity) float64, ``tm`` meta, and
    ``HT`` the transposition table, ``capacity // 2`` slots (at least 64) holding an owner
    record + 1 (0 = empty).  Expanded positions number at most about ``capacity / 2`` (every
    expansion adds a move and the pass), and the table stops taking new ones at
    ``HT_MAX_LOAD``; it is cleared by :meth:`reset` only, so it survives :meth:`descend`."""

    def __init__(self, capacity: int):
        self.NI = np.zeros((NI_ROWS, capacity), np.int64)
        self.NF = np.zeros((NF_ROWS, capacity), np.float64)
        self.tm = np.zeros(4, np.int64)
        self.HT = np.zeros(max(64, capacity // 2), np.int64)
        self.reset()

    def reset(self) -> None:
        self.tm[:] = 0
        self.tm[T_ROOT] = 0
        self.tm[T_NEXT] = 1
        self.NI[FIRST, 0] = -1
        self.NI[NCH, 0] = 0
        self.NI[BANNED, 0] = 0
        self.NI[LINK, 0] = 0
        self.NI[KEY, 0] = 0
        self.NF[:, 0] = 0.0
        self.HT[:] = 0
        self.moves: list | None = None  # game moves at the root (None: no valid root)
        self.to_move = 0

    @property
    def root(self) -> int:
        return int(self.tm[T_ROOT])

    @property
    def merged(self) -> int:
        """Records linked to a transposition (an existing position) since the last reset."""
        return int(self.tm[T_MERGED])

    def position(self, node: int) -> int:
        """The record owning ``node``'s position (``node`` itself unless merged)."""
        return int(self.NI[LINK, node])

    def children(self, node: int | None = None) -> list[tuple[int, float, float, bool]]:
        """(move, visits, win rate, banned) of ``node``'s children (root by default)."""
        node = self.position(self.root if node is None else node)
        first, n = int(self.NI[FIRST, node]), int(self.NI[NCH, node])
        out = []
        for ch in range(first, first + n) if first >= 0 else []:
            v = float(self.NF[VISITS, ch])
            out.append((int(self.NI[MOVE, ch]), v, float(self.NF[WINS, ch]) / v if v else 0.0,
                        bool(self.NI[BANNED, ch])))
        return out

    def descend(self, moves: list) -> bool:
        """Make the node reached by ``moves`` (points) from the root the new root, if present."""
        node = self.root
        for p in moves:
            pos = self.position(node)
            first = int(self.NI[FIRST, pos])
            if first < 0:
                return False
            for ch in range(first, first + int(self.NI[NCH, pos])):
                if self.NI[MOVE, ch] == p:
                    node = ch
                    break
            else:
                return False
        self.tm[T_ROOT] = node
        return True


class Player:
    """A Go player: UCT-RAVE over pattern playouts.

    Args:
        table: compiled pattern table (:func:`playout.go.tables.load_table`).
        playouts: simulations per move (ignored when ``seconds`` or a clock is set).
        seconds: thinking time per move.
        threads: independent trees searched in parallel threads (root parallelisation:
            visits and wins of root children are summed).
        resign: resign below this win rate (0 disables).
        rave_k: RAVE equivalence parameter (0: plain UCT, AMAF statistics unused).
        seed: base RNG seed (each search chunk derives its own).
        transpositions: merge positions reached by different move orders (module docstring).
    """

    def __init__(self, table: Table | None = None, playouts: int | None = 10000,
                 seconds: float | None = None, threads: int = 1, resign: float = 0.08,
                 seed: int = 1, capacity: int | None = None, expand_after: int = 2,
                 reuse: bool = True, rave_k: float = RAVE_K, transpositions: bool = True):
        self.table = table or load_table("mc_mogo_classic")
        self.playouts = playouts
        self.seconds = seconds
        self.threads = max(1, int(threads))
        self.resign = resign
        self.seed = seed
        self.expand_after = expand_after
        self.rave_k = float(rave_k)
        self.transpositions = bool(transpositions)
        self.reuse = reuse
        self.capacity = capacity or 1_500_000 // self.threads
        self.trees = [Tree(self.capacity) for _ in range(self.threads)]
        self.min_resign_playouts = 2000
        self.owner = None
        self.owner_n = 0
        self._owner_moves = -1
        # clock (GTP time_settings / time_left)
        self.main_time: float | None = None
        self.byo_time = 0.0
        self.byo_stones = 0
        self.time_left: dict[int, tuple[float, int]] = {}
        self._calls = 0

    # -- time -----------------------------------------------------------------------------------
    def budget(self, board: Board, color: int) -> tuple[float | None, int | None]:
        """(seconds, playouts) for this move: from the clock if set, else the fixed settings."""
        if color in self.time_left or self.main_time is not None:
            left, stones = self.time_left.get(color, (self.main_time or 0.0, 0))
            empties = sum(1 for p in board.points() if board.color[p] == EMPTY)
            if stones > 0:  # byo-yomi period: spread the period over its stones
                t = left / stones
            else:
                moves_left = max(12, empties // 2)
                t = left / moves_left
                if self.byo_time > 0 and self.byo_stones > 0:
                    t += 0.7 * self.byo_time / self.byo_stones
            t = max(0.05, min(t * 0.85, left - 1.0 if left > 2 else left * 0.4))
            if self.seconds is not None:
                t = min(t, self.seconds)
            return t, None
        return self.seconds, (None if self.seconds else self.playouts)

    # -- search ---------------------------------------------------------------------------------
    def _prepare(self, board: Board) -> None:
        moves = [p for _, p in board.moves]
        for tree in self.trees:
            ok = False
            if self.reuse and tree.moves is not None and moves[: len(tree.moves)] == tree.moves:
                extra = moves[len(tree.moves):]
                expected = tree.to_move if len(extra) % 2 == 0 else 3 - tree.to_move
                ok = (board.to_move == expected and tree.descend(extra)
                      and tree.tm[T_NEXT] < 0.6 * tree.NI.shape[1])
            if not ok:
                tree.reset()
            tree.moves = list(moves)
            tree.to_move = board.to_move

    def analyze(self, board: Board, seconds: float | None = None, playouts: int | None = None) -> MoveInfo:
        """Search ``board`` (side to move = ``board.to_move``) and return the statistics."""
        self._prepare(board)
        state = PlayoutState(board, self.table)
        hist = np.array(sorted(set(board.history)), dtype=np.int64)
        size = board.S.shape[1]
        self.owner = np.zeros(size, np.int64)
        owners = [np.zeros(size, np.int64) for _ in self.trees]
        max_moves = int(board.meta[M_MOVES]) + 3 * board.size * board.size + 100
        komi = float(board.komi)
        t0 = time.time()
        if not seconds and not playouts:
            playouts = 1000
        deadline = t0 + seconds if seconds else None
        target = playouts if playouts else None
        done = [0] * len(self.trees)
        chunk = 256 if board.size <= 9 else 64

        def work(i: int) -> None:
            tree = self.trees[i]
            while True:
                if deadline is not None and time.time() >= deadline:
                    break
                if target is not None and done[i] >= -(-target // len(self.trees)):
                    break
                n = chunk if target is None else min(chunk, -(-target // len(self.trees)) - done[i])
                self._calls += 1
                got = search(tree.NI, tree.NF, tree.tm, tree.HT, state.S, state.B.copy(),
                             self.table.T, n, komi, hist, owners[i], max_moves, self.expand_after,
                             (self.seed * 1_000_003 + self._calls * 7919 + i) % (2**31),
                             self.rave_k, self.transpositions)
                done[i] += got
                if got == 0:  # every simulation hit a superko ban: nothing left to learn
                    break

        if len(self.trees) == 1:
            work(0)
        else:
            ts = [threading.Thread(target=work, args=(i,)) for i in range(len(self.trees))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        elapsed = time.time() - t0
        for o in owners:
            self.owner += o
        self.owner_n = sum(done)
        self._owner_moves = len(board.moves)
        stats: dict[int, list[float]] = {}
        for tree in self.trees:
            for mv, v, rate, banned in tree.children():
                if banned:
                    continue
                s = stats.setdefault(mv, [0.0, 0.0])
                s[0] += v
                s[1] += v * rate
        ranked = sorted(stats.items(), key=lambda kv: -kv[1][0])
        top = [(point_to_gtp(mv, board.size), int(v), (w / v if v else 0.0)) for mv, (v, w) in ranked[:5]]
        if not ranked:
            return MoveInfo(PASS, 0.5, sum(done), elapsed, [])
        mv, v, w = final_choice(ranked)
        return MoveInfo(mv, w / v if v else 0.5, sum(done), elapsed, top)

    def genmove(self, board: Board, color: int | None = None) -> MoveInfo:
        """Choose a move for ``color`` (default: side to move) on ``board`` (not modified)."""
        b = board.copy()
        color = b.to_move if color is None else color
        if b.to_move != color:
            b.to_move = color
        sec, n = self.budget(b, color)
        # pass when settled: the opponent passed and the game as it stands is ours
        if b.last_move == PASS and b.moves:
            t0 = time.time()
            quick = sec is not None and sec < 2.0
            s = self.final_score(b, playouts=300 if quick else 2000)
            if (s > 0) == (color == BLACK) and s != 0:
                return MoveInfo(PASS, 1.0, self.owner_n, time.time() - t0, [])
            if sec is not None:
                sec = max(0.05, sec - (time.time() - t0))
        info = self.analyze(b, sec, n)
        if (self.resign > 0 and info.playouts >= self.min_resign_playouts
                and info.winrate < self.resign):
            info.move = -1
        return info

    # -- scoring --------------------------------------------------------------------------------
    def dead_stones(self, board: Board, playouts: int = 3000) -> list[int]:
        """Stones owned by the other colour in most playouts (ownership < 1/3 for their own)."""
        if self.owner is None or self.owner_n < playouts // 2 or self._owner_moves != len(board.moves):
            st = PlayoutState(board, self.table)
            self.owner = np.zeros(board.S.shape[1], np.int64)
            tree = Tree(1000)
            tree.reset()
            search(tree.NI, tree.NF, tree.tm, tree.HT, st.S, st.B, self.table.T, playouts,
                   float(board.komi),
                   np.zeros(0, np.int64), self.owner, int(board.meta[M_MOVES]) + 3 * board.size ** 2,
                   10**9, self.seed)
            self.owner_n = playouts
            self._owner_moves = len(board.moves)
        dead = []
        for p in board.points():
            c = board.color[p]
            if c in (BLACK, WHITE):
                own = self.owner[p] / max(1, self.owner_n)  # in [-1, 1], + = Black
                frac = (own + 1) / 2 if c == BLACK else (1 - own) / 2
                if frac < 1 / 3:
                    dead.append(p)
        return dead

    def final_score(self, board: Board, playouts: int = 3000) -> float:
        """Area score (Black minus White minus komi) after removing :meth:`dead_stones`."""
        b = board.copy()
        dead = self.dead_stones(b, playouts)
        if dead:
            from playout.go.rules import _rebuild_strings
            for p in dead:
                b.S[COLOR, p] = EMPTY
            _rebuild_strings(b.S)
        return b.score()


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "playout.py", "tables.py", "properties.py"))
