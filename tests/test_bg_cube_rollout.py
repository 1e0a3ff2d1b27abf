"""Cube decisions from a cubeless rollout (playout.backgammon.cube_rollout), against the
rolled-out references of set A (bgsage's XG-style rollouts: ND, DT, DP per decision)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from playout.backgammon import benchmark as B, engines as E
from playout.backgammon.cube import cube_action
from playout.backgammon.cube_rollout import evaluator_name, rollout_cube
from playout.backgammon.evaluators import DEFAULT_NET, NeuralNet
from playout.backgammon.ids import board_from_position_id
from playout.cli import main

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"
needs_a = pytest.mark.skipif(not REF_A.exists(), reason="shared data not present")


def _reference_action(ref) -> tuple[bool, bool]:
    return min(ref.equity_dt, ref.equity_dp) > ref.equity_nd, ref.equity_dt <= ref.equity_dp


@needs_a
@pytest.mark.parametrize("index", [329, 342, 355])
def test_rollout_fixes_the_cube_errors_of_the_network(index):
    """A's decisions 329 (reference Double/Pass; the net: No double), 342 (Double/Pass; the net
    takes, error 0.729, 6.9 of the net's cube PR 12.05) and 355 (No double; the net doubles):
    net_cand128_g9 (the default of sessions 14-15) gets each wrong at 1-ply, a 324-trial rollout
    of it gets each right."""
    bs = B.load_set(REF_A)
    d, ref = bs.decisions[index], bs.references[index]
    assert d.kind != "checker" and ref is not None
    b = np.asarray(d.board, dtype=np.int8)
    want = _reference_action(ref)
    g9 = NeuralNet(Path(DEFAULT_NET).with_name("net_cand128_g9.npz"))
    net = cube_action(b, d.cube_value, d.cube_owner, g9, 1)
    got, row = rollout_cube(b, d.cube_value, d.cube_owner, g9, trials=324, seed=1)
    if want[0]:  # the reference doubles: both halves count
        assert (net.double, net.take) != want
        assert (got.double, got.take) == want
    else:  # the reference does not double: the take does not count
        assert net.double and not got.double
    assert row["trials"] == 324 and 0 < row["std_error"] < 0.05
    assert got.probs == pytest.approx(row["probs"])


def test_bad_cube_is_refused_before_the_rollout():
    start = board_from_position_id("4HPwATDgc/ABMA")
    with pytest.raises(ValueError, match="cube_owner"):
        rollout_cube(start, 1, "nobody", trials=10**9)
    with pytest.raises(ValueError, match="power of two"):
        rollout_cube(start, 3, "centered", trials=10**9)


def test_evaluator_name():
    assert evaluator_name(None) == "net"
    assert evaluator_name("pubeval") == "pubeval"
    net = NeuralNet()
    assert evaluator_name(net) == str(net.path)
    bare = NeuralNet.from_arrays(net.W1, net.b1, net.W2, net.b2)
    with pytest.raises(ValueError, match="network file"):
        evaluator_name(bare)


def test_engine_spec_cube_rollout():
    s = E.parse_spec("ours:ply=1,cube=rollout")
    assert (s.cube_trials, s.cube_seed) == (1296, 1)
    assert s.label == "ours 1-ply, cube rollout 1296"
    s = E.parse_spec("ours:ply=2,cube=rollout,cubetrials=324,cubeseed=7")
    assert (s.ply, s.cube_trials, s.cube_seed) == (2, 324, 7)
    assert s.label == "ours 2-ply, cube rollout 324 seed 7"
    assert E.parse_spec("ours:ply=1").cube_trials == 0
    for bad, msg in [("ours:cubetrials=5", "needs cube=rollout"), ("ours:cube=gnubg", "rollout or ply"),
                     ("ours:cube=rollout,cubetrials=0", "at least 1"),
                     ("ours:cube=rollout,cubetrials=x", "integers")]:
        with pytest.raises(E.EngineError, match=msg):
            E.parse_spec(bad)
    eng = E.make_engine("ours:ply=1,cube=rollout,cubetrials=324")
    assert eng.cube_decision([0] * 26, 2, "opponent") == (False, True)  # cannot double


@needs_a
def test_cli_cube_rollout():
    """``bg cube ID --rollout N``: A's decision 342 (gnubg ID 3u0GABBs20YAUA) is Double/Pass."""
    g9 = str(Path(DEFAULT_NET).with_name("net_cand128_g9.npz"))
    r = CliRunner().invoke(main, ["bg", "cube", "3u0GABBs20YAUA", "--rollout", "324", "--json", "--evaluator", g9])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert (out["double"], out["take"], out["rollout"]["trials"]) == (True, False, 324)
    assert out["optimal_action"] == "Double, pass"
    r = CliRunner().invoke(main, ["bg", "cube", "3u0GABBs20YAUA", "--rollout", "144"])
    assert r.exit_code == 0 and "cubeless rollout, 144 trials" in r.output
    r = CliRunner().invoke(main, ["bg", "cube", "3u0GABBs20YAUA", "--rollout", "0"])
    assert r.exit_code == 2 and "--rollout" in r.output and "Traceback" not in r.output


def test_analyze_refuses_cube_rollout():
    from playout.backgammon.analysis import AnalysisError, make_rater

    with pytest.raises(AnalysisError, match="cube=rollout is for bg pr"):
        make_rater("ours:ply=1,cube=rollout")
