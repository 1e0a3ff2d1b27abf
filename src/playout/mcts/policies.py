"""Simulation (rollout) policies: how a playout picks its actions.

A policy is any callable ``policy(mdp, state, actions, rng) -> action`` where
``actions`` is the non-empty list of legal actions and ``rng`` a
:class:`random.Random`.  The solver does not know which policy it runs
(uniform, heuristic table, pattern database, network).
"""

from __future__ import annotations

import random
from typing import Any, Protocol, Sequence


class RolloutPolicy(Protocol):
    """The interface every simulation policy satisfies."""

    def __call__(self, mdp: Any, state: Any, actions: Sequence[Any], rng: random.Random) -> Any: ...


class UniformPolicy:
    """Uniformly random legal actions: mctreesearch4j's default simulation.

    >>> import random
    >>> UniformPolicy()(None, None, ["a"], random.Random(0))
    'a'
    """

    def __call__(self, mdp: Any, state: Any, actions: Sequence[Any], rng: random.Random) -> Any:
        return actions[rng.randrange(len(actions))]

    def __repr__(self) -> str:
        return "UniformPolicy()"
