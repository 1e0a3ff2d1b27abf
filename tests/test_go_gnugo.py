"""GNU Go 3.8 as the referee: rules cross-check and a real GTP game through the match runner."""

from __future__ import annotations

import json

import pytest

from playout.go.match import GNUGO, GtpClient, crosscheck_gnugo, play_match
from playout.stats import wilson_interval as wilson

needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="gnugo (GNU Go 3.8) is not installed")


@needs_gnugo
@pytest.mark.parametrize("size,games", [(5, 6), (7, 5), (9, 6), (13, 3)])
def test_random_games_agree_with_gnugo(size, games):
    r = crosscheck_gnugo(games, size, seed=size)
    assert r["differences"] == []
    assert r["moves"] > games * size * size  # long games: captures, ko fights, refills
    assert r["legality_checks"] > r["moves"] * size


def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-3) and hi == pytest.approx(0.7634, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


@needs_gnugo
def test_match_runner_appends_and_resumes(tmp_path):
    out = tmp_path / "m.jsonl"
    a = f"{GNUGO} --mode gtp --level 0"
    s = play_match(a, a, 2, out, size=5, komi=0.5, names=("g0", "g0b"), log=lambda *_: None)
    assert s["games"] == 2
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and {json.loads(x)["a_black"] for x in lines} == {True, False}
    s2 = play_match(a, a, 2, out, size=5, komi=0.5, names=("g0", "g0b"), log=lambda *_: None)
    assert s2 == s and len(out.read_text().splitlines()) == 2  # nothing replayed


@needs_gnugo
def test_gtp_client_reports_errors():
    with GtpClient([GNUGO, "--mode", "gtp"]) as g:
        assert g.send("protocol_version") == "2"
        (ok, ans), = g.send_many(["play b Z99"])
        assert not ok and ans
