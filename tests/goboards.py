"""Go test positions drawn as text (shared by the playout-rule tests)."""

from __future__ import annotations

from playout.go.board import WHITE, Board, gtp_to_point


def after_white(rows: str, last: str) -> Board:
    """The 9x9 board of ``rows`` (``X``, ``O``, ``.``; row 9 first) after White's ``last``
    (drawn as ``O``), so that ``last`` is the previous move; Black to move."""
    lines = [ln.replace(" ", "") for ln in rows.strip().splitlines()]
    r, k = 9 - int(last[1:]), "ABCDEFGHJ".index(last[0])
    assert lines[r][k] == "O"
    lines[r] = lines[r][:k] + "." + lines[r][k + 1:]
    b = Board.from_ascii("\n".join(lines), to_move=WHITE)
    b.play(gtp_to_point(last, 9))
    return b
