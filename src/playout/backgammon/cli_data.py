"""``playout bg data``: plan, label, inspect and export training data (click).

``label`` is a resumable job: rerun the same command after a kill (or with larger sizes to
grow the set) and it labels only what the file lacks.  See :mod:`playout.backgammon.data`
for the sources, the labels and the file format.  Bad input exits with a one-line message.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

_plan_options = [
    click.option("--selfplay-games", type=click.IntRange(min=0), default=0, show_default=True,
                 help="1-ply self-play games from the opening (--per-game positions each)."),
    click.option("--per-game", type=click.IntRange(min=1), default=3, show_default=True,
                 help="Random positions taken from each self-play game."),
    click.option("--family-games", type=click.IntRange(min=0), default=1, show_default=True,
                 help="Self-play games from each family start (in-family positions kept)."),
    click.option("--backgame-starts", type=click.IntRange(min=0), default=0, show_default=True,
                 help="Back-game boards taken from bgsage's player-backgame-rollout.txt."),
    click.option("--no-snake", is_flag=True, help="Leave out the snake family's starting positions."),
    click.option("--exits", type=click.IntRange(min=0), default=2, show_default=True,
                 help="Exit successors per family position."),
    click.option("--bgsage-boards", type=click.IntRange(min=0), default=0, show_default=True,
                 help="Boards taken from bgsage's cubeful-pr-rollouts.jsonl (labelled by us)."),
    click.option("--explore", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                 help="Chance of a random play per self-play half-move."),
    click.option("--seed", type=int, default=1, show_default=True),
    click.option("--shared", type=click.Path(file_okay=False, path_type=Path), default=None,
                 help="bgsage's data folder (default ../shared/data/backgammon/bgsage)."),
]


def plan_options(f):
    for opt in reversed(_plan_options):
        f = opt(f)
    return f


def _plan(selfplay_games, per_game, family_games, backgame_starts, no_snake, exits, bgsage_boards,
          explore, seed, shared, evaluator="net"):
    from . import data as D

    try:
        return D.plan(selfplay_games=selfplay_games, per_game=per_game, family_games=family_games,
                      backgame_starts=backgame_starts, snake=not no_snake, exits=exits,
                      bgsage_boards=bgsage_boards,
                      explore=explore, seed=seed, shared=shared,
                      evaluator=D._evaluator(evaluator))
    except (D.DataError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


@click.group("data")
def data() -> None:
    """Training data labelled by our own rollouts or n-ply lookahead (plan, label, lookahead, stats...)."""


@data.command("plan")
@plan_options
@click.option("--json", "as_json", is_flag=True, help="Print the planned tasks as JSON lines.")
def plan_cmd(as_json, **kw) -> None:
    """Print how many positions each source gives (nothing is labelled)."""
    tasks = _plan(**kw)
    if as_json:
        for t in tasks:
            click.echo(json.dumps(t))
        return
    c = Counter(t["source"] for t in tasks)
    click.echo(f"{len(tasks)} positions: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))


@data.command("label")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@plan_options
@click.option("--evaluator", default="net", show_default=True, help="net | path/to/net.npz")
@click.option("--trials", type=click.IntRange(min=1296), default=None,
              help="Rollout trials per position, a multiple of 1296 [default: 1296].")
@click.option("--truncate", type=click.IntRange(min=0), default=None,
              help="Half-moves before the 1-ply evaluation ends a trial (0 = to the end) "
                   "[default: 0: benchmarks/bg_truncation.py measured truncation's error].")
@click.option("--luck", type=click.Choice(["ranked", "full", "none"]), default="ranked",
              show_default=True, help="Variance reduction (none = plain trials).")
@click.option("--workers", type=click.IntRange(min=0), default=1, show_default=True,
              help="0 in-process, k a pool of k processes.")
@click.option("--ray", "ray_address", default=None, help="Run on Ray (auto, local or host:port).")
@click.option("--limit", type=click.IntRange(min=0), default=None,
              help="Label only the first N planned positions.")
def label_cmd(out, evaluator, trials, truncate, luck, workers, ray_address, limit, **kw) -> None:
    """Label the planned positions missing from OUT (JSONL); rerun to resume or grow."""
    from . import data as D

    if evaluator in ("pubeval", "gnubg", "bgsage"):
        raise click.BadParameter("our own engine labels the data (net or a .npz of ours); "
                                 "peers measure, never label", param_hint="--evaluator")
    try:
        D._evaluator(evaluator)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--evaluator") from None
    if trials is not None and trials % 1296:
        raise click.BadParameter(f"{trials}: use a multiple of 1296 (the quasi-random first two "
                                 "rolls are balanced only then)", param_hint="--trials")
    tasks = _plan(evaluator=evaluator, **kw)
    try:
        res = D.label(out, tasks, evaluator=evaluator,
                      trials=trials if trials is not None else D.DEFAULT_TRIALS,
                      truncate=truncate if truncate is not None else D.DEFAULT_TRUNCATE,
                      luck=luck, seed=kw["seed"], workers=workers, ray_address=ray_address,
                      limit=limit, description=f"label {out.name}")
    except D.DataError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(res))


@data.command("stats")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--bgsage", is_flag=True, help="Include bgsage's published rollouts (converted).")
@click.option("--against-bgsage", is_flag=True,
              help="Also compare our labels with bgsage's published rollouts of the same boards.")
def stats_cmd(files, bgsage, against_bgsage) -> None:
    """Rows per source and phase, mean standard error of the equity, held-out share."""
    from . import data as D

    try:
        rows = D.load(files, bgsage=bgsage)
        sage = dict(D.bgsage_rows()) if against_bgsage else {}
    except D.DataError as exc:
        raise click.ClickException(str(exc)) from None
    extra = {}
    if against_bgsage:
        both = [(r, sage[k]) for k, r in rows.items()
                if k in sage and r["label"].get("engine") != "bgsage-rollout"]
        if both:
            import numpy as np

            ours = np.array([r["probs"] for r, _ in both])
            theirs = np.array([s["probs"] for _, s in both])
            extra["against_bgsage"] = {
                "boards": len(both),
                "mae_equity": round(float(np.mean([abs(r["equity"] - s["equity"]) for r, s in both])), 4),
                "mean_equity_diff": round(float(np.mean([r["equity"] - s["equity"] for r, s in both])), 4),
                "mae_probs": [round(float(v), 4) for v in np.abs(ours - theirs).mean(axis=0)]}
    by = Counter(r["source"] for r in rows.values())
    ph = Counter(r["phase"] for r in rows.values())
    ses = [r["equity_se"] for r in rows.values() if r.get("equity_se") is not None]
    hold = sum(D.is_holdout(k) for k in rows)
    click.echo(json.dumps({"rows": len(rows), "sources": dict(sorted(by.items())),
                           "phases": dict(sorted(ph.items())),
                           "mean_equity_se": round(sum(ses) / len(ses), 5) if ses else None,
                           "holdout": hold, **extra}))


@data.command("export")
@click.argument("src", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("dst", type=click.Path(dir_okay=False, path_type=Path))
def export_cmd(src, dst) -> None:
    """Write SRC's rows as a finished shard DST (.jsonl.gz, sorted by key, reproducible)."""
    from . import data as D

    try:
        n = D.export(src, dst)
    except D.DataError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{n} rows -> {dst}")


@data.command("bgsage")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--shared", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="bgsage's data folder (default ../shared/data/backgammon/bgsage).")
def bgsage_cmd(out, shared) -> None:
    """Convert bgsage's published rollouts to our row format in OUT (outside the project)."""
    from . import data as D

    try:
        n = 0
        with open(out, "w", encoding="utf-8") as fh:
            for k, r in D.bgsage_rows(shared):
                fh.write(json.dumps({"key": k, "result": r}) + "\n")
                n += 1
    except (D.DataError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{n} rows -> {out}")


@data.command("lookahead")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--games", type=click.IntRange(min=1), required=True,
              help="Self-play games from the opening (rounded up to whole shards).")
@click.option("--per-game", type=click.IntRange(min=1), default=4, show_default=True,
              help="Random pre-roll positions taken from each game.")
@click.option("--ply", type=click.IntRange(min=2), default=3, show_default=True,
              help="Lookahead of the labels (XG numbering: 3 = two rolls ahead).")
@click.option("--explore", type=click.FloatRange(0, 1), default=0.05, show_default=True,
              help="Chance of a random play per self-play half-move.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--games-per-shard", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--evaluator", default="net", show_default=True, help="net | path/to/net.npz")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes labelling shards in parallel.")
@click.option("--candidates", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also label the positions after the best K plays of one roll from each "
                   "sampled position (ranked at 1-ply).")
@click.option("--rollout", type=click.IntRange(min=0), default=0, show_default=True,
              help="Label by truncated VR rollouts of this many trials instead of --ply "
                   "(0: the n-ply value).")
@click.option("--truncate", type=click.IntRange(min=1), default=11, show_default=True,
              help="With --rollout: half-moves before the net's value ends a trial.")
def lookahead_cmd(out, games, per_game, ply, explore, seed, games_per_shard, evaluator,
                  workers, candidates, rollout, truncate) -> None:
    """Label self-play positions by our own n-ply value (or truncated rollouts) into shards
    in OUT; rerun to resume.

    ~15-27 ms a position at 3-ply on one core; a 144-trial rollout cut after 11 half-moves
    ~0.19 s (see playout.backgammon.lookahead for the positions and the file format).
    """
    from . import lookahead as L

    if evaluator in ("pubeval", "gnubg", "bgsage"):
        raise click.BadParameter("our own network labels the data (net or a .npz of ours); "
                                 "peers measure, never label", param_hint="--evaluator")
    try:
        res = L.generate(out, games=games, workers=workers, evaluator=evaluator, ply=ply,
                         explore=explore, per_game=per_game, seed=seed,
                         games_per_shard=games_per_shard, candidates=candidates,
                         rollout=rollout, truncate=truncate)
    except (L.LookaheadError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(res))
