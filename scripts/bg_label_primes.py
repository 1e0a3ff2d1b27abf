"""Rollout labels for prime positions: the self-play positions a 2-ply label cannot see through.

    python scripts/bg_label_primes.py SHARDS_DIR... --out OUT.jsonl [--n 3000] [--min-prime 5]
        [--truncate 11] [--evaluator net] [--seed 1] [--workers 0]

Reads the positions of ``playout bg data lookahead`` shard folders, keeps the contact positions
in which either side holds a prime of ``--min-prime`` or more consecutive points (2+ checkers
each, anywhere on points 1..24: :func:`playout.backgammon.families.longest_prime`) with at least
one opponent checker behind it (on the bar or on a point the prime blocks), shuffles them with
``--seed`` and labels the first ``--n`` with our own rollouts (:func:`playout.backgammon.data.label`:
1,296 trials, ranked variance reduction, truncated after ``--truncate`` half-moves; provenance
per row; resumable: rerun the same command after a kill, or with a larger ``--n`` to grow it).

Why: reference set A's cube PR is mostly two such positions (decisions 329 and 342: a 6-prime
trapping a blot while the trapper's own checkers are held by a 5-point board), where our net and its 2-ply labels say 0.66 wins and a 1-ply
rollout of the same net says 0.875 (bgsage 3-ply: 0.88): the trapped side's board crunches
after more half-moves than a 2-ply search sees.  Truncation keeps part of that error: on 342,
1,296 trials give 0.814 / 0.835 / 0.851 / 0.872 wins truncated after 11 / 17 / 23 / 31
half-moves and 0.882 played out (329: 0.729 / 0.764 / 0.793 / 0.803 / 0.809); ``--truncate 0``
plays to the end for ~5x the CPU (~1 s a position at 11 on one core).  Rows are ``source`` ``selfplay``, ``family``
``prime`` (the rule they were picked by); ``playout bg train OUT.jsonl SHARDS...`` reads them
first, so a rollout label replaces the lookahead label of the same board.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from playout.backgammon import data as D
from playout.backgammon.board import is_race
from playout.backgammon.families import flip, longest_prime


def trapped_behind_prime(board, min_prime: int) -> bool:
    """True when the positive side holds a prime of ``min_prime``+ points (2+ checkers each,
    points 1..24) and an opponent checker is on the bar (``board[0]``) or below the prime's
    lowest point (the opponent moves from point 1 towards 24, so it must pass the prime)."""
    n, lo = longest_prime(board, 1, 24)
    if n < min_prime:
        return False
    return board[0] > 0 or any(board[q] < 0 for q in range(1, lo))


def is_prime_position(board, min_prime: int = 5) -> bool:
    """Either side traps a checker behind a prime (:func:`trapped_behind_prime`); contact only."""
    b = [int(v) for v in board]
    if is_race(np.asarray(b, dtype=np.int8)):
        return False
    return trapped_behind_prime(b, min_prime) or trapped_behind_prime(flip(b), min_prime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shards", nargs="+", help="lookahead shard folders (positions to choose from)")
    ap.add_argument("--out", required=True, help="rollout rows to write (JSONL, resumed)")
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--min-prime", type=int, default=5)
    ap.add_argument("--truncate", type=int, default=11)
    ap.add_argument("--trials", type=int, default=D.DEFAULT_TRIALS)
    ap.add_argument("--evaluator", default="net")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0)
    a = ap.parse_args(argv)
    try:
        rows = D.load([Path(p) for p in a.shards])
    except (D.DataError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    keys = sorted(k for k, r in rows.items() if is_prime_position(r["board"], a.min_prime))
    order = np.random.default_rng(a.seed).permutation(len(keys))
    tasks = [{"key": keys[i], "board": [int(v) for v in rows[keys[i]]["board"]],
              "source": "selfplay", "family": "prime"} for i in order[:a.n]]
    print(f"{len(keys)} prime positions of {len(rows)}; labelling {len(tasks)} into {a.out}",
          file=sys.stderr)
    try:
        got = D.label(a.out, tasks, evaluator=a.evaluator, trials=a.trials, truncate=a.truncate,
                      seed=a.seed, workers=a.workers, description="prime rollouts")
    except D.DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(got)
    return 0


if __name__ == "__main__":
    sys.exit(main())
