"""Push Your Luck: a one-die press-your-luck MDP from mctreesearch4j's examples.

Rules (mctreesearch4j v0.0.4's Push Your Luck as its paper states them; its code differs,
see below): one fair six-sided die, faces 1..6 each with probability 1/6.
The state records which faces are marked.  ROLL rolls the die and toggles the
rolled face (marks it, or clears it if it was marked); it pays 0.  CASHOUT
pays the product of the marked faces (0 if none is marked) and clears all
marks.  The process never ends (simulations run to the depth limit).  Anchor
settings: C = 0.07, discount 0.99.

Differences from mctreesearch4j v0.0.4's code, which has bugs: it never rolls
a 6, does not reset the reward, and shares and mutates one state object.
Here every face can be rolled and every transition returns a fresh tuple.

State: ``tuple[bool, ...]`` of length 6, index i = face i + 1 marked.

>>> game = PushYourLuck()
>>> s = (False, True, True, False, False, True)   # faces 2, 3, 6 marked
>>> game.reward(s, "cashout", game.transition(s, "cashout", None))
36.0
"""

from __future__ import annotations

import math
import random

from playout.domains._names import parse_word
from playout.mdp import MDP

FACES = 6
ROLL = "roll"
CASHOUT = "cashout"

State = tuple[bool, ...]


def toggle(state: State, face: int) -> State:
    """``state`` with face ``face`` (1..6) marked if it was clear, cleared if it was marked."""
    if not 1 <= face <= FACES:
        raise ValueError(f"die face must be 1..{FACES}, got {face}")
    return tuple((not m) if i == face - 1 else m for i, m in enumerate(state))


def cashout_value(state: State) -> float:
    """Product of the marked faces; 0.0 when no face is marked."""
    marked = [i + 1 for i, m in enumerate(state) if m]
    return float(math.prod(marked)) if marked else 0.0


class PushYourLuck(MDP[State, str]):
    """Push Your Luck as an :class:`~playout.mdp.MDP` (never terminal)."""

    def initial_state(self) -> State:
        """No face marked."""
        return (False,) * FACES

    def actions(self, state: State) -> list[str]:
        """Always ``["roll", "cashout"]``."""
        return [ROLL, CASHOUT]

    def transition(self, state: State, action: str, rng: random.Random | None) -> State:
        """ROLL: toggle face ``rng.randint(1, 6)``; CASHOUT: all marks cleared.

        ``ValueError`` on another action.
        """
        if action == ROLL:
            return toggle(state, rng.randint(1, FACES))
        if action == CASHOUT:
            return (False,) * FACES
        raise ValueError(f"not a Push Your Luck action (roll/cashout): {action!r}")

    def transition_distribution(self, state: State, action: str) -> dict[State, float]:
        """Exact successor distribution (ROLL: six states, 1/6 each)."""
        if action == ROLL:
            return {toggle(state, f): 1.0 / FACES for f in range(1, FACES + 1)}
        return {self.transition(state, action, None): 1.0}

    def chance_outcomes(self, state: State, action: str) -> list[tuple[State, float]]:
        """:meth:`transition_distribution` as ``(next_state, probability)`` pairs
        (:meth:`playout.mdp.MDP.chance_outcomes`; ROLL: six states, 1/6 each; CASHOUT:
        one state, probability 1)."""
        return list(self.transition_distribution(state, action).items())

    def reward(self, prev_state: State, action: str, state: State) -> float:
        """CASHOUT: the product of the faces marked in ``prev_state`` (0 if none); ROLL: 0."""
        return cashout_value(prev_state) if action == CASHOUT else 0.0

    def is_terminal(self, state: State) -> bool:
        return False

    # -- presentation ----------------------------------------------------------------
    @staticmethod
    def action_name(action: str) -> str:
        return action

    @staticmethod
    def parse_action(text: str) -> str:
        """"roll"/"cashout" (or r/c, any case); ``ValueError`` otherwise."""
        return parse_word(text, (ROLL, CASHOUT), "Push Your Luck action")

    @staticmethod
    def render(state: State) -> str:
        """Marked faces in brackets and the cash-out value.

        >>> print(PushYourLuck.render((True, False, False, True, False, False)))
        [1]  2   3  [4]  5   6   cashout 4
        """
        faces = " ".join(f"[{i + 1}]" if m else f" {i + 1} " for i, m in enumerate(state))
        return f"{faces}  cashout {cashout_value(state):g}"
