"""OpenSpiel games driven by our solvers."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel")

from playout.interop.openspiel import OpenSpielGame  # noqa: E402
from playout.mcts import GenericSolver  # noqa: E402


def test_tic_tac_toe_self_play_is_a_draw():
    game = OpenSpielGame("tic_tac_toe")
    rng = random.Random(0)
    state = game.initial_state()
    while not game.is_terminal(state):
        res = GenericSolver(game, exploration_constant=1.4, root_state=state,
                            seed=rng.randrange(10**6)).run_tree_search(iterations=3000)
        state = game.transition(state, res.action, rng)
    assert state.returns() == [0.0, 0.0]


def test_connect_four_takes_the_immediate_win():
    game = OpenSpielGame("connect_four")
    state = game.initial_state()
    for a in [0, 6, 0, 6, 0, 5]:  # player 0 has three in column 0
        state = game.transition(state, a, random.Random(0))
    res = GenericSolver(game, root_state=state, seed=0).run_tree_search(iterations=500)
    assert res.action == 0


def test_chance_game_plays_to_the_end():
    game = OpenSpielGame("pig(winscore=20)")
    rng = random.Random(1)
    state = game.initial_state()
    moves = 0
    while not game.is_terminal(state):
        res = GenericSolver(game, root_state=state, seed=moves, simulation_depth_limit=200).run_tree_search(iterations=50)
        assert res.action in game.actions(state)
        state = game.transition(state, res.action, rng)
        moves += 1
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_unknown_game_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown OpenSpiel game 'no_such_game'"):
        OpenSpielGame("no_such_game")
