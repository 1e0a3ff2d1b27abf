"""The stateful solver: nodes hold states.

mctreesearch4j's ``StatefulSolver`` keeps the state in each node, so a descent
costs no replayed transitions.  Each node's actions are *edges* carrying the UCT
statistics; an edge has one child per distinct next state sampled through it
(one for a deterministic domain), so a stochastic domain grows a closed-loop tree.

With ``transpositions=True`` nodes are shared through a table keyed by state
(states must then be hashable): positions reached by different move orders pool
their statistics (Childs, Brodeur & Kocsis, "Transpositions and move groups in
Monte Carlo tree search", CIG 2008: the UCT1 variant, statistics on edges, a
node's children shared).  Backpropagation follows the path of the iteration, not
parent pointers.

With ``mcts_solver=True`` (two-player games and MDPs with terminal rewards only)
proven values are backed up as in MCTS-Solver (Winands, Bjornsson & Saito,
"Monte-Carlo Tree Search Solver", CG 2008): a node is a proven win for the player
to move if one action leads to a proven win for them, a proven loss if every
action leads to a proven loss; the search stops once the root is proven.

Chance.  MCTS-Solver's backup is sound only along deterministic edges: one
sampled outcome of a dice roll proves nothing about the others.  An edge's
proof therefore comes

* from its one successor, when the edge is *deterministic*: every transition
  sampled through it drew nothing from the solver's ``rng``.  The MDP contract
  (:mod:`playout.mdp`) makes a stochastic transition draw its randomness from
  ``rng``, so a transition that drew nothing is a function of (state, action).
  The solver's ``rng`` counts its draws (:class:`DrawCountingRandom`, the same
  stream as :class:`random.Random`) to tell; a domain that declares nothing
  and draws from ``rng`` is stochastic, and a transition that draws but ignores
  the draw (a slip probability of 0) is conservatively stochastic too;
* from all its outcomes, when the domain enumerates them with
  ``chance_outcomes(state, action)`` (:meth:`playout.mdp.MDP.chance_outcomes`):
  the edge is a proven win (loss) once every outcome of positive probability is
  in the tree and proven a win (loss) for the chooser.  Mixed outcomes leave the
  edge unproven (its value lies strictly between), and its statistics decide;
* never, otherwise: a stochastic edge without an outcome list stays unproven,
  so a root whose every line passes through chance is searched for the whole
  budget and answered by visit counts, as without ``mcts_solver``.

A transition that draws its randomness elsewhere (the global :mod:`random` or
numpy state) breaks the contract, and the solver cannot see it.
"""

from __future__ import annotations

import math
import random
from typing import Any, Generic

from playout.mdp import A, MDPError, S
from playout.mcts.result import ActionStats, SearchResult
from playout.mcts.selection import uct
from playout.mcts.solver import Solver, frame_sign, make_stats


class DrawCountingRandom(random.Random):
    """A :class:`random.Random` that counts its draws in :attr:`draws`.

    Every method of :class:`random.Random` draws through ``random()`` or
    ``getrandbits()`` (CPython's ``random.py``), so counting those two sees every
    draw; the stream is the same as a :class:`random.Random` in the same state.
    """

    draws: int = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()

    def getrandbits(self, k: int) -> int:
        self.draws += 1
        return super().getrandbits(k)


class Edge(Generic[S, A]):
    """An action out of a :class:`StateNode`, with its statistics.

    Attributes:
        action: the action.
        player: the player choosing it.
        visits, total, max_reward: statistics in ``player``'s frame.
        outcomes: next state -> (child node, reward in player 0's frame).
        proven: +1 / -1 / 0: proven win / loss / unknown for ``player``.
        drew: a transition sampled through the edge drew from the solver's rng
            (the edge is stochastic); kept only with ``mcts_solver``.
        chance: the domain's ``{next_state: probability}`` for the edge
            (:meth:`playout.mdp.MDP.checked_chance_outcomes`), or ``None``.
    """

    __slots__ = ("action", "player", "visits", "total", "max_reward", "outcomes", "proven",
                 "drew", "chance")

    def __init__(self, action: A, player: int) -> None:
        self.action = action
        self.player = player
        self.visits = 0
        self.total = 0.0
        self.max_reward = -math.inf
        self.outcomes: dict[Any, tuple[StateNode[S, A], float]] = {}
        self.proven = 0
        self.drew = False
        self.chance: dict[Any, float] | None = None

    def __repr__(self) -> str:
        return f"Edge(action={self.action!r}, visits={self.visits}, total={self.total:.3f})"


class StateNode(Generic[S, A]):
    """A node of the stateful tree.

    Attributes:
        state: the state.
        depth: depth at which the node was first reached.
        terminal: ``mdp.is_terminal(state)``.
        actions: legal actions (empty when terminal).
        edges: action -> :class:`Edge`, in expansion order.
        visits: times the node was on an iteration's path.
    """

    __slots__ = ("state", "depth", "terminal", "actions", "edges", "visits", "player")

    def __init__(self, state: S, depth: int, terminal: bool, actions: list[A], player: int) -> None:
        self.state = state
        self.depth = depth
        self.terminal = terminal
        self.actions = actions
        self.edges: dict[Any, Edge[S, A]] = {}
        self.visits = 0
        self.player = player

    def __repr__(self) -> str:
        return f"StateNode(state={self.state!r}, visits={self.visits})"


class StatefulSolver(Solver[S, A]):
    """MCTS over state nodes; optional transposition table and MCTS-Solver.

    Args:
        transpositions: share nodes between equal states (states must be hashable).
        mcts_solver: back up proven wins/losses (MCTS-Solver); proofs cross only
            deterministic edges and chance edges whose every outcome is proven
            (see the module docstring).  The solver's ``rng`` is then a
            :class:`DrawCountingRandom` (same stream).
        **kwargs: see :class:`~playout.mcts.solver.Solver`.

    Raises:
        MDPError: with ``mcts_solver``, a ``chance_outcomes`` that is malformed or
            that misses a state ``transition`` sampled.
    """

    def __init__(self, mdp: Any, *, transpositions: bool = False, mcts_solver: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(mdp, **kwargs)
        self.table: dict[Any, StateNode[S, A]] | None = {} if transpositions else None
        self.mcts_solver = mcts_solver
        if mcts_solver:
            counting = DrawCountingRandom()
            counting.setstate(self.rng.getstate())
            self.rng = counting
        self.root = self._node(self.root_state, 0)
        #: (node, edge, child, edge reward) records of the current iteration.
        self.path: list[tuple[StateNode[S, A], Edge[S, A], StateNode[S, A], float]] = []

    def _node(self, state: S, depth: int) -> StateNode[S, A]:
        if self.table is not None:
            found = self.table.get(state)
            if found is not None:
                return found
        terminal = bool(self.mdp.is_terminal(state))
        actions = [] if terminal else self.mdp.legal_actions(state)
        node: StateNode[S, A] = StateNode(state, depth, terminal, actions, self.player(state))
        if self.table is not None:
            self.table[state] = node
        return node

    def new_iteration(self) -> StateNode[S, A]:
        self.path = []
        return self.root

    def _follow(self, node: StateNode[S, A], edge: Edge[S, A]) -> tuple[StateNode[S, A], bool]:
        """Sample ``edge``'s transition; return the child and whether it is new."""
        if self.mcts_solver:
            before = self.rng.draws  # type: ignore[attr-defined]
            nxt, reward = self.step(node.state, edge.action)
            if self.rng.draws != before:  # type: ignore[attr-defined]
                edge.drew = True
            if edge.chance is not None and nxt not in edge.chance:
                raise MDPError(
                    f"{type(self.mdp).__name__}.transition sampled {nxt!r} for action {edge.action!r} "
                    f"from state {node.state!r}, which chance_outcomes does not list"
                )
        else:
            nxt, reward = self.step(node.state, edge.action)
        known = edge.outcomes.get(nxt)
        if known is not None:
            child, _ = known
            self.path.append((node, edge, child, reward))
            return child, False
        child = self._node(nxt, node.depth + 1)
        edge.outcomes[nxt] = (child, reward)
        self.path.append((node, edge, child, reward))
        return child, True

    def select(self, node: StateNode[S, A]) -> StateNode[S, A]:
        on_path = {id(node)}
        while not node.terminal and node.depth < self.max_tree_depth:
            if len(node.edges) < len(node.actions):
                return node
            edge = self._best_edge(node)
            child, new = self._follow(node, edge)
            if new or id(child) in on_path:  # a new outcome, or a cycle through transpositions
                return child
            on_path.add(id(child))
            node = child
        return node

    def _best_edge(self, node: StateNode[S, A]) -> Edge[S, A]:
        best, best_score = None, -math.inf
        for a in node.actions:
            edge = node.edges[a]
            if self.mcts_solver and edge.proven:
                score = math.inf if edge.proven > 0 else -math.inf
                if edge.proven < 0 and best is None:
                    best = edge  # keep some edge when every one is lost
            else:
                score = uct(edge.total, edge.visits, node.visits, self.c)
            if score > best_score:
                best, best_score = edge, score
        assert best is not None
        return best

    def expand(self, node: StateNode[S, A]) -> StateNode[S, A]:
        if node.terminal or node.depth >= self.max_tree_depth:
            return node
        if node is not self.root and node.visits == 0:
            return node  # select just created it from a new sampled outcome
        untried = [a for a in node.actions if a not in node.edges]
        if not untried:
            return node
        action = untried[self.rng.randrange(len(untried))]
        edge: Edge[S, A] = Edge(action, node.player)
        if self.mcts_solver:
            edge.chance = self.mdp.checked_chance_outcomes(node.state, action)
        node.edges[action] = edge
        child, _ = self._follow(node, edge)
        return child

    def simulate(self, node: StateNode[S, A]) -> float:
        return self.rollout(node.state)

    def backpropagate(self, node: StateNode[S, A], value: float) -> None:
        node.visits += 1
        for parent, edge, _child, reward in reversed(self.path):
            value = reward + self.discount * value
            mine = value * frame_sign(edge.player)
            edge.visits += 1
            edge.total += mine
            if mine > edge.max_reward:
                edge.max_reward = mine
            parent.visits += 1
            if self.mcts_solver:
                self._prove(parent, edge, _child, reward)

    # -- MCTS-Solver ------------------------------------------------------
    def _prove(self, parent: StateNode[S, A], edge: Edge[S, A], child: StateNode[S, A], reward: float) -> None:
        """Update ``edge.proven`` after an iteration passed it to ``child``.

        Deterministic edge: ``child``'s proof.  Enumerated chance edge: the common
        proof of every outcome, once all are in the tree.  Other edges: unproven.
        """
        if edge.proven:
            return
        if edge.chance is not None:
            if len(edge.outcomes) < len(edge.chance):
                return  # an outcome not sampled yet
            proofs = {self._outcome_proof(edge, c, r) for c, r in edge.outcomes.values()}
            if len(proofs) == 1:
                edge.proven = proofs.pop()
        elif not edge.drew:
            edge.proven = self._outcome_proof(edge, child, reward)

    def _outcome_proof(self, edge: Edge[S, A], child: StateNode[S, A], reward: float) -> int:
        """+1 / -1 / 0: ``child`` (reached through ``edge`` with ``reward``, player 0's
        frame) proven won / lost / unknown for the player choosing ``edge``."""
        if child.terminal:
            mine = reward * frame_sign(edge.player)
            return 1 if mine > 0 else (-1 if mine < 0 else 0)
        value = self._node_proof(child)  # for the player to move at child
        return value if child.player == edge.player else -value

    def _node_proof(self, node: StateNode[S, A]) -> int:
        """+1 / -1 if ``node`` is proven won / lost for its player to move, else 0."""
        if node.terminal or not node.actions:
            return 0
        if any(e.proven > 0 for e in node.edges.values()):
            return 1
        if len(node.edges) == len(node.actions) and all(e.proven < 0 for e in node.edges.values()):
            return -1
        return 0

    def root_proof(self) -> int:
        """+1 / -1 if the root is proven a win / loss for the player to move, else 0."""
        return self._node_proof(self.root)

    def run_tree_search(self, iterations: int | None = None, seconds: float | None = None) -> SearchResult:
        if not self.mcts_solver:
            return super().run_tree_search(iterations, seconds)
        # stop early once the root is proven: run in small chunks
        import time

        start = time.perf_counter()
        remaining = iterations
        while self.root_proof() == 0:
            chunk = 64 if remaining is None else min(64, remaining)
            if chunk <= 0:
                break
            left = None if seconds is None else seconds - (time.perf_counter() - start)
            if left is not None and left <= 0:
                break
            before = self.iterations_done
            super().run_tree_search(chunk, left)
            if remaining is not None:
                remaining -= self.iterations_done - before
        res = self.result(time.perf_counter() - start)
        return res

    def result(self, seconds: float = 0.0) -> SearchResult:
        res = super().result(seconds)
        if not self.mcts_solver:
            return res
        proof = self.root_proof()
        action = res.action
        if proof > 0:  # play the proven win, not the most visited
            action = next(e.action for e in self.root.edges.values() if e.proven > 0)
        return SearchResult(action, res.stats, res.iterations, res.seconds, proof)

    def root_statistics(self) -> list[ActionStats]:
        order = {a: i for i, a in enumerate(self.root.actions)}
        edges = sorted(self.root.edges.values(), key=lambda e: order[e.action])
        return make_stats(((e.action, e.visits, e.total, e.max_reward) for e in edges),
                          self.root.visits, self.c)


__all__ = ["StatefulSolver", "StateNode", "Edge", "MDPError"]
