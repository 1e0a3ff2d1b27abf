"""TD(0) self-play training with afterstate targets, move choice by the incremental net.

With lambda = 0 TD(lambda) needs no eligibility traces: each pre-roll
position's five outputs move toward the mover's own estimate of the position
after its chosen play (Sutton 1988; Tesauro 1995 notes lambda = 0 works as well
in backgammon, and gnubg trained with it), so a ply costs one backward pass
over the non-zero inputs instead of updating traces as large as the weights.
Plays are chosen greedily at 1-ply by :func:`playout.backgammon.incremental.best_plays`
(the NNUE-style evaluator), whose evaluation of the chosen play is also the target.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.board import (
    STARTING_BOARD,
    flip,
    game_result,
    is_race,
    opening_roll,
)
from playout.backgammon.incremental import best_plays, refresh_workspace
from playout.backgammon.net import N_OUT, encode, forward
from playout.jitcache import flush_stale_caches, siblings


@njit(cache=True, fastmath=True)
def td0_train(W1, b1, W2, b2, n_games, seed, alpha, ws, stats):
    """Self-play ``n_games`` greedy 1-ply games, updating the weights in place by TD(0).

    ``ws`` from :func:`playout.backgammon.incremental.new_workspace` for these weights.
    ``stats`` (float64[4]) accumulates games, plies, points won by the first mover,
    and the sum of |delta| of P(win).
    """
    np.random.seed(seed)
    I = W1.shape[1]
    H = W1.shape[2]
    x = np.zeros(I)
    h = np.zeros(H)
    o = np.zeros(N_OUT)
    go = np.zeros(N_OUT)
    gh = np.zeros(H)
    nz = np.zeros(I, dtype=np.int64)
    rows = np.zeros(21, dtype=np.int64)
    boards = ws[5]
    probs = ws[6]
    for g in range(n_games):
        board = STARTING_BOARD.copy()
        player = 0
        d1, d2 = opening_roll()
        first = True
        plies = 0
        while True:
            net = 1 if is_race(board) else 0
            encode(board, x)
            forward(W1, b1, W2, b2, net, x, h, o)
            if not first:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            first = False
            refresh_workspace(ws, W2)
            best_plays(W1, b1, W2, b2, board, d1, d2, np.bool_(False), ws, rows)
            j = rows[0]
            plies += 1
            # delta of each output toward the mover's estimate after its play
            for k in range(N_OUT):
                d = probs[j, k] - o[k]
                if k == 0:
                    stats[3] += abs(d)
                go[k] = alpha * d * o[k] * (1.0 - o[k])
            for jj in range(H):
                s = 0.0
                for k in range(N_OUT):
                    s += go[k] * W2[net, jj, k]
                gh[jj] = s * h[jj] * (1.0 - h[jj])
            for jj in range(H):
                for k in range(N_OUT):
                    W2[net, jj, k] += go[k] * h[jj]
                b1[net, jj] += gh[jj]
            for k in range(N_OUT):
                b2[net, k] += go[k]
            nnz = 0
            for i in range(I):
                if x[i] != 0.0:
                    nz[nnz] = i
                    nnz += 1
            for t in range(nnz):
                i = nz[t]
                xi = x[i]
                for jj in range(H):
                    W1[net, i, jj] += gh[jj] * xi
            after = boards[j]
            r = game_result(after)
            if r != 0:
                stats[0] += 1
                stats[1] += plies
                stats[2] += r if player == 0 else -r
                break
            board = flip(after)
            player = 1 - player


flush_stale_caches(globals(), siblings(__file__, "net.py", "incremental.py", "features.py", "board.py",
                                       "moves.py", "evaluators.py"))
