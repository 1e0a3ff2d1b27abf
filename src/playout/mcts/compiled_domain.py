"""The compiled-domain protocol: a domain as a value of numba-compiled primitives.

A :class:`CompiledDomain` is what :mod:`playout.mcts.compiled` searches: a small
frozen object holding ``@numba.njit`` functions over a numpy state, in the
spirit of mctx's ``recurrent_fn`` (the model is a function the search is given,
not a class it knows).  The kernel module imports no domain; the five built-ins
(each ``<name>_nb.DOMAIN`` in the domains package) are values of this same type,
registered by name when that package is imported.

The state is a one-dimensional C-contiguous ``int64`` array (bitboards, cells,
counters; the layout is the domain's business).  The primitives, all compiled
with ``numba.njit`` (``cache=True`` recommended), are:

==============================================  ======================================================
``legal(s, out) -> int``                        write the legal action ids (``0 <= a < n_actions``,
                                                ascending by convention) into ``out`` (``int64[n_actions]``)
                                                and return their number; 0 if and only if ``s`` is terminal
``step(s, a, rng_state) -> float``              apply action ``a`` to ``s`` in place; return the reward to
                                                the player who moved (``to_play`` before the step);
                                                ``rng_state`` (``uint64[1]``) feeds
                                                :func:`playout.mcts.nbrng.randint` / ``uniform`` for chance
``is_terminal(s) -> bool``                      game over
``to_play(s) -> int``                           0, or 1 in a two-player zero-sum game (the search negates
                                                rewards in player 1's frame); one-player MDPs return 0
``evaluate(s) -> float`` (optional)             value of a non-terminal state for ``to_play(s)`` when a
                                                simulation stops at its depth limit (default 0.0), and
                                                the leaf value with ``rollout_weight < 1``
``rollout_action(s, acts, n, rng_state,         the domain's simulation policy: one of ``acts[:n]``; used
params) -> int`` (optional)                     with ``policy="heuristic"`` (default: uniform random, the
                                                anchor's), ``params`` is :attr:`policy_params`
``prior(s, acts, n, out)`` (optional)           write the prior probabilities of the legal actions
                                                ``acts[:n]`` into ``out[:n]`` (``float64[n_actions]``;
                                                non-negative, finite, not all 0; normalised by the
                                                search); its presence switches selection to PUCT
==============================================  ======================================================

Python-side fields (optional): ``initial_state()`` (the root array for ``playout
solve``), ``to_array(state)`` (a Python domain state to the array),
``action_of(a)`` (action id to the value reported in results; default ``int``),
``action_name(action)`` (display), and default solver settings ``c``,
``discount``, ``depth`` (``None``: the library's 1.4, 1.0, 1000).

:func:`check_domain` validates the structure (every required field present, a
numba dispatcher, taking the documented number of arguments) with one-line
``ValueError`` messages that name the field.  This module imports no numba at
import time, so ``import playout.mcts`` stays light.

Registry: :func:`register` maps a name to a :class:`CompiledDomain` or to a
``"module:attribute"`` string loaded on first use; :func:`lookup` resolves it.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable

#: field -> parameter names of the primitive (the documented signature)
PRIMITIVES: dict[str, tuple[str, ...]] = {
    "legal": ("s", "out"),
    "step": ("s", "a", "rng_state"),
    "is_terminal": ("s",),
    "to_play": ("s",),
    "evaluate": ("s",),
    "rollout_action": ("s", "acts", "n", "rng_state", "params"),
    "prior": ("s", "acts", "n", "out"),
}
REQUIRED = ("legal", "step", "is_terminal", "to_play")


@dataclass(frozen=True)
class CompiledDomain:
    """A domain for the compiled MCTS kernel (see the module docstring for each field).

    Attributes
    ----------
    name : str
        Identifier (result tables, the kernel's cache file name).
    n_actions : int
        Number of action ids; ``legal``'s ``out`` has this length and the tree
        keeps one child slot per id.
    legal, step, is_terminal, to_play : numba dispatchers
        The required primitives.
    evaluate, rollout_action, prior : numba dispatchers or None
        Optional primitives (``None``: 0.0 at the depth cut; uniform rollouts; UCT).
    policy_params : array, zero-argument callable or None
        float64 array passed to ``rollout_action`` (Reversi: its weight table);
        a callable is called once, on the first search with the heuristic policy.
    initial_state, to_array, action_of, action_name : Python callables or None
    c, discount, depth : float, float, int or None
        Default UCT constant, discount and simulation depth for this domain.
    """

    name: str
    n_actions: int
    legal: Any
    step: Any
    is_terminal: Any
    to_play: Any
    evaluate: Any = None
    rollout_action: Any = None
    policy_params: Any = None
    prior: Any = None
    initial_state: Callable[[], Any] | None = None
    to_array: Callable[..., Any] | None = None
    action_of: Callable[[int], Any] = int
    action_name: Callable[[Any], str] = str
    c: float | None = None
    discount: float | None = None
    depth: int | None = None


def _is_dispatcher(obj: Any) -> bool:
    from numba import config

    if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT: njit returns the plain function
        return callable(obj)
    from numba.core.dispatcher import Dispatcher

    return isinstance(obj, Dispatcher)


def check_domain(domain: Any) -> CompiledDomain:
    """``domain`` if it satisfies the protocol, else ``ValueError`` with one line naming the field.

    Checks: a :class:`CompiledDomain`; ``n_actions`` an int >= 1; each required
    primitive present, each given primitive a numba ``@njit`` function taking the
    documented parameters (their number; names are free).  Types are checked by
    numba when the kernel compiles (:mod:`playout.mcts.compiled` turns a typing
    error into one line naming the primitive).
    """
    if not isinstance(domain, CompiledDomain):
        raise ValueError(f"not a playout.mcts.CompiledDomain: {type(domain).__name__}")
    who = f"compiled domain {domain.name!r}"
    if isinstance(domain.n_actions, bool) or not isinstance(domain.n_actions, int) or domain.n_actions < 1:
        raise ValueError(f"{who}: field 'n_actions' must be an int >= 1, got {domain.n_actions!r}")
    for field, params in PRIMITIVES.items():
        fn = getattr(domain, field)
        if fn is None:
            if field in REQUIRED:
                raise ValueError(f"{who}: field {field!r} is missing (an @njit function "
                                 f"{field}({', '.join(params)}))")
            continue
        if not _is_dispatcher(fn):
            raise ValueError(f"{who}: field {field!r} must be a numba @njit function, got "
                             f"{type(fn).__name__}")
        py = getattr(fn, "py_func", fn)
        try:
            got = [p.name for p in inspect.signature(py).parameters.values()]
        except (TypeError, ValueError):
            continue
        if len(got) != len(params):
            raise ValueError(f"{who}: field {field!r} must take ({', '.join(params)}); "
                             f"{py.__name__} takes ({', '.join(got)})")
    for field in ("initial_state", "to_array", "action_of", "action_name"):
        fn = getattr(domain, field)
        if fn is not None and not callable(fn):
            raise ValueError(f"{who}: field {field!r} must be callable, got {type(fn).__name__}")
    return domain


_REGISTRY: dict[str, Any] = {}


def register(name: str, domain: CompiledDomain | str | Callable[[], CompiledDomain]) -> None:
    """Make ``name`` resolve to ``domain``: a value, a ``"module:attribute"`` string imported on
    first use, or a zero-argument callable called on first use."""
    _REGISTRY[name] = domain


def load(spec: str) -> Any:
    """The object named by ``"module:attribute"`` (imported)."""
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


ENTRY_POINT_GROUP = "playout.compiled_domains"
_discovered = False


def _discover() -> None:
    """Register the domains installed packages declare under the entry-point group
    :data:`ENTRY_POINT_GROUP` (``name = "module:attribute"``; the five built-ins are declared in
    this project's ``pyproject.toml``), once, without importing them: a name is imported on
    first use.  Names registered in code win."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _REGISTRY.setdefault(ep.name, ep.value)


def registered() -> list[str]:
    """Registered names (entry points included), sorted."""
    _discover()
    return sorted(_REGISTRY)


def lookup(name: str) -> CompiledDomain:
    """The registered domain ``name``; ``ValueError`` (listing the known names) if none."""
    got = _REGISTRY.get(name)
    if got is None:
        _discover()
        got = _REGISTRY.get(name)
    if got is None:
        known = ", ".join(registered()) or "none registered"
        raise ValueError(f"no compiled path for domain {name!r}; known: {known}")
    if isinstance(got, str):
        got = load(got)
    elif not isinstance(got, CompiledDomain) and callable(got):
        got = got()
    _REGISTRY[name] = got
    return got
