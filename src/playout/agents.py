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

import math
import random
from typing import Any

KINDS = ("random", "mcts")


def _flag(text: str) -> int:
    low = text.lower()
    if low in ("1", "true", "yes", "on"):
        return 1
    if low in ("0", "false", "no", "off"):
        return 0
    raise ValueError(text)


_flag.__name__ = "true/false (1/0)"
MCTS_KEYS = {
    "iterations": int, "seconds": float, "c": float, "discount": float, "depth": int,
    "max_tree_depth": int, "solver": str, "engine": str, "heuristic": str, "reuse": _flag,
}
#: key -> (test, what the value must be)
LIMITS = {
    "iterations": (lambda v: v >= 1, ">= 1"),
    "seconds": (lambda v: math.isfinite(v) and v > 0, "a finite number > 0"),
    "c": (lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    "discount": (lambda v: 0 < v <= 1, "in (0, 1]"),
    "depth": (lambda v: v >= 0, ">= 0"),
    "max_tree_depth": (lambda v: v >= 1, ">= 1"),
    "solver": (lambda v: v in ("generic", "stateful"), "generic or stateful"),
    "engine": (lambda v: v in ("compiled", "python"), "compiled or python"),
    "heuristic": (lambda v: v in ("table", "none"), "table or none"),
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
        if key in settings:
            raise SpecError(f"agent spec {spec!r}: {key} is given twice")
        try:
            settings[key] = MCTS_KEYS[key](value.strip())
        except ValueError:
            kind = {"int": "an integer", "float": "a number"}.get(MCTS_KEYS[key].__name__,
                                                                  f"a {MCTS_KEYS[key].__name__}")
            raise SpecError(f"agent spec {spec!r}: {key}={value!r} is not {kind}") from None
        test, what = LIMITS.get(key, (lambda v: True, ""))
        if not test(settings[key]):
            raise SpecError(f"agent spec {spec!r}: {key} must be {what}, got {value.strip()!r}")
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

    def warm(self, state: Any) -> None:
        """Nothing to load."""


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
        self.engine = settings.get("engine", "compiled")
        self._solver = None  # kept between moves when reuse is on

    def warm(self, state: Any) -> None:
        """Load (or compile) the compiled kernel with a 1-iteration search, untimed."""
        from playout.cli.core import search

        if not self.reuse:
            search(self.problem, state, engine=self.engine, solver=self.solver, iterations=1,
                   seconds=None, c=self.c, discount=self.discount, depth=self.depth, seed=0,
                   heuristic=self.heuristic)

    def choose(self, state: Any, rng: random.Random) -> Any:
        from playout.cli.core import make_solver, search

        seed = rng.randrange(2**31)
        if not self.reuse:
            return search(self.problem, state, engine=self.engine, solver=self.solver,
                          iterations=self.iterations, seconds=self.seconds, c=self.c,
                          discount=self.discount, depth=self.depth, seed=seed,
                          max_tree_depth=self.max_tree_depth, heuristic=self.heuristic).action
        if self._solver is not None and self._solver.root_state == state:
            solver = self._solver
        else:
            solver = make_solver(self.problem, self.solver, c=self.c, discount=self.discount,
                                 depth=self.depth, seed=seed, root_state=state,
                                 max_tree_depth=self.max_tree_depth, heuristic=self.heuristic)
        res = solver.run_tree_search(iterations=self.iterations, seconds=self.seconds)
        self._solver = solver
        return res.action

    def observe(self, state: Any, action: Any, next_state: Any) -> None:
        """Advance the kept tree along the move played (tree reuse, stateful solver)."""
        if self._solver is None:
            return
        from playout.mcts.reuse import advance_root

        self._solver = advance_root(self._solver, action, next_state)


def make_agent(spec: str, problem: Any):
    """Build the agent a SPEC names for ``problem`` (a :class:`playout.cli.core.Problem`)."""
    kind, settings = parse_spec(spec)
    if kind == "random":
        return RandomAgent(problem)
    if settings.get("heuristic") == "table" and not problem.name.startswith("reversi"):
        raise SpecError(f"agent spec {spec!r}: heuristic=table exists only for reversi")
    return MCTSAgent(problem, settings)
