"""Checker PR broken down by game plan, for every engine of a ``playout bg pr --csv`` run.

Usage: ``.venv/bin/python benchmarks/bg_pr_by_plan.py ERRORS.csv [REF_DIR] [--top N]``, where
``ERRORS.csv`` comes from ``playout bg pr REF_DIR --engine ours:ply=1 --engine gnubg:ply=0 --csv
ERRORS.csv`` (reference set A by default).  Each decision's plan is the reference record's
``game_plan`` field (bgsage's classification: priming, attacking, anchoring, racing, purerace;
"?" where a record has none).  For each plan it prints the decisions, each engine's mean error
and its *share* of the overall checker PR (the plan's summed error x 500 over all scored checker
decisions, so the shares add up to the PR), then the ``N`` largest errors of the first engine
with the others' errors on the same decisions: on a set of a few hundred decisions a handful of
blunders make much of a PR.
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

from playout.backgammon import benchmark as B

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"


def checker_errors(path) -> dict[str, dict[int, float]]:
    """engine -> decision index -> equity error of the scored checker decisions of a CSV."""
    out: dict[str, dict[int, float]] = defaultdict(dict)
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["status"] == "scored" and r["side"] == "checker":
                out[r["engine"]][int(r["index"])] = float(r["error"])
    return dict(out)


def main(argv: list[str]) -> None:
    top = 10
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if not argv:
        sys.exit(__doc__.split("\n\n")[1])
    errors = checker_errors(argv[0])
    ref = Path(argv[1]) if len(argv) > 1 else REF_A
    bset = B.load_set(ref)
    plan = {i: ((r.extra.get("game_plan") if r is not None else None) or "?")
            for i, r in enumerate(bset.references)}
    engines = list(errors)
    keys = sorted(set.intersection(*(set(e) for e in errors.values())))
    n = len(keys)
    print(f"{ref}: {n} checker decisions scored by every engine ({', '.join(engines)})")
    head = f"{'plan':<11}{'n':>5}" + "".join(f"{e[:18]:>22}" for e in engines)
    print(head + "\n" + " " * 16 + "".join(f"{'mean err / PR share':>22}" for _ in engines))
    plans = sorted({plan[k] for k in keys}, key=lambda p: -sum(errors[engines[0]][k] for k in keys if plan[k] == p))
    for p in plans + ["all"]:
        ks = keys if p == "all" else [k for k in keys if plan[k] == p]
        cells = "".join(f"{sum(errors[e][k] for k in ks) / len(ks):>13.4f} / {500 * sum(errors[e][k] for k in ks) / n:5.2f}"
                        for e in engines)
        print(f"{p:<11}{len(ks):>5}{cells}")
    worst = sorted(keys, key=lambda k: -errors[engines[0]][k])[:top]
    share = 500 * sum(errors[engines[0]][k] for k in worst) / n
    print(f"\n{engines[0]}'s {len(worst)} largest errors ({share:.2f} of its PR):")
    for k in worst:
        d = bset.decisions[k]
        print(f"  #{k:<4} {plan[k]:<10} dice {d.dice[0]}{d.dice[1]}  "
              + "  ".join(f"{e[:12]} {errors[e][k]:.3f}" for e in engines))


if __name__ == "__main__":
    main(sys.argv[1:])
