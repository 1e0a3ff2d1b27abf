"""SGF in and out (sgfmill): game records for GTP ``loadsgf``/``printsgf`` and ``go analyze``.

Reading follows the SGF FF[4] Go specification (https://www.red-bean.com/sgf/go.html): points
are two lowercase letters (column, then row from the top), ``B[]`` and ``B[tt]`` (boards up to
19x19) are passes, ``AB``/``AW``/``AE`` take point lists with ``aa:cc`` rectangles.  sgfmill
only splits the file into nodes and raw values; the values are read here so that every
problem becomes one :class:`SgfError` line naming the file, the move and the value.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from sgfmill import sgf

from playout.go.board import BLACK, MAX_SIZE, MIN_SIZE, PASS, WHITE, Board, point_to_gtp
from playout.go.rules import EMPTY


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


def _move_point(raw: bytes, size: int) -> int:
    """Point of a ``B``/``W`` value; ``""`` and ``"tt"`` (size <= 19) are a pass."""
    if raw == b"" or (raw == b"tt" and size <= 19):
        return PASS
    p = _sgf_point(raw, size)
    if p is None:
        raise _BadValue(f"bad point '{_text(raw)}' for a {size}x{size} board")
    return p


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


def read_sgf(path: str | Path, move_number: int | None = None) -> tuple[Board, Board]:
    """``(setup, board)`` of ``path``: the position after its setup stones, and the position
    after the first ``move_number`` moves as well (all moves if None).

    Setup stones (``AB``, ``AW``, ``AE``) may stand in the root and in the nodes before the
    first move; ``PL`` (or, failing it, ``HA`` >= 2 with only black setup stones) says who
    moves first.  Raises :class:`SgfError`, one line ``FILE: problem``, for: an unreadable
    file, bad SGF syntax, ``GM`` other than 1 (Go), a size outside 5..19, a bad ``KM``/``HA``/
    ``PL``/``SZ`` value, a setup point or move off the board (``FILE: move 3: bad point 'zz'
    for a 9x9 board``), a point set twice in one node (``AB`` and ``AW``, ...), setup stones
    without liberties, setup after the first move, and an illegal move
    (``FILE: move 2 (W E5) is illegal: occupied``).
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SgfError(f"{path}: cannot read: {exc.strerror or exc}") from None
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
        return _interpret(game, move_number, path)
    except _BadValue as exc:
        raise SgfError(f"{path}: {exc}") from None
    except SgfError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, UnicodeError) as exc:  # last defence
        raise SgfError(f"{path}: not a valid SGF: {exc or type(exc).__name__}") from None


def _interpret(game, move_number: int | None, path) -> tuple[Board, Board]:
    root = game.get_root()
    if root.has_property("GM") and root.get_raw("GM").strip() not in (b"", b"1"):
        raise _BadValue(f"GM[{_text(root.get_raw('GM'))}] is not a Go game record (GM[1])")
    size = game.get_size()
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise _BadValue(f"board size {size} not supported ({MIN_SIZE}..{MAX_SIZE})")
    komi = _root_number(root, "KM")
    komi = 7.0 if komi is None else komi
    handicap = _root_number(root, "HA", int)
    to_move = None

    b = Board(size, komi)
    colors = b.S[0].copy()
    has_setup = False
    setup: Board | None = None
    n = 0
    for node in game.get_main_sequence():
        props = node.get_raw_property_map()
        if "PL" in props and setup is None:  # PL after the first move: not ours to follow
            raw = props["PL"][0].strip().lower()
            if raw not in (b"b", b"w", b"black", b"white"):
                raise _BadValue(f"bad PL value '{_text(props['PL'][0])}' (B or W)")
            to_move = BLACK if raw.startswith(b"b") else WHITE
        if any(k in props for k in ("AB", "AW", "AE")):
            if setup is not None:
                raise _BadValue(f"move {n + 1}: setup stones (AB/AW/AE) after the first move "
                                f"are not supported")
            new = {c: _point_list(k, props[k], size) if k in props else []
                   for c, k in ((BLACK, "AB"), (WHITE, "AW"), (EMPTY, "AE"))}
            for c1, c2, names in ((BLACK, WHITE, "AB and AW"), (BLACK, EMPTY, "AB and AE"),
                                  (WHITE, EMPTY, "AW and AE")):
                both = set(new[c1]) & set(new[c2])
                if both:  # FF[4]: one node may not set a point twice
                    raise _BadValue(f"point {point_to_gtp(min(both), size)} is in both {names}")
            for c in (BLACK, WHITE, EMPTY):
                colors[new[c]] = c
            has_setup = True
        colour, raw = node.get_raw_move()
        if colour is None:
            continue
        if setup is None:
            setup = _setup_board(size, colors, has_setup, to_move, handicap, komi)
            b = setup.copy()
        if move_number is not None and n >= move_number:
            break
        c = BLACK if colour == "b" else WHITE
        try:
            p = _move_point(raw, size)
        except _BadValue as exc:
            raise _BadValue(f"move {n + 1}: {exc}") from None
        why = b.why_illegal(p, c)
        if why is not None:
            raise _BadValue(f"move {n + 1} ({colour.upper()} {point_to_gtp(p, size)}) "
                            f"is illegal: {why}")
        b.play(p, c)
        n += 1
    if setup is None:  # no moves at all
        setup = _setup_board(size, colors, has_setup, to_move, handicap, komi)
        b = setup.copy()
    return setup, b


def _setup_board(size, colors, has_setup, to_move, handicap, komi) -> Board:
    if not has_setup:
        b = Board(size, komi)
        if to_move is not None:
            b.to_move = to_move
        return b
    if to_move is None:  # a handicap (only black stones): White moves first
        only_black = not np.any(colors == WHITE)
        to_move = WHITE if handicap is not None and handicap >= 2 and only_black else BLACK
    b = Board.from_colors(size, colors, to_move, komi)
    for p in b.points():
        if b.color[p] in (BLACK, WHITE) and not b.string_libs(p):
            raise _BadValue(f"setup stones leave the string at {point_to_gtp(p, size)} "
                            f"without liberties")
    return b


def load_sgf(path: str | Path, move_number: int | None = None) -> Board:
    """The position of ``path`` after its setup stones and the first ``move_number`` moves
    (all moves if None).  Raises :class:`SgfError` (``FILE: problem``, see :func:`read_sgf`)."""
    return read_sgf(path, move_number)[1]


def board_to_sgf(board: Board, initial: Board | None = None, handicap: int = 0) -> bytes:
    """SGF of ``board``'s game record: setup stones (``AB``/``AW``, and ``PL[W]`` when White
    moves first) from ``initial`` when it is not empty, ``HA`` when ``handicap`` >= 2."""
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
    for c, p in board.moves:
        node = game.extend_main_sequence()
        node.set_move("b" if c == BLACK else "w", _rc(size, p))
    return game.serialise()
