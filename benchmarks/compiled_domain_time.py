"""Time per decision of a user's compiled domain against the built-in, same kernel, same run.

The users' domains are tests/data/user_connect4_bits.py (the README's example: Pons'
two-bitboard position, a different layout from the built-in's) and tests/data/user_connect4.py
(a plain cell array with a line-walking win test), both written against
:class:`playout.mcts.CompiledDomain` alone; the built-in is the bitboard ``connect4``.  All
three searches take the same decisions with the same visits (the test
``tests/test_compiled_domain_protocol.py`` holds that), so only the primitives' speed
differs: the bitboard user's ratio is the protocol's cost, the cell array's that of
slower primitives.  Median wall ms per decision (build + ITERATIONS iterations + pick), the two
interleaved call by call so that load on a shared machine hits both alike, from the initial
position and from a middle-game one; the ratio user / built-in (issue 16's target: <= 1.5).
The first search of each (compile or cache load) is outside the clock and reported apart.

    python benchmarks/compiled_domain_time.py [--repeats 41] [--iterations 500] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=41)
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    import playout.domains  # noqa: F401 - registers the built-ins
    from playout.domains.connect4 import Connect4
    from playout.mcts import compiled

    bits, cells = _load("user_connect4_bits"), _load("user_connect4")

    out: dict = {"iterations": args.iterations, "repeats": args.repeats, "positions": {}}
    for label, moves in (("initial", ""), ("middle game", "4453342256")):
        state = Connect4.from_moves(moves)
        runs = {"builtin": lambda i, st=state: compiled.search("connect4", st, args.iterations, seed=i + 1)}
        for name, mod in (("user_bits", bits), ("user_cells", cells)):
            runs[name] = (lambda i, st=mod.to_array(state), d=mod.DOMAIN:
                          compiled.search(d, st, args.iterations, seed=i + 1))
        first = {}
        for name, fn in runs.items():
            t0 = time.perf_counter()
            fn(-1)
            first[name] = time.perf_counter() - t0
        times: dict[str, list[float]] = {k: [] for k in runs}
        for i in range(args.repeats):
            for name, fn in runs.items():
                t0 = time.perf_counter()
                fn(i)
                times[name].append(time.perf_counter() - t0)
        med = {k: 1000 * statistics.median(v) for k, v in times.items()}
        out["positions"][label] = {"moves": moves, **{f"{k}_ms": v for k, v in med.items()},
                                   "ratio_bits": med["user_bits"] / med["builtin"],
                                   "ratio_cells": med["user_cells"] / med["builtin"],
                                   "first_call_s": first}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"median ms per {args.iterations}-iteration decision ({args.repeats} interleaved calls each)")
        print(f"{'position':<13} {'built-in':>9} {'user bits':>10} {'ratio':>6} {'user cells':>11} {'ratio':>6}")
        for label, r in out["positions"].items():
            print(f"{label:<13} {r['builtin_ms']:>9.3f} {r['user_bits_ms']:>10.3f} {r['ratio_bits']:>6.2f} "
                  f"{r['user_cells_ms']:>11.3f} {r['ratio_cells']:>6.2f}")
    return out


if __name__ == "__main__":
    main()
