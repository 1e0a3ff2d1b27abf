"""``playout bg pr`` and ``playout bg benchmark generate|rollout`` (click).

The ``bg`` group (``playout.backgammon.cli``) adds these lazily.  User mistakes (bad
directory, bad file line, bad engine spec) exit with a one-line error (code 1 via
``click.ClickException``, 2 for bad options), never a traceback.
"""

from __future__ import annotations

import math
from pathlib import Path

import click

from .benchmark import FormatError


def _fmt(x: float, spec: str = ".2f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


@click.command("pr")
@click.argument("benchmark_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--engine", "engines", multiple=True, required=True, metavar="SPEC",
              help="gnubg:ply=0, bgsage:ply=2, ours:ply=1, pubeval ... (repeatable)")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N decisions.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write per-decision errors here.")
@click.option("--complete", is_flag=True,
              help="Compute and append a reference for chosen moves the reference lacks or rates only at filter grade.")
@click.option("--complete-trials", type=click.IntRange(min=1), default=None,
              help="Trials for completing rollout references (default: the record's).")
@click.option("--paired", is_flag=True,
              help="Also print each engine's checker and cube PR minus the first engine's on the "
                   "decisions both scored, with its standard error and how many decisions differ.")
def pr(benchmark_dir: Path, engines: tuple[str, ...], limit, csv_path, complete, complete_trials,
       paired) -> None:
    """Rate engines by Performance Rating (mean error x 500) on BENCHMARK_DIR, side by side."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from . import benchmark, engines as eng, scoring

    try:
        specs = [eng.parse_spec(s) for s in engines]
        bset = benchmark.load_set(benchmark_dir)
    except (eng.EngineError, FormatError) as exc:
        raise click.ClickException(str(exc)) from None
    n = len(bset.decisions) if limit is None else min(limit, len(bset.decisions))
    completer = None
    if complete:
        from .references import Completer

        completer = Completer(bset.rollout_path, bset.references, complete_trials)
    results: dict[str, scoring.Summary] = {}
    rows_by_engine: dict[str, list] = {}
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        for spec in specs:
            try:
                engine = eng.make_engine(spec)
            except eng.EngineError as exc:
                raise click.ClickException(str(exc)) from None
            label, k = spec.label, 2
            while label in results:  # the same engine twice keeps both rows
                label, k = f"{spec.label} #{k}", k + 1
            task = progress.add_task(label, total=n)
            rows = scoring.rate(bset.decisions, bset.references, engine, limit=n,
                                on_step=lambda t=task: progress.advance(t), completer=completer)
            rows_by_engine[label] = rows
            results[label] = scoring.summarize(rows)
    table = Table(title=f"PR on {benchmark_dir} ({n} decisions)")
    for col in ("engine", "PR", "checker PR", "cube PR", "error rate", "blunders", "decisions",
                "mismatches", "rollout-grade", "ms/decision"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    for label, s in results.items():
        table.add_row(label, _fmt(s.pr), _fmt(s.checker_pr), _fmt(s.cube_pr), _fmt(s.error_rate, ".1f"),
                      str(s.blunders), f"{s.decisions} ({s.checker}+{s.cube})", str(s.mismatches),
                      _fmt(100 * s.rollout_share, ".0f") + "%", _fmt(s.ms_per_decision, ".1f"))
    out = Console()
    Console(width=max(out.width, 150)).print(table)
    if paired and len(rows_by_engine) > 1:
        Console(width=max(out.width, 150)).print(_paired_table(rows_by_engine))
    if completer is not None:
        click.echo(f"completed {completer.added} reference value(s) into {bset.rollout_path}")
    if csv_path is not None:
        scoring.write_csv(csv_path, rows_by_engine)
        click.echo(f"per-decision errors: {csv_path}")


def _paired_table(rows_by_engine: dict):
    """Each engine after the first against the first (:func:`scoring.paired`)."""
    from rich.table import Table

    from . import scoring

    labels = list(rows_by_engine)
    first = rows_by_engine[labels[0]]
    table = Table(title=f"paired against {labels[0]} (PR difference +- standard error; decisions that differ)")
    for col in ("engine", "checker PR diff", "checker differ", "cube PR diff", "cube differ"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    for label in labels[1:]:
        cells = []
        for kind in ("checker", "cube"):
            p = scoring.paired(first, rows_by_engine[label], kind)
            cells += [f"{_fmt(p.diff, '+.2f')} +- {_fmt(p.se)}", f"{p.changed} of {p.n}"]
        table.add_row(label, *cells)
    return table


@click.group("benchmark")
def benchmark_group() -> None:
    """Build PR benchmarks: generate decisions, roll out references."""


@benchmark_group.command("generate")
@click.option("--family", required=True, help="backgame-A-B (e.g. backgame-1-3), containment, massive-backgame, snake.")
@click.option("--starting", "starting_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A starting.txt file.")
@click.option("--decisions", "n_decisions", required=True, type=click.IntRange(min=1))
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--ply", type=click.IntRange(1, 3), default=3, show_default=True,
              help="bgsage self-play level (XG numbering).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Output file (default: '<family> benchmark.txt' beside --starting).")
def generate_command(family, starting_path, n_decisions, seed, ply, out_path) -> None:
    """Cubeful money self-play from starting positions, recording decisions in FAMILY."""
    from . import families, generate

    try:
        families.classifier(family)
        out = out_path or starting_path.with_name(f"{family} benchmark.txt")
        n = generate.generate_file(family, starting_path, out, n_decisions, seed=seed, ply=ply)
    except (FormatError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {n} decisions to {out}")


@benchmark_group.command("rollout")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--trials", type=click.IntRange(min=1), default=1296, show_default=True)
@click.option("--workers", type=click.IntRange(min=0), default=None, help="0 in-process; default one per core.")
@click.option("--ray", "ray_address", default=None, help="Ray address (auto, local, host:port).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--decision-ply", type=click.IntRange(1, 3), default=1, show_default=True)
@click.option("--ply", "ply_text", default=None,
              help="ply schedule instead of --decision-ply (XG numbering, two levels at most): "
                   "2 = 2-ply throughout, 3:3,2 = 3-ply for 3 half-moves then 2-ply (Open "
                   "Sage's references), 2:2 = 2-ply for 2 half-moves then 1-ply.")
@click.option("--truncation", type=click.IntRange(min=0), default=0, show_default=True, help="0 = play to the end.")
@click.option("--limit", type=click.IntRange(min=1), default=None)
def rollout_command(directory, trials, workers, ray_address, seed, decision_ply, ply_text, truncation,
                    limit) -> None:
    """Roll out every decision of DIRECTORY lacking a reference, appending to rollout.jsonl."""
    from . import references

    late_ply, late_threshold = -1, 0
    if ply_text is not None:
        decision_ply, late_ply, late_threshold = _bgsage_schedule(ply_text, decision_ply)
    try:
        n = references.rollout_directory(directory, trials=trials, workers=workers, ray_address=ray_address,
                                         seed=seed, decision_ply=decision_ply, truncation=truncation, limit=limit,
                                         late_ply=late_ply, late_threshold=late_threshold)
    except FormatError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"rolled out {n} decision(s)")


def _bgsage_schedule(text: str, decision_ply: int) -> tuple[int, int, int]:
    """``(decision_ply, late_ply, late_threshold)`` for bgsage from a ``--ply`` schedule text
    (:func:`playout.backgammon.rollout_ply.parse_schedule`); BadParameter if bgsage cannot
    play it (more than two levels, a ply above 3) or --decision-ply is given too."""
    from .rollout_ply import parse_schedule

    if decision_ply != 1:
        raise click.BadParameter("give --ply or --decision-ply, not both", param_hint="--ply")
    try:
        sched = parse_schedule(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--ply") from None
    first, rest = sched[0], sched[-1]
    m = next((i for i, p in enumerate(sched) if p != first), len(sched))
    if any(p != rest for p in sched[m:]) or max(sched) > 3:
        raise click.BadParameter(f"{text!r}: bgsage rollouts take at most two levels of 1..3 "
                                 f"(e.g. 3:3,2)", param_hint="--ply")
    if m == len(sched):
        return first, -1, 0
    return first, rest, m


#: the name the `bg` group imports.
benchmark = benchmark_group
