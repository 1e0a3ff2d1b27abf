"""Handicap stone placement: GTP ``fixed_handicap`` (GTP v2 spec section 4.1.1's star-point
layout) and ``place_free_handicap`` (the engine's own choice, star points first)."""

from __future__ import annotations

import numpy as np

from playout.go.board import COLUMNS


def max_fixed_handicap(size: int) -> int:
    """Most stones ``fixed_handicap`` accepts on a ``size`` board (GTP v2 spec, 4.1.1):
    none below 7x7, 4 on 7x7 and even sizes, 9 on odd sizes from 9x9 (the spec goes to 25x25)."""
    if size < 7 or size > 25:
        return 0
    return 4 if size == 7 or size % 2 == 0 else 9


def _star_layout(n: int, size: int, line: int) -> list[tuple[int, int]]:
    """The GTP v2 (4.1.1) order of ``n`` <= 9 handicap points as 0-based (column, row from the
    bottom), corners on ``line`` (1 = edge): lower left, upper right, upper left, lower right;
    then the centre for 5 and 7; the two side points of the middle row for 6 and 7; the
    middle row and middle column side points for 8 and 9, plus the centre for 9."""
    lo, hi, mid = line - 1, size - line, size // 2
    pts = [(lo, lo), (hi, hi), (lo, hi), (hi, lo)]
    if n >= 6:
        pts += [(lo, mid), (hi, mid)]
    if n >= 8:
        pts += [(mid, lo), (mid, hi)]
    if n % 2 == 1 and n >= 5:
        pts.append((mid, mid))
    return pts[:n]


def _handicap_line(size: int) -> int:
    """Line of the corner handicap points: the 4th from 13x13, the 3rd from 7x7 (GTP v2 4.1.1);
    the 2nd on the smaller boards, which the spec leaves to the engine."""
    return 4 if size >= 13 else 3 if size >= 7 else 2


def fixed_handicap_vertices(n: int, size: int) -> list[str]:
    """GTP vertices of the fixed handicap of ``n`` stones on a ``size`` board, in the spec's
    order (19x19: D4 Q16 D16 Q4, then K10 / D10 Q10 / ... up to K4 K16 and K10 for 9; 9x9:
    C3 G7 C7 G3 ...).  Raises ValueError if GTP v2 defines no placement for ``n`` on ``size``."""
    if not 2 <= n <= max_fixed_handicap(size):
        raise ValueError(f"no fixed handicap of {n} stones on {size}x{size}")
    return [f"{COLUMNS[x]}{y + 1}" for x, y in _star_layout(n, size, _handicap_line(size))]


def free_handicap_vertices(n: int, size: int) -> list[str]:
    """Our choice for ``place_free_handicap``: the fixed placement where GTP defines one
    (else the same star layout on the 2nd line for boards under 7x7, up to 4 or 9 points),
    then each further stone on the empty point farthest (Euclidean) from every stone placed,
    off the first line while there is room (from 7x7), ties to the point nearest the centre,
    then in row order from the top.  ``2 <= n <
    size * size`` (ValueError otherwise)."""
    if not 2 <= n < size * size:
        raise ValueError(f"cannot place {n} handicap stones on {size}x{size}")
    star_max = 4 if size % 2 == 0 or size == 7 else 9
    placed = _star_layout(min(n, star_max), size, _handicap_line(size))
    xs, ys = np.meshgrid(np.arange(size), np.arange(size)[::-1])  # row order from the top
    xs, ys = xs.ravel(), ys.ravel()
    free = np.ones(xs.size, bool)
    d2 = np.full(xs.size, np.inf)
    for x, y in placed:
        free[(xs == x) & (ys == y)] = False
        d2 = np.minimum(d2, (xs - x) ** 2 + (ys - y) ** 2)
    centre = ((xs - (size - 1) / 2) ** 2 + (ys - (size - 1) / 2) ** 2)
    edge = (size >= 7) & ((xs == 0) | (ys == 0) | (xs == size - 1) | (ys == size - 1))
    while len(placed) < n:  # the first line only once the rest is full (boards from 7x7)
        order = np.lexsort((np.arange(xs.size), centre, -d2, edge, ~free))
        i = int(order[0])
        placed.append((int(xs[i]), int(ys[i])))
        free[i] = False
        d2 = np.minimum(d2, (xs - xs[i]) ** 2 + (ys - ys[i]) ** 2)
    return [f"{COLUMNS[x]}{y + 1}" for x, y in placed]
