"""``playout bg crosscheck-cube``: our cube model against GNU Backgammon 1.07 (Debian gnubg)."""

from __future__ import annotations

import json

import click


@click.command("crosscheck-cube")
@click.option("--positions", default=24, show_default=True, type=click.IntRange(min=1),
              help="boards from the gnubg self-play IDs (contact, race, both-home)")
@click.option("--ids", "ids_file", type=click.Path(dir_okay=False), default=None,
              help="position ID file (default: ../shared/data/backgammon/"
                   "gnubg_selfplay_position_ids.txt)")
@click.option("--timeout", type=float, default=None,
              help="seconds for gnubg (default 30 + 0.1 per case)")
@click.option("--json", "as_json", is_flag=True, help="the table and every disagreement as JSON")
def crosscheck_cube(positions, ids_file, timeout, as_json):
    """Compare ND/DT/DP and the action with gnubg 1.07's 0-ply cube analysis.

    Every board x score (money with/without Jacoby; 7-point match: Crawford,
    post-Crawford, DMP, 2-away/2-away, short and long scores) x cube state
    (centred, owned by either side at 2..16), fed gnubg's own probabilities.
    """
    from playout.backgammon.cube_crosscheck import IDS_FILE, GnubgError, crosscheck, format_table

    try:
        res = crosscheck(positions, ids_file=ids_file or IDS_FILE, timeout=timeout)
    except GnubgError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(res))
    else:
        click.echo(format_table(res))
        for d in res["disagreements"][:10]:
            click.echo(f"  disagree: {json.dumps(d)}")
