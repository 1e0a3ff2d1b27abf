"""`playout bench` commands: output shape and user errors (no timing assertions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from playout.cli import main

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"


def test_decision_time_json_has_every_domain():
    out = CliRunner().invoke(main, ["bench", "decision-time", "--json", "--repeats", "1", "--no-peers",
                                    "--no-startup"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    for name in ("gridworld", "push_your_luck", "twenty48", "connect4", "reversi"):
        assert data[name]["median_ms"] > 0
        assert "mctreesearch4j_ms" not in data[name]  # a published figure, named so
        assert data[name]["mctreesearch4j_published_ms"] > 0
    assert data["twenty48"]["our_rule_median_ms"] > 0
    assert data["peers"] == {}
    assert data["gridworld"]["target_ms"] == 1.4 and data["connect4"]["target_ms"] is None


def test_connect4_solver_command_on_a_slice():
    if not (DATA / "Test_L3_R1").exists():
        pytest.skip("shared data missing")
    out = CliRunner().invoke(main, ["bench", "connect4-solver", "--file", str(DATA / "Test_L3_R1"),
                                    "--limit", "50", "--json"])
    assert out.exit_code == 0, out.output
    (row,) = json.loads(out.stdout)
    assert row["positions"] == 50 and row["mismatches"] == 0


def test_connect4_solver_command_bad_line(tmp_path):
    bad = tmp_path / "scores"
    bad.write_text("4455 3\n4455 x\n")
    out = CliRunner().invoke(main, ["bench", "connect4-solver", "--file", str(bad)])
    assert out.exit_code == 2
    assert "scores:2" in out.output
