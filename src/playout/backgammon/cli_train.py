"""``playout bg train``: fit the network to rollout targets (:mod:`playout.backgammon.supervised`).

Resumable: rerun the same command after a kill (or with a larger ``--epochs``) and it
continues from ``NET.ckpt.npz``.  Bad input exits with a one-line message naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command("train")
@click.argument("data_files", metavar="DATA...", nargs=-1,
                type=click.Path(path_type=Path))
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Network to write (.npz): the best held-out epoch of each net.")
@click.option("--init", "init", default=None,
              help="Starting network .npz (default the shipped default network), or 'none' for random.")
@click.option("--bgsage", is_flag=True,
              help="Also train on bgsage's published rollouts in ../shared (after our labels).")
@click.option("--shared", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="bgsage's data folder (default ../shared/data/backgammon/bgsage).")
@click.option("--exclude-ref", "exclude_ref", multiple=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Leave out every board a PR benchmark scores (folder with rollout.jsonl); "
                   "repeatable.")
@click.option("--epochs", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--hidden", type=click.IntRange(min=1), default=None,
              help="Hidden units (default the initial net's; more widens it).")
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=1e-3, show_default=True,
              help="Adam step size.")
@click.option("--lr-decay", type=click.FloatRange(min=0, max=1, min_open=True), default=1.0,
              show_default=True, help="Step size multiplied by this after each epoch.")
@click.option("--batch", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--consistency", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Weight of the gammon <= win (gnubg) ordering penalty.")
@click.option("--l2", type=click.FloatRange(min=0), default=0.0, show_default=True)
@click.option("--net", "which", type=click.Choice(["both", "contact", "race"]), default="both",
              show_default=True, help="Which net(s) to train; the others keep the initial weights.")
@click.option("--family", default=None,
              help="Train only on the family's region (e.g. backgame): rows in it by families.py's "
                   "rule (either side) and rows labelled for it (its exit successors): a "
                   "specialist.")
@click.option("--source", "sources", multiple=True,
              help="Train only on rows of this source (data.SOURCES, e.g. bgsage-cubeful); "
                   "repeatable.")
@click.option("--rank", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Weight of the within-roll ranking term: the squared error of the equity "
                   "differences between the candidate plays of one roll (lookahead folders made "
                   "with --candidates); 0 = cross-entropy only.")
@click.option("--all-inputs", "all_inputs", is_flag=True,
              help="Also train the input blocks the initial network does not weigh (by default "
                   "a 218-input network stays a 218-input network, as fast as before).")
@click.option("--max-minutes", type=click.FloatRange(min=0), default=None,
              help="Stop after the epoch that passes this wall time (rerun to resume).")
@click.option("--png", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the loss curves (train and held-out) to this PNG.")
@click.option("--quiet", is_flag=True, help="No per-epoch lines on stderr.")
def train_cmd(data_files, out, init, bgsage, shared, exclude_ref, epochs, seed, hidden, lr, lr_decay,
              batch, consistency, l2, which, family, sources, rank, all_inputs, max_minutes, png,
              quiet) -> None:
    """Fit the network to the five probabilities of DATA (rollout files, lookahead folders).

    Cross-entropy, Adam; a folder is read as `bg data lookahead` shards.

    Held-out tenth: data.is_holdout of each row's key.  Prints a JSON summary on stdout.
    """
    from . import data as D
    from . import supervised as S
    from .families import in_family

    if not data_files and not bgsage:
        raise click.ClickException("no data: give DATA files and/or --bgsage")
    for p in data_files:
        if not p.exists():
            raise click.ClickException(f"{p}: data file not found")
    if init not in (None, "none") and not Path(init).exists():
        raise click.ClickException(f"{init}: network file not found")
    try:
        rows = D.load(data_files, bgsage=bgsage, shared=shared)
        exclude: set[str] = set()
        for ref in exclude_ref:
            exclude |= S.benchmark_keys(ref)
        if family:
            try:
                rows = {k: r for k, r in rows.items()
                        if r.get("family") == family or in_family(family, r["board"])}
            except ValueError as exc:
                raise click.ClickException(f"--family: {exc}") from None
        if sources:
            unknown = sorted(set(sources) - set(D.SOURCES))
            if unknown:
                raise click.ClickException(f"--source: {unknown[0]!r} (one of {', '.join(D.SOURCES)})")
            rows = {k: r for k, r in rows.items() if r.get("source") in sources}
        ds = S.prepare(rows, exclude)
        nets = {"both": (0, 1), "contact": (0,), "race": (1,)}[which]
        summary = S.train(ds, out, init=init, epochs=epochs, seed=seed, hidden=hidden, lr=lr,
                          lr_decay=lr_decay, batch=batch, consistency=consistency, l2=l2, nets=nets,
                          max_minutes=max_minutes, png=png, progress=not quiet, rank=rank,
                          all_inputs=all_inputs)
    except (D.DataError, S.TrainError) as exc:
        raise click.ClickException(str(exc)) from None
    summary.pop("train_loss")
    summary.pop("holdout_loss")
    summary["skipped"] = ds.skipped
    click.echo(json.dumps(summary))
