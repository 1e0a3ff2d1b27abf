"""Train playout's backgammon network by TD(lambda) self-play (seeded, resumable).

    python scripts/train_td.py --out net.npz --hidden 80 --lam 0 --alpha 0.1 \
        --decay 500000 --chunk 5000 --games 1125000

The shipped ``net_td80.npz`` is that run followed by an annealing phase on the same file
(``--alpha 0.02 --games 1475000``); ``--lam`` above 0 uses eligibility traces (slower).

Interrupt at any time; rerunning the same command resumes from the checkpoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from playout.backgammon.train import train


@click.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="checkpoint / final weights (.npz); resumed if it exists")
@click.option("--games", type=int, default=100_000, show_default=True)
@click.option("--hidden", type=int, default=40, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--alpha", type=float, default=0.1, show_default=True)
@click.option("--decay", type=float, default=50_000.0, show_default=True)
@click.option("--lam", type=float, default=0.7, show_default=True, help="TD lambda")
@click.option("--chunk", type=int, default=500, show_default=True)
@click.option("--max-minutes", type=float, default=None, help="stop (resumably) after this long")
def main(out, games, hidden, seed, alpha, decay, lam, chunk, max_minutes):
    res = train(out, games=games, hidden=hidden, seed=seed, alpha=alpha, decay=decay, lam=lam,
                chunk=chunk, max_minutes=max_minutes)
    click.echo(json.dumps(res))


if __name__ == "__main__":
    main()
