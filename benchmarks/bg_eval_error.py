"""How far an evaluator's raw values of sibling plays are from a reference, by game plan.

Usage: ``.venv/bin/python benchmarks/bg_eval_error.py [REF_DIR] [--evaluator NAME ...]``
(evaluators by :func:`playout.backgammon.evaluators.get_evaluator` name or ``.npz`` path;
default ``net`` and ``gnubg``; reference set A by default).

For every checker decision of ``REF_DIR/rollout.jsonl`` and every candidate play the reference
values (its ``cubeless_equity`` and five ``probs``, the mover's, post-move), the evaluator values
the post-move board (flipped to the opponent on roll, probabilities inverted back).  The error
``e`` (evaluator minus reference, cubeless equity) of a decision's candidates splits in two:

* ``bias``: their mean, the same for every candidate -- it cannot change the choice;
* ``rel``: the mean of ``|e - bias|``, the part that reorders sibling plays: what a 1-ply
  player's checker PR pays for.

``rel`` is also given per probability (win, gammon, backgammon, lose gammon, lose backgammon).
Per plan (the record's ``game_plan``): the decisions, mean ``|e|``, mean ``rel``, mean ``bias``.
On reference set A the reference is bgsage's 3-ply, not a rollout: a net of bgsage's lineage
may share its biases.  ``pubeval`` gives a score, not probabilities: its rows are not comparable.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from playout.backgammon import benchmark as B
from playout.backgammon.board import flip
from playout.backgammon.evaluators import equity, get_evaluator, invert_probs

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"
PLANS = ("priming", "attacking", "anchoring", "racing", "purerace")


def post_move_probs(evaluator, boards) -> np.ndarray:
    """(n, 5) mover's probabilities of post-move boards (n, 26)."""
    pre = np.array([flip(np.asarray(b, np.int8)) for b in boards])
    return np.array([invert_probs(p) for p in evaluator.evaluate(pre)])


def errors(evaluator, records) -> dict[str, list]:
    """plan -> [(mean |e|, rel, bias, rel per probability (5,))] over checker decisions."""
    out: dict[str, list] = defaultdict(list)
    for r in records:
        moves = [m for m in r.get("moves", ()) if m.get("cubeless_equity") is not None and m.get("probs")]
        if r.get("kind") != "checker" or len(moves) < 2:
            continue
        ref = np.array([m["cubeless_equity"] for m in moves])
        ref_p = np.array([m["probs"] for m in moves])
        p = post_move_probs(evaluator, [m["board"] for m in moves])
        e = np.array([equity(x) for x in p]) - ref
        dp = p - ref_p
        row = (np.abs(e).mean(), np.abs(e - e.mean()).mean(), e.mean(), np.abs(dp - dp.mean(0)).mean(0))
        out[r.get("game_plan") or "?"].append(row)
        out["all"].append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref", nargs="?", default=str(REF_A))
    ap.add_argument("--evaluator", action="append", help="net, gnubg, bgsage, pubeval or a .npz (repeatable)")
    a = ap.parse_args()
    _, rpath = B.find_files(a.ref)
    records = [json.loads(line) for line in rpath.read_text().splitlines() if line.strip()]
    for name in a.evaluator or ["net", "gnubg"]:
        res = errors(get_evaluator(name), records)
        print(f"{name}: {a.ref} checker decisions, cubeless equity against the reference")
        print(f"  {'plan':<10}{'n':>5}{'|e|':>9}{'rel':>9}{'bias':>9}   rel per probability (w g bg lg lbg)")
        for plan in [p for p in PLANS if p in res] + sorted(set(res) - set(PLANS) - {"all"}) + ["all"]:
            rows = res[plan]
            comp = np.mean([x[3] for x in rows], axis=0)
            print(f"  {plan:<10}{len(rows):>5}{np.mean([x[0] for x in rows]):>9.4f}{np.mean([x[1] for x in rows]):>9.4f}"
                  f"{np.mean([x[2] for x in rows]):>+9.4f}   " + " ".join(f"{c:.4f}" for c in comp))


if __name__ == "__main__":
    main()
