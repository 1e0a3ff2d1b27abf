"""The solver skeleton shared by every MCTS variant.

One iteration is mctreesearch4j's four phases, each a method a subclass may
override:

1. ``select(root) -> node``: descend with the tree policy (UCT) while the node is
   fully expanded, non-terminal and above the maximum tree depth;
2. ``expand(node) -> node``: add one child for an untried action, chosen
   uniformly at random;
3. ``simulate(node) -> float``: play the rollout policy from the node's state until
   a terminal state or the simulation depth limit; return the discounted return;
4. ``backpropagate(node, value)``: add the return to every node on the path,
   discounting once per level.

Returns and frames
------------------
Inside the solver every return is in *player 0's frame*: a reward ``r`` paid to
player 1 counts as ``-r`` (for a one-player :class:`~playout.mdp.MDP` everything is
player 0).  Node statistics are stored in the frame of the player who chose the
edge into the node, so each node maximises the reward of the player to move at its
parent.  mctreesearch4j instead maximises the root player's reward everywhere,
which models the opponent as cooperative; ours is the negamax-correct backup for
two-player zero-sum games.

The return of one simulation is ``r_1 + g r_2 + g^2 r_3 + ...`` (``g`` = reward
discount factor), plus ``g^k * evaluate(state)`` when the depth limit cuts a
non-terminal rollout.  Backpropagation prepends the reward of each edge on the way
up and discounts again per level (mctreesearch4j discounts per level too, but only
counts the final reward of a simulation; we count every reward, which Push Your
Luck needs since cash-outs happen mid-episode).
"""

from __future__ import annotations

import math
import random
import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, Iterable

from playout.mdp import MDP, Game, MDPError, A, S, player_of
from playout.mcts.policies import RolloutPolicy, UniformPolicy
from playout.mcts.result import ActionStats, SearchResult
from playout.mcts.selection import exploration_term


def frame_sign(player: int) -> float:
    """+1 for player 0, -1 for player 1: converts a player's reward to player 0's frame."""
    return 1.0 if player == 0 else -1.0


class Solver(ABC, Generic[S, A]):
    """Base class of the MCTS solvers.

    Args:
        mdp: the problem (an :class:`~playout.mdp.MDP` or :class:`~playout.mdp.Game`).
        exploration_constant: ``C`` in UCT (mctreesearch4j's ``explorationConstant``).
        discount_factor: reward discount factor ``g`` in (0, 1].
        simulation_depth_limit: at most this many rollout steps per simulation.
        max_tree_depth: nodes at this depth are not expanded (``None``: no limit).
        seed: seed of the solver's :class:`random.Random` (``None``: from the OS).
        rollout_policy: simulation policy (default :class:`UniformPolicy`).
        root_state: the state to plan from (default ``mdp.initial_state()``).
        trace: record per-iteration root statistics in :attr:`trace` (off by
            default; costs nothing when off).
        verbose: print progress every 10% of the iterations.

    Raises:
        ValueError: on a non-positive discount factor or a negative depth limit.
    """

    def __init__(
        self,
        mdp: MDP[S, A],
        *,
        exploration_constant: float = 1.4,
        discount_factor: float = 1.0,
        simulation_depth_limit: int = 1000,
        max_tree_depth: int | None = None,
        seed: int | None = None,
        rollout_policy: RolloutPolicy | None = None,
        root_state: S | None = None,
        trace: bool = False,
        verbose: bool = False,
    ) -> None:
        if not 0.0 < discount_factor <= 1.0:
            raise ValueError(f"discount_factor must be in (0, 1], got {discount_factor}")
        if not math.isfinite(exploration_constant) or exploration_constant < 0:
            raise ValueError(f"exploration_constant must be finite and >= 0, got {exploration_constant}")
        if simulation_depth_limit < 0:
            raise ValueError(f"simulation_depth_limit must be >= 0, got {simulation_depth_limit}")
        self.mdp = mdp
        self.c = float(exploration_constant)
        self.discount = float(discount_factor)
        self.simulation_depth_limit = int(simulation_depth_limit)
        self.max_tree_depth = math.inf if max_tree_depth is None else int(max_tree_depth)
        self.rng = random.Random(seed)
        self.rollout_policy: RolloutPolicy = rollout_policy or UniformPolicy()
        self.root_state: S = mdp.initial_state() if root_state is None else root_state
        self.is_game = isinstance(mdp, Game)
        self.verbose = verbose
        self.trace: list[dict[str, Any]] | None = [] if trace else None
        self.iterations_done = 0

    # -- helpers ----------------------------------------------------------
    def player(self, state: S) -> int:
        """The player to move in ``state`` (always 0 for a one-player MDP)."""
        return player_of(self.mdp, state) if self.is_game else 0

    def step(self, state: S, action: A) -> tuple[S, float]:
        """Apply ``action``: the next state and the reward in player 0's frame."""
        nxt = self.mdp.transition(state, action, self.rng)
        reward = self.mdp.checked_reward(state, action, nxt)
        return nxt, reward * frame_sign(self.player(state))

    def evaluate(self, state: S) -> float:
        """Leaf value at a depth cut-off, player 0's frame (``mdp.evaluate``)."""
        value = float(self.mdp.evaluate(state))
        if math.isnan(value):
            raise MDPError(f"{type(self.mdp).__name__}.evaluate returned NaN for state {state!r}")
        return value * frame_sign(self.player(state))

    def rollout(self, state: S) -> float:
        """Discounted return of one simulation from ``state`` (player 0's frame)."""
        mdp = self.mdp
        total = 0.0
        weight = 1.0
        for _ in range(self.simulation_depth_limit):
            if mdp.is_terminal(state):
                return total
            actions = mdp.legal_actions(state)
            action = self.rollout_policy(mdp, state, actions, self.rng)
            state, reward = self.step(state, action)
            total += weight * reward
            weight *= self.discount
        if not mdp.is_terminal(state):
            total += weight * self.evaluate(state)
        return total

    # -- the four phases --------------------------------------------------
    @abstractmethod
    def select(self, node: Any) -> Any:
        """Descend from ``node`` with the tree policy; return the node to expand."""

    @abstractmethod
    def expand(self, node: Any) -> Any:
        """Add a child of ``node`` for an untried action and return it (or ``node``)."""

    @abstractmethod
    def simulate(self, node: Any) -> float:
        """Return of a simulation from ``node``'s state, in player 0's frame."""

    @abstractmethod
    def backpropagate(self, node: Any, value: float) -> None:
        """Add ``value`` (return below ``node``, player 0's frame) up the path."""

    @abstractmethod
    def root_statistics(self) -> list[ActionStats]:
        """Per-action statistics at the root, in action order."""

    @abstractmethod
    def new_iteration(self) -> Any:
        """Reset per-iteration state and return the root node to select from."""

    # -- driving ----------------------------------------------------------
    def run_tree_search_iteration(self) -> None:
        """One select / expand / simulate / backpropagate cycle."""
        root = self.new_iteration()
        leaf = self.select(root)
        child = self.expand(leaf)
        value = self.simulate(child)
        self.backpropagate(child, value)
        self.iterations_done += 1
        if self.trace is not None:
            self._record_trace()

    def run_tree_search(self, iterations: int | None = None, seconds: float | None = None) -> SearchResult:
        """Run until ``iterations`` iterations or ``seconds`` of wall time, whichever first.

        At least one of the two must be given.  Returns the :class:`SearchResult`
        over the whole tree (earlier calls' iterations included).

        Raises:
            ValueError: neither budget given, or a negative one.
        """
        if iterations is None and seconds is None:
            raise ValueError("give iterations=N or seconds=S")
        if (iterations is not None and iterations < 0) or (seconds is not None and seconds < 0):
            raise ValueError("budgets must be non-negative")
        start = time.perf_counter()
        deadline = math.inf if seconds is None else start + seconds
        limit = math.inf if iterations is None else iterations
        done = 0
        report_every = max(1, int(limit // 10)) if self.verbose and limit != math.inf else 0
        while done < limit and time.perf_counter() < deadline:
            self.run_tree_search_iteration()
            done += 1
            if report_every and done % report_every == 0:
                print(f"iteration {done}: {self.result(time.perf_counter() - start).action!r} leads")
        return self.result(time.perf_counter() - start)

    def result(self, seconds: float = 0.0) -> SearchResult:
        """The recommended action (most visits; ties: first in action order) and root stats."""
        stats = self.root_statistics()
        if not stats:
            raise MDPError(
                f"no action was searched from state {self.root_state!r} "
                "(terminal root, or zero iterations)"
            )
        best = max(stats, key=lambda s: s.visits)  # max() keeps the first of equals
        return SearchResult(best.action, tuple(stats), self.iterations_done, seconds)

    def _record_trace(self) -> None:
        assert self.trace is not None
        for s in self.root_statistics():
            self.trace.append(
                {
                    "iteration": self.iterations_done,
                    "action": s.action,
                    "visits": s.visits,
                    "mean_reward": s.mean_reward,
                    "max_reward": s.max_reward,
                    "exploration": s.exploration,
                }
            )


def make_stats(
    items: Iterable[tuple[Any, int, float, float]], parent_visits: int, c: float
) -> list[ActionStats]:
    """Build :class:`ActionStats` from ``(action, visits, total, max)`` tuples."""
    out = []
    for action, visits, total, best in items:
        mean = total / visits if visits else 0.0
        out.append(ActionStats(action, visits, mean, best, exploration_term(parent_visits, visits, c)))
    return out


ActionKey = Callable[[Any], Any]
