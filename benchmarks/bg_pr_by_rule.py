"""Checker PR of "specialist by rule": a general network except where a family rule holds.

Usage: ``.venv/bin/python benchmarks/bg_pr_by_rule.py GENERAL.csv SPECIAL.csv FAMILY [REF_DIR]``
with the per-decision CSVs of ``playout bg pr REF_DIR --engine ours:ply=1[,weights=...] --csv``.
The rule is applied to the decision's (pre-move) board, :func:`playout.backgammon.families.
in_family`, so every candidate play of a decision -- the exits included -- is valued by one
net; a 1-ply engine choosing that way errs exactly as the chosen net's run does, so the
combined PR is read off the two runs.  PR = mean error of scored decisions x 500.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from playout.backgammon import benchmark as B
from playout.backgammon.families import in_family

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"


def _errors(path):
    with open(path, newline="") as fh:
        return {(int(r["index"]), r["side"]): float(r["error"]) for r in csv.DictReader(fh)
                if r["status"] == "scored"}


def main() -> None:
    gen, spec, family = sys.argv[1:4]
    ref = Path(sys.argv[4]) if len(sys.argv) > 4 else REF_A
    decisions = B.load_set(ref).decisions
    g, s = _errors(gen), _errors(spec)
    inside = {i for i, d in enumerate(decisions) if in_family(family, d.board)}
    for side in ("checker", "cube"):
        keys = sorted(k for k in g if k[1] == side or (side == "cube" and k[1] != "checker"))
        if not keys:
            continue
        def pr(errs):
            return 500 * sum(errs) / len(errs)
        both = [s[k] if k[0] in inside else g[k] for k in keys]
        ins = [k for k in keys if k[0] in inside]
        print(f"{side}: {len(keys)} scored, {len(ins)} in {family}: PR general {pr([g[k] for k in keys]):.2f}"
              f", specialist everywhere {pr([s[k] for k in keys]):.2f}, by rule {pr(both):.2f}"
              + (f"; inside the family general {pr([g[k] for k in ins]):.2f} vs specialist "
                 f"{pr([s[k] for k in ins]):.2f}" if ins else ""))


if __name__ == "__main__":
    main()
