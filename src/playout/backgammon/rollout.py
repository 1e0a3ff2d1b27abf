"""Rollouts (cubeless, money) and evaluator-vs-evaluator games, in numba.

A rollout of a pre-roll board plays ``n_trials`` games to the end (or
``truncate`` half-moves, then the evaluator's estimate), both sides choosing
plays at 1-ply.  As users expect from gnubg/XG/bgsage:

* quasi-random dice: trial ``t`` uses roll ``t mod 36`` (ordered pair) first and
  roll ``(t div 36) mod 36`` second, so 1,296 trials play each pair of opening
  rolls exactly once; later rolls are random (per-chunk seed);
* variance reduction: each half-move's *luck* -- the evaluator's value after
  the best play with the roll drawn minus its mean over the 21 rolls -- is
  subtracted from the trial's outcome (all five probabilities, from the root
  side's view), gnubg's scheme (``luck="full"``); by default our net takes the
  best of the plays a linearised net ranks first per roll instead
  (``luck="ranked"``, :mod:`playout.backgammon.luck`): still unbiased, the same
  plays made, about 2.5x the games per second for a ~5% larger standard
  deviation per trial (2.2-2.4x at equal precision, ``benchmarks/bg_speed.py``);
* per-candidate rollouts (the board after each candidate play, the opponent to
  act) with standard errors over trials.

Results: mean five probabilities and cubeless equity from the root side's view
and the standard error of the equity.  Jobs are run over
:func:`playout.executor.run_tasks` in chunks keyed ``<candidate>:<chunk>``,
streamed to JSONL and resumed after a kill.
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
from playout.backgammon.cube import _efficiency, money_cubeful
from playout.backgammon.evaluators import Evaluator, eval_kernel, get_evaluator
from playout.backgammon.incremental import best_plays
from playout.backgammon.incremental import new_workspace as new_inc_workspace
from playout.backgammon.luck import DEFAULT_KEEP, new_luck_workspace, ranked_luck_plays
from playout.backgammon.moves import MAX_MOVES, new_workspace
from playout.backgammon.net import invert, sanitize, terminal_probs
from playout.backgammon.search import _R1, _R2, best_reply
from playout.jitcache import flush_stale_caches, siblings
from playout.stats import wilson_interval


@njit(cache=True)
def _play_best(kind, W1, b1, W2, b2, pr, pc, board, d1, d2, moves, ws, x, h, o, oi, val):
    """Best 1-ply play; returns its board and writes the mover's probabilities to ``val``."""
    bi, n = best_reply(kind, W1, b1, W2, b2, pr, pc, board, d1, d2, moves, ws, x, h, o, oi)
    val[:] = oi
    return moves[bi].copy()


@njit(cache=True)
def rollout_trials(kind, W1, b1, W2, b2, pr, pc, board, first_trial, n_trials, seed,
                   truncate, vr, luck_keep, out):
    """Fill ``out[n_trials, 5]`` with (luck-adjusted) outcomes from the root side's view.

    ``board``: pre-roll, the root side to act.  ``truncate`` <= 0 plays to the end.
    ``luck_keep`` (with ``vr``, our net only): 0 = gnubg's luck (the best play
    of every roll evaluated); ``k`` > 0 = ranked luck
    (:mod:`playout.backgammon.luck`: the best of the ``k`` plays the
    linearised net ranks first, per roll).  The plays made are the same.
    Our net (kind 0) runs :func:`_rollout_trials_net` (incremental evaluation),
    other evaluators :func:`rollout_trials_reference`; both give the same
    trials up to float rounding.
    """
    if kind == 0:
        _rollout_trials_net(W1, b1, W2, b2, pr, pc, board, first_trial, n_trials, seed, truncate,
                            vr, luck_keep, out)
    else:
        rollout_trials_reference(kind, W1, b1, W2, b2, pr, pc, board, first_trial, n_trials, seed,
                                 truncate, vr, out)


@njit(cache=True)
def _roll_index(d1, d2):
    """Index of the roll in the 21-roll order of ``_R1``/``_R2`` ((1,1), (2,1), (2,2), ...)."""
    hi = max(d1, d2)
    lo = min(d1, d2)
    return hi * (hi - 1) // 2 + lo - 1


@njit(cache=True)
def _rollout_trials_net(W1, b1, W2, b2, pr, pc, board, first_trial, n_trials, seed, truncate, vr,
                        luck_keep, out):
    """:func:`rollout_trials` for our net: one fused kernel, no allocation per half-move.

    Per half-move :func:`playout.backgammon.incremental.best_plays` finds the
    best play of all 21 rolls (with variance reduction) or of the roll drawn.
    The first two half-moves depend only on the first roll drawn, so their
    21-roll results are kept (memo) and shared by all trials.
    """
    np.random.seed(seed)
    H = W1.shape[2]
    ws = new_inc_workspace(W2, pr)  # pr: our net's bear-off database (or none)
    lws = new_luck_workspace(W1.shape[1])
    rows = np.zeros(22, dtype=np.int64)
    x = np.zeros(W1.shape[1])
    h = np.zeros(H)
    o = np.zeros(5)
    oi = np.zeros(5)
    val = np.zeros(5)
    mean = np.zeros(5)
    luck = np.zeros(5)
    res = np.zeros(5)
    nb = board.copy()
    # memo slot 0: the root's half-move; 1 + k: the reply after the root's roll k
    memo_ok = np.zeros(22, dtype=np.bool_)
    memo_mean = np.zeros((22, 5))
    memo_probs = np.zeros((22, 21, 5))
    memo_boards = np.zeros((22, 21, 26), dtype=np.int8)
    probs = ws[6]
    boards = ws[5]
    for t in range(n_trials):
        tg = first_trial + t
        b = board.copy()
        side = 0  # 0 = root side to act
        luck[:] = 0.0
        ply = 0
        k0 = 0
        while True:
            r = game_result(b)
            if r != 0:
                terminal_probs(r, res)
                break
            if truncate > 0 and ply >= truncate:
                eval_kernel(np.int64(0), W1, b1, W2, b2, pr, pc, b, x, h, res)
                break
            if ply == 0:
                q = tg % 36
            elif ply == 1:
                q = (tg // 36) % 36
            else:
                q = np.random.randint(0, 36)
            d1 = q // 6 + 1
            d2 = q % 6 + 1
            kd = _roll_index(d1, d2)
            slot = -1
            if ply == 0:
                slot = 0
                k0 = kd
            elif ply == 1:
                slot = 1 + k0
            if slot >= 0:
                if not memo_ok[slot]:
                    best_plays(W1, b1, W2, b2, b, d1, d2, np.bool_(True), ws, rows)
                    mean[:] = 0.0
                    for k in range(21):
                        w = (1.0 if _R1[k] == _R2[k] else 2.0) / 36.0
                        for j in range(5):
                            mean[j] += w * probs[rows[k], j]
                        memo_probs[slot, k, :] = probs[rows[k]]
                        memo_boards[slot, k, :] = boards[rows[k]]
                    memo_mean[slot, :] = mean
                    memo_ok[slot] = True
                mean[:] = memo_mean[slot]
                val[:] = memo_probs[slot, kd]
                nb[:] = memo_boards[slot, kd]
            elif vr:
                if luck_keep > 0:
                    ranked_luck_plays(W1, b1, W2, b2, b, d1, d2, luck_keep, ws, lws, rows)
                    nb[:] = boards[rows[21]]
                else:
                    best_plays(W1, b1, W2, b2, b, d1, d2, np.bool_(True), ws, rows)
                    nb[:] = boards[rows[kd]]
                mean[:] = 0.0
                for k in range(21):
                    w = (1.0 if _R1[k] == _R2[k] else 2.0) / 36.0
                    for j in range(5):
                        mean[j] += w * probs[rows[k], j]
                val[:] = probs[rows[kd]]
            else:
                best_plays(W1, b1, W2, b2, b, d1, d2, np.bool_(False), ws, rows)
                val[:] = probs[rows[0]]
                nb[:] = boards[rows[0]]
            if vr:
                # luck of the side to act, turned to the root's view
                if side == 0:
                    for j in range(5):
                        luck[j] += val[j] - mean[j]
                else:
                    invert(val, o)
                    invert(mean, oi)
                    for j in range(5):
                        luck[j] += o[j] - oi[j]
            b = flip(nb)
            side = 1 - side
            ply += 1
        # res is from the view of the side to act at the end
        if side == 1:
            invert(res, o)
            res[:] = o
        for j in range(5):
            out[t, j] = res[j] - luck[j]


@njit(cache=True)
def rollout_trials_reference(kind, W1, b1, W2, b2, pr, pc, board, first_trial, n_trials, seed,
                             truncate, vr, out):
    """:func:`rollout_trials` by full evaluation of every play (any evaluator kind).

    The straightforward kernel (each of the 21 rolls' plays generated and
    evaluated from scratch); the net's fast path is checked against it.
    """
    np.random.seed(seed)
    x = np.zeros(W1.shape[1])
    h = np.zeros(W1.shape[2])
    o = np.zeros(5)
    oi = np.zeros(5)
    val = np.zeros(5)
    mean = np.zeros(5)
    luck = np.zeros(5)
    res = np.zeros(5)
    drawn = np.zeros(5)
    nb = board.copy()
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    ws = new_workspace()
    for t in range(n_trials):
        tg = first_trial + t
        b = board.copy()
        side = 0  # 0 = root side to act
        luck[:] = 0.0
        ply = 0
        while True:
            r = game_result(b)
            if r != 0:
                terminal_probs(r, res)
                break
            if truncate > 0 and ply >= truncate:
                eval_kernel(kind, W1, b1, W2, b2, pr, pc, b, x, h, res)
                break
            if ply == 0:
                q = tg % 36
            elif ply == 1:
                q = (tg // 36) % 36
            else:
                q = np.random.randint(0, 36)
            d1 = q // 6 + 1
            d2 = q % 6 + 1
            if vr:
                # mean over the 21 rolls; the roll drawn is one of them (kept, not replayed)
                mean[:] = 0.0
                hi = max(d1, d2)
                lo = min(d1, d2)
                for k in range(21):
                    a1 = _R1[k]
                    a2 = _R2[k]
                    w = (1.0 if a1 == a2 else 2.0) / 36.0
                    cand = _play_best(kind, W1, b1, W2, b2, pr, pc, b, a1, a2, moves, ws, x, h, o,
                                      oi, val)
                    if a1 == hi and a2 == lo:
                        nb = cand
                        drawn[:] = val
                    for j in range(5):
                        mean[j] += w * val[j]
                val[:] = drawn
            else:
                nb = _play_best(kind, W1, b1, W2, b2, pr, pc, b, d1, d2, moves, ws, x, h, o, oi, val)
            if vr:
                # luck of the side to act, turned to the root's view
                if side == 0:
                    for j in range(5):
                        luck[j] += val[j] - mean[j]
                else:
                    invert(val, o)
                    invert(mean, oi)
                    for j in range(5):
                        luck[j] += o[j] - oi[j]
            b = flip(nb)
            side = 1 - side
            ply += 1
        # res is from the view of the side to act at the end
        if side == 1:
            invert(res, o)
            res[:] = o
        for j in range(5):
            out[t, j] = res[j] - luck[j]


@njit(cache=True)
def play_games(ka, W1a, b1a, W2a, b2a, pra, pca, kb, W1b, b1b, W2b, b2b, prb, pcb,
               n_games, seed, points):
    """Cubeless money games A vs B, 1-ply each; ``points[g]`` from A's view (+-1/2/3).

    A plays first in even games, B in odd ones; the opening roll is re-rolled
    until not a double (standard rules).  Seeded: game g uses seed + g.
    """
    xa = np.zeros(W1a.shape[1])
    ha = np.zeros(W1a.shape[2])
    xb = np.zeros(W1b.shape[1])
    hb = np.zeros(W1b.shape[2])
    o = np.zeros(5)
    oi = np.zeros(5)
    val = np.zeros(5)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    ws = new_workspace()
    for g in range(n_games):
        np.random.seed(seed + g)
        b = STARTING_BOARD.copy()
        a_to_act = g % 2 == 0
        d1, d2 = opening_roll()
        first = True
        while True:
            if not first:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            first = False
            if a_to_act:
                nb = _play_best(ka, W1a, b1a, W2a, b2a, pra, pca, b, d1, d2, moves, ws, xa, ha, o, oi, val)
            else:
                nb = _play_best(kb, W1b, b1b, W2b, b2b, prb, pcb, b, d1, d2, moves, ws, xb, hb, o, oi, val)
            r = game_result(nb)
            if r != 0:
                points[g] = r if a_to_act else -r
                break
            b = flip(nb)
            a_to_act = not a_to_act


def match(a: Evaluator, b: Evaluator, n_games: int = 1000, seed: int = 1) -> dict:
    """Play ``n_games`` cubeless money games a vs b; win share with a Wilson 95% interval."""
    pts = np.zeros(n_games, dtype=np.int64)
    play_games(*a.kernel_args(), *b.kernel_args(), n_games, seed, pts)
    wins = int((pts > 0).sum())
    lo, hi = wilson_interval(wins, n_games)
    return {"a": a.name, "b": b.name, "games": n_games, "wins": wins,
            "win_rate": wins / n_games, "wilson95": [round(lo, 4), round(hi, 4)],
            "points_per_game": float(pts.mean()),
            "ppg_se": float(pts.std(ddof=1) / np.sqrt(n_games)) if n_games > 1 else 0.0}


# -- rollouts over the executor ------------------------------------------------------------

def _rollout_task(task: dict) -> dict:
    """Executor task: one chunk of trials for one root board (module-level: picklable)."""
    ev = get_evaluator(task["evaluator"])
    board = np.array(task["board"], dtype=np.int8)
    n = int(task["n"])
    if task.get("cubeful"):
        pts = np.zeros(n)
        rollout_trials_cubeful(*ev.kernel_args(), board, int(task["owner"]), int(task["first"]), n,
                               int(task["seed"]), bool(task["jacoby"]), pts)
        return {"n": n, "sum": [0.0] * 5, "eq_sum": float(pts.sum()),
                "eq_sq": float((pts * pts).sum())}
    out = np.zeros((n, 5))
    rollout_trials(*ev.kernel_args(), board, int(task["first"]), n, int(task["seed"]),
                   int(task["truncate"]), bool(task["vr"]), int(task["luck_keep"]), out)
    eq = 2 * out[:, 0] - 1 + out[:, 1] - out[:, 3] + out[:, 2] - out[:, 4]
    return {"n": n, "sum": out.sum(axis=0).tolist(), "eq_sum": float(eq.sum()),
            "eq_sq": float((eq * eq).sum())}


def rollout(boards, *, evaluator: str = "net", trials: int = 1296, truncate: int = 0,
            vr: bool = True, luck: str = "ranked", seed: int = 1, chunk: int = 144,
            workers: int | None = 0,
            out_path=None, description: str | None = None, post_move: bool = True,
            ray_address: str | None = None, cube_owner: str | None = None,
            cubeful: bool = False, jacoby: bool = True) -> list[dict]:
    """Roll out each board; returns per-board dicts (probs, equity, std_error, trials).

    ``luck``: with ``vr``, ``ranked`` (our net: :mod:`playout.backgammon.luck`,
    the best of :data:`~playout.backgammon.luck.DEFAULT_KEEP` ranked plays per
    roll) or ``full`` (gnubg's: every play of every roll; other evaluators
    always).  ``post_move=True``: each board is the position *after* a candidate play
    (mover's view) and results are for that mover; ``False``: pre-roll boards,
    results for the side to act.  ``evaluator`` is a name for
    :func:`get_evaluator` (tasks must be picklable).  ``ray_address`` runs the
    chunks on Ray (see :func:`playout.executor.run_tasks`).  With
    ``cube_owner`` (money, from the result's side: ``centered``/``player``/
    ``opponent``; for a post-move board the cube as the *opponent* will hold it
    is the caller's business) each result also gets ``cubeful_equity``: the
    rolled-out probabilities converted by gnubg's money model (Janowski; the Jacoby
    rule when ``jacoby`` and the cube is centred:
    :func:`playout.backgammon.cube.cubeful_equity`) -- the trials themselves
    are cubeless.  ``cubeful=True`` instead plays cubeful trials
    (:func:`rollout_trials_cubeful`, money, no variance reduction) with the
    cube at ``cube_owner`` (default centred): ``equity`` is then the cubeful
    equity per unit of the present cube and ``probs`` is omitted.
    """
    keep = {"ranked": DEFAULT_KEEP, "full": 0}.get(luck)
    if keep is None:
        raise ValueError(f"luck: {luck!r} (ranked or full)")
    code = {"centered": 0, "player": 1, "opponent": 2}
    owner = code.get(cube_owner or "centered")
    if owner is None:
        raise ValueError(f"cube_owner: {cube_owner!r} (centered, player or opponent)")
    if post_move and owner:
        owner = 3 - owner  # trials start with the opponent of the result's side to act
    from playout.executor import run_tasks

    tasks = []
    for ci, b in enumerate(boards):
        b = np.asarray(b, dtype=np.int8)
        root = flip(b) if post_move else b
        for first in range(0, trials, chunk):
            # the key names the trials: a partial last chunk is redone when a rerun extends it
            n = min(chunk, trials - first)
            tasks.append({"key": f"{ci}:{first}-{first + n}", "board": [int(v) for v in root],
                          "first": first, "n": n,
                          "seed": seed * 1_000_003 + first, "truncate": truncate, "vr": vr,
                          "luck_keep": keep, "evaluator": evaluator, "cubeful": cubeful,
                          "owner": owner, "jacoby": jacoby})
    # ``trials`` is not part of the setup: rerunning with more trials extends a rollout (the
    # chunks' seeds and quasi-random dice depend only on their first trial), as in gnubg
    setup = {"kind": "bg-rollout", "evaluator": evaluator, "truncate": truncate,
             "vr": vr, "luck": luck, "seed": seed, "chunk": chunk, "post_move": post_move,
             "cubeful": cubeful, "owner": owner, "jacoby": jacoby,
             "boards": [[int(v) for v in b] for b in boards]}
    if tasks:
        # compile the kernels here once (a one-trial chunk) so that worker processes load them
        # from numba's disk cache instead of each compiling them; say so if it takes a while
        import sys
        import threading

        note = threading.Timer(3.0, lambda: print(
            "playout: compiling the rollout kernels (first use after an install or an update, "
            "~55 s on 2 cores; cached afterwards; `playout warm-up bg` does it ahead)",
            file=sys.stderr, flush=True))
        note.start()
        try:
            _rollout_task(dict(tasks[0], n=1))
        finally:
            note.cancel()
    if description:  # progress counts chunks: say how big one is
        description = f"{description} ({chunk}-trial chunks)"
    results = run_tasks(_rollout_task, tasks, out_path=out_path, workers=workers,
                        ray_address=ray_address, description=description, setup=setup,
                        unit="chunks")
    per = [{"n": 0, "sum": np.zeros(5), "eq_sum": 0.0, "eq_sq": 0.0} for _ in boards]
    for t, r in zip(tasks, results):
        ci = int(t["key"].split(":")[0])
        p = per[ci]
        p["n"] += r["n"]
        p["sum"] += np.array(r["sum"])
        p["eq_sum"] += r["eq_sum"]
        p["eq_sq"] += r["eq_sq"]
    out = []
    for b, p in zip(boards, per):
        n = p["n"]
        probs = p["sum"] / n
        eq = p["eq_sum"] / n
        var = max(p["eq_sq"] / n - eq * eq, 0.0)
        se = float(np.sqrt(var / max(n - 1, 1)))
        if post_move:
            probs = np.array([1 - probs[0], probs[3], probs[4], probs[1], probs[2]])
            eq = -eq
        # The luck-adjusted means are unbiased but, being sums of outcomes and luck terms, can
        # leave [0, 1] by a little (a few trials, or a probability near 0): the reported
        # probabilities are clipped and made consistent (wins >= gammons >= backgammons), as the
        # evaluators' outputs are; ``equity`` stays the unclipped mean, the estimate the standard
        # error belongs to.
        shown = np.clip(probs, 0.0, 1.0)
        sanitize(shown)
        row = {"board": [int(v) for v in b], "probs": [round(float(v), 6) for v in shown],
               "equity": round(float(eq), 6), "std_error": round(se, 6), "trials": n}
        if cubeful:
            del row["probs"]
            row["cubeful"] = True
        elif cube_owner is not None:
            from playout.backgammon.cube import cube_efficiency, cubeful_equity

            row["cubeful_equity"] = round(cubeful_equity(shown, cube_owner, cube_efficiency(b),
                                                         jacoby=jacoby), 6)
        out.append(row)
    return out


# -- cubeful rollouts (money) ----------------------------------------------------------------

@njit(cache=True)
def rollout_trials_cubeful(kind, W1, b1, W2, b2, pr, pc, board, owner0, first_trial,
                           n_trials, seed, jacoby, out):
    """Cubeful money trials: ``out[t]`` = points won by the root side / the initial cube.

    Before each roll the side to act doubles when gnubg's money model
    (:func:`playout.backgammon.cube.money_cubeful`, Janowski) on the
    evaluator's pre-roll probabilities says so (money, no beavers, cube
    efficiency as :func:`playout.backgammon.cube.cube_efficiency`); the
    opponent takes when DT <= DP, else the game ends.  With ``jacoby`` gammons
    count nothing while the cube is centred (the Jacoby rule; an initially owned cube is
    never centred).  A finished game pays points x cube value.  Plays at 1-ply, quasi-random
    first two rolls as in :func:`rollout_trials`; no variance reduction.
    ``owner0``: 0 centred, 1 root side, 2 opponent.
    """
    np.random.seed(seed)
    x = np.zeros(W1.shape[1])
    h = np.zeros(W1.shape[2])
    o = np.zeros(5)
    oi = np.zeros(5)
    val = np.zeros(5)
    p = np.zeros(5)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    ws = new_workspace()
    for t in range(n_trials):
        tg = first_trial + t
        b = board.copy()
        side = 0
        cube = 1
        owner = owner0  # relative to the root side: 0 centred, 1 root, 2 opponent
        ply = 0
        while True:
            r = game_result(b)
            if r != 0:
                pts = r
                # Jacoby: gammons count nothing while the cube is centred (only then)
                if jacoby and owner == 0 and (pts > 1 or pts < -1):
                    pts = 1 if pts > 0 else -1
                out[t] = (pts if side == 0 else -pts) * cube
                break
            # cube decision of the side to act
            me = 1 if side == 0 else 2  # the root-relative code of the side to act
            own_me = 0 if owner == 0 else (1 if owner == me else 2)
            if own_me != 2:
                eval_kernel(kind, W1, b1, W2, b2, pr, pc, b, x, h, p)
                xe = _efficiency(b)
                nd = money_cubeful(p, own_me, xe, jacoby)
                dt = 2.0 * money_cubeful(p, 2, xe, False)
                if min(dt, 1.0) > nd:
                    if dt > 1.0:  # the opponent passes: the side to act wins the cube
                        out[t] = (1.0 if side == 0 else -1.0) * cube
                        break
                    cube *= 2
                    owner = 2 if me == 1 else 1  # the taker owns it
            if ply == 0:
                q = tg % 36
            elif ply == 1:
                q = (tg // 36) % 36
            else:
                q = np.random.randint(0, 36)
            d1 = q // 6 + 1
            d2 = q % 6 + 1
            nb = _play_best(kind, W1, b1, W2, b2, pr, pc, b, d1, d2, moves, ws, x, h, o, oi, val)
            b = flip(nb)
            side = 1 - side
            ply += 1


def rollout_cubeful(board, *, cube_owner: str = "centered", evaluator: str = "net",
                    trials: int = 1296, seed: int = 1, jacoby: bool = True,
                    post_move: bool = False) -> dict:
    """Cubeful money rollout of one board (in-process); equity per unit of the present cube.

    ``cube_owner`` is relative to the side the result is for (``post_move``:
    the player who just moved, as in :func:`rollout`).
    """
    code = {"centered": 0, "player": 1, "opponent": 2}
    if cube_owner not in code:
        raise ValueError(f"cube_owner: {cube_owner!r} (centered, player or opponent)")
    ev = get_evaluator(evaluator)
    b = np.asarray(board, dtype=np.int8)
    root = flip(b) if post_move else b
    owner = code[cube_owner]
    if post_move and owner:
        owner = 3 - owner  # the root (side to act) is the opponent of the result's side
    out = np.zeros(trials)
    rollout_trials_cubeful(*ev.kernel_args(), root, owner, 0, trials, seed * 1_000_003, jacoby, out)
    eq = float(out.mean())
    se = float(out.std(ddof=1) / np.sqrt(trials)) if trials > 1 else 0.0
    if post_move:
        eq = -eq
    return {"board": [int(v) for v in b], "cubeful_equity": round(eq, 6), "std_error": round(se, 6),
            "trials": trials}


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "net.py", "evaluators.py", "search.py", "incremental.py", "cube.py", "features.py", "luck.py"))
