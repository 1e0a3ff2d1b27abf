"""Cube decisions from cubeless probabilities: GNU Backgammon 1.07's 0-ply cube model.

We follow gnubg's own model (``eval.c`` / ``matchequity.c`` of gnubg 1.07; the
cross-check :mod:`playout.backgammon.cube_crosscheck` compares every figure
with Debian gnubg 1.07's ``hint``/``eval``).  Our code, gnubg's formulas:

**Cube efficiency** ``x`` (gnubg's ``EvalEfficiency``): 0.68 in contact and
crashed positions; 0.6 when both sides are in their home boards (gnubg's
one-sided bear-off class); in other races ``0.55 + 0.00125 * pips`` of the side
on roll, clipped to [0.6, 0.7].  Cubeful equity = ``x * live + (1 - x) * dead``.

**Money** (Janowski, "Take-Points in Money Games", 1993; gnubg's
``Cl2CfMoney``): with average win/loss values ``W = 1 + (P(wg) + P(wbg)) / p``,
``L = 1 + (P(lg) + P(lbg)) / (1 - p)``, take point ``TP = (L - 1/2) / (W + L + 1/2)``
and cash point ``CP = (L + 1) / (W + L + 1/2)``, the live-cube equity (per unit
cube) is piecewise linear in ``p``:

* centred: (0, -L) -> (TP, -1) -> (CP, +1) -> (1, W);
* owned by the side on roll: (0, -L) -> (CP, +1) -> (1, W);
* owned by the opponent: (0, -L) -> (TP, -1) -> (1, W).

The dead part is the cubeless equity.  Jacoby rule (only while the cube is
centred): gammons count nothing in the dead part and the live part is flat
(-1 below TP, +1 above CP).  A finished game (``p`` 0 or 1) is worth its
cubeless value: points (gammons per the Jacoby rule) x cube value.
``ND`` = cubeful equity as the cube is; ``DT`` = 2 x the equity with the
opponent owning a 2-cube (gnubg's figure, not doubled again for a beaver);
``DP`` = +1.

**Match play** (gnubg's ``GetPoints`` and ``Cl2CfMatchCentered`` /
``Cl2CfMatchOwned`` / ``Cl2CfMatchUnavailable``): equities are match winning
chances (MWC) from the Kazaross-XG2 table (:mod:`playout.backgammon.met`;
post-Crawford table whenever this game is the Crawford game or a side is
already 1-away).  Each side's live-cube cash point is computed from the top
cube level down: at the level where the doubled cube would be dead for either
side it is the opponent's dead-cube take point (counting an automatic redouble
by a side that cannot lose more), below it ``CP_k(n) = 1 - CP_opp(n + 1) *
(DP - DTW) / (RDP - DTW)``.  The live MWC is then linear between the loss /
cash / win MWCs at these points (gammon rates included), mixed with the
cubeless MWC by ``x``.  The cube is dead (cubeless MWC) in the Crawford game,
at 2-away/2-away, and when both sides need no more points than its value.  A
side may double only if it is not the Crawford game, its away score exceeds
the cube value (the cube is capped by the score) and it is not the leader of a
post-Crawford game.  ``DP`` = MWC after winning the present cube.

**Actions** follow gnubg's ``FindBestCubeDecision``: double if ``DT >= ND``
and ``DP >= ND`` (equities normalised to the present cube); take if
``DT < DP``; "optional" when ND and DT (or ND and DP, with gammons possible
outside a Jacoby centred money cube) are within 1e-5; money beavers when
``-2 <= DT <= 0`` (and no double if ``2 DT < ND``).  The strings are gnubg's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from playout.backgammon.board import is_race
from playout.backgammon.evaluators import Evaluator, get_cube_evaluator
from playout.backgammon.search import pre_roll_probs

OWNERS = ("centered", "player", "opponent")
CONTACT_X = 0.68   # gnubg rContactX, rCrashedX
BEAROFF_X = 0.6    # gnubg rOSCubeX (both sides home)
RACE_FACTOR, RACE_COEFF, RACE_MIN, RACE_MAX = 0.00125, 0.55, 0.6, 0.7  # gnubg race efficiency
OPTIONAL_EPS = 1e-5  # gnubg isOptional


def cube_efficiency(board) -> float:
    """gnubg's cube efficiency x of a pre-roll board26 (side on roll); see the module docstring."""
    b = np.asarray(board, dtype=np.int8)
    return float(_efficiency(b))


@njit(cache=True)
def _efficiency(b):
    if not is_race(b):
        return CONTACT_X
    home = True
    for p in range(7, 25):
        if b[p] > 0:
            home = False
    for p in range(1, 19):
        if b[p] < 0:
            home = False
    if home:
        return BEAROFF_X
    pips = 0
    for p in range(1, 25):
        if b[p] > 0:
            pips += int(b[p]) * p
    return min(RACE_MAX, max(RACE_MIN, RACE_COEFF + RACE_FACTOR * pips))


@njit(cache=True)
def money_cubeful(p, owner, x, jacoby):
    """gnubg's ``Cl2CfMoney``: cubeful money equity per unit cube of ``p`` (5 probabilities).

    ``owner``: 0 centred, 1 the side to act, 2 the opponent; ``x``: cube efficiency;
    ``jacoby``: the Jacoby rule is in force (it applies only to a centred cube).
    """
    win = p[0]
    jac = jacoby and owner == 0
    gp = 0.0 if jac else 1.0
    dead = 2.0 * win - 1.0 + gp * (p[1] - p[3] + p[2] - p[4])
    if win <= 1e-7 or win >= 0.9999999:
        return dead
    W = 1.0 + (p[1] + p[2]) / win
    L = 1.0 + (p[3] + p[4]) / (1.0 - win)
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    if owner == 0:
        if win < tp:
            live = -1.0 if jac else -L + (L - 1.0) * win / tp
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 if jac else 1.0 + (W - 1.0) * (win - cp) / (1.0 - cp)
    elif owner == 1:
        if win < cp:
            live = -L + (1.0 + L) * win / cp
        else:
            live = 1.0 + (W - 1.0) * (win - cp) / (1.0 - cp)
    else:
        if win < tp:
            live = -L + (L - 1.0) * win / tp
        else:
            live = -1.0 + (W + 1.0) * (win - tp) / (1.0 - tp)
    return x * live + (1.0 - x) * dead


def cubeful_equity(p, owner: str, x: float, *, jacoby: bool = False) -> float:
    """Cubeful money equity (per unit cube) for the side to act, ``owner`` in OWNERS."""
    if owner not in OWNERS:
        raise ValueError(f"cube_owner: {owner!r} (must be one of {', '.join(OWNERS)})")
    return float(money_cubeful(np.asarray(p, dtype=np.float64), OWNERS.index(owner), float(x),
                               bool(jacoby)))


@dataclass
class CubeDecision:
    """Cube action for the side to act.

    Money: equities per unit of the present cube; match play: MWC.  ``equity_dt`` is
    gnubg's DT (a beaver is shown by ``is_beaver`` and the action, not folded into DT).
    ``optimal_action`` is gnubg's wording.
    """

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


# -- match play -------------------------------------------------------------------------------

class _Score:
    """Match state from the side on roll (index 0): away scores and the Crawford flag."""

    def __init__(self, away_me: int, away_opp: int, crawford: bool):
        self.away = (int(away_me), int(away_opp))
        self.crawford = bool(crawford)
        self.post = not crawford and (away_me == 1 or away_opp == 1)

    def mwc(self, k: int, winner: int, points: int) -> float:
        """MWC of side ``k`` when side ``winner`` wins ``points`` (gnubg's ``getME``)."""
        from playout.backgammon.met import mwc

        a = list(self.away)
        a[winner] -= points
        if a[0] <= 0 or a[1] <= 0:
            return 1.0 if a[k] <= 0 else 0.0
        table_post = self.crawford or self.away[0] == 1 or self.away[1] == 1
        m0 = mwc(a[0], a[1], post_crawford=table_post)
        return m0 if k == 0 else 1.0 - m0

    def outcome(self, k: int, winner: int, points: int, rates) -> float:
        """MWC of ``k`` when ``winner`` wins ``points`` x (1, 2, 3) with its gammon rates."""
        g, bg = rates[winner]
        return ((1.0 - g - bg) * self.mwc(k, winner, points) + g * self.mwc(k, winner, 2 * points)
                + bg * self.mwc(k, winner, 3 * points))

    def live_cube(self, cube: int) -> bool:
        """gnubg's ``fDoCubeful``: is the cube of value ``cube`` alive at all?"""
        a, b = self.away
        return not ((a <= cube and b <= cube) or (a == 2 and b == 2) or self.crawford)

    def can_double(self, cube: int, owner: str) -> bool:
        """gnubg's ``GetDPEq``: may the side on roll double a cube of value ``cube``?"""
        return (not self.crawford and self.away[0] > cube
                and not (self.post and self.away[0] == 1) and owner in ("centered", "player"))


def _rates(p):
    """Gammon-only and backgammon ratios of (side on roll's wins, opponent's wins)."""
    w = float(p[0])
    mine = ((p[1] - p[2]) / w, p[2] / w) if w > 0 else (0.0, 0.0)
    theirs = ((p[3] - p[4]) / (1 - w), p[4] / (1 - w)) if w < 1 else (0.0, 0.0)
    return (tuple(map(float, mine)), tuple(map(float, theirs)))


def match_cash_points(p, s: _Score, cube: int) -> tuple[float, float]:
    """gnubg's ``GetPoints``: live-cube cash points (side on roll, opponent) at ``cube``."""
    rates = _rates(p)
    i, j = s.away[0] - 1, s.away[1] - 1
    top, levels = cube, 0
    while i >= 2 * top and j >= 2 * top:
        levels += 1
        top *= 2
    cp = {}
    for n in range(levels, -1, -1):
        v = cube << n
        prime = (2 * v if (i < 2 * v <= j) else v, 2 * v if (j < 2 * v <= i) else v)
        for k in (0, 1):
            o = 1 - k
            dp = s.mwc(k, k, v)
            if i < 2 * v or j < 2 * v:  # the doubled cube is dead for a side
                dtl = s.outcome(k, o, 2 * prime[k], rates)
                dtw = s.outcome(k, k, 2 * prime[k], rates)
                cp[k, n] = (dtl - dp) / (dtl - dtw)
            else:
                rdp = s.mwc(k, o, 2 * v)
                dtw = s.outcome(k, k, 2 * v, rates)
                cp[k, n] = 1.0 - cp[o, n + 1] * (dp - dtw) / (rdp - dtw)
    return cp[0, 0], cp[1, 0]


def match_cubeful(p, s: _Score, cube: int, owner: str, x: float) -> float:
    """gnubg's ``Cl2CfMatch``: cubeful MWC of the side on roll, cube ``cube`` at ``owner``."""
    rates = _rates(p)
    w = float(p[0])
    dead = (s.outcome(0, 0, cube, rates) * w + s.outcome(0, 1, cube, rates) * (1 - w))
    if not s.live_cube(cube):
        return dead
    tg, cp_opp = match_cash_points(p, s, cube)
    opp_tg = 1.0 - cp_opp
    cash, opp_cash = s.mwc(0, 0, cube), s.mwc(0, 1, cube)
    lose, win_ = s.outcome(0, 1, cube, rates), s.outcome(0, 0, cube, rates)
    if owner == "centered":
        if w <= opp_tg:
            live = lose + (opp_cash - lose) * w / opp_tg if opp_tg > 0 else lose
        elif w < tg:
            live = opp_cash + (cash - opp_cash) * (w - opp_tg) / (tg - opp_tg)
        else:
            live = cash + (win_ - cash) * (w - tg) / (1 - tg) if tg < 1 else win_
    elif owner == "player":
        if w <= tg:
            live = lose + (cash - lose) * w / tg if tg > 0 else lose
        else:
            live = cash + (win_ - cash) * (w - tg) / (1 - tg) if tg < 1 else win_
    else:
        if w <= opp_tg:
            live = lose + (opp_cash - lose) * w / opp_tg if opp_tg > 0 else lose
        else:
            live = opp_cash + (win_ - opp_cash) * (w - opp_tg) / (1 - opp_tg)
    return dead * (1 - x) + live * x


# -- decisions ----------------------------------------------------------------------------------

def gnubg_action(nd: float, dt: float, dp: float, *, can_double: bool, centred: bool,
                 win_gammon: bool, money: bool, jacoby: bool = False, beaver: bool = False,
                 dead_cube: bool = False) -> str:
    """gnubg's ``FindBestCubeDecision`` wording for equities normalised to the present cube.

    ``dead_cube``: match play, the side may not double although the cube is centred or
    its own ("Never double, take (dead cube)").  Raises nothing; returns gnubg's text.
    """
    re = "" if centred else "re"
    Re = "D" if centred else "Red"
    if not can_double:
        if dead_cube:
            return f"Never {re}double, take (dead cube)"
        return "No double (cube not available)"
    opt = lambda a, b: abs(a - b) <= OPTIONAL_EPS  # noqa: E731
    beaver_zone = money and beaver and -2.0 <= dt <= 0.0
    if dt >= nd and dp >= nd:
        if dp > dt:
            o = opt(dt, nd)
            if beaver_zone:
                if 2 * dt < nd:
                    return "No double, beaver"
                return "Optional double, beaver" if o else "Double, beaver"
            return f"Optional {re}double, take" if o else f"{Re}ouble, take"
        if opt(nd, dp) and win_gammon and (not money or not centred or not jacoby):
            return f"Optional {re}double, pass"
        return f"{Re}ouble, pass"
    if nd > dt:
        if dt > dp:
            return f"Too good to {re}double, pass" if win_gammon else f"{Re}ouble, pass"
        if nd > dp:
            return f"Too good to {re}double, take" if win_gammon else f"No {re}double, take"
        if beaver_zone:
            return f"No {re}double, beaver"
        return f"No {re}double, take"
    return f"Too good to {re}double, pass" if win_gammon else f"{Re}ouble, pass"


def _decision(nd, dt, dp, action, can, p, x, *, is_beaver=False) -> CubeDecision:
    double = action.startswith(("Double", "Redouble", "Optional"))
    take = dt < dp
    return CubeDecision(round(nd, 7), round(dt, 7), round(dp, 7), bool(double and can),
                        bool(take), bool(is_beaver), bool(can), [round(float(t), 6) for t in p],
                        float(x), action)


def match_cube_action(p, cube_value: int, cube_owner: str, match_length: int,
                      score: tuple[int, int], crawford: bool = False,
                      post_crawford: bool | None = None, x: float = CONTACT_X) -> CubeDecision:
    """Match-play cube decision in MWC (gnubg 1.07's model; see the module docstring).

    ``score`` = (side to act, opponent) points; ``crawford``: this is the Crawford game.
    A game with a side 1-away that is not the Crawford game is post-Crawford (as gnubg
    derives it from the score; ``post_crawford`` is accepted for compatibility and must
    agree).  Raises ValueError for a score at or beyond the match length.
    """
    a = match_length - score[0]
    b = match_length - score[1]
    if a < 1 or b < 1:
        raise ValueError(f"score: {score} is not below the match length {match_length}")
    if crawford and a != 1 and b != 1:
        raise ValueError(f"crawford: no side is 1-away at {score} in a {match_length}-point match")
    s = _Score(a, b, crawford)
    if post_crawford is not None and post_crawford != s.post and not crawford:
        raise ValueError(f"post_crawford: {post_crawford} contradicts the score {score}")
    p = np.asarray(p, dtype=np.float64)
    v = int(cube_value)
    nd = match_cubeful(p, s, v, cube_owner, x)
    dt = match_cubeful(p, s, 2 * v, "opponent", x)
    dp = s.mwc(0, 0, v)
    can = s.can_double(v, cube_owner)
    hi, lo = s.mwc(0, 0, v), s.mwc(0, 1, v)
    eq = [(2 * t - (hi + lo)) / (hi - lo) for t in (nd, dt, dp)]
    action = gnubg_action(*eq, can_double=can, centred=cube_owner == "centered",
                          win_gammon=p[1] > 0, money=False,
                          dead_cube=cube_owner in ("centered", "player"))
    return _decision(nd, dt, dp, action, can, p, x)


def money_cube_action(p, cube_owner: str, x: float, *, jacoby: bool = True,
                      beaver: bool = True) -> CubeDecision:
    """Money cube decision per unit cube (gnubg 1.07's Janowski model)."""
    if cube_owner not in OWNERS:
        raise ValueError(f"cube_owner: {cube_owner!r} (must be one of {', '.join(OWNERS)})")
    p = np.asarray(p, dtype=np.float64)
    nd = cubeful_equity(p, cube_owner, x, jacoby=jacoby)
    dt = 2.0 * cubeful_equity(p, "opponent", x)
    dp = 1.0
    can = cube_owner in ("centered", "player")
    action = gnubg_action(nd, dt, dp, can_double=can, centred=cube_owner == "centered",
                          win_gammon=p[1] > 0, money=True, jacoby=jacoby, beaver=beaver)
    return _decision(nd, dt, dp, action, can, p, x,
                     is_beaver=bool(beaver and -2.0 <= dt <= 0.0 and dt < dp))


def check_cube(cube_value: int, cube_owner: str) -> None:
    """``ValueError`` unless ``cube_owner`` is one of :data:`OWNERS` and ``cube_value`` a power
    of two."""
    if cube_owner not in OWNERS:
        raise ValueError(f"cube_owner: {cube_owner!r} (must be one of {', '.join(OWNERS)})")
    if cube_value < 1 or cube_value & (cube_value - 1):
        raise ValueError(f"cube_value: {cube_value} is not a power of two")


def cube_action(board26, cube_value: int = 1, cube_owner: str = "centered",
                evaluator: Evaluator | None = None, ply: int = 1, *, jacoby: bool = True,
                beaver: bool = True, probs=None, match_length: int = 0,
                score: tuple[int, int] = (0, 0), crawford: bool = False,
                post_crawford: bool | None = None) -> CubeDecision:
    """Cube decision for the side to act in pre-roll ``board26`` (see the module docstring).

    Money (``match_length`` 0): equities per unit of the current cube (multiply by
    ``cube_value`` for points).  Match play: MWC, ``score`` = (side to act, opponent)
    points, ``crawford`` = this is the Crawford game (post-Crawford follows from the
    score).  ``probs``: the five cubeless probabilities to use instead of the evaluator's.

    ``ply`` (XG numbering): 1 = this module's 0-ply model on the evaluator's probabilities
    (gnubg's 0-ply); 2 and more = gnubg's cubeful n-ply search
    (:func:`playout.backgammon.cubeful.cube_decision`; ply 2 = gnubg's 1-ply) unless
    ``probs`` are given, which are always read with the 0-ply model.  ``evaluator``: ``None``
    is the default cube network (:data:`playout.backgammon.evaluators.DEFAULT_CUBE_NET`).
    """
    check_cube(cube_value, cube_owner)
    if probs is None and ply >= 2:
        from playout.backgammon.cubeful import cube_decision

        if match_length and post_crawford is not None and not crawford and \
                post_crawford != (1 in (match_length - score[0], match_length - score[1])):
            raise ValueError(f"post_crawford: {post_crawford} contradicts the score {score}")

        return cube_decision(board26, cube_value, cube_owner, evaluator, ply, jacoby=jacoby,
                             beaver=beaver, match_length=match_length, score=score,
                             crawford=crawford)
    x = cube_efficiency(board26)
    if probs is None:
        probs = pre_roll_probs(evaluator or get_cube_evaluator(), board26, ply)
    p = np.asarray(probs, dtype=np.float64)
    if match_length:
        return match_cube_action(p, cube_value, cube_owner, match_length, score, crawford,
                                 post_crawford, x)
    return money_cube_action(p, cube_owner, x, jacoby=jacoby, beaver=beaver)
