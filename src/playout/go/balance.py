"""Simulation balancing: playout pattern values fitted so that playouts *evaluate* positions well.

MM (:mod:`playout.go.tune`) fits pattern gammas that predict the moves strong players choose;
a playout policy that plays well need not evaluate well, and the MM-tuned database lost to GNU
Go's hand-written ``mc_montegnu_classic`` as a playout policy (issue 18, session 12).
Simulation balancing (D. Silver and G. Tesauro, "Monte-Carlo Simulation Balancing", ICML 2009;
S.-C. Huang, R. Coulom and S.-S. Lin, "Monte-Carlo Simulation Balancing in Practice", Computers
and Games 2010, their Algorithm 1) instead moves the gammas so that the mean playout result
from a position matches a target value ``V*`` of that position:

    theta <- theta + alpha * (V* - V) * g,      g = mean_j z_j * sum_t psi(s_t, a_t)

with ``theta`` the log-gammas, ``V`` the mean result of ``M`` playouts from the position and
``g`` the policy-gradient estimate from ``N`` other playouts (independent of ``V``, so the
product is unbiased); ``z_j`` is Black's result of playout ``j`` (1, 0, 1/2 for a tie) and
``psi = phi(a) - sum_b pi(b) phi(b)`` the gradient of ``log pi(a)`` of a softmax (Gibbs)
policy ``pi(b) ~ exp(theta . phi(b))`` over the legal moves (both colours share ``theta``).

The policy is :mod:`playout.go.tune`'s model (a move's features: its tactical key, or its 3x3
shape class and context), so a balanced model is written by
:func:`playout.go.tune.write_database` as a GNU Go ``mc_*.db`` file, which our playouts (value-
proportional sampling, the same distribution) and GNU Go 3.8's ``--mc-load-patterns`` read.

Targets ``V*`` come from our own search (:func:`label_positions`: Black's win rate of the move
our :class:`~playout.go.player.Player` chooses after ``playouts`` simulations), never from a peer.
Training positions are drawn from game records (:func:`sample_positions`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from numba import njit

from playout.go.board import BLACK, Board
from playout.go.playout import build_near, playout_score
from playout.go.rules import M_MOVES, M_TOMOVE, META, PASS, play
from playout.go.tune import N_CONTEXT, _position_cells
from playout.jitcache import flush_stale_caches, siblings

__all__ = ["TrainingPosition", "sample_positions", "label_positions", "read_labels",
           "CellFeatures", "run_policy_playout", "balance_step", "Balancer", "train"]


@dataclass
class TrainingPosition:
    """A position to balance on: the record ``file``, the moves played before it (``move``)
    and ``value`` (Black's target win rate ``V*``, None until labelled)."""

    file: str
    move: int
    value: float | None = None

    def board(self) -> Board:
        """The position (side to move, komi and ko as in the record)."""
        from playout.go.sgf import read_game

        return read_game(self.file, self.move).board


def sample_positions(files: Sequence[str | Path], n: int, seed: int = 1, first: int = 6,
                     last_margin: int = 8) -> list[TrainingPosition]:
    """``n`` positions, one per record from a seeded shuffle of ``files`` (cycled when fewer):
    the position before a move drawn uniformly from ``first`` to ``len(moves) - last_margin``
    (records shorter than that are skipped).  Deterministic in ``files`` (sorted) and ``seed``."""
    from playout.go.sgf import read_game

    rng = random.Random(seed)
    order = sorted(str(f) for f in files)
    rng.shuffle(order)
    out: list[TrainingPosition] = []
    k = 0
    while len(out) < n and order:
        f = order[k % len(order)]
        k += 1
        if k > 20 * n + len(order):
            break
        moves = len(read_game(f).board.moves)
        if moves - last_margin <= first:
            continue
        out.append(TrainingPosition(f, rng.randint(first, moves - last_margin)))
    return out


def read_labels(path: str | Path) -> list[TrainingPosition]:
    """The labelled positions of a JSONL file written by :func:`label_positions` (a truncated
    last line, from a killed run, is ignored)."""
    out = []
    p = Path(path)
    if not p.exists():
        return out
    for line in p.read_text().splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        out.append(TrainingPosition(d["file"], int(d["move"]), float(d["value"])))
    return out


def label_positions(positions: Sequence[TrainingPosition], path: str | Path,
                    playouts: int = 20000, seed: int = 1, log=None) -> list[TrainingPosition]:
    """Label each position by our own search and append it to the JSONL file ``path``
    (resumable: positions already in the file are skipped).  ``V*`` = Black's win rate of the
    move a default :class:`~playout.go.player.Player` chooses after ``playouts`` simulations
    (seed ``seed + i`` for position ``i``).  Returns every labelled position of the file."""
    from playout.go.player import Player

    done = {(p.file, p.move) for p in read_labels(path)}
    player = Player(playouts=playouts, resign=0.0)
    with open(path, "a") as fh:
        for i, pos in enumerate(positions):
            if (pos.file, pos.move) in done:
                continue
            b = pos.board()
            player.seed = seed + i
            info = player.analyze(b, playouts=playouts)
            v = info.winrate if b.to_move == BLACK else 1.0 - info.winrate
            fh.write(json.dumps({"file": pos.file, "move": pos.move, "value": round(v, 4),
                                 "to_move": "B" if b.to_move == BLACK else "W",
                                 "playouts": playouts}) + "\n")
            fh.flush()
            if log:
                log(f"{i + 1}/{len(positions)} {Path(pos.file).name}@{pos.move}: {v:.3f}")
    return read_labels(path)


# ------------------------------------------------------------------------------ the kernel
@njit(cache=True)
def run_policy_playout(S, B, index_class, cell_gamma, fa, fb, na, komi, max_moves, grad, qbuf,
                       ibuf, cbuf, wbuf):
    """One playout from ``S`` (changed in place) with the softmax policy of ``cell_gamma``;
    returns Black's result (1 win, 0 loss, 0.5 tie at ``komi``).

    ``cell_gamma``: float64[1107 * 256], the strength of a move in cell ``class * 256 + code``
    (0: never played, the own-eye cells); a move is drawn among the legal moves of the side to
    move (:func:`playout.go.tune._position_cells`: simple ko, no suicide) with probability
    proportional to it; when all are 0 the side passes, and two passes in a row end the
    playout (as does ``max_moves``).  ``index_class``: int32[65536], neighbourhood index ->
    class.  With ``grad`` (float64[na + N_CONTEXT + 1]) of length > 0, adds
    ``sum_t psi_t`` to it: +1 at the chosen move's features ``fa[cell]`` and ``na +
    fb[cell]``, minus every legal move's probability at its own.  ``qbuf``/``ibuf``/``cbuf``
    (int64) and ``wbuf`` (float64): scratch of the padded board's length."""
    passes = 0
    want = grad.shape[0] > 0
    while S[META, M_MOVES] < max_moves:
        c = S[META, M_TOMOVE]
        n = _position_cells(S, B, c, qbuf, ibuf, cbuf)
        tot = 0.0
        for i in range(n):
            cell = index_class[ibuf[i]] * 256 + cbuf[i]
            cbuf[i] = cell
            w = cell_gamma[cell]
            wbuf[i] = w
            tot += w
        p = PASS
        if tot > 0.0:
            r = np.random.random() * tot
            k = n - 1
            acc = 0.0
            for i in range(n):
                acc += wbuf[i]
                if r < acc and wbuf[i] > 0.0:
                    k = i
                    break
            while wbuf[k] <= 0.0:  # rounding at the top end: the last positive move
                k -= 1
            p = qbuf[k]
            if want:
                for i in range(n):
                    if wbuf[i] > 0.0:
                        pi = wbuf[i] / tot
                        grad[fa[cbuf[i]]] -= pi
                        grad[na + fb[cbuf[i]]] -= pi
                grad[fa[cbuf[k]]] += 1.0
                grad[na + fb[cbuf[k]]] += 1.0
            passes = 0
        else:
            passes += 1
        play(S, B, p, c, False)
        build_near(S, B, p, c)
        if passes >= 2:
            break
    score = playout_score(S) - komi
    if score > 0:
        return 1.0
    if score < 0:
        return 0.0
    return 0.5


@njit(cache=True)
def balance_step(S0s, B, values, index_class, cell_gamma, fa, fb, na, komi, m, n, seed, out_v,
                 out_g):
    """Huang, Coulom and Lin's Algorithm 1 for a batch of positions (``S0s``: int64[P, rows,
    points], their states; ``values``: float64[P], Black's targets ``V*``).  For position ``i``:
    ``out_v[i]`` = the mean result of ``m`` playouts, and ``out_g`` (float64[npar]) receives
    ``(V*_i - out_v[i]) * mean_j (z_j - out_v[i]) sum_t psi_jt`` over ``n`` further playouts
    (the baseline ``out_v[i]``, from other playouts, keeps the estimate unbiased and lowers its
    variance).  Seeded: the same arguments give the same results."""
    np.random.seed(seed)
    npts = S0s.shape[2]
    qbuf = np.zeros(npts, np.int64)
    ibuf = np.zeros(npts, np.int64)
    cbuf = np.zeros(npts, np.int64)
    wbuf = np.zeros(npts, np.float64)
    none = np.zeros(0, np.float64)
    tmp = np.zeros(out_g.shape[0], np.float64)
    S = S0s[0].copy()
    for i in range(S0s.shape[0]):
        max_moves = S0s[i, META, M_MOVES] + 3 * npts
        v = 0.0
        for _ in range(m):
            S[:, :] = S0s[i]
            v += run_policy_playout(S, B, index_class, cell_gamma, fa, fb, na, komi, max_moves,
                                    none, qbuf, ibuf, cbuf, wbuf)
        v /= m
        out_v[i] = v
        if n == 0:
            continue
        scale = (values[i] - v) / n
        for _ in range(n):
            S[:, :] = S0s[i]
            tmp[:] = 0.0
            z = run_policy_playout(S, B, index_class, cell_gamma, fa, fb, na, komi, max_moves,
                                   tmp, qbuf, ibuf, cbuf, wbuf)
            w = scale * (z - v)
            if w != 0.0:
                for j in range(tmp.shape[0]):
                    out_g[j] += w * tmp[j]


# ------------------------------------------------------------------------------ training
@dataclass
class CellFeatures:
    """The features of every cell of GNU Go's value table in :mod:`playout.go.tune`'s model:
    ``fa`` int64[1107 * 256] (shape class, or ``1107 + tactical key``), ``fb`` int64[1107 *
    256] (context 0..3, or 4 = none), ``eye`` bool[1107 * 256] (the own-eye cells, never
    played), ``index_class`` int32[65536] (neighbourhood index -> class)."""

    fa: np.ndarray
    fb: np.ndarray
    eye: np.ndarray
    index_class: np.ndarray

    @classmethod
    def build(cls) -> "CellFeatures":
        from playout.go.pattern_compiler import N_CLASSES, geometry_classes
        from playout.go.tune import eye_cells, features

        cells = np.arange(N_CLASSES * 256)
        fa, fb = features(cells // 256, cells % 256)
        return cls(fa, fb, eye_cells().reshape(-1),
                   np.ascontiguousarray(geometry_classes().index_class, dtype=np.int32))


def rule_cells(compiled) -> np.ndarray:
    """int64[1107 * 256]: the index of the rule that sets each cell of a compiled database
    (first match wins, as :func:`playout.go.pattern_compiler.compile_rules`), or
    ``len(compiled.rules)`` for a cell no rule sets (GNU Go's default value 1)."""
    from playout.go.pattern_compiler import N_CLASSES, diagram_class_match
    from playout.go.patterns import property_code_mask

    out = np.full((N_CLASSES, 256), len(compiled.rules), np.int64)
    filled = np.zeros((N_CLASSES, 256), bool)
    for r, rule in enumerate(compiled.rules):
        new = diagram_class_match(rule.masks)[:, None] & property_code_mask(rule.properties)[None, :]
        new &= ~filled
        out[new] = r
        filled |= new
    return out.reshape(-1)


class Balancer:
    """Simulation balancing of a playout policy on labelled positions.

    The policy is either a :class:`playout.go.tune.Model` (its features: ``theta``
    float64[1107 + 60 + 5], the log-gammas of the shape classes, tactical keys, then the four
    contexts and a dummy kept at 0) or a compiled database (``CompiledPatterns``: ``theta``
    holds the log-values of its rules, then GNU Go's default value 1 of the cells no rule
    sets, kept at 0 as the scale; rules of value 0, the own eyes, stay 0).  :meth:`step` runs
    one batch of Algorithm 1 (module docstring); :meth:`model` / :meth:`write` give the
    balanced policy back as a model or an ``mc_*.db`` file; :meth:`evaluate` the mean squared
    error of the playouts' mean result against the targets.
    """

    def __init__(self, model, positions: Sequence[TrainingPosition], komi: float | None = None):
        from playout.go.pattern_compiler import N_CLASSES
        from playout.go.playout import PlayoutState
        from playout.go.tables import load_table
        from playout.go.tune import N_TACTICAL, Model

        self.cells = CellFeatures.build()
        self.base = model
        if isinstance(model, Model):
            self.na = N_CLASSES + N_TACTICAL
            self.theta = np.concatenate([np.log(model.shape), np.log(model.tactical),
                                         np.log(model.context), [0.0]])
            self.frozen = np.zeros(self.theta.shape[0], bool)
            self.frozen[-1] = True  # the dummy context
        else:  # a compiled database: one parameter a rule, then the default cells'
            rules = model.rules
            self.na = len(rules) + 1
            fa = rule_cells(model)
            values = np.array([r.value for r in rules] + [1], np.float64)
            self.cells = CellFeatures(fa, np.zeros_like(fa), values[fa] == 0,
                                      self.cells.index_class)
            self.theta = np.concatenate([np.log(np.maximum(values, 1.0)), [0.0]])
            self.frozen = np.zeros(self.theta.shape[0], bool)
            self.frozen[self.na - 1:] = True  # the default value 1 and the dummy
            self.frozen[:len(rules)] |= values[:-1] == 0
        table = load_table()
        boards = [p.board() for p in positions]
        self.values = np.array([p.value for p in positions], np.float64)
        self.states = np.stack([PlayoutState(b, table).S.copy() for b in boards])
        self.scratch = PlayoutState(boards[0], table).B.copy()
        komis = {float(b.komi) for b in boards}
        if komi is None and len(komis) != 1:
            raise ValueError(f"positions with several komi values {sorted(komis)}: give komi")
        self.komi = float(komi if komi is not None else komis.pop())
        self.steps = 0

    def cell_gamma(self) -> np.ndarray:
        """float64[1107 * 256]: each cell's strength under ``theta`` (0 for own eyes)."""
        g = np.exp(self.theta[self.cells.fa] + self.theta[self.na + self.cells.fb])
        g[self.cells.eye] = 0.0
        return g

    def step(self, batch: np.ndarray, alpha: float, m: int = 32, n: int = 32,
             seed: int = 1) -> float:
        """One update on the positions ``batch`` (indices); returns their mean squared error
        ``(V* - V)^2`` before it."""
        out_v = np.zeros(len(batch))
        g = np.zeros(self.theta.shape[0])
        balance_step(self.states[batch], self.scratch, self.values[batch],
                     self.cells.index_class, self.cell_gamma(), self.cells.fa, self.cells.fb,
                     self.na, self.komi, m, n, seed, out_v, g)
        g[self.frozen] = 0.0
        self.theta += alpha * g / len(batch)
        self.steps += 1
        return float(np.mean((self.values[batch] - out_v) ** 2))

    def evaluate(self, playouts: int = 64, seed: int = 1) -> tuple[float, np.ndarray]:
        """(mean squared error, float64[P] mean results) of ``playouts`` playouts a position."""
        out_v = np.zeros(len(self.values))
        g = np.zeros(self.theta.shape[0])
        balance_step(self.states, self.scratch, self.values, self.cells.index_class,
                     self.cell_gamma(), self.cells.fa, self.cells.fb, self.na, self.komi,
                     playouts, 0, seed, out_v, g)
        return float(np.mean((self.values - out_v) ** 2)), out_v

    def write(self, path: str | Path, header: Sequence[str]) -> int:
        """Write the balanced policy as an ``mc_*.db`` file; returns its number of rules.  A
        model: :func:`playout.go.tune.write_database`; a database: its own rules and diagrams
        in their order, each with its balanced value (rounded, at least 1; own eyes 0)."""
        from playout.go.tune import Model, write_database

        if isinstance(self.base, Model):
            return write_database(self.model(), path, header)
        out = [f"# {h}".rstrip() for h in header]
        out += ["#", f"# The rules of {Path(self.base.name).name} with balanced values; cells "
                "no rule sets keep GNU Go's default 1.", ""]
        for r, rule in enumerate(self.base.rules):
            v = 0 if rule.value == 0 else int(min(10**7, max(1, round(np.exp(self.theta[r])))))
            out += [*rule.diagram, ":" + ",".join([str(v), *rule.properties]), ""]
        Path(path).write_text("\n".join(out) + "\n")
        return len(self.base.rules)

    def model(self):
        """The balanced :class:`playout.go.tune.Model` (every class written: ``seen`` all)."""
        from playout.go.pattern_compiler import N_CLASSES
        from playout.go.tune import Model

        t = self.theta
        return Model(np.exp(t[:N_CLASSES]), np.exp(t[N_CLASSES:self.na]),
                     np.exp(t[self.na:self.na + N_CONTEXT]), np.ones(N_CLASSES, bool),
                     self.base.sweeps, self.base.loglik)


def train(balancer: Balancer, steps: int, alpha: float, batch: int = 50, m: int = 32,
          n: int = 32, seed: int = 1, checkpoint: str | Path | None = None, every: int = 50,
          log=None) -> Balancer:
    """Run :meth:`Balancer.step` until ``balancer.steps`` reaches ``steps``: step ``k`` draws
    its ``batch`` positions and its playout seed from ``seed`` and ``k`` alone, so a run
    resumed from a ``checkpoint`` (an ``.npz`` of ``theta`` and ``steps``, written every
    ``every`` steps and at the end, read at the start when it exists) gives the same result
    as one that was never stopped."""
    if checkpoint is not None and Path(checkpoint).exists():
        d = np.load(checkpoint)
        if d["theta"].shape != balancer.theta.shape:
            raise ValueError(f"{checkpoint}: a checkpoint of another model size")
        balancer.theta = d["theta"].copy()
        balancer.steps = int(d["steps"])
    npos = len(balancer.values)
    k_batch = min(batch, npos)
    errs: list[float] = []
    while balancer.steps < steps:
        k = balancer.steps
        rng = np.random.default_rng([seed, k])
        chosen = np.sort(rng.choice(npos, k_batch, replace=False))
        errs.append(balancer.step(chosen, alpha, m, n, seed=int(rng.integers(1, 2**31 - 1))))
        if checkpoint is not None and (balancer.steps % every == 0 or balancer.steps == steps):
            tmp = Path(str(checkpoint) + ".tmp.npz")
            np.savez(tmp, theta=balancer.theta, steps=balancer.steps)
            tmp.replace(checkpoint)
        if log and balancer.steps % every == 0:
            log(f"step {balancer.steps}/{steps}: batch error {np.mean(errs[-every:]):.4f}")
    return balancer


def mse_report(model_cells: dict[str, np.ndarray], balancer: Balancer, playouts: int = 512,
               seed: int = 7) -> dict:
    """``{name: {"mse", "bias"}}``: each policy's (float64[1107 * 256] cell strengths, e.g.
    ``CompiledPatterns.values`` flattened) mean squared error and mean signed error (target
    minus mean result) over ``balancer``'s positions, ``playouts`` playouts a position."""
    out = {}
    for name, cells in model_cells.items():
        v = np.zeros(len(balancer.values))
        g = np.zeros(balancer.theta.shape[0])
        balance_step(balancer.states, balancer.scratch, balancer.values,
                     balancer.cells.index_class, np.ascontiguousarray(cells, np.float64),
                     balancer.cells.fa, balancer.cells.fb, balancer.na, balancer.komi, playouts,
                     0, seed, v, g)
        d = balancer.values - v
        out[name] = {"mse": round(float(np.mean(d * d)), 5), "bias": round(float(np.mean(d)), 4)}
    return out


def balance_patterns(games_dir: str | Path, out: str | Path, positions: int = 1500,
                     held_positions: int = 100, label_playouts: int = 20000, steps: int = 1000,
                     alpha: float = 50.0, batch: int = 50, m: int = 32, n: int = 32,
                     seed: int = 1, eval_playouts: int = 512, work: str | Path | None = None,
                     command: str | None = None, log=None, start_db: str | None = None) -> dict:
    """``playout go balance-patterns``: MM-fit the training games of ``games_dir`` (as
    :func:`playout.go.tune.tune`), label ``positions`` positions of them and
    ``held_positions`` of the held-out games by our search (:func:`label_positions`,
    ``label_playouts`` simulations), balance the MM model for ``steps`` batches
    (:func:`train`), write it as the ``mc_*.db`` file ``out`` and return a report: the
    held-out positions' mean squared error of the playouts' mean result for the balanced
    database, the start and the three built-ins.  ``start_db`` (a built-in name or a file):
    balance that database's rule values instead of MM's model (one parameter a rule, the
    file written keeps its rules).  Labels and the checkpoint live in
    ``work`` (default ``OUT.work/``): a killed run resumes where it stopped.  Raises
    ``ValueError`` (one line) for a missing folder or too few games."""
    import shlex
    import sys

    from playout.go.pattern_compiler import load_patterns
    from playout.go.patterns import BUILTIN_NAMES
    from playout.go.selfplay import split_files
    from playout.go.tune import distinct_games, extract_positions, fit

    say = log or (lambda s: None)
    train_files, held_files = split_files(games_dir)
    kept, _ = distinct_games(sorted(train_files + held_files))
    kept_set = set(kept)
    train_files = [f for f in train_files if f in kept_set]
    held_files = [f for f in held_files if f in kept_set]
    if not train_files or not held_files:
        raise ValueError(f"{games_dir}: needs training and held-out games "
                         f"({len(train_files)} and {len(held_files)})")
    work = Path(work) if work is not None else Path(str(out) + ".work")
    work.mkdir(parents=True, exist_ok=True)
    if start_db is not None:
        start = load_patterns(start_db)
    else:
        say(f"MM on {len(train_files)} training games")
        start = fit(extract_positions(train_files))
    say(f"labelling {positions} training and {held_positions} held-out positions "
        f"({label_playouts} simulations each; resumable in {work})")
    lab_train = label_positions(sample_positions(train_files, positions, seed),
                                work / "labels-train.jsonl", label_playouts, seed, log)
    lab_held = label_positions(sample_positions(held_files, held_positions, seed + 1),
                               work / "labels-held.jsonl", label_playouts, seed + 10**6, log)
    keys = {(p.file, p.move) for p in sample_positions(train_files, positions, seed)}
    lab_train = [p for p in lab_train if (p.file, p.move) in keys]
    bal = train(Balancer(start, lab_train), steps, alpha, batch, m, n, seed,
                work / "theta.npz", log=log)
    cmd = command or shlex.join(["playout", *sys.argv[1:]])
    header = [
        f"{Path(out).name} -- pattern values balanced by playout go balance-patterns",
        "",
        "Simulation balancing (Huang, Coulom and Lin, 'Monte-Carlo Simulation Balancing in",
        "Practice', Computers and Games 2010, Algorithm 1) of "
        + (f"the rule values of {Path(start_db).name}" if start_db is not None else
           f"the MM model of playout go tune-patterns fitted on {len(train_files)} training "
           f"games of {Path(games_dir).name}") + ":",
        f"  targets: Black's win rate by our own search ({label_playouts} simulations) in",
        f"  {len(lab_train)} positions of the training games of {Path(games_dir).name}",
        f"  {steps} steps of {batch} positions, alpha {alpha:g}, M = {m}, N = {n} playouts, seed {seed}",
        f"  command: {cmd}",
        *([] if start_db is not None else [
            "Features: tactical key (ocap, xcap, near, osafe) for captures and strings in "
            "atari;", "otherwise 3x3 shape x (near, osafe). Values = gamma x one scale."]),
        "Part of playout (MIT licence); GNU Go 3.8's Monte Carlo pattern format.",
    ]
    n_rules = bal.write(out, header)
    held = Balancer(start, lab_held)
    cells = {Path(out).name: load_patterns(out).values.reshape(-1),
             "start": held.cell_gamma()}
    for name in BUILTIN_NAMES:
        cells[f"mc_{name}"] = load_patterns(name).values.reshape(-1)
    return {"train_games": len(train_files), "held_out_games": len(held_files),
            "train_positions": len(lab_train), "held_out_positions": len(lab_held),
            "steps": bal.steps, "rules": n_rules, "out": str(out),
            "held_out_error": mse_report(cells, held, eval_playouts, seed)}


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "rules.py", "playout.py", "tune.py",
                                        "properties.py", "tables.py"))
