"""SGF in and out (sgfmill): game records for GTP ``loadsgf``/``printsgf`` and ``go analyze``.

Reading follows the SGF FF[4] Go specification (https://www.red-bean.com/sgf/go.html): points
are two lowercase letters (column, then row from the top), ``B[]`` and ``B[tt]`` (boards up to
19x19) are passes (writing uses ``B[]`` on every size), ``AB``/``AW``/``AE`` take point lists with ``aa:cc`` rectangles.  sgfmill
only splits the file into nodes and raw values; the values are read here so that every
problem becomes one :class:`SgfError` line naming the file, the move and the value.
Setup properties are applied in any node of the main line (see :func:`read_game`); the root's
``HA`` is kept (:attr:`SgfGame.handicap`) so that GTP ``printsgf`` writes it back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sgfmill import sgf

from playout.go.board import BLACK, MAX_SIZE, MIN_SIZE, PASS, WHITE, Board, point_to_gtp
from playout.go.rulesets import DEFAULT_RULES, Ruleset, get_ruleset
from playout.go.rules import COLOR, EMPTY, M_CAPB, M_CAPW, M_LAST, M_LAST2, M_MOVES, META


class SgfError(ValueError):
    """A file that is not a usable Go SGF; the message names the file and the problem."""


class _BadValue(Exception):
    """An SGF value that cannot be read; the message says which and why (no file name)."""


def _point(size: int, rc: tuple[int, int] | None) -> int:
    if rc is None:
        return PASS
    row, col = rc  # sgfmill: row 0 = bottom
    return (size - row) * (size + 2) + col + 1


def _rc(size: int, p: int) -> tuple[int, int] | None:
    if p == PASS:
        return None
    r, k = divmod(p, size + 2)
    return size - r, k - 1


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _sgf_point(raw: bytes, size: int) -> int | None:
    """Padded point of a two-letter SGF point, or None if it is not one on this board."""
    if len(raw) != 2:
        return None
    col, row = raw[0] - 97, raw[1] - 97  # 'a' = 97; rows counted from the top
    if not (0 <= col < size and 0 <= row < size):
        return None
    return (row + 1) * (size + 2) + col + 1


def move_point(raw: bytes, size: int) -> int:
    """Padded point of a ``B``/``W`` value on a ``size`` board (any size up to 26, whatever
    the engine plays); PASS for ``""`` (FF[4]) and for ``"tt"`` on boards up to 19x19 only
    (FF[3]; on larger boards ``t`` is a coordinate: https://www.red-bean.com/sgf/go.html,
    "Pass").  Raises ``_BadValue`` for a point off the board."""
    if raw == b"" or (raw == b"tt" and size <= 19):
        return PASS
    p = _sgf_point(raw, size)
    if p is None:
        raise _BadValue(f"bad point '{_text(raw)}' for a {size}x{size} board")
    return p


def move_value(p: int, size: int) -> bytes:
    """The ``B``/``W`` value of padded point ``p`` on a ``size`` board: two letters (column,
    then row from the top), or ``""`` for a pass on every board size (FF[4],
    https://www.red-bean.com/sgf/go.html: ``[]`` is the pass; ``[tt]`` is only the FF[3]
    form for boards up to 19x19, and a point on larger ones).  sgfmill writes ``tt`` up to
    19x19, so the moves are written through this."""
    if p == PASS:
        return b""
    r, k = divmod(p, size + 2)
    if not (1 <= r <= size and 1 <= k <= size):
        raise ValueError(f"point {p} is not on a {size}x{size} board")
    return bytes((96 + k, 96 + r))


def _point_list(prop: str, raws: list[bytes], size: int) -> list[int]:
    """Points of an ``AB``/``AW``/``AE`` list (``aa:cc`` rectangles expanded)."""
    out: list[int] = []
    W = size + 2
    for raw in raws:
        if raw == b"":  # an empty list, AE[] for instance
            continue
        corners = raw.split(b":")
        pts = [_sgf_point(c, size) for c in corners]
        if len(corners) > 2 or any(p is None for p in pts):
            raise _BadValue(f"{prop}: bad point '{_text(raw)}' for a {size}x{size} board")
        (r0, c0), (r1, c1) = divmod(pts[0], W), divmod(pts[-1], W)
        out += [r * W + c for r in range(min(r0, r1), max(r0, r1) + 1)
                for c in range(min(c0, c1), max(c0, c1) + 1)]
    return out


def _root_number(root, prop: str, kind=float):
    """Value of a numeric root property, None if absent or empty; _BadValue if malformed."""
    if not root.has_property(prop):
        return None
    raw = root.get_raw(prop).strip()
    if not raw:
        return None
    try:
        v = kind(raw.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        raise _BadValue(f"bad {prop} value '{_text(raw)}'") from None
    if not math.isfinite(v) or abs(v) > 1000:
        raise _BadValue(f"bad {prop} value '{_text(raw)}'")
    return v


@dataclass
class SetupNode:
    """Setup properties (``AB``, ``AW``, ``AE``, ``PL``) of a node after the first move.

    ``after`` is the number of moves played before the node's setup is applied (>= 1; setup
    before the first move is part of :attr:`SgfGame.setup`); ``black``, ``white`` and
    ``empty`` are padded points, ``to_move`` the ``PL`` colour or None.
    """

    after: int
    black: list[int]
    white: list[int]
    empty: list[int]
    to_move: int | None = None


@dataclass
class SgfGame:
    """A Go game record read by :func:`read_game`.

    ``setup``: the position before the first move (root setup, handicap, and setup nodes
    before the first move).  ``board``: the position after the moves read, with any later
    setup applied; ``board.moves`` holds the moves alone.  ``handicap``: the root's ``HA``
    (0 when absent, 0 or 1).  ``later_setup``: the setup nodes after the first move that were
    applied to ``board``, in file order.
    """

    setup: Board
    board: Board
    handicap: int = 0
    later_setup: list[SetupNode] = field(default_factory=list)

    def replay(self) -> Iterator[tuple[Board, int, int]]:
        """``(position, colour, point)`` before each move of ``board.moves`` in order: the
        position has the setup of the nodes before the move applied and ``colour`` to move.
        The yielded board is the live one; it is played on after the caller resumes."""
        b = self.setup.copy()
        pending = list(self.later_setup)
        for i, (c, p) in enumerate(self.board.moves):
            while pending and pending[0].after <= i:
                b = apply_setup(b, pending.pop(0))
            b.to_move = c
            yield b, c, p
            b.play(p, c)


_SZ_PAIR = re.compile(rb"SZ\[\s*(\d+)\s*:\s*(\d+)\s*\]")


def read_sgf_bytes(path: str | Path) -> bytes:
    """The bytes of SGF file ``path``, with FF[4]'s two-number size of a square board
    (``SZ[9:9]``, section "SZ" of the FF[4] spec) written as the one number sgfmill reads.
    Raises :class:`SgfError` for an unreadable file or a rectangular board (``SZ[9:13]``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SgfError(f"{path}: cannot read: {exc.strerror or exc}") from None

    def square(m: re.Match) -> bytes:
        if int(m.group(1)) != int(m.group(2)):
            raise SgfError(f"{path}: rectangular board SZ[{m.group(1).decode()}:"
                           f"{m.group(2).decode()}] not supported (Go boards here are square)")
        return b"SZ[" + m.group(1) + b"]"

    return _SZ_PAIR.sub(square, data)


def read_game(path: str | Path, move_number: int | None = None,
              rules: Ruleset | str = DEFAULT_RULES) -> SgfGame:
    """The game record of ``path`` read as far as its first ``move_number`` moves (all if
    None): the position before move ``move_number + 1``, with the setup of every node before
    that move and of that move's own node applied.  Moves are counted, not nodes: a node with
    only setup (``AB``/``AW``/``AE``/``PL``) adds no move, as in GNU Go 3.8's ``loadsgf``.

    Setup stones may stand in any node of the main line (sgfmill's ``get_setup_stones``, GNU
    Go's ``loadsgf``): in a node that also holds a move (FF[4] forbids the mix) they are
    applied before the move (GNU Go 3.8 follows the properties' order); a setup stone replaces
    whatever is on its point and ``AE`` empties it (FF[4]; GNU Go 3.8 ignores ``AE``).  After
    setup following the first move, the captures and the move count are kept, the ko and the
    pass count are cleared, and the new position joins the superko history.  ``PL`` (in any
    node) says who moves next; without it, a root setup of black stones alone with ``HA`` >= 2
    means White moves first.

    Raises :class:`SgfError`, one line ``FILE: problem``, for: an unreadable file, bad SGF
    syntax, ``GM`` other than 1 (Go), a size outside 5..19 or a rectangular one (``SZ[9:9]`` is
    read as ``SZ[9]``), a bad ``KM``/``HA``/``PL``/``SZ`` value, a setup point or move off the
    board (``FILE: move 3: bad point 'zz' for a 9x9 board``; ``FILE: after move 2: AB: bad
    point ...`` for later setup), a point set twice in one node (``AB`` and ``AW``, ...),
    setup stones that leave a string without liberties, and an illegal move (``FILE: move 2 (W E5) is illegal: occupied``) under ``rules`` (a
    :class:`~playout.go.rulesets.Ruleset` or its name; the boards returned keep it).
    """
    rules = get_ruleset(rules)
    data = read_sgf_bytes(path)
    try:
        game = sgf.Sgf_game.from_bytes(data)
    except ValueError as exc:
        msg = str(exc)
        if msg.startswith("bad SZ property: b"):
            msg = f"bad SZ value {msg[len('bad SZ property: b'):]}"
        elif msg.startswith("size out of range: "):
            raise SgfError(f"{path}: board size {msg.split(': ', 1)[1]} not supported "
                           f"({MIN_SIZE}..{MAX_SIZE})") from None
        raise SgfError(f"{path}: not a valid SGF: {msg}") from None
    try:
        return _interpret(game, move_number, rules)
    except _BadValue as exc:
        raise SgfError(f"{path}: {exc}") from None
    except SgfError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, UnicodeError) as exc:  # last defence
        raise SgfError(f"{path}: not a valid SGF: {exc or type(exc).__name__}") from None


def read_sgf(path: str | Path, move_number: int | None = None) -> tuple[Board, Board]:
    """``(setup, board)`` of :func:`read_game`: the position before the first move, and the
    position after the first ``move_number`` moves (all if None) with later setup applied.
    Raises :class:`SgfError` (``FILE: problem``, see :func:`read_game`)."""
    g = read_game(path, move_number)
    return g.setup, g.board


def _pl(raw: bytes) -> int:
    v = raw.strip().lower()
    if v not in (b"b", b"w", b"black", b"white"):
        raise _BadValue(f"bad PL value '{_text(raw)}' (B or W)")
    return BLACK if v.startswith(b"b") else WHITE


def _node_setup(props, size: int) -> dict[int, list[int]] | None:
    """``{BLACK: AB points, WHITE: AW points, EMPTY: AE points}`` of a node, None if it has
    no setup stones; _BadValue for a bad point or a point set twice (FF[4] forbids it)."""
    if not any(k in props for k in ("AB", "AW", "AE")):
        return None
    new = {c: _point_list(k, props[k], size) if k in props else []
           for c, k in ((BLACK, "AB"), (WHITE, "AW"), (EMPTY, "AE"))}
    for c1, c2, names in ((BLACK, WHITE, "AB and AW"), (BLACK, EMPTY, "AB and AE"),
                          (WHITE, EMPTY, "AW and AE")):
        both = set(new[c1]) & set(new[c2])
        if both:
            raise _BadValue(f"point {point_to_gtp(min(both), size)} is in both {names}")
    return new


def _check_liberties(b: Board) -> None:
    for p in b.points():
        if b.color[p] in (BLACK, WHITE) and not b.string_libs(p):
            raise _BadValue(f"setup stones leave the string at {point_to_gtp(p, b.size)} "
                            f"without liberties")


def apply_setup(b: Board, node: SetupNode) -> Board:
    """``b`` with ``node``'s setup applied (a new board when stones change, else ``b``).

    Strings and liberties are rebuilt from the colours (:meth:`Board.from_colors`); captures
    (``M_CAPB``/``M_CAPW``), the move count and the moves are kept, and the last-move points
    where setup left them alone; the ko and the pass count are cleared; the new position is
    appended to the superko history.  Raises ValueError (``_BadValue``) when a string is left
    without liberties."""
    colors = b.S[COLOR].copy()
    for c, pts in ((BLACK, node.black), (WHITE, node.white), (EMPTY, node.empty)):
        colors[pts] = c
    if not np.array_equal(colors, b.S[COLOR]):
        nb = Board.from_colors(b.size, colors, b.to_move, b.komi, b.rules)
        nb.superko = b.superko
        nb.shistory = list(b.shistory)
        for m in (M_CAPB, M_CAPW, M_MOVES):
            nb.S[META, m] = b.S[META, m]
        for m in (M_LAST, M_LAST2):
            q = int(b.S[META, m])
            if q <= 0 or colors[q] == b.S[COLOR, q]:
                nb.S[META, m] = q
        _check_liberties(nb)
        nb.history = list(b.history) + [nb.position_hash]
        nb.moves = list(b.moves)
        b = nb
    if node.to_move is not None:
        b.to_move = node.to_move
    return b


def _interpret(game, move_number: int | None, rules: Ruleset = DEFAULT_RULES) -> SgfGame:
    root = game.get_root()
    if root.has_property("GM") and root.get_raw("GM").strip() not in (b"", b"1"):
        raise _BadValue(f"GM[{_text(root.get_raw('GM'))}] is not a Go game record (GM[1])")
    size = game.get_size()
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise _BadValue(f"board size {size} not supported ({MIN_SIZE}..{MAX_SIZE})")
    komi = _root_number(root, "KM")
    komi = 7.0 if komi is None else komi
    handicap = _root_number(root, "HA", int)
    if handicap is not None and not 0 <= handicap < size * size:
        raise _BadValue(f"bad HA value '{_text(root.get_raw('HA').strip())}'")
    to_move = None

    b = Board(size, komi, rules=rules)
    colors = b.S[0].copy()
    has_setup = False
    setup: Board | None = None
    later: list[SetupNode] = []
    n = 0
    for node in game.get_main_sequence():
        props = node.get_raw_property_map()
        if setup is None:  # before the first move: gather the setup
            to_move = _pl(props["PL"][0]) if "PL" in props else to_move
            new = _node_setup(props, size)
            if new is not None:
                for c in (BLACK, WHITE, EMPTY):
                    colors[new[c]] = c
                has_setup = True
        else:
            try:
                pl = _pl(props["PL"][0]) if "PL" in props else None
                new = _node_setup(props, size)
                if pl is not None and new is None and node.get_raw_move()[0] is not None:
                    pl = None  # PL beside a move: the move's colour decides
                if new is not None or pl is not None:
                    sn = SetupNode(n, *(new[c] if new else [] for c in (BLACK, WHITE, EMPTY)),
                                   to_move=pl)
                    b = apply_setup(b, sn)
                    later.append(sn)
            except _BadValue as exc:
                raise _BadValue(f"after move {n}: {exc}") from None
        colour, raw = node.get_raw_move()
        if colour is None:
            continue
        if setup is None:
            setup = _setup_board(size, colors, has_setup, to_move, handicap, komi, rules)
            b = setup.copy()
        if move_number is not None and n >= move_number:
            break
        c = BLACK if colour == "b" else WHITE
        try:
            p = move_point(raw, size)
        except _BadValue as exc:
            raise _BadValue(f"move {n + 1}: {exc}") from None
        why = b.why_illegal(p, c)
        if why is not None:
            raise _BadValue(f"move {n + 1} ({colour.upper()} {point_to_gtp(p, size)}) "
                            f"is illegal: {why}")
        b.play(p, c)
        n += 1
    if setup is None:  # no moves at all
        setup = _setup_board(size, colors, has_setup, to_move, handicap, komi, rules)
        b = setup.copy()
    return SgfGame(setup, b, handicap if handicap is not None and handicap >= 2 else 0, later)


def _setup_board(size, colors, has_setup, to_move, handicap, komi, rules=DEFAULT_RULES) -> Board:
    if not has_setup:
        b = Board(size, komi, rules=rules)
        if to_move is not None:
            b.to_move = to_move
        return b
    if to_move is None:  # a handicap (only black stones): White moves first
        only_black = not np.any(colors == WHITE)
        to_move = WHITE if handicap is not None and handicap >= 2 and only_black else BLACK
    b = Board.from_colors(size, colors, to_move, komi, rules)
    _check_liberties(b)
    return b


def load_sgf(path: str | Path, move_number: int | None = None,
             rules: Ruleset | str = DEFAULT_RULES) -> Board:
    """The position of ``path`` after its setup stones and the first ``move_number`` moves
    (all moves if None).  Raises :class:`SgfError` (``FILE: problem``, see :func:`read_game`)."""
    return read_game(path, move_number, rules).board


def board_to_sgf(board: Board, initial: Board | None = None, handicap: int = 0,
                 later_setup: list[SetupNode] | tuple = ()) -> bytes:
    """SGF of ``board``'s game record: setup stones (``AB``/``AW``, and ``PL[W]`` when White
    moves first) from ``initial`` when it is not empty, ``HA`` when ``handicap`` >= 2, then the
    moves, with each of ``later_setup`` (:class:`SetupNode`) as a node of its own after its
    ``after`` moves (FF[4]: setup and move properties not mixed in one node); nodes past the
    end of ``board.moves`` are left out.  A pass is written ``B[]``/``W[]`` (:func:`move_value`)."""
    size = board.size
    game = sgf.Sgf_game(size=size)
    root = game.get_root()
    root.set("KM", float(board.komi))
    root.set("AP", ("playout", "0.1"))
    if handicap >= 2:
        root.set("HA", handicap)
    if initial is not None:
        bl = [_rc(size, p) for p in initial.stones(BLACK)]
        wh = [_rc(size, p) for p in initial.stones(WHITE)]
        if bl or wh:
            root.set_setup_stones(bl, wh)
            if initial.to_move == WHITE:
                root.set("PL", "w")
    pending = sorted(later_setup, key=lambda sn: sn.after)  # stable: file order kept

    def flush(i: int) -> None:
        while pending and pending[0].after <= i:
            sn = pending.pop(0)
            node = game.extend_main_sequence()
            if sn.black or sn.white or sn.empty:
                node.set_setup_stones(*([_rc(size, p) for p in pts]
                                        for pts in (sn.black, sn.white, sn.empty)))
            if sn.to_move is not None:
                node.set("PL", "b" if sn.to_move == BLACK else "w")

    for i, (c, p) in enumerate(board.moves):
        flush(i)
        node = game.extend_main_sequence()
        node.set_raw("B" if c == BLACK else "W", move_value(p, size))
    flush(len(board.moves))
    return game.serialise()
