"""2048 on a 4 x 4 grid, the reference stochastic single-player domain.

Rules (Gabriele Cirulli's 2048, as in mctreesearch4j's ``Game2048`` domain): a
move slides every tile as far as possible in one direction; two equal tiles
that meet merge into their sum, each tile merging at most once per move, the
tiles nearest the wall merging first (``[2, 2, 2, 0]`` left gives
``[4, 2, 0, 0]``).  A move is legal only if it changes the grid.  After it a new
tile appears on a uniformly chosen empty cell: 2 with probability 0.9, else 4.

State layout (shared with the compiled ``twenty48_nb`` module): a tuple of 16
tile values (0 = empty), row-major, top row first.

Reward (the anchor's): ``log2`` of the largest tile in the new state.  Terminal
when no move changes the grid, or, with ``stop_at``, when a tile ``>= stop_at``
exists (the anchor stops at 2048).  ``anchor_terminal=True`` reproduces the
anchor's rule instead -- terminal when the grid is full (even if a merge is
possible) or holds a 2048 -- for like-for-like timing.  Anchor settings:
C = 1.4, discount 0.9, from :data:`DEMO_GRID`.

>>> slide_row((2, 2, 2, 2))
(4, 4, 0, 0)
>>> game = Twenty48(start=DEMO_GRID)
>>> game.actions(DEMO_GRID)
['up', 'down', 'left', 'right']
"""

from __future__ import annotations

import math
import random

from playout.domains._names import parse_word
from playout.mdp import MDP

SIZE = 4
CELLS = SIZE * SIZE
#: probability that a spawned tile is a 2 (else 4), Cirulli's game.
P_TWO = 0.9
DIRECTIONS = ("up", "down", "left", "right")

#: the anchor's timing position, rows top to bottom
#: ``[0,0,2,0] [2,2,0,0] [64,64,2,2] [128,256,512,1024]``, as a flat state tuple.
DEMO_GRID: tuple[int, ...] = (
    0, 0, 2, 0,
    2, 2, 0, 0,
    64, 64, 2, 2,
    128, 256, 512, 1024,
)


def slide_row(row: tuple[int, ...]) -> tuple[int, ...]:
    """Slide and merge one line towards index 0 (a "left" move of one row).

    Each tile merges at most once; pairs form from the index-0 end.
    """
    tiles = [v for v in row if v]
    out: list[int] = []
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return tuple(out + [0] * (len(row) - len(out)))


def _lines(direction: str) -> list[list[int]]:
    """Cell indices of the 4 lines of a move, each ordered from the wall tiles move to."""
    if direction == "left":
        return [[r * SIZE + c for c in range(SIZE)] for r in range(SIZE)]
    if direction == "right":
        return [[r * SIZE + c for c in reversed(range(SIZE))] for r in range(SIZE)]
    if direction == "up":
        return [[r * SIZE + c for r in range(SIZE)] for c in range(SIZE)]
    if direction == "down":
        return [[r * SIZE + c for r in reversed(range(SIZE))] for c in range(SIZE)]
    raise ValueError(f"not a 2048 move (up/down/left/right): {direction!r}")


_LINES = {d: _lines(d) for d in DIRECTIONS}


def slide(board: tuple[int, ...], direction: str) -> tuple[int, ...]:
    """The grid after sliding/merging in ``direction``, before the new tile spawns."""
    lines = _LINES.get(direction)
    if lines is None:
        raise ValueError(f"not a 2048 move (up/down/left/right): {direction!r}")
    out = list(board)
    for idx in lines:
        for i, v in zip(idx, slide_row(tuple(board[i] for i in idx))):
            out[i] = v
    return tuple(out)


def spawn_distribution(board: tuple[int, ...]) -> dict[tuple[int, ...], float]:
    """Exact distribution of the grid after a tile spawns on ``board`` (needs an empty cell)."""
    empty = [i for i, v in enumerate(board) if v == 0]
    if not empty:
        raise ValueError("no empty cell to spawn a tile on")
    dist: dict[tuple[int, ...], float] = {}
    for i in empty:
        for tile, p in ((2, P_TWO), (4, 1.0 - P_TWO)):
            nb = list(board)
            nb[i] = tile
            dist[tuple(nb)] = p / len(empty)
    return dist


def spawn(board: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """``board`` with one new tile (2 w.p. 0.9, else 4) on a uniformly chosen empty cell.

    Draws ``rng.randrange(#empty)`` then ``rng.random()``.
    """
    empty = [i for i, v in enumerate(board) if v == 0]
    if not empty:
        raise ValueError("no empty cell to spawn a tile on")
    cell = empty[rng.randrange(len(empty))]
    out = list(board)
    out[cell] = 2 if rng.random() < P_TWO else 4
    return tuple(out)


class Twenty48(MDP[tuple, str]):
    """2048 as an :class:`~playout.mdp.MDP`.

    Parameters
    ----------
    start : tuple of 16 ints, optional
        The initial grid (row-major, top row first; 0 or powers of two >= 2).
        Default: two tiles spawned on an empty grid with ``random.Random(seed)``.
    seed : int
        Seed for the default start.
    stop_at : int, optional
        Also terminal once a tile ``>= stop_at`` exists (the anchor: 2048).
    anchor_terminal : bool
        Use the anchor's terminal rule (full grid or a 2048 tile) instead.

    Raises ``ValueError`` on a malformed ``start``.
    """

    def __init__(
        self,
        start: tuple[int, ...] | list[int] | None = None,
        seed: int = 0,
        stop_at: int | None = None,
        anchor_terminal: bool = False,
    ) -> None:
        if start is not None:
            start = tuple(int(v) for v in start)
            if len(start) != CELLS:
                raise ValueError(f"2048 start grid needs 16 cells, got {len(start)}")
            bad = [v for v in start if v != 0 and (v < 2 or v & (v - 1))]
            if bad:
                raise ValueError(f"2048 start grid: {bad[0]} is not 0 or a power of two >= 2")
        self.start = start
        self.seed = seed
        self.stop_at = stop_at
        self.anchor_terminal = anchor_terminal

    def initial_state(self) -> tuple[int, ...]:
        if self.start is not None:
            return self.start
        rng = random.Random(self.seed)
        return spawn(spawn((0,) * CELLS, rng), rng)

    def actions(self, state: tuple[int, ...]) -> list[str]:
        """The moves among up, down, left, right (in that order) that change the grid;
        ``[]`` in a terminal state."""
        if self.is_terminal(state):
            return []
        return self.moves(state)

    @staticmethod
    def moves(state: tuple[int, ...]) -> list[str]:
        """The moves that change the grid (regardless of the terminal rule)."""
        return [d for d in DIRECTIONS if slide(state, d) != state]

    def transition(self, state: tuple[int, ...], action: str, rng: random.Random) -> tuple[int, ...]:
        """Slide/merge, then spawn a tile with ``rng``; ``ValueError`` if the move changes nothing."""
        moved = slide(state, action)
        if moved == state:
            raise ValueError(f"move {action!r} does not change the grid")
        return spawn(moved, rng)

    def transition_distribution(self, state: tuple[int, ...], action: str) -> dict[tuple[int, ...], float]:
        """Exact distribution of ``transition(state, action, rng)`` over successor grids."""
        moved = slide(state, action)
        if moved == state:
            raise ValueError(f"move {action!r} does not change the grid")
        return spawn_distribution(moved)

    def chance_outcomes(self, state: tuple[int, ...], action: str) -> list[tuple[tuple[int, ...], float]]:
        """:meth:`transition_distribution` as ``(next_state, probability)`` pairs
        (:meth:`playout.mdp.MDP.chance_outcomes`): each empty cell of the slid grid
        ``1/#empty``, times 0.9 for a 2 and 0.1 for a 4."""
        return list(self.transition_distribution(state, action).items())

    def reward(self, prev_state: tuple[int, ...], action: str, state: tuple[int, ...]) -> float:
        """``log2`` of the largest tile of the new grid."""
        return math.log2(max(state))

    def is_terminal(self, state: tuple[int, ...]) -> bool:
        if self.anchor_terminal:
            return 0 not in state or max(state) >= 2048 or not self.moves(state)
        if self.stop_at is not None and max(state) >= self.stop_at:
            return True
        return not self.moves(state)

    # -- presentation ------------------------------------------------------------------
    @staticmethod
    def action_name(action: str) -> str:
        return action

    @staticmethod
    def parse_action(text: str) -> str:
        """"up"/"down"/"left"/"right" (or u/d/l/r, any case); ``ValueError`` otherwise."""
        return parse_word(text, DIRECTIONS, "2048 move")

    @staticmethod
    def render(state: tuple[int, ...]) -> str:
        """The grid, top row first, ``.`` for empty, right-aligned columns.

        >>> print(Twenty48.render(DEMO_GRID))
           .    .    2    .
           2    2    .    .
          64   64    2    2
         128  256  512 1024
        """
        return "\n".join(
            " ".join(f"{(v if v else '.'):>4}" for v in state[r * SIZE:(r + 1) * SIZE])
            for r in range(SIZE)
        )
