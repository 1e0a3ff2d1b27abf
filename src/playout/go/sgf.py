"""SGF in and out (sgfmill): game records for GTP ``loadsgf``/``printsgf`` and ``go analyze``."""

from __future__ import annotations

from pathlib import Path

from sgfmill import sgf

from playout.go.board import BLACK, PASS, WHITE, Board


class SgfError(ValueError):
    """A file that is not a usable Go SGF; the message names the file and the problem."""


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


def load_sgf(path: str | Path, move_number: int | None = None) -> Board:
    """The position of ``path`` after its setup stones and the first ``move_number`` moves
    (all moves if None).  Raises :class:`SgfError` (file, problem) on a bad file or move."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SgfError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        game = sgf.Sgf_game.from_bytes(data)
    except ValueError as exc:
        raise SgfError(f"{path}: not a valid SGF: {exc}") from None
    size = game.get_size()
    if not 5 <= size <= 19:
        raise SgfError(f"{path}: board size {size} not supported (5..19)")
    root = game.get_root()
    komi = 7.0
    try:
        komi = float(game.get_komi())
    except (ValueError, KeyError):
        pass
    b = Board(size, komi)
    setup_b, setup_w, _ = root.get_setup_stones()
    if setup_b or setup_w:
        colors = b.S[0].copy()
        for colour, pts in ((BLACK, setup_b), (WHITE, setup_w)):
            for rc in pts:
                colors[_point(size, rc)] = colour
        to_move = WHITE if root.has_property("PL") and root.get("PL") == "w" else BLACK
        b = Board.from_colors(size, colors, to_move, komi)
    n = 0
    for node in game.get_main_sequence()[1:]:
        colour, rc = node.get_move()
        if colour is None:
            continue
        if move_number is not None and n >= move_number:
            break
        c = BLACK if colour == "b" else WHITE
        p = _point(size, rc)
        why = b.why_illegal(p, c)
        if why is not None:
            raise SgfError(f"{path}: move {n + 1} ({colour} {rc}) is illegal: {why}")
        b.play(p, c)
        n += 1
    return b


def board_to_sgf(board: Board, initial: Board | None = None) -> bytes:
    """SGF of ``board``'s game record (setup stones from ``initial`` when it is not empty)."""
    size = board.size
    game = sgf.Sgf_game(size=size)
    root = game.get_root()
    root.set("KM", float(board.komi))
    root.set("AP", ("playout", "0.1"))
    if initial is not None:
        bl = [_rc(size, p) for p in initial.stones(BLACK)]
        wh = [_rc(size, p) for p in initial.stones(WHITE)]
        if bl or wh:
            root.set_setup_stones(bl, wh)
    for c, p in board.moves:
        node = game.extend_main_sequence()
        node.set_move("b" if c == BLACK else "w", _rc(size, p))
    return game.serialise()
