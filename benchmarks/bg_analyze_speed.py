"""Match analysis speed: our `bg analyze` against gnubg 1.07's `analyse match`, same file, same run.

    python benchmarks/bg_analyze_speed.py [MATCH.mat] [--engine ours|gnubg|bgsage]

Decisions = every roll played (checker decision, forced ones included, each with its luck
analysis) + every cube decision, counted by our analysis of the file; gnubg analyses the
same ones.  Depths are the same in both numberings: our XG 1-ply = gnubg 0-ply, XG 2-ply =
gnubg 1-ply.  gnubg runs single-threaded (``set threads 1``; ours is single-threaded) and its
start-up and file import (timed without ``analyse match``) are subtracted.  Our numba
kernels are compiled before timing.  Prints decisions/s of each and the ratio ours/gnubg.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from playout.backgammon.analysis import analyze, make_rater  # noqa: E402
from playout.backgammon.matchfile import read_match  # noqa: E402


def gnubg_seconds(path: Path, plies: int) -> float:
    exe = shutil.which("gnubg") or "/usr/games/gnubg"
    if not os.path.exists(exe):
        raise SystemExit("gnubg (Debian GNU Backgammon 1.07 CLI) is not installed")
    head = (f"set threads 1\nset analysis chequerplay evaluation plies {plies}\n"
            f"set analysis cubedecision evaluation plies {plies}\nimport mat {path}\n")

    def run(script: str) -> float:
        t = time.perf_counter()
        subprocess.run([exe, "-t", "-q"], input=script, capture_output=True, text=True, timeout=3600)
        return time.perf_counter() - t

    base = min(run(head) for _ in range(2))
    return max(run(head + "analyse match\n") - base, 1e-9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("match", nargs="?", default=str(ROOT / "tests/data/bg/gnubg_7pt.mat"))
    ap.add_argument("--engine", default="ours", choices=["ours", "gnubg", "bgsage"])
    args = ap.parse_args()
    path = Path(args.match).resolve()
    match = read_match(path)
    warm = make_rater(f"{args.engine}:ply=1" if args.engine != "gnubg" else "gnubg:ply=0")[0]
    analyze(read_match(ROOT / "tests/data/bg/gnubg_money.mat"), warm)  # compile the kernels
    print(f"{path.name}: {match.length or 'money'} points, {len(match.games)} games; engine {args.engine}")
    print(f"{'depth (XG)':>10} {'decisions':>9} {'ours s':>8} {'ours dec/s':>10} {'gnubg s':>8} "
          f"{'gnubg dec/s':>11} {'ours/gnubg':>10}")
    for xg in (1, 2):
        spec = f"gnubg:ply={xg - 1}" if args.engine == "gnubg" else f"{args.engine}:ply={xg}"
        rater, _ = make_rater(spec)
        t = time.perf_counter()
        rep = analyze(match, rater)
        ours = time.perf_counter() - t
        n = sum(p["total_moves"] + p["cube_decisions"] for p in rep["players"])
        g = gnubg_seconds(path, xg - 1)
        print(f"{xg:>10} {n:>9} {ours:>8.2f} {n / ours:>10.1f} {g:>8.2f} {n / g:>11.1f} "
              f"{(n / ours) / (n / g):>10.3f}")


if __name__ == "__main__":
    main()
