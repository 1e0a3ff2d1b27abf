"""Supervised training of our network on rollout targets (Open Sage's method; issue 14).

The network of :mod:`playout.backgammon.net` (one hidden sigmoid layer, five sigmoid outputs,
a contact net and a race net) is fitted to the five cubeless probabilities a rollout gives a
pre-roll position (P win, win gammon, win backgammon, lose gammon, lose backgammon of the side
to act; rows of :mod:`playout.backgammon.data`), warm-started from an existing ``.npz``:

* **Loss**: binary cross-entropy of each sigmoid output against its target probability,
  summed over the five outputs (gnubg trains its outputs as independent sigmoids the same
  way), in nats per position, plus ``consistency`` times the squared violations of gnubg's
  ordering (win gammon <= win, win bg <= win gammon, lose gammon <= 1 - win, lose bg <= lose
  gammon) on the raw outputs.  The targets are consistent already (the rows are sanitised
  by :func:`playout.backgammon.net.sanitize`); the outputs are made consistent at evaluation
  time by the same :func:`~playout.backgammon.net.sanitize` the evaluator applies
  (:func:`predict`).
* **Optimiser**: Adam (Kingma & Ba 2015; beta1 0.9, beta2 0.999, eps 1e-8) on shuffled
  minibatches, vectorised numpy (the inputs are encoded once by the numba encoder).
* **Split**: train / held-out tenth by :func:`playout.backgammon.data.is_holdout` of the row
  key (a stable hash of the board).  The *best* held-out epoch of each net (contact, race) is
  kept and written to ``out``.
* **Resume**: after every epoch a checkpoint ``<out>.ckpt.npz`` holds the current weights, the
  Adam moments and step counts, the generator's state, the best weights and the loss history;
  a rerun continues from it and reaches the weights an uninterrupted run would (the same seed
  and data give bit-equal weights).  A checkpoint made with other settings or data is refused.
* **Classes**: a row trains the net :func:`playout.backgammon.net.evaluate_one` would ask for
  its board (race when :func:`playout.backgammon.board.is_race`, else contact); finished games
  and pure bear-offs (answered exactly / by the bear-off database) are left out.

Speed: an epoch over ~18,000 rows takes ~1 s with one BLAS thread, which :func:`train` sets
by default through threadpoolctl (small matrix products; several BLAS threads on a loaded
2-core machine were ~10x slower).  Bit-equal weights are promised for the same data, settings,
seed and BLAS thread count.

Rows whose board is a decision or a candidate's successor of a benchmark (``exclude``, see
:func:`benchmark_keys`) are left out so that a PR measured on that benchmark is not
contaminated.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from playout.backgammon import net as _net
from playout.backgammon.board import flip, game_result, is_race
from playout.backgammon.classes import is_bearoff
from playout.jitcache import flush_stale_caches, siblings

NETS = ("contact", "race")
_PARAMS = ("W1", "b1", "W2", "b2")
_EPS = 1e-7  # probabilities are clipped to [eps, 1 - eps] inside the cross-entropy


class TrainError(ValueError):
    """Bad training input or a checkpoint that cannot be resumed; one line, names the file."""


# -- data --------------------------------------------------------------------------------------

@njit(cache=True)
def encode_boards(boards, X):
    """``X[n, N_INPUTS]`` = the network inputs of each pre-roll ``boards[n, 26]``."""
    x = np.zeros(X.shape[1])
    for i in range(boards.shape[0]):
        _net.encode(boards[i], x)
        X[i, :] = x


@dataclass
class Dataset:
    """Encoded rows: ``X[n, 206]``, targets ``Y[n, 5]``, ``net[n]`` (0 contact, 1 race),
    ``holdout[n]`` (bool), and per row its ``keys``, ``sources``, ``families``, target
    ``equity`` and pre-roll ``boards[n, 26]`` (int8)."""

    X: np.ndarray
    Y: np.ndarray
    net: np.ndarray
    holdout: np.ndarray
    keys: list[str]
    sources: list[str]
    families: list[list[str]]
    equity: np.ndarray
    boards: np.ndarray
    skipped: dict = field(default_factory=dict)
    #: ``int64[n]``: the candidate group of each row (-1 none): rows of one group are the
    #: positions after the candidate plays of one roll (:func:`playout.backgammon.lookahead.rows`)
    group: np.ndarray | None = None

    def __post_init__(self):
        if self.group is None:
            self.group = np.full(len(self.keys), -1, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.keys)

    def subset(self, mask) -> "Dataset":
        """The rows where boolean ``mask[n]`` is set, or, given an integer index array, those
        rows in that order (repeats allowed: a row given k times weighs k times in training)."""
        mask = np.asarray(mask)
        idx = np.flatnonzero(mask) if mask.dtype == bool else mask.astype(np.int64)
        return Dataset(self.X[idx], self.Y[idx], self.net[idx], self.holdout[idx],
                       [self.keys[i] for i in idx], [self.sources[i] for i in idx],
                       [self.families[i] for i in idx], self.equity[idx], self.boards[idx],
                       dict(self.skipped), self.group[idx])

    def fingerprint(self) -> str:
        """First 16 hex digits of the SHA-256 of the keys and targets (resume check)."""
        h = hashlib.sha256()
        for k in self.keys:
            h.update(k.encode() + b"\0")
        h.update(np.ascontiguousarray(self.Y).tobytes())
        return h.hexdigest()[:16]


def benchmark_keys(ref_dir) -> set[str]:
    """Keys of every pre-roll board a PR benchmark scores: each decision's board and, for every
    candidate play of its reference, the successor seen by the side to act next (the board the
    evaluator is asked about at 1-ply).  ``ref_dir`` holds ``rollout.jsonl`` (bgsage layout)."""
    from playout.backgammon.data import board_key

    path = Path(ref_dir) / "rollout.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TrainError(f"{path}: cannot read ({exc.strerror or exc})") from None
    keys: set[str] = set()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            boards = [rec["board"]] + [m["board"] for m in rec.get("moves") or []]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise TrainError(f"{path}:{n}: not a reference record ({exc})") from None
        for i, b in enumerate(boards):
            b = np.asarray(b, dtype=np.int8)
            if i > 0:
                if game_result(b) != 0:
                    continue
                b = flip(b)
            keys.add(board_key(b))
            keys.add(board_key(flip(b)))
    return keys


def _equity(p):
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def prepare(rows: dict, exclude: set[str] | None = None) -> Dataset:
    """Encode ``rows`` (key -> row, :func:`playout.backgammon.data.load`) for training.

    Finished games and pure bear-offs are skipped (the evaluator answers them exactly), and
    keys in ``exclude``; the counts are in ``skipped``.  Target equity is the row's
    ``equity`` (the rollout's unclipped mean) or, without one, that of its probabilities.
    """
    from playout.backgammon.data import is_holdout

    exclude = exclude or set()
    skipped = {"over": 0, "bearoff": 0, "excluded": 0}
    keys, boards, Y, nets, eq, srcs, fams, groups = [], [], [], [], [], [], [], []
    group_ids: dict[str, int] = {}
    for key in sorted(rows):
        row = rows[key]
        if key in exclude:
            skipped["excluded"] += 1
            continue
        b = np.asarray(row["board"], dtype=np.int8)
        if game_result(b) != 0:
            skipped["over"] += 1
            continue
        if is_bearoff(b):
            skipped["bearoff"] += 1
            continue
        p = np.asarray(row["probs"], dtype=np.float64)
        keys.append(key)
        boards.append(b)
        Y.append(p)
        nets.append(1 if is_race(b) else 0)
        e = row.get("equity")
        eq.append(float(e) if e is not None else float(_equity(p)))
        srcs.append(row.get("source", ""))
        fams.append(list(row.get("families") or []))
        g = row.get("group")
        groups.append(-1 if g is None else group_ids.setdefault(g, len(group_ids)))
    n = len(keys)
    B = np.array(boards, dtype=np.int8).reshape(n, 26)
    X = np.zeros((n, _net.N_INPUTS))
    if n:
        encode_boards(B, X)
    return Dataset(X, np.array(Y, dtype=np.float64).reshape(n, 5), np.array(nets, dtype=np.int64),
                   np.array([is_holdout(k) for k in keys], dtype=bool), keys, srcs, fams,
                   np.array(eq, dtype=np.float64), B, skipped, np.array(groups, dtype=np.int64))


# -- the model ---------------------------------------------------------------------------------

def _sig(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # = 1 / (1 + exp(-z)), no overflow


def forward(params, k: int, X):
    """Hidden ``h[n, H]`` and raw outputs ``o[n, 5]`` of net ``k`` for inputs ``X[n, I]``."""
    W1, b1, W2, b2 = params
    h = _sig(X @ W1[k] + b1[k])
    return h, _sig(h @ W2[k] + b2[k])


def cross_entropy(o, Y) -> np.ndarray:
    """Per-row cross-entropy (nats), summed over the five outputs: ``float64[n]``."""
    o = np.clip(o, _EPS, 1.0 - _EPS)
    return -(Y * np.log(o) + (1.0 - Y) * np.log(1.0 - o)).sum(axis=1)


def _violations(o):
    """gnubg's orderings as ``v <= 0``: [wg - w, wbg - wg, lg - (1 - w), lbg - lg]."""
    return np.stack([o[:, 1] - o[:, 0], o[:, 2] - o[:, 1], o[:, 3] + o[:, 0] - 1.0,
                     o[:, 4] - o[:, 3]], axis=1)


def loss_grad(params, k: int, X, Y, consistency: float):
    """Mean loss of net ``k`` on a batch and its gradients ``(gW1, gb1, gW2, gb2)`` (net ``k``'s
    slices: ``[I, H]``, ``[H]``, ``[H, 5]``, ``[5]``)."""
    W1, b1, W2, b2 = params
    n = X.shape[0]
    h, o = forward(params, k, X)
    loss = cross_entropy(o, Y).sum()
    dz = o - Y  # d(BCE)/d(logit) of a sigmoid output
    if consistency > 0.0:
        v = np.maximum(_violations(o), 0.0)
        loss += consistency * (v * v).sum()
        g = 2.0 * consistency * v
        do = np.zeros_like(o)
        do[:, 1] += g[:, 0]
        do[:, 0] -= g[:, 0]
        do[:, 2] += g[:, 1]
        do[:, 1] -= g[:, 1]
        do[:, 3] += g[:, 2]
        do[:, 0] += g[:, 2]
        do[:, 4] += g[:, 3]
        do[:, 3] -= g[:, 3]
        dz = dz + do * o * (1.0 - o)
    dz /= n
    gW2 = h.T @ dz
    gb2 = dz.sum(axis=0)
    dh = (dz @ W2[k].T) * h * (1.0 - h)
    gW1 = X.T @ dh
    gb1 = dh.sum(axis=0)
    return loss / n, (gW1, gb1, gW2, gb2)


def predict(params, boards) -> np.ndarray:
    """The evaluator's five probabilities (consistent, :func:`~playout.backgammon.net.sanitize`)
    for pre-roll ``boards[n, 26]`` from weights ``params = (W1, b1, W2, b2)``: ``float64[n, 5]``."""
    b = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    out = np.zeros((b.shape[0], 5))
    _net.evaluate_batch(*(np.ascontiguousarray(a, dtype=np.float64) for a in params), b, out)
    return out


def widen(params, hidden: int, seed: int):
    """``params`` with ``hidden`` units: extra units get small random input weights and zero
    output weights, so the widened net computes the same outputs.  Only the inputs the net
    weighs get them (:func:`playout.backgammon.net.trim_inputs`: a 218-input net stays one)."""
    W1, b1, W2, b2 = (np.array(a, dtype=np.float64) for a in params)
    H = W1.shape[2]
    if hidden == H:
        return W1, b1, W2, b2
    if hidden < H:
        raise TrainError(f"--hidden {hidden}: the initial network has {H} hidden units "
                         "(a network can be widened, not narrowed)")
    rng = np.random.default_rng([seed, 7])
    extra = hidden - H
    S = W1.shape[0]  # slices: contact, race (and crashed)
    new = rng.uniform(-0.1, 0.1, (S, W1.shape[1], extra))
    new[:, _net.trim_inputs(W1).shape[1]:, :] = 0.0
    W1 = np.concatenate([W1, new], axis=2)
    b1 = np.concatenate([b1, np.zeros((S, extra))], axis=1)
    W2 = np.concatenate([W2, np.zeros((S, extra, W2.shape[2]))], axis=1)
    return W1, b1, W2, b2


# -- training ---------------------------------------------------------------------------------

def _sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _mean_loss(params, k, X, Y) -> float:
    if X.shape[0] == 0:
        return float("nan")
    return float(cross_entropy(forward(params, k, X)[1], Y).mean())


def ckpt_path(out) -> Path:
    """The checkpoint beside ``out``: ``NET.npz`` -> ``NET.ckpt.npz``."""
    out = Path(out)
    return out.with_name(out.stem + ".ckpt.npz")


def _save_ckpt(path: Path, state: dict) -> None:
    tmp = path.with_name(path.stem + ".tmp.npz")
    with open(tmp, "wb") as fh:
        np.savez(fh, **state)
    os.replace(tmp, path)


def train(ds: Dataset, out, *, blas_threads: int | None = 1, **kw) -> dict:
    """:func:`_train` with BLAS limited to ``blas_threads`` threads (threadpoolctl; ``None``: the
    library's default).  The products here are small: on a loaded 2-core machine one thread was
    ~10x faster than OpenBLAS's default (idle, both ran 2 epochs of 21,124 rows in 0.3-0.5 s), and
    the thread count is part of bit-equal reproducibility."""
    if blas_threads is None:
        return _train(ds, out, **kw)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=blas_threads, user_api="blas"):
        return _train(ds, out, **kw)


#: ``net`` names of :func:`fit` -> the nets (0 contact, 1 race) trained
NET_CHOICES = {"both": (0, 1), "contact": (0,), "race": (1,)}


def fit(ds: Dataset, out, *, init, epochs: int, lr: float, lr_decay: float,
        net: str = "both", hidden: int | None = None, rank: float = 0.0) -> dict:
    """:func:`train` with the settings of the project's training scripts (seed 1, batch 64,
    consistency 1, no l2, one BLAS thread, progress on stderr): its summary without the
    per-epoch loss lists.  ``net``: a key of :data:`NET_CHOICES`; ``hidden``: widen the initial
    network to this many hidden units (:func:`widen`; default its own); ``rank``: the weight
    of the ranking term (:func:`playout.backgammon.ranking.rank_loss_grad`; 0 off).  Raises
    :class:`TrainError`."""
    summary = train(ds, out, init=init, epochs=epochs, seed=1, hidden=hidden, lr=lr,
                    lr_decay=lr_decay, batch=64, consistency=1.0, l2=0.0, nets=NET_CHOICES[net],
                    max_minutes=None, png=None, progress=True, rank=rank)
    summary.pop("train_loss")
    summary.pop("holdout_loss")
    return summary


def _train(ds: Dataset, out, *, init=None, epochs: int = 20, seed: int = 1, hidden: int | None = None,
           rank: float = 0.0, rank_batch: int = 16,
           lr: float = 1e-3, lr_decay: float = 1.0, batch: int = 64, consistency: float = 1.0,
           l2: float = 0.0, all_inputs: bool = False,
           nets=(0, 1), max_minutes: float | None = None, png=None, progress: bool = True,
           _stop_after: int | None = None) -> dict:
    """Fit the network to ``ds`` and write the best held-out weights of each net to ``out``.

    Args:
        ds: :func:`prepare`'s rows (its ``holdout`` rows are never trained on).
        out: ``.npz`` written with :func:`playout.backgammon.net.save_weights` after every
            epoch (the best held-out epoch of each net so far); ``<out>.ckpt.npz`` is the
            resumable checkpoint.
        init: the starting ``.npz`` (default the shipped default network, ``DEFAULT_NET``), or ``"none"`` for random
            weights (:func:`playout.backgammon.net.init_weights`, ``hidden`` units, ``seed``).
        epochs: total epochs (a rerun with more continues the same run).
        hidden: hidden units (default the initial net's; more widens it, :func:`widen`).
        lr, lr_decay: Adam step size in epoch ``e`` (0-based) is ``lr * lr_decay**e``.
        batch, consistency, l2: minibatch rows, consistency-penalty weight, L2 weight decay
            (added to the gradient of the weights, not the biases).
        nets: which nets to train (0 contact, 1 race); the others keep the initial weights.
        all_inputs: also train the input blocks the initial network does not weigh (all its
            rows past :func:`playout.backgammon.net.trim_inputs`' count are 0: a 218-input net
            has no timing inputs); by default they stay 0, so the result keeps its input count
            and its speed.
        max_minutes: stop after the epoch that passes this wall time (resume later).
        png: write the loss curves (train and held-out per net) to this PNG.
        rank: weight of the ranking term (:func:`playout.backgammon.ranking.rank_loss_grad`,
            equity^2; 0 = off: the training exactly as before).  With ``rank`` > 0 every step
            also takes ``rank_batch`` training groups (``ds.group``: the candidate plays of one
            roll), drawn by their own generator so that the minibatches of rows are those of
            ``rank`` 0; a group's rows are held out together (by its first row's key), and the
            loss reported and used to pick the best epoch is cross-entropy + ``rank`` x ranking
            loss.

    Returns a summary: epochs done, best epoch and held-out loss per net, the loss history
    per trained net (``train_loss``/``holdout_loss``: name -> one value per epoch, epoch 0 =
    the initial net), and the train/held-out row counts.

    Raises:
        TrainError: no held-out rows, a bad init file, or a checkpoint that does not match.
    """
    from playout.backgammon.evaluators import DEFAULT_NET

    out = Path(out)
    init_path = None if init in ("none", "") else Path(init or DEFAULT_NET)
    n_in = _net.N_INPUTS  # input rows trained (the others stay 0)
    if init_path is None:
        params = _net.init_weights(hidden or 80, seed)
        init_name, init_sha = "none", "none"
    else:
        try:
            W1, b1, W2, b2, _meta = _net.load_weights(init_path)
        except ValueError as exc:
            raise TrainError(str(exc)) from None
        params = widen((W1, b1, W2, b2), hidden or W1.shape[2], seed)
        init_name, init_sha = init_path.name, _sha(init_path)
        if not all_inputs:
            n_in = _net.trim_inputs(W1).shape[1]
    params = [np.ascontiguousarray(a, dtype=np.float64) for a in params]
    H = params[0].shape[2]
    nets = tuple(sorted(set(int(k) for k in nets)))
    holdout = ds.holdout
    grouped = np.flatnonzero(ds.group >= 0)
    if rank > 0.0 and len(grouped):  # a group's rows are held out together, by its first row
        first = np.full(int(ds.group.max()) + 1, -1, dtype=np.int64)
        first[ds.group[grouped[::-1]]] = grouped[::-1]  # the last write is the first row
        holdout = holdout.copy()
        holdout[grouped] = ds.holdout[first[ds.group[grouped]]]
    tr = {k: np.flatnonzero((ds.net == k) & ~holdout) for k in nets}
    ho = {k: np.flatnonzero((ds.net == k) & holdout) for k in nets}
    nets = tuple(k for k in nets if len(tr[k]))
    if not nets:
        raise TrainError("no training rows for the chosen net(s)")
    for k in nets:
        if not len(ho[k]):
            raise TrainError(f"no held-out rows for the {NETS[k]} net ({len(tr[k])} training rows):"
                             " more data is needed")
    config = {"init": init_name, "init_sha256": init_sha, "hidden": H, "seed": int(seed),
              "lr": float(lr), "lr_decay": float(lr_decay), "batch": int(batch),
              "consistency": float(consistency), "l2": float(l2), "nets": list(nets), "data": ds.fingerprint(), "rows": len(ds)}
    if n_in < _net.N_INPUTS:
        config["inputs"] = int(n_in)
    from playout.backgammon import ranking as R  # not at the top: it imports this module

    gtr = gho = {}
    if rank > 0.0:
        config.update(rank=float(rank), rank_batch=int(rank_batch))
        gtr = {k: R.groups_of(ds, tr[k]) for k in nets}
        gho = {k: R.groups_of(ds, ho[k]) for k in nets}
    rrng = np.random.default_rng([seed, 11])  # the groups' own stream
    cpath = ckpt_path(out)
    rng = np.random.default_rng(seed)
    m = [np.zeros_like(a) for a in params]
    v = [np.zeros_like(a) for a in params]
    t = np.zeros(2, dtype=np.int64)
    epoch = 0
    best = [a.copy() for a in params]
    best_loss = np.full(2, np.inf)
    best_epoch = np.zeros(2, dtype=np.int64)
    hist_tr: list[list[float]] = []
    hist_ho: list[list[float]] = []
    if cpath.exists():
        try:
            with np.load(cpath, allow_pickle=False) as z:
                old = json.loads(str(z["config"]))
                if old != config:
                    diff = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
                    raise TrainError(f"{cpath}: checkpoint made with other settings or data "
                                     f"({', '.join(diff)}); delete it to start afresh")
                params = [z[p].copy() for p in _PARAMS]
                m = [z["m_" + p].copy() for p in _PARAMS]
                v = [z["v_" + p].copy() for p in _PARAMS]
                best = [z["best_" + p].copy() for p in _PARAMS]
                t = z["t"].copy()
                epoch = int(z["epoch"])
                best_loss = z["best_loss"].copy()
                best_epoch = z["best_epoch"].copy()
                hist_tr = z["hist_train"].tolist()
                hist_ho = z["hist_holdout"].tolist()
                rng.bit_generator.state = json.loads(str(z["rng"]))
                if "rrng" in z.files:
                    rrng.bit_generator.state = json.loads(str(z["rrng"]))
        except (OSError, KeyError, ValueError) as exc:
            if isinstance(exc, TrainError):
                raise
            raise TrainError(f"{cpath}: not a training checkpoint ({exc})") from None

    def rank_term(ps, k, groups):
        if rank <= 0.0 or len(groups[k][1]) < 2:
            return 0.0
        return rank * R.mean_rank_loss(ps, k, ds, *groups[k])

    def losses(ps):
        a = [_mean_loss(ps, k, ds.X[tr[k]], ds.Y[tr[k]]) + rank_term(ps, k, gtr)
             if k in nets else float("nan") for k in (0, 1)]
        b = [_mean_loss(ps, k, ds.X[ho[k]], ds.Y[ho[k]]) + rank_term(ps, k, gho)
             if k in nets else float("nan") for k in (0, 1)]
        return a, b

    def log(msg):
        if progress:
            print(msg, file=sys.stderr, flush=True)

    if epoch == 0 and not hist_tr:
        a, b = losses(params)
        hist_tr.append(a)
        hist_ho.append(b)
        for k in nets:
            best_loss[k] = b[k]
        log("epoch 0 (init): " + "  ".join(
            f"{NETS[k]} train {a[k]:.4f} held-out {b[k]:.4f} ({len(tr[k])}+{len(ho[k])} rows)"
            for k in nets))
    t_start = time.time()
    b1_, b2_, eps = 0.9, 0.999, 1e-8
    while epoch < epochs:
        if max_minutes is not None and time.time() - t_start > 60.0 * max_minutes:
            log(f"stopped after {max_minutes} min at epoch {epoch}: rerun to resume")
            break
        t0 = time.time()
        step = lr * lr_decay ** epoch
        for k in nets:
            perm = tr[k][rng.permutation(len(tr[k]))]
            for s in range(0, len(perm), batch):
                idx = perm[s:s + batch]
                _, grads = loss_grad(params, k, ds.X[idx], ds.Y[idx], consistency)
                if rank > 0.0 and len(gtr[k][1]) > 1:
                    n_g = len(gtr[k][1]) - 1
                    pick = rrng.integers(0, n_g, min(rank_batch, n_g))
                    rows, gid = R.rank_batch(*gtr[k], pick)
                    _, rg = R.rank_loss_grad(params, k, ds.X[rows], ds.Y[rows], gid, len(pick))
                    grads = tuple(g + rank * r for g, r in zip(grads, rg))
                grads[0][n_in:] = 0.0
                t[k] += 1
                c1 = 1.0 - b1_ ** t[k]
                c2 = 1.0 - b2_ ** t[k]
                for j, g in enumerate(grads):
                    if l2 > 0.0 and j in (0, 2):
                        g = g + l2 * params[j][k]
                    m[j][k] = b1_ * m[j][k] + (1.0 - b1_) * g
                    v[j][k] = b2_ * v[j][k] + (1.0 - b2_) * g * g
                    params[j][k] -= step * (m[j][k] / c1) / (np.sqrt(v[j][k] / c2) + eps)
        epoch += 1
        a, b = losses(params)
        hist_tr.append(a)
        hist_ho.append(b)
        for k in nets:
            if b[k] < best_loss[k]:
                best_loss[k] = b[k]
                best_epoch[k] = epoch
                for j in range(4):
                    best[j][k] = params[j][k]
        state = {p: params[j] for j, p in enumerate(_PARAMS)}
        state.update({"m_" + p: m[j] for j, p in enumerate(_PARAMS)})
        state.update({"v_" + p: v[j] for j, p in enumerate(_PARAMS)})
        state.update({"best_" + p: best[j] for j, p in enumerate(_PARAMS)})
        state.update(t=t, epoch=np.int64(epoch), best_loss=best_loss, best_epoch=best_epoch,
                     hist_train=np.array(hist_tr), hist_holdout=np.array(hist_ho),
                     rng=np.asarray(json.dumps(rng.bit_generator.state)),
                     rrng=np.asarray(json.dumps(rrng.bit_generator.state)),
                     config=np.asarray(json.dumps(config)))
        _save_ckpt(cpath, state)
        _write_net(out, best, config, epoch, best_epoch, best_loss, nets)
        log(f"epoch {epoch}/{epochs}: " + "  ".join(
            f"{NETS[k]} train {a[k]:.4f} held-out {b[k]:.4f} (best {best_loss[k]:.4f} @ {best_epoch[k]})"
            for k in nets) + f"  {time.time() - t0:.1f} s")
        if _stop_after is not None and epoch >= _stop_after:
            break
    if not out.exists():
        _write_net(out, best, config, epoch, best_epoch, best_loss, nets)
    if png is not None:
        plot_losses(png, np.array(hist_tr), np.array(hist_ho), nets)
    return {"epochs": epoch, "nets": [NETS[k] for k in nets],
            "best_epoch": {NETS[k]: int(best_epoch[k]) for k in nets},
            "best_holdout_loss": {NETS[k]: float(best_loss[k]) for k in nets},
            "train_loss": {NETS[k]: [float(r[k]) for r in hist_tr] for k in nets},
            "holdout_loss": {NETS[k]: [float(r[k]) for r in hist_ho] for k in nets},
            "rows": {NETS[k]: [int(len(tr[k])), int(len(ho[k]))] for k in nets}}


def _write_net(out: Path, best, config, epoch, best_epoch, best_loss, nets) -> None:
    tmp = out.with_name(out.stem + ".tmp.npz")
    _net.save_weights(tmp, *best, kind="supervised", epochs=int(epoch),
                      best_epoch=json.dumps({NETS[k]: int(best_epoch[k]) for k in nets}),
                      best_holdout_loss=json.dumps({NETS[k]: float(best_loss[k]) for k in nets}),
                      config=json.dumps(config))
    os.replace(tmp, out)


def plot_losses(png, hist_tr, hist_ho, nets=(0, 1)) -> None:
    """Loss curves (train solid, held-out dashed, per net) against the epoch, to ``png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ep = np.arange(hist_tr.shape[0])
    for k, colour in zip((0, 1), ("tab:blue", "tab:orange")):
        if k not in nets:
            continue
        ax.plot(ep, hist_tr[:, k], color=colour, label=f"{NETS[k]} train")
        ax.plot(ep, hist_ho[:, k], color=colour, ls="--", label=f"{NETS[k]} held-out")
    ax.set_xlabel("epoch (0 = initial network)")
    ax.set_ylabel("cross-entropy, nats per position (5 outputs)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


# -- measuring ---------------------------------------------------------------------------------

def measure(evaluator, ds: Dataset) -> dict:
    """Mean absolute cubeless equity error and mean cross-entropy of ``evaluator``'s outputs
    (:meth:`~playout.backgammon.evaluators.Evaluator.evaluate` of the pre-roll boards) against
    the rows' targets: ``{"n", "equity_mae", "cross_entropy"}``."""
    if len(ds) == 0:
        return {"n": 0, "equity_mae": float("nan"), "cross_entropy": float("nan")}
    p = evaluator.evaluate(ds.boards)
    return {"n": len(ds), "equity_mae": float(np.abs(_equity(p) - ds.equity).mean()),
            "cross_entropy": float(cross_entropy(p, ds.Y).mean())}


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "net.py", "board.py", "features.py"))
