"""Players for matches: agent SPEC strings and the objects they build.

A SPEC names a player and its settings, ``kind[:key=value,...]``:

* ``random`` -- a uniformly random legal action;
* ``mcts:iterations=500,depth=40,heuristic=table`` -- our MCTS; keys:
  ``iterations``, ``seconds`` (per move, instead of iterations), ``c``,
  ``discount``, ``depth`` (simulation depth limit), ``max_tree_depth``,
  ``solver`` (``generic`` | ``stateful``), ``engine`` (``compiled`` | ``python``),
  ``heuristic`` (``table``: Reversi's weight table as simulation policy;
  ``none``), ``reuse`` (``1``: keep the subtree between moves; Python engine).
  Unset keys take the domain's defaults.

>>> parse_spec("mcts:iterations=500,depth=40,heuristic=table")
('mcts', {'iterations': 500, 'depth': 40, 'heuristic': 'table'})
>>> parse_spec("random")
('random', {})
"""

from __future__ import annotations

import random
from typing import Any

KINDS = ("random", "mcts")
MCTS_KEYS = {
    "iterations": int, "seconds": float, "c": float, "discount": float, "depth": int,
    "max_tree_depth": int, "solver": str, "engine": str, "heuristic": str, "reuse": int,
}


class SpecError(ValueError):
    """A malformed agent SPEC; the message names the SPEC and the part at fault."""


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``kind:key=value,...`` into the kind and typed settings.

    Raises:
        SpecError: unknown kind or key, a value of the wrong type, a part without ``=``.
    """
    kind, _, rest = spec.strip().partition(":")
    if kind not in KINDS:
        raise SpecError(f"agent spec {spec!r}: unknown kind {kind!r} (choose {', '.join(KINDS)})")
    settings: dict[str, Any] = {}
    if kind == "random":
        if rest:
            raise SpecError(f"agent spec {spec!r}: 'random' takes no settings")
        return kind, settings
    for part in filter(None, rest.split(",")):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq:
            raise SpecError(f"agent spec {spec!r}: {part!r} is not key=value")
        if key not in MCTS_KEYS:
            raise SpecError(f"agent spec {spec!r}: unknown key {key!r} (known: {', '.join(MCTS_KEYS)})")
        try:
            settings[key] = MCTS_KEYS[key](value.strip())
        except ValueError:
            raise SpecError(f"agent spec {spec!r}: {key}={value!r} is not a {MCTS_KEYS[key].__name__}") from None
    if settings.get("solver", "generic") not in ("generic", "stateful"):
        raise SpecError(f"agent spec {spec!r}: solver must be generic or stateful")
    if settings.get("engine", "compiled") not in ("compiled", "python"):
        raise SpecError(f"agent spec {spec!r}: engine must be compiled or python")
    if settings.get("heuristic", "none") not in ("table", "none"):
        raise SpecError(f"agent spec {spec!r}: heuristic must be table or none")
    return kind, settings


class RandomAgent:
    """Uniformly random legal actions."""

    def __init__(self, problem: Any) -> None:
        self.mdp = problem.mdp

    def choose(self, state: Any, rng: random.Random) -> Any:
        acts = self.mdp.legal_actions(state)
        return acts[rng.randrange(len(acts))]

    def observe(self, state: Any, action: Any, next_state: Any) -> None:
        """Told every move of the game (for tree reuse); random keeps nothing."""


class MCTSAgent:
    """Our MCTS with the settings of a SPEC (see the module docstring)."""

    def __init__(self, problem: Any, settings: dict[str, Any]) -> None:
        self.problem = problem
        self.iterations = settings.get("iterations")
        self.seconds = settings.get("seconds")
        if self.iterations is None and self.seconds is None:
            self.iterations = 1000
        self.c = settings.get("c", problem.c)
        self.discount = settings.get("discount", problem.discount)
        self.depth = settings.get("depth", problem.depth)
        self.max_tree_depth = settings.get("max_tree_depth")
        self.solver = settings.get("solver", problem.solver)
        self.heuristic = settings.get("heuristic", "none") == "table"
        self.reuse = bool(settings.get("reuse", 0))
        engine = settings.get("engine", "compiled")
        if self.reuse or self.seconds is not None or not problem.builtin:
            engine = "python"
        self.engine = engine
        self._solver = None  # kept between moves when reuse is on

    def _policy(self):
        if not self.heuristic:
            return None
        from playout.domains.reversi import HeuristicPolicy

        return HeuristicPolicy()

    def choose(self, state: Any, rng: random.Random) -> Any:
        seed = rng.randrange(2**31)
        if self.engine == "compiled":
            from playout.mcts import compiled

            kwargs: dict[str, Any] = {"policy": "heuristic" if self.heuristic else "uniform"}
            if self.max_tree_depth:
                kwargs["max_tree_depth"] = self.max_tree_depth
            return compiled.search(self.problem.name, state, self.iterations, self.c, self.discount,
                                   self.depth, seed, **kwargs).action
        from playout.cli_core import make_solver

        if self.reuse and self._solver is not None and self._solver.root_state == state:
            solver = self._solver
        else:
            solver = make_solver(self.problem, self.solver, c=self.c, discount=self.discount,
                                 depth=self.depth, seed=seed, root_state=state,
                                 max_tree_depth=self.max_tree_depth, rollout_policy=self._policy())
        res = solver.run_tree_search(iterations=self.iterations, seconds=self.seconds)
        self._solver = solver if self.reuse else None
        return res.action

    def observe(self, state: Any, action: Any, next_state: Any) -> None:
        """Advance the kept tree along the move played (tree reuse, stateful solver)."""
        if self._solver is None:
            return
        from playout.mcts.reuse import advance_root

        self._solver = advance_root(self._solver, action, next_state)


def make_agent(spec: str, problem: Any):
    """Build the agent a SPEC names for ``problem`` (a :class:`playout.cli_core.Problem`)."""
    kind, settings = parse_spec(spec)
    if kind == "random":
        return RandomAgent(problem)
    if settings.get("heuristic") == "table" and not problem.name.startswith("reversi"):
        raise SpecError(f"agent spec {spec!r}: heuristic=table exists only for reversi")
    return MCTSAgent(problem, settings)
