"""Rollouts (quasi-random dice, variance reduction, truncation, resume), matches, the Game."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, flip
from playout.backgammon.evaluators import NeuralNet, PubEval
from playout.backgammon.rollout import match, rollout, rollout_trials
from playout.stats import wilson_interval as wilson
from procs import children, gone


def test_bearoff_certain_win_is_exact():
    b = np.zeros(26, dtype=np.int8)
    b[1] = 1
    b[24] = -1  # opponent's checker on its 1-point: the side to act bears off at once
    out = rollout([b], trials=36, chunk=36, workers=0, post_move=False)[0]
    assert out["probs"][0] == pytest.approx(1.0) and out["std_error"] == pytest.approx(0.0)
    assert out["equity"] == pytest.approx(1.0)


def test_quasi_random_first_rolls_and_truncation():
    net = NeuralNet()
    # truncated after 1 half-move without VR: trial t's outcome depends only on roll t mod 36
    out = np.zeros((72, 5))
    rollout_trials(*net.kernel_args(), STARTING_BOARD, 0, 72, 7, 1, False, 0, out)
    assert np.allclose(out[:36], out[36:])
    assert len({tuple(np.round(r, 9)) for r in out[:36]}) >= 15  # 21 distinct rolls, some equal


def test_variance_reduction_reduces_error_and_agrees():
    net = NeuralNet()
    res_vr = rollout([STARTING_BOARD], trials=288, chunk=144, workers=0, post_move=False, truncate=8)[0]
    res_no = rollout([STARTING_BOARD], trials=288, chunk=144, workers=0, post_move=False,
                     truncate=8, vr=False)[0]
    assert res_vr["std_error"] < 0.6 * res_no["std_error"]
    assert abs(res_vr["equity"] - res_no["equity"]) < 4 * res_no["std_error"]
    del net


def test_rollout_streams_and_resumes(tmp_path):
    path = tmp_path / "ro.jsonl"
    b = STARTING_BOARD.copy()
    first = rollout([b], trials=72, chunk=36, workers=0, truncate=4, out_path=path, post_move=False)
    lines = path.read_text().splitlines()
    assert len(lines) == 3  # setup + 2 chunks
    # simulate a kill after the first chunk: drop the last line; the rerun redoes only that one
    path.write_text("\n".join(lines[:2]) + "\n")
    again = rollout([b], trials=72, chunk=36, workers=0, truncate=4, out_path=path, post_move=False)
    assert again == first
    assert len(path.read_text().splitlines()) == 3
    assert json.loads(lines[1])["key"] in ("0:0-36", "0:36-72")
    # more trials extend the rollout: only the new chunk is played, the result equals a fresh run
    longer = rollout([b], trials=108, chunk=36, workers=0, truncate=4, out_path=path, post_move=False)
    assert len(path.read_text().splitlines()) == 4
    fresh = rollout([b], trials=108, chunk=36, workers=0, truncate=4, post_move=False)
    assert longer == fresh and longer[0]["trials"] == 108
    # a partial last chunk is redone, not reused as if whole
    part = tmp_path / "part.jsonl"
    rollout([b], trials=50, chunk=36, workers=0, truncate=4, out_path=part, post_move=False)
    assert rollout([b], trials=72, chunk=36, workers=0, truncate=4, out_path=part,
                   post_move=False) == first
    with pytest.raises(ValueError, match="truncate: 4 -> 5"):
        rollout([b], trials=72, chunk=36, workers=0, truncate=5, out_path=path, post_move=False)


def test_per_candidate_rollout_is_from_the_mover_view():
    # a candidate that leaves the mover certain to win when the opponent cannot finish first
    after = np.zeros(26, dtype=np.int8)
    after[1] = 1
    after[19] = -15  # opponent needs many rolls; mover bears off next turn
    res = rollout([after], trials=36, chunk=36, workers=0, post_move=True)[0]
    assert res["probs"][0] == pytest.approx(1.0) and res["equity"] >= 1.0


def test_match_and_wilson():
    lo, hi = wilson(60, 100)
    assert lo < 0.6 < hi and hi - lo == pytest.approx(0.19, abs=0.01)
    r = match(NeuralNet(), PubEval(), n_games=40, seed=3)
    assert r["games"] == 40 and 0 <= r["wins"] <= 40
    assert match(NeuralNet(), PubEval(), n_games=40, seed=3) == r  # seeded


def test_game_interface_plays_to_the_end():
    from playout.backgammon.game import BackgammonGame

    g = BackgammonGame()
    rng = random.Random(5)
    s = g.initial_state()
    assert g.legal_actions(s) == ["roll"]
    total = 0.0
    for _ in range(2000):
        if g.is_terminal(s):
            break
        a = rng.choice(g.legal_actions(s))
        s2 = g.transition(s, a, rng)
        total += g.checked_reward(s, a, s2)
        s = s2
    assert g.is_terminal(s) and total in (1.0, 2.0, 3.0)
    assert (flip(flip(s.array())) == s.array()).all()


def test_generic_solver_plays_a_legal_move():
    from playout.backgammon.game import BackgammonGame, BgState
    from playout.backgammon.moves import legal_moves
    from playout.mcts import GenericSolver

    start = BgState(STARTING_BOARD.tobytes(), 0, (6, 4))

    class FromRoll(BackgammonGame):
        def initial_state(self):
            return start

    res = GenericSolver(FromRoll(), seed=1).run_tree_search(iterations=30)
    assert res.action in {m.tobytes() for m in legal_moves(STARTING_BOARD, 6, 4)}


def test_cubeful_rollout_cashes_a_won_race():
    # both sides bear off in two rolls, the side to act first: it doubles, the opponent passes
    b = np.zeros(26, dtype=np.int8)
    b[1] = 2
    b[2] = 1
    b[24] = -3
    res = rollout([b], trials=72, chunk=36, workers=0, post_move=False, cubeful=True)[0]
    assert res["equity"] == pytest.approx(1.0) and res["std_error"] == pytest.approx(0.0)
    assert "probs" not in res
    # cubeless over the 36 x 36 first two rolls: we lose only when we roll no double and the
    # opponent rolls one: equity 1 - 2 * (5/6 * 1/6) = 0.7222... (the loser has borne off: no gammon)
    cubeless = rollout([b], trials=1296, chunk=1296, workers=0, post_move=False, vr=False)[0]
    assert cubeless["equity"] == pytest.approx(1 - 2 * 5 / 36, abs=1e-6)
    # the opponent owns the cube: no double, so the same as cubeless
    res = rollout([b], trials=1296, chunk=1296, workers=0, post_move=False, cubeful=True,
                  cube_owner="opponent")[0]
    assert res["equity"] == pytest.approx(1 - 2 * 5 / 36, abs=1e-6)


def test_cubeful_rollout_seeded_and_bounded():
    a = rollout([STARTING_BOARD], trials=72, chunk=36, workers=0, post_move=False, cubeful=True)[0]
    b = rollout([STARTING_BOARD], trials=72, chunk=36, workers=0, post_move=False, cubeful=True)[0]
    assert a == b
    assert -3.0 < a["equity"] < 3.0 and a["std_error"] > 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killed_rollout_leaves_no_worker_and_resume_says_what_it_kept(tmp_path):
    """``kill -9`` of ``bg rollout --workers 2``: both workers end with it; the rerun names the
    chunks it kept (``resuming: k of n chunks done``) and plays only the others."""
    out = tmp_path / "ro.jsonl"
    cmd = [sys.executable, "-m", "playout.cli", "bg", "rollout", "4HPwATDgc/ABMA", "--workers", "2",
           "--truncate", "4", "--out", str(out)]
    proc = subprocess.Popen(cmd + ["--trials", "144000"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240  # a cold numba cache compiles the kernels first
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_text().count("\n") >= 3:  # setup + 2 chunks
                break
            time.sleep(0.05)
        workers = children(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert len(workers) == 2
    deadline = time.monotonic() + 10
    while not all(gone(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [p for p in workers if not gone(p)]
    for p in alive:
        os.kill(p, signal.SIGKILL)
    assert alive == []
    firsts = [int(json.loads(line)["key"].split(":")[1].split("-")[0])
              for line in out.read_text().splitlines()[1:] if line.endswith("}")]
    n = max(firsts) // 144 + 1  # rerun up to the last chunk kept
    r = subprocess.run(cmd + ["--trials", str(144 * n), "--json"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"resuming: {len(set(firsts))} of {n} chunks done, read from {out}" in r.stderr
    assert json.loads(r.stdout)["results"][0]["trials"] == 144 * n
