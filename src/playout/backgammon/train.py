"""TD(lambda) self-play training of our network, in resumable chunks.

Tesauro's recipe (TD-Gammon, 1992-1995): greedy 1-ply self-play from the
opening, the network's own next-position estimate as the target, lambda
traces (``lam > 0``, :func:`playout.backgammon.net.td_train`), or with
``lam = 0`` no traces and plays chosen by the incremental evaluator
(:func:`playout.backgammon.td.td0_train`, several times faster per game).  Chunk ``c`` of games uses seed ``seed * 1_000_003 + c`` so a run
resumed from its checkpoint plays exactly the games an uninterrupted run would.
The step size decays as ``alpha / (1 + games / decay)``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from playout.backgammon import net


def train(out: Path, *, games: int, hidden: int = 40, seed: int = 1, alpha: float = 0.1,
          decay: float = 50_000.0, lam: float = 0.7, chunk: int = 500,
          max_minutes: float | None = None, progress: bool = True) -> dict:
    """Train until ``games`` games (or ``max_minutes``), checkpointing ``out`` after each chunk.

    Resumes from ``out`` when it exists (same hidden size).  Returns a summary
    dict: games, seconds, games/s.
    """
    out = Path(out)
    done = 0
    secs = 0.0
    if out.exists():
        W1, b1, W2, b2, meta = net.load_weights(out)
        done = int(meta.get("games", 0))
        secs = float(meta.get("seconds", 0.0))
    else:
        W1, b1, W2, b2 = net.init_weights(hidden, seed)
    t_start = time.time()
    stats = np.zeros(4)
    ws = None
    if lam == 0.0:
        from playout.backgammon import incremental, td

        ws = incremental.new_workspace(W2)
    bar = None
    if progress:
        from rich.progress import Progress

        bar = Progress()
        bar.start()
        task = bar.add_task("TD self-play", total=games, completed=done)
    try:
        while done < games:
            if max_minutes is not None and time.time() - t_start > 60 * max_minutes:
                break
            n = min(chunk, games - done)
            c = done // chunk
            a = alpha / (1.0 + done / decay)
            t0 = time.time()
            if ws is not None:
                td.td0_train(W1, b1, W2, b2, n, seed * 1_000_003 + c, a, ws, stats)
            else:
                net.td_train(W1, b1, W2, b2, n, seed * 1_000_003 + c, a, lam, stats)
            secs += time.time() - t0
            done += n
            tmp = out.with_suffix(".tmp.npz")
            net.save_weights(tmp, W1, b1, W2, b2, games=done, seconds=secs, hidden=hidden,
                             seed=seed, alpha=alpha, decay=decay, lam=lam, chunk=chunk)
            os.replace(tmp, out)
            if bar is not None:
                bar.update(task, completed=done,
                           description=f"TD self-play (alpha {a:.3f}, {done / max(secs, 1e-9):.0f} g/s)")
    finally:
        if bar is not None:
            bar.stop()
    return {"games": done, "seconds": round(secs, 1), "games_per_s": round(done / max(secs, 1e-9), 1),
            "plies_per_game": round(stats[1] / max(stats[0], 1), 1)}
