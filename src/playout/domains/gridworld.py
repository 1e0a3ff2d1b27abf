"""GridWorld: the slippery grid of mctreesearch4j's examples (Russell & Norvig style).

Rules (mctreesearch4j v0.0.4's ``GridWorld`` domain and its paper, Liu &
Tomaszewski 2021): an 8 x 5 grid of cells ``(x, y)``, x in 1..8, y in
1..5; the agent starts at (2, 2).  Actions are "up" (y + 1), "down" (y - 1),
"left" (x - 1) and "right" (x + 1), offered only when they stay on the grid.
The intended move happens with probability 0.8; otherwise the agent moves to
a uniformly random *other* valid neighbour (if there is none, the intended
one).  Entering a terminal cell pays its reward -- (1, 1): +1.0,
(5, 4): -0.5 -- and ends the episode; every other step pays 0.  Anchor
settings: C = 0.28, discount 0.95; optimal first actions are left or down.

>>> world = GridWorld()
>>> world.actions((1, 5))
['down', 'right']
>>> {cell: round(p, 4) for cell, p in world.transition_distribution((2, 2), "left").items()}
{(1, 2): 0.8, (2, 3): 0.0667, (2, 1): 0.0667, (3, 2): 0.0667}
"""

from __future__ import annotations

import random
from typing import Mapping

from playout.domains._names import parse_word
from playout.mdp import MDP

Cell = tuple[int, int]

#: action name -> (dx, dy), in the order actions are listed.
MOVES: dict[str, tuple[int, int]] = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}


class GridWorld(MDP[Cell, str]):
    """A slippery grid world.

    Parameters
    ----------
    width, height : int
        Grid size; cells are ``(x, y)`` with 1 <= x <= width, 1 <= y <= height.
    start : (int, int)
        Initial cell.
    terminals : mapping (x, y) -> float
        Terminal cells and the reward paid on entering them.
    p_intended : float
        Probability that the chosen move happens (else: another valid neighbour).

    Raises ``ValueError`` if ``start`` or a terminal lies off the grid, or
    ``p_intended`` is outside [0, 1].
    """

    def __init__(
        self,
        width: int = 8,
        height: int = 5,
        start: Cell = (2, 2),
        terminals: Mapping[Cell, float] | None = None,
        p_intended: float = 0.8,
    ) -> None:
        self.width = width
        self.height = height
        self.start = tuple(start)
        self.terminals: dict[Cell, float] = dict(
            terminals if terminals is not None else {(1, 1): 1.0, (5, 4): -0.5}
        )
        self.p_intended = p_intended
        for cell in [self.start, *self.terminals]:
            if not self.on_grid(cell):
                raise ValueError(f"cell {cell} is off the {width} x {height} grid")
        if not 0.0 <= p_intended <= 1.0:
            raise ValueError(f"p_intended must be in [0, 1], got {p_intended}")

    def on_grid(self, cell: Cell) -> bool:
        x, y = cell
        return 1 <= x <= self.width and 1 <= y <= self.height

    def neighbour(self, cell: Cell, action: str) -> Cell:
        dx, dy = MOVES[action]
        return (cell[0] + dx, cell[1] + dy)

    def valid_moves(self, cell: Cell) -> list[str]:
        """The moves (up, down, left, right order) that stay on the grid."""
        return [a for a in MOVES if self.on_grid(self.neighbour(cell, a))]

    def initial_state(self) -> Cell:
        return self.start

    def actions(self, state: Cell) -> list[str]:
        """Moves that stay on the grid; ``[]`` on a terminal cell."""
        if self.is_terminal(state):
            return []
        return self.valid_moves(state)

    def transition_distribution(self, state: Cell, action: str) -> dict[Cell, float]:
        """Exact successor distribution: intended cell ``p_intended``, each other valid
        neighbour ``(1 - p_intended) / (#valid - 1)``.  ``ValueError`` on an invalid move."""
        valid = self.valid_moves(state)
        if action not in valid:
            raise ValueError(f"move {action!r} leaves the grid from {state} (valid: {valid})")
        others = [a for a in valid if a != action]
        if not others:
            return {self.neighbour(state, action): 1.0}
        dist = {self.neighbour(state, action): self.p_intended}
        for a in others:
            dist[self.neighbour(state, a)] = (1.0 - self.p_intended) / len(others)
        return dist

    def transition(self, state: Cell, action: str, rng: random.Random) -> Cell:
        """Sample the next cell: one ``rng.random()``, then ``rng.choice`` if the move slips."""
        valid = self.valid_moves(state)
        if action not in valid:
            raise ValueError(f"move {action!r} leaves the grid from {state} (valid: {valid})")
        others = [a for a in valid if a != action]
        if not others or rng.random() < self.p_intended:
            return self.neighbour(state, action)
        return self.neighbour(state, rng.choice(others))

    def reward(self, prev_state: Cell, action: str, state: Cell) -> float:
        """The terminal reward of ``state`` if it is a terminal cell, else 0."""
        return self.terminals.get(state, 0.0)

    def is_terminal(self, state: Cell) -> bool:
        return state in self.terminals

    # -- presentation ----------------------------------------------------------------
    @staticmethod
    def action_name(action: str) -> str:
        return action

    @staticmethod
    def parse_action(text: str) -> str:
        """"up"/"down"/"left"/"right" (or u/d/l/r, any case); ``ValueError`` otherwise."""
        return parse_word(text, MOVES, "GridWorld move")

    def render(self, state: Cell) -> str:
        """The grid, y = height on top: ``A`` agent, ``+``/``-`` terminal cells by the sign
        of their reward, ``.`` others.

        >>> print(GridWorld().render((2, 2)))
        . . . . . . . .
        . . . . - . . .
        . . . . . . . .
        . A . . . . . .
        + . . . . . . .
        """
        lines = []
        for y in range(self.height, 0, -1):
            row = []
            for x in range(1, self.width + 1):
                if (x, y) == tuple(state):
                    row.append("A")
                elif (x, y) in self.terminals:
                    row.append("+" if self.terminals[(x, y)] >= 0 else "-")
                else:
                    row.append(".")
            lines.append(" ".join(row))
        return "\n".join(lines)
