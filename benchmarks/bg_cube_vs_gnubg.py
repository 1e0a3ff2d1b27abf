"""Money cube decisions of engines, judged by gnubg on its own self-play positions (paired).

Usage: ``.venv/bin/python benchmarks/bg_cube_vs_gnubg.py [--positions N] [--states centred,owned]
[--ids FILE | --holdout-of DIR] [--only-close CSV] [--csv FILE] ENGINE...`` (engine specs as ``playout bg pr --engine``, e.g. ``ours:ply=1``,
``ours:ply=1,cubeweights=src/playout/backgammon/data/net_cube128_g17ro.npz``, ``bgsage:ply=1``).

Reference set A has 53 cube decisions, so two cube models' cube PR there differs by several
points of noise.  This judge is a larger, paired sample: every position of
``../shared/data/backgammon/gnubg_selfplay_position_ids.txt`` (pre-roll, the side to act, money
play) with the cube centred and, with ``--states centred,owned``, owned by the side to act at 2.
The judge is gnubg's raw net one roll deeper (:meth:`GnubgEngine.cube_equities` at ``ply`` 0:
ND = the mean over the 36 rolls of gnubg's best play's cubeful equity with the cube as it is,
DT = 2 x the same with the opponent owning the doubled cube, DP = 1, per unit of the present
cube), the level at which gnubg scored cube PR 0.00 on A.

A second sample never trained on: ``--holdout-of data/bg/ro-g16/bg-ro72t11-c4-g16s26 --positions
3000`` (the held-out tenth of our own rollout-labelled self-play positions, contact only; the
cube networks fitted to that folder never saw them).  ``--only-close CSV`` judges only the
decisions an earlier run's ``--csv`` marked close (for slow engines).

Errors, in the judge's equity per unit of the present cube (XG's and gnubg's definition): the
doubler's error = the better of ND and min(DT, DP) minus the value of its choice (double:
min(DT, DP), the opponent answering rightly; no double: ND); the taker's error, on the
decisions where the judge calls it a double (min(DT, DP) > ND), = |DT - DP| when the take/pass
answer is the wrong one.  Printed per engine: the summed error x 500 over the judge's *close*
decisions (ND within 0.25 of min(DT, DP), or an engine doubles, or the judge doubles), i.e. a
cube PR, and the paired difference to the first engine with its standard error and ``z``.

gnubg judges; it labels nothing we train on (PyPI ``gnubg``, an optional extra).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from playout.backgammon.board import game_result
from playout.backgammon.engines import GnubgEngine, make_engine
from playout.backgammon.ids import board_from_position_id

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
#: a decision is "close" (counted in the PR's denominator) when ND is within this of min(DT, DP)
CLOSE = 0.25


def errors(nd: float, dt: float, dp: float, double: bool, take: bool) -> tuple[float, float]:
    """(doubler's error, taker's error) of an action against the judge's ND, DT, DP."""
    dv = min(dt, dp)
    e_double = max(nd, dv) - (dv if double else nd)
    e_take = 0.0
    if dv > nd and take != (dt <= dp):
        e_take = abs(dt - dp)
    return e_double, e_take


def holdout_ids(folder: Path) -> list[str]:
    """Position IDs of the held-out tenth (:func:`playout.backgammon.data.is_holdout`) of a data
    folder's contact boards, in a fixed shuffled order (``default_rng(35)``): positions a network
    fitted to that folder never trained on."""
    from playout.backgammon import data as D
    from playout.backgammon.board import is_race
    from playout.backgammon.ids import position_id

    held = (np.asarray(r["board"], dtype=np.int8) for k, r in D.load([folder]).items()
            if D.is_holdout(k))
    ids = [position_id(b) for b in held if not is_race(b)]
    np.random.default_rng(35).shuffle(ids)
    return ids


def judge(engines, ids: list[str], states: list[str], only: set | None = None) -> list[tuple]:
    """One row per decision: (position ID, state, ND, DT, DP, close, [(double, take)] per
    engine, [(doubler's error, taker's error)] per engine); ``states`` of ``centred``/``owned``;
    ``only``: a set of (position ID, state) to judge, the others skipped."""
    judge_engine = GnubgEngine(0)
    cube_states = [("centred", 1, "centered") if s == "centred" else ("owned", 2, "player")
                   for s in states]
    rows = []
    t0 = time.perf_counter()
    for k, pid in enumerate(ids):
        b = board_from_position_id(pid)
        if game_result(b):
            continue
        b26 = tuple(int(x) for x in b)
        for state, value, owner in cube_states:
            if only is not None and (pid, state) not in only:
                continue
            nd, dt, dp = judge_engine.cube_equities(b26, value, owner)
            acts = [e.cube_decision(b26, value, owner) for e in engines]
            errs = [errors(nd, dt, dp, d, t) for d, t in acts]
            close = abs(nd - min(dt, dp)) < CLOSE or min(dt, dp) > nd or any(d for d, _ in acts)
            rows.append((pid, state, nd, dt, dp, close, acts, errs))
        if (k + 1) % 500 == 0:
            print(f"  {k + 1}/{len(ids)} positions, {time.perf_counter() - t0:.0f} s", flush=True)
    return rows


def report(rows: list[tuple], names: list[str], states: str, seconds: float) -> None:
    """Print each engine's cube PR over the close decisions and its paired difference to the
    first engine's."""
    close = np.array([r[5] for r in rows])
    E = np.array([[sum(e) for e in r[7]] for r in rows])[close] * 500.0
    n = len(E)
    print(f"{len(rows)} cube decisions ({states}), {n} close (ND within {CLOSE} of "
          f"min(DT, DP), or a double by the judge or an engine); judge gnubg 0-ply one roll deeper; "
          f"PR = summed error x 500 / close decisions; {seconds:.0f} s")
    for i in range(len(names)):
        dd = E[:, i] - E[:, 0]
        se = dd.std() / np.sqrt(n)
        wrong = int((E[:, i] > 0).sum())
        print(f"{names[i]:60s} cube PR {E[:, i].mean():7.3f} +- {E[:, i].std() / np.sqrt(n):.3f}"
              f"  wrong {wrong:4d}   minus first {dd.mean():+7.3f} +- {se:.3f}  "
              f"z {dd.mean() / max(se, 1e-12):+.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--positions", type=int, default=0, help="the first N position IDs (0: all)")
    ap.add_argument("--ids", help="a file of gnubg position IDs (whitespace-separated) instead of "
                                  "gnubg's self-play positions")
    ap.add_argument("--holdout-of", metavar="DIR",
                    help="instead: the held-out contact boards (data.is_holdout) of a bg data folder, "
                         "shuffled with numpy default_rng(35); with --positions N the first N")
    ap.add_argument("--states", default="centred", help="centred and/or owned (the side to act owns 2)")
    ap.add_argument("--only-close", metavar="CSV",
                    help="judge only the decisions marked close in an earlier run's --csv (slow engines)")
    ap.add_argument("--csv", help="write one row per decision (judge's ND/DT/DP, each engine's action)")
    args = ap.parse_args()
    engines = [make_engine(s) for s in args.engines]
    if args.holdout_of:
        ids = holdout_ids(Path(args.holdout_of))
    else:
        ids = Path(args.ids or SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    if args.positions:
        ids = ids[: args.positions]
    only = None
    if args.only_close:
        with open(args.only_close, newline="") as f:
            only = {(r["position_id"], r["state"]) for r in csv.DictReader(f) if r["close"] == "1"}
    t0 = time.perf_counter()
    rows = judge(engines, ids, args.states.split(","), only)
    report(rows, args.engines, args.states, time.perf_counter() - t0)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["position_id", "state", "nd", "dt", "dp", "close"]
                       + [f"{s}:{c}" for s in args.engines for c in ("double", "take", "err_double", "err_take")])
            for pid, state, nd, dt, dp, cl, acts, errs in rows:
                w.writerow([pid, state, f"{nd:.5f}", f"{dt:.5f}", f"{dp:.5f}", int(cl)]
                           + [x for (d, t), (ed, et) in zip(acts, errs)
                              for x in (int(d), int(t), f"{ed:.5f}", f"{et:.5f}")])


if __name__ == "__main__":
    main()
