"""Rollout trials per second at several ply schedules (playout.backgammon.rollout_ply), one core.

    nice python benchmarks/bg_rollout_ply_speed.py [--quick] [--json]

From the opening position, our default net, variance reduction with ranked luck, no
truncation, pinned to one core; the kernels are compiled (and warmed on one trial) before
timing.  Trials run in the driver's 144-trial chunks (``rollout_ply``'s default ``chunk``),
each chunk with its own memo of the first two half-moves, so a chunk's rate is what a rollout
of whole chunks gets: schedule ``1`` and ``2:2`` time 3 chunks (432 trials), the others one
chunk (``--quick``: 36 trials, which overstates the cost per trial of schedules that search the
first two half-moves, their memo being shared by fewer trials).  Printed per schedule: trials/s
(= games/s), seconds per trial, the per-trial standard deviation of the luck-adjusted equity,
the mean equity and its standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from playout.backgammon.board import STARTING_BOARD  # noqa: E402
from playout.backgammon.rollout_ply import describe_schedule, parse_schedule, trials_ply  # noqa: E402

SCHEDULES = [("1", 3), ("2:2", 3), ("2", 1), ("3:3,2", 1)]
CHUNK = 144


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rows = []
    for text, chunks in SCHEDULES:
        sched = parse_schedule(text)
        trials_ply(STARTING_BOARD, sched, n=1, truncate=2)  # compile / load outside the timing
        n = 36 if args.quick else CHUNK
        chunks = 1 if args.quick else chunks
        outs = []
        t0 = time.process_time()
        for c in range(chunks):
            outs.append(trials_ply(STARTING_BOARD, sched, first=c * CHUNK, n=n,
                                   seed=1_000_003 + c * CHUNK))
        dt = time.process_time() - t0
        o = np.concatenate(outs)
        eq = 2 * o[:, 0] - 1 + o[:, 1] - o[:, 3] + o[:, 2] - o[:, 4]
        rows.append({"ply": text, "schedule": describe_schedule(sched), "trials": len(eq),
                     "cpu_s": round(dt, 2), "trials_per_s": round(len(eq) / dt, 2),
                     "s_per_trial": round(dt / len(eq), 4),
                     "sd_per_trial": round(float(eq.std(ddof=1)), 4),
                     "equity": round(float(eq.mean()), 4),
                     "se": round(float(eq.std(ddof=1) / np.sqrt(len(eq))), 4)})
        if args.json:
            print(json.dumps(rows[-1]), flush=True)
        else:
            r = rows[-1]
            print(f"{r['ply']:<7} {r['schedule']:<40} {r['trials']:>5} trials  "
                  f"{r['trials_per_s']:>8.2f} trials/s  {r['s_per_trial']:.4f} s/trial  "
                  f"sd {r['sd_per_trial']:.3f}  eq {r['equity']:+.4f} +- {r['se']:.4f}",
                  flush=True)


if __name__ == "__main__":
    main()
