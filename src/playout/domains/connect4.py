"""Connect 4 (7 columns x 6 rows), the reference two-player domain.

Rules (the standard game, as in mctreesearch4j's ``ConnectFour`` domain and
OpenSpiel's ``connect_four``): players drop a disc into a column that is not
full; it falls to the lowest empty row.  Four of one player's discs in a row,
column or diagonal win; a full board with no four is a draw.

State layout (shared with the compiled ``connect4_nb`` module): ``cells`` holds
42 values, index ``row * 7 + col`` with row 0 at the *bottom*; 0 empty, 1 a disc
of player 0 (who moves first), 2 a disc of player 1.

Rewards (:class:`~playout.mdp.Game` convention): +1 to the player whose move
wins, 0 for every other move (a draw pays 0).  Solver settings of the anchor:
C = 1.4, discount 0.7, simulation depth 800.

>>> game = Connect4()
>>> s = Connect4.from_moves("4455667")   # player 0 completes the bottom row d-g
>>> s.winner, game.is_terminal(s)
(0, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from playout.mdp import Game

COLS = 7
ROWS = 6
CELLS = COLS * ROWS
EMPTY = 0

#: the four line directions (d_col, d_row): horizontal, vertical, two diagonals.
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


@dataclass(frozen=True)
class Connect4State:
    """A Connect 4 position.

    Attributes
    ----------
    cells : tuple[int, ...]
        42 entries, index ``row * 7 + col``, row 0 = bottom; 0 empty, 1 player 0,
        2 player 1.
    to_play : int
        The player (0 or 1) to move; after a terminal move it still alternates.
    winner : int
        -1 while undecided or on a draw, else the winning player (0/1).
    moves : int
        Discs on the board (plies played).
    """

    cells: tuple[int, ...] = (EMPTY,) * CELLS
    to_play: int = 0
    winner: int = -1
    moves: int = 0


def column_height(cells: tuple[int, ...], col: int) -> int:
    """Number of discs in column ``col`` (0..6) -- the row the next disc lands on."""
    h = 0
    while h < ROWS and cells[h * COLS + col] != EMPTY:
        h += 1
    return h


def makes_four(cells: tuple[int, ...], col: int, row: int) -> bool:
    """Whether the disc at (``col``, ``row``) lies on a line of four or more of its colour."""
    piece = cells[row * COLS + col]
    if piece == EMPTY:
        return False
    for dc, dr in _DIRECTIONS:
        count = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < COLS and 0 <= r < ROWS and cells[r * COLS + c] == piece:
                count += 1
                c += sign * dc
                r += sign * dr
        if count >= 4:
            return True
    return False


class Connect4(Game[Connect4State, int]):
    """Connect 4 as a :class:`~playout.mdp.Game`.

    Actions are column numbers 0..6 (0 = leftmost) of the columns that are not
    full, ascending.  Deterministic: ``transition`` ignores ``rng``.
    """

    def initial_state(self) -> Connect4State:
        """The empty board, player 0 to move."""
        return Connect4State()

    def actions(self, state: Connect4State) -> list[int]:
        """Columns (0..6, ascending) with room for a disc; empty once the game is over."""
        if self.is_terminal(state):
            return []
        top = (ROWS - 1) * COLS
        return [c for c in range(COLS) if state.cells[top + c] == EMPTY]

    def transition(self, state: Connect4State, action: int, rng: random.Random | None = None) -> Connect4State:
        """Drop a disc of ``state.to_play`` into column ``action``.

        Raises ``ValueError`` if the game is over, the column is out of range or full.
        """
        return play(state, action)

    def reward(self, prev_state: Connect4State, action: int, state: Connect4State) -> float:
        """+1.0 if this move won the game for its mover, else 0.0."""
        return 1.0 if state.winner == prev_state.to_play and prev_state.winner == -1 else 0.0

    def is_terminal(self, state: Connect4State) -> bool:
        """A four has been made, or all 42 cells are filled."""
        return state.winner != -1 or state.moves >= CELLS

    def to_play(self, state: Connect4State) -> int:
        return state.to_play

    # -- presentation --------------------------------------------------------
    @staticmethod
    def action_name(action: int) -> str:
        """The 1-based column number, the shared test sets' notation: 0 -> "1"."""
        return str(action + 1)

    @staticmethod
    def parse_action(text: str) -> int:
        """Inverse of :meth:`action_name`: "1".."7" -> 0..6; ``ValueError`` otherwise."""
        t = text.strip()
        if t not in {str(i) for i in range(1, COLS + 1)}:
            raise ValueError(f"not a Connect 4 column (1-7): {text!r}")
        return int(t) - 1

    @staticmethod
    def player_name(player: int) -> str:
        """``"X"`` for player 0 (who moves first), ``"O"`` for player 1 (as :meth:`render` marks them)."""
        return "XO"[player]

    @staticmethod
    def render(state: Connect4State) -> str:
        """ASCII board, top row first: ``X`` player 0, ``O`` player 1, ``.`` empty.

        >>> print(Connect4.render(Connect4.from_moves("44")))
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . O . . .
        . . . X . . .
        1 2 3 4 5 6 7
        X to play
        """
        marks = {0: ".", 1: "X", 2: "O"}
        lines = [
            " ".join(marks[state.cells[r * COLS + c]] for c in range(COLS))
            for r in range(ROWS - 1, -1, -1)
        ]
        lines.append(" ".join(str(c + 1) for c in range(COLS)))
        if state.winner != -1:
            lines.append(f"{'XO'[state.winner]} wins")
        elif state.moves >= CELLS:
            lines.append("draw")
        else:
            lines.append(f"{'XO'[state.to_play]} to play")
        return "\n".join(lines)

    # -- construction from the shared test sets -------------------------------
    @staticmethod
    def from_moves(moves: str) -> Connect4State:
        """The position after the moves in ``moves``, a string of columns 1-7.

        This is the notation of the shared test sets
        (``../shared/data/connect4/Test_L*_R*``, Pascal Pons' benchmark).
        Raises ``ValueError`` naming the offending character and its index on a
        character that is not 1-7, a full column, or a move after the game ended.
        """
        state = Connect4State()
        for i, ch in enumerate(moves.strip()):
            if ch not in "1234567":
                raise ValueError(f"move {i + 1} of {moves!r}: {ch!r} is not a column 1-7")
            try:
                state = play(state, int(ch) - 1)
            except ValueError as exc:
                raise ValueError(f"move {i + 1} of {moves!r}: {exc}") from None
        return state


def play(state: Connect4State, col: int) -> Connect4State:
    """The state after ``state.to_play`` drops a disc in column ``col`` (0..6)."""
    if state.winner != -1 or state.moves >= CELLS:
        raise ValueError("the game is over")
    if not 0 <= col < COLS:
        raise ValueError(f"column {col} is out of range 0..{COLS - 1}")
    row = column_height(state.cells, col)
    if row >= ROWS:
        raise ValueError(f"column {col + 1} is full")
    cells = list(state.cells)
    cells[row * COLS + col] = state.to_play + 1
    cells_t = tuple(cells)
    winner = state.to_play if makes_four(cells_t, col, row) else -1
    return Connect4State(cells_t, 1 - state.to_play, winner, state.moves + 1)
