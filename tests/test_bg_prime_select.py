"""The prime rule of ``scripts/bg_label_primes.py``: which self-play positions get rollout labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from playout.backgammon.families import flip, longest_prime

ROOT = Path(__file__).resolve().parents[1]
A_ROLLOUTS = ROOT.parent / "shared" / "data" / "backgammon" / "reference" / "A" / "rollout.jsonl"
sys.path.insert(0, str(ROOT / "scripts"))
from bg_label_primes import is_prime_position, trapped_behind_prime  # noqa: E402

OPENING = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
# reference set A, cube decision 342 (rollout.jsonl; bgsage 3-ply: Double/Pass, 0.88 wins): our
# 6-prime on points 3-8 traps the opponent's blot on point 2, while its five-point board (19-23)
# holds our checker on the bar and one on 24: a prime-against-prime timing battle
A342 = [0, 0, -1, 2, 2, 2, 2, 2, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, -2, -3, -2, -3, -4, 1, 1]


@pytest.mark.skipif(not A_ROLLOUTS.exists(), reason="needs ../shared (reference set A)")
def test_a342_is_a_prime_position_from_either_side():
    assert json.loads(A_ROLLOUTS.read_text().splitlines()[342])["board"] == A342
    assert trapped_behind_prime(A342, 5) and trapped_behind_prime(A342, 6)
    assert not trapped_behind_prime(A342, 7)
    # the opponent's 5-prime (our points 19-23) holds our checkers on the bar and on 24
    assert trapped_behind_prime(flip(A342), 5) and not trapped_behind_prime(flip(A342), 6)
    assert is_prime_position(A342) and is_prime_position(flip(A342))


def _board(ours: dict, theirs: dict, their_bar: int = 0) -> list[int]:
    b = [0] * 26
    b[0] = their_bar
    for p, n in ours.items():
        b[p] = n
    for p, n in theirs.items():
        b[p] = -n
    assert sum(v for v in b[1:] if v > 0) == 15 and their_bar + sum(-v for v in b if v < 0) == 15
    return b


def test_a_prime_needs_a_checker_behind_it():
    ours = {4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 13: 3, 24: 2}  # a 5-prime on points 4-8
    b = _board(ours, {1: 2, 12: 5, 17: 3, 19: 5})  # two opponent checkers on point 1, behind it
    assert longest_prime(b, 1, 24) == (5, 4)
    assert trapped_behind_prime(b, 5) and not trapped_behind_prime(b, 6)
    assert is_prime_position(b)
    assert not trapped_behind_prime(_board(ours, {10: 2, 12: 5, 17: 3, 19: 5}), 5)  # escaped
    assert trapped_behind_prime(_board(ours, {10: 1, 12: 5, 17: 3, 19: 5}, their_bar=1), 5)
    assert not is_prime_position(OPENING)


def test_a_missing_shard_folder_is_a_one_line_error(tmp_path):
    r = subprocess.run([sys.executable, ROOT / "scripts" / "bg_label_primes.py",
                        tmp_path / "nowhere", "--out", tmp_path / "o.jsonl", "--n", "1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "nowhere" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
