"""How well ranked luck keeps the best play, and its rollout precision per second, per network.

Usage: ``.venv/bin/python benchmarks/bg_ranked_luck.py NET... [--keep K,K...]`` (``net`` = the
shipped default; others ``.npz`` paths).  For each network:

- over the pre-roll boards of 30 random-play games (seed 3: the positions of
  ``tests/test_bg_luck.py``), one random roll each, the share of the 21 rolls whose ranked
  luck value (:func:`playout.backgammon.luck.ranked_luck_plays`, 3 kept) equals the full search's
  (:func:`playout.backgammon.incremental.best_plays`: every play evaluated, gnubg's luck) and
  the mean shortfall of the ranked value (mover's cubeless equity);
- for each ``--keep`` (default 3), 1,296 ranked-VR rollout trials (1-ply, truncated after 11
  half-moves) of the starting board and 15 contact boards of those games: games per CPU second
  and the mean per-trial standard deviation of the equity, and games/s over sd^2 (the
  equal-precision rate: higher is better).

Run it with the old and new code (a worktree and ``PYTHONPATH``) to compare a change.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from playout.backgammon.board import STARTING_BOARD, is_race  # noqa: E402
from playout.backgammon.evaluators import NeuralNet  # noqa: E402
from playout.backgammon.incremental import best_plays, new_workspace  # noqa: E402
from playout.backgammon.luck import new_luck_workspace, ranked_luck_plays  # noqa: E402
from playout.backgammon.moves import random_play_positions  # noqa: E402
from playout.backgammon.rollout import rollout_trials  # noqa: E402


def _equity(o: np.ndarray) -> np.ndarray:
    return 2 * o[:, 0] - 1 + o[:, 1] - o[:, 3] + o[:, 2] - o[:, 4]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("nets", nargs="+")
    ap.add_argument("--keep", default="3", help="comma-separated plays kept per roll")
    args = ap.parse_args()
    positions = random_play_positions(30, 3)
    boards = [STARTING_BOARD] + [b for b in positions[::40] if not is_race(b)][:15]
    for name in args.nets:
        net = NeuralNet() if name == "net" else NeuralNet(name)
        ka = net.kernel_args()
        _, W1, b1, W2, b2, _, _ = ka
        ws, lws = new_workspace(W2), new_luck_workspace(W1.shape[1])
        rows = np.zeros(22, dtype=np.int64)
        full = np.zeros(22, dtype=np.int64)
        rng = np.random.default_rng(5)
        share, short = [], []
        for b in positions:
            d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
            best_plays(W1, b1, W2, b2, b, d1, d2, True, ws, full)
            fe = ws[7][full[:21]].copy()
            ranked_luck_plays(W1, b1, W2, b2, b, d1, d2, 3, ws, lws, rows)
            re = ws[7][rows[:21]]
            share.append(np.mean(np.abs(re - fe) < 1e-12))
            short.append(np.mean(fe - re))
        print(f"{name}: {len(positions)} positions x 21 rolls, 3 kept: best play kept in "
              f"{np.mean(share):.4f} of rolls, mean shortfall {np.mean(short):.5f}")
        for k in (int(v) for v in args.keep.split(",")):
            o = np.zeros((36, 5))
            rollout_trials(*ka, STARTING_BOARD, 0, 36, 1, 0, True, k, o)  # compile outside the clock
            spent, sds = 0.0, []
            for i, b in enumerate(boards):
                o = np.zeros((1296, 5))
                t = time.process_time()
                rollout_trials(*ka, b, 0, 1296, 11 + i, 0, True, k, o)
                spent += time.process_time() - t
                sds.append(_equity(o).std())
            rate, sd = len(boards) * 1296 / spent, float(np.mean(sds))
            print(f"  keep {k}: {len(boards)} boards x 1,296 trials: {rate:.1f} games/s (CPU), "
                  f"mean sd {sd:.4f}, games/s / sd^2 {rate / sd ** 2:.0f}")


if __name__ == "__main__":
    main()
