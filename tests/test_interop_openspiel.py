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


# -- chance outcomes for StatefulSolver(chance="expected") (issue 16) ---------------------
def test_pig_chance_outcomes_are_openspiels_die(OpenSpielGame):
    game = OpenSpielGame("pig(winscore=2)", enumerate_chance=True)
    root = game.initial_state()
    out = game.chance_outcomes(root, 0)  # roll: one die, faces 1..6
    assert [p for _, p in out] == [1 / 6] * 6
    assert [s.current_player() for s, _ in out] == [1, 0, 0, 0, 0, 0]  # a 1 passes the turn
    assert [str(s).splitlines()[0] for s, _ in out][:2] == ["Scores: 0 0, Turn total: 0",
                                                           "Scores: 0 0, Turn total: 2"]
    assert game.chance_outcomes(root, 1) is None  # stop: no chance node follows
    assert OpenSpielGame("pig(winscore=2)").chance_outcomes(root, 0) is None  # off by default


def test_expected_chance_backs_up_pigs_exact_value(OpenSpielGame):
    # pig to 2 points: rolling 2..6 lets the mover stop and win (+1); a 1 hands the same
    # position to the opponent, so the mover's value V = 5/6 - V/6, V = 5/7 (rolling is right)
    game = OpenSpielGame("pig(winscore=2)", enumerate_chance=True)
    for seed in range(3):
        res = StatefulSolver(game, chance="expected", exploration_constant=1.0, seed=seed
                             ).run_tree_search(iterations=1500)
        roll = next(s for s in res.stats if s.action == 0)
        assert res.action == 0
        assert abs(roll.mean_reward - 5 / 7) < 0.015  # measured 0.7247, 0.7222, 0.7220


def test_mcts_solver_still_proves_nothing_through_pigs_dice(OpenSpielGame):
    game = OpenSpielGame("pig(winscore=2)")  # today's adapter: chance is sampled, not listed
    res = StatefulSolver(game, mcts_solver=True, seed=0).run_tree_search(iterations=300)
    assert res.proven == 0 and res.value is None and res.iterations == 300  # unproven: whole budget
    with pytest.raises(ValueError, match="chance_outcomes called on a chance node"):
        game_e = OpenSpielGame("pig(winscore=2)", enumerate_chance=True)
        game_e.chance_outcomes(game_e.game.new_initial_state().child(0), 0)
