"""Incremental (NNUE-style) 1-ply play selection for our net, fused with move generation.

A rollout with variance reduction needs, at every half-move, the best 1-ply
play for each of the 21 rolls: several hundred post-move evaluations.  A play
changes few of the net's inputs (:mod:`playout.backgammon.net`), so the
hidden layer's pre-activations are computed once for the pre-move board (as a
post-move board: the opponent to act) and, while the legal plays are
enumerated depth-first (the same traversal as
:func:`playout.backgammon.moves.legal_moves_core`), each checker step adds
only the weight rows of the inputs it changes (``a += dx_i * W1[i]``; gnubg's
``NNEVAL_FROMBASE`` idea, NNUE's accumulator).  One step changes at most: the
unary units of the source and destination points (exactly one unit each:
``n -> n +- 1`` flips unit ``min(n, 3)``, the last unit moving by 0.5), the
mover's bar / borne-off / pip-count inputs, and on a hit the opponent's unit,
bar and pip count.  The two nonlinear hand features (home points made,
longest prime) are settled at the leaf from a bitmask of made points; the
opponent's never change during the mover's play (hits take blots only).  The
shot, blockade and timing inputs are recomputed from the leaf board and enter as
their change from the base's; the blockade inputs and the timing inputs each only
when the base's net has a non-zero weight on one of them (a network saved before
them has none: no cost).

Distinct post-move boards are evaluated once per half-move across the 21
rolls (a hash table keyed by the Zobrist hash the generator keeps, boards
compared in full).  A play that ends the game gets its exact result, a play
that turns a contact position into a race is evaluated in full by the race net
(the accumulator holds the contact net's sums), with a three-slice network one that
crosses between contact and crashed (:func:`playout.backgammon.classes.net_index`) in
full by its own slice, and with a bear-off database in
the workspace a pure bear-off is looked up there
(:mod:`playout.backgammon.bearoff`, as :func:`eval_after_move` does).

Results equal :func:`playout.backgammon.search.best_reply` with
:func:`playout.backgammon.evaluators.eval_after_move` up to float rounding
(sums taken in another order; ``tests/test_bg_rollout.py`` checks both the
evaluations and whole seeded rollouts).  Ties keep the first play in the
generator's order, as there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.bearoff import DB_LEN
from playout.backgammon.classes import contact_crashed, is_bearoff, net_index
from playout.backgammon.evaluators import eval_after_move
from playout.backgammon.features import contact_inputs, escape_inputs, shot_inputs
from playout.backgammon.moves import _can_move, _do_h, _hash, _undo
from playout.backgammon.net import (
    N_BASE_INPUTS,
    N_ESC_INPUTS,
    N_INPUTS,
    N_SHOT_INPUTS,
    _sigmoid,
    encode_flipped,
    invert,
    money_equity,
    sanitize,
)
from playout.jitcache import flush_stale_caches, siblings

#: Distinct boards one half-move's cache holds (21 rolls; far more than ever seen).
CACHE_CAP = 8192
_ROWS = CACHE_CAP + 23  # + a scratch row, + a kept-best row, + one parking row per roll
_TSIZE = 16384
_TMASK = _TSIZE - 1

# input rows of encode_flipped(m): the opponent (to act next) in block 0, the mover in block 101
_OPP_BAR = 96
_OPP_PIPS = 98
_MY_BAR = 101 + 96
_MY_OFF = 101 + 97
_MY_PIPS = 101 + 98
_MY_HOME = 101 + 99
_MY_RUN = 101 + 100


@njit(cache=True)
def new_workspace(W2, db=None):
    """Work arrays for :func:`best_plays` with output weights ``W2[2, H, 5]`` (reusable).

    ``db``: the net's bear-off database (the ``pr`` of its kernel arguments,
    :func:`playout.backgammon.bearoff.database`); omitted, every position is left
    to the net.

    ``(acc[5, H], st[5, 2], ctx[6], table[16384], hashes[R], boards[R, 26],
    probs[R, 5], eqs[R], counts[1], hid[H], raw[5], x[N_INPUTS], rec[5, 5], W2T,
    fb[N_INPUTS - N_BASE_INPUTS], db)``:
    accumulators and integer state (checkers off, made-points bitmask) per
    depth, the base's net / hand features / opponent's rearmost point, the
    half-move cache (``R = CACHE_CAP + 23``; the rows past ``CACHE_CAP`` are
    scratch rows, used only if the cache ever fills), scratch vectors, and per
    depth the step taken (source, die, count on the source and on the
    destination before it, whether that depth's accumulator is up to date), and
    ``W2T[2, 5, H]`` (``W2`` transposed, contiguous; :func:`refresh_workspace` after
    the weights change), the base board's shot, blockade and timing inputs (``ctx[4]`` = 1
    when the base's net weighs the blockade inputs, ``ctx[5]`` = 1 when it weighs the timing
    inputs), and the database (or an empty array).
    """
    if db is None:
        bo = np.zeros(0)
    else:
        bo = db
    H = W2.shape[1]
    W2T = np.empty((W2.shape[0], 5, H))
    for m in range(W2.shape[0]):
        for k in range(5):
            for j in range(H):
                W2T[m, k, j] = W2[m, j, k]
    return (np.zeros((5, H)), np.zeros((5, 2), dtype=np.int64), np.zeros(6, dtype=np.int64),
            np.full(_TSIZE, -1, dtype=np.int32), np.zeros(_ROWS, dtype=np.uint64),
            np.zeros((_ROWS, 26), dtype=np.int8), np.zeros((_ROWS, 5)), np.zeros(_ROWS),
            np.zeros(1, dtype=np.int64), np.zeros(H), np.zeros(5), np.zeros(N_INPUTS),
            np.zeros((5, 5), dtype=np.int64), W2T, np.zeros(N_INPUTS - N_BASE_INPUTS), bo)


@njit(cache=True)
def refresh_workspace(ws, W2):
    """Copy output weights ``W2`` into the workspace's transposed copy (after training steps)."""
    W2T = ws[13]
    for m in range(W2.shape[0]):
        for k in range(5):
            for j in range(W2.shape[1]):
                W2T[m, k, j] = W2[m, j, k]


@njit(cache=True, fastmath=True, inline="always")
def _addrow(acc, lo, W1, net, i, c):
    for j in range(acc.shape[1]):
        acc[lo, j] += c * W1[net, i, j]


@njit(cache=True, inline="always")
def _my_unit(p, n_before, up):
    """(input row, delta) when the mover's count on point p goes n -> n+1 (up) or n -> n-1."""
    base = 101 + 4 * (p - 1)
    if up:
        if n_before >= 3:
            return base + 3, 0.5
        return base + n_before, 1.0
    if n_before >= 4:
        return base + 3, -0.5
    return base + n_before - 1, -1.0


@njit(cache=True, inline="always")
def _record(rec, lv, w, src, die):
    """Remember depth ``lv``'s step (before it is made on ``w``); its accumulator is now stale."""
    rec[lv, 0] = src
    rec[lv, 1] = die
    rec[lv, 2] = w[src]
    dst = src - die
    rec[lv, 3] = w[dst] if dst >= 1 else 0
    rec[lv, 4] = 0


@njit(cache=True, fastmath=True, inline="always")
def _step(W1, net, acc, st, rec, lo):
    """Accumulator and state of depth ``lo`` from depth ``lo - 1`` and the step in ``rec[lo]``."""
    li = lo - 1
    src = rec[lo, 0]
    die = rec[lo, 1]
    n = rec[lo, 2]
    for j in range(acc.shape[1]):
        acc[lo, j] = acc[li, j]
    st[lo, 0] = st[li, 0]
    made = st[li, 1]
    if src == 25:
        _addrow(acc, lo, W1, net, _MY_BAR, -0.5)
    else:
        i, c = _my_unit(src, n, False)
        _addrow(acc, lo, W1, net, i, c)
        if n == 2:
            made &= ~(np.int64(1) << (src - 1))
    dst = src - die
    if dst >= 1:
        v = rec[lo, 3]
        if v == -1:  # hit: the opponent's blot goes to its bar
            _addrow(acc, lo, W1, net, 4 * (24 - dst), -1.0)
            _addrow(acc, lo, W1, net, _OPP_BAR, 0.5)
            _addrow(acc, lo, W1, net, _OPP_PIPS, dst / 100.0)
            _addrow(acc, lo, W1, net, 101 + 4 * (dst - 1), 1.0)
        else:
            i, c = _my_unit(dst, v, True)
            _addrow(acc, lo, W1, net, i, c)
            if v == 1:
                made |= np.int64(1) << (dst - 1)
        _addrow(acc, lo, W1, net, _MY_PIPS, -die / 100.0)
    else:
        st[lo, 0] += 1
        _addrow(acc, lo, W1, net, _MY_OFF, 1.0 / 15.0)
        _addrow(acc, lo, W1, net, _MY_PIPS, -src / 100.0)
    st[lo, 1] = made
    rec[lo, 4] = 1


@njit(cache=True, inline="always")
def _home_run(made):
    """(home points made, longest run of made points) from the made-points bitmask."""
    home = 0
    for p in range(6):
        if (made >> p) & 1:
            home += 1
    run = 0
    m = made
    while m != 0:
        m &= m >> 1
        run += 1
    return home, run


@njit(cache=True, fastmath=True, inline="always")
def _eval_leaf(acc, lv, made, ctx, W1, W2T, b2, hid, raw, probs, j, w, fb, x):
    """``probs[j]`` = the mover's five probabilities from accumulator ``acc[lv]``.

    The non-linear inputs are settled here from the leaf board ``w``: home points and
    prime from the made-points bitmask, the shot inputs (contact only: in a race they are
    0) and, if ``ctx[4]`` / ``ctx[5]``, the blockade / timing inputs from ``w`` (``fb`` = the
    base's).
    """
    net = ctx[0]
    home, run = _home_run(made)
    dh = (home - ctx[1]) / 6.0
    dr = (run - ctx[2]) / 6.0
    H = acc.shape[1]
    for k in range(H):
        hid[k] = acc[lv, k] + dh * W1[net, _MY_HOME, k] + dr * W1[net, _MY_RUN, k]
    if net != 1 and W1.shape[1] > N_BASE_INPUTS:
        # (contact or crashed; in a race no blot can be hit: the shot inputs stay 0, as at the base)
        shot_inputs(w, x, N_BASE_INPUTS, True)
        for i in range(4):
            d = x[N_BASE_INPUTS + i] - fb[i]
            if d != 0.0:
                for k in range(H):
                    hid[k] += d * W1[net, N_BASE_INPUTS + i, k]
    if ctx[4] != 0:
        escape_inputs(w, x, N_SHOT_INPUTS, True)
        for i in range(N_SHOT_INPUTS, N_ESC_INPUTS):
            d = x[i] - fb[i - N_BASE_INPUTS]
            if d != 0.0:
                for k in range(H):
                    hid[k] += d * W1[net, i, k]
    if ctx[5] != 0:
        contact_inputs(w, x, N_ESC_INPUTS, True)
        for i in range(N_ESC_INPUTS, W1.shape[1]):
            d = x[i] - fb[i - N_BASE_INPUTS]
            if d != 0.0:
                for k in range(H):
                    hid[k] += d * W1[net, i, k]
    for k in range(H):
        hid[k] = _sigmoid(hid[k])
    for k in range(5):
        s = 0.0
        for i in range(H):
            s += W2T[net, k, i] * hid[i]
        raw[k] = _sigmoid(b2[net, k] + s)
    sanitize(raw)
    invert(raw, hid)  # hid[:5] reused for the inverted outputs
    for k in range(5):
        probs[j, k] = hid[k]


@njit(cache=True, inline="always")
def _leaf_is_race(w, opp_low):
    """``is_race(w)`` for a play from a contact base whose opponent's rearmost point is ``opp_low``."""
    if opp_low == 0 or w[0] > 0 or w[25] > 0:
        return False
    for p in range(24, opp_low - 1, -1):
        if w[p] > 0:
            return False
    return True


@njit(cache=True, inline="always")
def _probe(w, z, table, hashes, boards):
    """(cache row or -1, free slot) of board ``w`` with Zobrist hash ``z``."""
    slot = np.int64(z & np.uint64(_TMASK))
    while table[slot] >= 0:
        j = table[slot]
        if hashes[j] == z:
            same = True
            for i in range(26):
                if boards[j, i] != w[i]:
                    same = False
                    break
            if same:
                return j, slot
        slot = (slot + 1) & _TMASK
    return -1, slot


@njit(cache=True, _nrt=False)
def _new_leaf(w, z, slot, lv, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes, boards,
              probs, eqs, counts, hid, raw, x, fb, db):
    """Evaluate post-move board ``w`` (depth ``lv``, not in the cache) and store it; its row.

    A call, not inlined: :func:`_best_roll` has eight call sites, and eight inlined copies made
    it the costliest compile of a first rollout (45 s of 116 s CPU; 54 s in all now,
    ``benchmarks/compile_cost.py bg-rollout``) for 2-4% more rollout trials a second.  ``lv`` is
    passed as ``np.int64``: a literal level would compile one specialisation per value."""
    n = counts[0]
    if n >= CACHE_CAP:
        j = CACHE_CAP  # the scratch row (never reached in practice): evaluated, not stored
    else:
        j = n
        table[slot] = n
        hashes[n] = z
        counts[0] = n + 1
    for i in range(26):
        boards[j, i] = w[i]
    net = ctx[0]
    for lo in range(1, lv + 1):
        if rec[lo, 4] == 0:
            _step(W1, net, acc, st, rec, lo)
    if (st[lv, 0] == 15
            or (net != 1 and (_leaf_is_race(w, ctx[3])
                              or (W1.shape[0] > 2 and contact_crashed(w) != (net == 2))))
            or (net == 1 and db.shape[0] == DB_LEN and is_bearoff(w))):
        # game over, contact broken, a contact <-> crashed change (three-slice nets) or a pure
        # bear-off: the exact result / the leaf's own net in full (the accumulator holds the
        # base's sums) / the bear-off database (eval_after_move looks a bear-off up in db)
        eval_after_move(np.int64(0), W1, b1, W2, b2, db, x, w, x, hid, raw, raw)
        for k in range(5):
            probs[j, k] = raw[k]
    else:
        _eval_leaf(acc, lv, st[lv, 1], ctx, W1, W2T, b2, hid, raw, probs, j, w, fb, x)
    eqs[j] = money_equity(probs[j])
    return j


@njit(cache=True, inline="always")
def _keep(j, best, bi, boards, probs, eqs):
    """(best, row) after considering row ``j`` (strictly better wins: first play wins ties)."""
    e = eqs[j]
    if e > best:
        if j == CACHE_CAP:  # the scratch row is overwritten by the next new board: keep a copy
            for i in range(26):
                boards[CACHE_CAP + 1, i] = boards[CACHE_CAP, i]
            for k in range(5):
                probs[CACHE_CAP + 1, k] = probs[CACHE_CAP, k]
            eqs[CACHE_CAP + 1] = e
            j = CACHE_CAP + 1
        return e, j
    return best, bi


@njit(cache=True, _nrt=False)
def _best_roll(w, z0, d1, d2, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes, boards,
               probs, eqs, counts, hid, raw, x, fb, db):
    """Cache row of the best 1-ply play of dice ``d1 d2`` from pre-move ``w`` (restored on return).

    Traverses the plays exactly as :func:`playout.backgammon.moves.legal_moves_core`;
    a board already in the cache costs one probe.
    """
    best = -1e18
    bi = -1
    if d1 == d2:
        d = d1
        depth = 0
        for s1 in range(25, 0, -1):
            if not _can_move(w, s1, d):
                continue
            _record(rec, 1, w, s1, d)
            h1, z1 = _do_h(w, s1, d, z0)
            if depth < 1:
                depth = 1
                best = -1e18
            for s2 in range(s1, 0, -1):
                if not _can_move(w, s2, d):
                    continue
                _record(rec, 2, w, s2, d)
                h2, z2 = _do_h(w, s2, d, z1)
                if depth < 2:
                    depth = 2
                    best = -1e18
                for s3 in range(s2, 0, -1):
                    if not _can_move(w, s3, d):
                        continue
                    _record(rec, 3, w, s3, d)
                    h3, z3 = _do_h(w, s3, d, z2)
                    if depth < 3:
                        depth = 3
                        best = -1e18
                    for s4 in range(s3, 0, -1):
                        if not _can_move(w, s4, d):
                            continue
                        _record(rec, 4, w, s4, d)
                        h4, z4 = _do_h(w, s4, d, z3)
                        if depth < 4:
                            depth = 4
                            best = -1e18
                        j, slot = _probe(w, z4, table, hashes, boards)
                        if j < 0:
                            # np.int64(level): one specialisation of _new_leaf (a literal level compiles one each)
                            j = _new_leaf(w, z4, slot, np.int64(4), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                                          table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
                        best, bi = _keep(j, best, bi, boards, probs, eqs)
                        _undo(w, s4, d, h4)
                    if depth == 3:
                        j, slot = _probe(w, z3, table, hashes, boards)
                        if j < 0:
                            j = _new_leaf(w, z3, slot, np.int64(3), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                                          table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
                        best, bi = _keep(j, best, bi, boards, probs, eqs)
                    _undo(w, s3, d, h3)
                if depth == 2:
                    j, slot = _probe(w, z2, table, hashes, boards)
                    if j < 0:
                        j = _new_leaf(w, z2, slot, np.int64(2), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                                      table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
                    best, bi = _keep(j, best, bi, boards, probs, eqs)
                _undo(w, s2, d, h2)
            if depth == 1:
                j, slot = _probe(w, z1, table, hashes, boards)
                if j < 0:
                    j = _new_leaf(w, z1, slot, np.int64(1), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                                  table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
                best, bi = _keep(j, best, bi, boards, probs, eqs)
            _undo(w, s1, d, h1)
        if depth > 0:
            return bi
    else:
        hi = max(d1, d2)
        lo = min(d1, d2)
        for order in range(2):
            a = hi if order == 0 else lo
            c = lo if order == 0 else hi
            for s1 in range(25, 0, -1):
                if not _can_move(w, s1, a):
                    continue
                _record(rec, 1, w, s1, a)
                h1, z1 = _do_h(w, s1, a, z0)
                for s2 in range(25, 0, -1):
                    if not _can_move(w, s2, c):
                        continue
                    _record(rec, 2, w, s2, c)
                    h2, z2 = _do_h(w, s2, c, z1)
                    j, slot = _probe(w, z2, table, hashes, boards)
                    if j < 0:
                        j = _new_leaf(w, z2, slot, np.int64(2), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                                      table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
                    best, bi = _keep(j, best, bi, boards, probs, eqs)
                    _undo(w, s2, c, h2)
                _undo(w, s1, a, h1)
        if bi >= 0:
            return bi
        # only one die can be played: the larger if possible
        for a in (hi, lo):
            for s1 in range(25, 0, -1):
                if _can_move(w, s1, a):
                    _record(rec, 1, w, s1, a)
                    h1, z1 = _do_h(w, s1, a, z0)
                    j, slot = _probe(w, z1, table, hashes, boards)
                    if j < 0:
                        j = _new_leaf(w, z1, slot, np.int64(1), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                                      table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
                    best, bi = _keep(j, best, bi, boards, probs, eqs)
                    _undo(w, s1, a, h1)
            if bi >= 0:
                return bi
    # no checker can move: the board unchanged
    j, slot = _probe(w, z0, table, hashes, boards)
    if j < 0:
        j = _new_leaf(w, z0, slot, np.int64(0), acc, st, ctx, rec, W1, b1, W2, b2, W2T,
                      table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, db)
    best, bi = _keep(j, -1e18, -1, boards, probs, eqs)
    return bi


@njit(cache=True, inline="always")
def _weighs(W1, net, lo, hi):
    """1 if net ``net`` has a non-zero weight on an input row ``lo .. hi - 1``, else 0 (stops at
    the first)."""
    for i in range(lo, hi):
        for j in range(W1.shape[2]):
            if W1[net, i, j] != 0.0:
                return 1
    return 0


@njit(cache=True, fastmath=True)
def _set_base(board, W1, b1, acc, st, ctx, table, hashes, counts, x):
    """Depth 0 = hidden pre-activations of ``encode_flipped(board)``; empties the cache.

    Only the net's own inputs are computed (``W1.shape[1]`` of them, a trimmed net's fewer:
    :func:`playout.backgammon.net.trim_inputs`); the rest of ``x`` is zeroed."""
    n = min(x.shape[0], W1.shape[1])
    encode_flipped(board, x[:n])
    x[n:] = 0.0
    net = net_index(W1, board)
    H = acc.shape[1]
    for j in range(H):
        acc[0, j] = b1[net, j]
    for i in range(n):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                acc[0, j] += xi * W1[net, i, j]
    made = np.int64(0)
    off = 15 - int(board[25])
    opp_low = 25
    for p in range(24, 0, -1):
        v = int(board[p])
        if v > 0:
            off -= v
        elif v < 0:
            opp_low = p
        if v >= 2:
            made |= np.int64(1) << (p - 1)
    st[0, 0] = off
    st[0, 1] = made
    home, run = _home_run(made)
    ctx[0] = net
    ctx[1] = home
    ctx[2] = run
    ctx[3] = 0 if board[0] > 0 else opp_low
    ctx[4] = _weighs(W1, net, N_SHOT_INPUTS, min(N_ESC_INPUTS, W1.shape[1]))
    ctx[5] = _weighs(W1, net, N_ESC_INPUTS, W1.shape[1])
    for j in range(counts[0]):  # empty the cache (only the slots in use)
        slot = np.int64(hashes[j] & np.uint64(_TMASK))
        while table[slot] != j:
            slot = (slot + 1) & _TMASK
        table[slot] = -1
    counts[0] = 0


@njit(cache=True, inline="always")
def base_extras(x, fb):
    """``fb`` = the base's inputs past the first ``N_BASE_INPUTS`` (shot, blockade, timing) from ``x``
    (0 where ``x`` is shorter)."""
    for i in range(fb.shape[0]):
        fb[i] = x[N_BASE_INPUTS + i] if x.shape[0] > N_BASE_INPUTS + i else 0.0


@njit(cache=True, inline="always")
def park(r, k, boards, probs, eqs):
    """Row ``r`` of roll ``k``'s best play, copied to that roll's parking row if ``r`` is a
    scratch row (a full cache, never seen in practice) that a later roll would overwrite."""
    if r < CACHE_CAP:
        return r
    q = CACHE_CAP + 2 + k
    for i in range(26):
        boards[q, i] = boards[r, i]
    for i in range(5):
        probs[q, i] = probs[r, i]
    eqs[q] = eqs[r]
    return q


@njit(cache=True)
def best_plays(W1, b1, W2, b2, board, d1, d2, all_rolls, ws, rows):
    """Best 1-ply plays from pre-roll ``board`` (the side to act moves), via the incremental net.

    ``ws`` from :func:`new_workspace` (for these weights).  With ``all_rolls``
    fills ``rows[21]`` with the cache row of the best play for each roll in
    the order of :data:`playout.backgammon.search._R1`/``_R2`` ((1,1), (2,1),
    (2,2), ...); otherwise ``rows[0]`` for ``d1 d2`` only.  The board after the
    play is ``ws[5][row]`` (mover's view, not flipped), the mover's
    probabilities ``ws[6][row]``, its cubeless equity ``ws[7][row]``; rows stay
    valid until the next call.
    """
    acc, st, ctx, table, hashes, boards, probs, eqs, counts, hid, raw, x, rec, W2T, fb, db = ws
    _set_base(board, W1, b1, acc, st, ctx, table, hashes, counts, x)
    base_extras(x, fb)
    w = board.copy()
    z0 = _hash(w)
    if not all_rolls:
        rows[0] = _best_roll(w, z0, d1, d2, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes,
                             boards, probs, eqs, counts, hid, raw, x, fb, db)
        return
    k = 0
    for a in range(1, 7):
        for c in range(1, a + 1):
            r = _best_roll(w, z0, a, c, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes,
                           boards, probs, eqs, counts, hid, raw, x, fb, db)
            rows[k] = park(r, k, boards, probs, eqs)
            k += 1


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "net.py", "evaluators.py",
                                       "features.py", "bearoff.py", "classes.py"))
