"""``playout bg train`` with some blockade / timing inputs switched off: the input ablation of issue 14.

    OPENBLAS_NUM_THREADS=1 python scripts/bg_train_masked.py out/bg-la2-f1 --out NET.npz \
        --init NET0.npz --keep 0,1,2,3,4,6,7,8,9,10 [--epochs 20 --lr 3e-4 --lr-decay 0.95]

``--keep``: offsets 0..37 from the first blockade input (``net.N_SHOT_INPUTS`` = 206; 0..5 the
side to act's escapes, containment, its square, blockade, its square, mobility, 6..11 the
opponent's; 12..24 the side to act's timing inputs, 25..37 the opponent's,
:func:`playout.backgammon.features.contact_inputs`) whose columns stay; the other columns of the
encoded data are set to 0, so their weights get no gradient and stay at the initial network's
(0 for a 206- or 218-input network, which :func:`playout.backgammon.net.load_weights` pads).
``--keep ""`` switches all 38 off; ``--keep 0,1,2,3,4,5,6,7,8,9,10,11`` is the 218-input
control of the timing inputs, trained with the present code (from a 218-input network
``playout bg train`` now gives the same weights by default: it trains only the inputs its
initial network weighs, ``--all-inputs`` for all).  ``--family`` and ``--net`` as for
``playout bg train`` (a specialist: e.g. ``--family crashed --net contact``).  Otherwise the training of ``playout bg train`` (seed 1,
batch 64, consistency 1, boards of reference set A left out).  Prints its JSON summary.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from playout.backgammon import data as D
from playout.backgammon import supervised as S
from playout.backgammon.net import N_INPUTS, N_SHOT_INPUTS

ROOT = Path(__file__).resolve().parents[1]


def _slot_first(path: str, slot: int, out: str) -> Path:
    """A copy of network file ``path`` whose first slice (the contact net) is its slice ``slot``
    and whose second is its race net, written beside ``out`` (``OUT.init.npz``)."""
    import numpy as np

    z = np.load(path)
    if not 0 <= slot < z["W1"].shape[0]:
        raise SystemExit(f"--init-slot: {path} has slices 0..{z['W1'].shape[0] - 1}, got {slot}")
    dest = Path(out).with_suffix(".init.npz")
    np.savez(dest, **{k: np.stack([z[k][slot], z[k][1]]) for k in ("W1", "b1", "W2", "b2")})
    return dest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep", required=True, help="comma-separated offsets 0..37 kept ('' = none)")
    ap.add_argument("--init", required=True, help="starting network (.npz)")
    ap.add_argument("--exclude-ref", default=str(ROOT.parent / "shared/data/backgammon/reference/A"))
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--lr-decay", type=float, default=0.95)
    ap.add_argument("--family", help="train only on this family's rows (as bg train --family)")
    ap.add_argument("--net", choices=("both", "contact", "race"), default="both")
    ap.add_argument("--hidden", type=int, help="widen the initial network to this many hidden units")
    ap.add_argument("--init-slot", type=int,
                    help="start the trained net from slice N of --init instead of its own (e.g. 2: "
                         "the file's crashed net, to refit a crashed specialist with --family crashed "
                         "--net contact)")
    ap.add_argument("--rank", type=float, default=0.0,
                    help="weight of the within-roll ranking term (ranking.rank_loss_grad; 0 off)")
    a = ap.parse_args()
    keep = {int(c) for c in a.keep.split(",") if c.strip()}
    if not keep <= set(range(N_INPUTS - N_SHOT_INPUTS)):
        ap.error(f"--keep: offsets are 0..{N_INPUTS - N_SHOT_INPUTS - 1}, got {sorted(keep)}")
    try:
        rows = D.load([Path(p) for p in a.data])
        if a.family:
            from playout.backgammon.families import in_family

            rows = {k: r for k, r in rows.items()
                    if r.get("family") == a.family or in_family(a.family, r["board"])}
        ds = S.prepare(rows, S.benchmark_keys(a.exclude_ref))
        for i in range(N_SHOT_INPUTS, N_INPUTS):
            if i - N_SHOT_INPUTS not in keep:
                ds.X[:, i] = 0.0
        init = a.init if a.init_slot is None else _slot_first(a.init, a.init_slot, a.out)
        summary = S.fit(ds, a.out, init=init, epochs=a.epochs, lr=a.lr, lr_decay=a.lr_decay,
                        net=a.net, hidden=a.hidden, rank=a.rank)
    except (D.DataError, S.TrainError) as exc:
        raise SystemExit(str(exc)) from None
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
