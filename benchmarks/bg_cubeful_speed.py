"""Cost of a cube decision by ply: our net, XG 1-ply (the 0-ply model) and cubeful 2/3-ply.

    python benchmarks/bg_cubeful_speed.py [BENCHMARK_DIR] [--plies 1,2,3] [--repeat 3]

Times ``cube.cube_action`` on every cube decision of the benchmark set (default reference set
A) with our default net, CPU seconds of this process (``time.process_time``: fair on a shared
machine), after one warm-up decision so the numba kernels are compiled.  Prints ms per cube
decision and the mean number of boards evaluated per decision (ply >= 2: through
``evaluate``; ply 1 runs the n-ply kernel, not counted).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from playout.backgammon import benchmark, cube  # noqa: E402
from playout.backgammon.evaluators import NeuralNet  # noqa: E402


class Counting(NeuralNet):
    """Our net, counting the boards it evaluates."""

    boards = 0

    def evaluate(self, boards):
        out = super().evaluate(boards)
        Counting.boards += len(out)
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark_dir", nargs="?", default=str(ROOT.parent / "shared" / "data" /
                                                             "backgammon" / "reference" / "A"))
    ap.add_argument("--plies", default="1,2,3")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    decs = [d for d in benchmark.load_set(Path(a.benchmark_dir)).decisions if d.kind == "cube"]
    ev = Counting()
    for ply in (int(p) for p in a.plies.split(",")):
        cube.cube_action(np.array(decs[0].board, dtype=np.int8), 1, "centered", ev, ply)
        Counting.boards = 0
        t = time.process_time()
        for _ in range(a.repeat):
            for d in decs:
                cube.cube_action(np.array(d.board, dtype=np.int8), d.cube_value, d.cube_owner,
                                 ev, ply)
        n = a.repeat * len(decs)
        ms = 1000 * (time.process_time() - t) / n
        boards = (f"{Counting.boards / n:.0f} boards evaluated per decision" if ply > 1 else
                  "the n-ply kernel, not counted")
        print(f"ply {ply}: {ms:.2f} ms per cube decision ({len(decs)} decisions x {a.repeat}), "
              f"{boards}")


if __name__ == "__main__":
    main()
