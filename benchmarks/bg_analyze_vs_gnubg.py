"""Per-player error rates of `bg analyze` beside gnubg 1.07's own `analyse match` (0-ply).

    python benchmarks/bg_analyze_vs_gnubg.py [MATCH.mat ...] [--engine ours:ply=2] [--plies N]

For each match (default: the gnubg-made fixtures in tests/data/bg/): gnubg's
`show statistics match` after an N-ply (gnubg numbering, default 0; pruning net off)
`analyse match`, ours with gnubg's net at N plies (`gnubg:ply=N`: at N >= 1 plays and cube
figures are our cubeful search over gnubg's 0-ply net; close to gnubg's), and ours with ENGINE.
Columns: checker / cube / overall
error rate (mEMG), PR, luck rate (mEMG).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from playout.backgammon.analysis import analyze, make_rater  # noqa: E402
from playout.backgammon.gnubg_oracle import gnubg_analyse  # noqa: E402
from playout.backgammon.matchfile import read_match  # noqa: E402

KEYS = ("checker_error_rate_memg", "cube_error_rate_memg", "overall_error_rate_memg", "luck_rate_memg")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matches", nargs="*", default=[str(p) for p in sorted((ROOT / "tests/data/bg").glob("gnubg_*.mat"))])
    ap.add_argument("--engine", default="ours:ply=2")
    ap.add_argument("--plies", type=int, default=0, help="gnubg's analysis depth (gnubg numbering)")
    args = ap.parse_args()
    print(f"{'match':22} {'player':6} {'who':16} {'checker':>8} {'cube':>8} {'overall':>8} {'PR':>7} {'luck':>8}")
    for path in args.matches:
        m = read_match(path)
        g = gnubg_analyse(path, args.plies)
        rows = [(f"gnubg 1.07 {args.plies}-ply", g)]
        for spec in (f"gnubg:ply={args.plies}", args.engine):
            rater, _ = make_rater(spec)
            rows.append((f"ours {spec}", analyze(m, rater)["players"]))
        for i in (0, 1):
            for who, ps in rows:
                p = ps[i]
                pr = p["overall_error_rate_memg"] / 2
                print(f"{Path(path).stem:22} {m.players[i][:6]:6} {who:16} " +
                      " ".join(f"{p[k]:8.1f}" for k in KEYS[:3]) + f" {pr:7.1f} {p[KEYS[3]]:8.1f}")


if __name__ == "__main__":
    main()
