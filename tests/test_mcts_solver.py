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


class FakeClock:
    """``time.perf_counter`` stand-in: time moves only when an iteration runs."""

    TICK = 1 / 64  # exact in binary, so budgets of k ticks compare exactly

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize("make", [
    lambda: GenericSolver(Corridor(), seed=0, discount_factor=0.9),
    lambda: StatefulSolver(Corridor(), seed=0, discount_factor=0.9),
    lambda: StatefulSolver(Nim(30), seed=0, mcts_solver=True),  # the chunked loop
])
def test_seconds_budget_stops(monkeypatch, make):
    # a seconds budget of 5 iterations' worth of (fake) time runs exactly 5
    # iterations and reports the time it used; no wall clock involved
    import time

    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    solver = make()
    step = solver.run_tree_search_iteration

    def timed_iteration():
        step()
        clock.now += FakeClock.TICK

    monkeypatch.setattr(solver, "run_tree_search_iteration", timed_iteration)
    res = solver.run_tree_search(seconds=5 * FakeClock.TICK)
    assert res.iterations == solver.iterations_done == 5
    assert sum(s.visits for s in res.stats) == 5
    assert res.seconds == 5 * FakeClock.TICK
    res = solver.run_tree_search(iterations=3, seconds=100.0)  # the iteration budget binds first
    assert res.iterations == 8 and res.seconds == 3 * FakeClock.TICK


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


# -- MCTS-Solver and chance ------------------------------------------------------------
class Gamble(MDP):
    """'safe' pays 0; 'gamble' wins +1 with probability p, else pays -1 (mean 2p - 1 < 0).

    With ``via_jackpot`` the win is one deterministic step later ('jackpot', then
    'collect' pays +1), so the lucky sample proves a non-terminal child.
    """

    def __init__(self, p, via_jackpot=False, declared=False):
        self.p, self.via_jackpot, self.declared = p, via_jackpot, declared

    def initial_state(self):
        return "start"

    def actions(self, s):
        return ["safe", "gamble"] if s == "start" else ["collect"]

    def _lucky(self):
        return "jackpot" if self.via_jackpot else "won"

    def transition(self, s, a, rng):
        if a == "safe":
            return "safe-end"
        if a == "collect":
            return "won"
        return self._lucky() if rng.random() < self.p else "lost"

    def chance_outcomes(self, s, a):
        if not self.declared:
            return None
        if a == "gamble":
            return [(self._lucky(), self.p), ("lost", 1 - self.p)]
        return [("safe-end" if a == "safe" else "won", 1.0)]

    def reward(self, s, a, t):
        return {"safe-end": 0.0, "lost": -1.0, "won": 1.0, "jackpot": 0.0}[t]

    def is_terminal(self, s):
        return s in ("safe-end", "lost", "won")


@pytest.mark.parametrize("p,via_jackpot,declared", [
    (0.1, False, False), (0.4, False, False), (0.1, True, False), (0.4, True, False),
    (0.4, False, True), (0.4, True, True),
])
def test_mcts_solver_does_not_prove_a_gamble_from_one_sample(p, via_jackpot, declared):
    # Before the fix one sampled outcome proved the edge: a lucky first sample
    # returned 'gamble' as a proven win (12 of these 40 seeds at p=0.4), an unlucky
    # one proved it lost. Neither is a proof: the gamble is worth 2p - 1.
    # Declared, the gamble's exact value 2p - 1 is proven once both outcomes are in
    # the tree, and the root is solved at 0 ('safe'): an early stop with the right
    # value. A one-player MDP has no win or loss to prove.
    for seed in range(40):
        solver = StatefulSolver(Gamble(p, via_jackpot, declared), mcts_solver=True, seed=seed)
        res = solver.run_tree_search(iterations=1000)
        gamble, safe = solver.root.edges["gamble"], solver.root.edges["safe"]
        assert res.action == "safe", seed
        assert res.proven == 0 and gamble.proven == 0 and safe.proven == 0, seed
        assert safe.lo == safe.hi == 0.0, seed  # a deterministic edge: solved at once
        if declared:
            assert gamble.lo == gamble.hi == pytest.approx(2 * p - 1), seed
            assert res.value == 0.0 and res.iterations < 1000, seed
        else:
            assert gamble.lo == -math.inf and gamble.hi == math.inf, seed
            assert res.value is None and res.iterations == 1000, seed  # nothing to stop on


class SureBet(MDP):
    """'coin' lands 'heads' or 'tails', both paying +1; 'pass' pays 0."""

    def __init__(self, declared):
        self.declared = declared

    def initial_state(self):
        return "start"

    def actions(self, s):
        return ["pass", "coin"]

    def transition(self, s, a, rng):
        return "passed" if a == "pass" else rng.choice(["heads", "tails"])

    def chance_outcomes(self, s, a):
        if not self.declared:
            return None
        return [("passed", 1.0)] if a == "pass" else [("heads", 0.5), ("tails", 0.5)]

    def reward(self, s, a, t):
        return 0.0 if t == "passed" else 1.0

    def is_terminal(self, s):
        return s != "start"


def test_mcts_solver_proves_through_enumerated_chance():
    res = StatefulSolver(SureBet(declared=True), mcts_solver=True, seed=0).run_tree_search(iterations=1000)
    assert res.value == 1.0 and res.action == "coin"
    assert res.proven == 0  # a one-player MDP: a value, not a win
    assert res.iterations <= 64  # stopped after the first chunk in which both outcomes were seen
    # undeclared, the coin is a chance edge the solver cannot enumerate: no proof
    solver = StatefulSolver(SureBet(declared=False), mcts_solver=True, seed=0)
    res = solver.run_tree_search(iterations=300)
    assert res.value is None and res.iterations == 300 and res.action == "coin"
    assert set(solver.root.edges["coin"].outcomes) == {"heads", "tails"}


class ChanceNim(Game):
    """Nim (take 1 or 2; taking the last stone wins) with a chance step after each move
    that leaves more than 3 stones: with probability ``q`` another ``drop`` stones go.

    ``drop=3`` keeps the heap's residue mod 3, so every position stays won or lost
    outright although each long move passes a chance node; ``drop=1`` makes values
    fractional. ``exact`` is the mover's winning probability by expectimax.
    """

    def __init__(self, heap, drop, q=0.5, declared=True):
        self.heap, self.drop, self.q, self.declared = heap, drop, q, declared

    def initial_state(self):
        return (self.heap, 0)

    def actions(self, s):
        return [k for k in (1, 2) if k <= s[0]]

    def _after(self, s, k):
        r = s[0] - k
        if r > 3:
            return [((r, 1 - s[1]), 1 - self.q), ((r - self.drop, 1 - s[1]), self.q)]
        return [((r, 1 - s[1]), 1.0)]

    def transition(self, s, a, rng):
        outs = self._after(s, a)
        if len(outs) == 1:
            return outs[0][0]  # no chance step: no draw
        return outs[1][0] if rng.random() < self.q else outs[0][0]

    def chance_outcomes(self, s, a):
        return self._after(s, a) if self.declared else None

    def reward(self, s, a, t):
        return 1.0 if t[0] == 0 else 0.0

    def is_terminal(self, s):
        return s[0] == 0

    def to_play(self, s):
        return s[1]

    def edge_value(self, h, k):
        """Exact winning probability of taking ``k`` from heap ``h`` for the mover."""
        return sum(p * (1.0 if t[0] == 0 else 1.0 - self.exact(t[0]))
                   for t, p in self._after((h, 0), k))

    def exact(self, h):
        return max(self.edge_value(h, k) for k in (1, 2) if k <= h)


def assert_proofs_sound(solver, game):
    """Every proven edge in the tree is an exact win (1) or loss (0) for its chooser,
    and every edge's value bounds hold the expectimax value (2 P(win) - 1 in the
    +1/-1 reward frame), with equality when solved. Returns (#won/lost, #solved)."""
    seen, stack, proven, solved = set(), [solver.root], 0, 0
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for k, edge in node.edges.items():
            exact = game.edge_value(node.state[0], k)
            if edge.proven:
                proven += 1
                assert exact == (1.0 if edge.proven > 0 else 0.0), (node.state, k)
            value = 2 * exact - 1
            assert edge.lo - 1e-12 <= value <= edge.hi + 1e-12, (node.state, k, edge.lo, edge.hi)
            if edge.lo == edge.hi:
                solved += 1
                assert edge.lo == pytest.approx(value, abs=1e-12), (node.state, k)
            stack.extend(child for child, _ in edge.outcomes.values())
    return proven, solved


@pytest.mark.parametrize("heap", [5, 6, 7, 8, 9, 10, 11])
def test_mcts_solver_chance_nim_matches_expectimax(heap):
    game = ChanceNim(heap, drop=3)
    value = game.exact(heap)
    assert value in (0.0, 1.0)  # the residue argument
    solver = StatefulSolver(game, mcts_solver=True, transpositions=True, seed=0)
    res = solver.run_tree_search(iterations=20000)
    assert res.proven == (1 if value == 1.0 else -1)
    assert res.iterations < 20000
    if value == 1.0:
        assert game.edge_value(heap, res.action) == 1.0  # the proven move keeps the win
    assert assert_proofs_sound(solver, game)[0] > 0


@pytest.mark.parametrize("heap", [6, 7, 9, 10])
@pytest.mark.parametrize("drop,declared", [(1, True), (3, False), (1, False)])
def test_mcts_solver_chance_nim_no_false_proofs(heap, drop, declared):
    # fractional values (drop=1), or chance the solver cannot enumerate: the root
    # (both of whose moves pass a chance node) is no proven win or loss, and every
    # proof in the tree is exact. Enumerated, the fractional root value itself may
    # be solved (then it is the expectimax value, and the search stops there).
    game = ChanceNim(heap, drop=drop, declared=declared)
    solver = StatefulSolver(game, mcts_solver=True, transpositions=True, seed=1)
    res = solver.run_tree_search(iterations=3000)
    assert res.proven == 0
    if drop == 1:
        assert 0.0 < game.exact(heap) < 1.0
    if res.value is None:
        assert res.iterations == 3000
    else:
        assert declared and res.iterations < 3000
        assert res.value == pytest.approx(2 * game.exact(heap) - 1, abs=1e-12)
        assert game.edge_value(heap, res.action) == pytest.approx(game.exact(heap), abs=1e-12)
    proven, _ = assert_proofs_sound(solver, game)
    assert proven > 0  # deterministic endgame edges are still proven


class BadOutcomes(Gamble):
    def __init__(self, outcomes):
        super().__init__(0.5)
        self.outcomes = outcomes

    def chance_outcomes(self, s, a):
        return self.outcomes if a == "gamble" else None


@pytest.mark.parametrize("outcomes,message", [
    ([("won", 0.5), ("lost", 0.4)], r"BadOutcomes\.chance_outcomes for action 'gamble' from state 'start': probabilities sum to 0\.9"),
    ([("won", -0.5), ("lost", 1.5)], r"probability -0\.5 of 'won' is not a finite number >= 0"),
    ([("won", 1.0)], r"BadOutcomes\.transition sampled 'lost' for action 'gamble' from state 'start', which chance_outcomes does not list"),
    (["won"], r"'won' is not a \(next_state, probability\) pair"),
])
def test_chance_outcomes_errors_name_the_member(outcomes, message):
    with pytest.raises(MDPError, match=message):
        StatefulSolver(BadOutcomes(outcomes), mcts_solver=True, seed=0).run_tree_search(iterations=200)


def test_draw_counting_random_keeps_the_stream():
    import random

    from playout.mcts.stateful import DrawCountingRandom

    plain, counting = random.Random(7), DrawCountingRandom()
    counting.setstate(plain.getstate())

    def draws(r):
        return [r.random(), r.randrange(10), r.choice("abcdef"), r.choices([1, 2, 3])[0],
                r.randint(1, 6), r.gauss(0.0, 1.0), r.sample(range(50), 3)]

    assert draws(plain) == draws(counting)
    assert counting.draws >= 9  # every call drew at least once


# -- proofs are exact values -------------------------------------------------------------
class TwoPrizes(MDP):
    """'small' pays 0.1 and 'big' pays 1.0, both ending the episode; with ``wait``
    also a 'wait' that pays 0 and stays (an endless corridor: never solved)."""

    def __init__(self, wait=False, bounds=None):
        self.wait, self.bounds = wait, bounds

    def initial_state(self):
        return 0

    def actions(self, s):
        return ["small", "big", "wait"] if self.wait else ["small", "big"]

    def transition(self, s, a, rng):
        return s + 1 if a == "wait" else a

    def reward(self, s, a, t):
        return {"small": 0.1, "big": 1.0, "wait": 0.0}[a]

    def is_terminal(self, s):
        return isinstance(s, str)

    def value_bounds(self):
        return self.bounds


def test_mcts_solver_a_small_reward_is_no_win():
    # Before the fix any positive terminal reward of a one-player MDP was a proven
    # win: the search stopped on whichever prize it tried first and played 'small'
    # for 5 of 8 seeds. Now the root is solved once both are tried, at 1.0.
    for seed in range(40):
        solver = StatefulSolver(TwoPrizes(), mcts_solver=True, seed=seed)
        res = solver.run_tree_search(iterations=500)
        assert res.action == "big" and res.value == 1.0, seed
        assert res.proven == 0 and res.iterations == 64, seed  # stopped after the first chunk
        assert solver.root.edges["small"].lo == solver.root.edges["small"].hi == 0.1


def test_mcts_solver_value_bounds_shortcut():
    # An endless 'wait' keeps the root unsolved unless the domain declares that no
    # return exceeds 1: then 'big' reaching 1.0 solves it (one winning move suffices)
    for seed in range(10):
        res = StatefulSolver(TwoPrizes(wait=True), mcts_solver=True, seed=seed).run_tree_search(iterations=300)
        assert res.value is None and res.iterations == 300 and res.action == "big", seed
        res = StatefulSolver(TwoPrizes(wait=True, bounds=(0.0, 1.0)), mcts_solver=True,
                             seed=seed).run_tree_search(iterations=300)
        assert res.value == 1.0 and res.iterations == 64 and res.action == "big", seed


@pytest.mark.parametrize("bounds,message", [
    ((0.0, 0.5), r"TwoPrizes\.value_bounds declares values in \[0\.0, 0\.5\], but action 'big' from "
                 r"state 0 is proven worth at least 1\.0"),
    ((0.2, 2.0), r"TwoPrizes\.value_bounds declares values in \[0\.2, 2\.0\], but action 'small' from "
                 r"state 0 is proven worth at most 0\.1"),
    ((1.0, 0.0), r"TwoPrizes\.value_bounds returned \(1\.0, 0\.0\): lo > hi"),
    ((0.0, math.nan), r"TwoPrizes\.value_bounds returned \(0\.0, nan\): nan is not a real number"),
    (1.0, r"TwoPrizes\.value_bounds must return \(lo, hi\) or None, got 1\.0"),
])
def test_value_bounds_errors_name_the_member(bounds, message):
    with pytest.raises(MDPError, match=message):
        StatefulSolver(TwoPrizes(bounds=bounds), mcts_solver=True, seed=0).run_tree_search(iterations=50)


class Paths(MDP):
    """Path A pays 0.5 now, then 0; path B pays 0 now, then 0.6 ('go') or 0 ('stop').

    Exact values: A = 0.5, B = g * 0.6, so B is better at g = 1 and A at g = 0.5.
    """

    def initial_state(self):
        return "start"

    def actions(self, s):
        return {"start": ["A", "B"], "a1": ["go"], "b1": ["go", "stop"]}[s]

    def transition(self, s, a, rng):
        if s == "start":
            return "a1" if a == "A" else "b1"
        return "end"

    def reward(self, s, a, t):
        return {("start", "A"): 0.5, ("b1", "go"): 0.6}.get((s, a), 0.0)

    def is_terminal(self, s):
        return s == "end"


@pytest.mark.parametrize("discount,action,value", [(1.0, "B", 0.6), (0.5, "A", 0.5), (0.9, "B", 0.54)])
def test_mcts_solver_counts_intermediate_rewards(discount, action, value):
    # Before the fix B's 0.6 at the end was a "win" and A's 0.5 on the way ignored:
    # B was proven at every discount
    for seed in range(20):
        solver = StatefulSolver(Paths(), mcts_solver=True, discount_factor=discount, seed=seed)
        res = solver.run_tree_search(iterations=1000)
        assert res.action == action and res.value == pytest.approx(value, abs=1e-15), seed
        assert res.proven == 0 and res.iterations < 1000, seed
        edges = solver.root.edges
        assert edges["A"].lo == edges["A"].hi == 0.5
        assert edges["B"].lo == edges["B"].hi == pytest.approx(discount * 0.6, abs=1e-15)


class Grab(Game):
    """Player 0 may 'grab' (+0.5 to them now), after which player 1 ends the game
    with +0.1 to themselves, or 'pass' (0), after which player 1 ends it with +0.2.

    Every game ends in a positive reward for player 1, yet player 0's return is
    0.5 - 0.1 = 0.4 after 'grab': a reward before the end makes results returns.
    """

    def initial_state(self):
        return "start"

    def actions(self, s):
        return ["grab", "pass"] if s == "start" else ["end"]

    def transition(self, s, a, rng):
        return {"grab": "grabbed", "pass": "passed", "end": "over-" + s}[a]

    def reward(self, s, a, t):
        return {"grab": 0.5, "pass": 0.0, "end": 0.1 if s == "grabbed" else 0.2}[a]

    def is_terminal(self, s):
        return s.startswith("over")

    def to_play(self, s):
        return 0 if s == "start" else 1


def test_mcts_solver_game_with_rewards_before_the_end():
    # Before the fix: player 1's positive final rewards made every line a "proven
    # win" for player 1, so the root was a proven loss for player 0
    for seed in range(20):
        res = StatefulSolver(Grab(), mcts_solver=True, seed=seed).run_tree_search(iterations=500)
        assert res.proven == 0, seed
        assert res.action == "grab" and res.value == pytest.approx(0.4, abs=1e-15), seed


def nim_negamax(heap, discount):
    """Exact discounted value of Nim (take 1 or 2, last stone wins +1) for the mover."""
    values = [0.0] * (heap + 1)
    for h in range(1, heap + 1):
        values[h] = max(1.0 if h == k else -discount * values[h - k] for k in (1, 2) if k <= h)
    return values


def assert_bounds_hold(solver, exact_of):
    """Every node's and edge's bounds hold the exact value ``exact_of(state)`` (mover's
    frame), with equality when solved; returns the number of solved edges."""
    seen, stack, solved = set(), [solver.root], 0
    while stack:
        node = stack.pop()
        if id(node) in seen or node.terminal:
            continue
        seen.add(id(node))
        v = exact_of(node.state)
        assert node.lo - 1e-12 <= v <= node.hi + 1e-12, (node.state, node.lo, node.hi, v)
        if node.lo == node.hi:
            assert node.lo == pytest.approx(v, abs=1e-12), node.state
        for edge in node.edges.values():
            (child, reward), = edge.outcomes.values()
            mine = reward * (1 if edge.player == 0 else -1)
            if not child.terminal:
                sign = 1 if child.player == edge.player else -1
                mine += solver.discount * sign * exact_of(child.state)
            assert edge.lo - 1e-12 <= mine <= edge.hi + 1e-12, (node.state, edge.action)
            if edge.lo == edge.hi:
                solved += 1
                assert edge.lo == pytest.approx(mine, abs=1e-12), (node.state, edge.action)
            stack.append(child)
    return solved


@pytest.mark.parametrize("discount", [1.0, 0.9, 0.5])
@pytest.mark.parametrize("heap", [2, 4, 6, 7, 9])
def test_mcts_solver_nim_bounds_hold_the_exact_value(heap, discount):
    exact = nim_negamax(heap, discount)
    for seed in range(3):
        solver = StatefulSolver(Nim(heap), mcts_solver=True, transpositions=True,
                                discount_factor=discount, seed=seed)
        res = solver.run_tree_search(iterations=5000)
        assert res.proven == (1 if exact[heap] > 0 else -1)
        if res.value is not None:
            assert res.value == pytest.approx(exact[heap], abs=1e-12)
        assert assert_bounds_hold(solver, lambda s: exact[s[0]]) > 0


class BoundedNim(Nim):
    def value_bounds(self):
        return (-1.0, 1.0)


@pytest.mark.parametrize("heap", [4, 5, 6, 7, 9, 10])
def test_mcts_solver_nim_exact_value_with_bounds(heap):
    # undiscounted, every win is worth 1 = the declared maximum: the exact value is
    # proven together with the result, and the proven move keeps it
    exact = nim_negamax(heap, 1.0)
    solver = StatefulSolver(BoundedNim(heap), mcts_solver=True, transpositions=True, seed=0)
    res = solver.run_tree_search(iterations=20000)
    assert res.value == exact[heap] == res.proven
    assert res.iterations < 20000
    if res.value > 0:
        assert exact[heap - res.action] == -1.0
    assert assert_bounds_hold(solver, lambda s: exact[s[0]]) > 0
