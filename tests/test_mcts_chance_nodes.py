"""Explicit chance nodes in the stateful solver: ``chance="expected"`` (issue 16 item 3)."""

from __future__ import annotations

import pytest

from playout.domains.push_your_luck import PushYourLuck
from playout.domains.twenty48 import DEMO_GRID, Twenty48
from playout.mdp import MDP
from playout.mcts import StatefulSolver


class Gamble(MDP):
    """``safe`` pays 2.5; ``gamble`` pays 10 with probability 0.3, 4 with 0.2, else 0
    (expectation 3.8); every successor is terminal."""

    OUT = {"win": (0.3, 10.0), "some": (0.2, 4.0), "lose": (0.5, 0.0)}

    def initial_state(self): return "start"
    def actions(self, s): return ["safe", "gamble"]

    def transition(self, s, a, rng):
        if a == "safe":
            return "end"
        u = rng.random()
        return "win" if u < 0.3 else ("some" if u < 0.5 else "lose")

    def reward(self, s, a, t): return 2.5 if t == "end" else self.OUT[t][1]
    def is_terminal(self, s): return s != "start"

    def chance_outcomes(self, s, a):
        if a == "safe":
            return [("end", 1.0)]
        return [(t, p) for t, (p, _) in self.OUT.items()]


class TwoLevel(MDP):
    """``go`` leads with probability 0.25 to ``A`` (reward 0), else to ``B`` (reward 2, terminal);
    from ``A`` one action ``spin`` pays 8 with probability 0.5, else 0.  With discount 0.5 the
    value of ``go`` is 0.25 * 0.5 * 4 + 0.75 * 2 = 2.0."""

    def initial_state(self): return "s"
    def actions(self, s): return ["go"] if s == "s" else ["spin"]
    def transition(self, s, a, rng):  # rollouts sample
        outs = self.chance_outcomes(s, a)
        return outs[0][0] if rng.random() < outs[0][1] else outs[1][0]
    def reward(self, s, a, t): return {"A": 0.0, "B": 2.0, "hi": 8.0, "lo": 0.0}[t]
    def is_terminal(self, s): return s in ("B", "hi", "lo")

    def chance_outcomes(self, s, a):
        return [("A", 0.25), ("B", 0.75)] if s == "s" else [("hi", 0.5), ("lo", 0.5)]


def edge(solver, action):
    return solver.root.edges[action]


def test_expected_chance_edge_is_the_exact_probability_weighted_mean():
    s = StatefulSolver(Gamble(), chance="expected", seed=0, exploration_constant=5.0)
    s.run_tree_search(iterations=40)
    e = edge(s, "gamble")
    assert e.visits >= 3  # every outcome visited
    assert e.total / e.visits == pytest.approx(0.3 * 10 + 0.2 * 4, abs=1e-12)
    # stratified descents: the outcome counts follow the probabilities (within one)
    for t, (p, _) in Gamble.OUT.items():
        assert abs(e.ostats[t][0] - p * e.visits) <= 1
    assert edge(s, "safe").total / edge(s, "safe").visits == pytest.approx(2.5)
    assert s.result().action == "gamble"


def test_sampled_mode_is_todays_empirical_mean():
    s = StatefulSolver(Gamble(), seed=0, exploration_constant=5.0)
    s.run_tree_search(iterations=40)
    e = edge(s, "gamble")
    counts = {t: 0 for t in Gamble.OUT}
    for t, (child, _) in e.outcomes.items():
        counts[t] = child.visits
    empirical = sum(counts[t] * Gamble.OUT[t][1] for t in counts) / e.visits
    assert e.total / e.visits == pytest.approx(empirical)
    assert e.total / e.visits != pytest.approx(3.8)


def test_nested_chance_edges_back_up_the_expectation():
    s = StatefulSolver(TwoLevel(), chance="expected", discount_factor=0.5, seed=0)
    s.run_tree_search(iterations=12)
    go = edge(s, "go")
    spin = go.outcomes["A"][0].edges["spin"]
    assert spin.total / spin.visits == pytest.approx(4.0, abs=1e-12)  # 0.5 * 8 + 0.5 * 0
    # go's value: 0.25 * (mean return through A) + 0.75 * 2, exactly; each return through A
    # is 0 + 0.5 * (spin's expectation when it was backed up), 2.0 once both spins were seen
    n_a, total_a = go.ostats["A"]
    n_b, total_b = go.ostats["B"]
    assert total_b == pytest.approx(2.0 * n_b)
    assert go.total / go.visits == pytest.approx(0.25 * total_a / n_a + 0.75 * 2.0, abs=1e-12)
    assert n_b == 3 * n_a  # stratified: 1 in 4 descents through A
    last = 0.5 * spin.total / spin.visits
    assert last == pytest.approx(2.0)


def test_expected_mode_without_outcomes_samples_as_before():
    """An MDP that lists no outcomes: the two modes run the same search."""

    class NoList(Gamble):
        def chance_outcomes(self, s, a): return None

    a = StatefulSolver(NoList(), seed=4).run_tree_search(iterations=60)
    b = StatefulSolver(NoList(), seed=4, chance="expected").run_tree_search(iterations=60)
    assert a.stats == b.stats


def test_builtin_outcome_lists_match_the_sampler():
    pyl = PushYourLuck()
    s = pyl.initial_state()
    roll = dict(pyl.chance_outcomes(s, "roll"))
    assert len(roll) == 6 and all(p == pytest.approx(1 / 6) for p in roll.values())
    assert pyl.chance_outcomes(s, "cashout") == [((False,) * 6, 1.0)]
    g = Twenty48(start=DEMO_GRID)
    left = dict(g.chance_outcomes(DEMO_GRID, "left"))
    assert sum(left.values()) == pytest.approx(1.0)
    # left: [2,0,0,0] [4,0,0,0] [128,4,0,0] [128,...]: 3 + 3 + 2 empty cells, x {2, 4}
    assert len(left) == 16 and max(left.values()) == pytest.approx(0.9 / 8)
    assert min(left.values()) == pytest.approx(0.1 / 8)
    import random

    rng = random.Random(1)
    for _ in range(50):
        assert g.transition(DEMO_GRID, "left", rng) in left


def test_expected_mode_runs_on_the_builtins_with_the_mcts_solver_too():
    res = StatefulSolver(Twenty48(start=DEMO_GRID), chance="expected", discount_factor=0.9,
                         simulation_depth_limit=10, seed=0).run_tree_search(iterations=60)
    assert sum(st.visits for st in res.stats) == 60
    res = StatefulSolver(Gamble(), chance="expected", mcts_solver=True, seed=0).run_tree_search(iterations=500)
    assert res.value == pytest.approx(3.8) and res.action == "gamble"
    with pytest.raises(ValueError, match="chance must be 'sampled' or 'expected'"):
        StatefulSolver(Gamble(), chance="exact")
