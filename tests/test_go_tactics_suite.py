"""``benchmarks/go_tactics_suite.py``: the life-and-death suite built from our match games with GNU
Go 3.8's ``dragon_status`` as judge (issue 18, session 34)."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
from pathlib import Path

import pytest

from playout.go.gtp_client import GNUGO

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "go_tactics_suite.py"
MATCH = ROOT / "data" / "go" / "match-tunedprior" / "tunedprior-p5000.jsonl.xz"
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="gnugo (GNU Go 3.8) is not installed")


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


@needs_gnugo
def test_build_resume_and_judge(tmp_path):
    """Game 10 of the 5,000-playout match: at move 30 (Black, ours, to move) GNU Go calls Black's
    three-stone dragon at E7 critical with E5 as both attack and defence; it is the game's one
    such position. A second build adds nothing; GNU Go's own point solves it; the engine's
    choice is judged and reported per row."""
    with lzma.open(MATCH, "rt") as f:
        rec = next(json.loads(ln) for ln in f if json.loads(ln)["key"].endswith("-7.0-10"))
    games = tmp_path / "g10.jsonl"
    games.write_text(json.dumps(rec) + "\n")
    suite = tmp_path / "suite.jsonl"
    _run("build", str(games), "--out", str(suite))
    rows = [json.loads(ln) for ln in suite.read_text().splitlines()]
    assert [(len(r["moves"]), r["to_move"], r["dragon"], r["owner"], r["stones"], r["attack"],
             r["defend"]) for r in rows] == [(30, "b", "E7", "b", 3, "E5", "E5")]
    _run("build", str(games), "--out", str(suite))  # resumed: the game is done
    assert len(suite.read_text().splitlines()) == 1
    res = json.loads(_run("score", str(suite), "--gnugo-move"))
    assert (res["solved"], res["positions"], res["defence"], res["attack"]) == (1, 1, "1/1", "0/0")
    out = tmp_path / "ours.json"
    res = json.loads(_run("score", str(suite), "--playouts", "300", "--out", str(out)))
    row = json.loads(out.read_text())["rows"][0]
    assert res["positions"] == 1 and res["solved"] == int(row["solved"])
    assert row["solved"] == (row["status"] == "alive")  # our own dragon: alive after our move
    res2 = json.loads(_run("score", str(suite), "--playouts", "300", "--baseline", str(out)))
    assert res2["paired_difference"] == 0.0  # same seed, same move


def test_forced_values_gnugos_point_with_our_search(tmp_path):
    """``forced`` on the suite's first row marked unsolved: our move (the one ``score`` played with
    the same seed) and its root win rate, and the win rate after GNU Go's point, both in [0, 1];
    no GNU Go is needed."""
    suite = ROOT / "data" / "go" / "tactics-suite" / "suite.jsonl"
    first = json.loads(suite.read_text().splitlines()[0])
    scored = tmp_path / "scored.json"
    scored.write_text(json.dumps({"rows": [{"i": 0, "move": "D1", "status": "critical", "solved": False}]}))
    out = tmp_path / "forced.json"
    lines = _run("forced", str(suite), "--rows", str(scored), "--playouts", "400", "--out", str(out))
    got = json.loads(out.read_text())
    row = got["rows"][0]
    assert json.loads(lines.splitlines()[0]) == row
    assert row["i"] == 0 and row["gnugo"] == first["defend"] and row["task"] == "save"
    assert 0.0 <= row["ours_winrate"] <= 1.0 and 0.0 <= row["gnugo_forced_winrate"] <= 1.0
    s = got["summary"]
    assert s["misses"] == 1 and s["playouts"] == 400
    assert s["ours_minus_forced_mean"] == pytest.approx(row["ours_winrate"] - row["gnugo_forced_winrate"], abs=1e-4)


@needs_gnugo
def test_playoff_plays_both_moves_out_against_gnugo_and_resumes(tmp_path):
    """``playoff`` on one unsolved row: two games (our move, GNU Go's point), each finished
    against GNU Go and scored by its ``final_score`` (or a resignation); a second run resumes and
    plays nothing."""
    suite = ROOT / "data" / "go" / "tactics-suite" / "suite.jsonl"
    first = json.loads(suite.read_text().splitlines()[0])
    scored = tmp_path / "scored.json"
    scored.write_text(json.dumps({"rows": [{"i": 0, "move": "D1", "status": "critical", "solved": False}]}))
    out = tmp_path / "po.jsonl"
    args = ("playoff", str(suite), "--rows", str(scored), "--playouts", "300", "--out", str(out))
    summary = json.loads(_run(*args).splitlines()[-1])
    games = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [(g["arm"], g["first"]) for g in games] == [("ours", "D1"), ("gnugo", first["defend"])]
    for g in games:
        assert g["result"] in (0.0, 0.5, 1.0) and g["moves"] >= 1
        assert g["end"] in ("we resigned", "GNU Go resigned") or g["end"][:2] in ("B+", "W+", "0")
    assert summary["positions"] == 1
    assert summary["gnugo_minus_ours"] == games[1]["result"] - games[0]["result"]
    assert _run(*args).splitlines() == [json.dumps(summary)]  # resumed: nothing left to play
    assert len(out.read_text().splitlines()) == 2
