"""Rollouts at more than one ply (playout.backgammon.rollout_ply): schedules, plays, unbiased VR."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from playout.backgammon.board import STARTING_BOARD, flip
from playout.backgammon.cli import bg
from playout.backgammon.evaluators import NeuralNet
from playout.backgammon.luck import DEFAULT_KEEP
from playout.backgammon.rollout import rollout, rollout_trials
from playout.backgammon.rollout_ply import (
    describe_schedule,
    parse_schedule,
    play_at_ply,
    rollout_ply,
    trials_ply,
    value_at_ply,
)
from playout.backgammon.search import choose_move, post_move_probs, value_ply

START = "4HPwATDgc/ABMA"


def _midgame_boards():
    """Pre-roll boards reached from the start by 1-ply play with fixed rolls (contact positions)."""
    net = NeuralNet()
    b = STARTING_BOARD.copy()
    out = []
    for d in [(3, 1), (6, 4), (5, 2), (4, 4), (6, 1), (3, 2), (5, 5), (2, 1)]:
        b = flip(choose_move(b, d, net, 1).board)
        out.append(b.copy())
    return out[1::2]


def test_parse_schedule_forms_and_errors():
    assert parse_schedule("2") == (2,)
    assert parse_schedule("2:2") == (2, 2, 1)
    assert parse_schedule("3:3,2") == (3, 3, 3, 2)
    assert parse_schedule("1g:1, 1") == (2, 1)  # gnubg's 1-ply = our 2-ply
    assert describe_schedule((3, 3, 3, 2)) == "3-ply for half-moves 1-3, then 2-ply"
    assert describe_schedule((2, 1)) == "2-ply for half-move 1, then 1-ply"
    assert describe_schedule((1,)) == "1-ply throughout"
    for bad in ["", "x", "2,3", "3:0", "3:x", "5", "2:2,,1"]:
        with pytest.raises(ValueError, match="ply"):
            parse_schedule(bad)


@pytest.mark.parametrize("vr, keep", [(True, DEFAULT_KEEP), (True, 0), (False, DEFAULT_KEEP)])
def test_ply1_schedule_is_todays_rollout_exactly(vr, keep):
    net = NeuralNet()
    ref = np.zeros((40, 5))
    rollout_trials(*net.kernel_args(), STARTING_BOARD, 30, 40, 77, 8, vr, keep, ref)
    got = trials_ply(STARTING_BOARD, (1,), first=30, n=40, seed=77, truncate=8, vr=vr,
                     luck_keep=keep)
    assert np.array_equal(got, ref)


def test_ply1_driver_calls_todays_rollout():
    kw = dict(trials=36, chunk=18, workers=0, truncate=4, post_move=False, seed=3)
    a = rollout([STARTING_BOARD], **kw)[0]
    b = rollout_ply([STARTING_BOARD], ply="1", **kw)[0]
    assert b.pop("ply") == "1-ply throughout" and a == b


def test_value_at_ply_equals_search_value_ply():
    net = NeuralNet()
    for b, ply in [(STARTING_BOARD, 2), (_midgame_boards()[1], 2), (_midgame_boards()[2], 3)]:
        ref = np.zeros(5)
        value_ply(*net.kernel_args(), b, ply, ref)
        assert np.allclose(value_at_ply(b, ply), ref, atol=1e-9)


def test_play_at_ply2_is_choose_moves_choice():
    net = NeuralNet()
    rolls = [(a, c) for a in range(1, 7) for c in range(1, a + 1)]
    cases = [(b, d) for b in (STARTING_BOARD, _midgame_boards()[1]) for d in rolls]
    differs = 0
    for b, d in cases:
        want = choose_move(b, d, net, 2).board
        assert np.array_equal(play_at_ply(b, d, 2), want), d
        differs += not np.array_equal(choose_move(b, d, net, 1).board, want)
    assert differs >= 2  # 2-ply changes some plays (6 of these 42 with today's net)


def test_first_half_move_of_a_trial_is_the_2ply_play():
    """Truncated after one half-move, no VR: trial t's outcome is the 1-ply value of the play
    chosen at 2-ply for roll t mod 36 (the quasi-random first roll)."""
    net = NeuralNet()
    out = trials_ply(STARTING_BOARD, (2, 1), n=36, truncate=1, vr=False)
    for t in [0, 7, 15, 20, 33]:  # rolls 11, 22, 34, 43, 64
        d = (t // 6 + 1, t % 6 + 1)
        m = choose_move(STARTING_BOARD, d, net, 2).board
        assert np.allclose(out[t], post_move_probs(net, m[None], 1)[0], atol=1e-9), d


def test_seeded_2ply_rollout_is_reproducible_and_seed_dependent():
    a = trials_ply(STARTING_BOARD, (2,), n=6, seed=5, truncate=6)
    assert np.array_equal(a, trials_ply(STARTING_BOARD, (2,), n=6, seed=5, truncate=6))
    assert not np.array_equal(a, trials_ply(STARTING_BOARD, (2,), n=6, seed=6, truncate=6))
    # the 2-ply play changes trials against 1-ply (same dice)
    assert not np.array_equal(a, trials_ply(STARTING_BOARD, (1,), n=6, seed=5, truncate=6))


def test_driver_resumes_and_matches_process_pool(tmp_path):
    kw = dict(ply="2:2", trials=24, chunk=12, truncate=4, post_move=False, seed=2)
    path = tmp_path / "ro.jsonl"
    first = rollout_ply([STARTING_BOARD], workers=0, out_path=path, **kw)[0]
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["setup"]["sched"] == [2, 2, 1]
    path.write_text("\n".join(lines[:2]) + "\n")  # killed after one chunk
    assert rollout_ply([STARTING_BOARD], workers=0, out_path=path, **kw)[0] == first
    assert rollout_ply([STARTING_BOARD], workers=2, **kw)[0] == first
    assert first["ply"] == "2-ply for half-moves 1-2, then 1-ply"


def test_vr_mean_agrees_with_plain_mean_at_2ply():
    """Luck measured at 1-ply while the plays are 2-ply: the VR mean is still unbiased."""
    def eq(o):
        return 2 * o[:, 0] - 1 + o[:, 1] - o[:, 3] + o[:, 2] - o[:, 4]

    board = _midgame_boards()[0]
    vr = eq(trials_ply(board, (1, 1, 2), n=144, seed=11, truncate=7, vr=True))
    no = eq(trials_ply(board, (1, 1, 2), n=144, first=144, seed=12, truncate=7, vr=False))
    se_vr = vr.std(ddof=1) / np.sqrt(len(vr))
    se_no = no.std(ddof=1) / np.sqrt(len(no))
    assert se_vr < 0.7 * se_no
    assert abs(vr.mean() - no.mean()) < 3 * np.hypot(se_vr, se_no)


@pytest.mark.parametrize("args, text", [
    (["--ply", "3:x"], "'x' is not a number of half-moves"),
    (["--ply", "2,3"], "only the last segment"),
    (["--ply", "9"], "out of range"),
    (["--ply", "2", "--evaluator", "pubeval"], "need our net"),
    (["--ply", "2", "--cubeful"], "cubeful trials are played at 1-ply"),
])
def test_cli_bad_ply_is_one_line(args, text):
    r = CliRunner().invoke(bg, ["rollout", START, *args])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "--ply" in r.output and text in r.output
    assert len([x for x in r.output.splitlines() if x.startswith("Error")]) == 1


def test_cli_states_the_schedule():
    r = CliRunner().invoke(bg, ["rollout", START, "--ply", "2:1", "--trials", "12", "--truncate",
                                "2", "--workers", "0", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["ply"] == "2-ply for half-move 1, then 1-ply"
    assert d["results"][0]["ply"] == d["ply"] and d["results"][0]["trials"] == 12


# -- bg benchmark rollout --ply: bgsage's late evaluation --------------------------------------

SAGE = __import__("pathlib").Path(__file__).resolve().parents[1].parent / "shared" / "data" / \
    "backgammon" / "bgsage"


def test_benchmark_rollout_schedule_maps_to_bgsage_late_ply():
    import click

    from playout.backgammon.cli_pr import _bgsage_schedule

    assert _bgsage_schedule("3:3,2", 1) == (3, 2, 3)  # Open Sage's references
    assert _bgsage_schedule("2", 1) == (2, -1, 0)
    assert _bgsage_schedule("2:1", 1) == (2, 1, 1)  # bgsage's truncated2: 2-ply once, then 1
    for text, dp in [("3:1,2:1,1", 1), ("4", 1), ("2", 2), ("x", 1)]:
        with pytest.raises(click.BadParameter):
            _bgsage_schedule(text, dp)


@pytest.mark.skipif(not SAGE.exists(), reason="shared data not present")
def test_benchmark_rollout_ply_reaches_bgsage(tmp_path, bgsage):
    lines = [x for x in (SAGE / "snake benchmark.first50.txt").read_text().splitlines()
             if x.startswith("checker")][:1]
    assert lines, "bgsage's snake benchmark sample has checker decisions"
    eqs = {}
    for name, extra in [("plain", []), ("late", ["--ply", "2:1,1"])]:
        d = tmp_path / name
        d.mkdir()
        (d / "snake benchmark.txt").write_text(lines[0] + "\n")
        r = CliRunner().invoke(bg, ["benchmark", "rollout", str(d), "--trials", "36", "--workers",
                                    "0", "--truncation", "2", *extra])
        assert r.exit_code == 0, r.output
        setup = json.loads((d / "snake rollout.journal.jsonl").read_text().splitlines()[0])
        assert setup["setup"].get("late_ply") == (1 if extra else None)
        rec = json.loads((d / "snake rollout.jsonl").read_text().splitlines()[0])
        eqs[name] = [m["equity"] for m in rec["moves"]]
    assert eqs["plain"] != eqs["late"]  # the first half-move played at 2-ply changes trials
    r = CliRunner().invoke(bg, ["benchmark", "rollout", str(tmp_path / "late"), "--ply", "3:1,2:1,1"])
    assert r.exit_code == 2 and "at most two levels" in r.output and "Traceback" not in r.output
