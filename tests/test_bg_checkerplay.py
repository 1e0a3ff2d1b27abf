"""Cubeful checker play (``playout.backgammon.checkerplay``): gnubg's ranking of plays."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

from playout.backgammon import benchmark as B
from playout.backgammon.checkerplay import choose_play
from playout.backgammon.engines import legal_move_count, make_engine
from playout.backgammon.evaluators import get_evaluator
from playout.backgammon.moves import legal_moves
from playout.backgammon.search import choose_move

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"
needs_a = pytest.mark.skipif(not (REF_A / "rollout.jsonl").exists(), reason="shared reference A not present")


def _ref(i):
    """Reference set A's record ``i``: board, dice and bgsage's cubeful equity of each play."""
    with open(REF_A / "rollout.jsonl") as f:
        r = json.loads(f.readlines()[i])
    moves = ast.literal_eval(r["moves"]) if isinstance(r["moves"], str) else r["moves"]
    return (np.array(r["board"], dtype=np.int8), tuple(r["dice"]),
            {tuple(m["board"]): m["equity"] for m in moves})


def _key(b):
    return tuple(int(x) for x in b)


@needs_a
@pytest.mark.parametrize("cube_value,owner", [(1, "centered"), (2, "opponent")])
def test_with_gnubgs_net_it_plays_gnubg_0ply_cubeful_choice(cube_value, owner):
    """The same network (gnubg's raw net through our adapter) and our ranking choose gnubg 0-ply's
    own play (PyPI gnubg findbestmove, cubeful, Jacoby) on every unforced checker decision of
    reference set A; the cubeless ranking does not (309 of 326 centred, 320 opponent-owned)."""
    pytest.importorskip("gnubg")
    gnubg = make_engine("gnubg:ply=0")
    ev = get_evaluator("gnubg")
    decisions = [d for d in B.load_set(REF_A).decisions
                 if d.kind == "checker" and legal_move_count(d.board, d.dice) > 1]
    assert len(decisions) == 326
    same = cubeless_same = 0
    for d in decisions:
        want = gnubg.choose_checker(d.board, d.dice, cube_value, owner)
        plays = choose_play(d.board, d.dice, ev, 1, cube_value=cube_value, cube_owner=owner)
        same += _key(plays[0].board) == want
        cubeless_same += _key(choose_move(np.asarray(d.board, dtype=np.int8), d.dice, ev).board) == want
    assert same == 326
    assert cubeless_same <= 320


@needs_a
def test_a_cash_beats_a_gammonish_play_under_jacoby():
    """A's decision 303 (sW4LAxCzbUYMAA, 24, centred cube, Jacoby): bgsage's 3-ply values the
    quiet play 1.000 (a cash) and the play that wins the most gammons 0.792 (gammons do not
    count before the cube is turned).  Our net ranks the gammonish play first cubeless and the
    cash first cubeful."""
    board, dice, ref = _ref(303)
    best = max(ref.values())
    cubeless = _key(choose_move(board, dice).board)
    assert best - ref[cubeless] == pytest.approx(0.2081, abs=1e-3)
    plays = choose_play(board, dice)
    assert ref[_key(plays[0].board)] == best == 1.0
    # without the Jacoby rule the gammons count: the gammonish play is our net's first again
    assert _key(choose_play(board, dice, jacoby=False)[0].board) == cubeless


@needs_a
@pytest.mark.parametrize("index", [35, 266])
def test_ties_at_minus_one_go_to_the_best_cubeless_play(index):
    """A's decisions 35 and 266: after most plays the opponent doubles us out, so every one of
    them is worth exactly -1.000 cubeful (our net, 1-ply).  gnubg's CompareMoves orders such
    ties by its cubeless utility (under the Jacoby rule with the cube centred gammons are worth
    nothing: 2 p_win - 1) -- before the move filter too, or the 2-ply search may never see the
    right play -- and at 1 and 2 plies that is bgsage's 3-ply best, the play it does not see
    doubled out (without the tie-break the errors were 0.156 and 0.203)."""
    board, dice, ref = _ref(index)
    best = max(ref.values())
    for ply in (1, 2):
        plays = choose_play(board, dice, ply=ply)
        assert ref[_key(plays[0].board)] == best
    one = choose_play(board, dice, ply=1)
    tied = [c for c in one if c.equity == -1.0]
    assert len(tied) >= 3 and one[0].equity == -1.0
    assert [c.cubeless for c in tied] == sorted((c.cubeless for c in tied), reverse=True)


def test_every_legal_play_once_and_errors():
    board = np.array([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0],
                     dtype=np.int8)
    for ply in (1, 2):
        plays = choose_play(board, (6, 5), ply=ply, filter_max=4, filter_threshold=10.0)
        boards = {_key(b) for b in legal_moves(board, 6, 5)}
        assert {_key(c.board) for c in plays} == boards and len(plays) == len(boards)
        assert [c.ply for c in plays[:4]] == [ply] * 4 and all(c.ply == 1 for c in plays[4:])
    # match play: values are EMG, within [-3, 3]
    plays = choose_play(board, (6, 5), match_length=7, score=(3, 5), cube_value=2, cube_owner="player")
    assert all(-3.0 <= c.equity <= 3.0 for c in plays)
    with pytest.raises(ValueError, match="ply"):
        choose_play(board, (6, 5), ply=5)
    with pytest.raises(ValueError, match="cube_owner"):
        choose_play(board, (6, 5), cube_owner="me")


def test_hint_cubeful_ranks_by_cubeful_equity_and_shows_the_cubeless():
    """``bg hint`` (cubeful by default, as gnubg's; A's decision 303): the cash 11/5 first, the
    gammonish 8/2* -- the ``--cubeless`` ranking's first -- second, with its cubeless equity
    beside."""
    from click.testing import CliRunner

    from playout.backgammon.cli import bg

    def run(*extra):
        r = CliRunner().invoke(bg, ["hint", "sW4LAxCzbUYMAA", "--dice", "24", "--json", *extra])
        assert r.exit_code == 0, r.output
        return json.loads(r.output)["moves"]

    cubeless, cubeful = run("--cubeless"), run()
    assert run("--cubeful") == cubeful
    assert cubeless[0]["move"] == "8/2*" and cubeful[0]["move"] == "11/5"
    second = cubeful[1]
    assert second["move"] == "8/2*" and second["cubeless_equity"] == pytest.approx(cubeless[0]["equity"], abs=1e-6)
    assert second["equity"] < cubeful[0]["equity"] < cubeful[0]["cubeless_equity"]
