"""Mean |cubeless equity error| of networks against a data set's own labels (train and held-out).

Usage: ``.venv/bin/python benchmarks/bg_label_mae.py DATA NET.npz...`` (``td80`` = the shipped
``net_td80.npz``; DATA a rollout file or a ``bg data lookahead`` folder).  Held-out = the tenth
``data.is_holdout`` picks; the network is the evaluator's (bear-off database included).  Used for
the distillation ablation in docs/results.md (session 9).
"""

from __future__ import annotations

import sys

import numpy as np

from playout.backgammon import data as D
from playout.backgammon import supervised as S
from playout.backgammon.evaluators import DEFAULT_NET, NeuralNet


def main() -> None:
    ds = S.prepare(D.load([sys.argv[1]]))
    ho = ds.holdout
    target = S._equity(ds.Y)
    for w in sys.argv[2:]:
        ev = NeuralNet(DEFAULT_NET.with_name("net_td80.npz") if w == "td80" else w)
        err = np.abs(S._equity(ev.evaluate(ds.boards)) - target)
        print(f"{w}: held-out MAE {err[ho].mean():.4f} (n {int(ho.sum())}), "
              f"train MAE {err[~ho].mean():.4f} (n {int((~ho).sum())})")


if __name__ == "__main__":
    main()
