"""Monte Carlo tree search: solvers, tree nodes, selection rules, policies, results.

The Python solvers are the readable, overridable reference (mctreesearch4j's
design); :mod:`playout.mcts.compiled` runs the same algorithm in numba over a
:class:`CompiledDomain` (numba primitives over a numpy state; the protocol is in
:mod:`playout.mcts.compiled_domain`), the built-ins' and a user's alike.
"""

from playout.mcts.compiled_domain import CompiledDomain
from playout.mcts.generic import ActionNode, GenericSolver
from playout.mcts.policies import RolloutPolicy, UniformPolicy
from playout.mcts.result import ActionStats, SearchResult
from playout.mcts.solver import EXPLORATIONS, PriorFn, Solver, ValueFn
from playout.mcts.stateful import Edge, StatefulSolver, StateNode

__all__ = [
    "ActionNode", "ActionStats", "CompiledDomain", "Edge", "GenericSolver", "RolloutPolicy", "SearchResult",
    "Solver", "StatefulSolver", "StateNode", "UniformPolicy", "EXPLORATIONS", "PriorFn", "ValueFn",
]
