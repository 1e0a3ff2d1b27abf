"""Engines to rate, behind one interface, and ENGINE SPEC strings.

An :class:`Engine` answers the two questions a benchmark asks, always from the side to act
(bgsage board26, positive = mover; cube owner relative to the mover):

* ``choose_checker(board26, dice, cube_value, cube_owner) -> board26`` (post-move, mover's
  view, not flipped), and
* ``cube_decision(board26, cube_value, cube_owner) -> (double, take)``: whether the side on
  roll doubles, and whether its opponent would take that double.

Specs (``playout bg pr --engine SPEC``): ``gnubg:ply=0``, ``gnubg:ply=2`` (gnubg numbering,
0 = raw net), ``bgsage:ply=1``, ``bgsage:ply=2``, ``bgsage:ply=3`` (XG numbering, 1 = raw net),
``ours:ply=1|2|3[,eval=net|pubeval|gnubg][,weights=NET.npz][,specialist=backgame][,cube=rollout]``
``[,cubeweights=NET.npz]`` (XG numbering; ``eval=gnubg``: our search and cube model over gnubg's raw net, to measure, never
to label), ``pubeval``.  ``cube=rollout`` settles each cube decision by a cubeless
rollout of the position read with the 0-ply cube model
(:func:`playout.backgammon.cube_rollout.rollout_cube`; ``cubetrials=N`` games, default
1,296, seeded by ``cubeseed=S``, default 1; ``cube=ply``, the default, cubes at ``ply``);
checker plays stay at ``ply``.  With the default networks (no ``weights``) cube decisions at
``ply`` are made by the default cube network (:data:`playout.backgammon.evaluators.DEFAULT_CUBE_NET`)
and checker plays by the default network for ``ply`` (:func:`~playout.backgammon.evaluators.default_net`:
:data:`~playout.backgammon.evaluators.DEFAULT_NET` at 1-ply, the value network
:data:`~playout.backgammon.evaluators.DEFAULT_SEARCH_NET` deeper); ``weights=NET.npz``
makes both with NET.  ``cubeweights=NET.npz`` takes every cube decision (at ``ply``
or by rollout) with that network and the checker plays with the other (``weights`` or the
default): a network fitted to rollout labels values positions better than it ranks plays
(``docs/results.md``, session 34).  ``specialist=FAMILY`` plays and cubes a decision whose board is in the family
(:func:`playout.backgammon.families.in_family`, either side) with the shipped specialist net
(:data:`SPECIALISTS`) and every other decision with the general net: the rule looks at the
decision's board, so all its candidate plays (exits from the region included) are valued by one
net.  Either numbering is accepted
with ``xgply=N`` (XG) or ``gnubgply=N`` (gnubg), e.g. ``gnubg:xgply=1`` is ``gnubg:ply=0``.

Side conventions were checked against the peers: gnubg's board is ``(opponent, on roll)``,
each a 25-list (points 1..24 from that side, then its bar) -- verified on the 358 gnubg
position IDs of reference set A (``tests/test_bg_pr_engines.py``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .benchmark import Board, flip_board

_OWNER_GNUBG = {"centered": -1, "player": 0, "opponent": 1}

#: family -> the shipped specialist network (``playout.backgammon.data``; SOURCES.md says how
#: each was trained).
SPECIALISTS = {"backgame": "net_sl_backgame_v1.npz"}

#: The 21 distinct rolls with their weight out of 36.
ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]


class EngineError(ValueError):
    """A bad ENGINE SPEC or an engine that is not installed; one-line message."""


class Engine(Protocol):
    name: str

    def choose_checker(self, board26, dice, cube_value: int, cube_owner: str) -> Board: ...

    def cube_decision(self, board26, cube_value: int, cube_owner: str) -> tuple[bool, bool]: ...


# ---------------------------------------------------------------------------
# gnubg (PyPI ``gnubg``)
# ---------------------------------------------------------------------------


def to_gnubg(board) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """board26 -> gnubg's ``(opponent, on roll)`` pair of 25-tuples."""
    b = [int(x) for x in board]
    me = tuple(max(b[i], 0) for i in range(1, 25)) + (b[25],)
    op = tuple(max(-b[25 - j], 0) for j in range(1, 25)) + (b[0],)
    return op, me


def from_gnubg(pair) -> Board:
    """gnubg's ``(opponent, on roll)`` -> board26 (inverse of :func:`to_gnubg`)."""
    op, me = pair
    b = [0] * 26
    for i in range(1, 25):
        b[i] = me[i - 1] - op[24 - i]
    b[25], b[0] = me[24], op[24]
    return tuple(b)


def apply_gnubg_move(board, move: tuple[int, ...]) -> Board:
    """Play gnubg's move tuple ``(from, to, from, to, ...)`` (1-based; 25 = bar, 0 = off)."""
    b = [int(x) for x in board]
    move = tuple(move) + ((0,) if len(move) % 2 else ())  # a trailing lone 'from' bears off
    for k in range(0, len(move), 2):
        f, t = move[k], move[k + 1]
        if f < 0:
            break
        b[f] -= 1
        if t > 0:
            if b[t] == -1:  # hit a blot: it goes to the opponent's bar
                b[t] = 0
                b[0] += 1
            b[t] += 1
    return tuple(b)


class GnubgEngine:
    """gnubg 1.1.0a16 (PyPI) at ``ply`` plies, gnubg numbering (0 = raw net), cubeful, money.

    Checker play: ``gnubg.findbestmove`` with a cubeful deterministic evalcontext.  The PyPI
    module has no cube hint ("Hints for cube actions not yet implemented") and its
    ``evaluate`` is cubeless, so the cube action is computed one roll deeper: ND = mean over
    the 36 rolls of the best move's cubeful score with the present cube, DT = 2 x the same with
    the opponent owning a doubled cube, DP = 1; double iff min(DT, DP) > ND, take iff DT <= DP.
    A roll with no legal move is valued by the cubeless evaluation (an approximation).
    """

    def __init__(self, ply: int = 0):
        try:
            self._g = importlib.import_module("gnubg")
        except ImportError as exc:  # pragma: no cover - gnubg is a test dependency
            raise EngineError(f"gnubg is not installed ({exc}); pip install gnubg==1.1.0a16") from None
        self.ply = ply
        self.name = f"gnubg {ply}-ply"
        self._ec = self._g.evalcontext(1, ply, 1, 0, 0.0)

    def _ci(self, cube_value: int, owner: str):
        return self._g.cubeinfo(int(cube_value), _OWNER_GNUBG[owner], 0, 0, (0, 0), 0)

    def choose_checker(self, board26, dice, cube_value=1, cube_owner="centered") -> Board:
        g = to_gnubg(board26)
        d = (int(dice[0]), int(dice[1]))
        ci = self._ci(cube_value, cube_owner)
        move = self._g.findbestmove(g, ci, self._ec, d)
        legal = legal_boards(board26, d)
        if not legal:
            return tuple(int(x) for x in board26)
        nb = apply_gnubg_move(board26, move)
        if nb in legal:
            return nb
        # gnubg's tuple stops at the first bear-off that is not last (its 0 reads as the end
        # marker), so some moves cannot be decoded.  They are the legal boards no decodable
        # entry of findbestmoves reaches; the best of them by gnubg's own (cubeless)
        # evaluation at this ply is taken.
        listed = {apply_gnubg_move(board26, m["move"]) for m in self._g.findbestmoves(g, ci, self._ec, d)}
        cands = sorted(legal - listed) or sorted(legal)
        return max(cands, key=lambda c: -self._g.evaluate(to_gnubg(flip_board(c)), ci, self._ec)[5])

    def _roll_average(self, board26, ci) -> float:
        g = to_gnubg(board26)
        total = 0.0
        for a, b, w in ROLLS:
            moves = self._g.findbestmoves(g, ci, self._ec, (a, b))
            if moves:
                v = moves[0]["score"]
            else:
                e = self._g.evaluate(to_gnubg(flip_board(board26)))
                v = -e[5]
            total += w * v
        return total / 36.0

    def cube_equities(self, board26, cube_value=1, cube_owner="centered") -> tuple[float, float, float]:
        """(ND, DT, DP) normalised to the present cube value, one roll deeper than ``ply``."""
        nd = self._roll_average(board26, self._ci(cube_value, cube_owner))
        dt = 2.0 * self._roll_average(board26, self._ci(2 * cube_value, "opponent"))
        return nd, dt, 1.0

    def cube_decision(self, board26, cube_value=1, cube_owner="centered") -> tuple[bool, bool]:
        if cube_owner == "opponent":
            return False, True
        nd, dt, dp = self.cube_equities(board26, cube_value, cube_owner)
        return min(dt, dp) > nd, dt <= dp


# ---------------------------------------------------------------------------
# bgsage (PyPI ``bgsage``)
# ---------------------------------------------------------------------------


class BgsageEngine:
    """Open Sage (PyPI ``bgsage`` 2.0.20260907, production nets) at ``ply`` (XG numbering),
    cubeful money with Jacoby and beaver; one thread, so timings compare with gnubg's."""

    def __init__(self, ply: int = 1, threads: int = 1):
        try:
            bgsage = importlib.import_module("bgsage")
        except ImportError as exc:  # pragma: no cover
            raise EngineError(f"bgsage is not installed ({exc}); pip install bgsage==2.0.20260907") from None
        if ply not in (1, 2, 3, 4):
            raise EngineError(f"bgsage ply must be 1..4 (XG numbering), got {ply}")
        self.ply = ply
        self.name = f"bgsage {ply}-ply"
        self._a = bgsage.create_analyzer(f"{ply}ply", parallel_threads=threads)

    def checker_analysis(self, board26, dice, cube_value=1, cube_owner="centered"):
        return self._a.checker_play([int(x) for x in board26], int(dice[0]), int(dice[1]), int(cube_value), cube_owner)

    def choose_checker(self, board26, dice, cube_value=1, cube_owner="centered") -> Board:
        res = self.checker_analysis(board26, dice, cube_value, cube_owner)
        if not res.moves:
            return tuple(int(x) for x in board26)
        return tuple(res.moves[0].board)

    def cube_analysis(self, board26, cube_value=1, cube_owner="centered"):
        return self._a.cube_action([int(x) for x in board26], int(cube_value), cube_owner)

    def cube_decision(self, board26, cube_value=1, cube_owner="centered") -> tuple[bool, bool]:
        if cube_owner == "opponent":
            return False, True
        r = self.cube_analysis(board26, cube_value, cube_owner)
        return bool(r.should_double), bool(r.should_take)


# ---------------------------------------------------------------------------
# Ours (issue 5's engine): playout.backgammon.search / cube / evaluators
# ---------------------------------------------------------------------------


class OursEngine:
    """Our engine: ``search.choose_move`` and ``cube.cube_action`` at ``ply`` (XG numbering)
    with the ``NeuralNet`` (``eval="net"``), ``PubEval`` (``eval="pubeval"``) or
    ``GnubgEvaluator`` (``eval="gnubg"``: gnubg's raw net under our search and cube model, an
    ablation that tells our network's errors from our search's and cube model's) evaluator."""

    def __init__(self, ply: int = 1, evaluator: str = "net", weights: str | None = None,
                 specialist: str | None = None, cube_trials: int = 0, cube_seed: int = 1,
                 cube_weights: str | None = None):
        try:
            search = importlib.import_module("playout.backgammon.search")
            cube = importlib.import_module("playout.backgammon.cube")
            evaluators = importlib.import_module("playout.backgammon.evaluators")
        except ImportError as exc:
            raise EngineError(f"our backgammon engine is not available yet ({exc})") from None
        cls = {"net": "NeuralNet", "pubeval": "PubEval", "gnubg": "GnubgEvaluator"}.get(evaluator)
        if cls is None or not hasattr(evaluators, cls):
            raise EngineError(f"unknown evaluator {evaluator!r} (net, pubeval or gnubg)")
        if weights and evaluator == "gnubg":
            raise EngineError("eval=gnubg takes no weights (gnubg's own 0-ply net)")
        try:
            if weights:
                self._ev = getattr(evaluators, cls)(weights)
            elif evaluator == "net":  # the shipped network for this depth
                self._ev = evaluators.NeuralNet(evaluators.default_net(ply))
            else:
                self._ev = getattr(evaluators, cls)()
        except ImportError as exc:
            raise EngineError(f"eval={evaluator} needs PyPI gnubg ({exc}): pip install gnubg") from None
        except Exception as exc:  # e.g. missing weights
            raise EngineError(f"cannot build {cls}: {exc}") from None
        self._search, self._cube = search, cube
        path, self._cube_always = cube_network(evaluator, weights, cube_weights)
        self._cube_net = None
        if path is not None:
            try:
                self._cube_net = evaluators.NeuralNet(path)
            except Exception as exc:
                raise EngineError(f"cannot build the cube network {str(path)!r}: {exc}") from None
        self._special = None
        if specialist is not None:
            from playout.backgammon.families import in_family

            path = Path(evaluators.DEFAULT_NET).with_name(SPECIALISTS[specialist])
            self._special = (specialist, evaluators.NeuralNet(path), in_family)
        self.ply = ply
        self.cube_trials, self.cube_seed = cube_trials, cube_seed
        self.name = "pubeval" if (evaluator == "pubeval" and ply == 1) else f"ours {ply}-ply" + ("" if evaluator == "net" else f" {evaluator}")

    def evaluator_for(self, board26):
        """The network for a decision at ``board26``: the specialist when its family's rule
        holds, else the general one."""
        if self._special is not None:
            family, ev, in_family = self._special
            if in_family(family, np.asarray(board26, dtype=np.int8)):
                return ev
        return self._ev

    def kernel_evaluator(self):
        """The 1-ply ``NeuralNet``/``PubEval`` this engine plays with when the compiled
        kernels can stand in for it (ply 1, no specialist), else ``None``."""
        if self.ply != 1 or self._special is not None or self._ev.kernel_args() is None:
            return None
        return self._ev

    def choose_checker(self, board26, dice, cube_value=1, cube_owner="centered") -> Board:
        """The best play by cubeful money equity for this cube (Jacoby on, as the benchmarks'
        references), cubeless equity breaking ties: :func:`playout.backgammon.checkerplay.choose_play`,
        gnubg's ranking of plays."""
        from playout.backgammon.checkerplay import choose_play

        b = np.asarray(board26, dtype=np.int8)
        plays = choose_play(b, (int(dice[0]), int(dice[1])), self.evaluator_for(b), self.ply,
                            cube_value=int(cube_value), cube_owner=cube_owner)
        return tuple(int(x) for x in plays[0].board)

    def choose_cubeless(self, board26, dice) -> Board:
        """The best play by cubeless equity (:func:`playout.backgammon.search.choose_move`): the
        play of a cubeless game (``bg match``), where gammons always count."""
        b = np.asarray(board26, dtype=np.int8)
        choice = self._search.choose_move(b, (int(dice[0]), int(dice[1])), self.evaluator_for(b),
                                          ply=self.ply)
        return tuple(int(x) for x in choice.board)

    def cube_decision(self, board26, cube_value=1, cube_owner="centered") -> tuple[bool, bool]:
        if cube_owner == "opponent":
            return False, True
        b = np.asarray(board26, dtype=np.int8)
        if self.cube_trials:
            from playout.backgammon.cube_rollout import rollout_cube

            # the rollout plays checkers: the checker network unless cubeweights says otherwise
            ev = self._cube_net if self._cube_always else self.evaluator_for(b)
            d, _ = rollout_cube(b, int(cube_value), cube_owner, ev,
                                trials=self.cube_trials, seed=self.cube_seed)
            return bool(d.double), bool(d.take)
        d = self._cube.cube_action(b, int(cube_value), cube_owner, self.cube_evaluator_for(b),
                                   ply=self.ply)
        return bool(d.double), bool(d.take)

    def cube_evaluator_for(self, board26):
        """The network of a cube decision at ``board26``: ``cubeweights`` when given, else the
        specialist in its family, else the default cube network
        (:data:`~playout.backgammon.evaluators.DEFAULT_CUBE_NET`) when the engine plays with
        the default networks, else the engine's own."""
        ev = self.evaluator_for(board26)
        if self._cube_net is not None and (self._cube_always or ev is self._ev):
            return self._cube_net
        return ev


def cube_network(evaluator: str = "net", weights: str | None = None,
                 cube_weights: str | None = None) -> tuple[str | Path | None, bool]:
    """The network file of an ``ours`` engine's cube decisions, and whether it takes all of
    them: ``cubeweights`` takes every one; with the default networks (``eval=net``, no
    ``weights``) the default cube network takes those outside a specialist's family; otherwise
    ``(None, False)``, the engine's own network cubes.  :class:`OursEngine` and ``bg analyze``'s
    rater (:func:`playout.backgammon.analysis.make_rater`) follow it."""
    if cube_weights is not None:
        return cube_weights, True
    if evaluator == "net" and not weights:
        from playout.backgammon.evaluators import DEFAULT_CUBE_NET

        return DEFAULT_CUBE_NET, False
    return None, False


# ---------------------------------------------------------------------------
# Specs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    kind: str
    ply: int
    evaluator: str = "net"
    weights: str | None = None
    specialist: str | None = None
    cube_trials: int = 0
    cube_seed: int = 1
    cube_weights: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "gnubg":
            return f"gnubg {self.ply}-ply (XG {self.ply + 1})"
        if self.kind == "pubeval":
            return "pubeval"
        if self.kind == "ours":
            return (f"ours {self.ply}-ply" + ("" if self.evaluator == "net" else f" {self.evaluator}")
                    + (f" {Path(self.weights).stem}" if self.weights else "")
                    + (f" +{self.specialist} specialist" if self.specialist else "")
                    + (f", cube rollout {self.cube_trials}" if self.cube_trials else "")
                    + (f" seed {self.cube_seed}" if self.cube_trials and self.cube_seed != 1 else "")
                    + (f", cube {Path(self.cube_weights).stem}" if self.cube_weights else ""))
        return f"{self.kind} {self.ply}-ply"


def parse_spec(text: str) -> Spec:
    """Parse an ENGINE SPEC (see the module docstring); :class:`EngineError` if malformed."""
    kind, _, rest = text.strip().partition(":")
    kind = kind.lower()
    if kind not in ("gnubg", "bgsage", "ours", "pubeval"):
        raise EngineError(f"engine spec {text!r}: unknown engine {kind!r} (gnubg, bgsage, ours, pubeval)")
    opts: dict[str, str] = {}
    for part in filter(None, rest.split(",")):
        k, eq, v = part.partition("=")
        if not eq:
            raise EngineError(f"engine spec {text!r}: expected key=value, got {part!r}")
        opts[k.strip().lower()] = v.strip()
    gnubg_numbering = kind == "gnubg"
    ply = 0 if gnubg_numbering else 1
    try:
        if "ply" in opts:
            ply = int(opts.pop("ply"))
        elif "xgply" in opts:
            ply = int(opts.pop("xgply")) - (1 if gnubg_numbering else 0)
        elif "gnubgply" in opts:
            ply = int(opts.pop("gnubgply")) + (0 if gnubg_numbering else 1)
    except ValueError:
        raise EngineError(f"engine spec {text!r}: ply must be an integer") from None
    evaluator = opts.pop("eval", "pubeval" if kind == "pubeval" else "net")
    if kind == "ours" and evaluator not in ("net", "pubeval", "gnubg"):
        raise EngineError(f"engine spec {text!r}: eval={evaluator} (net, pubeval or gnubg)")
    weights = opts.pop("weights", None) if kind == "ours" else None
    if weights is not None and evaluator == "gnubg":
        raise EngineError(f"engine spec {text!r}: eval=gnubg takes no weights (gnubg's own net)")
    if weights is not None and not Path(weights).is_file():
        raise EngineError(f"engine spec {text!r}: weights file {weights!r} not found")
    specialist = opts.pop("specialist", None) if kind == "ours" else None
    if specialist is not None and specialist not in SPECIALISTS:
        raise EngineError(f"engine spec {text!r}: no specialist for {specialist!r} "
                          f"(known: {', '.join(sorted(SPECIALISTS))})")
    cube_trials, cube_seed = 0, 1
    cube_weights = opts.pop("cubeweights", None) if kind == "ours" else None
    if cube_weights is not None and evaluator != "net":
        raise EngineError(f"engine spec {text!r}: cubeweights needs eval=net")
    if cube_weights is not None and not Path(cube_weights).is_file():
        raise EngineError(f"engine spec {text!r}: cube weights file {cube_weights!r} not found")
    if kind == "ours":
        cube = opts.pop("cube", None)
        if cube not in (None, "rollout", "ply"):
            raise EngineError(f"engine spec {text!r}: cube={cube} (rollout or ply)")
        try:
            trials_text = opts.pop("cubetrials", None)
            cube_seed = int(opts.pop("cubeseed", 1))
            if cube == "rollout" or trials_text is not None:
                cube_trials = int(trials_text) if trials_text is not None else 1296
        except ValueError:
            raise EngineError(f"engine spec {text!r}: cubetrials and cubeseed must be integers") from None
        if trials_text is not None and cube != "rollout":
            raise EngineError(f"engine spec {text!r}: cubetrials needs cube=rollout")
        if cube == "rollout" and cube_trials < 1:
            raise EngineError(f"engine spec {text!r}: cubetrials must be at least 1")
    if opts:
        raise EngineError(f"engine spec {text!r}: unknown option(s) {', '.join(sorted(opts))}")
    if ply < (0 if gnubg_numbering else 1):
        raise EngineError(f"engine spec {text!r}: ply {ply} is below the raw net")
    top = 3 if gnubg_numbering else 4  # XG 4-ply = gnubg 3-ply, as `bg hint --ply` allows
    if ply > top:
        raise EngineError(f"engine spec {text!r}: ply {ply} is out of range "
                          f"({'0..3 in gnubg' if gnubg_numbering else '1..4 in XG'} numbering)")
    return Spec(kind, ply, evaluator, weights, specialist, cube_trials, cube_seed, cube_weights)


def make_engine(spec: str | Spec) -> Engine:
    """Build the engine a spec names."""
    s = parse_spec(spec) if isinstance(spec, str) else spec
    if s.kind == "gnubg":
        e: Engine = GnubgEngine(s.ply)
    elif s.kind == "bgsage":
        e = BgsageEngine(s.ply)
    elif s.kind == "pubeval":
        e = OursEngine(s.ply, "pubeval")
    else:
        e = OursEngine(s.ply, s.evaluator, s.weights, s.specialist, s.cube_trials, s.cube_seed,
                       s.cube_weights)
    e.name = s.label
    return e


def legal_boards(board26, dice) -> set[Board]:
    """The distinct legal post-move boards (ours if present, else bgsage's generator)."""
    try:
        moves = importlib.import_module("playout.backgammon.moves")
        arr = moves.legal_moves(np.asarray(board26, dtype=np.int8), int(dice[0]), int(dice[1]))
        out = {tuple(int(x) for x in row) for row in arr}
    except (ImportError, AttributeError):
        bgsage = importlib.import_module("bgsage")
        out = {tuple(b) for b in bgsage.possible_moves([int(x) for x in board26], int(dice[0]), int(dice[1]))}
    out.discard(tuple(int(x) for x in board26))  # a no-move "result" is not a move
    return out


def legal_move_count(board26, dice) -> int:
    """Number of distinct legal moves."""
    return len(legal_boards(board26, dice))
