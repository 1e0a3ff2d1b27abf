"""``playout warm-up [go|bg|mcts|all]``: compile the numba kernels ahead of their first use.

Every kernel is ``@njit(cache=True)``: its first call after an install (or after its source
changed) compiles it and writes the machine code to ``__pycache__`` (or ``NUMBA_CACHE_DIR``);
later runs load it in about a second.  This command runs each part's commands once on a tiny
problem, with their output discarded, so that a GUI's first ``genmove`` or a first
``bg hint`` answers in its normal time.  The steps are the commands themselves (``playout gtp``
answering ``genmove`` and ``final_score``, ``bg eval``/``hint``/``cube`` (at ply 1, then at
ply 2: the cubeful search)/``rollout``,
``solve`` of each built-in domain), so what they compile is exactly what those commands need.

Figures (2-core VM, empty cache, ``benchmarks/compile_cost.py``): see :data:`STEPS`.  The
cubeful step (``bg cube --ply 2``, :mod:`playout.backgammon.cubeful`'s kernels) adds ~4.6 s
CPU after the eval/hint/cube steps (5.35 s cold against 0.8 s cached, a busy 2-core VM).
"""

from __future__ import annotations

import io
import sys
import time
from typing import Callable

import click

BG_POS = "4HPwATDgc/ABMA"  # the starting position (gnubg ID)

#: part -> [(label, argv of the ``playout`` command, stdin)]
STEPS: dict[str, list[tuple[str, list[str], str]]] = {
    "go": [("Go search and playouts (gtp genmove, final_score)",
            ["gtp", "--no-warm-up", "--playouts", "64", "--seed", "1"],
            "boardsize 9\nclear_board\ngenmove b\nplay w E5\nfinal_score\nquit\n")],
    "bg": [("backgammon eval (n-ply)", ["bg", "eval", BG_POS], ""),
           ("backgammon hint", ["bg", "hint", BG_POS, "--dice", "31"], ""),
           ("backgammon cube", ["bg", "cube", BG_POS, "--ply", "1"], ""),
           ("backgammon cubeful cube search", ["bg", "cube", BG_POS, "--ply", "2"], ""),
           ("backgammon rollout", ["bg", "rollout", BG_POS, "--trials", "2", "--workers", "0"],
            "")],
    "mcts": [(f"MCTS {d}", ["solve", d, "--iterations", "50", "--engine", "compiled"], "")
             for d in ("gridworld", "push_your_luck", "twenty48", "connect4", "reversi")],
}
PARTS = ("go", "bg", "mcts", "all")


def steps_for(parts: tuple[str, ...]) -> list[tuple[str, list[str], str]]:
    """The steps of ``parts`` (``all`` = every part), in :data:`STEPS` order, each once."""
    want = set(STEPS) if not parts or "all" in parts else set(parts)
    return [s for part in STEPS if part in want for s in STEPS[part]]


def run_step(argv: list[str], stdin: str) -> str | None:
    """Run ``playout ARGV`` in this process with ``stdin`` and stdout discarded; None if it
    succeeded, else one line saying why."""
    from playout.cli import main

    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO(stdin), io.StringIO()
    try:
        main.main(argv, prog_name="playout", standalone_mode=False)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return f"exit status {exc.code}"
    except click.ClickException as exc:
        return exc.format_message()
    except Exception as exc:  # noqa: BLE001 - one failed part must not stop the others
        return f"{type(exc).__name__}: {exc}"
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return None


def warm(parts: tuple[str, ...], report: Callable[[int, int, str, float, str | None], None]
         | None = None) -> list[tuple[str, float, str | None]]:
    """Run the steps of ``parts``; ``report(i, n, label, seconds, error)`` after each.
    Returns (label, seconds, error or None) per step."""
    out = []
    todo = steps_for(parts)
    for i, (label, argv, stdin) in enumerate(todo):
        t0 = time.perf_counter()
        err = run_step(argv, stdin)
        dt = time.perf_counter() - t0
        out.append((label, dt, err))
        if report:
            report(i + 1, len(todo), label, dt, err)
    return out


@click.command("warm-up")
@click.argument("parts", nargs=-1, type=click.Choice(PARTS))
def warm_up(parts: tuple[str, ...]) -> None:
    """Compile the numba kernels of PARTS (go, bg, mcts; default all) ahead of first use.

    Run once after an install or an update (a few minutes on 2 cores; seconds when the
    caches are warm), so that the first genmove, bg command or compiled solve answers in its
    normal time.  Progress on stderr.
    """
    todo = steps_for(parts)
    failed = []
    t_all = time.perf_counter()
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("{task.description}"), BarColumn(),
                      TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=False) as bar:
            task = bar.add_task("warm-up", total=len(todo))
            for label, argv, stdin in todo:
                bar.update(task, description=f"compiling {label}")
                t0 = time.perf_counter()
                err = run_step(argv, stdin)
                bar.console.print(f"{label}: {time.perf_counter() - t0:.1f} s"
                                  + (f"  FAILED: {err}" if err else ""))
                if err:
                    failed.append(label)
                bar.advance(task)
            bar.update(task, description="warm-up done")
    else:
        def line(i, n, label, dt, err):
            print(f"warm-up {i}/{n}: {label}: {dt:.1f} s" + (f"  FAILED: {err}" if err else ""),
                  file=sys.stderr, flush=True)
            if err:
                failed.append(label)

        print(f"warm-up: {len(todo)} steps ({', '.join(s[0] for s in todo)})", file=sys.stderr,
              flush=True)
        warm(parts, line)
    click.echo(f"warm-up: {len(todo) - len(failed)}/{len(todo)} steps in "
               f"{time.perf_counter() - t_all:.0f} s", err=True)
    if failed:
        raise click.ClickException(f"warm-up failed for: {', '.join(failed)}")
