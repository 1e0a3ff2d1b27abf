"""Session 32's simulation-balancing experiment (issue 18), step by step and resumable.

The steps ``playout go balance-patterns`` runs in one process, split so that labelling can use
both cores and the MM start can be fitted on more games than the positions come from:

    tar -C out/go-games -xJf data/go/games/gnugo-l10-9x9-s1-s2.tar.xz
    tar -C out/go-games -xJf data/go/games/gnugo-l10-o3-9x9-s1-s2.tar.xz
    python scripts/go_balance_experiment.py fit-mm            # out/go-balance/mm_v3.npz, ~40 s
    python scripts/go_balance_experiment.py label --part 0 &  # ~13 min a part on one core
    python scripts/go_balance_experiment.py label --part 1 &
    python scripts/go_balance_experiment.py label --held
    python scripts/go_balance_experiment.py train --alpha 50 --steps 1100 --run out/go-balance/run-a50
    python scripts/go_balance_experiment.py train --alpha 10 --steps 200 --run out/go-balance/mg-a10 \
        --start mc_montegnu_classic             # montegnu's rule values balanced
    python scripts/go_balance_experiment.py mse --run out/go-balance/run-a50 --also out/go-balance/mg-a10

Positions: 1,500 of the training games of the random-opening collection (one a game, the seeded
draw of :func:`playout.go.balance.sample_positions`, seed 1) and 100 of its held-out games
(seed 2), labelled by our default search at 20,000 simulations (the two parts together are the
one-process labelling with seed 1).  MM start: :func:`playout.go.tune.fit` on the distinct
training games of both collections.  ``train`` prints the held-out squared error every 100 steps
and writes ``RUN/theta.npz`` (resumed) and ``RUN/mc_balanced.db``.
"""

from __future__ import annotations

import argparse
import glob
import time
from pathlib import Path

import numpy as np

from playout.go import balance
from playout.go.pattern_compiler import load_patterns
from playout.go.selfplay import is_held_out
from playout.go.tune import Model, distinct_games, extract_positions, fit

OUT = Path("out/go-balance")
O3 = "out/go-games/gnugo-l10-o3/*.sgf"


def _mm() -> Model:
    d = np.load(OUT / "mm_v3.npz")
    return Model(d["shape"], d["tactical"], d["context"], d["seen"], int(d["sweeps"]),
                 float(d["loglik"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["fit-mm", "label", "train", "mse"])
    ap.add_argument("--part", type=int, choices=[0, 1], default=None)
    ap.add_argument("--held", action="store_true")
    ap.add_argument("--alpha", type=float, default=50.0)
    ap.add_argument("--steps", type=int, default=1100)
    ap.add_argument("--run", default=str(OUT / "run"))
    ap.add_argument("--start", default=None, help="train: balance this database's rule values")
    ap.add_argument("--also", action="append", default=[], help="mse: another run folder")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if a.step == "fit-mm":
        files = sorted(glob.glob(O3) + glob.glob("out/go-games/gnugo-l10/*.sgf"))
        kept, _ = distinct_games(files)
        m = fit(extract_positions([f for f in kept if not is_held_out(f)]))
        np.savez(OUT / "mm_v3.npz", shape=m.shape, tactical=m.tactical, context=m.context,
                 seen=m.seen, sweeps=m.sweeps, loglik=m.loglik)
        return
    files = sorted(glob.glob(O3))
    if a.step == "label":
        if a.held:
            ps = balance.sample_positions([f for f in files if is_held_out(f)], 100, seed=2)
            balance.label_positions(ps, OUT / "labels-held.jsonl", 20000, seed=500000)
            return
        ps = balance.sample_positions([f for f in files if not is_held_out(f)], 1500, seed=1)
        part = ps[:750] if a.part == 0 else ps[750:]
        name = "labels-train.jsonl" if a.part == 0 else "labels-train-b.jsonl"
        balance.label_positions(part, OUT / name, 20000, seed=1 + 750 * a.part)
        return
    run = Path(a.run)
    run.mkdir(parents=True, exist_ok=True)
    m = _mm()
    if a.step == "mse":  # held-out error, 2,048 playouts a position (4 min)
        held = balance.Balancer(m, balance.read_labels(OUT / "labels-held.jsonl"))
        cells = {"balanced": load_patterns(run / "mc_balanced.db").values.reshape(-1),
                 "MM start": held.cell_gamma()}
        for name in ("mc_montegnu_classic", "mc_mogo_classic", "mc_uniform",
                     "src/playout/go/data/mc_tuned_v1.db", "data/go/tuned/mc_tuned_v3.db"):
            cells[name] = load_patterns(name).values.reshape(-1)
        for other in a.also:
            cells[other] = load_patterns(Path(other) / "mc_balanced.db").values.reshape(-1)
        for k, v in balance.mse_report(cells, held, 2048, 13).items():
            print(f"| {k} | {v['mse']:.5f} | {v['bias']:+.4f} |")
        return
    train = (balance.read_labels(OUT / "labels-train.jsonl")
             + balance.read_labels(OUT / "labels-train-b.jsonl"))
    start = load_patterns(a.start) if a.start else m
    held = balance.Balancer(start, balance.read_labels(OUT / "labels-held.jsonl"))
    bal = balance.Balancer(start, train)
    mono = load_patterns("mc_montegnu_classic").values.reshape(-1)
    print(len(train), "training positions;", balance.mse_report(
        {"montegnu": mono, "start": held.cell_gamma()}, held, 512, 7), flush=True)
    for k in range(100, a.steps + 100, 100):
        k = min(k, a.steps)
        t = time.time()
        balance.train(bal, k, a.alpha, 50, 32, 32, seed=1, checkpoint=run / "theta.npz")
        held.theta = bal.theta
        print(k, round(time.time() - t), balance.mse_report({"balanced": held.cell_gamma()},
                                                            held, 512, 7), flush=True)
    bal.write(run / "mc_balanced.db",
              [f"simulation balancing, alpha {a.alpha:g}, {bal.steps} steps "
               "(scripts/go_balance_experiment.py)"])


if __name__ == "__main__":
    main()
