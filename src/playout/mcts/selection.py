"""Tree policies: the score a parent uses to pick a child.

UCT (Kocsis & Szepesvari, "Bandit based Monte-Carlo Planning", ECML 2006) applies
UCB1 (Auer, Cesa-Bianchi & Fischer, 2002) at every node:

    UCT = mean + C * sqrt(ln N / n)

with ``N`` the parent's visits, ``n`` the child's, ``mean`` the child's mean
return from the perspective of the player choosing at the parent, and ``C`` the
exploration constant (mctreesearch4j's ``explorationConstant``; 1/sqrt(2) in the
original analysis for rewards in [0, 1]).  An unvisited child scores ``+inf``.
"""

from __future__ import annotations

import math


def exploration_term(parent_visits: int, child_visits: int, c: float) -> float:
    """``C * sqrt(ln N / n)``; ``inf`` when ``n == 0``.

    >>> round(exploration_term(100, 10, 1.4), 4)
    0.9501
    """
    if child_visits == 0:
        return math.inf
    if parent_visits <= 1:
        return 0.0
    return c * math.sqrt(math.log(parent_visits) / child_visits)


def uct(total: float, visits: int, parent_visits: int, c: float) -> float:
    """UCT score of a child with return sum ``total`` over ``visits`` visits."""
    if visits == 0:
        return math.inf
    return total / visits + exploration_term(parent_visits, visits, c)


def ucb1_tuned(total: float, total_sq: float, visits: int, parent_visits: int, c: float = 1.0) -> float:
    """UCB1-Tuned (Auer et al. 2002, sec. 4): the variance-aware bound.

    ``mean + C * sqrt(ln N / n * min(1/4, V))`` with
    ``V = var + sqrt(2 ln N / n)``; ``total_sq`` is the sum of squared returns.
    """
    if visits == 0:
        return math.inf
    mean = total / visits
    log_n = math.log(max(parent_visits, 1))
    var = max(0.0, total_sq / visits - mean * mean) + math.sqrt(2.0 * log_n / visits)
    return mean + c * math.sqrt(log_n / visits * min(0.25, var))
