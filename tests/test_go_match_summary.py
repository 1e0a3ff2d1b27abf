"""``benchmarks/go_match_summary.py --baseline``: the other match's score on the same game
numbers, and the paired difference (issue 18 A/B matches share seeds per game number)."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "go_match_summary.py"


def _rec(name: str, g: int, a_won, a_black: bool, result: str) -> dict:
    return {"key": f"{name}-vs-gnugo-9-7.0-{g}", "a_black": a_black, "a_won": a_won,
            "result": result, "n_moves": 40, "seconds": 10.0, "seconds_per_move": [0.2, 0.4]}


def test_baseline_same_games(tmp_path):
    new = [_rec("new", 0, True, True, "B+2.0"), _rec("new", 1, False, False, "B+Resign"),
           _rec("new", 2, 0.5, True, "0"), _rec("new", 3, True, False, "W+4.0")]
    new.append({"key": "new-vs-gnugo-9-7.0-4", "unfinished": True, "a_won": None})
    base = [_rec("old", g, w, g % 2 == 0, "B+1.0") for g, w in
            ((0, False), (1, False), (2, True), (5, True))]
    a = tmp_path / "new.jsonl"
    a.write_text("".join(json.dumps(r) + "\n" for r in new))
    b = tmp_path / "old.jsonl.xz"
    b.write_bytes(lzma.compress("".join(json.dumps(r) + "\n" for r in base).encode()))
    out = subprocess.run([sys.executable, str(SCRIPT), str(a), "--baseline", str(b)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert s["games"] == 4 and s["a_score"] == 2.5
    same = s["baseline_same_games"]
    # games 0, 1, 2 in both: new 1 + 0 + 0.5, old 0 + 0 + 1; differences +1, 0, -0.5
    assert same["games"] == 3 and same["a_score"] == 1.5 and same["baseline_a_score"] == 1.0
    assert same["paired_difference"] == round(0.5 / 3, 4)
    # sd of (1, 0, -0.5) = sqrt(((5/6)^2 + (1/6)^2 + (2/3)^2) / 2) = sqrt(7/12)
    assert same["paired_halfwidth95"] == round(1.96 * (7 / 12) ** 0.5 / 3 ** 0.5, 4)
    missing = subprocess.run([sys.executable, str(SCRIPT), str(a), "--baseline",
                              str(tmp_path / "none.jsonl")], capture_output=True, text=True,
                             timeout=60)
    assert missing.returncode == 1 and missing.stderr.strip() == f"{tmp_path / 'none.jsonl'}: no such match file"
