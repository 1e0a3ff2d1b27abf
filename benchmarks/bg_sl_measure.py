"""Held-out error of networks against rollout targets (issue 14's equity-error figure).

Usage: ``.venv/bin/python benchmarks/bg_sl_measure.py NET.npz... [--data FILE ...]``
(``net`` = the shipped default).  For each network, on the held-out tenth
(``data.is_holdout``) of: our labels (``--data``, default the committed snapshot), bgsage's
``player-backgame-rollout.txt`` boards (bgsage's own rolled-out targets), bgsage's
``cubeful-pr-rollouts.jsonl`` boards, and every held-out row of the back-game family
(families.py ``backgame`` rule, either side): n, mean |cubeless equity error| and mean
cross-entropy (nats, five outputs).  Targets: the rollout's equity (bgsage's published mean,
or its probabilities' equity); the network is the evaluator's (bear-off database included).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playout.backgammon import data as D
from playout.backgammon import supervised as S
from playout.backgammon.evaluators import get_evaluator

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("nets", nargs="+")
    ap.add_argument("--data", action="append", default=None)
    args = ap.parse_args()
    ours = D.load(args.data or [ROOT / "data" / "bg" / "labels-v1.jsonl.gz"])
    sage = dict(D.bgsage_rows())
    sets = {
        "ours held-out": S.prepare({k: r for k, r in ours.items() if D.is_holdout(k)}),
        "bgsage backgame held-out": S.prepare({k: r for k, r in sage.items()
                                               if r["source"] == "bgsage-backgame" and D.is_holdout(k)}),
        "bgsage cubeful held-out": S.prepare({k: r for k, r in sage.items()
                                              if r["source"] == "bgsage-cubeful" and D.is_holdout(k)}),
    }
    every = {**sage, **ours}
    sets["backgame family held-out (all)"] = S.prepare(
        {k: r for k, r in every.items() if D.is_holdout(k) and "backgame" in (r.get("families") or [])})
    print(f"{'set':34s} {'net':28s} {'n':>5s} {'|eq err|':>9s} {'x-ent':>7s}")
    for name, ds in sets.items():
        for spec in args.nets:
            m = S.measure(get_evaluator(spec), ds)
            print(f"{name:34s} {Path(spec).stem:28s} {m['n']:5d} {m['equity_mae']:9.4f} "
                  f"{m['cross_entropy']:7.4f}")


if __name__ == "__main__":
    main()
