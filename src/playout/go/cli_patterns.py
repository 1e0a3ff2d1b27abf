"""``playout go patterns``: check, compile and summarise an ``mc_*.db`` pattern database.

Examples::

    playout go patterns mogo_classic --stats
    playout go patterns my.db --stats --json      # {"cells_per_value": {"0": 4352, ...}}
    playout go patterns mc_montegnu_classic --rules
    playout go patterns my.db --verify             # every cell against the pure-Python matcher

A malformed file gives one line ``Error: FILE:LINE: what is wrong`` and exit code 2; so do a
directory (``FILE: is a directory, not a pattern file``), a file without patterns
(``FILE: no patterns found``) and an unreadable file.
"""

from __future__ import annotations

import json

import click

from playout.go.cli import komi_option
from playout.go.pattern_compiler import load_patterns
from playout.go.patterns import PatternError


class _BadInput(click.ClickException):
    """A user mistake: one-line message, exit code 2 (like a usage error)."""

    exit_code = 2


def _rule_rows(compiled) -> list[dict]:
    return [
        {
            "line": s.rule.line,
            "value": s.rule.value,
            "properties": list(s.rule.properties),
            "diagram": list(s.rule.diagram),
            "geometries": s.geometries,
            "codes": s.codes,
            "cells": s.cells,
        }
        for s in compiled.rule_stats
    ]


@click.command("patterns")
@click.argument("source", metavar="FILE_OR_NAME")
@click.option("--stats", is_flag=True, help="Cells per value over the 1,107 x 256 table.")
@click.option("--rules", "show_rules", is_flag=True,
              help="Per rule: geometry classes matched, property codes allowed, cells set.")
@click.option("--verify", is_flag=True,
              help="Re-check every cell against rule-by-rule matching in pure Python.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def patterns(source: str, stats: bool, show_rules: bool, verify: bool, as_json: bool) -> None:
    """Parse and compile a pattern database FILE_OR_NAME (a file, or a built-in:
    uniform, mogo_classic, montegnu_classic, with or without the mc_ prefix)."""
    try:
        compiled = load_patterns(source)
    except OSError as exc:
        raise _BadInput(f"{source}: cannot read: {exc.strerror or exc}") from None
    except (PatternError, ValueError) as exc:
        raise _BadInput(str(exc)) from None
    if verify:
        from playout.go.pattern_compiler import verify_against_reference

        bad = verify_against_reference(compiled)
        if bad:
            cls, code, got, want = bad[0]
            raise click.ClickException(
                f"{len(bad)} cells disagree with rule-by-rule matching, e.g. class {cls} "
                f"code {code}: table {got}, reference {want}"
            )

    cells = {str(v): n for v, n in compiled.cells_per_value().items()}
    if as_json:
        out: dict = {}
        if stats:
            out["cells_per_value"] = cells
        if show_rules:
            out["rules"] = _rule_rows(compiled)
        if verify:
            out["verified_cells"] = int(compiled.values.size)
        if not out:
            out = {
                "name": compiled.name,
                "rules": len(compiled.rules),
                "classes": compiled.n_classes,
                "codes": int(compiled.values.shape[1]),
                "values": sorted({r.value for r in compiled.rules}),
            }
        click.echo(json.dumps(out))
        return

    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(
        f"[bold]{compiled.name}[/]: {len(compiled.rules)} rules, "
        f"{compiled.n_classes} geometry classes x {compiled.values.shape[1]} property codes "
        f"= {compiled.values.size:,} cells"
    )
    if verify:
        console.print(f"verified: all {compiled.values.size:,} cells agree with rule-by-rule matching")
    if stats:
        table = Table(title="cells per value")
        table.add_column("value", justify="right")
        table.add_column("cells", justify="right")
        table.add_column("share", justify="right")
        for v, n in cells.items():
            table.add_row(v, f"{n:,}", f"{n / compiled.values.size:.1%}")
        console.print(table)
    if show_rules:
        table = Table(title="rules (file order; first match wins)")
        for col in ("line", "rule", "diagram", "geometries", "codes", "cells"):
            left = col in ("rule", "diagram")
            table.add_column(col, justify="left" if left else "right", no_wrap=left)
        for row, s in zip(_rule_rows(compiled), compiled.rule_stats):
            table.add_row(
                str(row["line"]), s.rule.label(), " / ".join(row["diagram"]),
                str(row["geometries"]), str(row["codes"]), f"{row['cells']:,}",
            )
        console.print(table)


@click.command("selfplay")
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--games", type=click.IntRange(1), default=10, show_default=True)
@click.option("--size", type=click.IntRange(5, 19), default=9, show_default=True)
@komi_option
@click.option("--engine", type=click.Choice(["gnugo", "ours"]), default="gnugo", show_default=True,
              help="GNU Go 3.8 against itself at --level, or our engine at --playouts.")
@click.option("--level", type=click.IntRange(0, 10), default=10, show_default=True,
              help="GNU Go's --level.")
@click.option("--playouts", type=click.IntRange(1), default=2000, show_default=True,
              help="Our engine's playouts per move (--engine ours).")
@click.option("--seed", type=click.IntRange(0, 20000), default=1, show_default=True,
              help="Collection seed: game i's engines get seeds 2k+1, 2k+2 (k = seed*100000+i).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0,
              show_default=True, help="Seconds an engine may take per GTP answer.")
@click.option("--random-opening", "opening", type=click.IntRange(0, 20), default=0,
              show_default=True, metavar="STONES",
              help="Start each game from this many seeded random stones off the first line "
                   "(the record's setup; the engines' moves follow): distinct games from an "
                   "engine that barely varies.")
def selfplay(out_dir, games, size, komi, engine, level, playouts, seed, timeout, opening):
    """Write GAMES self-play game records to OUT_DIR (one SGF per game, resumable: existing
    files are skipped; a held-out tenth by a hash of the file name).  Engines run niced."""
    from playout.go.selfplay import SelfplayError, generate, is_held_out

    try:
        r = generate(out_dir, games, size, komi, level, engine, seed, playouts, timeout,
                     log=click.echo, opening=opening)
    except (SelfplayError, ValueError) as exc:
        raise _BadInput(str(exc)) from None
    except OSError as exc:
        raise _BadInput(f"{out_dir}: {exc.strerror or exc}") from None
    files = r.pop("files")
    r["held_out"] = sum(is_held_out(f) for f in files)
    click.echo(json.dumps(r))


@click.command("tune-patterns")
@click.argument("games_dir", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True,
              help="The mc_*.db file to write.")
@click.option("--base", default=None,
              help="A database (built-in name or file) whose rules answer for the 3x3 shapes "
                   "never seen in training (default: the learned catch-all alone).")
@click.option("--iterations", type=click.IntRange(1), default=300, show_default=True,
              help="MM sweeps at most.")
@click.option("--cv", type=click.IntRange(0, 100), default=0, show_default=True,
              help="Also report out-of-fold prediction over all games in this many folds "
                   "(0: off).")
@click.option("--exponent", type=click.FloatRange(0, 1, min_open=True), default=1.0,
              show_default=True,
              help="Write gamma^EXPONENT (< 1 flattens the playouts; same move ranking).")
@click.option("--compare", "compare", multiple=True, metavar="FILE",
              help="Also report the held-out prediction of this database (a previous tuning, "
                   "say); repeatable.")
def tune_patterns(games_dir, out, base, iterations, cv, exponent, compare):
    """Learn pattern values from the game records in GAMES_DIR (Coulom's MM on the moves
    played), write them as a GNU Go mc_*.db file, and print the move-prediction rates on the
    held-out games for it and the built-in databases (JSON)."""
    from playout.go.sgf import SgfError
    from playout.go.tune import tune

    try:
        r = tune(games_dir, out, base, iterations, log=lambda s: click.echo(s, err=True), cv=cv,
                 exponent=exponent, compare=compare)
    except OSError as exc:
        raise _BadInput(f"{exc.filename or out}: {exc.strerror or exc}") from None
    except (SgfError, PatternError, ValueError) as exc:
        raise _BadInput(str(exc)) from None
    click.echo(json.dumps(r))


@click.command("balance-patterns")
@click.argument("games_dir", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True,
              help="The mc_*.db file to write.")
@click.option("--positions", type=click.IntRange(1), default=1500, show_default=True,
              help="Training positions drawn from the training games (one a game, cycled).")
@click.option("--held-positions", type=click.IntRange(1), default=100, show_default=True,
              help="Positions of the held-out games the report scores.")
@click.option("--label-playouts", type=click.IntRange(1), default=20000, show_default=True,
              help="Simulations of our search that label a position (its V*).")
@click.option("--steps", type=click.IntRange(1), default=1000, show_default=True,
              help="Balancing steps (batches).")
@click.option("--alpha", type=click.FloatRange(0, min_open=True), default=50.0,
              show_default=True, help="Step size on the log-gammas.")
@click.option("--batch", type=click.IntRange(1), default=50, show_default=True,
              help="Positions a step.")
@click.option("--m", "m", type=click.IntRange(1), default=32, show_default=True,
              help="Playouts that estimate a position's mean result V.")
@click.option("--n", "n", type=click.IntRange(1), default=32, show_default=True,
              help="Playouts that estimate the policy gradient.")
@click.option("--seed", type=click.IntRange(0), default=1, show_default=True)
@click.option("--eval-playouts", type=click.IntRange(1), default=512, show_default=True,
              help="Playouts a held-out position for the report.")
@click.option("--work", type=click.Path(file_okay=False), default=None,
              help="Folder of the labels and the checkpoint (default: OUT.work): rerun the "
                   "same command to resume.")
@click.option("--start", "start_db", default=None, metavar="NAME|FILE",
              help="Balance this database's rule values (one parameter a rule) instead of "
                   "the MM model of the games.")
def balance_patterns(games_dir, out, positions, held_positions, label_playouts, steps, alpha,
                     batch, m, n, seed, eval_playouts, work, start_db):
    """Fit pattern values by simulation balancing (Huang, Coulom and Lin 2010): start from
    MM on the training games of GAMES_DIR (or --start's database), move the values so that
    playouts' mean results match our own search's win rates in positions of those games,
    write a GNU Go mc_*.db file and print the held-out positions' error for it, the start
    and the built-ins (JSON).  Resumable."""
    from playout.go.balance import balance_patterns as run
    from playout.go.sgf import SgfError

    try:
        r = run(games_dir, out, positions, held_positions, label_playouts, steps, alpha, batch,
                m, n, seed, eval_playouts, work, log=lambda s: click.echo(s, err=True),
                start_db=start_db)
    except OSError as exc:
        raise _BadInput(f"{exc.filename or out}: {exc.strerror or exc}") from None
    except (SgfError, PatternError, ValueError) as exc:
        raise _BadInput(str(exc)) from None
    click.echo(json.dumps(r))
