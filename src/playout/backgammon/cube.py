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

Match play (``match_length > 0``): equities are match winning chances (MWC)
from the Kazaross-XG2 table (:mod:`playout.backgammon.met`).  The six outcomes'
MWCs at the cube in question are normalised so that +-1 = winning/losing the
cube's value (gnubg's ``mwc2eq``); Janowski's model below then runs on these
match-specific gammon values and the result is mapped back to MWC.  ``DP`` =
the MWC after winning the present cube; no doubling in the Crawford game (dead
cube there).  A cube is *dead* for a side that needs no more points than its
value (it can never gain by doubling): its live part is dropped for that side
(double match point: every equity is the cubeless MWC).  This transfers
Janowski's money model to match scores; it is an approximation (gnubg's
match-play model also accounts for the cube's value being capped by the score).

Decisions (equities for the side to act, in units of the current cube):
``ND`` = cubeful equity with the cube where it is; ``DT`` = 2 x the equity with
the opponent owning a doubled cube; ``DP`` = +1.  With beavers allowed and
``DT < 0`` the taker beavers and ``DT`` doubles again.  Jacoby: with a centred
cube gammons do not count for ``ND`` (W = L = 1).  Double if
``min(DT, DP) > ND``; take if ``DT <= DP``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

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


@njit(cache=True)
def janowski_live(win, W, L, owner, x):
    """Janowski's cubeful equity (cube value 1) as numbers, for kernels too.

    ``owner``: 0 centred, 1 the side to act, 2 the opponent.  ``W``/``L``: average
    value of a win/loss (gammons included); ``x``: cube efficiency.  Janowski,
    "Take-points in money games" (1993): equity = x * live-cube + (1 - x) * dead-cube.
    """
    dead = win * (W + L) - L
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    if owner == 1:
        live = -L + (1.0 + L) * win / cp if win < cp else 1.0
    elif owner == 2:
        live = -1.0 if win < tp else -1.0 + (W + 1.0) * (win - tp) / (1.0 - tp)
    elif win < tp:
        live = -L + (L - 1.0) * win / tp
    elif win < cp:
        live = -1.0 + 2.0 * (win - tp) / (cp - tp)
    else:
        live = 1.0 + (W - 1.0) * (win - cp) / (1.0 - cp)
    return x * live + (1.0 - x) * dead


def janowski(win: float, W: float, L: float, owner: str, x: float) -> float:
    """Janowski's cubeful equity from P(win), average win/loss values W, L and efficiency x."""
    return float(janowski_live(win, W, L, OWNERS.index(owner), x))


def cubeful_equity(p, owner: str, x: float, *, jacoby: bool = False) -> float:
    """Janowski cubeful money equity (cube value 1) for the side to act, ``owner`` in OWNERS."""
    if owner not in OWNERS:
        raise ValueError(f"cube_owner: {owner!r} (must be one of {', '.join(OWNERS)})")
    win, W, L = _wl(p)
    if jacoby and owner == "centered":
        W = L = 1.0
    return janowski(win, W, L, owner, x)


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


def _match_cubeful(p, away, v, owner, x, crawford_state):
    """Cubeful MWC at cube ``v``: Janowski on match-normalised outcome values.

    The six outcomes' MWCs (Kazaross-XG2) are normalised so that winning /
    losing ``v`` points is +1 / -1 (gnubg's ``mwc2eq``); the gammon outcomes
    then give the match's W and L, Janowski's model gives the cubeful
    normalised equity, mapped back to MWC.
    """
    from playout.backgammon.met import mwc_after

    a, b = away
    w, wg, wbg, lg, lbg = (float(t) for t in p)
    m = [mwc_after(a, b, n * v, crawford_state) for n in (1, 2, 3, -1, -2, -3)]
    hi, lo = m[0], m[3]
    span = max(hi - lo, 1e-12)
    eq = [(2 * t - (hi + lo)) / span for t in m]
    win = min(max(w, 1e-9), 1 - 1e-9)
    W = ((w - wg) * eq[0] + (wg - wbg) * eq[1] + wbg * eq[2]) / win
    L = -(((1 - w) - lg) * eq[3] + (lg - lbg) * eq[4] + lbg * eq[5]) / (1 - win)
    owner, x = _live_owner(owner, v < a, v < b, x)
    e = janowski(win, W, L, owner, x)
    return lo + (e + 1.0) / 2.0 * span


def _live_owner(owner, live_me, live_opp, x):
    """(owner, efficiency) for Janowski's model once dead cubes are taken out.

    A cube of value ``v`` is dead for a side that needs no more than ``v`` points: winning
    at ``v`` already wins it the match, so it can never gain by doubling (gnubg's dead-cube
    rule; e.g. double match point, or the taker's cube after 2-away/2-away is doubled).  A
    cube dead for its owner is worth nothing (``x = 0``: the cubeless equity); a centred
    cube that only one side can use is treated as owned by that side.
    """
    if owner == "player":
        return owner, x if live_me else 0.0
    if owner == "opponent":
        return owner, x if live_opp else 0.0
    if live_me and live_opp:
        return owner, x
    if live_me:
        return "player", x
    if live_opp:
        return "opponent", x
    return owner, 0.0


def match_cube_action(p, cube_value: int, cube_owner: str, match_length: int,
                      score: tuple[int, int], crawford: bool = False,
                      post_crawford: bool = False, x: float = 0.68) -> CubeDecision:
    """Match-play cube decision in match winning chances (see the module docstring)."""
    from playout.backgammon.met import mwc_after

    a = match_length - score[0]
    b = match_length - score[1]
    if a < 1 or b < 1:
        raise ValueError(f"score: {score} is not below the match length {match_length}")
    state = "crawford" if crawford else ("post" if post_crawford else "pre")
    v = cube_value
    eff = 0.0 if crawford else x
    nd = _match_cubeful(p, (a, b), v, cube_owner, eff, state)
    dt = _match_cubeful(p, (a, b), 2 * v, "opponent", eff, state)
    dp = mwc_after(a, b, v, state)
    can = cube_owner in ("centered", "player") and not crawford
    double = can and min(dt, dp) > nd
    take = dt <= dp
    if not can:
        action = "No double (cube not available)"
    elif double:
        action = "Double, take" if take else "Double, pass"
    else:
        action = "No double, take" if take else "Too good, pass"
    return CubeDecision(round(nd, 6), round(dt, 6), round(dp, 6), bool(double), bool(take), False,
                        can, [round(float(t), 6) for t in p], eff, action)


def cube_action(board26, cube_value: int = 1, cube_owner: str = "centered",
                evaluator: Evaluator | None = None, ply: int = 1, *, jacoby: bool = True,
                beaver: bool = True, probs=None, match_length: int = 0,
                score: tuple[int, int] = (0, 0), crawford: bool = False,
                post_crawford: bool = False) -> CubeDecision:
    """Cube decision for the side to act in pre-roll ``board26`` (see the module docstring).

    Money (``match_length`` 0): Janowski, equities per unit of the current cube
    (multiply by ``cube_value`` for points).  Match play: match winning chances
    (Kazaross-XG2), ``score`` = (side to act, opponent) points, ``crawford`` =
    this is the Crawford game, ``post_crawford`` = it has been played.
    """
    if cube_owner not in OWNERS:
        raise ValueError(f"cube_owner: {cube_owner!r} (must be one of {', '.join(OWNERS)})")
    if cube_value < 1 or cube_value & (cube_value - 1):
        raise ValueError(f"cube_value: {cube_value} is not a power of two")
    evaluator = evaluator or get_evaluator()
    p = np.asarray(probs if probs is not None else pre_roll_probs(evaluator, board26, ply))
    if match_length:
        return match_cube_action(p, cube_value, cube_owner, match_length, score, crawford,
                                 post_crawford, cube_efficiency(board26))
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
