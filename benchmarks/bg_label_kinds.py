"""Which of our label kinds comes closest to bgsage's published rollouts (issue 14).

Usage: ``.venv/bin/python benchmarks/bg_label_kinds.py [--boards N] [--net NET.npz]
[--rollouts T:C,T:C...] [--family FAMILY]``.  Boards: ``N`` (default 100) of bgsage's cubeful-PR
rollout boards (``../shared/data/backgammon/bgsage/cubeful-pr-rollouts.jsonl``, 1,296-trial
rollouts by bgsage's stronger player; side on roll, cubeless equity), drawn with
``default_rng(5)``; with ``--family`` only boards in that family
(:func:`playout.backgammon.families.in_family`, either side), e.g. ``prime``.
For each label kind: the mean |cubeless equity error| against bgsage's equity (all boards and
contact boards), the mean signed error, and CPU seconds a board --

* ``net N-ply``: our network's 1-, 2- and 3-ply value
  (:func:`playout.backgammon.lookahead.label_boards`, the ``bg data lookahead`` labels);
* ``rollout T tC``: our truncated VR rollouts of ``T`` trials cut after ``C`` half-moves
  (:func:`playout.backgammon.lookahead.rollout_labels`, the ``--rollout`` labels).

A rollout's error is part noise (shrinking with trials, and averaged out by a fit over many
positions) and part our player's bias; the lookahead's is all systematic.  bgsage's own
standard error (~0.006) sets the floor.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from playout.backgammon import data as D
from playout.backgammon.board import is_race
from playout.backgammon.evaluators import NeuralNet
from playout.backgammon.families import in_family
from playout.backgammon.lookahead import label_boards, rollout_labels


def _eq(p: np.ndarray) -> np.ndarray:
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--net", default=None, help="network .npz (default: the shipped one)")
    ap.add_argument("--rollouts", default="72:11,144:11,432:11",
                    help="trials:truncate pairs, comma-separated")
    ap.add_argument("--family", help="only boards of this family (families.in_family), e.g. prime")
    a = ap.parse_args()
    rows = [r for _, r in D.bgsage_rows() if r["source"] == "bgsage-cubeful"]
    if a.family:
        try:
            rows = [r for r in rows if in_family(a.family, r["board"])]
        except ValueError as exc:
            ap.error(f"--family: {exc}")
    idx = np.random.default_rng(5).permutation(len(rows))[:a.boards]
    rows = [rows[i] for i in idx]
    boards = np.array([r["board"] for r in rows], dtype=np.int8)
    target = np.array([r["equity"] for r in rows])
    se = np.array([r["equity_se"] or 0.0 for r in rows])
    contact = np.array([not is_race(b) for b in boards])
    ev = NeuralNet(a.net) if a.net else NeuralNet()
    n = len(boards)
    print(f"{n} boards ({int(contact.sum())} contact), bgsage's mean standard error {se.mean():.4f}, "
          f"net {ev.name}")
    res = {}

    def report(name, eq, cpu):
        err = eq - target
        res[name] = {"mae": float(np.abs(err).mean()), "mae_contact": float(np.abs(err[contact]).mean()),
                     "bias": float(err.mean()), "cpu_s_per_board": cpu / n}
        print(f"{name:22s} MAE {np.abs(err).mean():.4f} (contact {np.abs(err[contact]).mean():.4f}) "
              f"bias {err.mean():+.4f}  {cpu / n:.3f} CPU s a board", flush=True)

    label_boards(ev, boards[:1], 2)  # compile outside the timing
    rollout_labels(ev, boards[:1], np.array([-1]), trials=1, truncate=2, seed=0, shard=0)
    for ply in (1, 2, 3):
        t0 = time.process_time()
        p = label_boards(ev, boards, ply) if ply > 1 else ev.evaluate(boards)
        report(f"net {ply}-ply", _eq(p), time.process_time() - t0)
    for spec in a.rollouts.split(","):
        trials, cut = (int(v) for v in spec.split(":"))
        t0 = time.process_time()
        p = rollout_labels(ev, boards, np.full(n, -1), trials=trials, truncate=cut, seed=3, shard=0)
        report(f"rollout {trials} t{cut}", _eq(p), time.process_time() - t0)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
