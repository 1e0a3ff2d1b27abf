"""Position evaluators behind one interface.

``evaluator.evaluate(boards)``: ``boards`` is ``int8[n, 26]`` (board26, each
from the side to act, *pre-roll*); returns ``float64[n, 5]``: P(win),
P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon) for the
side to act (gammon figures include backgammons).  A finished board (one side
has borne off all 15) gets its exact outcome.

* :class:`PubEval` -- Tesauro's public-domain linear evaluator (1993); it
  ranks post-move positions, so its score is mapped to P(win) with a logistic
  and no gammons (its gammon chances are unknown).
* :class:`NeuralNet` -- ours (:mod:`playout.backgammon.net`), the default.
* :class:`GnubgEvaluator`, :class:`BgsageEvaluator` -- adapters to the PyPI
  ``gnubg`` and ``bgsage`` nets (optional extras), for comparison.

Numba kernels (search, rollouts, matches) take an evaluator's
:meth:`Evaluator.kernel_args` -- ``(kind, W1, b1, W2, b2, pr, pc)`` with
kind 0 = net, 1 = pubeval -- and call :func:`eval_kernel`.  For pubeval
``pr``/``pc`` are its race and contact weights; for the net ``pr`` is the
one-sided bear-off database (:func:`playout.backgammon.bearoff.database`, a
flat ``float64[bearoff.DB_LEN]``; any other length, e.g. ``zeros(122)``, means
none) and ``pc`` is unused.

Position classes (:func:`playout.backgammon.classes.position_class`, gnubg's
scheme): a finished game gets its exact result; for the net, a pure bear-off
(both sides' checkers all in their home boards) is answered by the bear-off
database (gnubg's ``BEAROFF1`` evaluation); a race by the race net; the rest by
the contact net, or, with a network file of three slices, a crashed position
(:func:`playout.backgammon.classes.is_crashed`) by the third (gnubg's crashed net;
:func:`playout.backgammon.classes.net_index` picks the slice).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
from numba import njit

from playout.backgammon import net as _net
from playout.backgammon.bearoff import DB_LEN, bearoff_probs
from playout.backgammon.bearoff import database as bearoff_database
from playout.backgammon.board import checkers_off, game_result, is_race
from playout.backgammon.classes import is_bearoff, net_index
from playout.jitcache import flush_stale_caches, siblings

DATA = Path(str(resources.files("playout.backgammon") / "data"))
#: The shipped default network (SOURCES.md: 218 inputs, 128 hidden units, three slices -- contact,
#: race and gnubg's crashed class, :func:`playout.backgammon.classes.net_index` -- distilled from
#: our own 2-ply search over self-play positions and the best candidate plays from them for eleven
#: generations, the twelfth from our own 3-ply search, the fourteenth with a within-roll ranking
#: term (:func:`playout.backgammon.ranking.rank_loss_grad`), the fifteenth and sixteenth the same
#: on the previous generation's own 3-ply labels, the seventeenth (session 36) on g16's 3-ply
#: labels together with our own rollout labels of g16's positions, the eighteenth (session 37) the
#: same from g16's contact net on the 3-ply and rollout labels of both g16 and g17, the nineteenth
#: (session 38) from g16's contact net on those of g16, g17 and g18, fitted twice as long, the
#: twentieth (session 39) g19 with its race and crashed nets (g12's until then) refitted on the
#: same labels; the earlier defaults ``net_cand128_g19.npz``, ``net_cand128_g18.npz``,
#: ``net_cand128_g17.npz``, ``net_cand128_g16.npz``, ``net_cand128_g15.npz``,
#: ``net_cand128_g14.npz``, ``net_cand128_g12.npz``, ``net_cand128_g9.npz``, ``net_cand128_g7.npz``, ``net_cand128_g6.npz``,
#: ``net_cand128.npz``, ``net_distill128.npz`` and ``net_td80.npz`` stay loadable by path).
DEFAULT_NET = DATA / "net_cand128_g20.npz"
#: The default *cube* network (since session 35): cube decisions (``cube.cube_action``,
#: ``cubeful.cubeful_equities``, ``bg cube``, the ``ours`` engines, ``bg analyze``'s cube
#: figures, ``bg play``'s cube) are made with it, checker plays with :data:`DEFAULT_NET`.  It is
#: ``net_cand128_g16.npz`` (the default checker network until session 36) with its contact net fitted (no ranking term) to our own rollout labels
#: (``data/bg/ro-g16``: 72 trials, ranked VR, cut after 11 half-moves; and the 4,619 prime
#: positions of ``data/bg/prime-g6-t11.jsonl.gz``, 1,296 trials: 145,008 + 15,988 held-out
#: contact rows in all); it values positions better and ranks plays
#: worse than the checker networks (docs/results.md, session 35: judged cube PR on 2,100 close
#: decisions of held-out self-play positions 4.21 -> 3.68 at 2-ply against the first cube
#: network ``net_cube128_g17ro.npz``, g16 alone 5.13).  Since session 39 its crashed net is
#: :data:`DEFAULT_SEARCH_NET`'s (``net_cube128_g20.npz``; ``net_cube128_g18ro.npz``, g12's crashed
#: net, stays loadable): -0.11 +- 0.05 cube PR pooled over four judged samples.  SOURCES.md says
#: how both were made.
DEFAULT_CUBE_NET = DATA / "net_cube128_g20.npz"
#: The default checker network of searches two plies deep or more (XG numbering; since session
#: 39): :data:`DEFAULT_NET`'s recipe -- the same data, start and epochs -- without the within-roll
#: ranking term, a *value* network.  A 1-ply choice compares one roll's plays with each other
#: (what the ranking term fits); a deeper search compares values averaged over the opponent's
#: rolls (what the value term fits).  Judged by gnubg (``benchmarks/bg_choice_vs_gnubg.py --ply
#: 2``, docs/results.md, sessions 38-39) it errs ~0.1 PR less than :data:`DEFAULT_NET` at 2-ply
#: and as much at 3-ply, and ~0.19 more at 1-ply, so :func:`default_net` picks by ply.  Its
#: crashed net was refitted the same way (``net_value128_g20.npz``; ``net_value128_g19.npz``
#: stays loadable).  SOURCES.md says how both were made.
DEFAULT_SEARCH_NET = DATA / "net_value128_g20.npz"


def default_net(ply: int = 1) -> Path:
    """The shipped checker network for a search ``ply`` deep (XG numbering, 1 = the raw net):
    :data:`DEFAULT_NET` at 1-ply, :data:`DEFAULT_SEARCH_NET` at 2 plies and more."""
    return DEFAULT_NET if int(ply) <= 1 else DEFAULT_SEARCH_NET


def equity(probs) -> np.ndarray | float:
    """Cubeless money equity ``2 P(win) - 1 + P(wg) - P(lg) + P(wbg) - P(lbg)`` (last axis = 5)."""
    p = np.asarray(probs, dtype=np.float64)
    e = 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]
    return float(e) if e.ndim == 0 else e


def invert_probs(probs) -> np.ndarray:
    """The other side's five probabilities (win <-> lose), last axis = 5."""
    p = np.asarray(probs, dtype=np.float64)
    return np.stack([1.0 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], axis=-1)


# -- pubeval ----------------------------------------------------------------------------------

@njit(cache=True)
def pubeval_score(race, contact, b):
    """Tesauro's pubeval score of post-move board26 ``b`` for the side that just moved.

    Inputs as in ``pubeval.c``: for each point j = 1..24 (taken from
    ``pos[25 - j]``) five units (opponent blot, own blot, own >= 2, own == 3,
    (own - 3) / 2 for own >= 4), then opponent's bar / 2 and own checkers off / 15.
    """
    return _pubeval(race, contact, b, False)


@njit(cache=True)
def _pubeval(race, contact, b, flipped):
    """:func:`pubeval_score` of ``b`` or, with ``flipped``, of ``flip(b)`` (nothing allocated)."""
    w = race if is_race(b) else contact
    s = 0.0
    for j in range(1, 25):
        n = -int(b[j]) if flipped else int(b[25 - j])
        k = 5 * (j - 1)
        if n == -1:
            s += w[k]
        elif n == 1:
            s += w[k + 1]
        elif n >= 2:
            s += w[k + 2]
            if n == 3:
                s += w[k + 3]
            elif n >= 4:
                s += w[k + 4] * (n - 3) * 0.5
    off_mover, off_opp = checkers_off(b)
    s += w[120] * int(b[25] if flipped else b[0]) * 0.5
    s += w[121] * (off_opp if flipped else off_mover) / 15.0
    return s


@njit(cache=True)
def eval_kernel(kind, W1, b1, W2, b2, pr, pc, b, x, h, out):
    """Five probabilities for the side to act in pre-roll ``b`` (kind 0 net, 1 pubeval).

    With the net, a pure bear-off is looked up in the database ``pr`` (if it is one).
    """
    r = game_result(b)
    if r != 0:
        _net.terminal_probs(r, out)
        return
    if kind == 0:
        if pr.shape[0] == DB_LEN and is_bearoff(b):
            bearoff_probs(pr, b, False, out)
            return
        _net.encode(b, x)
        _net.forward(W1, b1, W2, b2, net_index(W1, b), x, h, out)
        _net.sanitize(out)
    else:
        s = _pubeval(pr, pc, b, True)  # the opponent just moved: score flip(b)
        out[:] = 0.0
        out[0] = 1.0 - 1.0 / (1.0 + np.exp(-s))


@njit(cache=True)
def eval_after_move(kind, W1, b1, W2, b2, pr, pc, m, x, h, tmp, out):
    """The *mover's* five probabilities after its play ``m`` (post-move board26, mover's view).

    Equal to ``invert(eval_kernel(flip(m)))`` without building the flipped board.
    """
    r = game_result(m)
    if r != 0:
        _net.terminal_probs(r, out)
        return
    if kind == 0:
        if pr.shape[0] == DB_LEN and is_bearoff(m):
            bearoff_probs(pr, m, True, tmp)
            _net.invert(tmp, out)
            return
        _net.encode_flipped(m, x)
        _net.forward(W1, b1, W2, b2, net_index(W1, m), x, h, tmp)
        _net.sanitize(tmp)
        _net.invert(tmp, out)
    else:
        s = pubeval_score(pr, pc, m)
        out[:] = 0.0
        out[0] = 1.0 / (1.0 + np.exp(-s))


@njit(cache=True, _nrt=False)
def _eval_batch_loop(kind, W1, b1, W2, b2, pr, pc, boards, out, x, h, o):
    # compiled without reference counting (it allocates nothing): otherwise numba's atomic
    # incref/decref of the dozen arrays passed per board cost about 10% of the evaluation
    for i in range(boards.shape[0]):
        eval_kernel(kind, W1, b1, W2, b2, pr, pc, boards[i], x, h, o)
        for k in range(5):
            out[i, k] = o[k]


@njit(cache=True)
def eval_batch_kernel(kind, W1, b1, W2, b2, pr, pc, boards, out):
    """``out[n, 5]`` = :func:`eval_kernel` of each of ``boards[n, 26]``."""
    x = np.zeros(W1.shape[1])
    h = np.zeros(W1.shape[2])
    o = np.zeros(5)
    _eval_batch_loop(kind, W1, b1, W2, b2, pr, pc, boards, out, x, h, o)


def _as_boards(boards) -> np.ndarray:
    b = np.ascontiguousarray(boards, dtype=np.int8)
    if b.ndim == 1:
        b = b[None, :]
    if b.ndim != 2 or b.shape[1] != 26:
        raise ValueError(f"boards: expected shape (n, 26), got {b.shape}")
    return b


class Evaluator:
    """Base class: ``evaluate(int8[n, 26]) -> float64[n, 5]`` for the side to act (pre-roll)."""

    name = "evaluator"

    def evaluate(self, boards) -> np.ndarray:
        raise NotImplementedError

    def kernel_args(self):
        """Arguments for the numba kernels, or ``None`` if this evaluator has none."""
        return None

    def at_ply(self, ply: int) -> Evaluator | None:
        """This evaluator searching ``ply`` plies itself (XG numbering, 1 = raw), or ``None``.

        For adapters to programs with their own search (gnubg, bgsage); our kernels search
        any evaluator that has :meth:`kernel_args`.
        """
        return self if ply == 1 else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


_NO_DB = np.zeros(122)  # the net's unused pubeval slots (not DB_LEN long: no database)
_DUMMY_W = (np.zeros((2, 1, 1)), np.zeros((2, 1)), np.zeros((2, 1, 5)), np.zeros((2, 5)))


class PubEval(Evaluator):
    """Tesauro's pubeval (weights in ``data/pubeval.npz``; public domain)."""

    name = "pubeval"

    def __init__(self, path: Path | None = None):
        with np.load(path or DATA / "pubeval.npz", allow_pickle=False) as z:
            self.race = np.ascontiguousarray(z["race"], dtype=np.float64)
            self.contact = np.ascontiguousarray(z["contact"], dtype=np.float64)

    def kernel_args(self):
        return (1, *_DUMMY_W, self.race, self.contact)

    def evaluate(self, boards) -> np.ndarray:
        b = _as_boards(boards)
        out = np.zeros((b.shape[0], 5))
        eval_batch_kernel(*self.kernel_args(), b, out)
        return out

    def score(self, post_move_board) -> float:
        """pubeval's raw score of a post-move board (higher = better for the side that moved)."""
        return float(pubeval_score(self.race, self.contact,
                                   np.ascontiguousarray(post_move_board, dtype=np.int8)))


class NeuralNet(Evaluator):
    """Our contact + race (+ crashed) network (see :mod:`playout.backgammon.net`), from ``.npz``.

    With ``bearoff`` (the default) pure bear-offs are answered by the one-sided bear-off
    database (:mod:`playout.backgammon.bearoff`, built and cached on first use, ~2 s).
    """

    bearoff = True

    def __init__(self, path: Path | str | None = None, bearoff: bool = True):
        self.bearoff = bool(bearoff)
        self.path = Path(path) if path else DEFAULT_NET
        if not self.path.exists():
            raise ValueError(f"{self.path}: network file not found")
        self.W1, self.b1, self.W2, self.b2, self.meta = _net.load_weights(self.path)
        self.W1 = _net.trim_inputs(self.W1)  # features it does not weigh are never computed
        self.name = f"net-{self.path.stem}"
        self.hidden = self.W1.shape[2]

    @classmethod
    def from_arrays(cls, W1, b1, W2, b2, name="net", bearoff: bool = True):
        self = cls.__new__(cls)
        self.bearoff = bool(bearoff)
        self.path = None
        self.W1, self.b1, self.W2, self.b2 = (np.ascontiguousarray(a, dtype=np.float64)
                                              for a in (_net.pad_inputs(np.asarray(W1)), b1, W2, b2))
        self.W1 = _net.trim_inputs(self.W1)
        self.meta = {}
        self.name = name
        self.hidden = self.W1.shape[2]
        return self

    def kernel_args(self):
        # the database is fetched per call (loaded once per process), not kept on the object,
        # so a pickled evaluator sent to a worker process stays small
        db = bearoff_database() if self.bearoff else _NO_DB
        return (0, self.W1, self.b1, self.W2, self.b2, db, _NO_DB)

    def evaluate(self, boards) -> np.ndarray:
        b = _as_boards(boards)
        out = np.zeros((b.shape[0], 5))
        eval_batch_kernel(*self.kernel_args(), b, out)
        return out


class GnubgEvaluator(Evaluator):
    """gnubg's 0-ply net (PyPI ``gnubg``), cubeless; ``plies`` in gnubg numbering."""

    def __init__(self, plies: int = 0):
        import gnubg

        self._g = gnubg
        self._ci = gnubg.cubeinfo()
        self._ec = gnubg.evalcontext(0, int(plies), 1, 0, 0)
        self.plies = int(plies)
        self.name = f"gnubg-{plies}ply(gnubg)"

    def at_ply(self, ply: int) -> Evaluator:
        """gnubg's own ``ply - 1``-ply search (gnubg numbering: 0 = raw net)."""
        return self if ply - 1 == self.plies else GnubgEvaluator(ply - 1)

    def evaluate(self, boards) -> np.ndarray:
        from playout.backgammon.ids import board_to_gnubg

        b = _as_boards(boards)
        out = np.zeros((b.shape[0], 5))
        for i, row in enumerate(b):
            r = game_result(row)
            if r != 0:
                tmp = np.zeros(5)
                _net.terminal_probs(r, tmp)
                out[i] = tmp
                continue
            out[i] = self._g.evaluate(board_to_gnubg(row), self._ci, self._ec)[:5]
        return out


class BgsageEvaluator(Evaluator):
    """bgsage's production nets (PyPI ``bgsage``) at ``level`` (XG numbering, "1ply".."4ply")."""

    def __init__(self, level: str = "1ply"):
        import bgsage

        self._bg = bgsage
        self.level = level
        self.name = f"bgsage-{level}"

    def at_ply(self, ply: int) -> Evaluator:
        """bgsage's own ``ply``-ply search (XG numbering, as bgsage's levels)."""
        return self if f"{ply}ply" == self.level else BgsageEvaluator(f"{ply}ply")

    def evaluate(self, boards) -> np.ndarray:
        b = _as_boards(boards)
        out = np.zeros((b.shape[0], 5))
        todo = []
        for i, row in enumerate(b):
            r = game_result(row)
            if r != 0:
                tmp = np.zeros(5)
                _net.terminal_probs(r, tmp)
                out[i] = tmp
            else:
                todo.append(i)
        if todo:
            pos = [{"board": [int(v) for v in b[i]], "cube_value": 1, "cube_owner": "centered"}
                   for i in todo]
            res = self._bg.batch_evaluate(pos, eval_level=self.level, n_threads=1)
            for i, r in zip(todo, res):
                out[i] = _bgsage_probs(r)
        return out


def _bgsage_probs(r) -> np.ndarray:
    p = r.probs
    if hasattr(p, "win"):
        return np.array([p.win, p.gammon_win, p.backgammon_win, p.gammon_loss, p.backgammon_loss])
    return np.asarray(list(p)[:5], dtype=np.float64)


EVALUATORS = {"net": NeuralNet, "pubeval": PubEval, "gnubg": GnubgEvaluator, "bgsage": BgsageEvaluator}


#: the PyPI packages behind the optional evaluators (the versions the tests use)
_EXTRA_PACKAGES = {"gnubg": "gnubg==1.1.0a16", "bgsage": "bgsage==2.0.20260907"}


def get_evaluator(name: str | None = None, ply: int = 1) -> Evaluator:
    """An evaluator by name: ``net`` (default: the shipped network for a search ``ply`` deep,
    :func:`default_net`), ``pubeval``, ``gnubg``, ``bgsage``, or a ``.npz`` path."""
    if name is None or name == "net":
        return NeuralNet(default_net(ply))
    if name.endswith(".npz"):
        return NeuralNet(name)
    if name not in EVALUATORS:
        raise ValueError(f"evaluator: unknown {name!r} (choose net, pubeval, gnubg, bgsage or a .npz)")
    try:
        return EVALUATORS[name]()
    except ImportError as exc:
        raise ValueError(f"evaluator {name!r} needs an optional package ({exc}): "
                         f"pip install {_EXTRA_PACKAGES.get(name, name)}") from None


def get_cube_evaluator(name: str | None = None) -> Evaluator:
    """The evaluator of cube decisions for an evaluator name: ``net`` (or ``None``) gives the
    default cube network (:data:`DEFAULT_CUBE_NET`), any other name or ``.npz`` path the same
    evaluator as :func:`get_evaluator` (a given network decides the cube too)."""
    if name is None or name == "net":
        return NeuralNet(DEFAULT_CUBE_NET)
    return get_evaluator(name)


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "net.py", "features.py", "bearoff.py",
                                       "classes.py"))
