"""PR table on the shared reference set A: engines side by side, ratios against gnubg 0-ply.

Usage: ``.venv/bin/python benchmarks/bg_pr_table.py [--engine SPEC ...] [--limit N]``.
Reference A: bgsage 3-ply cubeful for every legal move (not a rollout): "PR vs bgsage 3-ply".
Peers' published figures on the same set (reference/A/README.md, checker PR): gnubg 0-ply 2.07,
bgsage 1-ply 2.15, bgsage 2-ply 0.75, gnubg 2-ply 0.27, pubeval 27.2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playout.backgammon import benchmark as B, engines as E, scoring as S

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"
DEFAULT = ["gnubg:ply=0", "bgsage:ply=1", "bgsage:ply=2", "pubeval", "ours:ply=1", "ours:ply=2"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", action="append")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    bset = B.load_set(REF_A)
    rows = []
    for spec in args.engine or DEFAULT:
        try:
            eng = E.make_engine(spec)
        except E.EngineError as exc:
            print(f"{spec}: unavailable ({exc})")
            continue
        s = S.summarize(S.rate(bset.decisions, bset.references, eng, limit=args.limit))
        rows.append((eng.name, s))
    base = next((s for n, s in rows if n.startswith("gnubg 0")), None)
    print(f"{'engine':24s} {'PR':>6s} {'chkPR':>6s} {'cubePR':>6s} {'blund':>5s} {'n':>4s} {'mism':>4s} {'ms/dec':>7s} {'PR/gnubg0':>9s}")
    for name, s in rows:
        ratio = s.checker_pr / base.checker_pr if base else float("nan")
        print(f"{name:24s} {s.pr:6.2f} {s.checker_pr:6.2f} {s.cube_pr:6.2f} {s.blunders:5d} {s.decisions:4d} "
              f"{s.mismatches:4d} {s.ms_per_decision:7.1f} {ratio:9.2f}")


if __name__ == "__main__":
    main()
