"""Go board: a Python :class:`Board` over the numba rules kernels, and :class:`GoGame`.

:class:`Board` keeps the kernels' state array (layout and rules: :mod:`playout.go.rules`)
with the game record for positional superko and undo, converts GTP vertices, and prints the
board; :class:`GoGame` adapts it to the core :class:`playout.mdp.Game` interface.
"""

from __future__ import annotations

import random as _random
from dataclasses import dataclass, field

import numpy as np

from playout.go.rules import (
    BLACK,
    BORDER,
    COLOR,
    COLUMNS,
    EMPTY,
    M_CAPB,
    M_CAPW,
    M_HASH,
    M_INVW,
    M_KO,
    M_LAST,
    M_LAST2,
    M_N,
    M_NCAP,
    M_PASSES,
    M_TOMOVE,
    M_W,
    MAX_SIZE,
    META,
    MIN_SIZE,
    NLIB,
    NROWS,
    NXT,
    PASS,
    REP,
    SSIZE,
    WHITE,
    ZOB_WHITE_TO_MOVE,
    ZOBRIST,
    _rebuild_strings,
    area_score,
    count_libs,
    is_suicide,
    play,
    scratch_len,
    string_libs,
)
from playout.go.rulesets import DEFAULT_RULES, SIMPLE, SITUATIONAL, Ruleset
from playout.mdp import Game


# ---------------------------------------------------------------------------------------------
# Python layer
# ---------------------------------------------------------------------------------------------
class IllegalMove(ValueError):
    """A move that the rules forbid (occupied, suicide, ko, superko); the message says which."""


def point_to_gtp(p: int, size: int) -> str:
    """GTP vertex (``"D4"``, ``"pass"``) of padded point ``p`` on a ``size`` board."""
    if p == PASS:
        return "pass"
    W = size + 2
    r, k = divmod(p, W)
    return f"{COLUMNS[k - 1]}{size - (r - 1)}"


def gtp_to_point(v: str, size: int) -> int:
    """Padded point of GTP vertex ``v``; raises ValueError naming the vertex if invalid."""
    s = v.strip().upper()
    if s == "PASS":
        return PASS
    if len(s) < 2 or s[0] not in COLUMNS[:size] or not s[1:].isdigit():
        raise ValueError(f"invalid vertex {v!r} on a {size}x{size} board")
    k = COLUMNS.index(s[0])
    row_num = int(s[1:])
    if not 1 <= row_num <= size:
        raise ValueError(f"invalid vertex {v!r} on a {size}x{size} board")
    W = size + 2
    return (size - row_num + 1) * W + k + 1


@dataclass
class Board:
    """A Go position with its game record (for superko and undo).

    ``Board(9)`` is the empty 9x9 board, Black to move.  ``play(p)`` raises
    :class:`IllegalMove`; ``copy()`` is cheap (one numpy copy).  ``rules``: the
    :class:`~playout.go.rulesets.Ruleset` (default positional superko, no suicide);
    ``superko=False`` turns its superko test off.  ``history`` holds the stones-only Zobrist
    hash of every position reached (positional superko: a move may not recreate one);
    ``shistory`` the full hash (stones and side to move, ``S[META, M_HASH]``) of every
    position a move or a pass was made from, the side to move being the mover (situational
    superko, as GNU Go 3.8 records it).  ``S`` is the kernels' state array (rows ``COLOR`` ...
    ``META``).  ``captured``: the points the last :meth:`play` captured (empty after a pass or a
    suicide); :meth:`last_captures` checks them against ``S`` (the playouts' starting *near*
    set includes them, ``docs/go-mc-patterns.md``).
    """

    size: int = 9
    komi: float = 7.0
    superko: bool = True
    S: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    history: list = field(default_factory=list, repr=False)
    moves: list = field(default_factory=list, repr=False)
    rules: Ruleset = field(default=DEFAULT_RULES, repr=False)
    shistory: list = field(default_factory=list, repr=False)
    captured: list = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise ValueError(f"board size {self.size} not in {MIN_SIZE}..{MAX_SIZE}")
        W = self.size + 2
        n = W * W
        if self.S is None:
            S = np.zeros((NROWS, n), np.int64)
            S[COLOR, :] = BORDER
            for r in range(self.size):
                S[COLOR, (r + 1) * W + 1 : (r + 1) * W + 1 + self.size] = EMPTY
            S[NXT, :] = np.arange(n)
            S[META, M_N] = self.size
            S[META, M_W] = W
            S[META, M_INVW] = -(-65536 // W)
            S[META, M_TOMOVE] = BLACK
            S[META, M_LAST] = -1
            S[META, M_LAST2] = -1
            _rebuild_strings(S)
            self.S = S
            self.history = [self.position_hash]
        self.B = np.zeros(scratch_len(n), np.int64)

    # -- accessors -----------------------------------------------------------------------------
    @property
    def W(self) -> int:
        return self.size + 2

    @property
    def color(self) -> np.ndarray:
        """Row COLOR of the state (a view)."""
        return self.S[COLOR]

    @property
    def meta(self) -> np.ndarray:
        """Row META of the state (a view)."""
        return self.S[META]

    @property
    def to_move(self) -> int:
        return int(self.S[META, M_TOMOVE])

    @to_move.setter
    def to_move(self, c: int) -> None:
        if c != self.to_move:
            self.S[META, M_TOMOVE] = c
            self.S[META, M_HASH] ^= ZOB_WHITE_TO_MOVE
            self.S[META, M_KO] = 0

    @property
    def ko(self) -> int:
        return int(self.S[META, M_KO])

    @property
    def hash(self) -> int:
        return int(self.S[META, M_HASH])

    @property
    def position_hash(self) -> int:
        """Zobrist hash of the stones only (positional superko ignores the side to move)."""
        h = int(self.S[META, M_HASH])
        return h ^ int(ZOB_WHITE_TO_MOVE) if self.to_move == WHITE else h

    @property
    def passes(self) -> int:
        return int(self.S[META, M_PASSES])

    @property
    def last_move(self) -> int:
        return int(self.S[META, M_LAST])

    def points(self) -> list[int]:
        """All on-board points, row by row from the top."""
        W = self.W
        return [(r + 1) * W + k + 1 for r in range(self.size) for k in range(self.size)]

    def copy(self) -> "Board":
        return Board(self.size, self.komi, self.superko, self.S.copy(), list(self.history),
                     list(self.moves), self.rules, list(self.shistory), list(self.captured))

    # -- rules ---------------------------------------------------------------------------------
    def is_legal(self, p: int, c: int | None = None) -> bool:
        """Legal for ``c`` (default: side to move) under :attr:`rules` (superko if enabled)."""
        return self.why_illegal(p, c) is None

    def why_illegal(self, p: int, c: int | None = None, superko: bool | None = None) -> str | None:
        """None if legal, else ``"occupied"``, ``"suicide"``, ``"ko"``, ``"superko"``, ``"off board"``.

        Suicide: illegal unless :attr:`rules` allows suicide of more than one stone and the
        move joins a stone of its own (a single-stone suicide repeats the position, which the
        Tromp-Taylor rules forbid; :mod:`playout.go.rulesets`).  Superko (``superko``,
        default :attr:`superko`): none under simple ko, else :meth:`repeats`."""
        c = self.to_move if c is None else c
        S = self.S
        if p == PASS:
            return None
        if not (0 < p < S.shape[1]) or S[COLOR, p] == BORDER:
            return "off board"
        if S[COLOR, p] != EMPTY:
            return "occupied"
        if p == S[META, M_KO] and c == S[META, M_TOMOVE]:
            return "ko"
        if is_suicide(S, p, c):
            W = self.W
            if not (self.rules.suicide and any(S[COLOR, p + d] == c for d in (-W, -1, 1, W))):
                return "suicide"
        sk = self.superko if superko is None else superko
        if sk and self.rules.superko != SIMPLE and self.repeats(p, c):
            return "superko"
        return None

    def repeats(self, p: int, c: int) -> bool:
        """Whether ``c`` at ``p`` (assumed legal otherwise) recreates an earlier position:
        positional superko -- the stones of a position in :attr:`history`; situational --
        the stones with the opponent to move, from a position in :attr:`shistory` where the
        opponent moved."""
        nb = self.copy()
        nb.superko = False
        nb._play_raw(p, c)
        if self.rules.superko == SITUATIONAL:
            return nb.hash in set(self.shistory)
        return nb.position_hash in set(self.history)

    def _play_raw(self, p: int, c: int) -> int:
        if c != self.S[META, M_TOMOVE]:
            self.to_move = c
        play(self.S, self.B, p, c, False)
        if p != PASS and self.S[NLIB, self.S[REP, p]] == 0:  # a suicide (legal in the rules)
            return -len(self._remove_string(p, c))
        return int(self.S[META, M_NCAP])

    def _remove_string(self, p: int, c: int) -> list[int]:
        """Take the string at ``p`` (colour ``c``) off the board: a suicide.  Its stones count
        as captured by the opponent (GNU Go 3.8 counts them so, ``do_commit_suicide``)."""
        S = self.S
        out = []
        q = p
        while True:
            out.append(q)
            q = int(S[NXT, q])
            if q == p:
                break
        for q in out:
            S[COLOR, q] = EMPTY
            S[META, M_HASH] ^= ZOBRIST[c, q]
        S[META, M_CAPW if c == BLACK else M_CAPB] += len(out)
        S[META, M_NCAP] = 0
        S[META, M_KO] = 0
        # the playout kernels take the last move's point for a stone (its string, its near
        # set): after a suicide there is none, so the position reads as one with no last move
        # (as at the start); the move itself stays in ``moves``
        S[META, M_LAST] = -1
        _rebuild_strings(S)
        self._suicided = out
        return out

    def play(self, p: int, c: int | None = None) -> list[int]:
        """Play ``c`` (default: side to move) at ``p``; return the captured points (for a
        suicide, legal in some :attr:`rules`, the points of the own stones removed)."""
        c = self.to_move if c is None else c
        why = self.why_illegal(p, c)
        if why is not None:
            raise IllegalMove(f"illegal move {point_to_gtp(p, self.size)}: {why}")
        if c != self.S[META, M_TOMOVE]:
            self.to_move = c
        self.shistory.append(self.hash)  # the position moved from, the mover to move
        n = self._play_raw(p, c)
        if p != PASS:
            self.history.append(self.position_hash)
        self.moves.append((c, p))
        if n < 0:
            self.captured = []
            return list(self._suicided)
        c0 = 16 * self.S.shape[1]
        self.captured = [int(x) for x in self.B[c0 : c0 + n]]
        return list(self.captured)

    def last_captures(self) -> list[int]:
        """The points the last move (``S[META, M_LAST]``) captured, as padded points.

        :attr:`captured` if it is consistent with ``S``: as many points as ``S[META, M_NCAP]``,
        all empty, each orthogonally next to the last move or to another of them (captured
        strings touch the capturing stone); else ``[]`` (a position set up from colours, or a
        state the playout kernels moved on without this board's :meth:`play`)."""
        S = self.S
        last = int(S[META, M_LAST])
        caps = self.captured
        if last <= 0 or not caps or len(caps) != int(S[META, M_NCAP]) \
                or not self.moves or self.moves[-1][1] != last:
            return []
        W = self.W
        if any(S[COLOR, q] != EMPTY for q in caps):
            return []
        todo = [last]
        rest = set(caps)
        while todo:
            x = todo.pop()
            for d in (-W, -1, 1, W):
                if x + d in rest:
                    rest.discard(x + d)
                    todo.append(x + d)
        return list(caps) if not rest else []

    def superko_hashes(self) -> np.ndarray:
        """Sorted hashes a move may not recreate under :attr:`rules` (``search``'s ``hist``):
        empty under simple ko (or ``superko`` off), stones-only hashes of :attr:`history`
        (positional), or :attr:`shistory` plus the current position's full hash (situational)."""
        if not self.superko or self.rules.superko == SIMPLE:
            return np.zeros(0, np.int64)
        if self.rules.superko == SITUATIONAL:
            return np.array(sorted(set(self.shistory) | {self.hash}), dtype=np.int64)
        return np.array(sorted(set(self.history)), dtype=np.int64)

    def legal_moves(self, c: int | None = None, superko: bool | None = None) -> list[int]:
        """Legal board points for ``c`` (no pass), in point order."""
        c = self.to_move if c is None else c
        S = self.S
        return [p for p in self.points()
                if S[COLOR, p] == EMPTY and self.why_illegal(p, c, superko) is None]

    def score(self) -> float:
        """Area score Black minus White minus komi, all stones counted alive."""
        return float(area_score(self.S)) - self.komi

    def stones(self, c: int) -> list[int]:
        return [p for p in self.points() if self.S[COLOR, p] == c]

    def string_libs(self, p: int) -> list[int]:
        out = np.empty(self.S.shape[1], np.int64)
        n = string_libs(self.S, p, out, 0, out.shape[0])
        return sorted(int(x) for x in out[:n])

    def check(self) -> None:
        """Assert that the incremental strings and liberty counts match a recomputation."""
        S = self.S
        other = Board.from_colors(self.size, S[COLOR], self.to_move)
        for p in self.points():
            if S[COLOR, p] in (BLACK, WHITE):
                r1, r2 = S[REP, p], other.S[REP, p]
                assert S[NLIB, r1] == other.S[NLIB, r2], (p, S[NLIB, r1], other.S[NLIB, r2])
                assert S[SSIZE, r1] == other.S[SSIZE, r2]
                assert S[NLIB, r1] == count_libs(S, p)

    @classmethod
    def from_colors(cls, size: int, colors, to_move: int = BLACK, komi: float = 7.0,
                    rules: Ruleset = DEFAULT_RULES) -> "Board":
        """A board from a padded colour row or an ``N x N`` array (0 empty, 1 black, 2 white)."""
        b = cls(size, komi, rules=rules)
        colors = np.asarray(colors)
        S = b.S
        if colors.ndim == 2:
            for r in range(size):
                for k in range(size):
                    S[COLOR, (r + 1) * b.W + k + 1] = colors[r, k]
        else:
            S[COLOR, :] = colors
        h = 0
        for p in b.points():
            if S[COLOR, p] in (BLACK, WHITE):
                h ^= int(ZOBRIST[S[COLOR, p], p])
        if to_move == WHITE:
            h ^= int(ZOB_WHITE_TO_MOVE)
        S[META, M_HASH] = h
        S[META, M_TOMOVE] = to_move
        _rebuild_strings(S)
        b.history = [b.position_hash]
        return b

    @classmethod
    def from_ascii(cls, rows: str, to_move: int = BLACK, komi: float = 7.0) -> "Board":
        """A board from lines of ``X`` (black), ``O`` (white), ``.``; spaces ignored."""
        lines = [ln.replace(" ", "") for ln in rows.strip().splitlines()]
        size = len(lines)
        arr = np.zeros((size, size), np.int8)
        for r, ln in enumerate(lines):
            if len(ln) != size:
                raise ValueError(f"row {r + 1} has {len(ln)} points, expected {size}")
            for k, ch in enumerate(ln):
                arr[r, k] = {".": EMPTY, "X": BLACK, "O": WHITE}[ch]
        return cls.from_colors(size, arr, to_move, komi)

    def pt(self, row: int, col: int) -> int:
        """Padded point of ``(row, col)``, 0-based from the top-left."""
        return (row + 1) * self.W + col + 1

    def _repr_svg_(self) -> str:
        """SVG of the board, last move ringed (Jupyter): :func:`playout.go.svg.board_svg`."""
        from playout.go.svg import board_svg

        return board_svg(self)

    def __str__(self) -> str:
        chars = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        lines = ["   " + " ".join(COLUMNS[: self.size])]
        for r in range(self.size):
            row = " ".join(chars[int(self.S[COLOR, self.pt(r, k)])] for k in range(self.size))
            lines.append(f"{self.size - r:2d} {row} {self.size - r:2d}")
        lines.append(lines[0])
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Game adapter for the core solvers
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoState:
    """An immutable Go position for :class:`GoGame`: the board's colours, ko, side, record."""

    size: int
    colors: bytes
    to_move: int
    ko: int
    passes: int
    history: frozenset
    hash: int
    moves: int = 0

    def board(self, komi: float) -> Board:
        b = Board.from_colors(self.size, np.frombuffer(self.colors, np.int64).copy(), self.to_move, komi)
        b.meta[M_KO] = self.ko
        b.meta[M_PASSES] = self.passes
        b.history = list(self.history)
        return b

    def __hash__(self) -> int:
        return hash((self.hash, self.passes))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoState) and self.colors == other.colors and (
            self.to_move, self.ko, self.passes) == (other.to_move, other.ko, other.passes)


class GoGame(Game):
    """Go as a :class:`~playout.mdp.Game`: actions are padded points (0 = pass), Black = player 0.

    The game ends after two consecutive passes or ``max_moves`` moves; the final transition
    pays +1/-1 (area score with komi) to the player who moved, other transitions pay 0.
    Positional superko is enforced.  Meant for the generic solvers on small boards; the fast
    player is :mod:`playout.go.player`.
    """

    def __init__(self, size: int = 5, komi: float = 7.0, max_moves: int | None = None):
        self.size = size
        self.komi = komi
        self.max_moves = max_moves if max_moves is not None else 3 * size * size

    def _state(self, b: Board, moves: int) -> GoState:
        return GoState(b.size, b.color.tobytes(), b.to_move, b.ko, b.passes,
                        frozenset(b.history), b.hash, moves)

    def initial_state(self) -> "GoState":
        return self._state(Board(self.size, self.komi), 0)

    def actions(self, state):
        if self.is_terminal(state):
            return []
        b = state.board(self.komi)
        return b.legal_moves() + [PASS]

    def transition(self, state, action, rng: _random.Random):
        b = state.board(self.komi)
        b.play(action)
        return self._state(b, state.moves + 1)

    def is_terminal(self, state) -> bool:
        return state.passes >= 2 or state.moves >= self.max_moves

    def reward(self, prev_state, action, state) -> float:
        if not self.is_terminal(state):
            return 0.0
        s = state.board(self.komi).score()
        black_wins = 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
        return black_wins if prev_state.to_move == BLACK else -black_wins

    def to_play(self, state) -> int:
        return 0 if state.to_move == BLACK else 1

