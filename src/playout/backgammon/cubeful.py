"""Cubeful n-ply evaluation and cube decisions: GNU Backgammon 1.07's cubeful search.

gnubg's ``EvaluatePositionCubeful4`` / ``MakeCubePos`` / ``GetECF3`` (``eval.c``; the manual's
"cubeful evaluations"), restated; XG ply numbering (our ply 2 = gnubg's 1-ply, ply 3 = its
2-ply; ply 1 is :mod:`playout.backgammon.cube`'s 0-ply model).

**Cube states.**  Values are kept for a list of cube states at once, each seen from the side
on roll at a node: (cube value, owner: 0 centred, 1 the side on roll, 2 its opponent).  At
the root the list is [the cube as it is, the doubled cube owned by the opponent] (ND and the
DT state).  Going down one level every state ``s`` becomes two, ``s`` (no double) and, if
the side on roll may double ``s`` (gnubg's ``GetDPEq``: money, a centred or own cube; match
play, not the Crawford game, its away score above the cube value and not the post-Crawford
leader), ``D(s)`` = twice the value owned by the opponent; the root itself makes no cube
decision (gnubg's ``fTop``).  The child sees each state with the owner swapped.

**Node value** (side on roll ``A`` at pre-roll board ``b``):

* leaf (ply exhausted, or the game over): each state and its double get the Janowski
  cubeful value of the evaluator's cubeless probabilities at ``b``
  (:func:`playout.backgammon.cube.money_cubeful`, :func:`~playout.backgammon.cube.match_cubeful`,
  cube efficiency of ``b``);
* internal: for each of the 21 rolls ``A`` plays the move with the best *0-ply cubeful*
  value for the cube as it is at the root (gnubg's ``FindBestMovePlied`` at 0 plies with
  ``ciMove``, no pruning net): the child's leaf value for that one state, with the child's
  own cube decision (equal values: the better cubeless equity, gnubg's ``CompareMoves``);
  the node's values are the roll-weighted (1/36, 2/36) means of the
  chosen children's values, turned to ``A``'s view (money ``-v``, match ``1 - v``).

Then ``A``'s cube decision per state (``GetECF3``): with ``ND`` the no-double value, ``DT``
the doubled state's value (money: x 2, values being per unit of each state's own cube;
match: MWC) and ``DP`` (money +1; match the MWC of winning the present cube), the value is
``min(DT, DP)`` if ``DT >= ND`` and ``DP >= ND``, else ``ND``.  Beavers play no part inside
the tree (nor in gnubg's).  The root's ``ND``, ``DT``, ``DP`` then give the action by
:func:`playout.backgammon.cube.gnubg_action`, normalised as :mod:`~playout.backgammon.cube`
does.

:func:`post_move_values` values plays the same way (gnubg's ``ScoreMove``): the opponent's
pre-roll node after each play is searched with the opponent's cube decision inside.

Departures: gnubg values money positions in its two-sided bear-off database exactly and
does not search below them, and in match play turns them into a cube efficiency from
the database's exact money cubeful values (``EvaluatePositionCubeful4``, ``CLASS_BEAROFF2``/
``CLASS_BEAROFF_TS``; e.g. 6 checkers vs 4 at 0-0 to 5, cube 4 owned: x 0, ND -0.474 EMG
against our -0.414 with x 0.6); we search every node with the evaluator given.  gnubg's presets
with ``prune`` pick the plays inside the tree from a pruning net's short list; we score every
play (gnubg with pruning off, as our cross-check runs it).

**Cost.**  A ply-``P`` decision evaluates every legal play of every roll at the first
``P - 1`` levels, batched: one ``evaluator.evaluate`` call per level.  Our net, CPU time per
cube decision over reference set A's 32 (``benchmarks/bg_cubeful_speed.py``, 2-core machine):
ply 2 0.6 ms (261 boards), ply 3 17 ms (8,700 boards), ply 4 290 ms (145,000 boards).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from playout.backgammon.board import game_result
from playout.backgammon.cube import (OWNERS, CubeDecision, _efficiency, _Score, cube_efficiency,
                                     gnubg_action, money_cubeful)
from playout.backgammon.evaluators import Evaluator, get_cube_evaluator, get_evaluator
from playout.backgammon.moves import MAX_MOVES, legal_moves_ws, new_workspace
from playout.backgammon.search import _R1, _R2
from playout.jitcache import announce_compile, flush_stale_caches, siblings

#: weight of each of the 21 rolls (``search._R1``/``_R2`` order) out of 36: sums are divided
#: by 36 afterwards, as gnubg does, so that 36 equal values average to that value exactly
#: (ties such as ND = DP = 1 decide gnubg's action texts)
ROLL_W = np.array([1.0 if a == b else 2.0 for a, b in zip(_R1, _R2)])
MAX_PLY = 4
_SWAP = (0, 2, 1)  # owner seen from the other side


@njit(cache=True)
def expand_kernel(boards):
    """Every legal play of each pre-roll board for each of the 21 rolls.

    ``boards`` int8[m, 26] (side on roll).  Returns ``(kids int8[K, 26], counts int64[m, 21],
    x float64[K], result int64[K])``: the boards after each play *from the opponent's view*
    (flipped, the opponent on roll), grouped by board then roll, the number of plays per
    (board, roll) (at least 1: a roll that cannot be played leaves the board as it is), each
    kid's cube efficiency and :func:`~playout.backgammon.board.game_result` for the kid's side.
    """
    m = boards.shape[0]
    cap = max(1024, m * 21 * 24)
    out = np.empty((cap, 26), dtype=np.int8)
    counts = np.zeros((m, 21), dtype=np.int64)
    tmp = np.empty((MAX_MOVES, 26), dtype=np.int8)
    table, hashes, slots = new_workspace()
    k = 0
    for i in range(m):
        b = boards[i].copy()
        for r in range(21):
            n = legal_moves_ws(b, _R1[r], _R2[r], tmp, table, hashes, slots)
            if k + n > cap:
                cap = max(2 * cap, k + n)
                bigger = np.empty((cap, 26), dtype=np.int8)
                bigger[:k] = out[:k]
                out = bigger
            for j in range(n):
                for p in range(1, 25):
                    out[k, p] = -tmp[j, 25 - p]
                out[k, 0] = tmp[j, 25]
                out[k, 25] = tmp[j, 0]
                k += 1
            counts[i, r] = n
    kids = out[:k].copy()
    x = np.empty(k)
    res = np.empty(k, dtype=np.int64)
    for j in range(k):
        x[j] = _efficiency(kids[j])
        res[j] = game_result(kids[j])
    return kids, counts, x, res


@njit(cache=True)
def money_cubeful_batch(P, owner, x, jacoby):
    """:func:`playout.backgammon.cube.money_cubeful` of each row of ``P`` float64[n, 5] with
    efficiencies ``x`` float64[n]; float64[n]."""
    out = np.empty(P.shape[0])
    for i in range(P.shape[0]):
        out[i] = money_cubeful(P[i], owner, x[i], jacoby)
    return out


@njit(cache=True)
def segment_argmax(values, ties, counts):
    """Index (into ``values``) of the largest value of each consecutive segment of lengths
    ``counts`` int64[s] (each >= 1), equal values ordered by ``ties`` (gnubg's
    ``CompareMoves``: cubeful score, then cubeless equity), then the first; int64[s]."""
    out = np.empty(counts.shape[0], dtype=np.int64)
    k = 0
    for s in range(counts.shape[0]):
        best = k
        for j in range(k + 1, k + counts[s]):
            if values[j] > values[best] or (values[j] == values[best] and ties[j] > ties[best]):
                best = j
        out[s] = best
        k += counts[s]
    return out


class _Rules:
    """Money or match rules, from the root's side on roll (parity 0) or its opponent's (1)."""

    def __init__(self, match_length: int, score, crawford: bool, jacoby: bool):
        self.match = bool(match_length)
        self.jacoby = bool(jacoby) and not self.match
        if self.match:
            a, b = match_length - score[0], match_length - score[1]
            self.scores = (_Score(a, b, crawford), _Score(b, a, crawford))

    def can_double(self, st, parity: int) -> bool:
        v, owner = st
        if not self.match:
            return owner in (0, 1)
        return self.scores[parity].can_double(v, OWNERS[owner])

    def dp(self, st, parity: int) -> float:
        return self.scores[parity].mwc(0, 0, st[0]) if self.match else 1.0

    def to_parent(self, v):
        return 1.0 - v if self.match else -v

    def cubeless(self, P, st, parity: int) -> np.ndarray:
        """gnubg's ``UtilityME`` order: money equity with gammons (whatever the Jacoby rule);
        match play, the dead-cube MWC (``eq2mwc(Utility)``), for the side on roll."""
        if self.match:
            from playout.backgammon.analysis import match_cubeful_vec

            return match_cubeful_vec(P, self.scores[parity], st[0], OWNERS[st[1]], np.zeros(len(P)))
        return 2.0 * P[:, 0] - 1.0 + P[:, 1] - P[:, 3] + P[:, 2] - P[:, 4]

    def janowski(self, P, x, st, parity: int) -> np.ndarray:
        v, owner = st
        if self.match:
            from playout.backgammon.analysis import match_cubeful_vec

            return match_cubeful_vec(P, self.scores[parity], v, OWNERS[owner], x)
        return money_cubeful_batch(P, owner, x, self.jacoby)


def _expand(states, rules: _Rules, parity: int, top: bool) -> list:
    """gnubg's ``MakeCubePos``: each state, then its double (``None`` where not allowed)."""
    out = []
    for s in states:
        out.append(s)
        ok = s is not None and not top and rules.can_double(s, parity)
        out.append((2 * s[0], 2) if ok else None)
    return out


def _swap(states) -> list:
    return [None if s is None else (s[0], _SWAP[s[1]]) for s in states]


def _decide(cf, E, rules: _Rules, parity: int) -> np.ndarray:
    """gnubg's ``GetECF3``: values ``cf`` [n, 2k] of the expanded states ``E`` -> [n, k]."""
    k = len(E) // 2
    out = np.full((cf.shape[0], k), np.nan)
    for i in range(k):
        nd = cf[:, 2 * i]
        if E[2 * i + 1] is None:
            out[:, i] = nd
            continue
        dt = cf[:, 2 * i + 1] * (1.0 if rules.match else 2.0)
        dp = rules.dp(E[2 * i], parity)
        out[:, i] = np.where((dt >= nd) & (dp >= nd), np.minimum(dt, dp), nd)
    return out


def _leaf(P, x, states, rules: _Rules, parity: int, top: bool) -> np.ndarray:
    E = _expand(states, rules, parity, top)
    cf = np.full((len(P), len(E)), np.nan)
    for j, s in enumerate(E):
        if s is not None:
            cf[:, j] = rules.janowski(P, x, s, parity)
    return _decide(cf, E, rules, parity)


def _invert(P) -> np.ndarray:
    return np.stack([1.0 - P[:, 0], P[:, 3], P[:, 4], P[:, 1], P[:, 2]], axis=1)


def _values(ev: Evaluator, boards, P, x, res, states, move_state, rules: _Rules, parity: int,
            plies: int, top: bool):
    """(values [n, len(states)], cubeless probabilities [n, 5]) of pre-roll ``boards``."""
    n = len(boards)
    V = np.full((n, len(states)), np.nan)
    probs = np.zeros((n, 5)) if P is None else np.array(P, dtype=np.float64)
    deep = np.ones(n, dtype=bool) if plies > 1 else np.zeros(n, dtype=bool)
    deep &= res == 0
    if (~deep).any():
        V[~deep] = _leaf(probs[~deep], x[~deep], states, rules, parity, top)
    if not deep.any():
        return V, probs
    idx = np.flatnonzero(deep)
    kids, counts, kx, kres = expand_kernel(np.ascontiguousarray(boards[idx]))
    KP = np.asarray(ev.evaluate(kids), dtype=np.float64)
    # the mover's play: best 0-ply cubeful value with the root's cube (gnubg's ciMove)
    ms = (move_state[0], _SWAP[move_state[1]])
    mover = rules.to_parent(_leaf(KP, kx, [ms], rules, 1 - parity, False)[:, 0])
    ch = segment_argmax(mover, rules.to_parent(rules.cubeless(KP, ms, 1 - parity)), counts.ravel())
    E = _expand(states, rules, parity, top)
    Vc, Pc = _values(ev, kids[ch], KP[ch], kx[ch], kres[ch], _swap(E), ms, rules, 1 - parity,
                     plies - 1, False)
    w = ROLL_W[None, :, None]
    cf = rules.to_parent((Vc.reshape(len(idx), 21, -1) * w).sum(axis=1) / 36.0)
    V[idx] = _decide(cf, E, rules, parity)
    probs[idx] = _invert((Pc.reshape(len(idx), 21, 5) * w).sum(axis=1) / 36.0)
    return V, probs


@dataclass
class CubefulEquities:
    """ND, DT, DP at the root (money: per unit of the present cube; match: MWC), the search's
    cubeless probabilities of the side on roll and the root's cube efficiency."""

    nd: float
    dt: float
    dp: float
    probs: np.ndarray
    cube_efficiency: float
    ply: int

    def to_json(self) -> dict:
        d = asdict(self)
        d["probs"] = [round(float(p), 6) for p in self.probs]
        return d


def cubeful_equities(board26, cube_value: int = 1, cube_owner: str = "centered",
                     evaluator: Evaluator | None = None, ply: int = 2, *, jacoby: bool = True,
                     match_length: int = 0, score: tuple[int, int] = (0, 0),
                     crawford: bool = False) -> CubefulEquities:
    """Cubeful ``ply``-ply (XG numbering, 1..4) ND / DT / DP of pre-roll ``board26`` int8[26].

    ``evaluator``: any :class:`~playout.backgammon.evaluators.Evaluator` (its ``evaluate`` is
    the leaf; default our cube network, :data:`~playout.backgammon.evaluators.DEFAULT_CUBE_NET`).
    Money (``match_length`` 0) with the Jacoby rule or not;
    match play: ``score`` = (side on roll, opponent) points, ``crawford`` = this is the
    Crawford game.  Raises ValueError for a bad ply, cube or score.
    """
    if not 1 <= int(ply) <= MAX_PLY:
        raise ValueError(f"ply: {ply} is out of range (1..{MAX_PLY} in XG numbering)")
    if cube_owner not in OWNERS:
        raise ValueError(f"cube_owner: {cube_owner!r} (must be one of {', '.join(OWNERS)})")
    if cube_value < 1 or cube_value & (cube_value - 1):
        raise ValueError(f"cube_value: {cube_value} is not a power of two")
    if match_length:
        a, b = match_length - score[0], match_length - score[1]
        if a < 1 or b < 1:
            raise ValueError(f"score: {score} is not below the match length {match_length}")
        if crawford and a != 1 and b != 1:
            raise ValueError(f"crawford: no side is 1-away at {score} in a "
                             f"{match_length}-point match")
    ev = evaluator or get_cube_evaluator()
    rules = _Rules(match_length, score, crawford, jacoby)
    b = np.ascontiguousarray(board26, dtype=np.int8)[None]
    v = int(cube_value)
    cur = (v, OWNERS.index(cube_owner))
    res = np.array([game_result(b[0])], dtype=np.int64)
    x = np.array([cube_efficiency(b[0])])
    P = np.asarray(ev.evaluate(b), dtype=np.float64) if ply == 1 or res[0] != 0 else None
    if ply > 1:
        announce_compile("the cubeful n-ply kernels", "~5 s", expand_kernel, money_cubeful_batch)
    V, probs = _values(ev, b, P, x, res, [cur, (2 * v, 2)], cur, rules, 0, int(ply), True)
    nd, dt = float(V[0, 0]), float(V[0, 1])
    if not rules.match:
        dt *= 2.0
    return CubefulEquities(nd, dt, rules.dp(cur, 0), probs[0], float(x[0]), int(ply))


def post_move_values(boards, cube_value: int = 1, cube_owner: str = "centered",
                     evaluator: Evaluator | None = None, ply: int = 2, *, jacoby: bool = True,
                     match_length: int = 0, score: tuple[int, int] = (0, 0),
                     crawford: bool = False, chunk: int | None = None) -> np.ndarray:
    """Cubeful ``ply``-ply value of each post-move board for the side that just moved.

    ``boards`` int8[n, 26] from the mover's view, none of them finished; the cube
    (``cube_value``, ``cube_owner`` from the mover's side) and the score (mover, opponent) as
    before the play.  The opponent's pre-roll node is searched as in :func:`cubeful_equities`
    with its own cube decision (gnubg's ``ScoreMove``: ``EvaluatePositionCubeful`` with
    ``fTop`` false); ply 1 is the 0-ply model with the opponent's best cube action.  Returns
    float64[n]: money per unit of the present cube, match play the mover's MWC.  ``chunk``
    boards are searched at a time (default by ply: 4096, 256, 16, 1; each board's search
    holds ~420 x 21^(ply - 2) boards, one play per roll being followed below the first
    level).  Raises ValueError for a bad ply or cube owner.
    """
    if not 1 <= int(ply) <= MAX_PLY:
        raise ValueError(f"ply: {ply} is out of range (1..{MAX_PLY} in XG numbering)")
    if cube_owner not in OWNERS:
        raise ValueError(f"cube_owner: {cube_owner!r} (must be one of {', '.join(OWNERS)})")
    chunk = int(chunk or {1: 4096, 2: 256, 3: 16}.get(int(ply), 1))
    b = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    ev = evaluator or get_evaluator(ply=ply)
    rules = _Rules(match_length, score, crawford, jacoby)
    st = (int(cube_value), _SWAP[OWNERS.index(cube_owner)])  # the opponent's view
    fb = np.empty_like(b)
    fb[:, 1:25] = -b[:, 24:0:-1]
    fb[:, 0], fb[:, 25] = b[:, 25], b[:, 0]
    if ply > 1:
        announce_compile("the cubeful n-ply kernels", "~5 s", expand_kernel, money_cubeful_batch)
    out = np.empty(len(b))
    for i in range(0, len(b), max(1, chunk)):
        part = fb[i:i + chunk]
        x = np.array([cube_efficiency(q) for q in part])
        res = np.array([game_result(q) for q in part], dtype=np.int64)
        P = np.asarray(ev.evaluate(part), dtype=np.float64) if ply == 1 else None
        V, _ = _values(ev, part, P, x, res, [st], st, rules, 1, int(ply), False)
        out[i:i + chunk] = rules.to_parent(V[:, 0])
    return out


def cube_decision(board26, cube_value: int = 1, cube_owner: str = "centered",
                  evaluator: Evaluator | None = None, ply: int = 2, *, jacoby: bool = True,
                  beaver: bool = True, match_length: int = 0, score: tuple[int, int] = (0, 0),
                  crawford: bool = False) -> CubeDecision:
    """The cube action from :func:`cubeful_equities`, by gnubg's rules
    (:func:`playout.backgammon.cube.gnubg_action`); the same :class:`CubeDecision` fields as
    :func:`playout.backgammon.cube.cube_action` (``probs``: the search's cubeless ones)."""
    from playout.backgammon.cube import _decision

    r = cubeful_equities(board26, cube_value, cube_owner, evaluator, ply, jacoby=jacoby,
                         match_length=match_length, score=score, crawford=crawford)
    p = r.probs
    if match_length:
        s = _Score(match_length - score[0], match_length - score[1], crawford)
        can = s.can_double(int(cube_value), cube_owner)
        hi, lo = s.mwc(0, 0, cube_value), s.mwc(0, 1, cube_value)
        eq = [(2 * t - (hi + lo)) / (hi - lo) for t in (r.nd, r.dt, r.dp)]
        action = gnubg_action(*eq, can_double=can, centred=cube_owner == "centered",
                              win_gammon=p[1] > 0, money=False,
                              dead_cube=cube_owner in ("centered", "player"))
        return _decision(r.nd, r.dt, r.dp, action, can, p, r.cube_efficiency)
    can = cube_owner in ("centered", "player")
    action = gnubg_action(r.nd, r.dt, r.dp, can_double=can, centred=cube_owner == "centered",
                          win_gammon=p[1] > 0, money=True, jacoby=jacoby, beaver=beaver)
    return _decision(r.nd, r.dt, r.dp, action, can, p, r.cube_efficiency,
                     is_beaver=bool(beaver and -2.0 <= r.dt <= 0.0 and r.dt < r.dp))


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "cube.py"))
