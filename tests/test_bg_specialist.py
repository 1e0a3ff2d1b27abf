"""``ours:...,specialist=backgame``: the back-game specialist by rule on the decision's board."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon import benchmark as B
from playout.backgammon.engines import EngineError, make_engine, parse_spec
from playout.backgammon.evaluators import DEFAULT_CUBE_NET, DEFAULT_NET, NeuralNet
from playout.backgammon.families import in_family
from playout.backgammon.checkerplay import choose_play

REF_A = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "reference" / "A"


def test_specialist_plays_the_family_decisions_and_only_those():
    decisions = [d for d in B.load_set(REF_A).decisions if d.kind == "checker"]
    inside = [d for d in decisions if in_family("backgame", np.asarray(d.board, dtype=np.int8))]
    outside = [d for d in decisions if d not in inside][:20]
    assert len(inside) == 8  # reference set A's checker decisions in the back-game family
    eng = make_engine("ours:ply=1,specialist=backgame")
    general = NeuralNet()
    special = NeuralNet(DEFAULT_NET.with_name("net_sl_backgame_v1.npz"))
    base = NeuralNet(DEFAULT_NET.with_name("net_td80.npz"))
    differ = 0

    def best(d, ev):  # the engine's ranking: cubeful for the decision's cube (checkerplay)
        plays = choose_play(d.board, d.dice, ev, 1, cube_value=d.cube_value, cube_owner=d.cube_owner)
        return tuple(int(x) for x in plays[0].board)

    for d, ev in [(d, special) for d in inside] + [(d, general) for d in outside]:
        b = np.asarray(d.board, dtype=np.int8)
        want = best(d, ev)
        assert eng.choose_checker(b, d.dice, d.cube_value, d.cube_owner) == want
        if ev is special:
            differ += want != best(d, base)
    # the specialist changes at least one back-game play of set A against the network it was
    # fitted from (net_td80; the distilled default agrees with it on all 8)
    assert differ >= 1


def test_specialist_spec_errors_and_label():
    assert parse_spec("ours:ply=2,specialist=backgame").specialist == "backgame"
    assert make_engine("ours:ply=1,specialist=backgame").name == "ours 1-ply +backgame specialist"
    with pytest.raises(EngineError, match="no specialist for 'snake'"):
        parse_spec("ours:ply=1,specialist=snake")


def test_analysis_values_family_decisions_with_the_specialist():
    # bg analyze's rater honours specialist= as the engine does (it was ignored before session 17)
    from playout.backgammon.analysis import Rater, State, make_rater
    from playout.backgammon.moves import legal_moves

    decisions = [d for d in B.load_set(REF_A).decisions if d.kind == "checker"]
    inside = [d for d in decisions if in_family("backgame", np.asarray(d.board, dtype=np.int8))]
    outside = [d for d in decisions if d not in inside][:3]
    rater, label = make_rater("ours:ply=1,specialist=backgame")
    assert label == "ours 1-ply +backgame specialist"
    general = Rater(NeuralNet(), 1)
    special = Rater(NeuralNet(DEFAULT_NET.with_name("net_sl_backgame_v1.npz")), 1)
    cube_net = Rater(NeuralNet(DEFAULT_CUBE_NET), 1)  # outside the family the cube network cubes
    st = State(0, (0, 0), 1, "centered", False, True)
    for d, want, want_cube in [(d, special, special) for d in inside[:3]] + \
            [(d, general, cube_net) for d in outside]:
        b = np.asarray(d.board, dtype=np.int8)
        plays = legal_moves(b, *d.dice)
        assert rater.play_values(b, plays, st) == pytest.approx(want.play_values(b, plays, st))
        assert rater.cube(b, st)["probs"] == pytest.approx(want_cube.cube(b, st)["probs"])
    b = np.asarray(inside[0].board, dtype=np.int8)
    assert special.cube(b, st)["probs"] != pytest.approx(general.cube(b, st)["probs"])
