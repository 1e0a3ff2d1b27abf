"""The compiled search runs the Python solvers' algorithm: same decisions, same statistics."""

from __future__ import annotations

import math
import random

import pytest

from playout.domains import get_domain
from playout.domains.connect4 import Connect4
from playout.mcts import compiled
from playout.mcts.generic import GenericSolver
from playout.mcts.stateful import StatefulSolver


def _python(name, iterations, seed, state=None, solver=GenericSolver, mdp=None, **kw):
    spec = get_domain(name)
    mdp = mdp or spec.factory()
    s = solver(
        mdp,
        exploration_constant=kw.get("c", spec.c),
        discount_factor=kw.get("discount", spec.discount),
        simulation_depth_limit=kw.get("depth", spec.depth),
        seed=seed,
        root_state=state,
    )
    return s.run_tree_search(iterations=iterations)


def _means(result):
    return {s.action: s.mean_reward for s in result.stats}


def test_connect4_immediate_win_both_solvers():
    state = Connect4.from_moves("445566")  # first player: c1 or g1 completes the bottom row
    py = _python("connect4", 1000, 1, state)
    nb = compiled.search("connect4", state, 1000, seed=1)
    assert py.action in (2, 6) and nb.action in (2, 6)
    for res in (py, nb):
        assert _means(res)[2] == 1.0 and _means(res)[6] == 1.0


def test_connect4_forced_block_and_statistics():
    state = Connect4.from_moves("142474")  # second player threatens d4; first must block
    py = _python("connect4", 2000, 2, state)
    nb = compiled.search("connect4", state, 2000, seed=2)
    assert py.action == nb.action == 3
    mp, mn = _means(py), _means(nb)
    assert set(mp) == set(mn) == set(range(7))
    for a in range(7):  # losing moves sit near -0.41 (loss one ply later, discount 0.7)
        assert mn[a] == pytest.approx(mp[a], abs=0.05)
    assert mn[0] < -0.3


def test_gridworld_start_compiled_picks_left_or_down_in_95_percent_of_seeds():
    # With C = 0.28 a lucky first rollout can lock the search onto "up" or "right";
    # the Python solver shows the same rate (94.5% over 200 seeds).  Seeds 0..99
    # alone give 93%; over 1000 seeds the share is 96.0%, so that is what we hold.
    picks = [compiled.search("gridworld", None, 1000, seed=s).action for s in range(1000)]
    good = sum(p in ("left", "down") for p in picks)
    assert good >= 950, good


def test_gridworld_statistics_agree_with_python():
    py = [_python("gridworld", 2000, s) for s in range(3)]
    nb = [compiled.search("gridworld", None, 2000, seed=s) for s in range(10)]
    assert all(r.action in ("left", "down") for r in py)

    def best_mean(rs):
        return sum(max(r.stats, key=lambda s: s.visits).mean_reward for r in rs) / len(rs)

    assert best_mean(nb) == pytest.approx(best_mean(py), abs=0.05)
    assert 0.7 < best_mean(nb) < 0.95


def test_twenty48_statistics_agree_with_python_anchor_rule():
    from playout.domains.twenty48 import DEMO_GRID, Twenty48

    mdp = Twenty48(start=DEMO_GRID, anchor_terminal=True)
    py = _python("twenty48", 300, 4, DEMO_GRID, mdp=mdp)
    nb = [compiled.search("twenty48", DEMO_GRID, 300, seed=s, anchor_terminal=True) for s in range(5)]
    mean_nb = sum(max(r.stats, key=lambda s: s.visits).mean_reward for r in nb) / len(nb)
    mean_py = max(py.stats, key=lambda s: s.visits).mean_reward
    assert mean_nb == pytest.approx(mean_py, rel=0.08)


def test_push_your_luck_statistics_agree_with_python():
    py = [_python("push_your_luck", 300, s, depth=60) for s in range(3)]
    nb = [compiled.search("push_your_luck", None, 300, depth=60, seed=s) for s in range(10)]

    def top(rs):
        return sum(max(r.stats, key=lambda s: s.visits).mean_reward for r in rs) / len(rs)

    assert top(nb) == pytest.approx(top(py), rel=0.25)
    assert top(nb) > 20


def _late_reversi_position(empties=12, seed=5):
    from playout.domains.reversi import Reversi

    game, rng = Reversi(), random.Random(seed)
    state = game.initial_state()
    while sum(v == 0 for v in state.cells) > empties:
        state = game.transition(state, rng.choice(game.actions(state)), rng)
    return state


def _random_play_moments(game, state, root_player, memo):
    """Exact (E[X], E[X^2]) of X = final (root player's discs - opponent's) / 64 when both
    sides play uniformly random legal moves from ``state`` (full enumeration, memoised)."""
    from playout.domains.reversi import disc_counts

    got = memo.get(state)
    if got is None:
        acts = game.actions(state)
        if not acts:
            black, white = disc_counts(state.cells)
            x = (black - white) / 64 if root_player == 0 else (white - black) / 64
            got = (x, x * x)
        else:
            pairs = [_random_play_moments(game, game.transition(state, a), root_player, memo) for a in acts]
            got = (sum(p[0] for p in pairs) / len(acts), sum(p[1] for p in pairs) / len(acts))
        memo[state] = got
    return got


def _check_flat_means_against_exact(state, result, game):
    """Each root action's mean reward, from uniform random playouts after it, lies within
    4 standard errors of the exact expectation (the standard error from the exact
    variance and the action's visits)."""
    memo = {}
    checked = 0
    for st in result.stats:
        mu, m2 = _random_play_moments(game, game.transition(state, st.action), state.to_play, memo)
        se = math.sqrt(max(m2 - mu * mu, 0.0) / st.visits)
        assert abs(st.mean_reward - mu) <= 4 * se + 1e-12, (game.action_name(st.action), st.mean_reward, mu, se)
        checked += 1
    return checked


@pytest.mark.parametrize("empties,seed", [(9, 5), (10, 8)])  # white, black to move
def test_reversi_flat_means_match_exact_random_play_values_both_engines(empties, seed):
    """Flat Monte Carlo (max_tree_depth=1, discount 1) from a 9-empty position: the
    compiled kernel's and the Python solver's root means are unbiased estimates of the
    exact uniform-random-play disc difference, so each must lie within 4 standard
    errors of it (about +-0.02 here, on means of order 0.1); a sign or side-to-move
    error in either engine's reward frame moves them by twice the mean."""
    from playout.domains.reversi import Reversi

    game = Reversi()
    state = _late_reversi_position(empties=empties, seed=seed)
    assert state.to_play == empties % 2
    nb = compiled.search("reversi", state, 8000, discount=1.0, seed=seed, max_tree_depth=1)
    spec = get_domain("reversi")
    py = GenericSolver(game, exploration_constant=spec.c, discount_factor=1.0, simulation_depth_limit=999,
                       seed=seed, root_state=state, max_tree_depth=1).run_tree_search(iterations=1500)
    assert _check_flat_means_against_exact(state, nb, game) == len(game.actions(state))
    assert _check_flat_means_against_exact(state, py, game) == len(game.actions(state))
    assert max(abs(s.mean_reward) for s in nb.stats) > 0.05  # not a trivially zero position


def test_reversi_root_that_must_pass_has_the_exact_random_play_value():
    """A root whose player can only pass (white here): the one action is PASS and its
    flat mean is the exact random-play value from white's side."""
    from playout.domains.reversi import PASS, Reversi

    game = Reversi()
    state = next(s for s in (_late_reversi_position(empties=e, seed=k) for e in (6, 7, 8) for k in range(400))
                 if game.actions(s) == [PASS] and s.to_play == 1)
    nb = compiled.search("reversi", state, 3000, discount=1.0, seed=1, max_tree_depth=1)
    assert nb.action == PASS and [s.visits for s in nb.stats] == [3000]
    assert _check_flat_means_against_exact(state, nb, game) == 1


def test_reversi_heuristic_policy_runs_and_differs_from_uniform():
    state = _late_reversi_position(empties=30, seed=9)
    h = compiled.search("reversi", state, 400, seed=1, policy="heuristic")
    u = compiled.search("reversi", state, 400, seed=1)
    assert sum(s.visits for s in h.stats) == 400
    assert [s.mean_reward for s in h.stats] != [s.mean_reward for s in u.stats]


def test_seeded_reproducible_and_visits_sum_to_iterations():
    a = compiled.search("twenty48", None, 200, seed=7)
    b = compiled.search("twenty48", None, 200, seed=7)
    c = compiled.search("twenty48", None, 200, seed=8)
    assert a.stats == b.stats
    assert a.stats != c.stats
    assert sum(s.visits for s in a.stats) == 200
    assert a.iterations == 200


def test_max_tree_depth_one_keeps_a_flat_tree():
    r = compiled.search("connect4", None, 700, seed=1, max_tree_depth=1)
    assert sum(s.visits for s in r.stats) == 700
    # flat Monte Carlo still spreads visits over all seven columns
    assert all(s.visits >= 50 for s in r.stats)


def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="no compiled path"):
        compiled.search("chess")
    with pytest.raises(ValueError, match="reversi only"):
        compiled.search("connect4", None, 10, policy="heuristic")
    with pytest.raises(ValueError, match="terminal"):
        compiled.search("connect4", Connect4.from_moves("4455667"), 10)
    with pytest.raises(ValueError, match="iterations"):
        compiled.search("connect4", None, 0)


def test_time_budget_runs_and_respects_iteration_cap():
    r = compiled.search("connect4", None, seconds=0.05, seed=3)
    assert r.iterations > 100
    assert sum(s.visits for s in r.stats) == r.iterations
    capped = compiled.search("gridworld", None, iterations=300, seconds=5.0, seed=3)
    assert capped.iterations == 300 and sum(s.visits for s in capped.stats) == 300
    with pytest.raises(ValueError, match="seconds"):
        compiled.search("connect4", None, seconds=0.0)


def test_search_resumes_across_kernel_calls_exactly():
    # two kernel calls of 150 + 250 iterations continue one search: same tree as 400 at once
    import numpy as np

    spec = get_domain("twenty48")
    root = compiled.state_array("twenty48", spec.factory().initial_state())
    dom = compiled.resolve("twenty48")
    fixed = (float(spec.c), float(spec.discount), int(spec.depth), compiled.NO_LIMIT, False, np.zeros(1), False)
    tree = compiled._Tree(dom.n_actions, 2, 11)  # small: forces growth
    for n in (150, 250):
        tree.reserve(n)
        args = (root, n, *fixed, *tree.arrays(), 1.0)  # rollout_weight 1: the rollout alone
        compiled._entry(dom, args)(*args)
    once = compiled.search_array("twenty48", root, 400, spec.c, spec.discount, spec.depth, seed=11)
    by_action = {s.action: s for s in once.stats}
    for a in range(4):
        ch = tree.child[0, a]
        if ch >= 0:
            st = by_action[dom.action_of(a)]
            assert tree.visits[ch] == st.visits
            assert tree.total[ch] / tree.visits[ch] == pytest.approx(st.mean_reward, rel=1e-12)
