"""SVG drawings of backgammon positions (text built by hand, as python-chess's ``chess.svg``).

:func:`board_svg` draws a board26 (the side on roll's view, :mod:`playout.backgammon.board`)
the way gnubg and eXtreme Gammon show a position: the side on roll at the bottom moving
counter-clockwise, its home board at the bottom right (``home="left"`` mirrors it), the
points numbered from the side on roll (1..12 along the bottom right to left, 13..24 along the
top left to right; gnubg 1.07's ``show board`` and :func:`playout.backgammon.ids.ascii_board`
number them the same way), the borne-off checkers in the tray beside the home boards, the cube
on the other side (at the middle when centred, showing 64 as both programs do, otherwise on
its owner's side), the dice on the roller's half of the board, and each side's name, pip count
and checkers off in the bands above and below.  A point holds five checkers drawn; a taller
stack is drawn as five with the count written on the fifth (gnubg and XG do the same).
The bar holds each side's checkers in its own half, from the middle outwards (four drawn,
the fourth carrying the count of more); this placement is our choice, not checked against
gnubg's GUI.

Every checker is one ``<circle class="checker ...">`` (``class="checker bar ..."`` on the bar),
every borne-off checker one ``<rect class="off ...">``, each die ``<g class="die">``: tests and
style sheets can count and restyle them.  The side classes are ``on-roll`` and ``opponent``.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

#: geometry in SVG user units (the viewBox); ``size`` scales the whole picture
R = 20  # checker radius; a point is five checkers long
PW = 2 * R + 4  # point width
PH = 10 * R  # point length
MID = 56  # band between the two halves (the dice lie here)
BAR = 48
TRAY = 56  # the borne-off tray and the cube's column
NUM_H = 22  # point numbers
CAP_H = 28  # names, pips, checkers off
WIDTH = 2 * TRAY + 12 * PW + BAR
HEIGHT = 2 * (CAP_H + NUM_H + PH) + MID
Y_TOP = CAP_H + NUM_H  # top edge of the playing surface
Y_BOT = Y_TOP + 2 * PH + MID  # bottom edge
Y_MID = (Y_TOP + Y_BOT) / 2

DEFAULT_COLORS = {
    "frame": "#5c3a1e", "felt": "#1f5f3a", "point_dark": "#9b3324", "point_light": "#e6d5ad",
    "bar": "#4a2e17", "tray": "#3d2614", "text": "#f3e9d2",
    "on-roll": ("#f6f3ea", "#2b2b2b"),  # checker fill, outline/label
    "opponent": ("#262626", "#d9d9d9"),
    "cube": ("#fbfbf6", "#111111"),
}

_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
         5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _counts(b: np.ndarray) -> tuple[int, int, int, int]:
    """(mover's pips, opponent's pips, mover's off, opponent's off) of board26 ``b``; a
    checker on the bar counts 25 pips (the same as :func:`playout.backgammon.board.pip_counts`,
    in Python so that drawing compiles nothing)."""
    pts = b[1:25]
    idx = np.arange(1, 25)
    mp = int(25 * b[25] + (np.where(pts > 0, pts, 0) * idx).sum())
    op = int(25 * b[0] + (np.where(pts < 0, -pts, 0) * (25 - idx)).sum())
    mo = 15 - int(b[25] + np.where(pts > 0, pts, 0).sum())
    oo = 15 - int(b[0] + np.where(pts < 0, -pts, 0).sum())
    return mp, op, mo, oo


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def board_svg(board, *, dice=None, cube_value: int = 1, cube_owner: str = "centered",
              names=("X", "O"), size: int | None = None, flipped: bool = False,
              home: str = "right", numbers: bool = True, pips: bool = True,
              match_length: int = 0, score=(0, 0), colors: dict | None = None) -> str:
    """SVG text (one ``<svg>`` element, UTF-8, no XML declaration) of a backgammon position.

    ``board``: board26 (26 ints from the side on roll: ``[1..24]`` points, positive = its
    checkers, ``[25]`` its bar, ``[0]`` the opponent's bar; :mod:`playout.backgammon.board`).
    ``dice``: ``(d1, d2)`` of the side on roll, or None (not rolled).  ``cube_value`` 1, 2, 4,
    ...; ``cube_owner`` ``"centered"``, ``"player"`` (the side on roll) or ``"opponent"``.
    ``names``: (side on roll, opponent).  ``size``: width in pixels (height in proportion,
    ``WIDTH x HEIGHT`` = 688 x 556); None leaves the size to the viewer.  ``flipped``: draw
    the opponent at the bottom (the side on roll at the top; numbers still from the side on
    roll, as gnubg numbers them).  ``home``: ``"right"`` (gnubg/XG default) or ``"left"``
    (mirrored).  ``numbers``/``pips``: draw the point numbers / the pip counts.
    ``match_length`` > 0 adds the score (``score`` = (side on roll, opponent)) to the names.
    ``colors``: entries of :data:`DEFAULT_COLORS` to override.

    Raises ValueError naming the argument for a board that is not 26 values, more than 15
    checkers a side, dice outside 1..6, or an unknown ``cube_owner``/``home``.
    """
    b = np.asarray(board, dtype=np.int64).reshape(-1)
    if b.shape != (26,):
        raise ValueError(f"board: {b.size} values (a board26 has 26)")
    if b[0] < 0 or b[25] < 0:
        raise ValueError("board: a bar count is negative")
    mp, op, mo, oo = _counts(b)
    if mo < 0 or oo < 0:
        raise ValueError("board: more than 15 checkers for a side")
    if cube_owner not in ("centered", "player", "opponent"):
        raise ValueError(f"cube_owner: {cube_owner!r} (centered, player or opponent)")
    if home not in ("right", "left"):
        raise ValueError(f"home: {home!r} (right or left)")
    if dice is not None:
        dice = tuple(int(d) for d in dice)
        if len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
            raise ValueError(f"dice: {dice!r} (two numbers 1..6)")
    col = dict(DEFAULT_COLORS)
    col.update(colors or {})

    # the drawing is made from the bottom side's view: B[1..24] > 0 are the bottom checkers
    roll_side, opp_side = "on-roll", "opponent"
    if flipped:
        B = np.empty(26, np.int64)
        B[1:25] = -b[24:0:-1]
        B[0], B[25] = b[25], b[0]
        bottom, top = opp_side, roll_side
    else:
        B = b
        bottom, top = roll_side, opp_side
    label = (lambda p: 25 - p) if flipped else (lambda p: p)
    mirror = home == "left"

    def x_col(c: int) -> float:
        """Centre x of display column c (0..11 left to right, home on the right)."""
        if mirror:
            c = 11 - c
        return TRAY + c * PW + PW / 2 + (BAR if c >= 6 else 0)

    x_bar = TRAY + 6 * PW + BAR / 2
    x_off = WIDTH - TRAY / 2 if not mirror else TRAY / 2
    x_cube = TRAY / 2 if not mirror else WIDTH - TRAY / 2

    def pos_of(p: int) -> tuple[int, bool]:
        """(display column, on the top row) of bottom-view point p."""
        return (p - 13, True) if p >= 13 else (12 - p, False)

    out: list[str] = []
    w = out.append
    dims = f' width="{size}" height="{round(size * HEIGHT / WIDTH)}"' if size else ""
    w(f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {WIDTH} {HEIGHT}"'
      f'{dims} font-family="DejaVu Sans, Arial, Helvetica, sans-serif">')
    w(f'<rect class="frame" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="{col["frame"]}"/>')
    w(f'<rect class="felt" x="{TRAY}" y="{Y_TOP}" width="{12 * PW + BAR}" height="{2 * PH + MID}" '
      f'fill="{col["felt"]}"/>')
    for xt in (TRAY / 2, WIDTH - TRAY / 2):
        w(f'<rect class="tray" x="{_fmt(xt - TRAY / 2 + 4)}" y="{Y_TOP}" width="{TRAY - 8}" '
          f'height="{2 * PH + MID}" fill="{col["tray"]}"/>')
    w(f'<rect class="bar" x="{_fmt(x_bar - BAR / 2)}" y="{Y_TOP}" width="{BAR}" '
      f'height="{2 * PH + MID}" fill="{col["bar"]}"/>')

    # points and their numbers
    for p in range(1, 25):
        c, is_top = pos_of(p)
        xc = x_col(c)
        dark = (c % 2 == 0) == is_top
        fill = col["point_dark"] if dark else col["point_light"]
        if is_top:
            pts = (xc - PW / 2, Y_TOP), (xc + PW / 2, Y_TOP), (xc, Y_TOP + PH - 6)
        else:
            pts = (xc - PW / 2, Y_BOT), (xc + PW / 2, Y_BOT), (xc, Y_BOT - PH + 6)
        w(f'<polygon class="point" points="{" ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts)}" '
          f'fill="{fill}"/>')
        if numbers:
            yt = Y_TOP - 6 if is_top else Y_BOT + 16
            w(f'<text class="point-number" x="{_fmt(xc)}" y="{yt}" font-size="13" '
              f'text-anchor="middle" fill="{col["text"]}">{label(p)}</text>')

    def checker(x: float, y: float, side: str, cls: str = "checker", count: int | None = None):
        fill, line = col[side]
        w(f'<circle class="{cls} {side}" cx="{_fmt(x)}" cy="{_fmt(y)}" r="{R - 1}" fill="{fill}" '
          f'stroke="{line}" stroke-width="1.5"/>')
        if count is not None:
            w(f'<text class="count" x="{_fmt(x)}" y="{_fmt(y + 6)}" font-size="17" '
              f'font-weight="bold" text-anchor="middle" fill="{line}">{count}</text>')

    # checkers on the points: five drawn, the fifth carries the count of a taller stack
    for p in range(1, 25):
        n = int(B[p])
        if n == 0:
            continue
        side = bottom if n > 0 else top
        n = abs(n)
        c, is_top = pos_of(p)
        xc = x_col(c)
        for k in range(min(n, 5)):
            y = Y_TOP + R + 2 * R * k if is_top else Y_BOT - R - 2 * R * k
            checker(xc, y, side, count=n if (n > 5 and k == 4) else None)

    # the bar: each side's checkers in its own half, from the middle outwards
    for n, side, sign in ((int(B[25]), bottom, 1), (int(B[0]), top, -1)):
        for k in range(min(n, 4)):
            y = Y_MID + sign * (MID / 2 + R + 2 * R * k)
            checker(x_bar, y, side, "checker bar", count=n if (n > 4 and k == 3) else None)

    # borne off: slabs in the tray beside the home boards, each side on its own half
    off_b, off_t = (mo, oo) if not flipped else (oo, mo)
    for n, side, is_top in ((off_b, bottom, False), (off_t, top, True)):
        fill, line = col[side]
        for k in range(n):
            y = Y_TOP + 2 + 13 * k if is_top else Y_BOT - 2 - 13 * (k + 1)
            w(f'<rect class="off {side}" x="{_fmt(x_off - R)}" y="{_fmt(y)}" width="{2 * R}" '
              f'height="11" rx="2" fill="{fill}" stroke="{line}" stroke-width="1"/>')

    # the cube: centred at the middle showing 64, else on its owner's side
    fill, line = col["cube"]
    owner_bottom = (cube_owner == "player") != flipped
    if cube_owner == "centered":
        yc = Y_MID
    else:
        yc = Y_BOT - R - 6 if owner_bottom else Y_TOP + R + 6
    shown = 64 if cube_owner == "centered" and cube_value == 1 else int(cube_value)
    w(f'<g class="cube" data-value="{int(cube_value)}" data-owner="{cube_owner}">'
      f'<rect x="{_fmt(x_cube - R)}" y="{_fmt(yc - R)}" width="{2 * R}" height="{2 * R}" rx="5" '
      f'fill="{fill}" stroke="{line}" stroke-width="1.5"/>'
      f'<text x="{_fmt(x_cube)}" y="{_fmt(yc + 6.5)}" font-size="{18 if shown < 100 else 14}" '
      f'font-weight="bold" text-anchor="middle" fill="{line}">{shown}</text></g>')

    # the dice, on the roller's half (the right half for the side at the bottom)
    if dice is not None:
        fill, line = col[roll_side]
        roller_right = (not flipped) != mirror
        xq = TRAY + (6 * PW + BAR + 3 * PW if roller_right else 3 * PW)
        s = 2 * R
        for i, d in enumerate(dice):
            x0, y0 = xq + (i - 1) * (s + 8) + 4, Y_MID - s / 2
            w(f'<g class="die" data-value="{d}"><rect x="{_fmt(x0)}" y="{_fmt(y0)}" '
              f'width="{s}" height="{s}" rx="6" fill="{fill}" stroke="{line}" stroke-width="1.5"/>')
            for dx, dy in _PIPS[d]:
                w(f'<circle class="pip" cx="{_fmt(x0 + s / 2 + dx * s * 0.27)}" '
                  f'cy="{_fmt(y0 + s / 2 + dy * s * 0.27)}" r="3.6" fill="{line}"/>')
            w("</g>")

    # names, score, pips and checkers off; the side on roll is marked
    def caption(side: str, y: float) -> None:
        on_roll = side == roll_side
        name = names[0] if on_roll else names[1]
        parts = [str(name)]
        if match_length:
            parts.append(f"score {score[0] if on_roll else score[1]} (match to {match_length})")
        if pips:
            parts.append(f"pips {mp if on_roll else op}")
        parts.append(f"off {mo if on_roll else oo}")
        if on_roll:
            parts.append("on roll" + (f" {dice[0]}{dice[1]}" if dice else ""))
        fill, line = col[side]
        w(f'<circle class="swatch {side}" cx="{TRAY / 2:.0f}" cy="{_fmt(y - 5)}" r="8" '
          f'fill="{fill}" stroke="{line}" stroke-width="1.5"/>')
        text = escape(" \u00b7 ".join(parts))
        w(f'<text class="caption {side}" x="{TRAY}" y="{_fmt(y)}" font-size="15" '
          f'fill="{col["text"]}">{text}</text>')

    caption(top, CAP_H - 9)
    caption(bottom, HEIGHT - 9)
    w("</svg>")
    return "\n".join(out) + "\n"


def position_svg(pos, **kw) -> str:
    """:func:`board_svg` of a :class:`playout.backgammon.ids.Position` (its board, dice, cube,
    match length and score); keyword arguments override."""
    args = dict(dice=pos.dice, cube_value=pos.cube_value, cube_owner=pos.cube_owner,
                match_length=pos.match_length, score=pos.score)
    args.update(kw)
    return board_svg(pos.board, **args)
