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

Tree policy, priors and leaf values
-----------------------------------
``exploration`` chooses the scale of the values the tree policy compares:

* ``"normalized"`` (the default): every mean ``Q`` is mapped to ``[0, 1]`` by the
  smallest and largest returns backed up through any edge of the tree so far
  (MuZero's ``MinMaxStats``, Schrittwieser et al. 2020, Appendix B, which tracks
  node values; mctx's min-max ``qtransform`` idea), so one constant ``C`` works
  whatever the reward scale (Push Your Luck pays up to 720 a cash-out, 2048 about
  10 a step, Connect 4 1) and UCB1's rewards-in-[0, 1] premise holds.  Returns,
  not means: in a two-armed bandit the means' range is the gap between the arms,
  which makes any gap look like 1 and locks in early (a user MDP paying 5 or
  10-or-0 chose wrong on 3 seeds of 10 with means, 2 of 20 with returns);
  in a grown tree the two ranges nearly coincide (a new node's first mean is its
  first return);
* ``"anchor"``: raw means, mctreesearch4j's rule, for like-for-like benchmarks
  with the anchor's per-domain constants (each built-in domain's registry entry).

With ``prior_fn`` the tree policy is AlphaZero's PUCT instead of UCT (Silver et
al., "A general reinforcement learning algorithm that masters chess, shogi and Go
through self-play", Science 2018; the rule as in its pseudocode)::

    score(a) = Q(a) + C * P(a) * sqrt(N) / (1 + n(a))

with ``P(a)`` the prior of action ``a``, ``N`` the visits of the node's actions
added up and ``n(a)`` those of ``a``; an action not yet tried takes the node's mean
``Q`` (first-play urgency: the parent's value, as mctx does), and is expanded
when it wins the comparison, so a good prior lets a search skip bad actions.
``dirichlet_alpha`` mixes ``Dir(alpha)`` noise into the root's prior,
``(1 - fraction) P + fraction * noise`` (AlphaZero: alpha 0.3 for chess, 0.03 for
Go, fraction 0.25).

With ``value_fn`` a leaf is valued by the function instead of a rollout, or by
AlphaGo's mixture ``(1 - lambda) v(s) + lambda z`` with ``lambda =
rollout_weight`` and ``z`` the rollout's return (Silver et al., "Mastering the game
of Go with deep neural networks and tree search", Nature 2016, eq. in "Searching
with policy and value networks"; lambda = 0.5 there).  ``value_fn(state)`` is in
the frame of *the player to move in* ``state`` (as :meth:`playout.mdp.MDP.evaluate`
and a value network): the discounted return from ``state`` on.  A terminal leaf is
worth 0 (no rewards follow) and ``value_fn`` is not called on it.

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
import numbers
import random
import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, Iterable

from playout.mdp import MDP, Game, MDPError, A, S, player_of
from playout.mcts.policies import RolloutPolicy, UniformPolicy
from playout.mcts.result import ActionStats, SearchResult
from playout.mcts.selection import exploration_term

#: the tree policy's value scales (see the module docstring).
EXPLORATIONS = ("normalized", "anchor")

PriorFn = Callable[[Any], Any]
"""``prior_fn(state) -> probabilities``: a sequence aligned with ``mdp.actions(state)``
(or a mapping ``action -> probability``); non-negative, finite, not all zero
(normalised to sum 1 by the solver)."""

ValueFn = Callable[[Any], float]
"""``value_fn(state) -> float``: the estimated discounted return from ``state`` for the
player to move there (one-player MDP: player 0)."""


def frame_sign(player: int) -> float:
    """+1 for player 0, -1 for player 1: converts a player's reward to player 0's frame."""
    return 1.0 if player == 0 else -1.0


class Solver(ABC, Generic[S, A]):
    """Base class of the MCTS solvers.

    Args:
        mdp: the problem (an :class:`~playout.mdp.MDP` or :class:`~playout.mdp.Game`).
        exploration_constant: ``C`` in UCT (mctreesearch4j's ``explorationConstant``),
            or ``c_puct`` with ``prior_fn``.  Default: 1.25 with a prior (MuZero's
            ``pb_c_init``), else 1.0 on normalised values (measured on the built-ins,
            see :data:`playout.cli.core.NORMALIZED_C`) and 1.4 with ``"anchor"``
            (mctreesearch4j's default).
        discount_factor: reward discount factor ``g`` in (0, 1].
        simulation_depth_limit: at most this many rollout steps per simulation.
        max_tree_depth: nodes at this depth are not expanded (``None``: no limit).
        seed: seed of the solver's :class:`random.Random` (``None``: from the OS).
        rollout_policy: simulation policy (default :class:`UniformPolicy`).
        root_state: the state to plan from (default ``mdp.initial_state()``).
        trace: record per-iteration root statistics in :attr:`trace` (off by
            default; costs nothing when off).
        verbose: print progress every 10% of the iterations.
        exploration: ``"normalized"`` (default): the tree policy compares means
            normalised to [0, 1] by the tree's observed min and max;
            ``"anchor"``: raw means (mctreesearch4j's UCT).
        prior_fn: ``prior_fn(state)`` -> action probabilities (:data:`PriorFn`);
            selects PUCT with ``exploration_constant`` as its ``c_puct``.
        dirichlet_alpha: with ``prior_fn``, mix ``Dir(alpha)`` noise into the
            root's prior (``None``: no noise).
        dirichlet_fraction: the noise's weight in (0, 1] (AlphaZero: 0.25).
        value_fn: ``value_fn(state)`` -> the mover's value (:data:`ValueFn`);
            leaves are valued by it instead of a rollout.
        rollout_weight: AlphaGo's ``lambda`` in [0, 1]: leaf value ``(1 - lambda)
            value_fn + lambda rollout`` (default 0: the value function alone).

    Raises:
        ValueError: on a non-positive discount factor, a negative depth limit, an
            unknown ``exploration``, a Dirichlet parameter out of range, or a
            ``rollout_weight`` outside [0, 1] (or given without ``value_fn``).
    """

    def __init__(
        self,
        mdp: MDP[S, A],
        *,
        exploration_constant: float | None = None,
        discount_factor: float = 1.0,
        simulation_depth_limit: int = 1000,
        max_tree_depth: int | None = None,
        seed: int | None = None,
        rollout_policy: RolloutPolicy | None = None,
        root_state: S | None = None,
        trace: bool = False,
        verbose: bool = False,
        exploration: str = "normalized",
        prior_fn: PriorFn | None = None,
        dirichlet_alpha: float | None = None,
        dirichlet_fraction: float = 0.25,
        value_fn: ValueFn | None = None,
        rollout_weight: float = 0.0,
    ) -> None:
        if not 0.0 < discount_factor <= 1.0:
            raise ValueError(f"discount_factor must be in (0, 1], got {discount_factor}")
        if exploration_constant is None:
            exploration_constant = 1.25 if prior_fn is not None else (1.0 if exploration == "normalized" else 1.4)
        if not math.isfinite(exploration_constant) or exploration_constant < 0:
            raise ValueError(f"exploration_constant must be finite and >= 0, got {exploration_constant}")
        if simulation_depth_limit < 0:
            raise ValueError(f"simulation_depth_limit must be >= 0, got {simulation_depth_limit}")
        if exploration not in EXPLORATIONS:
            raise ValueError(f"exploration must be one of {', '.join(EXPLORATIONS)}, got {exploration!r}")
        if dirichlet_alpha is not None and not (math.isfinite(dirichlet_alpha) and dirichlet_alpha > 0):
            raise ValueError(f"dirichlet_alpha must be a finite number > 0, got {dirichlet_alpha}")
        if not 0.0 < dirichlet_fraction <= 1.0:
            raise ValueError(f"dirichlet_fraction must be in (0, 1], got {dirichlet_fraction}")
        if not 0.0 <= rollout_weight <= 1.0:
            raise ValueError(f"rollout_weight must be in [0, 1], got {rollout_weight}")
        if rollout_weight and value_fn is None:
            raise ValueError("rollout_weight mixes a value_fn with the rollout: give value_fn too")
        self.mdp = mdp
        self.c = float(exploration_constant)
        self.exploration = exploration
        self.prior_fn = prior_fn
        self.dirichlet_alpha = dirichlet_alpha
        self.dirichlet_fraction = float(dirichlet_fraction)
        self.value_fn = value_fn
        self.rollout_weight = float(rollout_weight)
        #: smallest and largest return backed up through an edge (``"normalized"`` exploration).
        self.q_min = math.inf
        self.q_max = -math.inf
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

    def leaf_value(self, state: S) -> float:
        """The value of a new leaf, player 0's frame: the rollout's return, or
        ``value_fn`` (mixed with the rollout by ``rollout_weight``; 0 when terminal)."""
        if self.value_fn is None:
            return self.rollout(state)
        if self.mdp.is_terminal(state):
            return 0.0
        raw = self.value_fn(state)
        if isinstance(raw, bool) or not isinstance(raw, numbers.Real) or not math.isfinite(raw):
            raise MDPError(f"value_fn returned {raw!r} (not a finite real number) for state {state!r}")
        value = float(raw) * frame_sign(self.player(state))
        if self.rollout_weight:
            value = (1.0 - self.rollout_weight) * value + self.rollout_weight * self.rollout(state)
        return value

    # -- tree policy: value scale, UCT / PUCT ------------------------------
    def observe_q(self, q: float) -> None:
        """Widen the tree's observed range of values by ``q`` (a return backed up
        through an edge, in its chooser's frame)."""
        if q < self.q_min:
            self.q_min = q
        if q > self.q_max:
            self.q_max = q

    def scale_q(self, q: float) -> float:
        """``q`` on the tree policy's scale: ``(q - min) / (max - min)`` with
        ``"normalized"`` exploration (0.5 while the range is empty), raw with ``"anchor"``."""
        if self.exploration == "anchor":
            return q
        span = self.q_max - self.q_min
        if not span > 0:
            return 0.5
        return (q - self.q_min) / span

    def uct_score(self, total: float, visits: int, parent_visits: int) -> float:
        """UCT of a child with return sum ``total`` over ``visits`` (``inf`` if unvisited)."""
        if visits == 0:
            return math.inf
        return self.scale_q(total / visits) + exploration_term(parent_visits, visits, self.c)

    def puct_score(self, q: float, visits: int, prior: float, sum_visits: int) -> float:
        """AlphaZero's PUCT: ``Q + C P sqrt(N) / (1 + n)`` with ``Q`` scaled (see
        :meth:`scale_q`); ``sqrt(N)`` is taken as 1 while ``N == 0`` so that the prior
        orders the first choice."""
        return self.scale_q(q) + self.c * prior * math.sqrt(max(sum_visits, 1)) / (1 + visits)

    def prior(self, state: S, actions: list[A], root: bool) -> dict[Any, float]:
        """``prior_fn(state)`` checked and normalised, as ``{action: probability}``; at the
        root, mixed with Dirichlet noise when ``dirichlet_alpha`` is set.

        Raises:
            MDPError: a prior of the wrong length, with a negative or non-finite
                entry, or summing to 0.
        """
        assert self.prior_fn is not None
        raw = self.prior_fn(state)
        where = f"prior_fn for state {state!r}"
        if hasattr(raw, "get") and hasattr(raw, "keys"):
            probs = [raw.get(a, 0.0) for a in actions]
        else:
            try:
                probs = list(raw)
            except TypeError:
                raise MDPError(f"{where} returned {raw!r}, not a sequence of probabilities") from None
            if len(probs) != len(actions):
                raise MDPError(f"{where} gave {len(probs)} probabilities for {len(actions)} legal actions")
        out = []
        for p in probs:
            try:
                p = float(p)
            except (TypeError, ValueError):
                raise MDPError(f"{where}: {p!r} is not a probability") from None
            if not math.isfinite(p) or p < 0:
                raise MDPError(f"{where}: {p!r} is not a finite number >= 0")
            out.append(p)
        total = sum(out)
        if not total > 0:
            raise MDPError(f"{where}: the probabilities sum to {total}")
        out = [p / total for p in out]
        if root and self.dirichlet_alpha is not None:
            noise = [self.rng.gammavariate(self.dirichlet_alpha, 1.0) for _ in out]
            z = sum(noise) or 1.0
            f = self.dirichlet_fraction
            out = [(1 - f) * p + f * x / z for p, x in zip(out, noise)]
        return dict(zip(actions, out))

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
