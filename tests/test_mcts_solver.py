"""The Python reference solvers: phases, backups, budgets, errors."""

from __future__ import annotations

import math

import pytest

from playout.mdp import MDP, Game, MDPError
from playout.mcts import GenericSolver, StatefulSolver
from playout.domains.connect4 import Connect4


class Corridor(MDP):
    """Cells 0..3; reaching 3 pays 1; 'left' at 0 stays."""

    def initial_state(self):
        return 0

    def actions(self, s):
        return ["left", "right"]

    def transition(self, s, a, rng):
        return max(0, s - 1) if a == "left" else s + 1

    def reward(self, s, a, t):
        return 1.0 if t == 3 else 0.0

    def is_terminal(self, s):
        return s == 3


class Nim(Game):
    """Take 1 or 2 from a heap; taking the last stone wins (+1 to the mover)."""

    def __init__(self, heap):
        self.heap = heap

    def initial_state(self):
        return (self.heap, 0)

    def actions(self, s):
        return [k for k in (1, 2) if k <= s[0]]

    def transition(self, s, a, rng):
        return (s[0] - a, 1 - s[1])

    def reward(self, s, a, t):
        return 1.0 if t[0] == 0 else 0.0

    def is_terminal(self, s):
        return s[0] == 0

    def to_play(self, s):
        return s[1]


@pytest.mark.parametrize("solver_cls", [GenericSolver, StatefulSolver])
def test_corridor_goes_right(solver_cls):
    res = solver_cls(Corridor(), discount_factor=0.9, seed=0).run_tree_search(iterations=300)
    assert res.action == "right"
    right = next(s for s in res.stats if s.action == "right")
    left = next(s for s in res.stats if s.action == "left")
    assert right.visits > left.visits
    assert right.mean_reward > left.mean_reward
    assert right.max_reward == pytest.approx(0.9 ** 2)  # 1 reward, two steps after the first
    assert sum(s.visits for s in res.stats) == 300


@pytest.mark.parametrize("solver_cls", [GenericSolver, StatefulSolver])
@pytest.mark.parametrize("heap,winning", [(4, 1), (5, 2), (7, 1), (8, 2)])
def test_nim_two_player_backup(solver_cls, heap, winning):
    # a heap of 3k is lost for the mover: the winning move leaves a multiple of 3
    res = solver_cls(Nim(heap), exploration_constant=1.0, seed=1).run_tree_search(iterations=2000)
    assert res.action == winning
    best = next(s for s in res.stats if s.action == winning)
    assert best.mean_reward > 0.5


@pytest.mark.parametrize("solver_cls", [GenericSolver, StatefulSolver])
def test_connect4_forced_win_in_two(solver_cls):
    # X holds columns 2,3 on the bottom row, O sits on top of them; X to move.
    # Column 4 makes an open three (1 and 5 both free): a win in two that the
    # opponent cannot stop. A cooperative-opponent backup (mctreesearch4j) does not
    # need a double threat and spreads its visits.
    game = Connect4()
    state = Connect4.from_moves("2233")
    assert game.to_play(state) == 0
    res = solver_cls(game, exploration_constant=1.4, discount_factor=0.7, seed=3,
                     root_state=state).run_tree_search(iterations=3000)
    assert res.action == 3
    assert next(s for s in res.stats if s.action == 3).mean_reward > 0.3


def test_same_seed_same_search():
    a = GenericSolver(Nim(7), seed=42).run_tree_search(iterations=200)
    b = GenericSolver(Nim(7), seed=42).run_tree_search(iterations=200)
    assert a.stats == b.stats


def test_seconds_budget_stops():
    res = GenericSolver(Corridor(), seed=0, discount_factor=0.9).run_tree_search(seconds=0.05)
    assert 0 < res.iterations and res.seconds < 1.0


def test_budget_required():
    with pytest.raises(ValueError, match="iterations"):
        GenericSolver(Corridor()).run_tree_search()


def test_each_phase_overridable():
    calls = {"select": 0, "expand": 0, "simulate": 0, "backpropagate": 0}

    class Counting(GenericSolver):
        def select(self, node):
            calls["select"] += 1
            return super().select(node)

        def expand(self, node):
            calls["expand"] += 1
            return super().expand(node)

        def simulate(self, node):
            calls["simulate"] += 1
            return 0.25  # a constant "evaluation function" instead of a rollout

        def backpropagate(self, node, value):
            calls["backpropagate"] += 1
            assert value == 0.25
            super().backpropagate(node, value)

    res = Counting(Corridor(), discount_factor=0.5, max_tree_depth=1, seed=0).run_tree_search(iterations=50)
    assert calls == {"select": 50, "expand": 50, "simulate": 50, "backpropagate": 50}
    # a one-level tree: every return is the edge reward (0) + 0.5 * the constant leaf value
    for s in res.stats:
        assert s.mean_reward == pytest.approx(0.125) and s.max_reward == pytest.approx(0.125)


def test_max_tree_depth_limits_growth():
    solver = GenericSolver(Corridor(), discount_factor=0.9, max_tree_depth=1, seed=0)
    solver.run_tree_search(iterations=100)
    assert all(not child.children for child in solver.root.children.values())


class Broken(MDP):
    def __init__(self, mode):
        self.mode = mode

    def initial_state(self):
        return "s0"

    def actions(self, s):
        return [] if self.mode == "no-actions" and s == "s1" else ["go"]

    def transition(self, s, a, rng):
        return {"s0": "s1", "s1": "s2"}[s]

    def reward(self, s, a, t):
        return math.nan if self.mode == "nan" and t == "s2" else 0.0

    def is_terminal(self, s):
        return s == "s2"


def test_no_actions_names_state_and_member():
    with pytest.raises(MDPError, match=r"Broken\.actions returned no actions .*'s1'"):
        GenericSolver(Broken("no-actions"), seed=0).run_tree_search(iterations=5)


def test_nan_reward_names_state_and_member():
    with pytest.raises(MDPError, match=r"Broken\.reward returned NaN .*'s1'"):
        StatefulSolver(Broken("nan"), seed=0).run_tree_search(iterations=5)


def test_transposition_table_shares_nodes():
    # in Nim, (heap, player) positions recur through different move orders
    solver = StatefulSolver(Nim(10), transpositions=True, seed=0)
    solver.run_tree_search(iterations=500)
    assert solver.table is not None
    assert len(solver.table) <= 2 * 11  # at most one node per (heap, player)
    plain = StatefulSolver(Nim(10), seed=0)
    plain.run_tree_search(iterations=500)
    assert solver.result().action == plain.result().action == 1  # leave 9, a multiple of 3


@pytest.mark.parametrize("heap,value", [(6, -1), (7, 1), (9, -1), (10, 1)])
def test_mcts_solver_proves_nim(heap, value):
    solver = StatefulSolver(Nim(heap), mcts_solver=True, transpositions=True, seed=0)
    res = solver.run_tree_search(iterations=20000)
    assert res.proven == value
    assert res.iterations < 20000  # stopped early
    if value > 0:
        assert (heap - res.action) % 3 == 0


def test_stochastic_generic_solver_averages_outcomes():
    class Coin(MDP):
        def initial_state(self):
            return "start"

        def actions(self, s):
            return ["safe", "gamble"]

        def transition(self, s, a, rng):
            return "win" if a == "gamble" and rng.random() < 0.7 else "end"

        def reward(self, s, a, t):
            return {"win": 1.0, "end": 0.5 if a == "safe" else 0.0}[t]

        def is_terminal(self, s):
            return s != "start"

    res = GenericSolver(Coin(), exploration_constant=1.0, seed=5).run_tree_search(iterations=2000)
    gamble = next(s for s in res.stats if s.action == "gamble")
    assert res.action == "gamble"
    assert gamble.mean_reward == pytest.approx(0.7, abs=0.05)


def test_trace_records_each_iteration():
    solver = GenericSolver(Corridor(), discount_factor=0.9, seed=0, trace=True)
    solver.run_tree_search(iterations=20)
    assert solver.trace is not None
    assert {r["iteration"] for r in solver.trace} == set(range(1, 21))
    last = [r for r in solver.trace if r["iteration"] == 20]
    assert sum(r["visits"] for r in last) == 20


@pytest.mark.parametrize("solver_cls", [GenericSolver, StatefulSolver])
def test_tree_reuse_keeps_visits(solver_cls):
    from playout.mcts.reuse import advance_root

    game = Nim(10)
    solver = solver_cls(game, seed=0)
    solver.run_tree_search(iterations=400)
    state = game.initial_state()
    after_us = game.transition(state, 1, None)
    kept = advance_root(solver, 1, after_us)
    assert kept is not None
    before = kept.root.visits
    assert before > 100  # the subtree's visits survive the move
    res = kept.run_tree_search(iterations=100)
    assert kept.root.visits == before + 100
    assert sum(s.visits for s in res.stats) >= 100
