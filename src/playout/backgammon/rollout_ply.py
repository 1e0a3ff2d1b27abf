"""Rollouts whose plays are chosen at more than one ply (numba; our net only).

A *ply schedule* says at which ply (XG numbering: 1 = the raw net, gnubg's
0-ply) each half-move of a trial is played: ``"2"`` = 2-ply throughout,
``"2:2"`` = 2-ply for the first two half-moves then 1-ply, ``"3:3,2"`` = 3-ply
for the first three half-moves then 2-ply (Open Sage's reference rollouts; gnubg
calls the same thing "late evaluation after N plies").  Text form: segments
``P:M`` (ply ``P`` for ``M`` half-moves) separated by commas, the last one
``P`` (that ply for the rest) or ``P:M`` (1-ply for the rest); ``P`` as
:func:`playout.backgammon.search.parse_ply` reads it (``2``, ``1g``...).

A play at ply ``P > 1`` is chosen as gnubg and Open Sage do: every legal play
of the roll is scored at 1-ply, those within ``filter_threshold`` (0.16) of the
best, at most ``filter_max`` (8; gnubg's default move filter), are scored at
``P`` and the best cubeless money equity is played (ties: the better 1-ply
play) -- the choice of :func:`playout.backgammon.search.choose_move` with the
same ``ply`` and filter.  ``value(b, P)`` is the module docstring's of
:mod:`playout.backgammon.search` (replies at 1-ply, averaged over the 21 rolls),
computed here with the incremental net
(:func:`playout.backgammon.incremental.best_plays`): ``value(b, 2)`` is one
21-roll best-play call, ``value(b, 3)`` 22 of them -- equal to
:func:`playout.backgammon.search.value_ply` up to float rounding (tested).

Everything else is :func:`playout.backgammon.rollout.rollout_trials`' (our net's
kernel): quasi-random first two rolls, the same random dice stream after them
(the play chosen never consumes random numbers), truncation, the first two
half-moves' results kept per roll (memo) and shared by the trials, and variance
reduction.  **Variance reduction stays unbiased**: each half-move's luck is still
``f(r) - mean_r' f(r')`` with ``f(r)`` the *1-ply* value of the roll's best
(``luck="full"``) or best-ranked (``luck="ranked"``) play, exactly as at 1-ply;
the play actually made may differ (it is the ``P``-ply choice), but ``f`` still
depends only on the position and the roll, so the luck term has mean zero over
the roll and the adjusted outcome has the plain outcome's mean
(``tests/test_bg_rollout_ply.py`` checks the two means agree within standard
errors).  It removes a little less variance when the ``P``-ply play differs from
the 1-ply one.  A schedule that is 1-ply throughout gives today's trials
bit-for-bit (same kernel path; :func:`rollout_ply` then simply calls
:func:`playout.backgammon.rollout.rollout`).

Cost (opening position, our default net, VR with ranked luck, no truncation, one
core, niced, on the 2-core VM shared with other jobs (load ~2); process CPU time,
compile excluded; ``nice python benchmarks/bg_rollout_ply_speed.py``; trials in the
driver's 144-trial chunks, 432 trials for the first two rows, 144 for the others):

==================  ===========  ===========  ====================================
schedule            trials/s     sd/trial     note
==================  ===========  ===========  ====================================
``1`` (today)       265          0.365        :mod:`playout.backgammon.rollout`
``2:2``             190          0.366        only the memoized first two
                                              half-moves searched (per chunk)
``2``               23           0.437        2-ply throughout (~11x 1-ply)
``3:3,2``           10           0.378        Open Sage's reference setting
==================  ===========  ===========  ====================================

So a 1,296-trial Open Sage-style reference rollout of one position takes ~2 CPU
minutes (gnubg publishes 108 games/s at its 0-ply with VR).  The per-trial standard
deviation is larger at 2-ply throughout (0.437 vs 0.365) because the 1-ply luck term
follows a 2-ply player less closely; the estimate stays unbiased.

Truncated trials end with the 1-ply evaluation of the leaf, whatever the schedule
(bgsage's ``truncation_ply`` is not mirrored).

The first-use compile of this module is separate from the 1-ply rollout's:
``playout bg rollout`` without ``--ply`` compiles nothing from here (measured from an
empty ``NUMBA_CACHE_DIR``: 43 CPU s for the plain command, as before; then the first
``--ply 3:3,2`` command 15 CPU s including its 36 trials; warm 2.6 s).
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from playout.backgammon.board import flip, game_result
from playout.backgammon.evaluators import eval_after_move, eval_kernel, get_evaluator
from playout.backgammon.incremental import best_plays
from playout.backgammon.incremental import new_workspace as new_inc_workspace
from playout.backgammon.luck import DEFAULT_KEEP, new_luck_workspace, ranked_luck_plays
from playout.backgammon.moves import MAX_MOVES, legal_moves_ws, new_workspace
from playout.backgammon.net import invert, money_equity, sanitize, terminal_probs
from playout.backgammon.search import _R1, _R2, parse_ply
from playout.jitcache import flush_stale_caches, siblings

#: gnubg's default move filter for the searched plies: at most 8 plays within 0.16 equity
FILTER_MAX = 8
FILTER_THRESHOLD = 0.16


# -- ply schedules ---------------------------------------------------------------------------

def parse_schedule(text) -> tuple[int, ...]:
    """Ply per half-move from ``"P"``, ``"P:M"`` or ``"P1:M1,P2"``... (see the module docstring).

    Returns the plies of half-moves 1, 2, ...; the last entry holds for every
    later half-move (``"3:3,2"`` -> ``(3, 3, 3, 2)``, ``"2:2"`` -> ``(2, 2, 1)``,
    ``"2"`` -> ``(2,)``).  ValueError (one line, naming the text) on a bad schedule.
    """
    src = str(text).strip()
    parts = [s.strip() for s in src.split(",")]
    if not src or any(not s for s in parts):
        raise ValueError(f"ply: {text!r} is not a ply schedule (e.g. 2, 2:2 or 3:3,2)")
    out: list[int] = []
    for i, seg in enumerate(parts):
        m = re.fullmatch(r"(.*\S)\s*:\s*(\S+)", seg)
        count = None
        if m and m.group(1).strip().lower() != "gnubg":
            seg, count = m.group(1), m.group(2)
        try:
            p = parse_ply(seg)
        except ValueError as exc:
            raise ValueError(f"ply: {text!r}: {exc}".replace("ply: ply: ", "ply: ")) from None
        if count is None:
            if i != len(parts) - 1:
                raise ValueError(f"ply: {text!r}: only the last segment may omit ':HALF-MOVES' "
                                 f"(e.g. 3:3,2)")
            out.append(p)
        else:
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"ply: {text!r}: {count!r} is not a number of half-moves (>= 1)")
            out.extend([p] * int(count))
            if i == len(parts) - 1:
                out.append(1)
    return tuple(out)


def describe_schedule(sched) -> str:
    """``(3, 3, 3, 2)`` -> ``"3-ply for half-moves 1-3, then 2-ply"``."""
    sched = tuple(sched)
    runs: list[list[int]] = []
    for p in sched:
        if runs and runs[-1][0] == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    if len(runs) == 1:
        return f"{runs[0][0]}-ply throughout"
    bits, h = [], 1
    for p, n in runs[:-1]:
        span = f"{h}" if n == 1 else f"{h}-{h + n - 1}"
        bits.append(f"{p}-ply for half-move{'s' if n > 1 else ''} {span}")
        h += n
    return ", ".join(bits) + f", then {runs[-1][0]}-ply"


# -- kernels -----------------------------------------------------------------------------------

@njit(cache=True)
def _value2(W1, b1, W2, b2, pr, pc, board, ws, rows, x, h, out):
    """``out[5]`` = value(board, 2) for the side to act (one 21-roll :func:`best_plays` call)."""
    if game_result(board) != 0:
        eval_kernel(np.int64(0), W1, b1, W2, b2, pr, pc, board, x, h, out)
        return
    best_plays(W1, b1, W2, b2, board, np.int64(1), np.int64(1), np.bool_(True), ws, rows)
    probs = ws[6]
    out[:] = 0.0
    for k in range(21):
        w = (1.0 if _R1[k] == _R2[k] else 2.0) / 36.0
        for j in range(5):
            out[j] += w * probs[rows[k], j]


@njit(cache=True)
def value_inc(W1, b1, W2, b2, pr, pc, board, plies, ws, rows, x, h, out):
    """``out[5]`` = value(board, plies) for the side to act, ``plies`` 1..4 (XG numbering).

    As :func:`playout.backgammon.search.value_ply` (replies chosen at 1-ply,
    averaged over the 21 rolls weighted 1/36 or 2/36) with the incremental net;
    ``ws`` from :func:`playout.backgammon.incremental.new_workspace`, ``rows``
    int64[22] scratch.  Written as nested loops (no recursion).
    """
    if plies <= 1 or game_result(board) != 0:
        eval_kernel(np.int64(0), W1, b1, W2, b2, pr, pc, board, x, h, out)
        return
    if plies == 2:
        _value2(W1, b1, W2, b2, pr, pc, board, ws, rows, x, h, out)
        return
    sub = np.zeros(5)
    inv = np.zeros(5)
    acc = np.zeros(5)
    best_plays(W1, b1, W2, b2, board, np.int64(1), np.int64(1), np.bool_(True), ws, rows)
    bs = np.empty((21, 26), dtype=np.int8)
    for k in range(21):
        bs[k, :] = ws[5][rows[k]]
    for k in range(21):
        w = (1.0 if _R1[k] == _R2[k] else 2.0) / 36.0
        nxt = flip(bs[k])
        if plies == 3 or game_result(nxt) != 0:
            _value2(W1, b1, W2, b2, pr, pc, nxt, ws, rows, x, h, sub)
        else:  # plies == 4
            acc2 = np.zeros(5)
            best_plays(W1, b1, W2, b2, nxt, np.int64(1), np.int64(1), np.bool_(True), ws, rows)
            bs2 = np.empty((21, 26), dtype=np.int8)
            for k2 in range(21):
                bs2[k2, :] = ws[5][rows[k2]]
            sub2 = np.zeros(5)
            inv2 = np.zeros(5)
            for k2 in range(21):
                w2 = (1.0 if _R1[k2] == _R2[k2] else 2.0) / 36.0
                _value2(W1, b1, W2, b2, pr, pc, flip(bs2[k2]), ws, rows, x, h, sub2)
                invert(sub2, inv2)
                for j in range(5):
                    acc2[j] += w2 * inv2[j]
            sub[:] = acc2
        invert(sub, inv)
        for j in range(5):
            acc[j] += w * inv[j]
    out[:] = acc


@njit(cache=True)
def choose_play(W1, b1, W2, b2, pr, pc, board, d1, d2, plies, filter_max, threshold, ws, rows,
                moves, mws, eqs, x, h, nb):
    """Write to ``nb[26]`` the play (mover's view, not flipped) chosen at ``plies`` for ``d1 d2``.

    Every legal play scored at 1-ply; the best ``filter_max`` within
    ``threshold`` of the best re-scored at ``plies`` (:func:`value_inc` of the
    board after it, turned to the mover's view); best cubeless money equity
    wins, ties to the better 1-ply play (as :func:`playout.backgammon.search.choose_move`).
    Scratch: ``moves[MAX_MOVES, 26]``, ``mws`` (:func:`playout.backgammon.moves.new_workspace`),
    ``eqs[MAX_MOVES]``.  Returns the number of plays searched at ``plies``.
    """
    n = legal_moves_ws(board, d1, d2, moves, mws[0], mws[1], mws[2])
    o = np.zeros(5)
    cur = np.zeros(5)
    for i in range(n):
        eval_after_move(np.int64(0), W1, b1, W2, b2, pr, pc, moves[i], x, h, o, cur)
        eqs[i] = money_equity(cur)
    order = np.argsort(-eqs[:n], kind="mergesort")  # stable: ties keep generation order
    bi = order[0]
    searched = 0
    if n > 1 and plies > 1:
        top = eqs[order[0]]
        best = -1e300
        inv = np.zeros(5)
        for j in range(min(n, filter_max)):
            i = order[j]
            if eqs[i] < top - threshold:
                break
            value_inc(W1, b1, W2, b2, pr, pc, flip(moves[i]), plies, ws, rows, x, h, cur)
            invert(cur, inv)
            e = money_equity(inv)
            searched += 1
            if e > best:
                best = e
                bi = i
    nb[:] = moves[bi]
    return searched


@njit(cache=True)
def _roll_index(d1, d2):
    hi = max(d1, d2)
    lo = min(d1, d2)
    return hi * (hi - 1) // 2 + lo - 1


@njit(cache=True)
def rollout_trials_ply(W1, b1, W2, b2, pr, pc, board, first_trial, n_trials, seed, truncate, vr,
                       luck_keep, sched, filter_max, threshold, out):
    """Fill ``out[n_trials, 5]`` with (luck-adjusted) outcomes from the root side's view.

    Our net only (its kernel arguments less ``kind``).  Half-move ``i`` (from
    0) is played at ply ``sched[min(i, len(sched) - 1)]`` (:func:`choose_play`
    with ``filter_max``/``threshold``); everything else as
    :func:`playout.backgammon.rollout._rollout_trials_net`, whose trials a
    schedule of 1s reproduces exactly.  Luck is the 1-ply luck whatever the
    ply (unbiased: see the module docstring).
    """
    np.random.seed(seed)
    H = W1.shape[2]
    ws = new_inc_workspace(W2, pr)
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
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    mws = new_workspace()
    eqs = np.zeros(MAX_MOVES)
    ns = sched.shape[0]
    memo_ok = np.zeros(22, dtype=np.bool_)
    memo_mean = np.zeros((22, 5))
    memo_probs = np.zeros((22, 21, 5))
    memo_boards = np.zeros((22, 21, 26), dtype=np.int8)
    memo_pok = np.zeros((22, 21), dtype=np.bool_)  # the searched play of (slot, roll) is known
    memo_pboards = np.zeros((22, 21, 26), dtype=np.int8)
    probs = ws[6]
    boards = ws[5]
    for t in range(n_trials):
        tg = first_trial + t
        b = board.copy()
        side = 0
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
            P = sched[ply] if ply < ns else sched[ns - 1]
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
                if P > 1:
                    if not memo_pok[slot, kd]:
                        choose_play(W1, b1, W2, b2, pr, pc, b, d1, d2, P, filter_max, threshold,
                                    ws, rows, moves, mws, eqs, x, h, nb)
                        memo_pboards[slot, kd, :] = nb
                        memo_pok[slot, kd] = True
                    nb[:] = memo_pboards[slot, kd]
                else:
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
                if P > 1:  # after the luck's values are read: this overwrites ws
                    choose_play(W1, b1, W2, b2, pr, pc, b, d1, d2, P, filter_max, threshold,
                                ws, rows, moves, mws, eqs, x, h, nb)
            elif P > 1:
                choose_play(W1, b1, W2, b2, pr, pc, b, d1, d2, P, filter_max, threshold,
                            ws, rows, moves, mws, eqs, x, h, nb)
            else:
                best_plays(W1, b1, W2, b2, b, d1, d2, np.bool_(False), ws, rows)
                val[:] = probs[rows[0]]
                nb[:] = boards[rows[0]]
            if vr:
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
        if side == 1:
            invert(res, o)
            res[:] = o
        for j in range(5):
            out[t, j] = res[j] - luck[j]


# -- Python layer ------------------------------------------------------------------------------

def _net_args(evaluator: str):
    ev = get_evaluator(evaluator)
    args = ev.kernel_args()
    if args is None or int(args[0]) != 0:
        raise ValueError(f"--ply above 1: rollouts at more than one ply need our net or a .npz of "
                         f"it (not {ev.name})")
    return args[1:]


def play_at_ply(board, dice, ply: int, evaluator: str = "net", *, filter_max: int = FILTER_MAX,
                filter_threshold: float = FILTER_THRESHOLD) -> np.ndarray:
    """The play (board after it, mover's view, int8[26]) the rollout makes at ``ply`` for ``dice``."""
    args = _net_args(evaluator)
    W2, pr = args[2], args[4]
    nb = np.zeros(26, dtype=np.int8)
    choose_play(*args, np.ascontiguousarray(board, dtype=np.int8), np.int64(dice[0]),
                np.int64(dice[1]), np.int64(ply), np.int64(filter_max), float(filter_threshold),
                new_inc_workspace(W2, pr), np.zeros(22, dtype=np.int64),
                np.empty((MAX_MOVES, 26), dtype=np.int8), new_workspace(), np.zeros(MAX_MOVES),
                np.zeros(args[0].shape[1]), np.zeros(args[0].shape[2]), nb)
    return nb


def value_at_ply(board, ply: int, evaluator: str = "net") -> np.ndarray:
    """float64[5] = value(board, ply) for the side to act, by :func:`value_inc`."""
    args = _net_args(evaluator)
    out = np.zeros(5)
    value_inc(*args, np.ascontiguousarray(board, dtype=np.int8), np.int64(ply),
              new_inc_workspace(args[2], args[4]), np.zeros(22, dtype=np.int64),
              np.zeros(args[0].shape[1]), np.zeros(args[0].shape[2]), out)
    return out


def trials_ply(board, sched, *, evaluator: str = "net", first: int = 0, n: int = 36,
               seed: int = 1, truncate: int = 0, vr: bool = True, luck_keep: int = DEFAULT_KEEP,
               filter_max: int = FILTER_MAX, filter_threshold: float = FILTER_THRESHOLD):
    """float64[n, 5]: :func:`rollout_trials_ply` of pre-roll ``board`` (the kernel's seed as given)."""
    out = np.zeros((n, 5))
    rollout_trials_ply(*_net_args(evaluator), np.ascontiguousarray(board, dtype=np.int8),
                       int(first), int(n), int(seed), int(truncate), bool(vr), int(luck_keep),
                       np.asarray(sched, dtype=np.int64), int(filter_max), float(filter_threshold),
                       out)
    return out


def _rollout_ply_task(task: dict) -> dict:
    """Executor task: one chunk of trials for one root board (module-level: picklable)."""
    n = int(task["n"])
    out = trials_ply(task["board"], task["sched"], evaluator=task["evaluator"],
                     first=int(task["first"]), n=n, seed=int(task["seed"]),
                     truncate=int(task["truncate"]), vr=bool(task["vr"]),
                     luck_keep=int(task["luck_keep"]), filter_max=int(task["filter_max"]),
                     filter_threshold=float(task["filter_threshold"]))
    eq = 2 * out[:, 0] - 1 + out[:, 1] - out[:, 3] + out[:, 2] - out[:, 4]
    return {"n": n, "sum": out.sum(axis=0).tolist(), "eq_sum": float(eq.sum()),
            "eq_sq": float((eq * eq).sum())}


def rollout_ply(boards, *, ply="1", evaluator: str = "net", trials: int = 1296, truncate: int = 0,
                vr: bool = True, luck: str = "ranked", seed: int = 1, chunk: int = 144,
                workers: int | None = 0, out_path=None, description: str | None = None,
                post_move: bool = True, ray_address: str | None = None,
                cube_owner: str | None = None, jacoby: bool = True, cubeful: bool = False,
                filter_max: int = FILTER_MAX,
                filter_threshold: float = FILTER_THRESHOLD) -> list[dict]:
    """:func:`playout.backgammon.rollout.rollout` with plays chosen by the ply schedule ``ply``.

    ``ply``: schedule text or a tuple from :func:`parse_schedule`.  Cubeless
    trials only (``cubeful=True``: ValueError).  A schedule of 1-ply throughout *is* today's rollout (that
    function is called: same results, same resumable ``out_path`` files);
    otherwise the same chunking, seeds (``seed * 1_000_003 + first``),
    quasi-random dice, resume/extend of ``out_path`` (the schedule and filter
    are part of the file's setup) and result dicts, each with ``"ply"`` (the
    schedule as text).  ValueError for a bad schedule or an evaluator other than our net.
    """
    from playout.backgammon.rollout import rollout as rollout1

    if cubeful:
        raise ValueError("ply: cubeful trials are played at 1-ply (rollout.rollout(cubeful=True))")
    sched = parse_schedule(ply) if isinstance(ply, str) else tuple(int(p) for p in ply)
    if not sched or any(not 1 <= p <= 4 for p in sched):
        raise ValueError(f"ply: {ply!r} (plies 1..4 in XG numbering)")
    text = describe_schedule(sched)
    if all(p == 1 for p in sched):
        res = rollout1(boards, evaluator=evaluator, trials=trials, truncate=truncate, vr=vr,
                       luck=luck, seed=seed, chunk=chunk, workers=workers, out_path=out_path,
                       description=description, post_move=post_move, ray_address=ray_address,
                       cube_owner=cube_owner, jacoby=jacoby)
        for r in res:
            r["ply"] = text
        return res
    keep = {"ranked": DEFAULT_KEEP, "full": 0}.get(luck)
    if keep is None:
        raise ValueError(f"luck: {luck!r} (ranked or full)")
    if cube_owner not in (None, "centered", "player", "opponent"):
        raise ValueError(f"cube_owner: {cube_owner!r} (centered, player or opponent)")
    _net_args(evaluator)
    from playout.executor import run_tasks

    tasks = []
    for ci, b in enumerate(boards):
        b = np.asarray(b, dtype=np.int8)
        root = flip(b) if post_move else b
        for first in range(0, trials, chunk):
            n = min(chunk, trials - first)
            tasks.append({"key": f"{ci}:{first}-{first + n}", "board": [int(v) for v in root],
                          "first": first, "n": n, "seed": seed * 1_000_003 + first,
                          "truncate": truncate, "vr": vr, "luck_keep": keep,
                          "evaluator": evaluator, "sched": list(sched),
                          "filter_max": filter_max, "filter_threshold": filter_threshold})
    setup = {"kind": "bg-rollout-ply", "evaluator": evaluator, "truncate": truncate, "vr": vr,
             "luck": luck, "seed": seed, "chunk": chunk, "post_move": post_move,
             "sched": list(sched), "filter_max": filter_max,
             "filter_threshold": filter_threshold,
             "boards": [[int(v) for v in b] for b in boards]}
    if tasks:
        import sys
        import threading

        note = threading.Timer(3.0, lambda: print(
            "playout: compiling the n-ply rollout kernels (first use after an install or an "
            "update; cached afterwards)", file=sys.stderr, flush=True))
        note.start()
        try:
            _rollout_ply_task(dict(tasks[0], n=1))
        finally:
            note.cancel()
    if description:
        description = f"{description} ({chunk}-trial chunks, {text})"
    results = run_tasks(_rollout_ply_task, tasks, out_path=out_path, workers=workers,
                        ray_address=ray_address, description=description, setup=setup,
                        unit="chunks")
    per = [{"n": 0, "sum": np.zeros(5), "eq_sum": 0.0, "eq_sq": 0.0} for _ in boards]
    for t, r in zip(tasks, results):
        p = per[int(t["key"].split(":")[0])]
        p["n"] += r["n"]
        p["sum"] += np.array(r["sum"])
        p["eq_sum"] += r["eq_sum"]
        p["eq_sq"] += r["eq_sq"]
    out = []
    for b, p in zip(boards, per):
        n = p["n"]
        probs = p["sum"] / n
        eq = p["eq_sum"] / n
        se = float(np.sqrt(max(p["eq_sq"] / n - eq * eq, 0.0) / max(n - 1, 1)))
        if post_move:
            probs = np.array([1 - probs[0], probs[3], probs[4], probs[1], probs[2]])
            eq = -eq
        shown = np.clip(probs, 0.0, 1.0)  # as rollout(): clipped, consistent; equity unclipped
        sanitize(shown)
        row = {"board": [int(v) for v in b], "probs": [round(float(v), 6) for v in shown],
               "equity": round(float(eq), 6), "std_error": round(se, 6), "trials": n,
               "ply": text}
        if cube_owner is not None:
            from playout.backgammon.cube import cube_efficiency, cubeful_equity

            row["cubeful_equity"] = round(cubeful_equity(shown, cube_owner, cube_efficiency(b),
                                                         jacoby=jacoby), 6)
        out.append(row)
    return out


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "net.py", "evaluators.py",
                                       "search.py", "incremental.py", "features.py", "luck.py",
                                       "bearoff.py", "classes.py"))
