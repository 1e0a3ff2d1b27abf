"""Any OpenSpiel game as a :class:`playout.mdp.Game` (optional extra ``openspiel``).

OpenSpiel (Lanctot et al., "OpenSpiel: A Framework for Reinforcement Learning in
Games", 2019) models chance as *chance nodes* whose outcomes have probabilities.
Our MDP interface keeps chance inside ``transition``: after the player's action,
every chance node that follows is resolved by sampling its outcomes with the
solver's ``rng``.  So a dice game (pig, backgammon) is a stochastic MDP that the
:class:`~playout.mcts.GenericSolver` handles.

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

    Raises:
        ValueError: unknown game, simultaneous moves, or more than two players /
            not zero-sum for two players.
    """

    def __init__(self, name: str, seed: int = 0) -> None:
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

    def _resolve_chance(self, state: Any, rng: random.Random) -> Any:
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, weights=probs)[0])
        return state

    def initial_state(self) -> Any:
        return self._resolve_chance(self.game.new_initial_state(), random.Random(self.seed))

    def actions(self, state: Any) -> list[int]:
        return list(state.legal_actions())

    def transition(self, state: Any, action: int, rng: random.Random) -> Any:
        nxt = state.clone()
        nxt.apply_action(action)
        return self._resolve_chance(nxt, rng)

    def reward(self, prev_state: Any, action: int, state: Any) -> float:
        mover = prev_state.current_player()
        return float(state.returns()[mover] - prev_state.returns()[mover])

    def is_terminal(self, state: Any) -> bool:
        return bool(state.is_terminal())

    def to_play(self, state: Any) -> int:
        return max(0, int(state.current_player()))

    def action_name(self, action: int) -> str:
        """OpenSpiel's name of ``action`` (e.g. ``x(1,1)``), falling back to the id."""
        try:
            return self._namer.action_to_string(max(0, self._namer.current_player()), action)
        except Exception:  # ids that the initial state cannot name
            return str(action)

    def render(self, state: Any) -> str:
        return str(state)
