"""Learn ``mc_*.db`` pattern values from game records by Coulom's minorization-maximization.

Model (generalised Bradley-Terry, R. Coulom, "Computing Elo ratings of move patterns in the
game of Go", ICGA Journal 30(4), 2007): in every position of a training game the move chosen
won a competition among all legal moves of the side to move; a move's strength is the product
of the gammas of its features, and the chosen move's probability is its strength over the sum
of the strengths of the legal moves.  Every move is one cell ``(class, code)`` of GNU Go's value
table (:mod:`playout.go.pattern_compiler`: 1,107 3x3 geometry classes x 256 property codes,
the near bit taken from the previous move as the playouts take it), and its features are
those that GNU Go's format can write back as first-match rules:

* a *tactical* move (it captures, ``ocap >= 1``, or the opponent would capture there,
  ``xcap >= 1``) has one feature: its tactical key ``(ocap 0..3, xcap 0..3, near, self-atari)``
  (60 keys); its shape is not used;
* any other move has two: its geometry class (group *shape*) and its context
  ``(near, self-atari)`` (group *context*, 4 values).

MM updates one group at a time (the features of a group never meet in one move, so the
update is exact): ``gamma_i <- W_i / sum_j C_ij / E_j`` with ``W_i`` the wins of feature ``i``,
``E_j`` the total strength of position ``j`` and ``C_ij`` the strength of ``i``'s team-mates
summed over ``i``'s moves in ``j`` (Coulom's eq. for ``gamma_i``).  Every gamma has Coulom's
prior: one virtual win and one virtual loss against a gamma of 1 (so a feature never seen keeps
gamma 1 and none is 0 or infinite).

Own eyes: the three eye patterns of ``mc_uniform`` (value 0, first, as in GNU Go's three
databases) are written before everything learned, and :func:`fit` leaves their cells out of
the competitions (a move there is never a candidate).  Without them a playout fills its own
eyes and does not end before the 600-move limit (measured: 600.0 moves a playout on 9x9,
8x slower than with them).

Writing (:func:`write_database`): the eye rules, then the tactical keys as rules over the all-``%`` diagram with
the exact property words (``ocapA,xcapB,near|far,osafe|ounsafe``), then for every class seen
in training its exact diagram with one rule per context (value ``gamma_shape * gamma_ctx``),
then (``base``) an existing database's rules for the shapes never seen, and last a catch-all
per context (shape gamma 1).  First match wins, so the table equals the model on every cell
(tactical cells by key, the rest by product).  Values are the gammas times one scale, rounded,
at least 1 and at most :data:`MAX_DB_VALUE`.

Prediction (:func:`prediction`): for each position the database's value of every legal move;
top-1 is the share of positions whose chosen move has the highest value (a tie of ``k`` moves
at the top counts ``1/k``), mean rank counts ties at their mean, and ``p_chosen`` is the mean
probability that a playout (value-proportional sampling) plays the chosen move.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from numba import njit

from playout.go.pattern_compiler import CompiledPatterns, geometry_classes, load_patterns
from playout.go.patterns import NEIGHBOURS, OFF_BOARD
from playout.go.playout import build_near
from playout.go.properties import point_codes
from playout.go.rules import (
    BLACK,
    COLOR,
    EMPTY,
    M_KO,
    M_LAST,
    M_N,
    M_NCAP,
    M_NEARGEN,
    M_NEARN,
    M_W,
    META,
    NEARM,
    PASS,
    WHITE,
)
from playout.go.tables import nbr_index
from playout.jitcache import flush_stale_caches, siblings

__all__ = [
    "Positions",
    "extract_positions",
    "features",
    "mm",
    "Model",
    "fit",
    "prediction",
    "write_database",
    "N_TACTICAL",
    "N_CONTEXT",
    "MAX_DB_VALUE",
]

#: tactical keys: (ocap, xcap, near, self-atari) with ocap or xcap >= 1: 4 * 4 * 2 * 2 - 4
N_TACTICAL = 60
#: contexts of a quiet move: (near, self-atari)
N_CONTEXT = 4
#: Largest value written (GNU Go's manual advises values below 10,000,000; the sum over a
#: 19x19 board of 361 such values stays inside 32 bits).
MAX_DB_VALUE = 1_000_000


# ------------------------------------------------------------------------------ extraction
@njit(cache=True)
def _position_cells(S, B, c, out_q, out_idx, out_code):
    """Legal points of ``c`` (to move; simple ko, suicide illegal) with their mover-relative
    neighbourhood index (0..65535) and property code including the near bit; returns count."""
    W = S[META, M_W]
    N = S[META, M_N]
    ko = S[META, M_KO]
    o = c - 1
    g = S[META, M_NEARGEN + o]
    n = 0
    for r in range(N):
        for k in range(N):
            q = (r + 1) * W + k + 1
            if S[COLOR, q] != EMPTY or q == ko:
                continue
            lb, lw, cb, cw = point_codes(S, B, q)
            if c == BLACK:
                if not lb:
                    continue
                code = cb
            else:
                if not lw:
                    continue
                code = cw
            if S[NEARM + o, q] == g:
                code |= 1
            idx = np.int64(nbr_index(S, W, q))
            if c == WHITE:  # own/opponent swap: exchange the two bits of every 2-bit state
                lo = idx & 0x5555
                hi = (idx >> 1) & 0x5555
                idx = (lo << 1) | hi
            out_q[n] = q
            out_idx[n] = idx
            out_code[n] = code
            n += 1
    return n


def position_cells(board, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points, neighbourhood indices, property codes) of ``c``'s legal moves on ``board``.

    The near bit follows the previous move as the playouts build it
    (:func:`playout.go.playout.build_near`, captured points included); no near set after a
    pass or at the start.  ``board`` is not changed.
    """
    S = board.S.copy()
    B = board.B.copy()
    S[NEARM: NEARM + 2] = 0
    S[META, M_NEARGEN] = 1
    S[META, M_NEARGEN + 1] = 1
    S[META, M_NEARN] = 0
    S[META, M_NEARN + 1] = 0
    last = int(S[META, M_LAST])
    # the captured points from the board's record, not its scratch B (a copied board's is zero)
    caps = board.last_captures()
    S[META, M_NCAP] = len(caps)
    c0 = 16 * S.shape[1]
    B[c0 : c0 + len(caps)] = caps
    if last > 0 and last != PASS:
        if int(S[COLOR, last]) == 3 - c:  # the opponent's stone (none after setup or suicide)
            build_near(S, B, last, 3 - c)
    n_pts = S.shape[1]
    out_q = np.zeros(n_pts, np.int64)
    out_idx = np.zeros(n_pts, np.int64)
    out_code = np.zeros(n_pts, np.int64)
    n = _position_cells(S, B, np.int64(c), out_q, out_idx, out_code)
    return out_q[:n], out_idx[:n], out_code[:n]


@dataclass
class Positions:
    """Candidate moves of many positions, flattened.

    ``cls``/``code``: int64[K] geometry class and property code of every legal move;
    ``start``: int64[P + 1], position ``j``'s moves are ``start[j]:start[j + 1]``;
    ``chosen``: int64[P] index (into K) of the move played; ``games``: files read;
    ``skipped``: moves not used (passes, a move our legality test refuses).
    """

    cls: np.ndarray
    code: np.ndarray
    start: np.ndarray
    chosen: np.ndarray
    games: int = 0
    skipped: int = 0

    @property
    def n_positions(self) -> int:
        return int(self.chosen.shape[0])


def extract_positions(files: Sequence[str | Path]) -> Positions:
    """Every move of every game record in ``files`` as a competition among the legal moves.

    Raises :class:`playout.go.sgf.SgfError` (one line naming the file) for a bad record.
    """
    from playout.go.sgf import read_game

    geo = geometry_classes()
    cls_parts, code_parts, sizes, chosen = [], [], [], []
    k = 0
    skipped = 0
    for f in files:
        game = read_game(f, rules="simple-ko")
        for board, c, p in game.replay():
            if p == PASS or p < 0:
                skipped += 1
                continue
            q, idx, code = position_cells(board, c)
            hit = np.nonzero(q == p)[0]
            if hit.size != 1:
                skipped += 1
                continue
            cls_parts.append(geo.index_class[idx].astype(np.int64))
            code_parts.append(code)
            sizes.append(len(q))
            chosen.append(k + int(hit[0]))
            k += len(q)
    start = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=start[1:])
    cat = (lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64))
    return Positions(cat(cls_parts), cat(code_parts), start, np.asarray(chosen, np.int64),
                     len(files), skipped)


def distinct_games(files: Sequence[str | Path]) -> tuple[list[Path], int]:
    """The first file (in the order given) of each distinct game among ``files`` -- same board
    size, setup stones and moves -- and the number of duplicates left out.  An engine that
    barely varies (GNU Go 3.8 at level 10 from the empty board) repeats whole games; a copy
    would count twice in training, or leak into the held-out games.

    Raises :class:`playout.go.sgf.SgfError` (one line naming the file) for a bad record."""
    from playout.go.board import COLOR
    from playout.go.sgf import read_game

    seen: set = set()
    kept = []
    for f in files:
        g = read_game(f, rules="simple-ko")
        key = (g.setup.size, g.setup.S[COLOR].tobytes(), tuple(g.board.moves))
        if key not in seen:
            seen.add(key)
            kept.append(Path(f))
    return kept, len(files) - len(kept)


# ------------------------------------------------------------------------------ features
def _code_fields(code):
    code = np.asarray(code, np.int64)
    near = code & 1
    xcap = (code >> 1) & 3
    ocap = (code >> 3) & 3
    self_atari = (code >> 6) & 1
    return near, xcap, ocap, self_atari


def tactical_key(ocap, xcap, near, self_atari):
    """Index 0..59 of a tactical key (``ocap`` or ``xcap`` >= 1); vectorised."""
    return (np.asarray(ocap) * 4 + np.asarray(xcap) - 1) * 4 + np.asarray(near) * 2 + self_atari


def features(cls: np.ndarray, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group-A feature, group-B feature) of each move: group A is the shape class
    (0..1106) or ``1107 + tactical key``; group B the context ``near * 2 + self_atari``
    (0..3) of a quiet move, or 4 (a dummy of gamma 1) for a tactical one."""
    from playout.go.pattern_compiler import N_CLASSES

    near, xcap, ocap, sa = _code_fields(code)
    tact = (ocap > 0) | (xcap > 0)
    fa = np.where(tact, N_CLASSES + tactical_key(ocap, xcap, near, sa), cls)
    fb = np.where(tact, N_CONTEXT, near * 2 + sa)
    return fa.astype(np.int64), fb.astype(np.int64)


# ------------------------------------------------------------------------------ MM
def mm(fa: np.ndarray, fb: np.ndarray, start: np.ndarray, chosen: np.ndarray, na: int,
       nb: int, iterations: int = 300, tol: float = 1e-7, fixed_b: Sequence[int] = (),
       prior: bool = True) -> tuple:
    """Coulom's MM for teams of two features (one from group A, one from group B).

    ``fa``/``fb``: int64[K] features of each move, in 0..na-1 and 0..nb-1; ``start``/``chosen``
    as in :class:`Positions`; group-B features in ``fixed_b`` keep gamma 1 (dummies).  With
    ``prior`` each gamma has one virtual win and one virtual loss against gamma 1 (Coulom's
    prior; without it a feature that never wins goes to 0 and one never met is undefined).  Alternates group updates
    until the largest relative change of a sweep is below ``tol`` or ``iterations`` sweeps.
    Returns ``(gamma_a float64[na], gamma_b float64[nb], sweeps, log-likelihood per position)``.
    """
    pos = np.repeat(np.arange(len(start) - 1), np.diff(start))
    ga = np.ones(na)
    gb = np.ones(nb)
    wa = np.bincount(fa[chosen], minlength=na).astype(float)
    wb = np.bincount(fb[chosen], minlength=nb).astype(float)
    free_b = np.ones(nb, bool)
    free_b[list(fixed_b)] = False
    pw, pg = (1.0, 2.0) if prior else (0.0, 0.0)
    sweeps = 0
    for sweeps in range(1, iterations + 1):
        old_a, old_b = ga.copy(), gb.copy()
        e = np.bincount(pos, ga[fa] * gb[fb], minlength=len(start) - 1)
        den = np.bincount(fa, gb[fb] / e[pos], minlength=na)
        ga = (wa + pw) / (den + pg / (ga + 1.0))
        e = np.bincount(pos, ga[fa] * gb[fb], minlength=len(start) - 1)
        den = np.bincount(fb, ga[fa] / e[pos], minlength=nb)
        gb = np.where(free_b, (wb + pw) / (den + pg / (gb + 1.0)), 1.0)
        change = max(np.max(np.abs(ga / old_a - 1.0)), np.max(np.abs(gb / old_b - 1.0)))
        if change < tol:
            break
    e = np.bincount(pos, ga[fa] * gb[fb], minlength=len(start) - 1)
    loglik = float(np.mean(np.log(ga[fa[chosen]] * gb[fb[chosen]] / e))) if len(chosen) else 0.0
    return ga, gb, sweeps, loglik


@dataclass
class Model:
    """Learned gammas: ``shape`` float64[1107], ``tactical`` float64[60], ``context``
    float64[4]; ``seen`` bool[1107] classes met in training; ``sweeps``, ``loglik``."""

    shape: np.ndarray
    tactical: np.ndarray
    context: np.ndarray
    seen: np.ndarray
    sweeps: int
    loglik: float

    def power(self, exponent: float) -> "Model":
        """The model with every gamma raised to ``exponent`` (< 1 flattens the playout
        distribution: a temperature; the move ranking is unchanged)."""
        return Model(self.shape ** exponent, self.tactical ** exponent,
                     self.context ** exponent, self.seen, self.sweeps, self.loglik)

    def cell_gammas(self) -> np.ndarray:
        """float64[1107, 256]: the model's gamma of every (class, code) cell."""
        codes = np.arange(256)
        near, xcap, ocap, sa = _code_fields(codes)
        tact = (ocap > 0) | (xcap > 0)
        ctx = self.context[near * 2 + sa]
        g = self.shape[:, None] * ctx[None, :]
        tk = tactical_key(ocap[tact], xcap[tact], near[tact], sa[tact])
        g[:, tact] = self.tactical[tk][None, :]
        return g


def eye_cells() -> np.ndarray:
    """bool[1107, 256]: the cells the own-eye rules of ``mc_uniform`` set to 0."""
    return load_patterns("mc_uniform").values == 0


def drop_cells(data: Positions, exclude: np.ndarray) -> Positions:
    """``data`` without the candidate moves in ``exclude`` cells (bool[1107, 256]), and
    without the positions whose chosen move is one of them."""
    keep = ~exclude[data.cls, data.code]
    pos = np.repeat(np.arange(data.n_positions), np.diff(data.start))
    ok_pos = keep[data.chosen]
    keep &= ok_pos[pos]
    new_index = np.cumsum(keep) - 1
    sizes = np.bincount(pos[keep], minlength=data.n_positions)[ok_pos]
    start = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=start[1:])
    return Positions(data.cls[keep], data.code[keep], start, new_index[data.chosen[ok_pos]],
                     data.games, data.skipped + int((~ok_pos).sum()))


def fit(data: Positions, iterations: int = 300, exclude: np.ndarray | None = None) -> Model:
    """Run :func:`mm` on the positions' features (``exclude``: cells left out, see
    :func:`drop_cells`; default the own-eye cells, :func:`eye_cells`); a :class:`Model`."""
    from playout.go.pattern_compiler import N_CLASSES

    data = drop_cells(data, eye_cells() if exclude is None else exclude)
    fa, fb = features(data.cls, data.code)
    ga, gb, sweeps, loglik = mm(fa, fb, data.start, data.chosen, N_CLASSES + N_TACTICAL,
                                N_CONTEXT + 1, iterations, fixed_b=[N_CONTEXT])
    seen = np.bincount(data.cls, minlength=N_CLASSES) > 0
    return Model(ga[:N_CLASSES], ga[N_CLASSES:], gb[:N_CONTEXT], seen, sweeps, loglik)


# ------------------------------------------------------------------------------ prediction
def prediction(values: np.ndarray, data: Positions) -> dict:
    """Move prediction of a value table (``CompiledPatterns.values`` or float gammas,
    [1107, 256]) on ``data``: ``{"positions", "top1", "mean_rank", "p_chosen"}``
    (see the module docstring for ties)."""
    v = np.asarray(values, float)[data.cls, data.code]
    p = data.n_positions
    if p == 0:
        return {"positions": 0, "top1": None, "mean_rank": None, "p_chosen": None}
    pos = np.repeat(np.arange(p), np.diff(data.start))
    vmax = np.maximum.reduceat(v, data.start[:-1])
    vc = v[data.chosen]
    n_top = np.bincount(pos, v == vmax[pos], minlength=p)
    above = np.bincount(pos, v > vc[pos], minlength=p)
    equal = np.bincount(pos, v == vc[pos], minlength=p)
    top1 = np.where(vc == vmax, 1.0 / np.maximum(n_top, 1), 0.0)
    rank = 1 + above + (equal - 1) / 2
    total = np.add.reduceat(v, data.start[:-1])
    pc = np.where(total > 0, vc / np.where(total > 0, total, 1), 0.0)
    return {"positions": p, "top1": round(float(top1.mean()), 4),
            "mean_rank": round(float(rank.mean()), 2), "p_chosen": round(float(pc.mean()), 4)}


# ------------------------------------------------------------------------------ writing
_SYMBOL = {0: ".", 1: "O", 2: "X"}


def class_diagram(cls: int) -> tuple[str, str, str]:
    """The exact 3x3 diagram (``.OX``, edges ``| - +``) of geometry class ``cls``'s
    representative; it matches that class only."""
    states = geometry_classes().states[cls]
    grid = [["?"] * 3 for _ in range(3)]
    grid[1][1] = "*"
    at = {off: int(s) for off, s in zip(NEIGHBOURS, states)}
    row_off = {-1: at[(-1, 0)] == OFF_BOARD, 1: at[(1, 0)] == OFF_BOARD}
    col_off = {-1: at[(0, -1)] == OFF_BOARD, 1: at[(0, 1)] == OFF_BOARD}
    for (dr, dc), s in at.items():
        if s != OFF_BOARD:
            ch = _SYMBOL[s]
        elif dr and dc:
            ch = "+" if row_off[dr] and col_off[dc] else ("-" if row_off[dr] else "|")
        else:
            ch = "-" if dr else "|"
        grid[1 + dr][1 + dc] = ch
    return tuple("".join(r) for r in grid)  # type: ignore[return-value]


_ANY = ("%%%", "%*%", "%%%")
_CTX_WORDS = ("far,osafe", "far,ounsafe", "near,osafe", "near,ounsafe")


def _scale(model: Model) -> float:
    gmax = max(model.tactical.max(), (model.shape[model.seen].max() if model.seen.any() else 1.0)
               * model.context.max(), model.context.max())
    return MAX_DB_VALUE / gmax


def write_database(model: Model, path: str | Path, header: Sequence[str],
                   base: CompiledPatterns | None = None, eyes: bool = True) -> int:
    """Write ``model`` as an ``mc_*.db`` file (layout in the module docstring); returns the
    number of rules.  ``header``: comment lines (without ``#``) put first.  ``base``: a
    database whose rules (values times the catch-all's far,osafe value, clipped) answer for
    the shapes never seen in training, before the catch-all.  ``eyes``: the own-eye rules of
    ``mc_uniform`` (value 0) first."""
    s = _scale(model)

    def val(g: float) -> int:
        return int(min(MAX_DB_VALUE, max(1, round(g * s))))

    out = [f"# {h}".rstrip() for h in header]
    n = 0
    if eyes:
        out += ["#", "# Own eyes: never fill them (the eye rules of mc_uniform).", ""]
        for rule in load_patterns("mc_uniform").rules:
            out += [*rule.diagram, rule.label(), ""]
            n += 1
    out += ["#", "# Tactical moves (captures; strings in atari): learned by key, any shape.", ""]
    out += list(_ANY)
    for ocap in range(4):
        for xcap in range(4):
            if ocap == 0 and xcap == 0:
                continue
            for near in (0, 1):
                for sa in (0, 1):
                    g = model.tactical[int(tactical_key(ocap, xcap, near, sa))]
                    words = f"ocap{ocap},xcap{xcap},{'near' if near else 'far'}," \
                            f"{'ounsafe' if sa else 'osafe'}"
                    out.append(f":{val(g)},{words}")
                    n += 1
    out += ["", "# Quiet moves: learned shape x context (near/far, osafe/ounsafe).", ""]
    for cls in np.nonzero(model.seen)[0]:
        out += list(class_diagram(int(cls)))
        for ctx, words in enumerate(_CTX_WORDS):
            out.append(f":{val(model.shape[cls] * model.context[ctx])},{words}")
            n += 1
        out.append("")
    if base is not None:
        k = model.context[0] * s
        out += [f"# Shapes never seen in training: the rules of {Path(base.name).name}, "
                f"values x {k:.1f}.", ""]
        for rule in base.rules:
            out += list(rule.diagram)
            props = "".join("," + p for p in rule.properties)
            v = 0 if rule.value == 0 else int(min(MAX_DB_VALUE, max(1, round(rule.value * k))))
            out += [f":{v}{props}", ""]
            n += 1
    out += ["# Anything else: shape gamma 1 (the prior), by context.", ""]
    out += list(_ANY)
    for ctx, words in enumerate(_CTX_WORDS):
        out.append(f":{val(model.context[ctx])},{words}")
        n += 1
    Path(path).write_text("\n".join(out) + "\n")
    return n


def _pool(results: list[dict]) -> dict:
    """Position-weighted mean of :func:`prediction` results."""
    n = sum(r["positions"] for r in results if r["positions"])
    out = {"positions": n}
    for key, digits in (("top1", 4), ("mean_rank", 2), ("p_chosen", 4)):
        out[key] = round(sum(r[key] * r["positions"] for r in results if r["positions"]) / n,
                         digits) if n else None
    return out


def cross_validate(files: Sequence[str | Path], folds: int = 10, iterations: int = 300) -> dict:
    """Out-of-fold move prediction over all ``files``: games split by
    :func:`playout.go.selfplay.fold`; for each fold MM is fitted on the others and the
    database it writes predicts the fold.  Returns ``{"tuned": pooled prediction,
    "mc_NAME": the built-ins on the same positions}``."""
    import tempfile

    from playout.go.patterns import BUILTIN_NAMES
    from playout.go.selfplay import fold

    data = {k: extract_positions([f for f in files if fold(f, folds) == k]) for k in range(folds)}
    tuned = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(folds):
            if not data[k].n_positions:
                continue
            rest = [f for f in files if fold(f, folds) != k]
            model = fit(extract_positions(rest), iterations)
            write_database(model, Path(tmp) / "cv.db", ["cross-validation"])
            tuned.append(prediction(load_patterns(Path(tmp) / "cv.db").values, data[k]))
    report = {"folds": folds, "tuned": _pool(tuned)}
    for name in BUILTIN_NAMES:
        values = load_patterns(name).values
        report[f"mc_{name}"] = _pool([prediction(values, d) for d in data.values()
                                      if d.n_positions])
    return report


def _selfplay_commands(games_dir, files) -> list[str]:
    """``playout go selfplay`` command lines that regenerate the collections named in
    ``files`` (names as :mod:`playout.go.selfplay` writes them; other names give none)."""
    import re

    top: dict[tuple, int] = {}
    for f in files:
        m = re.fullmatch(r"(gnugo-l(\d+)|ours-p(\d+))(?:-o(\d+))?-(\d+)x\d+-s(\d+)-(\d+)",
                         Path(f).stem)
        if m:
            key = (m.group(2), m.group(3), m.group(4), m.group(5), m.group(6))
            top[key] = max(top.get(key, 0), int(m.group(7)) + 1)
    out = []
    for (level, playouts, opening, size, seed), n in sorted(top.items(),
                                                            key=lambda kv: str(kv[0])):
        engine = f"--level {level}" if level else f"--engine ours --playouts {playouts}"
        extra = f" --random-opening {opening}" if opening else ""
        out.append(f"playout go selfplay {games_dir} --games {n} --size {size} {engine} "
                   f"--seed {seed}{extra}")
    return out


def tune(games_dir: str | Path, out: str | Path, base: str | None = None,
         iterations: int = 300, command: str | None = None, log=None, cv: int = 0,
         exponent: float = 1.0, compare: Sequence[str | Path] = ()) -> dict:
    """Train on the training games of ``games_dir`` (:func:`playout.go.selfplay.split_files`),
    write the database ``out`` and return a report: games and positions, MM sweeps, rules, and
    :func:`prediction` on the held-out games for the tuned database and the three built-ins
    (and ``base`` if it is a file, and each database of ``compare``); with ``cv`` >= 2 also :func:`cross_validate` over all the
    games in ``cv`` folds (``"cross_validation"``).  ``exponent``: the gammas written are
    raised to it (:meth:`Model.power`).  Raises ``ValueError`` (one line) for a missing folder,
    :class:`playout.go.sgf.SgfError` for a bad record."""
    from playout.go.patterns import BUILTIN_NAMES
    from playout.go.selfplay import split_files

    train_files, held_files = split_files(games_dir)
    all_files = sorted(train_files + held_files)
    kept, duplicates = distinct_games(all_files)
    kept_set = set(kept)
    train_files = [f for f in train_files if f in kept_set]
    held_files = [f for f in held_files if f in kept_set]
    say = log or (lambda s: None)
    say(f"reading {len(train_files)} training and {len(held_files)} held-out games "
        f"({duplicates} duplicate games left out)")
    train = extract_positions(train_files)
    held = extract_positions(held_files)
    say(f"{train.n_positions} training positions, {held.n_positions} held-out; fitting")
    model = fit(train, iterations)
    if exponent != 1.0:
        model = model.power(exponent)
    base_db = load_patterns(base) if base else None
    seeds = sorted({f.name.rsplit("-", 1)[0] for f in all_files})
    made = _selfplay_commands(games_dir, all_files)
    cmd = command or shlex.join(["playout", *sys.argv[1:]])
    header = [
        f"{Path(out).name} -- pattern values learned by playout go tune-patterns",
        "",
        "Made by Coulom's minorization-maximization (Bradley-Terry; 'Computing Elo ratings",
        "of move patterns in the game of Go', 2007) on the moves chosen in game records:",
        f"  games: {len(train_files)} training + {len(held_files)} held out (SHA-256 of the",
        "  file name = 0 mod 10) in " + Path(games_dir).name + f"; collections {', '.join(seeds)}",
        f"  ({duplicates} duplicate games left out: same setup and moves as one kept)",
        f"  positions: {train.n_positions} (each: the move played vs all legal moves)",
        f"  MM sweeps: {model.sweeps}, log-likelihood per move {model.loglik:.4f}",
        f"  command: {cmd}",
        *[f"  games made by: {m}" for m in made],
        "Features: tactical key (ocap, xcap, near, osafe) for captures and strings in atari;",
        "otherwise 3x3 shape x (near, osafe). Values = gamma"
        + (f"^{exponent:g}" if exponent != 1.0 else "") + f" x one scale (max {MAX_DB_VALUE:,}).",
        "Part of playout (MIT licence); GNU Go 3.8's Monte Carlo pattern format.",
    ]
    n_rules = write_database(model, out, header, base_db)
    tuned = load_patterns(out)
    report = {"train_games": len(train_files), "held_out_games": len(held_files),
              "duplicate_games": duplicates,
              "train_positions": train.n_positions, "held_out_positions": held.n_positions,
              "skipped_moves": train.skipped + held.skipped, "mm_sweeps": model.sweeps,
              "train_loglik": round(model.loglik, 4), "rules": n_rules,
              "classes_seen": int(model.seen.sum()), "out": str(out), "prediction": {}}
    report["prediction"][Path(out).name] = prediction(tuned.values, held)
    for name in BUILTIN_NAMES:
        report["prediction"][f"mc_{name}"] = prediction(load_patterns(name).values, held)
    if base and Path(base).is_file():
        report["prediction"][Path(base).name] = prediction(base_db.values, held)
    for other in compare:
        report["prediction"][Path(other).name] = prediction(load_patterns(other).values, held)
    if cv >= 2:
        say(f"{cv}-fold cross-validation")
        report["cross_validation"] = cross_validate(sorted(train_files + held_files), cv,
                                                    iterations)
    return report


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "tables.py", "properties.py",
                                        "playout.py"))
