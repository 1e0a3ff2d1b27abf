"""The generic solver: nodes hold actions, states are replayed.

mctreesearch4j's ``GenericSolver``: a node stands for the sequence of actions from
the root, not for a state.  On every descent the state is re-derived by calling
``transition`` again from the root, so a stochastic domain (2048's tile spawns,
backgammon's dice, GridWorld's slips) samples a fresh outcome each time and the
node's statistics average over outcomes ("open-loop" MCTS).  Right for stochastic
domains; for deterministic ones the :class:`~playout.mcts.stateful.StatefulSolver`
avoids the replays.
"""

from __future__ import annotations

import math
from typing import Any, Generic

from playout.mdp import A, S
from playout.mcts.result import ActionStats
from playout.mcts.solver import Solver, frame_sign, make_stats


class ActionNode(Generic[S, A]):
    """A node of the generic tree: the action that leads to it and its statistics.

    Attributes:
        action: the inducing action (``None`` at the root).
        parent: parent node (``None`` at the root).
        depth: distance from the root.
        player: the player who chose ``action`` (to move at the parent).
        children: inducing action -> child, in expansion order.
        visits, total, max_reward: statistics in ``player``'s frame.
        state: the state sampled on the latest descent (transient).
        reward: the edge reward sampled on the latest descent (player 0's frame).
        prior: ``(state, {action: probability})``: the solver's ``prior_fn`` at the
            state it was last computed for (PUCT), or ``None``.
    """

    __slots__ = ("action", "parent", "depth", "player", "children", "visits", "total",
                 "max_reward", "state", "reward", "prior")

    def __init__(self, action: A | None, parent: "ActionNode[S, A] | None", player: int) -> None:
        self.action = action
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.player = player
        self.children: dict[Any, ActionNode[S, A]] = {}
        self.visits = 0
        self.total = 0.0
        self.max_reward = -math.inf
        self.state: S | None = None
        self.reward = 0.0
        self.prior: tuple[Any, dict[Any, float]] | None = None

    def __repr__(self) -> str:
        return f"ActionNode(action={self.action!r}, visits={self.visits}, total={self.total:.3f})"


class GenericSolver(Solver[S, A]):
    """MCTS over action nodes with transitions replayed on each descent.

    See :class:`~playout.mcts.solver.Solver` for the parameters.

    >>> from playout.mdp import MDP
    >>> class Coin(MDP):  # "safe" pays 0.5; "gamble" pays 1 with probability 0.3
    ...     def initial_state(self): return "start"
    ...     def actions(self, s): return ["safe", "gamble"]
    ...     def transition(self, s, a, rng): return "win" if a == "gamble" and rng.random() < 0.3 else "end"
    ...     def reward(self, s, a, t): return {"win": 1.0, "end": 0.5 if a == "safe" else 0.0}[t]
    ...     def is_terminal(self, s): return s != "start"
    >>> GenericSolver(Coin(), exploration_constant=0.5, seed=3).run_tree_search(iterations=300).action
    'safe'
    """

    def __init__(self, mdp: Any, **kwargs: Any) -> None:
        super().__init__(mdp, **kwargs)
        self.root: ActionNode[S, A] = ActionNode(None, None, player=-1)
        #: the action PUCT chose to expand at the node select returned (``None``: random).
        self._pending: Any = None

    def new_iteration(self) -> ActionNode[S, A]:
        self.root.state = self.root_state
        self._pending = None
        return self.root

    def _best_child(self, node: ActionNode[S, A], actions: list[A]) -> ActionNode[S, A]:
        best, best_score = None, -math.inf
        for a in actions:
            child = node.children[a]
            score = self.uct_score(child.total, child.visits, node.visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best

    def _puct_action(self, node: ActionNode[S, A], actions: list[A]) -> Any:
        """PUCT over ``actions`` (tried or not) at ``node``'s sampled state; the prior
        is recomputed when the sampled state differs from the one it was computed for
        (open loop: a stochastic domain reaches the node in several states)."""
        if node.prior is None or node.prior[0] != node.state:
            node.prior = (node.state, self.prior(node.state, actions, root=node is self.root))
        prior = node.prior[1]
        tried = [node.children[a] for a in actions if a in node.children and node.children[a].visits]
        sum_visits = sum(ch.visits for ch in tried)
        fpu = sum(ch.total for ch in tried) / sum_visits if sum_visits else 0.0
        best, best_score = None, -math.inf
        for a in actions:
            ch = node.children.get(a)
            if ch is None or ch.visits == 0:
                q, n = fpu, 0
            else:
                q, n = ch.total / ch.visits, ch.visits
            score = self.puct_score(q, n, prior.get(a, 0.0), sum_visits)
            if best is None or score > best_score:
                best, best_score = a, score
        return best

    def _descend(self, node: ActionNode[S, A], child: ActionNode[S, A]) -> ActionNode[S, A]:
        child.state, child.reward = self.step(node.state, child.action)  # type: ignore[arg-type]
        return child

    def select(self, node: ActionNode[S, A]) -> ActionNode[S, A]:
        mdp = self.mdp
        while node.depth < self.max_tree_depth and not mdp.is_terminal(node.state):
            actions = mdp.legal_actions(node.state)
            if self.prior_fn is not None:
                action = self._puct_action(node, actions)
                if action not in node.children:
                    self._pending = action
                    return node
                node = self._descend(node, node.children[action])
                continue
            if any(a not in node.children for a in actions):
                return node
            node = self._descend(node, self._best_child(node, actions))
        return node

    def expand(self, node: ActionNode[S, A]) -> ActionNode[S, A]:
        if node.depth >= self.max_tree_depth or self.mdp.is_terminal(node.state):
            return node
        if self._pending is not None:
            action, self._pending = self._pending, None
        else:
            untried = [a for a in self.mdp.legal_actions(node.state) if a not in node.children]
            if not untried:
                return node
            action = untried[self.rng.randrange(len(untried))]
        child: ActionNode[S, A] = ActionNode(action, node, self.player(node.state))
        node.children[action] = child
        return self._descend(node, child)

    def simulate(self, node: ActionNode[S, A]) -> float:
        return self.leaf_value(node.state)  # type: ignore[arg-type]

    def backpropagate(self, node: ActionNode[S, A] | None, value: float) -> None:
        while node is not None:
            node.visits += 1
            if node.parent is not None:
                value = node.reward + self.discount * value
                mine = value * frame_sign(node.player)
                node.total += mine
                if mine > node.max_reward:
                    node.max_reward = mine
                self.observe_q(mine)
            node = node.parent

    def root_statistics(self) -> list[ActionStats]:
        items = [(a, ch.visits, ch.total, ch.max_reward) for a, ch in self.root.children.items()]
        order = self._root_order()
        items.sort(key=lambda it: order.get(it[0], len(order)))
        return make_stats(items, self.root.visits, self.c)

    def _root_order(self) -> dict[Any, int]:
        if self.mdp.is_terminal(self.root_state):
            return {}
        return {a: i for i, a in enumerate(self.mdp.legal_actions(self.root_state))}
