"""UCT with RAVE over the pattern playouts: the compiled search (numba node arrays, transpositions).

The Python face is :class:`playout.go.player.Player` (time management, tree reuse, GTP glue).

Search (one simulation): copy the root state (board + incremental values), descend the tree
choosing the child with the best RAVE-UCT score, expand a leaf visited ``expand_after`` times
(one child per move of positive pattern value for the side to move, plus pass), finish with a
playout (:func:`playout.go.playout.run_playout`), and back the result up the path; AMAF
statistics ("all moves as first", Gelly & Silver 2007) update every child of a path node whose
move the same colour played later in the simulation.  Score of a child::

    beta = an / (an + n + n * an / RAVE_K)              (Silver's schedule, RAVE_K = 1000)
    (1 - beta) * wins/n + beta * awins/an + C * sqrt(ln(N + 1) / (n + 1))

(``C`` = ``UCT_C``, 0 by default: no exploration term) with an untried, never-AMAF-sampled
child scored ``FPU`` (first-play urgency).  Pass has no AMAF
statistics; it gets a low prior (``PASS_PRIOR``) instead, so it is not tried first at every node.
A playout's result for Black is 1, 0, or 1/2 for a tie (komi 7 allows one; matches count it 1/2).
Two passes in the tree do not score the stones as they stand: the simulation still ends with a
playout, which removes dead stones as the referee (GNU Go's ``final_score``) would.

Superko is enforced in the tree: a child whose position repeats one of the game record or of
the path is banned (and the simulation discarded); positional (stones only) by default,
situational (stones and side to move) with ``search(..., situational=True)``.  Under simple ko
the caller passes no game record, and the path check stays (a walk that repeats a position
along its own path would cycle).  Simple ko and suicide are
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

Threads (:class:`playout.go.player.Player` with ``threads`` > 1): several threads may run
:func:`search` on the same node arrays at once (tree parallelisation with a virtual loss, no
locks; see :func:`search`), or each on its own tree (root parallelisation).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from playout.go.playout import lgrf_update, play_update, playout_score, policy_value, run_playout
from playout.go.rules import (
    BLACK,
    COLOR,
    EMPTY,
    M_HASH,
    M_KO,
    M_LAST,
    M_LAST2,
    M_N,
    M_NEMPTY,
    M_PASSES,
    M_TOMOVE,
    M_W,
    MAX_SIZE,
    META,
    PASS,
    VAL,
    WHITE,
    ZOB_WHITE_TO_MOVE,
)
from playout.go.tables import T_VMAX, T_VMIN
from playout.go.tactics import tactical_rate
from playout.jitcache import flush_stale_caches, siblings

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
#: exploration constant of the score; 0 since session 14 (0.15 before): with the pattern priors
#: in the AMAF statistics the exploration term only cost strength (data/go/screens: 48/61 in
#: self-play at 2,000 playouts; data/go/match-uct0 against GNU Go level 10)
UCT_C = 0.0
#: weighted AMAF updates (:func:`search`'s ``amaf_weight``): 0 = off
AMAF_WEIGHT = 0
#: AMAF prior rate of the pass child (Fuego/Pachi-style low prior for pass); pass never
#: collects real AMAF statistics, so the prior fades as its own visits grow.
PASS_PRIOR = 0.1
#: AMAF prior rate of a move the playout table plays and a separate prior table never does
#: (:func:`_expand` with ``own_prior``): as low as an ordinary first-line move.
NO_PRIOR_RATE = 0.2


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
def _select(NI, NF, node, rave_k, uct_c, fpu):
    first = NI[FIRST, node]
    nch = NI[NCH, node]
    if first < 0:  # another search thread is expanding the node (tree parallelisation)
        return -1
    parent_n = NF[NVISITS, node]
    lg = math.log(parent_n + 1.0)
    best = -1
    best_v = -1e300
    for ch in range(first, first + nch):
        if NI[BANNED, ch] != 0:
            continue
        n = max(NF[VISITS, ch], 0.0)  # threads' lost updates can leave a virtual loss below 0
        an = NF[AVISITS, ch]
        if n == 0.0 and (an == 0.0 or rave_k <= 0):
            v = fpu
        else:
            q = NF[WINS, ch] / n if n > 0 else 0.0
            aq = NF[AWINS, ch] / an if an > 0 else 0.0
            beta = an / (an + n + n * an / rave_k) if (an > 0 and rave_k > 0) else 0.0
            if rave_k <= 0 and n == 0.0:
                q = fpu
            v = (1.0 - beta) * q + beta * aq + uct_c * math.sqrt(lg / (n + 1.0))
        if v > best_v:
            best_v = v
            best = ch
    return best


@njit(cache=True, nogil=True, inline="always")
def _new_child(NI, NF, k, move, c):
    """Row ``k``: a leaf for ``move`` by colour ``c`` (no children, not banned, its own link,
    no table key, zero statistics)."""
    NI[FIRST, k] = -1
    NI[NCH, k] = 0
    NI[MOVE, k] = move
    NI[MOVER, k] = c
    NI[BANNED, k] = 0
    NI[LINK, k] = k
    NI[KEY, k] = 0
    NF[:, k] = 0.0


@njit(cache=True, nogil=True, inline="always")
def amaf_update_weight(k, span):
    """Weight of a move in a node's AMAF statistics under weighted updates (Fuego's
    ``weight_rave_updates``): ``2 (1 - k / span)`` for the move played ``k`` moves after the
    node's own (0: right after) in a simulation of ``span`` moves from the node to its end;
    falls linearly from 2 to ``2 / span``, mean ``1 + 1 / span`` over ``k = 0 .. span - 1``."""
    return 2.0 * (1.0 - k / span)


@njit(cache=True, nogil=True, inline="always")
def prior_rate(v, vmin, lvmin, lspan, line, opening):
    """Prior AMAF win rate of a move of pattern value ``v > 0`` on edge line ``line`` (0 = the
    first line) in a table whose positive values span ``vmin``..``vmax`` (``lvmin = log vmin``,
    ``lspan = log vmax - log vmin``): ``0.4 + 0.4 log(v / vmin) / lspan`` (0.5 when the span is
    0), except ordinary moves (``v <= vmin``) on the first line, 0.2, and on the second line
    while ``opening``, 0.35 (Pachi's/Fuego's edge heuristic)."""
    rate = 0.5
    if lspan > 0:
        rate = 0.4 + 0.4 * (math.log(float(v)) - lvmin) / lspan
    if v <= vmin:
        if line == 0:
            rate = 0.2
        elif line == 1 and opening:
            rate = 0.35
    return rate




@njit(cache=True, nogil=True)
def _expand(NI, NF, tm, node, S, T, cap, B, tactics, prior_n, P, own_prior):
    """Children of ``node`` for the side to move in ``S``: positive-value moves plus pass.

    Prior knowledge goes into the AMAF statistics (as Fuego does): ``PRIOR_N`` virtual AMAF
    visits at a rate rising with the log of the move's pattern value relative to the table's
    largest value (0.4 for value 1 ... 0.8 for the largest; 0.5 for uniform tables), except
    that ordinary moves (the table's smallest positive value: 1 in GNU Go's files) on the first
    line get 0.2, and on the second line 0.35 while four fifths of the board are empty (the usual
    edge heuristic of Pachi/Fuego).  Rates depend on values relative to the table's range
    (:func:`prior_rate`), so a database with every value scaled gets the same priors.
    With ``tactics`` (> 0) the rates of capturing, escaping and big self-atari moves are
    changed by :func:`tactical_rate`.  With ``own_prior`` the rates come from the values of the
    prior table ``P`` (:func:`playout.go.playout.policy_value`; a move ``P`` never plays gets
    :data:`NO_PRIOR_RATE`) while the children stay the moves the playout table ``T`` plays.
    """
    Q = P if own_prior else T
    vmin = Q[T_VMIN]
    lvmin = math.log(float(vmin))
    lspan = math.log(float(Q[T_VMAX])) - lvmin
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
                _new_child(NI, NF, k, p, c)
                line = min(min(r, col), min(N - 1 - r, N - 1 - col))
                if own_prior:
                    v = policy_value(S, B, P, p, c)
                if v > 0:
                    rate = prior_rate(v, vmin, lvmin, lspan, line, S[META, M_NEMPTY] > opening)
                else:
                    rate = NO_PRIOR_RATE
                if tactics > 0:
                    rate = tactical_rate(S, B, p, c, rate, tactics >= 2)
                NF[AVISITS, k] = prior_n
                NF[AWINS, k] = prior_n * rate
                k += 1
    _new_child(NI, NF, k, PASS, c)
    # pass gets a low prior instead of first-play urgency: with FPU it was tried first at
    # every new node, wasting a simulation there and mixing pass lines into young nodes
    NF[AVISITS, k] = prior_n
    NF[AWINS, k] = prior_n * PASS_PRIOR
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
           rave_k=RAVE_K, transpositions=True, situational=False, tactics=0, reply=0, lgrf=0,
           LG=None, twolib=0, uct_c=UCT_C, fpu=FPU, prior_n=PRIOR_N, twolib_escape=2, P=None,
           own_prior=False, cap_end=-1, vloss=0.0, amaf_weight=AMAF_WEIGHT, root_uct_c=-1.0,
           nakade=0):
    """Run ``n_sims`` simulations from the root ``tm[T_ROOT]`` whose position is ``S0``.

    ``NI``, ``NF``, ``tm``, ``HT``: the arrays of a :class:`Tree`.  ``hist``: sorted hashes of
    the game record that a tree move may not recreate (superko; empty under simple ko):
    stones-only hashes (positional superko), or with ``situational`` the hashes including the
    side to move (``S[META, M_HASH]``) of the positions moved from (situational superko);
    along the path the same kind of hash is compared.  ``owner[p]`` accumulates +1 when Black
    owns ``p`` at the end of a playout, -1 for White.  ``transpositions``: merge positions
    reached by different move orders (see the module docstring).  ``tactics``: tactical priors
    at expansion (:func:`tactical_rate`; 0 = off, 2 = with ladder reading).  ``reply``: the
    playouts' atari-answer rule, in percent (:func:`playout.go.playout.run_playout`; 0 = off).
    ``lgrf`` (0 = off, 1, 2) with ``LG`` (:func:`playout.go.playout.lgrf_table`): the playouts
    play last good replies (:func:`playout.go.playout.lgrf_move`; the first playout move
    replies to the last tree move, or to the game's last move), and after each simulation not
    tied every move of the tree part and the playout teaches or forgets a reply
    (:func:`playout.go.playout.lgrf_update`); ``LG`` keeps what it learnt (the caller decides
    when to reset it).  ``twolib``: the playouts' two-liberty rule, in percent
    (:func:`playout.go.lowlib.twolib_move`; 0 = off) and ``twolib_escape`` its atari bound
    (:func:`playout.go.lowlib.atari_choice`).  ``uct_c``, ``fpu``, ``prior_n``: the
    exploration constant, first-play urgency and virtual AMAF visits of the priors (the module's
    ``UCT_C``, ``FPU``, ``PRIOR_N`` by default; see the module docstring); ``root_uct_c`` >= 0
    replaces ``uct_c`` at the root alone (negative, the default: the same everywhere), so that
    the root's moves are explored while the lines below stay greedy.  ``nakade``: the playouts'
    eye-space rule, in percent (:func:`playout.go.nakade.nakade_move`; 0 = off).  ``P`` with
    ``own_prior``: a second compiled table whose values give the tree's priors
    (:func:`_expand`); the playouts keep ``T``.

    Tree parallelisation (several threads calling this on the same node arrays at once; the
    kernels release the GIL): each thread passes its own ``tm`` (a copy whose ``T_NEXT`` points
    into the thread's own block of records, ending before ``cap_end``; -1: the arrays' end), so
    expansions never share records, and a ``vloss`` > 0: a *virtual loss* of that many visits
    without wins is added to every edge on the way down and taken back at the backup, so that
    threads walking at once spread over different lines (Chaslot, Winands & van den Herik 2008,
    "Parallel Monte-Carlo Tree Search"; lock-free as in Enzenberger & Müller 2009, "A lock-free
    multithreaded Monte-Carlo tree search algorithm": a statistic updated by two threads at once
    may lose one update, and a node expanded by two at once keeps one block of children, the
    other's simulations through the lost block being discarded).  Transpositions must be off:
    the table is not shared safely.

    ``amaf_weight`` (0 = off, the default): weighted AMAF updates (Fuego's
    ``weight_rave_updates``, Enzenberger, Müller et al. 2010, "Fuego -- an open-source framework
    for board games and Go engine based on Monte Carlo tree search"): a move counts in the AMAF
    statistics of a node with weight ``2 (1 - k / L)``, ``k`` the number of moves played after
    the node before it (0: the move right after) and ``L`` the moves from the node to the end of
    the simulation, so that a move played at once weighs twice as much as the mean and one played
    in the last moves of a playout almost nothing.  Returns simulations done.
    """
    if seed >= 0:
        np.random.seed(seed)
    cap = NI.shape[1] if cap_end < 0 else cap_end
    S = S0.copy()
    size = S.shape[1]
    N = S[META, M_N]
    W = S[META, M_W]
    path = np.zeros(1024, np.int64)
    phash = np.zeros(1024, np.int64)
    pown = np.zeros(1024, np.int64)
    tree_moves = np.zeros(1024, np.int64)
    movebuf = np.zeros(max_moves + 8, np.int64)
    seq = np.zeros(max_moves + 1040, np.int64)  # LGRF: the simulation's moves
    amc = np.zeros(size, np.int64)
    amst = np.zeros(size, np.int64)
    amix = np.zeros(size, np.int64)  # sequence index of the first play at a point (weighted AMAF)
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
                # this walk's own virtual loss on the node is not a visit yet
                seen_n = NF[VISITS, node] - (vloss if depth > 0 else 0.0)
                if seen_n >= expand_after and S[META, M_PASSES] < 2 and depth < 1000:
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
                        if not _expand(NI, NF, tm, node, S, T, cap, B, tactics, prior_n,
                                       T if P is None else P, own_prior and P is not None):
                            break
                        if transpositions:
                            tt_insert(HT, NI, tm, key, node)
                else:
                    break
            pown[depth] = pos
            if NI[NCH, pos] == 0:
                break
            ch = _select(NI, NF, pos, rave_k,
                         root_uct_c if (depth == 0 and root_uct_c >= 0.0) else uct_c, fpu)
            if ch < 0:
                break
            p = NI[MOVE, ch]
            c = S[META, M_TOMOVE]
            play_update(S, B, T, p, c)
            h = S[META, M_HASH] if situational else _position_hash(S)
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
            if vloss > 0:
                NF[VISITS, ch] += vloss
            depth += 1
            path[depth] = ch
            pown[depth] = NI[LINK, ch]
            phash[depth] = h
            tree_moves[depth] = p
            node = ch
            if S[META, M_PASSES] >= 2:
                break
        if not ok:
            for d in range(1, depth + 1):
                NF[VISITS, path[d]] -= vloss
            continue
        # two passes in the tree end the game there, but the referee (GNU Go's final_score)
        # removes dead stones first: play on with a playout, which captures what is dead,
        # instead of counting every stone as it stands
        if S[META, M_PASSES] >= 2:
            S[META, M_PASSES] = 0
        n = run_playout(S, B, T, movebuf, max_moves, reply, lgrf, LG, twolib, twolib_escape,
                        nakade)
        score = playout_score(S) - komi
        bw = black_result(score)
        if LG is not None:
            if lgrf > 0 and bw != 0.5:
                seq[0] = S0[META, M_LAST2]
                seq[1] = S0[META, M_LAST]
                for d in range(1, depth + 1):
                    seq[d + 1] = tree_moves[d]
                for i in range(n):
                    seq[depth + 2 + i] = abs(movebuf[i])
                lgrf_update(LG, seq, depth + 2 + n, S0[META, M_TOMOVE], BLACK if bw > 0.5 else WHITE)
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
                amix[m] = depth + 1 + i
            elif m < 0:
                amst[-m] = stamp
                amc[-m] = WHITE
                amix[-m] = depth + 1 + i
        for d in range(depth, -1, -1):
            nd = path[d]
            pos = pown[d]
            NF[VISITS, nd] += 1.0 if d == 0 else 1.0 - vloss
            if d > 0:
                NF[WINS, nd] += bw if NI[MOVER, nd] == BLACK else 1.0 - bw
            first = -1
            if pos >= 0:
                NF[NVISITS, pos] += 1.0
                first = NI[FIRST, pos]
            if first >= 0:
                span = float(depth + n - d)  # moves from this position to the simulation's end
                for ch in range(first, first + NI[NCH, pos]):
                    p = NI[MOVE, ch]
                    if p != PASS and amst[p] == stamp and amc[p] == NI[MOVER, ch]:
                        wt = amaf_update_weight(amix[p] - d - 1, span) if amaf_weight > 0 else 1.0
                        NF[AVISITS, ch] += wt
                        NF[AWINS, ch] += wt * (bw if NI[MOVER, ch] == BLACK else 1.0 - bw)
            if d > 0:
                p = tree_moves[d]
                if p != PASS:
                    amst[p] = stamp
                    amc[p] = NI[MOVER, nd]
                    amix[p] = d
        done += 1
    return done


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "playout.py", "tables.py", "properties.py",
                                        "samplers.py", "tactics.py", "lowlib.py", "nakade.py"))
