"""PUCT priors and leaf value functions in the Python solvers (issue 16 item 2)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from playout.domains.connect4 import Connect4
from playout.domains.connect4_solver import Solver as ExactSolver
from playout.mdp import MDP, MDPError
from playout.mcts import GenericSolver, StatefulSolver

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
G = 0.7  # the anchor's Connect 4 discount


def rows(name, n):
    lines = [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]
    return [(m, int(s)) for m, s in lines[:n]]


def pons_value(stones, score, discount):
    """Pons' score (side to move, ``stones`` discs played) as the exact discounted value
    for the mover: +-discount**(k-1) for a four made k plies from now, 0 for a draw."""
    if score == 0:
        return 0.0
    parity = 1 if score > 0 else 0
    for k in (44 - stones - 2 * abs(score), 43 - stones - 2 * abs(score)):
        if k % 2 == parity:
            return math.copysign(discount ** (k - 1), score)
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def exact():
    return ExactSolver()


# -- PUCT: a prior that points at the winning move --------------------------------------
def until_proven(root, prior_fn, seed, cap=3000):
    """Iterations until MCTS-Solver proves the root (one at a time)."""
    s = StatefulSolver(Connect4(), root_state=root, mcts_solver=True, transpositions=True,
                       discount_factor=G, seed=seed, prior_fn=prior_fn)
    while s.iterations_done < cap and not s._root_done():
        s.run_tree_search_iteration()
    return s.iterations_done, s.result()


#: Test_L3_R1 positions with one winning column (0-based) that is not an immediate win, and
#: the iterations to prove the win at seeds 0 and 1: (uniform UCT, PUCT with the prior)
PRIOR_CASES = [
    ("655651721435342216255374674123", 2, (327, 316), (60, 64)),
    ("67152117737262713366376314254", 4, (82, 130), (37, 34)),
    ("2762751722231276466633475674533", 3, (46, 28), (18, 19)),
]


@pytest.mark.parametrize("moves,win,uniform,guided", PRIOR_CASES)
def test_a_prior_on_the_winning_move_proves_it_in_fewer_iterations(exact, moves, win, uniform, guided):
    scores = exact.move_scores(moves)
    assert [c for c, s in enumerate(scores) if s == max(x for x in scores if x is not None)] == [win]
    root = Connect4.from_moves(moves)
    acts = Connect4().actions(root)

    def prior(state):  # 0.9 on the winning column at the root, uniform below
        if state == root:
            return [0.9 if a == win else 0.1 / (len(acts) - 1) for a in acts]
        return [1.0] * len(Connect4().actions(state))

    for seed, u, p in zip((0, 1), uniform, guided):
        n_uniform, r_uniform = until_proven(root, None, seed)
        n_prior, r_prior = until_proven(root, prior, seed)
        assert (n_uniform, n_prior) == (u, p)  # measured at these seeds
        assert n_prior < n_uniform
        assert r_uniform.proven == r_prior.proven == 1 and r_uniform.action == r_prior.action == win


def test_puct_expands_by_prior_and_skips_a_zero_prior_action():
    """A prior of 0 on an action: PUCT never tries it while the others' values are equal."""

    class Three(MDP):
        def initial_state(self): return "s"
        def actions(self, s): return ["a", "b", "c"]
        def transition(self, s, a, rng): return a
        def reward(self, s, a, t): return 1.0
        def is_terminal(self, s): return s != "s"

    for cls in (StatefulSolver, GenericSolver):
        res = cls(Three(), seed=0, prior_fn=lambda s: [0.5, 0.5, 0.0]).run_tree_search(iterations=50)
        assert {st.action: st.visits for st in res.stats} == {"a": 25, "b": 25}
        res = cls(Three(), seed=0, prior_fn=lambda s: {"c": 1.0}).run_tree_search(iterations=10)
        assert [(st.action, st.visits) for st in res.stats] == [("c", 10)]


def test_dirichlet_noise_mixes_the_root_prior_only():
    s = StatefulSolver(Connect4(), seed=3, prior_fn=lambda s: [1.0] * 7, dirichlet_alpha=0.3,
                       dirichlet_fraction=0.25)
    root = s.root.state
    p = s.prior(root, s.root.actions, root=True)
    assert sum(p.values()) == pytest.approx(1.0)
    assert all(v >= 0.75 / 7 - 1e-12 for v in p.values())  # (1 - 0.25) * uniform + noise
    assert max(p.values()) > 1 / 7 + 0.01  # the noise moved it
    q = s.prior(root, s.root.actions, root=False)
    assert all(v == pytest.approx(1 / 7) for v in q.values())
    # seeded: the same noise again
    s2 = StatefulSolver(Connect4(), seed=3, prior_fn=lambda s: [1.0] * 7, dirichlet_alpha=0.3)
    assert s2.prior(root, s2.root.actions, root=True) == p


@pytest.mark.parametrize("prior,msg", [
    ([0.5, 0.5], "gave 2 probabilities for 7 legal actions"),
    ([1, 1, 1, -1, 1, 1, 1], "-1.0 is not a finite number >= 0"),
    ([0] * 7, "the probabilities sum to 0"),
])
def test_a_bad_prior_is_one_clear_error(prior, msg):
    with pytest.raises(MDPError, match=msg):
        StatefulSolver(Connect4(), seed=0, prior_fn=lambda s: prior).run_tree_search(iterations=3)


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError, match="exploration must be one of"):
        StatefulSolver(Connect4(), exploration="minmax")
    with pytest.raises(ValueError, match="give value_fn too"):
        GenericSolver(Connect4(), rollout_weight=0.5)
    with pytest.raises(ValueError, match="dirichlet_alpha"):
        GenericSolver(Connect4(), prior_fn=lambda s: [1] * 7, dirichlet_alpha=0)
    with pytest.raises(MDPError, match="value_fn returned nan"):
        GenericSolver(Connect4(), value_fn=lambda s: float("nan"), seed=0).run_tree_search(iterations=2)


# -- a perfect value function: depth-1 search plays perfectly ----------------------------
def depth1_choice(exact, moves, with_value, seed=0, iterations=100):
    game = Connect4()
    root = Connect4.from_moves(moves)
    children = {Connect4.from_moves(moves + str(c + 1)): moves + str(c + 1) for c in game.actions(root)}

    def value(state):  # the exact value for the player to move at the child
        m = children[state]
        return pons_value(len(m), exact.solve(m), G)

    return StatefulSolver(game, root_state=root, max_tree_depth=1, discount_factor=G, seed=seed,
                          exploration_constant=0.0, value_fn=value if with_value else None
                          ).run_tree_search(iterations=iterations).action


@pytest.mark.parametrize("name,n", [("Test_L3_R1", 60), ("Test_L2_R2", 30)])
def test_a_perfect_value_function_makes_a_depth_one_search_play_perfectly(exact, name, n):
    wrong_with_value, wrong_with_rollouts = [], []
    for moves, score in rows(name, n):
        scores = exact.move_scores(moves)
        assert max(s for s in scores if s is not None) == score  # the file's value
        best = {c for c, s in enumerate(scores) if s == score}
        if depth1_choice(exact, moves, True) not in best:
            wrong_with_value.append(moves)
        if depth1_choice(exact, moves, False) not in best:
            wrong_with_rollouts.append(moves)
    assert wrong_with_value == []
    assert wrong_with_rollouts  # the same search on rollouts misplays some: the value is what plays


def test_value_fn_frame_is_the_mover_and_lambda_mixes_a_rollout():
    """A two-step game: player 0 moves to a state where player 1 is to move; value_fn says
    +1 for the mover there, so the edge is worth -1 * g for player 0."""
    from playout.mdp import Game

    class TwoStep(Game):
        def initial_state(self): return 0
        def actions(self, s): return ["go"]
        def transition(self, s, a, rng): return s + 1
        def reward(self, s, a, t): return 1.0 if t == 2 else 0.0  # paid to the mover at 1 (player 1)
        def is_terminal(self, s): return s == 2
        def to_play(self, s): return s % 2

    s = StatefulSolver(TwoStep(), discount_factor=0.5, seed=0, value_fn=lambda st: 0.8, max_tree_depth=1)
    res = s.run_tree_search(iterations=4)
    assert res.stats[0].mean_reward == pytest.approx(-0.5 * 0.8)
    # lambda = 1/4: (3/4) * 0.8 + (1/4) * rollout (player 1 wins: +1 for the mover) = 0.85
    s = StatefulSolver(TwoStep(), discount_factor=0.5, seed=0, value_fn=lambda st: 0.8, rollout_weight=0.25,
                       max_tree_depth=1)
    res = s.run_tree_search(iterations=4)
    assert res.stats[0].mean_reward == pytest.approx(-0.5 * 0.85)
