"""Match analysis: every checker and cube decision of a played match rated, as gnubg does.

Definitions follow GNU Backgammon 1.07's ``analysis.c`` (``AnalyzeMove``,
``updateStatcontext``, ``LuckNormal``/``LuckFirst``) and ``eval.c``
(``FindCubeDecision``, ``isCloseCubedecision``, ``mwc2eq``), checked against
``gnubg -t``'s ``analyse match`` / ``show statistics match`` (``tests/test_bg_analysis.py``):

* **Equity unit** (EMG, "equivalent to money game"): money equity per unit of the present
  cube; in match play an MWC ``m`` is normalised as gnubg's ``mwc2eq``:
  ``(2 m - (W + L)) / (W - L)`` with ``W``/``L`` the MWC after winning/losing the present
  cube's value at this score.  Each play is valued cubefully: the board after the play is
  evaluated cubeless for the opponent on roll and turned into a cubeful equity with gnubg's
  0-ply cube model (:mod:`playout.backgammon.cube`), the opponent taking its best cube
  action (``max(ND, min(DT, DP))`` where it may double, as gnubg's cubeful evaluation).
* **Checker error** = equity(best play) - equity(play made), counted over *unforced* moves
  (more than one legal play).  **Cube errors**: at each roll where the player could double
  (not the game's first move), a missed double costs ``optimal - ND`` when doubling was right;
  a double costs ``optimal - min(DT, DP)``; a take costs ``DT - DP`` when ``DT > DP``; a drop
  ``DP - DT`` when ``DP > DT`` (DT, DP, ND from the doubler's side, DP = +1).  A cube decision
  counts ("close or actual") when ``optimal - min(DT, 1) < 0.16`` or an action was taken.
  At ply >= 2 ND and DT come from gnubg's cubeful n-ply search
  (:mod:`playout.backgammon.cubeful`; ``gnubg:ply=N`` searches over gnubg's 0-ply net),
  as gnubg's n-ply analysis: its 1-ply ``DA`` figures to 0.008 EMG on the fixtures
  (``tests/test_bg_analysis_cubeful.py``); so are the plays (the opponent's cube decision
  inside the search, gnubg's ``ScoreMove``).  Luck stays at the raw level.
* **Error rates** (mEMG) = 1000 x total error / count: checker over unforced moves, cube over
  close-or-actual cube decisions, overall over both.  **PR** (XG's performance rating) =
  500 x mean error over the same decisions (= overall mEMG / 2).
* **Marks** (gnubg's defaults ``arSkillLevel``): doubtful > 0.04, bad > 0.08, very bad > 0.16 EMG.
* **Luck** of a roll = equity after the best play of that roll - the mean over the 36 rolls
  of the best play's equity (the game's first roll: the mean over the 30 non-double opening
  rolls of either side, gnubg's ``LuckFirst``); evaluated at the engine's raw (XG 1-ply)
  level as gnubg's ``ecLuck`` is 0-ply.  Luck rate = 1000 x total luck / rolls.

Beavers and the answers to them are not rated (nor are they by gnubg 1.07's analysis).
Money errors are in EMG per unit cube (as gnubg's mEMG); ``error_points`` gives them in
points (x cube), match errors also in MWC (``error_mwc``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from playout.backgammon.board import STARTING_BOARD, flip, game_result
from playout.backgammon.cube import _Score, cube_efficiency, match_cubeful, money_cubeful
from playout.backgammon.ids import Position, match_id, position_id, xgid
from playout.backgammon.matchfile import Match
from playout.backgammon.moves import legal_moves
from playout.backgammon.notation import play_text
from playout.backgammon.search import post_move_probs, pre_roll_probs

DOUBTFUL, BAD, VERY_BAD = 0.04, 0.08, 0.16  # gnubg arSkillLevel defaults (EMG)
CLOSE_CUBE = 0.16  # gnubg isCloseCubedecision threshold
_OWNER_IDX = {"centered": 0, "player": 1, "opponent": 2}
#: the 21 rolls (d1 >= d2) with their weight out of 36
ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(1, a + 1)]


class AnalysisError(ValueError):
    """A bad engine spec or a peer that failed; one-line message."""


@dataclass
class State:
    """The match state from the side to act: ``score`` (me, opponent), cube value and owner
    (``centered``/``player``/``opponent``), match length (0 = money), Crawford, Jacoby."""

    length: int
    score: tuple[int, int]
    cube: int
    owner: str
    crawford: bool
    jacoby: bool

    def flipped(self) -> State:
        o = {"player": "opponent", "opponent": "player"}.get(self.owner, self.owner)
        return State(self.length, (self.score[1], self.score[0]), self.cube, o, self.crawford,
                     self.jacoby)

    def score_obj(self) -> _Score:
        return _Score(self.length - self.score[0], self.length - self.score[1], self.crawford)

    def to_emg(self, mwc: float) -> float:
        """gnubg's ``mwc2eq`` at the present cube (money: the value itself)."""
        if not self.length:
            return mwc
        s = self.score_obj()
        hi, lo = s.mwc(0, 0, self.cube), s.mwc(0, 1, self.cube)
        return (2.0 * mwc - (hi + lo)) / (hi - lo)

    def to_mwc(self, emg: float) -> float:
        """gnubg's ``eq2mwc`` (inverse of :meth:`to_emg`)."""
        s = self.score_obj()
        hi, lo = s.mwc(0, 0, self.cube), s.mwc(0, 1, self.cube)
        return 0.5 * (emg * (hi - lo) + (hi + lo))

    def can_double(self) -> bool:
        if self.owner == "opponent":
            return False
        if not self.length:
            return True
        return self.score_obj().can_double(self.cube, self.owner)


def cubeful_pre_roll(p, board, st: State) -> float:
    """Cubeful equity (match: MWC) of the side on roll with cubeless ``p`` at ``board``."""
    x = cube_efficiency(board)
    if st.length:
        return match_cubeful(np.asarray(p, dtype=np.float64), st.score_obj(), st.cube, st.owner, x)
    return float(money_cubeful(np.asarray(p, dtype=np.float64), _OWNER_IDX[st.owner], float(x),
                               bool(st.jacoby)))


def opp_value(q, board, st: State) -> float:
    """Cubeful value (match: MWC) for the side on roll at pre-roll ``board`` with cubeless
    ``q``, taking its cube action: ``max(ND, min(DT, DP))`` when it may double, else ND.

    This is what gnubg 1.07's 0-ply cubeful evaluation of a play gives (checked on its
    analysed SGF: a play that lets the opponent double us out scores -1.000 exactly).
    """
    nd = cubeful_pre_roll(q, board, st)
    if not st.can_double():
        return nd
    dst = State(st.length, st.score, 2 * st.cube, "opponent", st.crawford, st.jacoby)
    dt = cubeful_pre_roll(q, board, dst)
    if st.length:
        dp = st.score_obj().mwc(0, 0, st.cube)
    else:
        dt, dp = 2.0 * dt, 1.0
    return max(nd, min(dt, dp))


def play_emg(p, after, st: State) -> float:
    """EMG for the mover of the post-move board ``after`` (mover's view) with cubeless
    probabilities ``p`` (mover's view, the opponent to roll), the state ``st`` before the play."""
    opp = st.flipped()
    q = np.array([1.0 - p[0], p[3], p[4], p[1], p[2]], dtype=np.float64)
    v = opp_value(q, flip(np.asarray(after, dtype=np.int8)), opp)
    return -opp.to_emg(v) if st.length else -v


def _outcome_vec(s: _Score, k: int, winner: int, points: int, rates) -> np.ndarray:
    g, bg = rates[winner]
    return ((1.0 - g - bg) * s.mwc(k, winner, points) + g * s.mwc(k, winner, 2 * points)
            + bg * s.mwc(k, winner, 3 * points))


def _rates_vec(P):
    w = P[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        mine = (np.where(w > 0, (P[:, 1] - P[:, 2]) / w, 0.0), np.where(w > 0, P[:, 2] / w, 0.0))
        lw = 1.0 - w
        theirs = (np.where(lw > 0, (P[:, 3] - P[:, 4]) / lw, 0.0), np.where(lw > 0, P[:, 4] / lw, 0.0))
    return mine, theirs


def match_cubeful_vec(P, s: _Score, cube: int, owner: str, x) -> np.ndarray:
    """:func:`playout.backgammon.cube.match_cubeful` for many probability rows at once
    (``P`` float64[n, 5], ``x`` float64[n]); the same formulas, vectorised (equal to the
    scalar version to 1e-12, ``tests/test_bg_analysis.py``)."""
    P = np.asarray(P, dtype=np.float64)
    rates = _rates_vec(P)
    w = P[:, 0]
    dead = _outcome_vec(s, 0, 0, cube, rates) * w + _outcome_vec(s, 0, 1, cube, rates) * (1 - w)
    if not s.live_cube(cube):
        return dead
    # gnubg's GetPoints, as cube.match_cash_points
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
            if i < 2 * v or j < 2 * v:
                dtl = _outcome_vec(s, k, o, 2 * prime[k], rates)
                dtw = _outcome_vec(s, k, k, 2 * prime[k], rates)
                cp[k, n] = (dtl - dp) / (dtl - dtw)
            else:
                rdp = s.mwc(k, o, 2 * v)
                dtw = _outcome_vec(s, k, k, 2 * v, rates)
                cp[k, n] = 1.0 - cp[o, n + 1] * (dp - dtw) / (rdp - dtw)
    tg, cp_opp = cp[0, 0], cp[1, 0]
    opp_tg = 1.0 - cp_opp
    cash, opp_cash = s.mwc(0, 0, cube), s.mwc(0, 1, cube)
    lose, win_ = _outcome_vec(s, 0, 1, cube, rates), _outcome_vec(s, 0, 0, cube, rates)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(opp_tg > 0, lose + (opp_cash - lose) * w / opp_tg, lose)
        if owner == "centered":
            mid = opp_cash + (cash - opp_cash) * (w - opp_tg) / (tg - opp_tg)
            high = np.where(tg < 1, cash + (win_ - cash) * (w - tg) / (1 - tg), win_)
            live = np.where(w <= opp_tg, low, np.where(w < tg, mid, high))
        elif owner == "player":
            a = np.where(tg > 0, lose + (cash - lose) * w / tg, lose)
            b = np.where(tg < 1, cash + (win_ - cash) * (w - tg) / (1 - tg), win_)
            live = np.where(w <= tg, a, b)
        else:
            b = opp_cash + (win_ - opp_cash) * (w - opp_tg) / (1 - opp_tg)
            live = np.where(w <= opp_tg, low, b)
    return dead * (1 - x) + live * x


def play_emg_batch(P, afters, st: State) -> np.ndarray:
    """:func:`play_emg` for many rows (match play vectorised; money per row)."""
    P = np.asarray(P, dtype=np.float64)
    if not st.length or len(P) == 0:
        return np.array([play_emg(p, a, st) for p, a in zip(P, afters)])
    opp = st.flipped()
    Q = np.stack([1.0 - P[:, 0], P[:, 3], P[:, 4], P[:, 1], P[:, 2]], axis=1)
    x = np.array([cube_efficiency(flip(a)) for a in afters])
    s = opp.score_obj()
    v = match_cubeful_vec(Q, s, opp.cube, opp.owner, x)
    if opp.can_double():
        dt = match_cubeful_vec(Q, s, 2 * opp.cube, "opponent", x)
        v = np.maximum(v, np.minimum(dt, s.mwc(0, 0, opp.cube)))
    hi, lo = s.mwc(0, 0, opp.cube), s.mwc(0, 1, opp.cube)
    return -(2.0 * v - (hi + lo)) / (hi - lo)


def _terminal_emg(r: int, st: State) -> float:
    if st.length:
        s = st.score_obj()
        return st.to_emg(s.mwc(0, 0, r * st.cube))
    return 1.0 if (st.jacoby and st.owner == "centered") else float(r)


def post_move_emg(boards, st: State, ply: int, evaluator, leaf=None) -> np.ndarray:
    """EMG of each post-move board (mover's view) for the mover, ``st`` the state before the play.

    A finished game gets its exact value (:func:`_terminal_emg`); at ``ply`` >= 2 with a ``leaf``
    evaluator, gnubg's cubeful n-ply search (:func:`playout.backgammon.cubeful.post_move_values`,
    the opponent's cube decisions inside); otherwise the 0-ply cube model on ``evaluator``'s
    ``ply``-ply cubeless probabilities (:func:`play_emg_batch`).  Returns float64[n].
    """
    out = np.empty(len(boards))
    todo = []
    for i, r in enumerate(boards):
        g = int(game_result(r))
        if g > 0:
            out[i] = _terminal_emg(g, st)
        else:
            todo.append(i)
    if not todo:
        return out
    sub = np.stack([boards[i] for i in todo])
    if leaf is not None and ply >= 2:
        from playout.backgammon.cubeful import post_move_values

        v = post_move_values(sub, st.cube, st.owner, leaf, ply, jacoby=st.jacoby,
                             match_length=st.length, score=st.score, crawford=st.crawford)
        out[todo] = [st.to_emg(t) for t in v] if st.length else v
    else:
        out[todo] = play_emg_batch(post_move_probs(evaluator, sub, ply), sub, st)
    return out


class Rater:
    """Values plays and cube actions with one engine (``evaluator`` at ``ply``, XG numbering).

    Cube figures and plays at ``ply`` >= 2 come from gnubg's cubeful n-ply search
    (:func:`playout.backgammon.cubeful.cubeful_equities`,
    :func:`~playout.backgammon.cubeful.post_move_values`: cube decisions inside the tree)
    over the raw evaluator ``leaf``, as gnubg's own n-ply analysis does; ``leaf`` defaults to
    ``evaluator`` when it runs in our kernels (our net, pubeval).  With no leaf (``bgsage``,
    which searches itself) or at ply 1 they are the 0-ply cube model on ``ply``-ply cubeless
    probabilities (Janowski).

    ``special``: ``(family, evaluator)``: a decision whose board is in the family
    (:func:`playout.backgammon.families.in_family`, either side) is valued with that
    evaluator instead (as ``ours:...,specialist=FAMILY`` plays in
    :class:`playout.backgammon.engines.OursEngine`).  ``cube_ev``: the network of the cube
    figures outside the specialist's family (the default cube network), or of all of them with
    ``cube_always`` (``cubeweights=``); ``None``: ``evaluator``'s.
    """

    def __init__(self, evaluator, ply: int, luck_ply: int = 1, leaf=None, special=None,
                 cube_ev=None, cube_always: bool = False):
        self.ev = evaluator
        self.ply = int(ply)
        self.luck_ply = int(luck_ply)
        self.positions = 0
        if leaf is None and evaluator.kernel_args() is not None:
            leaf = evaluator
        self.leaf = leaf if self.ply >= 2 else None
        self.special = special
        self.cube_ev = cube_ev
        self.cube_always = bool(cube_always)

    def _nets(self, board):
        """(evaluator, cubeful leaf) for a decision at ``board`` (the specialist's in its family)."""
        if self.special is not None:
            from playout.backgammon.families import in_family

            family, ev = self.special
            if in_family(family, np.asarray(board, dtype=np.int8)):
                return ev, (ev if self.ply >= 2 else None)
        return self.ev, self.leaf

    def play_values(self, board, results, st: State, ply: int | None = None) -> np.ndarray:
        """EMG of each post-move board in ``results`` for the mover (state ``st`` before it)."""
        ply = self.ply if ply is None else ply
        ev, leaf = self._nets(board)
        self.positions += sum(1 for r in results if int(game_result(r)) <= 0)
        return post_move_emg(results, st, ply, ev, leaf)

    def best_values(self, board, rolls, st: State, ply: int) -> list[float]:
        """The best play's EMG for each roll in ``rolls`` (one batched evaluation)."""
        segs = [legal_moves(board, a, b) for a, b in rolls]
        vals = self.play_values(board, np.concatenate(segs), st, ply)
        out, k = [], 0
        for r in segs:
            out.append(float(vals[k:k + len(r)].max()))
            k += len(r)
        return out

    def luck(self, board, dice, st: State, first: bool) -> float:
        """gnubg's ``LuckNormal`` / ``LuckFirst`` in EMG for the side to act."""
        ply = self.luck_ply
        d1, d2 = max(dice), min(dice)
        if first and d1 != d2:
            # the opening roll: the 15 non-doubles for either side to play first (the
            # opponent's from the same position, our equity minus its best)
            rolls = [(a, b) for a, b, _w in ROLLS if a != b]
            mine = self.best_values(board, rolls, st, ply)
            theirs = self.best_values(flip(board), rolls, st.flipped(), ply)
            return mine[rolls.index((d1, d2))] - (sum(mine) - sum(theirs)) / 30.0
        rolls = [(a, b) for a, b, _w in ROLLS]
        vals = self.best_values(board, rolls, st, ply)
        mean = sum(w * v for (_a, _b, w), v in zip(ROLLS, vals)) / 36.0
        return vals[rolls.index((d1, d2))] - mean

    def cube(self, board, st: State) -> dict:
        """ND, DT, DP, optimal in EMG for the side on roll (gnubg's ``FindCubeDecision``);
        ``probs``: the cubeless probabilities behind them (the search's at ply >= 2)."""
        self.positions += 1
        ev, leaf = self._nets(board)
        if self.cube_ev is not None and (self.cube_always or ev is self.ev):
            ev, leaf = self.cube_ev, (self.cube_ev if self.ply >= 2 else None)
        if leaf is not None:
            from playout.backgammon.cubeful import cubeful_equities

            r = cubeful_equities(board, st.cube, st.owner, leaf, self.ply, jacoby=st.jacoby,
                                 match_length=st.length, score=st.score, crawford=st.crawford)
            p, nd, dt = r.probs, r.nd, r.dt  # money: DT already x 2 (per unit of this cube)
        else:
            p = pre_roll_probs(ev, board, self.ply)
            nd = cubeful_pre_roll(p, board, st)
            dst = State(st.length, st.score, 2 * st.cube, "opponent", st.crawford, st.jacoby)
            dt = cubeful_pre_roll(p, board, dst) * (1.0 if st.length else 2.0)
        if st.length:
            nd, dt = st.to_emg(nd), st.to_emg(dt)
        dp = 1.0
        best_d = min(dt, dp)
        optimal = best_d if best_d >= nd else nd
        return {"nd": nd, "dt": dt, "dp": dp, "optimal": optimal, "probs": [float(v) for v in p]}


def make_rater(spec: str) -> tuple[Rater, str]:
    """A :class:`Rater` for an ENGINE SPEC (``ours:ply=2``, ``gnubg:ply=0``, ``bgsage:ply=1``;
    :mod:`playout.backgammon.engines`) and its label.  :class:`AnalysisError` if unusable."""
    from playout.backgammon.engines import EngineError, parse_spec
    from playout.backgammon.evaluators import get_evaluator

    try:
        s = parse_spec(spec)
    except EngineError as exc:
        raise AnalysisError(str(exc)) from None
    if s.cube_trials:
        raise AnalysisError(f"--engine {spec}: cube=rollout is for bg pr and bg cube --rollout; "
                            f"bg analyze rates cube actions at the engine's ply")
    try:
        if s.kind == "gnubg":
            # cube figures: our cubeful search over gnubg's raw (0-ply) net at gnubg's depth
            raw = get_evaluator("gnubg")
            return Rater(raw, s.ply + 1, leaf=raw), s.label
        if s.kind == "bgsage":
            return Rater(get_evaluator("bgsage"), s.ply), s.label
        if s.kind == "pubeval":
            return Rater(get_evaluator("pubeval"), 1), s.label
        from playout.backgammon.engines import SPECIALISTS, cube_network
        from playout.backgammon.evaluators import DEFAULT_NET, NeuralNet

        special = None
        if s.specialist is not None:
            special = (s.specialist, NeuralNet(DEFAULT_NET.with_name(SPECIALISTS[s.specialist])))
        path, always = cube_network(s.evaluator, s.weights, s.cube_weights)
        return Rater(get_evaluator(s.weights or s.evaluator, s.ply), s.ply, special=special,
                     cube_ev=NeuralNet(path) if path is not None else None,
                     cube_always=always), s.label
    except ValueError as exc:
        raise AnalysisError(f"--engine {spec}: {exc}") from None


def _mark(err: float) -> str:
    if err > VERY_BAD:
        return "very bad"
    if err > BAD:
        return "bad"
    if err > DOUBTFUL:
        return "doubtful"
    return ""


@dataclass
class PlayerStats:
    name: str
    total_moves: int = 0
    unforced_moves: int = 0
    checker_error: float = 0.0
    total_cube: int = 0
    close_cube: int = 0
    cube_error: float = 0.0
    luck: float = 0.0
    rolls: int = 0
    marks: dict = field(default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0})
    checker_marks: dict = field(default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0})
    cube_marks: dict = field(default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0})

    def to_json(self) -> dict:
        def rate(e, n):
            return round(1000.0 * e / n, 3) if n else 0.0
        overall = rate(self.checker_error + self.cube_error, self.unforced_moves + self.close_cube)
        return {
            "name": self.name,
            "checker_error_rate_memg": rate(self.checker_error, self.unforced_moves),
            "cube_error_rate_memg": rate(self.cube_error, self.close_cube),
            "overall_error_rate_memg": overall,
            "pr": round(overall / 2.0, 3),
            "luck_rate_memg": rate(self.luck, self.rolls),
            "checker_error_total_emg": round(self.checker_error, 6),
            "cube_error_total_emg": round(self.cube_error, 6),
            "luck_total_emg": round(self.luck, 6),
            "total_moves": self.total_moves,
            "unforced_moves": self.unforced_moves,
            "cube_decisions": self.total_cube,
            "close_cube_decisions": self.close_cube,
            "doubtful": self.marks["doubtful"],
            "bad": self.marks["bad"],
            "very_bad": self.marks["very bad"],
            "checker_marks": dict(self.checker_marks),
            "cube_marks": dict(self.cube_marks),
        }


def _pos(board, st: State, dice=None) -> Position:
    return Position(np.asarray(board, dtype=np.int8), cube_value=st.cube, cube_owner=st.owner,
                    dice=dice, match_length=st.length, score=st.score, crawford=st.crawford,
                    jacoby=st.jacoby)


def analyze(match: Match, rater: Rater, *, luck: bool = True, progress=None) -> dict:
    """Analyse ``match`` (replayed, e.g. from :func:`playout.backgammon.matchfile.read_match`).

    Returns ``{"players": [...], "decisions": [...], "games": [...]}``: per player the rates
    of the module docstring, per decision its game, move, player, kind (``checker``,
    ``cube``, ``double``, ``take``, ``drop``), position ID, match ID, XGID, play made, best play,
    equities and error (EMG; ``error_mwc`` in match play), mark; per game the equity (EMG)
    and, in match play, the MWC of player 0 after each checker play (for graphs), closed by
    the result (``"result": True``: the equity won per cube, the MWC at the new score).
    """
    stats = [PlayerStats(match.players[0]), PlayerStats(match.players[1])]
    decisions: list[dict] = []
    games_out = []
    for gi, game in enumerate(match.games, 1):
        curve = []
        pending = None  # the doubler's cube figures while the double awaits its answer
        for mi, a in enumerate(game.actions, 1):
            p = a.player
            owner = ("centered" if a.cube_owner is None else
                     ("player" if a.cube_owner == p else "opponent"))
            st = State(match.length, (game.score[p], game.score[1 - p]), a.cube_value, owner,
                       game.crawford, match.jacoby)
            if a.kind == "resign":
                continue
            board = a.before
            base = {"game": gi, "move": mi, "player": p, "line": a.line}
            first = bool(np.array_equal(board, STARTING_BOARD))
            if a.kind in ("move", "double") and not first and st.can_double():
                cd = rater.cube(board, st)
                close = cd["optimal"] - min(cd["dt"], 1.0) < CLOSE_CUBE
                s = stats[p]
                s.total_cube += 1
                err = 0.0
                if a.kind == "move":
                    if close:
                        s.close_cube += 1
                    if cd["nd"] < cd["optimal"]:
                        err = cd["optimal"] - cd["nd"]
                    made, best = "no double", ("double" if cd["nd"] < cd["optimal"] else "no double")
                    kind = "cube"
                else:
                    s.close_cube += 1
                    err = max(0.0, cd["optimal"] - min(cd["dt"], cd["dp"]))
                    made, best = "double", ("double" if cd["nd"] < cd["optimal"] else "no double")
                    kind = "double"
                    pending = (cd, st, board)
                s.cube_error += err
                m = _mark(err)
                if m:
                    s.marks[m] += 1
                    s.cube_marks[m] += 1
                if a.kind == "double" or close or err > 0:
                    decisions.append(_decision(base, kind, board, st, None, made, best, cd, err, m))
            elif a.kind == "double":
                pending = None  # a double gnubg would not analyse (e.g. a dead cube)
            if a.kind == "beaver":
                pending = None  # gnubg 1.07 does not analyse beavers (nor the answer to one)
                continue
            if a.kind in ("take", "drop") and pending is not None:
                cd, dst, dboard = pending
                s = stats[p]
                s.total_cube += 1
                s.close_cube += 1
                if a.kind == "take":
                    err = max(0.0, cd["dt"] - cd["dp"])
                else:
                    err = max(0.0, cd["dp"] - cd["dt"])
                s.cube_error += err
                m = _mark(err)
                if m:
                    s.marks[m] += 1
                    s.cube_marks[m] += 1
                best = "take" if cd["dt"] < cd["dp"] else "drop"
                decisions.append(_decision(dict(base, turn=1 - p), a.kind, dboard, dst, None, a.kind,
                                           best, cd, err, m))
                pending = None
            if a.kind != "move":
                continue
            s = stats[p]
            s.total_moves += 1
            s.rolls += 1
            results = legal_moves(board, a.dice[0], a.dice[1])
            lk = rater.luck(board, a.dice, st, first) if luck else 0.0
            s.luck += lk
            if len(results) > 1:
                vals = rater.play_values(board, results, st)
                keys = [r.tobytes() for r in results]
                try:
                    k = keys.index(np.asarray(a.after, dtype=np.int8).tobytes())
                except ValueError:
                    raise AnalysisError(f"game {gi} move {mi}: the play is not among the legal ones")
                ib = int(np.argmax(vals))
                err = float(vals[ib] - vals[k])
                s.unforced_moves += 1
                s.checker_error += err
                m = _mark(err)
                if m:
                    s.marks[m] += 1
                    s.checker_marks[m] += 1
                d = _decision(base, "checker", board, st, a.dice, a.play or "(no play)",
                              play_text(board, results[ib], a.dice), None, err, m)
                d.update(equity_played=round(float(vals[k]), 6), equity_best=round(float(vals[ib]), 6),
                         luck=round(lk, 6), candidates=len(results))
                decisions.append(d)
                pt = {"move": mi, "player": p, "equity_p0": round(float(vals[k] if p == 0 else -vals[k]), 6)}
                if match.length:
                    w = st.to_mwc(float(vals[k]))
                    pt["mwc_p0"] = round(w if p == 0 else 1.0 - w, 6)
                curve.append(pt)
            else:
                curve.append({"move": mi, "player": p, "equity_p0": None})
            if progress:
                progress()
        if game.winner is not None and game.points:
            # the result closes the curve (the last plays of a game are often forced, unrated)
            cube = max(1, int(game.actions[-1].cube_value or 1)) if game.actions else 1
            sign = 1.0 if game.winner == 0 else -1.0
            end = {"move": len(game.actions) + 1, "player": None, "result": True,
                   "equity_p0": round(sign * game.points / cube, 6)}
            if match.length:
                sc = State(match.length, tuple(game.score), cube, "centered", game.crawford,
                           match.jacoby).score_obj()
                end["mwc_p0"] = round(sc.mwc(0, game.winner, game.points), 6)
            curve.append(end)
        games_out.append({"game": gi, "score": list(game.score), "crawford": game.crawford,
                          "winner": game.winner, "points": game.points, "curve": curve})
    return {"players": [s.to_json() for s in stats], "decisions": decisions, "games": games_out,
            "match_length": match.length}


def _decision(base, kind, board, st: State, dice, made, best, cd, err, mark) -> dict:
    pos = _pos(board, st, dice)
    d = dict(base)
    turn = d.pop("turn", base["player"])  # whose position it is (the doubler's for a take)
    d.update(kind=kind, position_id=position_id(board), match_id=match_id(pos, turn),
             xgid=xgid(pos), dice=(f"{dice[0]}{dice[1]}" if dice else None), play=made,
             best=best, error=round(float(err), 6), mark=mark)
    if st.length:
        d["error_mwc"] = round(st.to_mwc(0.0) - st.to_mwc(-float(err)), 6)
    else:
        d["error_points"] = round(float(err) * st.cube, 6)
    if cd is not None:
        d.update(nd=round(cd["nd"], 6), dt=round(cd["dt"], 6), dp=round(cd["dp"], 6))
    return d


def worst(report: dict, n: int = 10) -> list[dict]:
    """The ``n`` decisions with the largest error, worst first."""
    return sorted((d for d in report["decisions"] if d["error"] > 0), key=lambda d: -d["error"])[:n]


# -- gnubg's own analysis (Debian ``gnubg -t``), the oracle -----------------------------------
