"""Reversi (Othello) on 8 x 8, the reference domain for the stateful solver.

Rules: the standard game (World Othello Federation rules, as in OpenSpiel's
``othello`` and mctreesearch4j's ``Reversi`` domain).  A move places a disc on
an empty square so that one or more straight lines (8 directions) of opponent
discs are bracketed by the new disc and another disc of the mover; all
bracketed discs flip.  A player with no such move passes (action :data:`PASS`,
offered only when the opponent *can* move); the game ends when neither side
can move.  Black (player 0) moves first from d4/e5 white, d5/e4 black.

State layout (shared with the compiled ``reversi_nb`` module): ``cells`` holds
64 values, index ``row * 8 + col``; row 0 is rank 1 (the top row of the usual
diagram), col 0 is file a; 0 empty, 1 black (player 0), 2 white (player 1).
This equals OpenSpiel's action numbering (``d3`` = 19), with pass = 64.

Rewards (:class:`~playout.mdp.Game` convention): 0 on every move except the one
that ends the game, which pays ``(mover's discs - opponent's discs) / 64`` to
its mover (the anchor's reward; empty squares are not awarded).
``evaluate(state)`` is the same disc difference from ``to_play``'s side, used
when a simulation stops at its depth limit.  Anchor settings: C = 1.4,
discount 0.9, stateful solver.

>>> game = Reversi()
>>> s = game.initial_state()
>>> [Reversi.action_name(a) for a in game.actions(s)]
['d3', 'c4', 'f5', 'e6']
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from playout.mdp import Game

SIZE = 8
CELLS = SIZE * SIZE
EMPTY, BLACK, WHITE = 0, 1, 2
#: the pass action (OpenSpiel's id for it too).
PASS = 64
FILES = "abcdefgh"

_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _initial_cells() -> tuple[int, ...]:
    cells = [EMPTY] * CELLS
    cells[3 * 8 + 3] = WHITE  # d4
    cells[4 * 8 + 4] = WHITE  # e5
    cells[4 * 8 + 3] = BLACK  # d5
    cells[3 * 8 + 4] = BLACK  # e4
    return tuple(cells)


@dataclass(frozen=True)
class ReversiState:
    """An Othello position.

    Attributes
    ----------
    cells : tuple[int, ...]
        64 entries, index ``row * 8 + col`` (row 0 = rank 1, col 0 = file a);
        0 empty, 1 black (player 0), 2 white (player 1).
    to_play : int
        The player (0 black, 1 white) to move.
    """

    cells: tuple[int, ...] = field(default_factory=_initial_cells)
    to_play: int = 0


def _rays(square: int) -> tuple[tuple[int, ...], ...]:
    """The squares from ``square`` to the board edge in each of the 8 directions (non-empty)."""
    row, col = divmod(square, SIZE)
    rays = []
    for dr, dc in _DIRECTIONS:
        ray = []
        r, c = row + dr, col + dc
        while 0 <= r < SIZE and 0 <= c < SIZE:
            ray.append(r * SIZE + c)
            r += dr
            c += dc
        if len(ray) >= 2:  # a flip needs an opponent disc and a closing own disc
            rays.append(tuple(ray))
    return tuple(rays)


#: square -> rays towards the edges (only those long enough to bracket a disc).
_RAYS = tuple(_rays(sq) for sq in range(CELLS))


def flips(cells: tuple[int, ...], player: int, square: int) -> list[int]:
    """Squares flipped if ``player`` (0/1) plays on empty ``square``; empty = illegal move.

    Along each ray from ``square``, a run of opponent discs closed by one of the
    mover's discs flips.
    """
    if cells[square] != EMPTY:
        return []
    me, opp = player + 1, 2 - player
    out: list[int] = []
    for ray in _RAYS[square]:
        if cells[ray[0]] != opp:
            continue
        for k in range(1, len(ray)):
            v = cells[ray[k]]
            if v == me:
                out.extend(ray[:k])
                break
            if v != opp:
                break
    return out


def legal_moves(cells: tuple[int, ...], player: int) -> list[int]:
    """Squares (ascending) where ``player`` (0/1) may place a disc; no pass."""
    return [sq for sq in range(CELLS) if cells[sq] == EMPTY and flips(cells, player, sq)]


def has_legal_move(cells: tuple[int, ...], player: int) -> bool:
    """Whether ``player`` (0/1) has any legal placement (stops at the first found)."""
    return any(cells[sq] == EMPTY and flips(cells, player, sq) for sq in range(CELLS))


def disc_counts(cells: tuple[int, ...]) -> tuple[int, int]:
    """(black discs, white discs)."""
    return cells.count(BLACK), cells.count(WHITE)


class Reversi(Game[ReversiState, int]):
    """Othello as a :class:`~playout.mdp.Game`; actions are square indices or :data:`PASS`.

    Deterministic: ``transition`` ignores ``rng``.
    """

    def initial_state(self) -> ReversiState:
        """The standard start: d4/e5 white, d5/e4 black, black to move."""
        return ReversiState()

    def actions(self, state: ReversiState) -> list[int]:
        """Legal squares ascending; ``[PASS]`` if the mover has none but the opponent has
        one; ``[]`` when the game is over."""
        moves = legal_moves(state.cells, state.to_play)
        if moves:
            return moves
        if has_legal_move(state.cells, 1 - state.to_play):
            return [PASS]
        return []

    def transition(self, state: ReversiState, action: int, rng: random.Random | None = None) -> ReversiState:
        """Play ``action`` for ``state.to_play``; raises ``ValueError`` if it is illegal."""
        if action == PASS:
            if self.actions(state) != [PASS]:
                raise ValueError(f"pass is not legal in this position:\n{self.render(state)}")
            return ReversiState(state.cells, 1 - state.to_play)
        if not (isinstance(action, int) and 0 <= action < CELLS):
            raise ValueError(f"not a Reversi action (0..64): {action!r}")
        flipped = flips(state.cells, state.to_play, action)
        if not flipped:
            raise ValueError(f"{self.action_name(action)} is not a legal move for "
                             f"{('black', 'white')[state.to_play]}")
        cells = list(state.cells)
        me = state.to_play + 1
        cells[action] = me
        for sq in flipped:
            cells[sq] = me
        return ReversiState(tuple(cells), 1 - state.to_play)

    def reward(self, prev_state: ReversiState, action: int, state: ReversiState) -> float:
        """``(mover's discs - opponent's discs) / 64`` if this move ended the game, else 0."""
        if not self.is_terminal(state):
            return 0.0
        black, white = disc_counts(state.cells)
        diff = black - white if prev_state.to_play == 0 else white - black
        return diff / CELLS

    def is_terminal(self, state: ReversiState) -> bool:
        """Neither side has a legal move (this includes a full board)."""
        return not has_legal_move(state.cells, 0) and not has_legal_move(state.cells, 1)

    def to_play(self, state: ReversiState) -> int:
        return state.to_play

    def evaluate(self, state: ReversiState) -> float:
        """``(to_play's discs - opponent's discs) / 64``, in [-1, 1]."""
        black, white = disc_counts(state.cells)
        diff = black - white if state.to_play == 0 else white - black
        return diff / CELLS

    # -- presentation ------------------------------------------------------------
    @staticmethod
    def action_name(action: int) -> str:
        """Square name, file then rank: 19 -> "d3"; :data:`PASS` -> "pass"."""
        if action == PASS:
            return "pass"
        row, col = divmod(action, SIZE)
        return f"{FILES[col]}{row + 1}"

    @staticmethod
    def parse_action(text: str) -> int:
        """Inverse of :meth:`action_name` (case-insensitive); ``ValueError`` otherwise."""
        t = text.strip().lower()
        if t == "pass":
            return PASS
        if len(t) == 2 and t[0] in FILES and t[1] in "12345678":
            return (int(t[1]) - 1) * SIZE + FILES.index(t[0])
        raise ValueError(f"not a Reversi move (a1..h8 or pass): {text!r}")

    @staticmethod
    def player_name(player: int) -> str:
        """``"X (black)"`` for player 0, ``"O (white)"`` for player 1 (as :meth:`render` marks them)."""
        return ("X (black)", "O (white)")[player]

    @staticmethod
    def score_text(state: ReversiState) -> str:
        """The disc count, e.g. ``"X 40, O 24"`` (empty squares are not counted)."""
        black, white = disc_counts(state.cells)
        return f"X {black}, O {white}"

    @staticmethod
    def render(state: ReversiState) -> str:
        """ASCII board, rank 1 on top: ``X`` black, ``O`` white, ``.`` empty.

        >>> print(Reversi.render(ReversiState()))
          a b c d e f g h
        1 . . . . . . . .
        2 . . . . . . . .
        3 . . . . . . . .
        4 . . . O X . . .
        5 . . . X O . . .
        6 . . . . . . . .
        7 . . . . . . . .
        8 . . . . . . . .
        X (black) to play; X 2, O 2
        """
        marks = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        lines = ["  " + " ".join(FILES)]
        for r in range(SIZE):
            lines.append(f"{r + 1} " + " ".join(marks[state.cells[r * SIZE + c]] for c in range(SIZE)))
        black, white = disc_counts(state.cells)
        who = ("X (black)", "O (white)")[state.to_play]
        lines.append(f"{who} to play; X {black}, O {white}")
        return "\n".join(lines)

    # -- construction from the FFO test positions -----------------------------------
    @staticmethod
    def from_obf(line: str) -> ReversiState:
        """The position on one line of an ``.obf`` file (see :func:`parse_obf`)."""
        return parse_obf(line).state


@dataclass(frozen=True)
class ObfPosition:
    """One ``.obf`` line: the position and the exact score of each listed move.

    ``scores`` maps an action (square index or :data:`PASS`) to the final disc
    difference for the side to move with perfect play after it (best first in
    the file).
    """

    state: ReversiState
    scores: dict[int, int]


def parse_obf(line: str) -> ObfPosition:
    """Parse an FFO / ``.obf`` line: ``<64 of X O -> <X|O>; <move>:<score>; ...``.

    The 64 board characters run a1, b1, ..., h1, a2, ... (rank 1 first), which is
    our cell order; ``X`` is black, ``O`` white, ``-`` empty.  The move list may
    be empty.  Format: the FFO endgame suite as distributed with Edax
    (e.g. ``../shared/data/othello/fforum-20-39.obf``).  Raises ``ValueError``
    naming the field at fault.
    """
    head, *rest = line.strip().split(";")
    parts = head.split()
    if len(parts) != 2:
        raise ValueError(f"obf line: expected '<board> <side>' before the first ';', got {head!r}")
    board, side = parts
    if len(board) != CELLS or set(board) - set("XO-"):
        raise ValueError(f"obf line: board must be 64 characters of X, O, -: {board!r}")
    if side not in ("X", "O"):
        raise ValueError(f"obf line: side to move must be X or O, got {side!r}")
    cells = tuple({"X": BLACK, "O": WHITE, "-": EMPTY}[ch] for ch in board)
    scores: dict[int, int] = {}
    for item in rest:
        item = item.strip()
        if not item:
            continue
        try:
            move, score = item.split(":")
            scores[Reversi.parse_action(move)] = int(score)
        except ValueError:
            raise ValueError(f"obf line: bad move:score pair {item!r}") from None
    return ObfPosition(ReversiState(cells, 0 if side == "X" else 1), scores)


# -- heuristic simulation ---------------------------------------------------------------
WEIGHTS_RESOURCE = "reversi_heuristic_weights.txt"


@lru_cache(maxsize=1)
def heuristic_weights() -> tuple[tuple[int, ...], ...]:
    """The 8 x 8 weight table ``[row][col]`` (row 0 = rank 1, col 0 = file a).

    Source: mctreesearch4j v0.0.4's Reversi heuristic simulation, after
    Guenther & Klinik (2004), "O-Thell-Us"; stored as package data in
    ``playout/data/reversi_heuristic_weights.txt`` (``#`` lines are comments).
    The table is symmetric under mirroring rows and under mirroring columns, so
    whether row 0 is rank 1 or rank 8 does not matter; it is *not* symmetric
    under transposition, and the anchor indexes it ``[row][column]``.
    """
    text = resources.files("playout").joinpath("data", WEIGHTS_RESOURCE).read_text()
    rows = [
        tuple(int(v) for v in line.split())
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        raise ValueError(f"{WEIGHTS_RESOURCE}: expected 8 rows of 8 integers")
    return tuple(rows)


class HeuristicPolicy:
    """Simulation policy: the legal moves of highest table weight, ties uniformly at random.

    A policy is a callable ``policy(mdp, state, actions, rng) -> action``.  This
    is mctreesearch4j's greedy Reversi heuristic simulation (not weighted
    sampling); a lone :data:`PASS` is returned as is.
    """

    def __init__(self, weights: tuple[tuple[int, ...], ...] | None = None) -> None:
        table = weights if weights is not None else heuristic_weights()
        self.flat: tuple[int, ...] = tuple(w for row in table for w in row)

    def best_moves(self, actions: list[int]) -> list[int]:
        """The actions sharing the highest weight (all of them if only PASS)."""
        moves = [a for a in actions if a != PASS]
        if not moves:
            return list(actions)
        top = max(self.flat[a] for a in moves)
        return [a for a in moves if self.flat[a] == top]

    def __call__(self, mdp: object, state: ReversiState, actions: list[int], rng: random.Random) -> int:
        best = self.best_moves(list(actions))
        return best[0] if len(best) == 1 else rng.choice(best)
