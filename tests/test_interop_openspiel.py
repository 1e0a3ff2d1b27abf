"""OpenSpiel games driven by our solvers."""

from __future__ import annotations

import random

import pytest

from playout.mcts import GenericSolver, StatefulSolver


@pytest.fixture
def OpenSpielGame(pyspiel):
    """The adapter class.  Through conftest's ``pyspiel`` fixture each test skips on
    its own at run time (not the whole file at collection), so PLAYOUT_STRICT=1
    turns a missing or broken install into failures."""
    from playout.interop.openspiel import OpenSpielGame

    return OpenSpielGame


def test_tic_tac_toe_self_play_is_a_draw(OpenSpielGame):
    game = OpenSpielGame("tic_tac_toe")
    rng = random.Random(0)
    state = game.initial_state()
    while not game.is_terminal(state):
        res = GenericSolver(game, exploration_constant=1.4, root_state=state,
                            seed=rng.randrange(10**6)).run_tree_search(iterations=3000)
        state = game.transition(state, res.action, rng)
    assert state.returns() == [0.0, 0.0]


def test_connect_four_takes_the_immediate_win(OpenSpielGame):
    game = OpenSpielGame("connect_four")
    state = game.initial_state()
    for a in [0, 6, 0, 6, 0, 5]:  # player 0 has three in column 0
        state = game.transition(state, a, random.Random(0))
    res = GenericSolver(game, root_state=state, seed=0).run_tree_search(iterations=500)
    assert res.action == 0


def test_chance_game_plays_to_the_end(OpenSpielGame):
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


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "backgammon"])
def test_chance_root_is_refused_not_answered_with_an_outcome(OpenSpielGame, name):
    # the deal / opening roll is chance's move: its "legal actions" are outcomes
    game = OpenSpielGame(name)
    root = game.game.new_initial_state()
    assert root.is_chance_node()
    with pytest.raises(ValueError, match=rf"{name}: actions called on a chance node .*resolve_chance"):
        GenericSolver(game, root_state=root, seed=0).run_tree_search(iterations=10)
    with pytest.raises(ValueError, match=rf"{name}: actions called on a chance node"):
        StatefulSolver(game, root_state=root, seed=0)
    with pytest.raises(ValueError, match=rf"{name}: to_play called on a chance node"):
        game.to_play(root)
    # sampled, it is a decision of the player OpenSpiel names
    state = game.resolve_chance(root.clone(), random.Random(3))
    assert not state.is_chance_node() and state.current_player() in (0, 1)
    assert game.to_play(state) == state.current_player()
    if name != "backgammon":  # backgammon rollouts are long; kuhn/leduc are a few moves
        res = GenericSolver(game, root_state=state, seed=0).run_tree_search(iterations=200)
        assert res.action in state.legal_actions()


def test_initial_state_is_a_decision_after_the_opening_roll(OpenSpielGame):
    game = OpenSpielGame("backgammon", seed=5)
    state = game.initial_state()
    assert not state.is_chance_node()
    assert game.actions(state) == list(state.legal_actions())
    again = OpenSpielGame("backgammon", seed=5).initial_state()
    assert str(again) == str(state)  # the seed fixes the opening roll


def test_mcts_solver_proves_through_deterministic_openspiel_moves(OpenSpielGame):
    # connect_four has no chance nodes, so transition draws nothing from the rng and
    # MCTS-Solver may prove through it: the immediate win in column 0 is proven.
    # (pyspiel states compare by identity, so each StatefulSolver descent makes a new
    # child; proofs from terminal children still hold.)
    game = OpenSpielGame("connect_four")
    state = game.initial_state()
    for a in [0, 6, 0, 6, 0, 5]:
        state = game.transition(state, a, random.Random(0))
    res = StatefulSolver(game, root_state=state, mcts_solver=True, seed=0).run_tree_search(iterations=2000)
    assert res.proven == 1 and res.action == 0
    assert res.iterations <= 64  # stopped after the first chunk


def test_unknown_game_is_a_clear_error(OpenSpielGame):
    with pytest.raises(ValueError, match="unknown OpenSpiel game 'no_such_game'"):
        OpenSpielGame("no_such_game")
