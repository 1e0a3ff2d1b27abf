"""Strength: our GTP engine vs GNU Go 3.8, and the three databases against each other.

1. ``--vs-gnugo N``: N games, 9x9, komi 7, colours alternated, our engine with ``--seconds``
   per move (default 1) against ``gnugo --mode gtp --level 10``, for each database in ``--dbs``.
2. ``--round-robin N``: N games per pair of databases at equal playouts per move
   (``--playouts``, default 1000).

Every game is appended to a JSONL file under ``--out`` as it ends (a rerun resumes); scores are
GNU Go's ``final_score`` (Chinese rules) or a resignation; a draw (komi 7 allows one) counts 1/2.
Prints score rates with 95 % Wilson intervals.

Run: ``python benchmarks/go_vs_gnugo.py --vs-gnugo 100 --round-robin 20 --out results/go``
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from playout.go.match import GNUGO, play_match
from playout.stats import wilson_interval as wilson

DBS = ["uniform", "mogo_classic", "montegnu_classic"]


def engine(db: str, seconds: float | None = None, playouts: int | None = None) -> str:
    budget = f"--seconds {seconds}" if seconds else f"--playouts {playouts}"
    return f"{sys.executable} -m playout.cli gtp --mc-patterns {db} {budget} --seed {{seed}}"


def summary(path: Path, name_a: str) -> str:
    recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []
    n = 0
    score = 0.0
    for r in recs:
        if r["a_won"] is None and str(r["result"]).strip() == "0":
            r["a_won"] = 0.5  # draws recorded by an older runner
        if r["a_won"] is not None:
            n += 1
            score += float(r["a_won"])
    lo, hi = wilson(score, n)
    return f"{name_a}: {score:g}/{n} = {score / max(n, 1):.3f} (95% Wilson {lo:.3f}-{hi:.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vs-gnugo", type=int, default=0, help="games per database vs GNU Go level 10")
    ap.add_argument("--round-robin", type=int, default=0, help="games per database pair")
    ap.add_argument("--dbs", default=",".join(DBS))
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--playouts", type=int, default=1000)
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--out", default="results/go")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dbs = args.dbs.split(",")
    if args.vs_gnugo:
        if GNUGO is None:
            sys.exit("gnugo is not installed")
        for db in dbs:
            f = out / f"{db}_vs_gnugo{args.level}.jsonl"
            play_match(engine(db, seconds=args.seconds), f"{GNUGO} --mode gtp --level {args.level}",
                       args.vs_gnugo, f, names=(f"playout-{db}", f"gnugo{args.level}"))
            print(summary(f, f"{db} vs GNU Go level {args.level}"), flush=True)
    if args.round_robin:
        for a, b in itertools.combinations(dbs, 2):
            f = out / f"{a}_vs_{b}_{args.playouts}po.jsonl"
            play_match(engine(a, playouts=args.playouts), engine(b, playouts=args.playouts),
                       args.round_robin, f, names=(a, b))
            print(summary(f, f"{a} vs {b} at {args.playouts} playouts/move"), flush=True)


if __name__ == "__main__":
    main()
