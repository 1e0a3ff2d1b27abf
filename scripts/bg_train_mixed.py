"""Fine-tune a network on a small set of rollout labels, replayed among a sample of its old data.

    OPENBLAS_NUM_THREADS=1 python scripts/bg_train_mixed.py ROLLOUTS.jsonl --base SHARDS_DIR \
        --out NET.npz [--init NET0.npz] [--sample 200000] [--repeat 5] [--epochs 8] \
        [--lr 1e-4] [--lr-decay 0.9] [--net contact]

The rows of ``ROLLOUTS.jsonl`` (``playout bg data`` rows, e.g. from ``scripts/bg_label_primes.py``)
are a few thousand positions where our 2-ply labels are wrong; alone they would pull the net
away from everything else.  So each epoch sees them ``--repeat`` times among ``--sample``
positions drawn (``numpy`` ``default_rng(seed)``) from the lookahead shards ``--base`` that the
initial network was trained on (a rollout row replaces the lookahead row of the same board).
``--sample 0 --repeat 0`` with the same seed is the control: the same base sample without the
rollout rows.  Held-out tenth by ``data.is_holdout`` as in ``playout bg train`` (repeats of a
held-out row stay held out); boards of reference set A left out; seed 1, batch 64,
consistency 1; crashed positions (the third slice's, :func:`playout.backgammon.classes.net_index`)
are left out.  Prints the JSON summary of :func:`playout.backgammon.supervised.train`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from playout.backgammon import data as D
from playout.backgammon import supervised as S
from playout.backgammon.classes import is_crashed

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rollouts", nargs="*", help="rollout-labelled rows (JSONL)")
    ap.add_argument("--base", required=True, help="lookahead shard folder the init net learnt from")
    ap.add_argument("--out", required=True)
    ap.add_argument("--init", default=str(ROOT / "src/playout/backgammon/data/net_cand128_g6.npz"))
    ap.add_argument("--sample", type=int, default=200000, help="base positions drawn")
    ap.add_argument("--repeat", type=int, default=5, help="copies of each rollout row an epoch")
    ap.add_argument("--exclude-ref", default=str(ROOT.parent / "shared/data/backgammon/reference/A"))
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--lr-decay", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--net", choices=("both", "contact", "race"), default="contact")
    a = ap.parse_args()
    ro: dict = {}
    try:
        for p in a.rollouts:
            ro.update(D.read_rows(p)[1])
        base = D.load([Path(a.base)])
    except (D.DataError, OSError) as exc:
        raise SystemExit(str(exc)) from None
    keys = sorted(k for k in base if k not in ro)
    pick = np.random.default_rng(a.seed).permutation(len(keys))[:a.sample]
    rows = {keys[i]: base[keys[i]] for i in pick}
    rows.update(ro if a.repeat else {})
    # crashed positions are the third slice's (classes.net_index), not the contact net's
    rows = {k: r for k, r in rows.items()
            if not is_crashed(np.asarray(r["board"], dtype=np.int8))}
    try:
        ds = S.prepare(rows, S.benchmark_keys(a.exclude_ref))
        is_ro = np.array([k in ro for k in ds.keys])
        idx = np.concatenate([np.flatnonzero(~is_ro)] + [np.flatnonzero(is_ro)] * max(a.repeat, 0))
        ds = ds.subset(idx)
        summary = S.fit(ds, a.out, init=a.init, epochs=a.epochs, lr=a.lr, lr_decay=a.lr_decay,
                        net=a.net)
    except (D.DataError, S.TrainError) as exc:
        raise SystemExit(str(exc)) from None
    rep = np.array([k in ro for k in ds.keys])
    summary["rollout_rows"] = {"train": int((rep & ~ds.holdout).sum()),
                               "held_out": int((rep & ds.holdout).sum())}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
