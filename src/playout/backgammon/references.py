"""Reference values: rolling out a benchmark's decisions, and completing missing candidates.

* :func:`rollout_directory` rolls out every decision of ``<family> benchmark.txt`` that has no
  record in ``<family> rollout.jsonl`` yet, through :func:`playout.executor.run_tasks`
  (in-process, a local pool or Ray).  Each finished decision is appended to ``rollout.jsonl``
  at once (the executor's ``on_result``), and the executor's own journal
  (``<family> rollout.journal.jsonl``) holds every finished result too, so ``kill -9`` then a
  rerun loses no finished decision: the rerun first copies journal results missing from
  ``rollout.jsonl``, then rolls out only what is left.
* Rollouts use bgsage's rollout (PyPI ``bgsage``, ``eval_level="rollout"``): cubeful money
  with Jacoby and beaver, quasi-random stratified first rolls, variance reduction, candidates
  filtered bgsage's way (the top moves within 0.08 are rolled out; the rest keep their
  filter-grade value and say so in ``eval_level``).
* :func:`complete_move` computes a reference-grade value for one candidate under the record's
  own convention: N-ply with bgsage (``checker_play(force_boards=...)`` reproduces the
  reference file's 3-ply values exactly) or a bgsage rollout of the post-move position.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .benchmark import (
    FormatError, MoveReference, Reference, append_rollout, find_files, parse_decision, read_benchmark,
    read_rollout, reference_from_dict, write_rollout,
)


def _seed_of(key: str, seed: int) -> int:
    return int(hashlib.md5(f"{seed}:{key}".encode()).hexdigest()[:8], 16)


def _analyzer(trials: int, seed: int, decision_ply: int, truncation: int, late_ply: int = -1,
              late_threshold: int = 20):
    """bgsage's rollout analyzer; ``late_ply`` (-1 = none) from half-move ``late_threshold`` on
    (bgsage's own options: decision_ply 3, late_ply 2, late_threshold 3 is Open Sage's
    "3-ply for three half-moves, then 2-ply")."""
    import bgsage

    return bgsage.create_analyzer(
        "rollout", n_trials=trials, seed=seed, parallel_threads=1, decision_ply=decision_ply,
        truncation_depth=truncation, late_ply=late_ply, late_threshold=late_threshold,
    )


def rollout_task(task: dict) -> dict:
    """Executor task: roll out one decision; returns its ``rollout.jsonl`` record as a dict.

    Task fields: ``key``, ``line`` (the ``benchmark.txt`` line), ``trials``, ``seed``,
    ``decision_ply``, ``truncation``, optionally ``late_ply`` and ``late_threshold``.
    """
    d = parse_decision(task["line"])
    a = _analyzer(int(task["trials"]), _seed_of(task["key"], int(task["seed"])),
                  int(task.get("decision_ply", 1)), int(task.get("truncation", 0)),
                  int(task.get("late_ply", -1)), int(task.get("late_threshold", 20)))
    board = list(d.board)
    rec: dict = {"key": task["key"], "kind": d.kind, "board": board,
                 "dice": list(d.dice) if d.dice else None,
                 "cube_value": d.cube_value, "cube_owner": d.cube_owner, "n_trials": int(task["trials"])}
    if d.kind == "checker":
        res = a.checker_play(board, d.dice[0], d.dice[1], d.cube_value, d.cube_owner)
        rec["moves"] = [
            {"board": list(m.board), "equity": m.equity, "cubeless_equity": m.cubeless_equity,
             "probs": m.probs.to_list(), "eval_level": m.eval_level,
             "std_error": m.std_error if m.std_error is not None else 0.0}
            for m in res.moves
        ]
        if not rec["moves"]:
            rec["moves"] = [{"board": board, "equity": 0.0, "eval_level": "none"}]
    else:
        r = a.cube_action(board, d.cube_value, d.cube_owner)
        rec.update({
            "equity_nd": r.equity_nd, "equity_dt": r.equity_dt, "equity_dp": r.equity_dp,
            "probs": r.probs.to_list(), "should_double_ref": bool(r.should_double),
            "should_take_ref": bool(r.should_take), "is_beaver": bool(r.is_beaver),
            "optimal_action": r.optimal_action, "eval_level": "Rollout",
        })
    return rec


def _journal_path(rollout_path: Path) -> Path:
    return rollout_path.with_name(rollout_path.name.replace("rollout.jsonl", "rollout.journal.jsonl"))


def _repair_tail(path: Path) -> None:
    """Cut a torn last line (a writer killed mid-line) so appends start on a clean line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    with open(path, "r+b") as fh:
        fh.truncate(cut)


def rollout_directory(directory, *, trials: int = 1296, workers: int | None = None,
                      ray_address: str | None = None, seed: int = 1, decision_ply: int = 1,
                      truncation: int = 0, limit: int | None = None, late_ply: int = -1,
                      late_threshold: int = 0) -> int:
    """Roll out the decisions of a benchmark directory lacking a record; return how many ran.

    Trials play at ``decision_ply`` (XG numbering), from half-move ``late_threshold`` (from 0)
    on at ``late_ply`` when that is not -1 (bgsage's late evaluation).
    Raises :class:`FormatError` for a bad directory or file.
    """
    from playout.executor import load_results, run_tasks

    bpath, rpath = find_files(directory)
    decisions = read_benchmark(bpath).entries[: limit if limit is not None else None]
    _repair_tail(rpath)
    have = {r.match_key() for r in read_rollout(rpath)} if rpath.exists() else set()
    journal = _journal_path(rpath)
    setup = {"job": "bg rollout", "trials": trials, "seed": seed, "decision_ply": decision_ply,
             "truncation": truncation}
    late = {"late_ply": late_ply, "late_threshold": late_threshold} if late_ply != -1 else {}
    setup.update(late)  # absent at the default: journals written before stay valid
    # Recover results that reached the journal but not rollout.jsonl (killed in between).
    if journal.exists():
        for key, res in load_results(journal, setup).items():
            ref = reference_from_dict(res, journal)
            if ref.match_key() not in have:
                append_rollout(rpath, ref)
                have.add(ref.match_key())
    tasks, seen = [], set()
    for d in decisions:
        if d.match_key() in have or d.key in seen:
            continue
        seen.add(d.key)
        tasks.append({"key": d.key, "line": d.line(), "trials": trials, "seed": seed,
                      "decision_ply": decision_ply, "truncation": truncation, **late})
    if not tasks:
        return 0

    def on_result(task: dict, result: dict) -> None:
        append_rollout(rpath, reference_from_dict(result, rpath))

    run_tasks(rollout_task, tasks, out_path=journal, workers=workers, ray_address=ray_address,
              description=f"rollout {bpath.name}", setup=setup, on_result=on_result)
    return len(tasks)


# ---------------------------------------------------------------------------
# Completion of missing / filter-grade candidates
# ---------------------------------------------------------------------------


def _ply_of(level: str) -> int | None:
    if level.endswith("-ply") and level[:-4].isdigit():
        return int(level[:-4])
    return None


def complete_move(ref: Reference, chosen, *, trials: int | None = None, seed: int = 1) -> MoveReference:
    """A reference-grade value for ``chosen`` (post-move board) under ``ref``'s convention."""
    import bgsage

    level = ref.level
    board = [int(x) for x in chosen]
    ply = _ply_of(level)
    if ply is not None:
        a = bgsage.create_analyzer(f"{ply}ply", parallel_threads=1)
        res = a.checker_play(list(ref.board), ref.dice[0], ref.dice[1], ref.cube_value, ref.cube_owner,
                             force_boards=[board])
        m = next((m for m in res.moves if list(m.board) == board), None)
        if m is None:
            raise ValueError(f"move {board} is not legal in this decision")
        return MoveReference(tuple(board), m.equity, m.cubeless_equity, m.probs.to_list(), m.eval_level,
                             extra={"completed": True}, order=("board", "equity", "cubeless_equity", "probs", "eval_level", "completed"))
    n = trials or ref.n_trials or 1296
    a = _analyzer(n, _seed_of(json.dumps(board), seed), 1, 0)
    p = a.post_move_analytics(board, ref.cube_owner, ref.cube_value)
    return MoveReference(tuple(board), p.cubeful_equity, p.cubeless_equity, p.probs.to_list(), "Rollout",
                         std_error=p.cubeful_se if p.cubeful_se is not None else p.cubeless_se,
                         extra={"completed": True},
                         order=("board", "equity", "cubeless_equity", "probs", "eval_level", "std_error", "completed"))


class Completer:
    """``scoring.rate``'s completer: adds the value to the record and rewrites rollout.jsonl.

    Records from the reference file are rewritten whole (atomically) after each completion, so
    an interrupted run keeps every completion made so far.
    """

    def __init__(self, rollout_path, references: list[Reference | None], trials: int | None = None):
        self.path = Path(rollout_path)
        self.references = references
        self.trials = trials
        self.added = 0

    def __call__(self, index: int, ref: Reference, chosen) -> bool:
        mv = complete_move(ref, chosen, trials=self.trials)
        chosen = tuple(int(x) for x in chosen)
        ref.moves = [m for m in ref.moves if tuple(m.board) != chosen] + [mv]
        ref.moves.sort(key=lambda m: -m.equity)
        self.added += 1
        self._save()
        return True

    def _save(self) -> None:
        # Keep every record of the file (also those of decisions beyond --limit).
        old = read_rollout(self.path, tolerate_truncated_tail=True) if self.path.exists() else []
        mine = {r.match_key(): r for r in self.references if r is not None}
        out = [mine.pop(r.match_key(), r) for r in old] + list(mine.values())
        write_rollout(self.path, out)


__all__ = ["rollout_directory", "rollout_task", "complete_move", "Completer", "FormatError"]
