"""Cross-check our legal plays against gnubg (and bgsage) on all 3,177 self-play IDs x 21 rolls.

    python scripts/bg_crosscheck.py [--every K]

gnubg (PyPI): equal number of plays, and every play gnubg reports in full (its
move tuples stop at a bear-off) is one of ours; bgsage: equal board sets.
Prints a JSON summary with the counts of cases and differences.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from playout.backgammon.crosscheck import compare_moves
from playout.backgammon.ids import board_from_position_id

IDS = (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
       / "gnubg_selfplay_position_ids.txt")


@click.command()
@click.option("--every", default=1, show_default=True, help="use every K-th position")
def main(every: int) -> None:
    ids = IDS.read_text().split()[::every]
    t0 = time.time()
    res = compare_moves([board_from_position_id(p) for p in ids])
    res["positions"] = len(ids)
    res["seconds"] = round(time.time() - t0, 1)
    click.echo(json.dumps(res))


if __name__ == "__main__":
    main()
