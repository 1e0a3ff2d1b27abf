"""The problem interfaces every solver in :mod:`playout` drives.

An :class:`MDP` is the five members of mctreesearch4j's ``MDP`` class
(Liu & Tomaszewski, "An Extensible and Modular Design and Implementation of
Monte Carlo Tree Search for the JVM", 2021), in Python spelling:

* ``initial_state()`` -- where an episode starts;
* ``actions(state)`` -- the legal actions (a non-empty sequence for every
  non-terminal state);
* ``transition(state, action, rng)`` -- the next state; it may *sample* (a
  stochastic domain such as 2048 or backgammon's dice), and must then draw its
  randomness from ``rng`` (a :class:`random.Random`) so that a seeded search is
  reproducible;
* ``reward(prev_state, action, state)`` -- the reward received on that
  transition;
* ``is_terminal(state)`` -- whether the episode has ended.

Two members are optional, and only the MCTS-Solver
(:class:`~playout.mcts.stateful.StatefulSolver` with ``mcts_solver=True``) reads
them:

* ``chance_outcomes(state, action)``, the exact distribution of a transition as
  ``(next_state, probability)`` pairs (the shape of OpenSpiel's
  ``State.chance_outcomes()``, with the successor state as the outcome).  The
  default, ``None``, says "not enumerated".  A proof may cross a chance edge
  once every listed outcome is proven.
* ``value_bounds()``, bounds ``(lo, hi)`` on the discounted return from any
  state (for the player to move there).  The default, ``None``, says "unknown".
  With an upper bound, a node is solved as soon as one action is proven to reach
  it (Winands et al.'s "one winning move suffices"); without one, only once every
  action is solved.

Conventions
-----------
* States must not be mutated by ``transition``: return a new state.  The
  stateful solver compares states with ``==`` and, with a transposition table,
  hashes them, so states of deterministic domains should be hashable values
  (tuples, frozen dataclasses, ``bytes``).
* Rewards are received on every transition, not only at the end; a solver
  maximises the discounted sum ``r_1 + g r_2 + g^2 r_3 + ...`` where ``g`` is the
  reward discount factor.
* :class:`Game` is a two-player zero-sum game.  ``to_play(state)`` is 0 or 1:
  the player who chooses the action in ``state``.  ``reward(prev, action,
  state)`` is the reward *of the player who chose the action*
  (``to_play(prev)``); the other player receives its negative.  Solvers make
  every node maximise the reward of the player to move there (unlike
  mctreesearch4j, whose nodes all maximise the root player's reward).

Example: a user MDP in a few lines (a corridor; walking right to cell 3 pays 1)

>>> class Corridor(MDP):
...     def initial_state(self): return 0
...     def actions(self, s): return ["left", "right"]
...     def transition(self, s, a, rng): return max(0, s - 1) if a == "left" else s + 1
...     def reward(self, s, a, t): return 1.0 if t == 3 else 0.0
...     def is_terminal(self, s): return s == 3
>>> from playout.mcts import GenericSolver
>>> GenericSolver(Corridor(), discount_factor=0.9, seed=1).run_tree_search(iterations=200).action
'right'
"""

from __future__ import annotations

import math
import numbers
import random
from abc import ABC, abstractmethod
from typing import Any, Generic, Sequence, TypeVar

S = TypeVar("S")
A = TypeVar("A")


class MDPError(ValueError):
    """A user MDP broke the interface contract (no actions, NaN reward, ...).

    The message names the member at fault and the state it was called on.
    """


class MDP(ABC, Generic[S, A]):
    """A Markov decision process with states ``S`` and actions ``A``.

    Subclass and implement the five members (see the module docstring for the
    conventions).  ``evaluate`` is optional.
    """

    @abstractmethod
    def initial_state(self) -> S:
        """The state an episode starts from."""

    @abstractmethod
    def actions(self, state: S) -> Sequence[A]:
        """Legal actions in ``state``; non-empty unless ``state`` is terminal."""

    @abstractmethod
    def transition(self, state: S, action: A, rng: random.Random) -> S:
        """The successor of ``state`` after ``action`` (sampled with ``rng`` if stochastic)."""

    @abstractmethod
    def reward(self, prev_state: S, action: A, state: S) -> float:
        """Reward received on the transition ``prev_state --action--> state``."""

    @abstractmethod
    def is_terminal(self, state: S) -> bool:
        """Whether ``state`` ends the episode."""

    def evaluate(self, state: S) -> float:
        """Estimated return from ``state`` when a simulation stops at its depth limit.

        For a :class:`Game`, from the perspective of ``to_play(state)``.  The
        default, 0.0, is mctreesearch4j's behaviour (no estimate).  Domains with a
        heuristic (Reversi's disc difference) override it.
        """
        return 0.0

    def chance_outcomes(self, state: S, action: A) -> Sequence[tuple[S, float]] | None:
        """The exact distribution of ``transition(state, action, rng)``, or ``None``.

        Returns ``(next_state, probability)`` pairs (probabilities >= 0 summing to
        1; the states must compare and hash like the ones ``transition`` returns),
        or ``None`` -- the default -- when the domain does not enumerate them.  A
        deterministic transition may return ``[(next_state, 1.0)]``.  The shape is
        OpenSpiel's ``State.chance_outcomes()`` with successor states as outcomes.
        """
        return None

    def value_bounds(self) -> tuple[float, float] | None:
        """Bounds ``(lo, hi)`` on the discounted return from every state, or ``None``.

        The return is ``r_1 + g r_2 + ...`` from the state on, for the player to move
        there (a :class:`Game`'s mover), under any play and every discount factor
        ``g`` the solver may use; ``-inf`` / ``inf`` say "unbounded on that side".
        A game whose only rewards are a final +1 / 0 / -1 returns ``(-1.0, 1.0)``.
        The default, ``None``, says "unknown" (``(-inf, inf)``).  Only the
        MCTS-Solver reads it: a node whose proven value reaches ``hi`` is solved
        without searching its other actions (Winands, Bjornsson & Saito,
        "Monte-Carlo Tree Search Solver", CG 2008: one winning move suffices).
        """
        return None

    # -- checked access, used by the solvers -------------------------------
    def checked_value_bounds(self) -> tuple[float, float]:
        """``value_bounds()`` as two floats ``lo <= hi``; ``(-inf, inf)`` for ``None``.

        Raises:
            MDPError: not a pair of real numbers, a NaN, or ``lo > hi``.
        """
        raw = self.value_bounds()
        if raw is None:
            return -math.inf, math.inf
        where = f"{type(self).__name__}.value_bounds"
        try:
            lo, hi = raw
        except (TypeError, ValueError):
            raise MDPError(f"{where} must return (lo, hi) or None, got {raw!r}") from None
        for x in (lo, hi):
            if isinstance(x, bool) or not isinstance(x, numbers.Real) or math.isnan(x):
                raise MDPError(f"{where} returned {raw!r}: {x!r} is not a real number")
        if lo > hi:
            raise MDPError(f"{where} returned {raw!r}: lo > hi")
        return float(lo), float(hi)

    def checked_chance_outcomes(self, state: S, action: A) -> dict[S, float] | None:
        """``chance_outcomes(...)`` as ``{next_state: probability}`` (zero-probability
        outcomes dropped, repeated states summed), or ``None`` when not enumerated.

        Raises:
            MDPError: not a sequence of pairs, a probability that is negative or not
                finite, or probabilities not summing to 1 (within 1e-6).
        """
        raw = self.chance_outcomes(state, action)
        if raw is None:
            return None
        where = f"{type(self).__name__}.chance_outcomes for action {action!r} from state {state!r}"
        table: dict[S, float] = {}
        try:
            pairs = list(raw)
        except TypeError:
            raise MDPError(f"{where} must return (next_state, probability) pairs or None, got {raw!r}") from None
        for pair in pairs:
            try:
                nxt, prob = pair
            except (TypeError, ValueError):
                raise MDPError(f"{where}: {pair!r} is not a (next_state, probability) pair") from None
            if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not math.isfinite(prob) or prob < 0:
                raise MDPError(f"{where}: probability {prob!r} of {nxt!r} is not a finite number >= 0")
            table[nxt] = table.get(nxt, 0.0) + float(prob)
        total = sum(table.values())
        if abs(total - 1.0) > 1e-6:
            raise MDPError(f"{where}: probabilities sum to {total}, not 1")
        return {nxt: prob for nxt, prob in table.items() if prob > 0}

    def legal_actions(self, state: S) -> list[A]:
        """``actions(state)`` as a list, raising :class:`MDPError` if it is empty."""
        try:
            acts = list(self.actions(state))
        except TypeError:
            raise MDPError(
                f"{type(self).__name__}.actions must return a sequence of actions, got "
                f"{self.actions(state)!r} for state {state!r}"
            ) from None
        if not acts:
            raise MDPError(
                f"{type(self).__name__}.actions returned no actions for non-terminal "
                f"state {state!r}"
            )
        return acts

    def checked_reward(self, prev_state: S, action: A, state: S) -> float:
        """``reward(...)`` as a float, raising :class:`MDPError` unless it is a finite real number."""
        raw = self.reward(prev_state, action, state)
        if isinstance(raw, bool) or not isinstance(raw, numbers.Real):
            raise MDPError(
                f"{type(self).__name__}.reward returned {raw!r} (not a real number) for action "
                f"{action!r} from state {prev_state!r}"
            )
        r = float(raw)
        if math.isnan(r):
            raise MDPError(
                f"{type(self).__name__}.reward returned NaN for action {action!r} from "
                f"state {prev_state!r} to state {state!r}"
            )
        if math.isinf(r):
            raise MDPError(
                f"{type(self).__name__}.reward returned {r} (not finite) for action {action!r} "
                f"from state {prev_state!r} to state {state!r}"
            )
        return r


class Game(MDP[S, A]):
    """A two-player zero-sum game: an :class:`MDP` whose rewards alternate owner.

    ``reward(prev, action, state)`` is paid to ``to_play(prev)``; the opponent
    receives its negative.  Chance (dice) stays inside ``transition``.
    """

    num_players: int = 2

    @abstractmethod
    def to_play(self, state: S) -> int:
        """The player (0 or 1) who chooses the action in ``state``."""


def player_of(mdp: MDP[Any, Any], state: Any) -> int:
    """The player who acts in ``state``: ``to_play`` for a :class:`Game`, else 0.

    Raises:
        MDPError: ``to_play`` returned something other than 0 or 1.
    """
    if not isinstance(mdp, Game):
        return 0
    player = mdp.to_play(state)
    if player not in (0, 1) or isinstance(player, bool):
        raise MDPError(f"{type(mdp).__name__}.to_play must return 0 or 1, got {player!r} for state {state!r}")
    return int(player)
