"""Money-game cube decisions from cubeless probabilities: Janowski's cube-efficiency model.

Source: Rick Janowski, "Take-Points in Money Games" (1993), as used by gnubg
("Cubeful equities", gnubg manual / ``eval.c``).  With P(win) ``p``, average
win value ``W = 1 + (P(wg) + P(wbg)) / p`` and loss value
``L = 1 + (P(lg) + P(lbg)) / (1 - p)``, the live-cube take point is
``TP = (L - 1/2) / (W + L + 1/2)`` and cash point ``CP = (L + 1) / (W + L + 1/2)``.
Live-cube equities (cube value 1, side to act) are piecewise linear in ``p``:

* cube owned by the side to act: from (0, -L) to (CP, +1), then +1;
* cube owned by the opponent: -1 up to TP, then to (1, W);
* centred: (0, -L) -> (TP, -1) -> (CP, +1) -> (1, W).

The cubeful equity is ``x * live + (1 - x) * dead`` with the dead (cubeless)
equity ``p (W + L) - L`` and cube efficiency ``x``: 0.68 in contact positions
(gnubg's default) and, in races, rising with the side to act's pip count
from 0.6 (short races) to 0.7 (long), as in gnubg's race efficiency.

Decisions (equities for the side to act, in units of the current cube):
``ND`` = cubeful equity with the cube where it is; ``DT`` = 2 x the equity with
the opponent owning a doubled cube; ``DP`` = +1.  With beavers allowed and
``DT < 0`` the taker beavers and ``DT`` doubles again.  Jacoby: with a centred
cube gammons do not count for ``ND`` (W = L = 1).  Double if
``min(DT, DP) > ND``; take if ``DT <= DP``.  Money play only; match play is not
implemented (no MET).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from playout.backgammon.board import is_race, pip_counts
from playout.backgammon.evaluators import Evaluator, get_evaluator
from playout.backgammon.search import pre_roll_probs

OWNERS = ("centered", "player", "opponent")


def cube_efficiency(board) -> float:
    """Janowski's x: 0.68 in contact; in a race 0.6..0.7 growing with the mover's pips."""
    b = np.asarray(board, dtype=np.int8)
    if not is_race(b):
        return 0.68
    pips, _ = pip_counts(b)
    return float(min(0.7, max(0.6, 0.55 + 0.00125 * pips)))


def _wl(p):
    win = min(max(float(p[0]), 1e-9), 1 - 1e-9)
    W = 1.0 + (p[1] + p[2]) / win
    L = 1.0 + (p[3] + p[4]) / (1.0 - win)
    return win, float(W), float(L)


def cubeful_equity(p, owner: str, x: float, *, jacoby: bool = False) -> float:
    """Janowski cubeful money equity (cube value 1) for the side to act, ``owner`` in OWNERS."""
    if owner not in OWNERS:
        raise ValueError(f"cube_owner: {owner!r} (must be one of {', '.join(OWNERS)})")
    win, W, L = _wl(p)
    if jacoby and owner == "centered":
        W = L = 1.0
    dead = win * (W + L) - L
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    if owner == "player":
        live = -L + (1.0 + L) * win / cp if win < cp else 1.0
    elif owner == "opponent":
        live = -1.0 if win < tp else -1.0 + (W + 1.0) * (win - tp) / (1.0 - tp)
    else:
        if win < tp:
            live = -L + (L - 1.0) * win / tp
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 + (W - 1.0) * (win - cp) / (1.0 - cp)
    return x * live + (1.0 - x) * dead


@dataclass
class CubeDecision:
    """Cube action for the side to act: equities per unit cube (ND, DT, DP) and the decisions."""

    equity_nd: float
    equity_dt: float
    equity_dp: float
    double: bool
    take: bool
    is_beaver: bool
    can_double: bool
    probs: list
    cube_efficiency: float
    optimal_action: str

    def to_json(self) -> dict:
        return asdict(self)


def cube_action(board26, cube_value: int = 1, cube_owner: str = "centered",
                evaluator: Evaluator | None = None, ply: int = 1, *, jacoby: bool = True,
                beaver: bool = True, probs=None) -> CubeDecision:
    """Money cube decision for the side to act in pre-roll ``board26`` (Janowski; see module doc).

    Equities are per unit of the current cube (multiply by ``cube_value`` for points).
    """
    if cube_owner not in OWNERS:
        raise ValueError(f"cube_owner: {cube_owner!r} (must be one of {', '.join(OWNERS)})")
    if cube_value < 1 or cube_value & (cube_value - 1):
        raise ValueError(f"cube_value: {cube_value} is not a power of two")
    evaluator = evaluator or get_evaluator()
    p = np.asarray(probs if probs is not None else pre_roll_probs(evaluator, board26, ply))
    x = cube_efficiency(board26)
    nd = cubeful_equity(p, cube_owner, x, jacoby=jacoby)
    dt = 2.0 * cubeful_equity(p, "opponent", x)
    beav = beaver and dt < 0.0
    if beav:
        dt *= 2.0
    dp = 1.0
    can = cube_owner in ("centered", "player")
    double = can and min(dt, dp) > nd
    take = dt <= dp
    if not can:
        action = "No double (cube not available)"
    elif double:
        action = ("Double, beaver" if beav else "Double, take") if take else "Double, pass"
    else:
        action = "No double, beaver" if beav else ("No double, take" if take else "Too good, pass")
    return CubeDecision(round(nd, 6), round(dt, 6), dp, bool(double), bool(take), bool(beav and take),
                        can, [round(float(v), 6) for v in p], x, action)
