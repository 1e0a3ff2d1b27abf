"""``benchmarks/bg_cube_vs_gnubg.py``: money cube decisions judged by gnubg one roll deeper on its
own self-play positions (issue 14, session 35)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bg_cube_vs_gnubg as J  # noqa: E402


def test_errors_follow_xgs_definition():
    # a double, take (DT 0.6 < DP 1 and > ND 0.5): no double costs 0.1, a pass costs 0.4
    assert J.errors(0.5, 0.6, 1.0, True, True) == (0.0, 0.0)
    assert J.errors(0.5, 0.6, 1.0, False, True) == pytest.approx((0.1, 0.0))
    assert J.errors(0.5, 0.6, 1.0, True, False) == pytest.approx((0.0, 0.4))
    # too good to double (ND 1.05 > DP): doubling costs 0.05, the take answer is not rated
    assert J.errors(1.05, 1.4, 1.0, True, True) == pytest.approx((0.05, 0.0))
    # no double (ND 0.3 > DT 0.2): doubling costs 0.1; a wrong pass after it is not rated
    assert J.errors(0.3, 0.2, 1.0, True, False) == pytest.approx((0.1, 0.0))


def test_the_judge_rates_itself_perfect_and_our_engine_not_worse_than_zero(gnubg, tmp_path):
    from playout.backgammon.engines import GnubgEngine, make_engine

    ids = J.SHARED.joinpath("gnubg_selfplay_position_ids.txt").read_text().split()[:40]
    rows = J.judge([GnubgEngine(0), make_engine("ours:ply=1")], ids, ["centred", "owned"])
    assert len(rows) == 80
    assert all(r[7][0] == (0.0, 0.0) for r in rows)  # the judge's own action costs nothing
    assert all(min(e) >= 0.0 for r in rows for e in r[7])
    assert any(r[5] for r in rows) and not all(r[5] for r in rows)  # some decisions are close
    out = tmp_path / "cube.csv"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bg_cube_vs_gnubg.py"), "--positions",
                    "20", "--csv", str(out), "ours:ply=1"], check=True, capture_output=True, timeout=300)
    with open(out, newline="") as f:
        got = list(csv.DictReader(f))
    assert len(got) == 20 and {r["state"] for r in got} == {"centred"}
    first = next(r for r in rows if r[1] == "centred")
    assert float(got[0]["nd"]) == pytest.approx(first[2], abs=1e-5)


def test_holdout_ids_are_held_out_contact_boards(tmp_path):
    import shutil

    import numpy as np

    from playout.backgammon import data as D
    from playout.backgammon.board import is_race
    from playout.backgammon.ids import board_from_position_id, position_id

    src = ROOT / "data" / "bg" / "ro-g16" / "bg-ro72t11-c4-g16s26"
    for name in ("shard-00000.npz", "shard-00001.npz"):
        shutil.copy(src / name, tmp_path / name)
    ids = J.holdout_ids(tmp_path)
    rows = D.load([tmp_path])
    held = {position_id(np.asarray(r["board"], dtype=np.int8)) for k, r in rows.items() if D.is_holdout(k)}
    assert 0 < len(ids) < len(rows) / 5
    assert set(ids) <= held
    assert not any(is_race(board_from_position_id(p)) for p in ids)
    assert ids == J.holdout_ids(tmp_path)  # a fixed order
