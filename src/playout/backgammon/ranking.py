"""The within-roll ranking term of the supervised fit (:mod:`playout.backgammon.supervised`).

A 1-ply checker play compares the positions after one roll's legal plays, so what it feels of a
network's error is the error of the equity *differences* between them, not of their levels.
Lookahead folders made with ``--candidates K`` hold, after each sampled position, the positions
after its K best plays of one roll (:func:`playout.backgammon.lookahead.rows` tags them with a
``group``); :func:`rank_loss_grad` is the squared error of their equities centred on the
group's mean, which ``bg train --rank W`` adds to the cross-entropy with weight ``W``.  Session
18 (``docs/results.md``): on the 3-ply labels the network matched its labels' levels to 0.0015
nats, yet the centred error of one roll's plays was 0.0129 in equity against 0.0213 raw; with
``W`` 20 the judged 1-ply PR fell by 0.24 and the 2-ply choices stayed as good (``W`` 50 made
them worse: too much weight on differences costs the levels a deeper search compares).
"""

from __future__ import annotations

import numpy as np

from playout.backgammon.supervised import forward

#: d(cubeless money equity)/d(outputs): equity = 2 P(win) - 1 + P(wg) + P(wbg) - P(lg) - P(lbg)
EQUITY_GRAD = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def rank_loss_grad(params, k: int, X, Y, gid, n_groups: int, want_grad: bool = True):
    """Within-group ranking loss of net ``k`` and its gradients (as
    :func:`playout.backgammon.supervised.loss_grad`).

    Rows ``X[n, I]``, targets ``Y[n, 5]``; ``gid[n]`` in ``0..n_groups-1`` names each row's
    group (every group has 2 or more rows: the positions after the candidate plays of one roll,
    :func:`playout.backgammon.lookahead.rows`).  With ``e`` the target's cubeless money equity
    and ``ê`` the net's, each row's error is centred on its group's mean,
    ``d = (ê - mean ê) - (e - mean e)``, and the loss is the mean over groups of the groups'
    mean ``d^2`` (equity^2).  A 1-ply checker play compares exactly these positions, so only
    equity *differences* between them matter to it; the cross-entropy of
    :func:`~playout.backgammon.supervised.loss_grad` weighs every position's absolute level
    instead.  Returns ``(loss, grads or None)``.
    """
    W2 = params[2]
    h, o = forward(params, k, X)
    sizes = np.bincount(gid, minlength=n_groups).astype(np.float64)
    eh, et = o @ EQUITY_GRAD, Y @ EQUITY_GRAD
    d = (eh - (np.bincount(gid, eh, n_groups) / sizes)[gid]) \
        - (et - (np.bincount(gid, et, n_groups) / sizes)[gid])
    w = 1.0 / (sizes[gid] * n_groups)
    loss = float((w * d * d).sum())
    if not want_grad:
        return loss, None
    # d(loss)/d(ê_i) = 2 w_i d_i (the centring terms cancel: d sums to 0 in each group)
    dz = (2.0 * w * d)[:, None] * EQUITY_GRAD[None, :] * o * (1.0 - o)
    gW2 = h.T @ dz
    gb2 = dz.sum(axis=0)
    dh = (dz @ W2[k].T) * h * (1.0 - h)
    return loss, (X.T @ dh, dh.sum(axis=0), gW2, gb2)


def groups_of(ds, rows) -> tuple[np.ndarray, np.ndarray]:
    """``(members, start)``: the groups of 2+ rows of ``ds`` (a
    :class:`playout.backgammon.supervised.Dataset`, its ``group`` column) all of whose rows are
    in ``rows`` (an index array), as one flat array of row indices and each group's start in it
    (``start[-1] == len(members)``)."""
    empty = (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
    keep = rows[ds.group[rows] >= 0]
    if not len(keep):
        return empty
    g = ds.group[keep]
    order = np.argsort(g, kind="stable")
    keep, g = keep[order], g[order]
    all_sizes = np.bincount(ds.group[ds.group >= 0])
    starts = np.concatenate([[0], np.flatnonzero(np.diff(g)) + 1])
    sizes = np.diff(np.concatenate([starts, [len(keep)]]))
    whole = (sizes >= 2) & (sizes == all_sizes[g[starts]])
    parts = [keep[a:a + n] for a, n, ok in zip(starts, sizes, whole) if ok]
    if not parts:
        return empty
    return np.concatenate(parts), np.concatenate([[0], np.cumsum([len(q) for q in parts])])


def rank_batch(members, start, pick):
    """Rows and local group ids (0..len(pick)-1) of the groups ``pick``."""
    idx = [members[start[i]:start[i + 1]] for i in pick]
    gid = np.repeat(np.arange(len(idx)), [len(q) for q in idx])
    return np.concatenate(idx), gid


def mean_rank_loss(params, k, ds, members, start, chunk: int = 4096) -> float:
    """Mean :func:`rank_loss_grad` loss over the groups ``(members, start)`` (nan: none)."""
    n = len(start) - 1
    if n == 0:
        return float("nan")
    tot = 0.0
    for a in range(0, n, chunk):
        pick = np.arange(a, min(n, a + chunk))
        rows, gid = rank_batch(members, start, pick)
        loss, _ = rank_loss_grad(params, k, ds.X[rows], ds.Y[rows], gid, len(pick), False)
        tot += loss * len(pick)
    return tot / n
