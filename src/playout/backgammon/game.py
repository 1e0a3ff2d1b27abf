"""Backgammon as a :class:`playout.mdp.Game` for the core solvers (dice are chance).

A state is ``BgState(board, player, dice)``: ``board`` the 26 bytes of the
board26 from the side to act (``player``, 0 or 1), ``dice`` the roll that side
must play, or ``(0, 0)`` at the very start (the only action is then ``"roll"``,
whose transition draws the opening roll, never a double).  An action is the
bytes of a resulting board (mover's view, as in
:func:`playout.backgammon.moves.legal_moves`); the transition flips it to the
opponent and rolls the opponent's dice with ``rng``.  Reward: the points won
(1 single, 2 gammon, 3 backgammon; cubeless money) on the move that ends the
game, else 0.  ``evaluate`` is the cubeless equity of the default evaluator for
the side to act (ignoring the dice already rolled).
"""

from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np

from playout.backgammon.board import STARTING_BOARD, flip, game_result
from playout.backgammon.moves import legal_moves
from playout.mdp import Game


class BgState(NamedTuple):
    board: bytes
    player: int
    dice: tuple[int, int]

    def array(self) -> np.ndarray:
        return np.frombuffer(self.board, dtype=np.int8).copy()


class BackgammonGame(Game):
    """Cubeless money backgammon from the opening position (or ``start``)."""

    def __init__(self, start=None, evaluator=None):
        self.start = np.asarray(STARTING_BOARD if start is None else start, dtype=np.int8)
        self._evaluator = evaluator

    def initial_state(self) -> BgState:
        return BgState(self.start.tobytes(), 0, (0, 0))

    def actions(self, state: BgState):
        if state.dice == (0, 0):
            return ["roll"]
        return [m.tobytes() for m in legal_moves(state.array(), *state.dice)]

    def transition(self, state: BgState, action, rng: random.Random) -> BgState:
        if action == "roll":
            while True:
                d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
                if d1 != d2:
                    return BgState(state.board, state.player, (d1, d2))
        after = np.frombuffer(action, dtype=np.int8)
        nxt = flip(after)
        return BgState(nxt.tobytes(), 1 - state.player, (rng.randint(1, 6), rng.randint(1, 6)))

    def reward(self, prev_state: BgState, action, state: BgState) -> float:
        if action == "roll":
            return 0.0
        return float(max(game_result(np.frombuffer(action, dtype=np.int8)), 0))

    def is_terminal(self, state: BgState) -> bool:
        return game_result(state.array()) != 0

    def to_play(self, state: BgState) -> int:
        return state.player

    def evaluate(self, state: BgState) -> float:
        if self._evaluator is None:
            from playout.backgammon.evaluators import get_evaluator

            self._evaluator = get_evaluator()
        from playout.backgammon.evaluators import equity

        return float(equity(self._evaluator.evaluate(state.array()[None])[0]))
