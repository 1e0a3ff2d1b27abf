"""Convergence traces: per-iteration root statistics, as CSV and plots.

mctreesearch4j's paper shows convergence as three figures (its Figs. 10-12):
the exploration term, the reward and the visits of each root action against the
iteration.  A solver built with ``trace=True`` records, after every iteration,
one row per expanded root action: ``iteration, action, visits, mean_reward,
max_reward, exploration``.  These helpers write them out and draw the figures
(matplotlib, no screen needed).
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable

FIELDS = ("iteration", "action", "visits", "mean_reward", "max_reward", "exploration")


def write_trace_csv(rows: Iterable[dict[str, Any]], path: Path,
                    action_name: Callable[[Any], str] = str) -> Path:
    """Write trace rows to ``path`` (CSV with header :data:`FIELDS`); return the path."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(FIELDS)
        for r in rows:
            w.writerow([r["iteration"], action_name(r["action"]), r["visits"], f"{r['mean_reward']:.6g}",
                        f"{r['max_reward']:.6g}", "" if math.isinf(r["exploration"]) else f"{r['exploration']:.6g}"])
    return path


def series(rows: Iterable[dict[str, Any]], field: str) -> dict[Any, tuple[list[int], list[float]]]:
    """action -> (iterations, values of ``field``) from trace rows."""
    out: dict[Any, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
    for r in rows:
        v = r[field]
        if isinstance(v, float) and math.isinf(v):
            continue
        xs, ys = out[r["action"]]
        xs.append(r["iteration"])
        ys.append(v)
    return dict(out)


def plot_trace(rows: list[dict[str, Any]], out_dir: Path, *, title: str = "",
               action_name: Callable[[Any], str] = str) -> list[Path]:
    """Draw ``exploration.png``, ``reward.png`` and ``visits.png`` in ``out_dir``.

    Returns the three paths.  One line per root action, legend by action name.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = [
        ("exploration", "exploration term  C·sqrt(ln N / n)", "exploration.png", "Exploration term per root action"),
        ("mean_reward", "mean discounted reward", "reward.png", "Mean reward per root action"),
        ("visits", "cumulative visits", "visits.png", "Visits per root action"),
    ]
    styles = ["-", "--", "-.", ":"]
    paths = []
    for field, ylabel, fname, heading in specs:
        fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
        lines = sorted(series(rows, field).items(), key=lambda kv: str(kv[0]))
        for i, (action, (xs, ys)) in enumerate(lines):
            if field == "exploration":  # a log axis: drop the zero of the first iteration
                xs, ys = [x for x, y in zip(xs, ys) if y > 0], [y for y in ys if y > 0]
            # line styles keep coinciding curves (equal visits) apart
            ax.plot(xs, ys, label=action_name(action), linewidth=1.6 if i % 2 == 0 else 1.2,
                    linestyle=styles[i % len(styles)])
        ax.set_xlabel("iteration")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{heading}\n{title}" if title else heading, fontsize=10)
        if field == "exploration":
            ax.set_yscale("log")
        elif field == "visits":
            ax.set_yscale("symlog", linthresh=10)  # few-visit actions stay apart from zero
        ax.grid(alpha=0.3)
        ax.legend(title="root action", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        p = out_dir / fname
        fig.savefig(p)
        plt.close(fig)
        paths.append(p)
    return paths
