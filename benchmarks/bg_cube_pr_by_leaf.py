"""Cube PR of our cube search by leaf evaluator: is the cube gap the search or the network?

    python benchmarks/bg_cube_pr_by_leaf.py [BENCHMARK_DIR] [--plies 1,2,3] [--leaf net,gnubg]

Rates only the cube decisions of the benchmark set (default reference set A) with
``cube.cube_action`` at each ply (1: the 0-ply model; 2, 3: the cubeful search) over each leaf
evaluator (our net; PyPI gnubg's 0-ply net), checker plays being irrelevant to the cube PR.
Prints the cube PR of each (ply, leaf).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from playout.backgammon import benchmark, cube, scoring  # noqa: E402
from playout.backgammon.evaluators import get_evaluator  # noqa: E402


class CubeOnly:
    """An engine whose cube decisions come from ``cube.cube_action`` over ``ev`` at ``ply``."""

    def __init__(self, ply: int, ev):
        self.ply, self.ev, self.name = ply, ev, f"cube {ply}-ply over {ev.name}"

    def choose_checker(self, board26, dice, cube_value=1, cube_owner="centered"):
        raise AssertionError("checker decisions are not rated here")

    def cube_decision(self, board26, cube_value=1, cube_owner="centered"):
        if cube_owner == "opponent":
            return False, True
        d = cube.cube_action(np.asarray(board26, dtype=np.int8), int(cube_value), cube_owner,
                             self.ev, ply=self.ply)
        return bool(d.double), bool(d.take)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark_dir", nargs="?", default=str(ROOT.parent / "shared" / "data" /
                                                             "backgammon" / "reference" / "A"))
    ap.add_argument("--plies", default="1,2,3")
    ap.add_argument("--leaf", default="net,gnubg")
    a = ap.parse_args()
    bset = benchmark.load_set(Path(a.benchmark_dir))
    keep = [i for i, d in enumerate(bset.decisions) if d.kind == "cube"]
    decs = [bset.decisions[i] for i in keep]
    refs = [bset.references[i] for i in keep]
    for leaf in a.leaf.split(","):
        ev = get_evaluator(leaf)
        for ply in (int(p) for p in a.plies.split(",")):
            s = scoring.summarize(scoring.rate(decs, refs, CubeOnly(ply, ev)))
            print(f"leaf {ev.name:24s} ply {ply}: cube PR {s.cube_pr:.2f} "
                  f"({s.cube} cube decisions)")


if __name__ == "__main__":
    main()
