"""Any OpenSpiel game as a :class:`playout.mdp.Game` (optional extra ``openspiel``).

OpenSpiel (Lanctot et al., "OpenSpiel: A Framework for Reinforcement Learning in
Games", 2019) models chance as *chance nodes* whose outcomes have probabilities.
Our MDP interface keeps chance inside ``transition``: after the player's action,
every chance node that follows is resolved by sampling its outcomes with the
solver's ``rng``.  So a dice game (pig, backgammon) is a stochastic MDP that the
:class:`~playout.mcts.GenericSolver` handles.

The states we hand out (``initial_state``, ``transition``) are therefore never
chance nodes.  A chance node passed in by hand -- e.g. kuhn_poker's or
backgammon's ``game.new_initial_state()``, the deal or opening roll -- is not a
decision: ``actions`` and ``to_play`` refuse it with a :class:`ValueError` (its
"legal actions" are chance outcomes, which a solver would otherwise return as
the move).  Sample it first with :meth:`OpenSpielGame.resolve_chance`.

By default ``chance_outcomes`` is not enumerated (the MDP default, ``None``): pyspiel
states compare by identity, so listed successors could never match sampled ones.  With
``StatefulSolver(mcts_solver=True)`` proofs then cross only edges whose
transition sampled no chance node (see :mod:`playout.mcts.stateful`).
``OpenSpielGame(name, enumerate_chance=True)`` lists them, for
``StatefulSolver(chance="expected")``, which picks its outcomes from the list (never
sampling), so its expectimax chance edges back up the probability-weighted mean over
OpenSpiel's ``state.chance_outcomes()`` -- after the action, every chance node that
follows, as OpenSpiel's ``MCTSBot`` expands them (its ``_apply_tree_policy``).  Not for
the MCTS-Solver, which samples the transition and then refuses a successor the list
does not hold (an ``MDPError``).

Supported: one-player games and two-player zero-sum games with sequential moves.
Rewards are OpenSpiel's returns, paid to the mover as the change in its return.

>>> game = OpenSpielGame("tic_tac_toe")
>>> s = game.initial_state()
>>> game.to_play(s), len(game.actions(s))
(0, 9)
"""

from __future__ import annotations

import random
from typing import Any

from playout.mdp import Game

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("OpenSpiel is not installed: pip install 'playout[openspiel]' (in a clone: "
                      "pip install -e '.[openspiel]')") from exc


class OpenSpielGame(Game[Any, int]):
    """Wraps ``pyspiel.load_game(name)``.

    Args:
        name: an OpenSpiel game string, e.g. ``"connect_four"`` or ``"pig(winscore=20)"``.
        seed: seeds the chance nodes before the first decision (e.g. backgammon's
            opening roll), so ``initial_state()`` is reproducible.
        enumerate_chance: list a transition's chance outcomes (:meth:`chance_outcomes`)
            for ``StatefulSolver(chance="expected")``; off by default (see the module
            docstring).

    Raises:
        ValueError: unknown game, simultaneous moves, or more than two players /
            not zero-sum for two players.
    """

    def __init__(self, name: str, seed: int = 0, enumerate_chance: bool = False) -> None:
        base = name.split("(", 1)[0]
        if base not in pyspiel.registered_names():  # checked first: pyspiel prints its whole list
            close = [n for n in pyspiel.registered_names() if base and (base in n or n in base)][:5]
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ValueError(f"unknown OpenSpiel game {name!r}{hint}")
        try:
            self.game = pyspiel.load_game(name)
        except pyspiel.SpielError as exc:
            first = str(exc).splitlines()[0] if str(exc) else "not found"
            raise ValueError(f"unknown OpenSpiel game {name!r}: {first[:200]}") from None
        info = self.game.get_type()
        if info.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(f"{name!r}: only sequential-move games are supported")
        n = self.game.num_players()
        if n > 2 or (n == 2 and info.utility != pyspiel.GameType.Utility.ZERO_SUM):
            raise ValueError(f"{name!r}: only one-player or two-player zero-sum games are supported")
        self.name = name
        self.num_players = n
        #: True for imperfect-information games: our solvers plan on the true state.
        self.hidden_information = info.information != pyspiel.GameType.Information.PERFECT_INFORMATION
        self._namer = self.game.new_initial_state()
        self.seed = seed
        self.enumerate_chance = bool(enumerate_chance)

    def resolve_chance(self, state: Any, rng: random.Random) -> Any:
        """Sample every chance node from ``state`` on (OpenSpiel's ``chance_outcomes``
        probabilities, one ``rng.choices`` draw each) until a decision or terminal state.

        ``state`` is changed in place and returned; a state that is not a chance
        node is returned as is, and ``rng`` is not drawn from.
        """
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, weights=probs)[0])
        return state

    _resolve_chance = resolve_chance  # the earlier private name

    def _decision(self, state: Any, member: str) -> None:
        if state.is_chance_node():
            raise ValueError(
                f"{self.name}: {member} called on a chance node (its outcomes "
                f"{[a for a, _ in state.chance_outcomes()][:6]} are chance's, not a player's "
                "decision); sample it first: game.resolve_chance(state, random.Random(seed))"
            )

    def initial_state(self) -> Any:
        return self.resolve_chance(self.game.new_initial_state(), random.Random(self.seed))

    def actions(self, state: Any) -> list[int]:
        """The mover's legal actions.  Raises ValueError on a chance node."""
        self._decision(state, "actions")
        return list(state.legal_actions())

    def transition(self, state: Any, action: int, rng: random.Random) -> Any:
        nxt = state.clone()
        nxt.apply_action(action)
        return self.resolve_chance(nxt, rng)

    def chance_outcomes(self, state: Any, action: int) -> list[tuple[Any, float]] | None:
        """With ``enumerate_chance``: the successors of ``action`` from ``state`` as
        ``(next_state, probability)`` pairs, every chance node after the action expanded
        by OpenSpiel's ``state.chance_outcomes()`` (probabilities multiplied along a chain
        of chance nodes; outcomes of probability 0 left out).  ``None`` when the action
        reaches no chance node (the solver sees a deterministic edge) or
        ``enumerate_chance`` is off.  Raises ValueError on a chance node ``state``.
        """
        if not self.enumerate_chance:
            return None
        self._decision(state, "chance_outcomes")
        nxt = state.clone()
        nxt.apply_action(action)
        if not nxt.is_chance_node():
            return None
        out: list[tuple[Any, float]] = []
        todo = [(nxt, 1.0)]
        while todo:
            s, p = todo.pop()
            if not s.is_chance_node():
                out.append((s, p))
                continue
            for o, q in reversed(s.chance_outcomes()):
                if q > 0:
                    child = s.clone()
                    child.apply_action(o)
                    todo.append((child, p * q))
        return out

    def reward(self, prev_state: Any, action: int, state: Any) -> float:
        mover = prev_state.current_player()
        return float(state.returns()[mover] - prev_state.returns()[mover])

    def is_terminal(self, state: Any) -> bool:
        return bool(state.is_terminal())

    def to_play(self, state: Any) -> int:
        """The player to move (0 at a terminal state).  Raises ValueError on a chance node."""
        self._decision(state, "to_play")
        return max(0, int(state.current_player()))

    def action_name(self, action: int) -> str:
        """OpenSpiel's name of ``action`` (e.g. ``x(1,1)``), falling back to the id."""
        try:
            return self._namer.action_to_string(max(0, self._namer.current_player()), action)
        except Exception:  # ids that the initial state cannot name
            return str(action)

    def render(self, state: Any) -> str:
        return str(state)
