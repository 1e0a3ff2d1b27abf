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
