"""Ranked luck: a cheaper per-roll value for rollout variance reduction (numba).

Variance reduction subtracts each half-move's *luck* ``f(r) - mean_r' f(r')``
from a trial's outcome, where ``r`` is the roll drawn and the mean is over the
21 rolls weighted 1/36 or 2/36.  The adjusted outcome stays unbiased for *any*
``f`` that depends only on the position and the roll, because the subtracted
term has mean 0 over the roll; how much variance it removes depends on how well
``f`` follows the value of the position after the roll.  gnubg takes ``f(r)`` =
the evaluator's value of the best play for ``r`` (every play of all 21 rolls
evaluated); :func:`playout.backgammon.incremental.best_plays` does the same.

Here ``f(r)`` = the net's exact value of the best of the ``k`` plays that rank
highest for ``r`` under the net *linearised* at the half-move's base (the board
before the move, as evaluated with the opponent to act, as in
:mod:`playout.backgammon.incremental`): with mover's equity ``E(a)`` as a
function of the hidden pre-activations ``a``, a play scores
``g . (a_play - a_base)`` with ``g = dE/da`` at the base, and since
``a_play - a_base = sum_i dx_i W1[i]`` that is ``sum_i dx_i s_i`` with
``s_i = g . W1[i]`` computed once per half-move: a few scalar additions per
checker step, no hidden layer.  The two hand features that are not additive
(home points, longest prime) enter through their change at the leaf, and so do
the opponent-hits-mover shot inputs: from per-point bitmasks of the rolls that
hit there (:func:`_hit_masks`, the base's blocking points), or exactly
(:func:`playout.backgammon.shots.shot_stats`) after a hit, when the opponent
must enter first.  The blockade inputs (escapes, containment, mobility) and the
timing inputs (:func:`playout.backgammon.contact.contact_inputs`) are left out of the
ranking score (it only picks the plays to evaluate; the kept plays get the net's exact
value, those inputs included).  Plays that bear off the last
checker rank first.  The slopes are the base's own slice's
(:func:`playout.backgammon.classes.net_index`: contact, race or, in a three-slice file,
crashed); a kept play in another class is valued exactly by its own slice
(:func:`playout.backgammon.incremental._new_leaf`).

Measured (1,500 self-play positions x 21 rolls, keeping 3): the ranked play is
the roll's best in 93.5% of rolls, 0.0025 equity short on average; a contact
half-move takes ~72 us instead of ~177 us.  On contact positions alone the best
play is outside the 3 kept in 4.3% of rolls (3.9% with every leaf's exact shot
inputs, 8% with the masks even after hits).  (Those figures are of an early network.)
A play is kept once per board (:func:`_offer`): over the 2,959 positions of
``tests/test_bg_luck.py`` x 21 rolls the kept 3 hold the best play in 86.9% of rolls with
``net_cand128_g12`` (83.8% when two paths to one board could both be kept; net_cand128_g9
88.3%, 85.2%), and the mean shortfall falls from 0.0158 to 0.0131.  Equal-precision rollout
speed (games/s / sd^2, 16 boards x 1,296 trials) is unchanged: the distinct plays cost exact
evaluations that a duplicate found in the cache did not (g12, k 3: 124-126 games/s at sd 0.428
against 122-139 at 0.448 before, CPU time of two runs each beside other work; k 2 146 at 0.458,
k 4 106 at 0.410).

The rollout's *player* is unchanged: the play made for the roll drawn is still
the exact 1-ply best over all its plays.  Only the luck term differs from
gnubg's, by how far the ranked play's value falls short of the best play's
(``benchmarks/bg_speed.py`` prints the per-trial standard deviation of both at
equal trials).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.shots import (
    _DOUBLES,
    _INV36,
    _INV900,
    _RA,
    _RC,
    _masks,
    _popcount,
    roll_targets,
    shot_stats,
    trailing_zeros,
)
from playout.backgammon.incremental import (
    _MY_BAR,
    _MY_HOME,
    _MY_OFF,
    _MY_PIPS,
    _MY_RUN,
    _OPP_BAR,
    _OPP_PIPS,
    _best_roll,
    _home_run,
    _keep,
    _my_unit,
    _new_leaf,
    _probe,
    _record,
    _set_base,
    base_extras,
    park,
)
from playout.backgammon.moves import _can_move, _do, _do_h, _hash, _undo
from playout.backgammon.net import N_BASE_INPUTS, _sigmoid
from playout.jitcache import flush_stale_caches, siblings

#: most plays kept per roll for the exact evaluation
MAX_KEEP = 8
#: plays kept per roll by default.  With net_td80 (session 5, six positions x 1,296 trials)
#: keeping 1 to 4 gave 2.2-2.4x the equal-precision throughput of evaluating every play, and 3
#: kept the per-trial standard deviation within ~6% of gnubg's scheme.  The later networks
#: (their blockade and timing inputs are outside the ranking score) rank worse: with
#: net_cand128_g16 from the opening (2,592 full-length trials, session 22) the per-trial sd is
#: 0.371 with 3 kept, 0.315 with 6, 0.231 with every play, at 157 / 109 / 46 games/s: ranked
#: luck is still ~1.3x the equal-precision throughput of full luck, no longer more.
DEFAULT_KEEP = 3
_WIN = 1e9  # score of a play that bears off the last checker


def new_luck_workspace(n_inputs):
    """Work arrays for :func:`ranked_luck_plays`: ``(s[n_inputs], sc[5], made[5], off[5],
    keep_sc[MAX_KEEP], keep_z[MAX_KEEP] (the kept boards' Zobrist hashes), pz[5] (the hash at
    each depth of the path), keep_path[MAX_KEEP, 4, 2], keep_len[MAX_KEEP], path[5, 2], blots[5],
    hitmask[25], hits[5], nh[5], nkeep[1])``."""
    return (np.zeros(n_inputs), np.zeros(5), np.zeros(5, dtype=np.int64),
            np.zeros(5, dtype=np.int64), np.zeros(MAX_KEEP), np.zeros(MAX_KEEP, dtype=np.uint64),
            np.zeros(5, dtype=np.uint64),
            np.zeros((MAX_KEEP, 4, 2), dtype=np.int64), np.zeros(MAX_KEEP, dtype=np.int64),
            np.zeros((5, 2), dtype=np.int64), np.zeros(5, dtype=np.int64),
            np.zeros(25, dtype=np.int64), np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64),
            np.zeros(1, dtype=np.int64))


new_luck_workspace = njit(cache=True)(new_luck_workspace)


@njit(cache=True, fastmath=True)
def _slopes(acc, ctx, W1, W2T, b2, hid, s):
    """``s[i] = dE/da . W1[net, i]`` at the base accumulator ``acc[0]`` (mover's equity ``E``).

    The net's outputs are the opponent's raw probabilities ``o``; the mover's
    equity is ``1 - 2 o0 - o1 - o2 + o3 + o4`` (:func:`playout.backgammon.net.invert`,
    :func:`playout.backgammon.net.money_equity`).
    """
    net = ctx[0]
    H = acc.shape[1]
    for k in range(H):
        hid[k] = _sigmoid(acc[0, k])
    c = np.empty(5)
    for o in range(5):
        z = b2[net, o]
        for k in range(H):
            z += W2T[net, o, k] * hid[k]
        r = _sigmoid(z)
        c[o] = r * (1.0 - r)
    c[0] *= -2.0
    c[1] = -c[1]
    c[2] = -c[2]
    for k in range(H):
        gk = 0.0
        for o in range(5):
            gk += c[o] * W2T[net, o, k]
        hid[k] = gk * hid[k] * (1.0 - hid[k])
    for i in range(W1.shape[1]):
        v = 0.0
        for k in range(H):
            v += hid[k] * W1[net, i, k]
        s[i] = v


@njit(cache=True)
def _hit_masks(board, hm):
    """``hm[t]``: bitmask over the 21 rolls of those with which the opponent could hit a blot
    of the mover on the mover's point ``25 - t`` (``t`` in the opponent's numbering), with
    the board's blocking points (:func:`playout.backgammon.shots.roll_targets`)."""
    occ, _, blocks, nbar = _masks(board, np.bool_(False))
    for t in range(25):
        hm[t] = 0
    for r in range(21):
        tg = roll_targets(_RA[r], _RC[r], occ, blocks, nbar) & 0x1FFFFFE
        while tg != 0:
            t = trailing_zeros(tg)
            tg &= tg - 1
            hm[t] |= np.int64(1) << r


@njit(cache=True, inline="always")
def _shots(blots, hm):
    """(hit fraction, mean pip loss / 25) of the mover's blots ``blots`` (bit ``p - 1`` = point
    ``p``) under the hit masks ``hm``: the opponent-hits-mover shot inputs, approximately
    (blocking as at the base)."""
    covered = np.int64(0)
    hit36 = 0
    loss = 0
    rest = blots
    while rest != 0:
        b = trailing_zeros(rest)  # the mover's lowest blot: the largest loss t = 24 - b
        rest &= rest - 1
        t = 24 - b
        new = hm[t] & ~covered
        covered |= new
        w36 = 2 * _popcount(new) - _popcount(new & _DOUBLES)
        hit36 += w36
        loss += w36 * t
    return hit36 * _INV36, loss * _INV900


@njit(cache=True, inline="always")
def _rank_step(w, src, die, lv, s, sc, made, off, blots, nh):
    """Score, made-points and blot masks and checkers off at depth ``lv`` after the step
    (called before it is made on ``w``)."""
    li = lv - 1
    v = sc[li]
    m = made[li]
    bl = blots[li]
    f = off[li]
    nh[lv] = nh[li]
    n = int(w[src])
    if src == 25:
        v -= 0.5 * s[_MY_BAR]
    else:
        i, c = _my_unit(src, n, False)
        v += c * s[i]
        bit = np.int64(1) << (src - 1)
        if n == 2:
            m &= ~bit
            bl |= bit
        elif n == 1:
            bl &= ~bit
    dst = src - die
    if dst >= 1:
        t = int(w[dst])
        bit = np.int64(1) << (dst - 1)
        if t == -1:
            # the opponent's blot goes to its bar (as in incremental._step)
            v += (-s[4 * (24 - dst)] + 0.5 * s[_OPP_BAR] + dst / 100.0 * s[_OPP_PIPS]
                  + s[101 + 4 * (dst - 1)])
            bl |= bit
            nh[lv] += 1
        else:
            i, c = _my_unit(dst, t, True)
            v += c * s[i]
            if t == 1:
                m |= bit
                bl &= ~bit
            elif t == 0:
                bl |= bit
        v -= die / 100.0 * s[_MY_PIPS]
    else:
        f += 1
        v += s[_MY_OFF] / 15.0 - src / 100.0 * s[_MY_PIPS]
    sc[lv] = v
    made[lv] = m
    blots[lv] = bl
    off[lv] = f


@njit(cache=True, inline="always")
def _leaf_score(lv, ctx, s, sc, made, off, blots, hm, nh, w, ps, pd):
    """Linear score of the play ending at depth ``lv``; ``w`` is its board but for a pending
    last step ``ps``/``pd`` (``ps`` = 0: none).  The opponent-hits-mover shot inputs come
    from the hit masks, or exactly from the board after a hit (the opponent must enter
    first, which the masks do not know)."""
    if off[lv] == 15:
        return _WIN
    home, run = _home_run(made[lv])
    v = sc[lv] + (home - ctx[1]) / 6.0 * s[_MY_HOME] + (run - ctx[2]) / 6.0 * s[_MY_RUN]
    if ctx[0] != 1 and s.shape[0] > N_BASE_INPUTS:  # contact or crashed
        if nh[lv] > 0:
            hit = 0
            if ps > 0:
                hit = _do(w, ps, pd)
            h, q = shot_stats(w, np.bool_(False))
            if ps > 0:
                _undo(w, ps, pd, hit)
        else:
            h, q = _shots(blots[lv], hm)
        v += h * s[N_BASE_INPUTS] + q * s[N_BASE_INPUTS + 1]
    return v


@njit(cache=True, inline="always")
def _offer(v, lv, w, ps, pd, zp, path, k, keep_sc, keep_z, keep_path, keep_len, nkeep):
    """Keep the play ``path[1..lv]`` among the ``k`` best scores (earlier plays win ties),
    unless a kept play reaches the same board.

    ``w`` is the play's board but for a pending last step ``ps``/``pd`` (``ps`` = 0: none),
    ``zp`` the Zobrist hash of ``w`` (:func:`playout.backgammon.moves._hash`, kept along the
    path).  One board is often reached by several paths (a non-double's two orders, a checker
    moving both dice by either intermediate point); keeping each path would let copies of one
    play crowd distinct plays out of the ``k`` kept, so a play is identified by its board's hash.
    """
    nk = nkeep[0]
    if nk < k:
        q = nk
    else:
        q = 0
        for j in range(1, k):
            if keep_sc[j] < keep_sc[q]:
                q = j
        if not v > keep_sc[q]:
            return
    z = zp
    if ps > 0:
        hit, z = _do_h(w, ps, pd, zp)
        _undo(w, ps, pd, hit)
    for j in range(nk):
        if keep_z[j] == z:
            return  # this board is kept already (its exact value is what counts)
    if nk < k:
        nkeep[0] = nk + 1
    keep_sc[q] = v
    keep_z[q] = z
    keep_len[q] = lv
    for d in range(lv):
        keep_path[q, d, 0] = path[d + 1, 0]
        keep_path[q, d, 1] = path[d + 1, 1]


@njit(cache=True, inline="always")
def _consider(lv, w, ps, pd, k, ctx, s, sc, made, off, blots, nh, hm, path, keep_sc, keep_z, pz,
              keep_path, keep_len, nkeep):
    """Score the play ending at depth ``lv`` (pending last step ``ps``/``pd``) and offer it."""
    v = _leaf_score(lv, ctx, s, sc, made, off, blots, hm, nh, w, ps, pd)
    _offer(v, lv, w, ps, pd, pz[lv - 1] if ps > 0 else pz[lv], path, k, keep_sc, keep_z,
           keep_path, keep_len, nkeep)


@njit(cache=True)
def _consider_rare(lv, w, ps, pd, k, ctx, s, sc, made, off, blots, nh, hm, path, keep_sc,
                   keep_z, pz, keep_path, keep_len, nkeep):
    """:func:`_consider` as a call, for the rarely reached leaves of :func:`_rank_roll` (doubles
    that cannot be played in full, one die only): one compiled copy instead of one inlined copy
    per call site (compile time; the two hot sites stay inlined)."""
    _consider(lv, w, ps, pd, k, ctx, s, sc, made, off, blots, nh, hm, path, keep_sc, keep_z, pz,
              keep_path, keep_len, nkeep)


@njit(cache=True, _nrt=False)
def _rank_roll(w, d1, d2, k, ctx, s, sc, made, off, blots, nh, hm, keep_sc, keep_z, pz, keep_path,
               keep_len, path, nkeep):
    """Keep the ``k`` best-ranked plays of ``d1 d2`` (the legal plays of ``_best_roll``, in its
    order); ``nkeep[0]`` = 0 when no checker can move."""
    nkeep[0] = 0
    zero = np.int64(0)  # typed int64, not a literal: one _consider_rare specialisation
    if d1 == d2:
        d = d1
        depth = 0
        for s1 in range(25, 0, -1):
            if not _can_move(w, s1, d):
                continue
            _rank_step(w, s1, d, 1, s, sc, made, off, blots, nh)
            path[1, 0] = s1
            path[1, 1] = d
            h1, pz[1] = _do_h(w, s1, d, pz[0])
            if depth < 1:
                depth = 1
                nkeep[0] = 0
            for s2 in range(s1, 0, -1):
                if not _can_move(w, s2, d):
                    continue
                _rank_step(w, s2, d, 2, s, sc, made, off, blots, nh)
                path[2, 0] = s2
                path[2, 1] = d
                h2, pz[2] = _do_h(w, s2, d, pz[1])
                if depth < 2:
                    depth = 2
                    nkeep[0] = 0
                for s3 in range(s2, 0, -1):
                    if not _can_move(w, s3, d):
                        continue
                    _rank_step(w, s3, d, 3, s, sc, made, off, blots, nh)
                    path[3, 0] = s3
                    path[3, 1] = d
                    h3, pz[3] = _do_h(w, s3, d, pz[2])
                    if depth < 3:
                        depth = 3
                        nkeep[0] = 0
                    for s4 in range(s3, 0, -1):
                        if not _can_move(w, s4, d):
                            continue
                        _rank_step(w, s4, d, 4, s, sc, made, off, blots, nh)
                        path[4, 0] = s4
                        path[4, 1] = d
                        if depth < 4:
                            depth = 4
                            nkeep[0] = 0
                        _consider(4, w, s4, d, k, ctx, s, sc, made, off, blots, nh, hm, path,
                                  keep_sc, keep_z, pz, keep_path, keep_len, nkeep)
                    if depth == 3:
                        _consider_rare(np.int64(3), w, zero, zero, k, ctx, s, sc, made, off, blots,
                                       nh, hm, path, keep_sc, keep_z, pz, keep_path, keep_len, nkeep)
                    _undo(w, s3, d, h3)
                if depth == 2:
                    _consider_rare(np.int64(2), w, zero, zero, k, ctx, s, sc, made, off, blots,
                                   nh, hm, path, keep_sc, keep_z, pz, keep_path, keep_len, nkeep)
                _undo(w, s2, d, h2)
            if depth == 1:
                _consider_rare(np.int64(1), w, zero, zero, k, ctx, s, sc, made, off, blots,
                               nh, hm, path, keep_sc, keep_z, pz, keep_path, keep_len, nkeep)
            _undo(w, s1, d, h1)
        return
    hi = max(d1, d2)
    lo = min(d1, d2)
    for order in range(2):
        a = hi if order == 0 else lo
        c = lo if order == 0 else hi
        for s1 in range(25, 0, -1):
            if not _can_move(w, s1, a):
                continue
            _rank_step(w, s1, a, 1, s, sc, made, off, blots, nh)
            path[1, 0] = s1
            path[1, 1] = a
            h1, pz[1] = _do_h(w, s1, a, pz[0])
            for s2 in range(25, 0, -1):
                if not _can_move(w, s2, c):
                    continue
                _rank_step(w, s2, c, 2, s, sc, made, off, blots, nh)
                path[2, 0] = s2
                path[2, 1] = c
                _consider(2, w, s2, c, k, ctx, s, sc, made, off, blots, nh, hm, path,
                          keep_sc, keep_z, pz, keep_path, keep_len, nkeep)
            _undo(w, s1, a, h1)
    if nkeep[0] > 0:
        return
    for a in (hi, lo):
        for s1 in range(25, 0, -1):
            if _can_move(w, s1, a):
                _rank_step(w, s1, a, 1, s, sc, made, off, blots, nh)
                path[1, 0] = s1
                path[1, 1] = a
                _consider_rare(np.int64(1), w, s1, a, k, ctx, s, sc, made, off, blots, nh, hm,
                               path, keep_sc, keep_z, pz, keep_path, keep_len, nkeep)
        if nkeep[0] > 0:
            return


@njit(cache=True, inline="always")
def _eval_kept(w, z0, q, keep_path, keep_len, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table,
               hashes, boards, probs, eqs, counts, hid, raw, x, fb, hits, db):
    """Cache row of kept play ``q`` (evaluated exactly unless in the cache)."""
    n = keep_len[q]
    z = z0
    for lv in range(1, n + 1):
        src = keep_path[q, lv - 1, 0]
        die = keep_path[q, lv - 1, 1]
        _record(rec, lv, w, src, die)
        hit, z = _do_h(w, src, die, z)
        hits[lv] = hit
    j, slot = _probe(w, z, table, hashes, boards)
    if j < 0:
        j = _new_leaf(w, z, slot, n, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes,
                      boards, probs, eqs, counts, hid, raw, x, fb, db)
    for lv in range(n, 0, -1):
        _undo(w, keep_path[q, lv - 1, 0], keep_path[q, lv - 1, 1], hits[lv])
    return j


@njit(cache=True, _nrt=False)
def _exact_best(w, z0, keep_path, keep_len, nkeep, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table,
                hashes, boards, probs, eqs, counts, hid, raw, x, fb, hits, db):
    """Cache row of the exact 1-ply best of the kept plays; the unchanged board if none."""
    best = -1e18
    bi = -1
    if nkeep[0] == 0:
        j, slot = _probe(w, z0, table, hashes, boards)
        if j < 0:
            j = _new_leaf(w, z0, slot, np.int64(0), acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes,
                          boards, probs, eqs, counts, hid, raw, x, fb, db)
        best, bi = _keep(j, best, bi, boards, probs, eqs)
        return bi
    for q in range(nkeep[0]):
        j = _eval_kept(w, z0, q, keep_path, keep_len, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table,
                       hashes, boards, probs, eqs, counts, hid, raw, x, fb, hits, db)
        best, bi = _keep(j, best, bi, boards, probs, eqs)
    return bi


@njit(cache=True)
def ranked_luck_plays(W1, b1, W2, b2, board, d1, d2, k, ws, lws, rows):
    """Per-roll luck values by ranked plays, and the exact best play for ``d1 d2``.

    ``board``: pre-roll, the side to act moves.  ``ws`` from
    :func:`playout.backgammon.incremental.new_workspace`, ``lws`` from
    :func:`new_luck_workspace`; ``k`` (1..``MAX_KEEP``) plays kept per roll.
    Fills ``rows[22]``: ``rows[0:21]`` the cache row of ``f(r)``'s play for each
    roll in the order of ``best_plays`` ((1,1), (2,1), (2,2), ...), ``rows[21]``
    the row of the exact 1-ply best play for ``d1 d2`` (the play to make).
    Boards, probabilities and equities of a row as in ``best_plays``.
    """
    acc, st, ctx, table, hashes, boards, probs, eqs, counts, hid, raw, x, rec, W2T, fb, db = ws
    s, sc, made, off, keep_sc, keep_z, pz, keep_path, keep_len, path, blots, hm, hits, nh, nkeep = lws
    _set_base(board, W1, b1, acc, st, ctx, table, hashes, counts, x)
    base_extras(x, fb)
    _slopes(acc, ctx, W1, W2T, b2, hid, s)
    sc[0] = 0.0
    made[0] = st[0, 1]
    off[0] = st[0, 0]
    bl = np.int64(0)
    for p in range(1, 25):
        if board[p] == 1:
            bl |= np.int64(1) << (p - 1)
    blots[0] = bl
    nh[0] = 0
    if ctx[0] != 1:
        _hit_masks(board, hm)
    w = board.copy()
    z0 = _hash(w)
    pz[0] = z0
    kk = min(max(k, 1), MAX_KEEP)
    q = 0
    for a in range(1, 7):
        for c in range(1, a + 1):
            _rank_roll(w, a, c, kk, ctx, s, sc, made, off, blots, nh, hm, keep_sc, keep_z, pz,
                       keep_path, keep_len, path, nkeep)
            r = _exact_best(w, z0, keep_path, keep_len, nkeep, acc, st, ctx, rec, W1, b1, W2, b2,
                            W2T, table, hashes, boards, probs, eqs, counts, hid, raw, x, fb, hits, db)
            rows[q] = park(r, q, boards, probs, eqs)
            q += 1
    rows[21] = _best_roll(w, z0, d1, d2, acc, st, ctx, rec, W1, b1, W2, b2, W2T, table, hashes,
                          boards, probs, eqs, counts, hid, raw, x, fb, db)


flush_stale_caches(globals(), siblings(__file__, "incremental.py", "board.py", "moves.py", "net.py",
                                       "features.py", "evaluators.py", "bearoff.py", "classes.py"))
