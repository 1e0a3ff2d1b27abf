"""The five reference domains of mctreesearch4j, in readable Python, and their registry.

Each domain module defines an :class:`~playout.mdp.MDP` (or
:class:`~playout.mdp.Game`) with exact rules, plus ``render(state) -> str``
(ASCII board for ``playout play``), ``action_name(action) -> str`` and
``parse_action(text) -> action``:

* :mod:`~playout.domains.gridworld` -- slippery 8 x 5 grid world;
* :mod:`~playout.domains.push_your_luck` -- one-die press-your-luck;
* :mod:`~playout.domains.twenty48` -- 2048;
* :mod:`~playout.domains.connect4` -- Connect 4;
* :mod:`~playout.domains.reversi` -- Reversi/Othello (+ heuristic policy).

The ``*_nb`` modules beside them are numba versions of the same rules for the
compiled search, each exposing its :class:`~playout.mcts.compiled_domain.CompiledDomain`
as ``DOMAIN`` (the protocol a user's compiled domain follows too); importing this
package registers the five by name with :mod:`playout.mcts.compiled_domain`
(loaded on first use; :func:`compiled_domain` adds the settings below and the
initial state).  The reference modules import no numba.

:data:`DOMAINS` maps a name to a :class:`DomainSpec` holding the solver
settings of the anchor's timing conditions (mctreesearch4j v0.0.4 and its
paper's experiments).  Factories import their module only when called.

>>> spec = get_domain("connect4")
>>> spec.c, spec.discount, spec.depth, spec.solver
(1.4, 0.7, 800, 'generic')
>>> get_domain("chess")
Traceback (most recent call last):
    ...
playout.domains.UnknownDomain: unknown domain 'chess'; choose one of: connect4, gridworld, push_your_luck, reversi, twenty48
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

from playout.mdp import MDP


@dataclass(frozen=True)
class DomainSpec:
    """A built-in domain and the solver settings it is timed and played with.

    Attributes
    ----------
    name : str
        Registry key (also the CLI's DOMAIN argument).
    factory : callable
        Zero-argument callable returning a fresh MDP instance.
    c : float
        UCT exploration constant.
    discount : float
        Reward discount factor per step.
    depth : int
        Simulation depth limit (steps per playout).
    solver : "generic" | "stateful"
        Which solver the anchor uses on it.
    description : str
        One line for listings.
    """

    name: str
    factory: Callable[[], MDP[Any, Any]]
    c: float
    discount: float
    depth: int
    solver: Literal["generic", "stateful"]
    description: str


class UnknownDomain(KeyError):
    """A domain name not in :data:`DOMAINS`; the message lists the known names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


def _gridworld() -> MDP[Any, Any]:
    from playout.domains.gridworld import GridWorld

    return GridWorld()


def _push_your_luck() -> MDP[Any, Any]:
    from playout.domains.push_your_luck import PushYourLuck

    return PushYourLuck()


def _twenty48() -> MDP[Any, Any]:
    from playout.domains.twenty48 import DEMO_GRID, Twenty48

    return Twenty48(start=DEMO_GRID)


def _connect4() -> MDP[Any, Any]:
    from playout.domains.connect4 import Connect4

    return Connect4()


def _reversi() -> MDP[Any, Any]:
    from playout.domains.reversi import Reversi

    return Reversi()


#: name -> spec; settings from the anchor's timing conditions (mctreesearch4j v0.0.4).
DOMAINS: dict[str, DomainSpec] = {
    spec.name: spec
    for spec in (
        DomainSpec("gridworld", _gridworld, 0.28, 0.95, 999, "generic",
                   "8 x 5 slippery grid world, start (2, 2); +1 at (1, 1), -0.5 at (5, 4)"),
        DomainSpec("push_your_luck", _push_your_luck, 0.07, 0.99, 999, "generic",
                   "one die: roll toggles the face, cash out for the product of the marks"),
        DomainSpec("twenty48", _twenty48, 1.4, 0.9, 999, "generic",
                   "2048 from the anchor's demo grid; reward log2 of the largest tile"),
        DomainSpec("connect4", _connect4, 1.4, 0.7, 800, "generic",
                   "Connect 4, 7 x 6; +1 to the player who connects four"),
        DomainSpec("reversi", _reversi, 1.4, 0.9, 999, "stateful",
                   "Othello 8 x 8 with passes; final reward disc difference / 64"),
    )
}


def get_domain(name: str) -> DomainSpec:
    """The :class:`DomainSpec` called ``name``; :class:`UnknownDomain` (a ``KeyError``) if none."""
    try:
        return DOMAINS[name]
    except KeyError:
        raise UnknownDomain(
            f"unknown domain {name!r}; choose one of: {', '.join(sorted(DOMAINS))}"
        ) from None


def compiled_domain(name: str) -> Any:
    """The built-in ``name`` as a :class:`~playout.mcts.compiled_domain.CompiledDomain`: its
    ``<name>_nb.DOMAIN`` with this registry's settings (``c``, ``discount``, ``depth``) and the
    factory's initial state.  Imports numba (the primitives module)."""
    import importlib
    from dataclasses import replace

    spec = get_domain(name)
    base = importlib.import_module(f"playout.domains.{name}_nb").DOMAIN

    def initial_state() -> Any:
        return base.to_array(spec.factory().initial_state())

    return replace(base, c=spec.c, discount=spec.discount, depth=spec.depth, initial_state=initial_state)


def _register_compiled() -> None:
    from functools import partial

    from playout.mcts.compiled_domain import register

    for name in DOMAINS:
        register(name, partial(compiled_domain, name))


_register_compiled()

__all__ = ["DOMAINS", "DomainSpec", "UnknownDomain", "compiled_domain", "get_domain"]
