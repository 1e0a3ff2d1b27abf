"""How accurate are truncated rollouts?  Truncated vs full, paired, on 30 self-play positions.

    python benchmarks/bg_truncation.py [--positions 30] [--trials 1296] [--json out.json]

Positions: two random pre-roll positions of each 1-ply self-play game of our net (numpy
``default_rng(7)``: dice and picks) until there are ``--positions``.  Each is rolled out
(:func:`playout.backgammon.rollout.rollout_trials`, ranked luck, 1,296 trials) to the end
and truncated after 5, 7, 9 and 11 half-moves (then our net's 1-ply evaluation), all with
the same seed, so trial ``t`` of every version plays the same dice and plays up to the
truncation point: the difference truncated - full is paired and its standard error is that
of the per-trial differences.  Printed per truncation: mean |error| of the equity and of each
of the five probabilities against the full rollout, the mean signed equity error (bias), the
full rollout's own mean standard error, the mean standard error of the paired difference,
the share of positions whose error exceeds 2 paired standard errors, and the time per
position relative to the full rollout.

Measured (2-core VM, contended; full rollout: mean SE(equity) 0.0069, 4.8 s/position)::

    trunc  |err| eq  bias     |err| p (w, wg, wbg, lg, lbg)          paired SE  >2SE  time
        5  0.0183  -0.0058  0.0067 0.0082 0.0008 0.0077 0.0009   0.0069   0.57  0.14x
        7  0.0156  -0.0058  0.0062 0.0078 0.0006 0.0073 0.0008   0.0070   0.53  0.22x
        9  0.0126  -0.0034  0.0049 0.0068 0.0006 0.0067 0.0007   0.0072   0.40  0.30x
       11  0.0096  -0.0024  0.0044 0.0061 0.0006 0.0067 0.0007   0.0074   0.20  0.38x

so the training labels (``playout.backgammon.data.DEFAULT_TRUNCATE``) are full rollouts.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from playout.backgammon.board import STARTING_BOARD, flip, game_result
from playout.backgammon.evaluators import get_evaluator
from playout.backgammon.luck import DEFAULT_KEEP
from playout.backgammon.rollout import rollout_trials
from playout.backgammon.search import choose_move

TRUNCS = (0, 5, 7, 9, 11)


def positions(ev, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    pos: list[np.ndarray] = []
    while len(pos) < n:
        b = STARTING_BOARD.copy()
        seq = []
        while True:
            d = rng.integers(1, 7, 2)
            m = choose_move(b, (int(d[0]), int(d[1])), ev).board
            if game_result(m) != 0:
                break
            b = flip(m)
            seq.append(b)
        for i in sorted(rng.choice(len(seq), 2, replace=False)):
            pos.append(seq[i])
    return pos[:n]


def equity(p):
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    ev = get_evaluator("net")
    T = a.trials
    res = {k: {"err_eq": [], "err_p": [], "signed": [], "pse": [], "z2": [], "s": []} for k in TRUNCS[1:]}
    full_se, full_s = [], []
    for i, b in enumerate(positions(ev, a.positions)):
        outs, secs = {}, {}
        for tr in TRUNCS:
            out = np.zeros((T, 5))
            t0 = time.time()
            rollout_trials(*ev.kernel_args(), b, 0, T, 1000 + i, tr, True, DEFAULT_KEEP, out)
            secs[tr] = time.time() - t0
            outs[tr] = out
        e0 = equity(outs[0])
        full_se.append(e0.std(ddof=1) / np.sqrt(T))
        full_s.append(secs[0])
        for tr in TRUNCS[1:]:
            d = equity(outs[tr]) - e0
            pse = d.std(ddof=1) / np.sqrt(T)
            r = res[tr]
            r["err_eq"].append(abs(d.mean()))
            r["signed"].append(d.mean())
            r["err_p"].append(np.abs(outs[tr].mean(0) - outs[0].mean(0)))
            r["pse"].append(pse)
            r["z2"].append(abs(d.mean()) > 2 * pse)
            r["s"].append(secs[tr])
        print(f"position {i}: full {e0.mean():+.4f} +- {full_se[-1]:.4f}, "
              + ", ".join(f"t{tr} {equity(outs[tr]).mean():+.4f}" for tr in TRUNCS[1:]), flush=True)
    summary = {"positions": a.positions, "trials": T, "full_mean_se": float(np.mean(full_se)),
               "full_s_per_position": float(np.mean(full_s)), "truncated": {}}
    print(f"\nfull rollout: mean SE(equity) {np.mean(full_se):.4f}, {np.mean(full_s):.2f} s/position")
    print("trunc  |err| eq  bias     |err| p (w, wg, wbg, lg, lbg)          paired SE  >2SE  time")
    for tr in TRUNCS[1:]:
        r = res[tr]
        ep = np.mean(r["err_p"], axis=0)
        summary["truncated"][tr] = {"mae_equity": float(np.mean(r["err_eq"])),
                                    "bias_equity": float(np.mean(r["signed"])),
                                    "mae_probs": [float(x) for x in ep],
                                    "paired_se": float(np.mean(r["pse"])),
                                    "share_over_2se": float(np.mean(r["z2"])),
                                    "time_ratio": float(np.sum(r["s"]) / np.sum(full_s))}
        print(f"{tr:5d}  {np.mean(r['err_eq']):.4f}  {np.mean(r['signed']):+.4f}  "
              + " ".join(f"{x:.4f}" for x in ep)
              + f"   {np.mean(r['pse']):.4f}   {np.mean(r['z2']):.2f}  "
              f"{np.sum(r['s']) / np.sum(full_s):.2f}x")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(summary, fh, indent=1)


if __name__ == "__main__":
    main()
