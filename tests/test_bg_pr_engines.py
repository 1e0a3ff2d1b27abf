"""Engines' side conventions, specs, the ``pr`` command, generation and resumable rollouts."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from playout.backgammon import benchmark as B, engines as E

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
BG = SHARED / "data" / "backgammon"
REF_A = BG / "reference" / "A"
SAGE = BG / "bgsage"
# The peers are imported inside each test (conftest's fixtures), so a broken install is a
# skip that PLAYOUT_STRICT=1 turns into a failure rather than a module silently not collected.
pytestmark = [pytest.mark.skipif(not BG.exists(), reason="shared data not present"),
              pytest.mark.usefixtures("gnubg", "bgsage")]


def test_gnubg_board_is_opponent_then_on_roll(gnubg):
    """Reference A gives each decision's gnubg position ID: decoding it with gnubg equals our
    conversion of the board26, for all 358."""
    for r in B.read_rollout(REF_A / "rollout.jsonl"):
        g = gnubg.positionfromid(r.extra["source"]["gnubg_position_id"])
        assert g == E.to_gnubg(r.board)
        assert E.from_gnubg(g) == r.board


def test_gnubg_and_bgsage_choose_legal_post_move_boards(gnubg):
    ids = (BG / "gnubg_selfplay_position_ids.txt").read_text().split()[::40]
    rng = random.Random(5)
    engines = [E.make_engine("gnubg:ply=0"), E.make_engine("bgsage:ply=1")]
    undecodable = []
    for pid in ids:
        b = E.from_gnubg(gnubg.positionfromid(pid))
        d = (rng.randint(1, 6), rng.randint(1, 6))
        legal = E.legal_boards(b, d)
        for e in engines:
            got = e.choose_checker(b, d, 1, "centered")
            assert got in legal if legal else got == b
        mv = gnubg.findbestmove(E.to_gnubg(b), engines[0]._ci(1, "centered"), engines[0]._ec, d) if legal else ()
        if legal and E.apply_gnubg_move(b, mv) not in legal:
            undecodable.append(mv)
    assert len(ids) > 70
    # PyPI gnubg cuts a move tuple at its first bear-off ((2,) = "2/off, then more off"), so
    # only those tuples may fail to decode: 3 of the 72 positions with a play here.
    assert all(len(mv) % 2 == 1 for mv in undecodable) and len(undecodable) == 3


def test_gnubg_cube_agrees_with_reference_on_clear_cases():
    s = B.load_set(REF_A)
    e = E.make_engine("gnubg:ply=0")
    cubes = [r for r in s.references if r.kind == "cube"]
    agree = sum((e.cube_decision(r.board, r.cube_value, r.cube_owner)[0] == r.should_double_ref) for r in cubes)
    assert agree >= 0.8 * len(cubes)


@pytest.mark.parametrize("text,kind,ply", [
    ("gnubg:ply=0", "gnubg", 0), ("gnubg:xgply=3", "gnubg", 2), ("bgsage:ply=2", "bgsage", 2),
    ("bgsage:gnubgply=0", "bgsage", 1), ("ours:ply=3", "ours", 3), ("pubeval", "pubeval", 1),
    ("ours:ply=4", "ours", 4), ("gnubg:ply=3", "gnubg", 3), ("gnubg:xgply=4", "gnubg", 3),
])
def test_parse_spec(text, kind, ply):
    s = E.parse_spec(text)
    assert (s.kind, s.ply) == (kind, ply)


def test_ours_with_a_weights_file(tmp_path):
    from playout.backgammon.evaluators import DEFAULT_NET

    s = E.parse_spec(f"ours:ply=1,weights={DEFAULT_NET}")
    assert s.weights == str(DEFAULT_NET) and s.label == f"ours 1-ply {DEFAULT_NET.stem}"
    e = E.make_engine(s)
    start = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)
    assert len(e.choose_checker(start, (3, 1))) == 26


def test_kernel_evaluator_only_for_our_plain_1ply_engine():
    """The compiled money-match path may stand in for ours only at 1-ply without a specialist."""
    from playout.backgammon.evaluators import NeuralNet, PubEval
    from playout.backgammon.money_match import _kernel_args

    net, pub = E.make_engine("ours:ply=1"), E.make_engine("pubeval")
    assert isinstance(net.kernel_evaluator(), NeuralNet)
    assert isinstance(pub.kernel_evaluator(), PubEval)
    assert _kernel_args(net)[0] == net.kernel_evaluator().kernel_args()[0]
    for spec in ("ours:ply=2", "ours:ply=1,specialist=backgame"):
        e = E.make_engine(spec)
        assert e.kernel_evaluator() is None and _kernel_args(e) is None
    assert _kernel_args(E.make_engine("gnubg:ply=0")) is None


@pytest.mark.parametrize("text", ["xg:ply=1", "gnubg:ply=x", "bgsage:ply", "bgsage:ply=0", "gnubg:depth=2",
                                  "ours:ply=1,weights=/nonexistent/net.npz", "ours:ply=5", "ours:ply=9",
                                  "gnubg:ply=4", "bgsage:xgply=5", "gnubg:xgply=5", "ours:eval=xg",
                                  f"ours:eval=gnubg,weights={__file__}"])
def test_bad_spec_is_a_clear_error(text):
    with pytest.raises(E.EngineError, match="engine spec"):
        E.parse_spec(text)


def test_ours_over_gnubgs_net_plays_as_gnubg():
    """``eval=gnubg`` (our search and cube model over gnubg's raw net) chooses gnubg 0-ply's
    plays: our ranking of plays adds no error of its own (reference set A: checker PR 2.07 for
    both; our 1-ply cube model on gnubg's probabilities 0.91 against our net's 11.36)."""
    s = B.load_set(REF_A)
    ours, peer = E.make_engine("ours:ply=1,eval=gnubg"), E.make_engine("gnubg:ply=0")
    assert ours.name == "ours 1-ply gnubg" and ours.kernel_evaluator() is None
    checker = [d for d in s.decisions if d.kind == "checker"][:60]
    same = sum(ours.choose_checker(d.board, d.dice, d.cube_value, d.cube_owner)
               == peer.choose_checker(d.board, d.dice, d.cube_value, d.cube_owner) for d in checker)
    assert same == len(checker)


def test_pr_command_table_csv_and_errors(tmp_path):
    from playout.backgammon.cli_pr import pr
    csv_path = tmp_path / "d.csv"
    res = CliRunner().invoke(pr, [str(REF_A), "--engine", "gnubg:ply=0", "--engine", "bgsage:ply=1",
                                  "--limit", "30", "--csv", str(csv_path)])
    assert res.exit_code == 0, res.output
    assert "gnubg 0-ply" in res.output and "bgsage 1-ply" in res.output and "PR" in res.output
    assert csv_path.read_text().count("\n") > 2 * 25
    twice = CliRunner().invoke(pr, [str(REF_A), "--engine", "gnubg:ply=0", "--engine", "gnubg:ply=0",
                                    "--limit", "5"])
    assert twice.exit_code == 0 and "gnubg 0-ply (XG 1) #2" in twice.output  # both rows kept
    same = CliRunner().invoke(pr, [str(REF_A), "--engine", "gnubg:ply=0", "--engine", "gnubg:ply=0",
                                   "--limit", "5", "--paired"])
    assert same.exit_code == 0 and "paired against gnubg 0-ply" in same.output
    assert "+0.00 +- 0.00" in same.output and "0 of " in same.output  # an engine against itself
    bad = CliRunner().invoke(pr, [str(tmp_path), "--engine", "gnubg:ply=0"])
    assert bad.exit_code == 1 and "benchmark.txt" in bad.output and "Traceback" not in bad.output
    bad = CliRunner().invoke(pr, [str(REF_A), "--engine", "foo"])
    assert bad.exit_code == 1 and "unknown engine" in bad.output


def test_complete_adds_reference_for_a_mismatch(tmp_path):
    """A reference lacking the engine's move gets it computed at its own level (3-ply)."""
    from playout.backgammon import references as R, scoring as S
    refs = B.read_rollout(REF_A / "rollout.jsonl")[:3]
    full = refs[0].moves[5]
    refs[0].moves = [m for m in refs[0].moves if m.board != full.board]
    path = tmp_path / "rollout.jsonl"
    B.write_rollout(path, refs)
    comp = R.Completer(path, refs)
    assert comp(0, refs[0], full.board)
    again = B.read_rollout(path)[0]
    got = next(m for m in again.moves if m.board == full.board)
    # bgsage's float32 sums differ in the 8th digit across processors (1.5e-8 on this one)
    assert got.equity == pytest.approx(full.equity, abs=1e-6) and got.eval_level == "3-ply"
    assert S.score_checker(again, full.board).counted


def test_generation_is_deterministic(tmp_path):
    from playout.backgammon import generate as G
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    G.generate_file("snake", SAGE / "snake starting.txt", a, 12, seed=7, ply=1)
    G.generate_file("snake", SAGE / "snake starting.txt", b, 12, seed=7, ply=1)
    assert a.read_bytes() == b.read_bytes()
    decs = B.read_benchmark(a).entries
    assert len(decs) == 12 and {d.kind for d in decs} <= {"checker", "cube"}
    from playout.backgammon.families import in_family
    assert all(in_family("snake", d.board) for d in decs)
    c = tmp_path / "c.txt"
    G.generate_file("snake", SAGE / "snake starting.txt", c, 12, seed=8, ply=1)
    assert c.read_bytes() != a.read_bytes()


def test_rollout_killed_and_rerun_loses_nothing(tmp_path):
    lines = [l for l in (SAGE / "snake benchmark.first50.txt").read_text().splitlines() if not l.startswith("#")][:3]
    (tmp_path / "snake benchmark.txt").write_text("\n".join(lines) + "\n")
    out = tmp_path / "snake rollout.jsonl"
    cmd = [sys.executable, "-c",
           "from playout.backgammon.references import rollout_directory as r; "
           f"r({str(tmp_path)!r}, trials=36, workers=0, truncation=2)"]
    p = subprocess.Popen(cmd, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or out.read_text().count("\n") < 1):
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    first = out.read_text().splitlines()
    assert 1 <= len(first) <= 3
    subprocess.run(cmd, check=True)
    after = out.read_text().splitlines()
    assert after[: len(first)] == first  # finished decisions kept as they were
    refs = B.read_rollout(out)
    assert len(refs) == 3 and len({r.match_key() for r in refs}) == 3
    assert {r.match_key() for r in refs} == {B.parse_decision(l).match_key() for l in lines}
    subprocess.run(cmd, check=True)  # nothing left: no duplicates
    assert out.read_text().splitlines() == after


def _cubes_as_and_plays_as(engine, cuber, player, dice):
    """``engine``'s cube decisions are ``cuber``'s (centred and owned, on boards of random
    games), some differ from ``player``'s (the test can tell the nets apart), and its checker
    plays are ``player``'s."""
    import numpy as np

    from bgboards import random_game_boards

    boards = [tuple(int(x) for x in b) for b in random_game_boards(np.random.default_rng(5), 6)][::3]
    differ = 0
    for b in boards:
        for cube, owner in ((1, "centered"), (2, "player")):
            got = engine.cube_decision(b, cube, owner)
            assert got == cuber.cube_decision(b, cube, owner)
            differ += got != player.cube_decision(b, cube, owner)
    assert differ > 0
    for b in boards[:20]:
        assert engine.choose_checker(b, dice) == player.choose_checker(b, dice)


def test_cube_weights_take_the_cube_decisions_only():
    """``cubeweights=NET``: every cube decision is the other network's, every checker play the
    engine's own (session 34: a net fitted to rollout labels cubes better than it plays)."""
    other = Path(__file__).resolve().parents[1] / "data" / "bg" / "net_cand128_g12_candidate.npz"
    s = E.parse_spec(f"ours:ply=1,cubeweights={other}")
    assert s.cube_weights == str(other) and s.label == "ours 1-ply, cube net_cand128_g12_candidate"
    hybrid, plain = E.make_engine(s), E.make_engine("ours:ply=1")
    cuber = E.make_engine(f"ours:ply=1,weights={other}")
    _cubes_as_and_plays_as(hybrid, cuber, plain, (6, 4))
    with pytest.raises(E.EngineError, match="cube weights file"):
        E.parse_spec("ours:ply=1,cubeweights=/nonexistent/net.npz")
    with pytest.raises(E.EngineError, match="cubeweights needs eval=net"):
        E.parse_spec(f"ours:ply=1,eval=pubeval,cubeweights={other}")


def test_default_engine_cubes_with_the_default_cube_network():
    """``ours:ply=N`` with the default networks: cube decisions by ``DEFAULT_CUBE_NET`` (session
    35), checker plays by ``DEFAULT_NET``; ``weights=NET`` makes both with NET."""
    from playout.backgammon.evaluators import DEFAULT_CUBE_NET, DEFAULT_NET

    plain = E.make_engine("ours:ply=1")
    cube_net = E.make_engine(f"ours:ply=1,weights={DEFAULT_CUBE_NET}")
    checker_net = E.make_engine(f"ours:ply=1,weights={DEFAULT_NET}")
    _cubes_as_and_plays_as(plain, cube_net, checker_net, (5, 2))


def test_analysis_rater_cubes_as_the_engine():
    """``bg analyze``'s cube figures use the same network as the engine's cube decisions: the
    default cube network, or ``cubeweights=`` (which the rater ignored before session 35)."""
    import numpy as np

    from bgboards import random_game_boards
    from playout.backgammon.analysis import Rater, State, make_rater
    from playout.backgammon.evaluators import DEFAULT_CUBE_NET, DEFAULT_NET, NeuralNet

    other = Path(__file__).resolve().parents[1] / "data" / "bg" / "net_cand128_g12_candidate.npz"
    st = State(0, (0, 0), 1, "centered", False, True)
    b = np.asarray(random_game_boards(np.random.default_rng(5), 1)[10], dtype=np.int8)
    for spec, net in (("ours:ply=1", DEFAULT_CUBE_NET), (f"ours:ply=1,cubeweights={other}", other),
                      (f"ours:ply=1,weights={DEFAULT_NET}", DEFAULT_NET)):
        rater, _ = make_rater(spec)
        assert rater.cube(b, st)["probs"] == pytest.approx(Rater(NeuralNet(net), 1).cube(b, st)["probs"])
        assert rater.ev.path == DEFAULT_NET  # plays: the checker network in every case
    assert Rater(NeuralNet(DEFAULT_CUBE_NET), 1).cube(b, st)["probs"] != \
        pytest.approx(Rater(NeuralNet(DEFAULT_NET), 1).cube(b, st)["probs"])
