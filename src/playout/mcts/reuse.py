"""Tree reuse between moves: keep the subtree under the move actually played.

After our move and the opponent's reply, the node they lead to already holds
statistics from the previous searches; making it the new root keeps them
(its visits "survive the opponent's move") instead of starting from nothing.
"""

from __future__ import annotations

from typing import Any

from playout.mcts.generic import ActionNode, GenericSolver
from playout.mcts.stateful import StatefulSolver


def advance_root(solver: Any, action: Any, next_state: Any) -> Any | None:
    """Move ``solver``'s root along ``action`` to ``next_state``.

    Returns the solver with its new root, or ``None`` when the tree holds no
    node for that move (the caller then starts a fresh search).

    * :class:`StatefulSolver`: the child node stored for ``next_state`` under
      ``action``'s edge (exact, also for stochastic outcomes seen before).
    * :class:`GenericSolver`: the action node of ``action`` (its statistics average
      over the outcomes sampled through it, so this is exact only for deterministic
      transitions).
    """
    if isinstance(solver, StatefulSolver):
        edge = solver.root.edges.get(action)
        if edge is None or next_state not in edge.outcomes:
            return None
        solver.root = edge.outcomes[next_state][0]
    elif isinstance(solver, GenericSolver):
        child: ActionNode[Any, Any] | None = solver.root.children.get(action)
        if child is None:
            return None
        child.parent = None
        solver.root = child
    else:
        return None
    solver.root_state = next_state
    return solver
