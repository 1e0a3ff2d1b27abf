"""How much duplicate dice narrow a money match's interval, measured by replication.

    python benchmarks/bg_match_duplicate.py [--games 400] [--reps 50] [A] [B]

Plays ``reps`` matches of ``games`` cubeless money games A vs B (default ``ours:ply=1``
vs ``pubeval``, the compiled path) with duplicate dice (games 2k and 2k+1 share their dice,
seats swapped; :mod:`playout.backgammon.money_match`) and as many with independent dice,
seeds 1..reps.  Prints, per design, the standard deviation *across matches* of A's points
per game and win rate (the true standard error of one match of that size), the mean of the
standard error each match reports, and the mean pair correlation; the ratio of the two
designs' spreads is the narrowing of the interval at equal games.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from playout.backgammon.money_match import play_match


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("a", nargs="?", default="ours:ply=1")
    ap.add_argument("b", nargs="?", default="pubeval")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args()
    out = {"a": args.a, "b": args.b, "games": args.games, "reps": args.reps}
    for dice in ("duplicate", "independent"):
        rs = [play_match(args.a, args.b, args.games, seed=s, dice=dice) for s in range(1, args.reps + 1)]
        ppg = np.array([r["points_per_game"] for r in rs])
        wr = np.array([r["win_rate"] for r in rs])
        out[dice] = {
            "ppg_mean": round(float(ppg.mean()), 4),
            "ppg_sd_across_matches": round(float(ppg.std(ddof=1)), 4),
            "ppg_se_reported_mean": round(float(np.mean([r["ppg_se"] for r in rs])), 4),
            "win_rate_mean": round(float(wr.mean()), 4),
            "win_rate_sd_across_matches": round(float(wr.std(ddof=1)), 4),
            "win_rate_se_reported_mean": round(float(np.mean([r["win_rate_se"] for r in rs])), 4),
        }
        if dice == "duplicate":
            out[dice]["pair_correlation_mean"] = round(float(np.nanmean([r["pair_correlation"] for r in rs])), 4)
    d, i = out["duplicate"], out["independent"]
    out["sd_ratio_duplicate_over_independent"] = {
        "ppg": round(d["ppg_sd_across_matches"] / i["ppg_sd_across_matches"], 3),
        "win_rate": round(d["win_rate_sd_across_matches"] / i["win_rate_sd_across_matches"], 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
