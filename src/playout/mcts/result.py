"""What a search returns: the recommended action and the root statistics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ActionStats:
    """Statistics of one root action after a search.

    Attributes:
        action: the action (domain's own type).
        visits: times the action was tried from the root.
        mean_reward: mean discounted return of the action, from the perspective of
            the player to move at the root.
        max_reward: the largest return seen (mctreesearch4j's ``maxReward``).
        exploration: the UCT exploration term ``C * sqrt(ln N / n)`` at the end of
            the search (``inf`` for an unvisited action).
    """

    action: Any
    visits: int
    mean_reward: float
    max_reward: float
    exploration: float


@dataclass(frozen=True)
class SearchResult:
    """The outcome of ``run_tree_search``.

    Attributes:
        action: the recommended action: the root child with most visits (ties: the
            first in ``actions(root)`` order), as in mctreesearch4j.
        stats: one :class:`ActionStats` per expanded root action, in action order.
        iterations: iterations run.
        seconds: wall time of the search.
        proven: +1 / -1 when MCTS-Solver proved the root a win / loss for the player
            to move (two-player games whose rewards are paid only when the game
            ends; the sign of that reward is the result), 0 otherwise -- always 0
            for a one-player MDP, where "win" means nothing.
        value: the root's exact value when MCTS-Solver solved it: the discounted
            return from the root under optimal play (both sides' for a game), for
            the player to move; ``None`` when not solved.
    """

    action: Any
    stats: tuple[ActionStats, ...]
    iterations: int
    seconds: float
    proven: int = 0
    value: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (actions as ``str``)."""
        return {
            "action": str(self.action),
            "iterations": self.iterations,
            "seconds": self.seconds,
            "proven": self.proven,
            "value": self.value,
            "stats": [
                {
                    "action": str(s.action),
                    "visits": s.visits,
                    "mean_reward": s.mean_reward,
                    "max_reward": s.max_reward,
                    "exploration": s.exploration,
                }
                for s in self.stats
            ],
        }
