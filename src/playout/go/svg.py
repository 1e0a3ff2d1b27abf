"""SVG drawings of Go positions (text built by hand, as python-chess's ``chess.svg``).

:func:`board_svg` draws the grid with the star points, the stones (each outlined) and a ring
on the last move, and the coordinates as GTP and Sabaki write them: columns ``A``..``T``
without ``I`` left to right, rows numbered from the bottom (``A1`` is the lower left corner,
GTP version 2, section 2.11; :data:`playout.go.rules.COLUMNS`).  Star points (hoshi) are those
of the usual boards: on the 3-3 points of boards smaller than 13 and the 4-4 points from 13
up, the centre of odd boards from 9 up (and 7), and the sides' midpoints of odd boards from
15 up (the 9 points of 19x19, 5 of 13x13 and 9x9), as GNU Go and Sabaki draw them.

Every stone is one ``<circle class="stone black|white">``, the last-move ring
``class="last-move"``, a star point ``class="hoshi"``: tests and style sheets can count and
restyle them.
"""

from __future__ import annotations

import numpy as np

from playout.go.rules import BLACK, COLOR, COLUMNS, EMPTY, PASS, WHITE

CELL = 40  # grid spacing in SVG user units; ``size`` scales the picture
DEFAULT_COLORS = {"wood": "#dcb35c", "line": "#1a1a1a", "text": "#3b2a12",
                  "black": ("#141414", "#000000"), "white": ("#f7f7f2", "#1a1a1a")}


def star_points(n: int) -> list[tuple[int, int]]:
    """Star points of an ``n`` x ``n`` board as (row, col), 0-based from the top left."""
    if n < 7:
        return [(n // 2, n // 2)] if n % 2 else []
    e = 2 if n < 13 else 3
    lines = [e, n - 1 - e]
    pts = [(r, c) for r in lines for c in lines]
    if n % 2:
        m = n // 2
        if n >= 15:
            pts += [(e, m), (m, e), (m, n - 1 - e), (n - 1 - e, m)]
        if n >= 9 or n == 7:
            pts.append((m, m))
    return sorted(set(pts))


def _colors_of(board) -> tuple[np.ndarray, int | None]:
    """(n x n colours 0 empty / 1 black / 2 white, row 0 at the top; the board's last move as
    a padded point or None) of a :class:`playout.go.board.Board` or an array."""
    if hasattr(board, "S") and hasattr(board, "size"):
        n = board.size
        W = n + 2
        grid = np.asarray(board.S[COLOR]).reshape(W, W)[1:n + 1, 1:n + 1].copy()
        lm = board.last_move
        return grid, (lm if lm > 0 else None)
    grid = np.asarray(board)
    if grid.ndim != 2 or grid.shape[0] != grid.shape[1]:
        raise ValueError(f"board: shape {grid.shape} (a Board or an n x n array)")
    if not np.isin(grid, (EMPTY, BLACK, WHITE)).all():
        raise ValueError("board: values other than 0 (empty), 1 (black), 2 (white)")
    return grid, None


def _rc_of(move, n: int) -> tuple[int, int] | None:
    """(row from the top, col) of a GTP vertex, a padded point or a (row, col) pair; None for
    a pass."""
    if move is None or move is False:
        return None
    if isinstance(move, str):
        s = move.strip().upper()
        if s == "PASS":
            return None
        if len(s) < 2 or s[0] not in COLUMNS[:n] or not s[1:].isdigit() or not 1 <= int(s[1:]) <= n:
            raise ValueError(f"last_move: invalid vertex {move!r} on a {n}x{n} board")
        return n - int(s[1:]), COLUMNS.index(s[0])
    if isinstance(move, tuple):
        r, c = move
    else:
        if int(move) == PASS:
            return None
        r, c = divmod(int(move), n + 2)
        r, c = r - 1, c - 1
    if not (0 <= r < n and 0 <= c < n):
        raise ValueError(f"last_move: {move!r} is off a {n}x{n} board")
    return int(r), int(c)


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def board_svg(board, *, last_move=None, coordinates: bool = True, size: int | None = None,
              colors: dict | None = None) -> str:
    """SVG text (one ``<svg>`` element, no XML declaration) of a Go position.

    ``board``: a :class:`playout.go.board.Board`, or an ``n x n`` array of 0 (empty),
    1 (black), 2 (white) with row 0 at the top (as :meth:`Board.from_colors` takes it).
    ``last_move``: a GTP vertex (``"D4"``), a padded point (``Board.last_move``) or a
    (row from the top, col) pair to ring; None takes the Board's own last move (none for an
    array), False or ``"pass"`` rings nothing.  ``coordinates``: letters along the top and
    bottom, row numbers on both sides.  ``size``: width and height in pixels; None leaves it
    to the viewer (the viewBox is ``(n - 1) * 40 + 2 * 50`` units square, ``+ 2 * 24`` without
    coordinates).
    ``colors``: entries of :data:`DEFAULT_COLORS` to override.

    Raises ValueError naming the argument for a board that is not square or holds other
    values, or a last move off the board.
    """
    grid, own_last = _colors_of(board)
    n = grid.shape[0]
    lm = _rc_of(own_last if last_move is None else last_move, n)
    col = dict(DEFAULT_COLORS)
    col.update(colors or {})
    m = CELL * 1.25 if coordinates else CELL * 0.6  # margin from the outer lines to the edge
    side = (n - 1) * CELL + 2 * m

    def xy(r: int, c: int) -> tuple[float, float]:
        return m + c * CELL, m + r * CELL

    out: list[str] = []
    w = out.append
    dims = f' width="{size}" height="{size}"' if size else ""
    w(f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {_f(side)} {_f(side)}"'
      f'{dims} font-family="DejaVu Sans, Arial, Helvetica, sans-serif">')
    w(f'<rect class="wood" x="0" y="0" width="{_f(side)}" height="{_f(side)}" '
      f'fill="{col["wood"]}"/>')
    lo, hi = m, m + (n - 1) * CELL
    for i in range(n):
        t = m + i * CELL
        sw = 2 if i in (0, n - 1) else 1
        w(f'<line class="grid" x1="{_f(lo)}" y1="{_f(t)}" x2="{_f(hi)}" y2="{_f(t)}" '
          f'stroke="{col["line"]}" stroke-width="{sw}" stroke-linecap="square"/>')
        w(f'<line class="grid" x1="{_f(t)}" y1="{_f(lo)}" x2="{_f(t)}" y2="{_f(hi)}" '
          f'stroke="{col["line"]}" stroke-width="{sw}" stroke-linecap="square"/>')
    for r, c in star_points(n):
        x, y = xy(r, c)
        w(f'<circle class="hoshi" cx="{_f(x)}" cy="{_f(y)}" r="{CELL * 0.1:.0f}" '
          f'fill="{col["line"]}"/>')
    if coordinates:
        fs = CELL * 0.36
        for c in range(n):
            x, _ = xy(0, c)
            for y in (CELL * 0.45, side - CELL * 0.45):
                w(f'<text class="coord col" x="{_f(x)}" y="{_f(y + fs * 0.36)}" '
                  f'font-size="{_f(fs)}" text-anchor="middle" '
                  f'fill="{col["text"]}">{COLUMNS[c]}</text>')
        for r in range(n):
            _, y = xy(r, 0)
            for x in (CELL * 0.45, side - CELL * 0.45):
                w(f'<text class="coord row" x="{_f(x)}" y="{_f(y + fs * 0.36)}" '
                  f'font-size="{_f(fs)}" text-anchor="middle" fill="{col["text"]}">{n - r}</text>')
    rad = CELL * 0.47
    for r in range(n):
        for c in range(n):
            v = int(grid[r, c])
            if v not in (BLACK, WHITE):
                continue
            name = "black" if v == BLACK else "white"
            fill, line = col[name]
            x, y = xy(r, c)
            w(f'<circle class="stone {name}" cx="{_f(x)}" cy="{_f(y)}" r="{_f(rad)}" fill="{fill}" '
              f'stroke="{line}" stroke-width="1.2"/>')
    if lm is not None:
        r, c = lm
        x, y = xy(r, c)
        v = int(grid[r, c])
        ring = col["white"][0] if v == BLACK else col["black"][0]
        if v == EMPTY:  # a last move whose stone was captured since: mark the point
            ring = "#c0392b"
        w(f'<circle class="last-move" cx="{_f(x)}" cy="{_f(y)}" r="{_f(CELL * 0.22)}" fill="none" '
          f'stroke="{ring}" stroke-width="2.5"/>')
    w("</svg>")
    return "\n".join(out) + "\n"
