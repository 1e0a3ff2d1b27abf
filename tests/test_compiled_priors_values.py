"""PUCT priors and leaf values in the compiled kernel (issue 16 items 2 and 3, compiled half).

A domain's optional ``prior(s, acts, n, out)`` primitive switches the kernel's selection to
AlphaZero's PUCT (the Python solvers' rule, ``GenericSolver._puct_action``; C = 1.25 by
default); ``rollout_weight < 1`` values a leaf by AlphaGo's ``(1 - lambda) evaluate +
lambda rollout`` (the Python solvers' ``value_fn``/``rollout_weight``).  Neither used: the
plain kernel, whose results are those measured before the options existed.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from playout.domains.connect4 import Connect4
from playout.mcts import CompiledDomain, GenericSolver, compiled

DATA = Path(__file__).parent / "data"
G = 0.7  # the anchor's Connect 4 discount


def _user(name):
    """A user's domain module from tests/data, imported as a user would (on sys.path)."""
    if str(DATA) not in sys.path:
        sys.path.insert(0, str(DATA))
    return importlib.import_module(name)


BITS = _user("user_connect4_bits")

#: Test_L3_R1 positions (../shared/data/connect4) with one winning column (0-based) that is not
#: an immediate win: tests/test_mcts_priors_values.py's PRIOR_CASES
CASES = [("655651721435342216255374674123", 2), ("67152117737262713366376314254", 4),
         ("2762751722231276466633475674533", 3)]
ROOTS = np.array([BITS.to_array(Connect4.from_moves(m))[:2] for m, _ in CASES], dtype=np.int64)
WINS = np.array([w for _, w in CASES], dtype=np.int64)


@njit(cache=True)
def prior(s, acts, n, out):
    """0.9 on the winning column at a CASES root, the rest spread evenly; uniform elsewhere."""
    win = -1
    for i in range(ROOTS.shape[0]):
        if s[0] == ROOTS[i, 0] and s[1] == ROOTS[i, 1]:
            win = WINS[i]
    for i in range(n):
        if win < 0:
            out[i] = 1.0
        else:
            out[i] = 0.9 if acts[i] == win else 0.1 / (n - 1)


GUIDED = dataclasses.replace(BITS.DOMAIN, name="user_connect4_bits_prior", prior=prior)
BUDGETS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 130, 160, 200, 250, 320,
           400, 500, 640, 800, 1000, 1280, 1600, 2000, 2560)


def plays_it_from(domain, moves, win, seed, **kw):
    """The smallest budget of BUDGETS from which every larger one's search (seeded) plays
    the winning column (``None``: not even the largest)."""
    root = domain.to_array(Connect4.from_moves(moves))
    got = None
    for n in reversed(BUDGETS):
        if compiled.search(domain, root, n, seed=seed, **kw).action != win:
            break
        got = n
    return got


@pytest.mark.parametrize("case,uniform,guided", [
    (0, (130, 80), (1, 1)), (1, (160, 100), (1, 1)), (2, (8, 60), (1, 1))])
def test_a_prior_on_the_winning_move_plays_it_with_fewer_iterations(case, uniform, guided):
    moves, win = CASES[case]
    for seed, u, p in zip((0, 1), uniform, guided):
        got = (plays_it_from(BITS.DOMAIN, moves, win, seed, c=1.25),
               plays_it_from(GUIDED, moves, win, seed))
        assert got == (u, p)  # measured at these seeds (UCT with PUCT's C; PUCT with the prior)
        assert got[1] < got[0]


@pytest.mark.parametrize("moves,win", CASES)
def test_compiled_and_python_puct_agree(moves, win):
    root_state = Connect4.from_moves(moves)
    acts = Connect4().actions(root_state)

    def py_prior(state):  # the same prior, on the Python domain
        if state == root_state:
            return [0.9 if a == win else 0.1 / (len(acts) - 1) for a in acts]
        return [1.0] * len(Connect4().actions(state))

    py = GenericSolver(Connect4(), root_state=root_state, prior_fn=py_prior, discount_factor=G,
                       exploration="anchor", seed=0).run_tree_search(iterations=300)
    nb = compiled.search(GUIDED, GUIDED.to_array(root_state), 300, seed=0)
    assert py.action == nb.action == win
    # the same rule: both give the prior's action most of the visits
    assert min(s.visits for s in py.stats if s.action == win) > 150
    assert min(s.visits for s in nb.stats if s.action == win) > 150


# -- value-only search on a constructed case ---------------------------------------------
# s = [phase, first action]; phase 0: player 0 picks 0 or 1; phase 1: player 1 has one move,
# which pays player 1 1.0 after 0 and 0.0 after 1; phase 2: over.  evaluate (for the player to
# move, player 1 at phase 1) says the opposite of the rollout: -1 after 0, +1 after 1.
@njit(cache=True)
def _t_legal(s, out):
    if s[0] == 2:
        return 0
    out[0] = 0
    if s[0] == 0:
        out[1] = 1
        return 2
    return 1


@njit(cache=True)
def _t_step(s, a, rng_state):
    if s[0] == 0:
        s[0], s[1] = 1, a
        return 0.0
    s[0] = 2
    return 1.0 if s[1] == 0 else 0.0


@njit(cache=True)
def _t_is_terminal(s):
    return s[0] == 2


@njit(cache=True)
def _t_to_play(s):
    return 1 if s[0] == 1 else 0


@njit(cache=True)
def _t_evaluate(s):
    return -1.0 if s[1] == 0 else 1.0


TWO = CompiledDomain("value_or_rollout", 2, _t_legal, _t_step, _t_is_terminal, _t_to_play, evaluate=_t_evaluate,
                     initial_state=lambda: np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("weight,action,means", [
    (0.0, 0, [1.0, -1.0]),  # evaluate alone, in player 1's frame at the leaf: 0 is good for player 0
    (0.5, 0, [0.0, -0.5]),  # 0.5 * (+1) + 0.5 * (-1); 0.5 * (-1) + 0.5 * 0
    (1.0, 1, [-1.0, 0.0]),  # the rollout alone: after 0, player 1 is paid 1
])
def test_value_only_and_mixed_leaves(weight, action, means):
    res = compiled.search(TWO, None, 60, c=1.4, seed=2, max_tree_depth=1, rollout_weight=weight)
    assert res.action == action
    assert [s.mean_reward for s in res.stats] == means
    assert sum(s.visits for s in res.stats) == 60


def test_bad_rollout_weight_is_one_clear_error():
    with pytest.raises(ValueError, match=r"rollout_weight must be in \[0, 1\], got 1.5"):
        compiled.search(TWO, None, 10, rollout_weight=1.5)
    with pytest.raises(ValueError, match="my_connect4 has no evaluate"):
        compiled.search(BITS.DOMAIN, None, 10, rollout_weight=0.5)


# -- the plain kernel is unchanged ---------------------------------------------------------
#: root visits at seed 7, 300 iterations, each built-in's defaults, measured with the kernel
#: before priors and values existed (commit 05a9ff6)
BEFORE = {
    ("gridworld", "anchor"): [296, 2, 1, 1], ("gridworld", "normalized"): [30, 37, 214, 19],
    ("push_your_luck", "anchor"): [299, 1], ("push_your_luck", "normalized"): [160, 140],
    ("twenty48", "anchor"): [290, 1, 2, 7], ("twenty48", "normalized"): [71, 63, 103, 63],
    ("connect4", "anchor"): [43, 43, 43, 43, 44, 42, 42],
    ("connect4", "normalized"): [41, 40, 46, 42, 43, 44, 44],
    ("reversi", "anchor"): [75, 75, 75, 75], ("reversi", "normalized"): [68, 75, 75, 82],
}


@pytest.mark.parametrize("name,exploration", sorted(BEFORE))
def test_without_prior_or_value_the_results_are_todays(name, exploration):
    res = compiled.search(name, None, 300, seed=7, exploration=exploration)
    assert [s.visits for s in res.stats] == BEFORE[name, exploration]
    assert compiled.search(name, None, 300, seed=7, exploration=exploration, rollout_weight=1.0).stats == res.stats
