"""Quality on real input: compiled MCTS keeps the exact value of Pons' Connect 4 endgames."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from playout.cli.bench import bench, connect4_quality

L3 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "Test_L3_R1"


@pytest.fixture(scope="module")
def l3() -> Path:
    if not L3.exists():
        pytest.skip(f"shared data missing: {L3}")
    return L3


def test_mcts_10000_iterations_keeps_value_on_40_positions(l3):
    res = connect4_quality(l3, iterations=10_000, every=25)  # 40 positions spread over the file
    assert res["positions"] == 40
    assert res["solver_mismatches"] == 0
    assert res["share_keeps_value"] >= 0.85, res["failures"]


def test_weak_search_loses_value_sometimes(l3):
    # the metric can fail: one iteration per move is a random pick
    res = connect4_quality(l3, iterations=1, every=25)
    assert res["share_keeps_value"] < 0.85


def test_cli_quality_json_and_bad_file(l3, tmp_path):
    runner = CliRunner()
    out = runner.invoke(bench, ["connect4-quality", "--limit", "5", "--iterations", "2000", "--json",
                                "--file", str(l3)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["positions"] == 5 and 0 <= data["keeps_value"] <= 5
    bad = tmp_path / "bad"
    bad.write_text("4455 3\n12x 0\n")
    out = runner.invoke(bench, ["connect4-quality", "--file", str(bad)])
    assert out.exit_code == 2
    assert "bad:2" in out.output and "Traceback" not in out.output
    out = runner.invoke(bench, ["connect4-quality", "--file", str(tmp_path / "missing")])
    assert out.exit_code == 2
