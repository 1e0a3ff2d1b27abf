"""n-ply checker play (XG numbering: 1-ply = the raw evaluator; gnubg calls it 0-ply).

``value(b, 1)`` = the evaluator's five probabilities for the side to act in
pre-roll board ``b``; ``value(b, P)`` averages, over the 21 rolls weighted by
1/36 or 2/36, the inverted ``value(flip(m), P - 1)`` of the play ``m`` the side
to act picks with that roll at 1-ply (gnubg's scheme: replies chosen by the
raw net, then searched deeper).  A candidate play ``m`` is scored at ply ``P``
by the mover's view of ``value(flip(m), P)``.

Move filter (gnubg-like): every candidate is scored at 1-ply; those within
``filter_threshold`` (default 0.16) of the best, at most ``filter_max``
(default 8), are searched at the requested ply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from playout.backgammon.board import flip, game_result
from playout.backgammon.evaluators import Evaluator, eval_after_move, eval_kernel, get_evaluator
from playout.backgammon.moves import (MAX_MOVES, legal_moves, legal_moves_into, legal_moves_ws,
                                      new_workspace)
from playout.backgammon.net import invert, money_equity
from playout.jitcache import announce_compile, flush_stale_caches, siblings

_R1 = np.array([1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6], dtype=np.int64)
_R2 = np.array([1, 1, 2, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6], dtype=np.int64)


@njit(cache=True)
def best_reply(kind, W1, b1, W2, b2, pr, pc, board, d1, d2, moves, ws, x, h, o, oi):
    """(index, count) of the 1-ply best play for the side to act with ``d1 d2``.

    ``ws`` is a workspace from :func:`playout.backgammon.moves.new_workspace`;
    the best play's probabilities (mover's view) are left in ``oi``.
    """
    n = legal_moves_ws(board, d1, d2, moves, ws[0], ws[1], ws[2])
    cur = np.empty(5)
    return _best_of(kind, W1, b1, W2, b2, pr, pc, moves, n, x, h, o, oi, cur), n


@njit(cache=True, _nrt=False)
def _best_of(kind, W1, b1, W2, b2, pr, pc, moves, n, x, h, o, oi, cur):
    """Index of the best of plays ``moves[:n]`` (first wins ties); its probabilities in ``oi``.

    Compiled without reference counting (it allocates nothing; ``cur[5]`` is scratch): numba's
    atomic incref/decref of the arrays passed per play otherwise cost ~10%.
    """
    best = -1e9
    bi = 0
    for i in range(n):
        eval_after_move(kind, W1, b1, W2, b2, pr, pc, moves[i], x, h, o, cur)
        e = money_equity(cur)
        if e > best:
            best = e
            bi = i
            for k in range(5):
                oi[k] = cur[k]
    return bi


@njit(cache=True)
def value_ply(kind, W1, b1, W2, b2, pr, pc, board, plies, out):
    """``out[5]`` = value(board, plies) for the side to act (see the module docstring)."""
    x = np.zeros(W1.shape[1])
    h = np.zeros(W1.shape[2])
    o = np.zeros(5)
    oi = np.zeros(5)
    if plies <= 1 or game_result(board) != 0:
        eval_kernel(kind, W1, b1, W2, b2, pr, pc, board, x, h, out)
        return
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    ws = new_workspace()
    acc = np.zeros(5)
    sub = np.zeros(5)
    for r in range(21):
        d1 = _R1[r]
        d2 = _R2[r]
        w = (1.0 if d1 == d2 else 2.0) / 36.0
        bi, n = best_reply(kind, W1, b1, W2, b2, pr, pc, board, d1, d2, moves, ws, x, h, o, oi)
        nxt = flip(moves[bi])
        value_ply(kind, W1, b1, W2, b2, pr, pc, nxt, plies - 1, sub)
        invert(sub, oi)
        for k in range(5):
            acc[k] += w * oi[k]
    out[:] = acc


@dataclass
class Candidate:
    """One play: the board after it (mover's view), its probabilities/equity, the ply used."""

    board: np.ndarray
    probs: np.ndarray
    equity: float
    ply: int

    def to_json(self) -> dict:
        return {"board": [int(v) for v in self.board], "probs": [round(float(p), 6) for p in self.probs],
                "equity": round(float(self.equity), 6), "ply": self.ply}


@dataclass
class MoveChoice:
    """Result of :func:`choose_move`: the chosen board and all candidates, best first."""

    board: np.ndarray
    candidates: list[Candidate] = field(default_factory=list)
    ply: int = 1

    @property
    def equity(self) -> float:
        return self.candidates[0].equity


def _searching(evaluator: Evaluator, ply: int) -> Evaluator:
    """An adapter's own search at ``ply`` (gnubg, bgsage); ValueError if it has none."""
    ev = evaluator.at_ply(ply)
    if ev is None:
        raise ValueError(f"{evaluator.name}: only 1-ply is available through this adapter")
    return ev


def post_move_probs(evaluator: Evaluator, boards, ply: int) -> np.ndarray:
    """float64[n, 5] from the mover's view of post-move ``boards`` at ``ply`` (XG numbering)."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.zeros((len(boards), 5))
    flipped = np.stack([flip(b) for b in boards]) if len(boards) else boards
    args = evaluator.kernel_args()
    if args is None:
        p = _searching(evaluator, ply).evaluate(flipped)
        return np.stack([p[:, 0] * 0 + 1 - p[:, 0], p[:, 3], p[:, 4], p[:, 1], p[:, 2]], axis=1)
    tmp = np.zeros(5)
    inv = np.zeros(5)
    for i, fb in enumerate(flipped):
        value_ply(*args, fb, ply, tmp)
        invert(tmp, inv)
        out[i] = inv
    return out


def pre_roll_probs(evaluator: Evaluator, board, ply: int = 1) -> np.ndarray:
    """float64[5] for the side to act in pre-roll ``board`` at ``ply`` (XG numbering)."""
    b = np.ascontiguousarray(board, dtype=np.int8)
    args = evaluator.kernel_args()
    if args is None:
        return _searching(evaluator, ply).evaluate(b[None])[0]
    _announce_compile(value_ply)  # the one kernel this calls from Python
    out = np.zeros(5)
    value_ply(*args, b, ply, out)
    return out


def _announce_compile(*kernels) -> None:
    """One stderr line when the n-ply kernels are about to compile (cold cache; a first
    ``bg eval``/``hint`` on the 2-core reference machine, benchmarks/compile_cost.py).
    ``kernels``: the ones the caller runs from Python (default: those of a checker play);
    a kernel only called from inside another has no cache of its own, so naming it would
    announce a compile on every run."""
    announce_compile("the backgammon evaluation and n-ply kernels", "~10 s",
                     *(kernels or (value_ply, legal_moves_into)))


def choose_move(board26, dice, evaluator: Evaluator | None = None, ply: int = 1, *,
                filter_max: int = 8, filter_threshold: float = 0.16) -> MoveChoice:
    """Rank the legal plays of ``dice`` from ``board26`` and pick the best (cubeless money equity).

    ``ply`` in XG numbering (1 = raw evaluator); ``evaluator`` default the shipped network for
    that depth (:func:`playout.backgammon.evaluators.default_net`).  Candidates outside the move
    filter keep their 1-ply scores and rank below the searched ones.
    """
    if ply < 1:
        raise ValueError(f"ply: must be >= 1 in XG numbering (gnubg's 0-ply is our 1-ply), got {ply}")
    evaluator = evaluator or get_evaluator(ply=ply)
    if evaluator.kernel_args() is not None:
        _announce_compile()
    d1, d2 = int(dice[0]), int(dice[1])
    moves = legal_moves(board26, d1, d2)
    probs1 = post_move_probs(evaluator, moves, 1)
    eq1 = np.array([float(money_equity(p)) for p in probs1])
    order = np.argsort(-eq1, kind="stable")
    cands = [Candidate(moves[i], probs1[i], eq1[i], 1) for i in order]
    if ply > 1 and len(moves) > 1:
        keep = [c for c in cands[:filter_max] if c.equity >= cands[0].equity - filter_threshold]
        deep = post_move_probs(evaluator, np.stack([c.board for c in keep]), ply)
        for c, p in zip(keep, deep):
            c.probs = p
            c.equity = float(money_equity(p))
            c.ply = ply
        rest = cands[len(keep):]
        cands = sorted(keep, key=lambda c: -c.equity) + rest
    return MoveChoice(cands[0].board, cands, ply)


def parse_ply(text: str | int) -> int:
    """A ply in XG numbering from ``"2"``/``"2ply"`` (XG) or gnubg's ``"1g"``/``"gnubg:1"`` spelling.

    gnubg's N-ply = our N+1; ``"0"`` and ``"0ply"`` (meaningless in XG numbering) are read as
    gnubg's 0-ply = 1-ply.
    """
    t = str(text).strip().lower().removesuffix("ply").removesuffix("-")
    gnubg = t.endswith("g") or t.startswith("gnubg:")
    t = t.replace("gnubg:", "").removesuffix("g")
    try:
        n = int(t)
    except ValueError:
        raise ValueError(f"ply: {text!r} is not a ply (e.g. 1, 2, 3, or gnubg's 0g/1g/2g)") from None
    if t.startswith("-"):  # "-1" is no ply (before: its sign was dropped with "2-ply"'s hyphen)
        raise ValueError(f"ply: {text!r} is out of range (1..4 in XG numbering)")
    if gnubg or n == 0:
        n += 1
    if not 1 <= n <= 4:
        raise ValueError(f"ply: {text!r} is out of range (1..4 in XG numbering)")
    return n


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "net.py", "evaluators.py",
                                       "features.py", "bearoff.py", "classes.py"))
