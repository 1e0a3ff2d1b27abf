"""Backgammon speed, ours beside gnubg and bgsage in the same run (one core each).

    python benchmarks/bg_speed.py [--quick]

Prints static evaluations per second on distinct pre-roll positions (the
boards one roll away from gnubg self-play positions,
``../shared/data/backgammon/gnubg_selfplay_position_ids.txt``; each is
evaluated once, so gnubg's evaluation cache cannot answer from memory) for our net
(the shipped one, its hidden size in the key; and 128 hidden -- gnubg's contact-net size --
with random weights on all 218 inputs, shot and blockade features included, key
``ours_net128_random``), pubeval, gnubg 0-ply (PyPI, one Python call per position) and
bgsage 1-ply (``batch_evaluate``, one thread); then rollout games per second
from the opening at 1-ply (XG numbering) with variance reduction -- gnubg's
luck (``full``) and our default ``ranked`` luck, with the per-trial standard
deviation of each and the equal-precision rate -- and without, ours beside
bgsage's rollout (one thread) and gnubg's published 108 games/s with VR and
2,850 without (gnubg 1.07, one thread, 0-ply; ``../shared/docs/backgammon.md``),
which the PyPI module cannot run.  Ratios are ours / peer.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from playout.backgammon.board import STARTING_BOARD  # noqa: E402
from playout.backgammon.evaluators import NeuralNet, PubEval, eval_batch_kernel  # noqa: E402
from playout.backgammon.ids import board_from_position_id, board_to_gnubg  # noqa: E402
from playout.backgammon.net import init_weights  # noqa: E402
from playout.backgammon.luck import DEFAULT_KEEP  # noqa: E402
from playout.backgammon.rollout import rollout_trials  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
GNUBG_ROLLOUT_REF = 108.0  # games/s, gnubg 1.07 one thread, 0-ply with VR (docs/backgammon.md)
GNUBG_NOVR_REF = 2850.0  # games/s, the same without VR


def timed(fn, min_time=1.0):
    fn()  # warm (compile)
    n = 0
    t0 = time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n


def main(quick: bool = False) -> dict:
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    from playout.backgammon.board import flip
    from playout.backgammon.moves import legal_moves

    seen: set[bytes] = set()
    uniq = []
    want = 6000 if quick else 30000
    for p in ids:
        for m in legal_moves(board_from_position_id(p), 5, 2):
            fb = flip(m)
            k = fb.tobytes()
            if k not in seen:
                seen.add(k)
                uniq.append(fb)
        if len(uniq) >= want + 200:
            break
    warm, boards = np.stack(uniq[:200]), np.stack(uniq[200:want + 200])
    n = len(boards)
    out = np.zeros((n, 5))
    res: dict = {"positions": n}

    def once(fn, warm_fn):
        warm_fn()
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    def ours(ev):
        return n / once(lambda: eval_batch_kernel(*ev.kernel_args(), boards, out),
                        lambda: eval_batch_kernel(*ev.kernel_args(), warm, out[:200]))

    net = NeuralNet()
    key = f"ours_net{net.hidden}"
    res[f"{key}_evals_per_s"] = ours(net)
    big = NeuralNet.from_arrays(*init_weights(128, 1), name="net128")
    res["ours_net128_random_evals_per_s"] = ours(big)
    res["pubeval_evals_per_s"] = ours(PubEval())

    try:
        import gnubg

        ci = gnubg.cubeinfo()
        ec = gnubg.evalcontext(0, 0, 1, 0, 0)
        gb = [board_to_gnubg(b) for b in boards]
        gw = [board_to_gnubg(b) for b in warm]
        t = once(lambda: [gnubg.evaluate(g, ci, ec) for g in gb],
                 lambda: [gnubg.evaluate(g, ci, ec) for g in gw])
        res["gnubg_0ply_evals_per_s"] = n / t
    except ImportError:
        res["gnubg_0ply_evals_per_s"] = None
    try:
        import bgsage

        m = min(n, 3000)
        pos = [{"board": [int(v) for v in b], "cube_value": 1, "cube_owner": "centered"}
               for b in boards[:m]]
        pw = [{"board": [int(v) for v in b], "cube_value": 1, "cube_owner": "centered"} for b in warm]
        t = once(lambda: bgsage.batch_evaluate(pos, eval_level="1ply", n_threads=1),
                 lambda: bgsage.batch_evaluate(pw, eval_level="1ply", n_threads=1))
        res["bgsage_1ply_evals_per_s"] = m / t
    except ImportError:
        res["bgsage_1ply_evals_per_s"] = None

    # Rollouts from the opening at 1-ply with variance reduction: gnubg's luck (every play of
    # every roll evaluated) and our default ranked luck (playout.backgammon.luck), the same
    # trials (seed, dice, plays); per-trial standard deviation of the equity from those trials.
    # Equal-precision rate = games/s x (sd_full / sd_ranked)^2: the full-luck games per second
    # that would give the same standard error.
    trials = 288 if quick else 1296

    def per_trial(vr, keep):
        out = np.zeros((trials, 5))
        rollout_trials(*net.kernel_args(), STARTING_BOARD, 0, 36, 1, 0, vr, keep,
                       np.zeros((36, 5)))  # warm (compile)
        t0 = time.perf_counter()
        rollout_trials(*net.kernel_args(), STARTING_BOARD, 0, trials, 1, 0, vr, keep, out)
        dt = time.perf_counter() - t0
        eq = 2 * out[:, 0] - 1 + out[:, 1] - out[:, 3] + out[:, 2] - out[:, 4]
        return trials / dt, float(eq.std())

    g_full, sd_full = per_trial(True, 0)
    g_rank, sd_rank = per_trial(True, DEFAULT_KEEP)
    g_none, sd_none = per_trial(False, 0)
    res["rollout_trials"] = trials
    res["ours_rollout_vr_full_games_per_s"] = g_full
    res["ours_rollout_vr_full_sd_per_trial"] = sd_full
    res["ours_rollout_vr_ranked_games_per_s"] = g_rank
    res["ours_rollout_vr_ranked_sd_per_trial"] = sd_rank
    res["ours_rollout_vr_ranked_equal_precision_games_per_s"] = g_rank * (sd_full / sd_rank) ** 2
    res["ours_rollout_novr_games_per_s"] = g_none
    res["ours_rollout_novr_sd_per_trial"] = sd_none
    try:
        import bgsage

        a = bgsage.BgBotAnalyzer(eval_level="rollout", n_trials=36, decision_ply=1,
                                 truncation_depth=0, parallel_threads=1, seed=1)
        t0 = time.perf_counter()
        a.checker_play([int(v) for v in STARTING_BOARD], 3, 1, 1, "centered")
        # checker_play rolls out several candidates: count them from the result
        dt = time.perf_counter() - t0
        res["bgsage_rollout_checker_play_31_s"] = dt
    except Exception as exc:  # noqa: BLE001 - a peer's API change must not hide our figures
        res["bgsage_rollout_checker_play_31_s"] = f"unavailable: {exc}"

    g = res.get("gnubg_0ply_evals_per_s")
    s = res.get("bgsage_1ply_evals_per_s")
    res["ratio_net128_random_vs_gnubg"] = res["ours_net128_random_evals_per_s"] / g if g else None
    res[f"ratio_net{net.hidden}_vs_gnubg"] = res[f"{key}_evals_per_s"] / g if g else None
    res[f"ratio_net{net.hidden}_vs_bgsage"] = res[f"{key}_evals_per_s"] / s if s else None
    res["ratio_rollout_vr_full_vs_gnubg_ref"] = g_full / GNUBG_ROLLOUT_REF
    res["ratio_rollout_vr_ranked_vs_gnubg_ref"] = g_rank / GNUBG_ROLLOUT_REF
    res["ratio_rollout_vr_ranked_equal_precision_vs_gnubg_ref"] = (
        res["ours_rollout_vr_ranked_equal_precision_games_per_s"] / GNUBG_ROLLOUT_REF)
    res["ratio_rollout_novr_vs_gnubg_ref"] = g_none / GNUBG_NOVR_REF
    return res


if __name__ == "__main__":
    r = main(quick="--quick" in sys.argv)
    w = max(len(k) for k in r)
    for k, v in r.items():
        print(f"{k:<{w}}  {v:,.2f}" if isinstance(v, float) else f"{k:<{w}}  {v}")
    print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}))
