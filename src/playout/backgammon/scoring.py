"""Performance Rating (PR) scoring against reference values.

Rules (``../shared/docs/backgammon.md``, "PR"; XG's and Open Sage's convention):

* PR = mean equity error per scored decision x 500; blunder = error > 0.08; gnubg's error
  rate = mean error x 1000 (its ``.bm`` "mEMG" convention).
* Checker decision: scored when it has >= 2 legal moves and the best-to-worst reference
  spread is >= 0.001.  Error = max(0, best reference equity - reference equity of the chosen
  move).  A chosen move missing from the reference is a *mismatch*: counted and listed, not
  scored and not silently dropped.  The best equity is taken over the reference-grade
  candidates (those evaluated at the record's own level), so a stale filter-grade value
  cannot set the bar; the chosen move's grade is reported (rollout-grade share).
* Cube, doubler side: skipped when trivial (|ND-DT| < 0.001, ND-DT > 0.2, ND-DP > 0.2, or
  ND and DT both < -0.9).  Error = max(0, max(ND, min(DT, DP)) - actual) with actual =
  min(DT, DP) if the engine doubles, else ND.
* Cube, taker side: only where the reference doubles; skipped when |DT-DP| < 0.001 unless the
  reference says beaver.  Error = max(0, actual - min(DT, DP)), actual = DT if the engine
  takes, else DP.  Each cube side is its own decision.

Equities are normalised to the cube value (as bgsage writes them).
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass
from typing import Iterable

from .benchmark import ROLLOUT_LEVEL, Board, Reference

BLUNDER = 0.08
SPREAD_MIN = 0.001
PR_SCALE = 500.0
ERROR_RATE_SCALE = 1000.0


@dataclass
class Scored:
    """One scored (or skipped / mismatched) decision side.

    ``side``: ``checker``, ``double`` or ``take``.  ``status``: ``scored``, ``trivial``,
    ``mismatch`` (chosen move not in the reference), ``no_reference``, ``not_applicable``
    (taker side where the reference does not double).  ``grade``: the reference level of the
    value the error uses (``Rollout``, ``3-ply``, ...).
    """

    index: int
    side: str
    status: str
    error: float = 0.0
    best_equity: float | None = None
    chosen_equity: float | None = None
    action: str = ""
    grade: str = ""
    reference_grade: bool = True
    ms: float = 0.0

    @property
    def counted(self) -> bool:
        return self.status == "scored"


def _is_reference_grade(ref: Reference, level: str) -> bool:
    return level == ref.level


def score_checker(ref: Reference, chosen: Board, index: int = 0, n_legal: int | None = None) -> Scored:
    """Score a chosen post-move board (mover's view) against a checker reference.

    ``n_legal`` is the number of distinct legal moves (defaults to the reference's candidate
    count, which is every legal move in bgsage's files).
    """
    n = len(ref.moves) if n_legal is None else n_legal
    grade_moves = [m for m in ref.moves if _is_reference_grade(ref, m.eval_level)] or ref.moves
    best = max(m.equity for m in grade_moves)
    worst = min(m.equity for m in ref.moves)
    if n < 2 or best - worst < SPREAD_MIN:
        return Scored(index, "checker", "trivial", best_equity=best)
    chosen = tuple(int(x) for x in chosen)
    match = next((m for m in ref.moves if tuple(m.board) == chosen), None)
    if match is None:
        return Scored(index, "checker", "mismatch", best_equity=best, action=board_text(chosen))
    return Scored(
        index, "checker", "scored", error=max(0.0, best - match.equity), best_equity=best,
        chosen_equity=match.equity, action=board_text(chosen), grade=match.eval_level,
        reference_grade=_is_reference_grade(ref, match.eval_level),
    )


def doubler_trivial(nd: float, dt: float, dp: float) -> bool:
    """The doc's trivial doubler-side cube decisions."""
    return abs(nd - dt) < SPREAD_MIN or nd - dt > 0.2 or nd - dp > 0.2 or (nd < -0.9 and dt < -0.9)


def score_cube(ref: Reference, double: bool, take: bool, index: int = 0) -> list[Scored]:
    """Score an engine's cube action: a doubler-side entry and a taker-side entry."""
    nd, dt, dp = ref.equity_nd, ref.equity_dt, ref.equity_dp
    level = ref.level
    out: list[Scored] = []
    best = max(nd, min(dt, dp))
    if doubler_trivial(nd, dt, dp):
        out.append(Scored(index, "double", "trivial", best_equity=best, action=_yn(double, "double")))
    else:
        actual = min(dt, dp) if double else nd
        out.append(Scored(index, "double", "scored", error=max(0.0, best - actual), best_equity=best,
                          chosen_equity=actual, action=_yn(double, "double"), grade=level))
    ref_doubles = ref.should_double_ref if ref.should_double_ref is not None else min(dt, dp) > nd
    if not ref_doubles:
        out.append(Scored(index, "take", "not_applicable", action=_yn(take, "take")))
    elif abs(dt - dp) < SPREAD_MIN and not ref.is_beaver:
        out.append(Scored(index, "take", "trivial", best_equity=min(dt, dp), action=_yn(take, "take")))
    else:
        actual = dt if take else dp
        out.append(Scored(index, "take", "scored", error=max(0.0, actual - min(dt, dp)),
                          best_equity=min(dt, dp), chosen_equity=actual, action=_yn(take, "take"), grade=level))
    return out


def _yn(flag: bool, word: str) -> str:
    return word if flag else f"no {word}"


def board_text(board: Iterable[int]) -> str:
    return " ".join(str(int(x)) for x in board)


@dataclass
class Summary:
    """Totals of a scored run (one engine on one benchmark)."""

    decisions: int = 0            # scored decision sides
    checker: int = 0
    cube: int = 0
    total_error: float = 0.0
    checker_error: float = 0.0
    cube_error: float = 0.0
    blunders: int = 0
    mismatches: int = 0
    trivial: int = 0
    no_reference: int = 0
    rollout_grade: int = 0        # scored decisions whose chosen value is rollout grade
    filter_grade: int = 0         # scored decisions whose chosen value is below reference grade
    seconds: float = 0.0
    timed: int = 0                # engine calls timed

    @property
    def pr(self) -> float:
        """Mean error x 500 (XG / Open Sage PR)."""
        return PR_SCALE * self.total_error / self.decisions if self.decisions else float("nan")

    @property
    def checker_pr(self) -> float:
        return PR_SCALE * self.checker_error / self.checker if self.checker else float("nan")

    @property
    def cube_pr(self) -> float:
        return PR_SCALE * self.cube_error / self.cube if self.cube else float("nan")

    @property
    def error_rate(self) -> float:
        """gnubg's convention: mean error x 1000."""
        return ERROR_RATE_SCALE * self.total_error / self.decisions if self.decisions else float("nan")

    @property
    def rollout_share(self) -> float:
        return self.rollout_grade / self.decisions if self.decisions else float("nan")

    @property
    def ms_per_decision(self) -> float:
        return 1000.0 * self.seconds / self.timed if self.timed else float("nan")


def summarize(rows: Iterable[Scored]) -> Summary:
    s = Summary()
    for r in rows:
        if r.status == "mismatch":
            s.mismatches += 1
        elif r.status == "trivial":
            s.trivial += 1
        elif r.status == "no_reference":
            s.no_reference += 1
        if r.side in ("checker", "double"):  # one engine call per decision
            s.timed += 1
            s.seconds += r.ms / 1000.0
        if not r.counted:
            continue
        s.decisions += 1
        s.total_error += r.error
        if r.side == "checker":
            s.checker += 1
            s.checker_error += r.error
        else:
            s.cube += 1
            s.cube_error += r.error
        if r.error > BLUNDER:
            s.blunders += 1
        if r.grade == ROLLOUT_LEVEL:
            s.rollout_grade += 1
        if not r.reference_grade:
            s.filter_grade += 1
    return s


@dataclass
class Paired:
    """One engine's PR minus another's on the decisions both scored (the same decisions, so the
    decision-to-decision spread cancels): ``diff`` in PR units (error x 500), ``se`` its standard
    error over the ``n`` shared decision sides, ``changed`` how many of them differ in error."""

    diff: float
    se: float
    n: int
    changed: int


def paired(first: Iterable[Scored], other: Iterable[Scored], kind: str) -> Paired:
    """``other``'s PR minus ``first``'s over the decision sides of ``kind`` (``checker`` or
    ``cube``: doubler and taker sides) that both scored; ``ValueError`` for another kind.
    NaN difference and error when none is shared, NaN error for one."""
    if kind not in ("checker", "cube"):
        raise ValueError(f"kind: checker or cube, got {kind!r}")

    def errors(rows):
        return {(r.index, r.side): r.error for r in rows
                if r.counted and (r.side == "checker") == (kind == "checker")}

    a, b = errors(first), errors(other)
    d = [PR_SCALE * (b[k] - a[k]) for k in a if k in b]
    n = len(d)
    if n == 0:
        return Paired(float("nan"), float("nan"), 0, 0)
    mean = sum(d) / n
    se = (sum((x - mean) ** 2 for x in d) / (n - 1) / n) ** 0.5 if n > 1 else float("nan")
    return Paired(mean, se, n, sum(1 for x in d if x != 0.0))


CSV_FIELDS = ["engine", "index", "side", "status", "error", "best_equity", "chosen_equity",
              "action", "grade", "reference_grade", "ms"]


def write_csv(path, rows_by_engine: dict[str, list[Scored]]) -> None:
    """Per-decision CSV (one row per decision side per engine) for drill-down."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        w.writeheader()
        for engine, rows in rows_by_engine.items():
            for r in rows:
                d = asdict(r)
                d["engine"] = engine
                for k in ("error", "best_equity", "chosen_equity"):
                    if isinstance(d[k], float):
                        d[k] = f"{d[k]:.6f}"
                d["ms"] = f"{d['ms']:.2f}"
                w.writerow({k: d[k] for k in CSV_FIELDS})


def rate(decisions, references, engine, *, limit: int | None = None, on_step=None, completer=None) -> list[Scored]:
    """Ask ``engine`` every decision and score its answers against ``references``.

    ``decisions``/``references`` are parallel lists (:func:`benchmark.load_set`); ``limit``
    takes the first N decisions; ``on_step()`` is called after each decision (progress bars);
    ``completer(index, reference, chosen_board) -> bool`` may add a reference-grade value for a
    mismatched or filter-grade choice to the reference, after which the choice is rescored.
    Engine wall time per decision is kept in :attr:`Scored.ms`.
    """
    import time

    from .engines import legal_move_count

    rows: list[Scored] = []
    items = list(zip(decisions, references))[: limit if limit is not None else None]
    for i, (d, ref) in enumerate(items):
        if ref is None:
            rows.append(Scored(i, "checker" if d.kind == "checker" else "double", "no_reference"))
        elif d.kind == "checker":
            n_legal = legal_move_count(d.board, d.dice)
            if n_legal < 2:
                rows.append(Scored(i, "checker", "trivial"))
            else:
                t0 = time.perf_counter()
                chosen = engine.choose_checker(d.board, d.dice, d.cube_value, d.cube_owner)
                ms = 1000.0 * (time.perf_counter() - t0)
                row = score_checker(ref, chosen, i, n_legal)
                if completer is not None and (row.status == "mismatch" or (row.counted and not row.reference_grade)):
                    if completer(i, ref, chosen):
                        row = score_checker(ref, chosen, i, n_legal)
                row.ms = ms
                rows.append(row)
        else:
            t0 = time.perf_counter()
            double, take = engine.cube_decision(d.board, d.cube_value, d.cube_owner)
            ms = 1000.0 * (time.perf_counter() - t0)
            pair = score_cube(ref, double, take, i)
            pair[0].ms = ms
            rows.extend(pair)
        if on_step is not None:
            on_step()
    return rows
