"""Standard play notation, as gnubg and XG write it: ``8/5 6/5``, ``24/18*/13``, ``13/11(2)``.

A play is a board before and after plus the dice; the single-die steps that turn one into
the other are found by search with the rules of :mod:`playout.backgammon.moves`, then written
the way backgammon players read them (gnubg's ``FormatMove``):

* one part per checker, ``from/to`` with points in the mover's numbering (24 .. 1), ``bar``
  and ``off``; a checker that moves on from where it landed is one part (``24/13``), its
  landing points shown only where it hit (``24/18*/13``); ``*`` marks a hit;
* identical parts are counted: ``13/11(2)``;
* parts from the highest point down, the bar first.

:func:`parse_play` reads such text back (and gnubg's ``.mat`` single-die steps, ``25/21``,
``6/0``), giving the board after the play; :class:`PlayError` says what is wrong in one line.

>>> import numpy as np
>>> from playout.backgammon.board import STARTING_BOARD
>>> after = STARTING_BOARD.copy(); after[8] -= 1; after[6] -= 1; after[5] += 2
>>> play_text(STARTING_BOARD, after, (3, 1))
'8/5 6/5'
"""

from __future__ import annotations

import re

import numpy as np

from playout.backgammon.board import apply_steps
from playout.backgammon.moves import _can_move, _do, _undo, legal_moves


def play_steps(before, after, dice) -> list[tuple[int, int, bool]] | None:
    """Single-die steps ``(from, to, hit)`` turning ``before`` into ``after``, or ``None``.

    ``from`` 25 = the bar, ``to`` 0 = borne off.  ``[]`` when the boards are equal.
    """
    w = np.array(before, dtype=np.int8)
    goal = np.asarray(after, dtype=np.int8)
    d1, d2 = int(dice[0]), int(dice[1])
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    path: list[tuple[int, int, bool]] = []

    def search(left: list[int]) -> bool:
        if np.array_equal(w, goal):
            return True
        if not left:
            return False
        die = left[0]
        for src in range(25, 0, -1):
            if _can_move(w, src, die):
                hit = _do(w, src, die)
                path.append((src, max(src - die, 0), bool(hit)))
                if search(left[1:]):
                    return True
                path.pop()
                _undo(w, src, die, hit)
        return False

    for order in orders:
        w[:] = np.asarray(before, dtype=np.int8)
        path.clear()
        if search(order):
            return path
    return None


def _point(p: int) -> str:
    return "bar" if p == 25 else ("off" if p == 0 else str(p))


def play_text(before, after, dice) -> str:
    """The play from ``before`` to ``after`` with ``dice`` in standard notation (see above).

    ``"(no play)"`` if nothing moved; ``ValueError`` if ``after`` is not reachable with the dice.
    """
    steps = play_steps(before, after, dice)
    if steps is None:
        raise ValueError(f"dice: {dice[0]}{dice[1]} cannot turn this board into the other")
    if not steps:
        return "(no play)"
    parts: list[list[tuple[int, bool]]] = []  # per checker: [(point, hit on arrival), ...]
    for src, dst, hit in steps:
        for part in parts:  # the checker that landed on src moves on
            if part[-1][0] == src and src != 0:
                part.append((dst, hit))
                break
        else:
            parts.append([(src, False), (dst, hit)])
    texts = []
    for part in parts:
        shown = [part[0]] + [q for q in part[1:-1] if q[1]] + [part[-1]]
        texts.append((part[0][0], "/".join(_point(p) + ("*" if h else "") for p, h in shown)))
    texts.sort(key=lambda t: -t[0])
    out: list[str] = []
    i = 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j][1] == texts[i][1]:
            j += 1
        out.append(texts[i][1] + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


# -- reading a play -------------------------------------------------------------------------------

#: Texts that mean "no play" (gnubg's ``.mat`` writes the dice alone; ``(no play)`` is ours).
NO_PLAY = ("", "(no play)", "no play", "cannot move")

_POINT = re.compile(r"^(bar|b|off|o|\d+)(\*?)$")
_COUNT = re.compile(r"^(.*)\((\d+)\)$")


class PlayError(ValueError):
    """A play text that cannot be played; the message is one line.

    ``kind``: ``"token"`` (a part that is not ``from/to``; ``token`` names it), ``"checkers"``
    (more checkers moved from ``point`` than the mover has there, 25 = the bar), ``"dice"``
    (dice not 1..6, or more pips than the roll gives; ``why`` says which), ``"illegal"`` (not
    one of the legal plays), ``"ambiguous"`` (several legal plays fit; ``options`` lists them in
    standard notation), ``"no-play"`` (no play given but the roll can be played).
    """

    def __init__(self, kind: str, message: str, *, token: str = "", point: int = 0,
                 why: str = "", options: tuple[str, ...] = ()):
        super().__init__(message)
        self.kind, self.token, self.point, self.why, self.options = kind, token, point, why, options


def _read_point(tok: str, part: str) -> tuple[int, bool]:
    m = _POINT.match(tok)
    if not m:
        raise PlayError("token", f"{part!r}: {tok!r} is not a point (1..24, bar or off)", token=part)
    name, star = m.groups()
    if name in ("bar", "b"):
        return 25, bool(star)
    if name in ("off", "o"):
        return 0, bool(star)
    p = int(name)
    if p > 25:
        raise PlayError("token", f"{part!r}: point {p} does not exist (1..24, bar or off)",
                        token=part)
    return p, bool(star)


def read_parts(text: str) -> tuple[list[list[int]], set[int]]:
    """The parts of a play text: (one point list per checker moved, ``(n)`` expanded; the points
    marked ``*``).

    Grammar (gnubg's ``FormatMove`` and its ``.mat`` export, XG, and what people type): parts
    separated by blanks or commas, case ignored; a part is ``from/to`` or ``from/via*/.../to``,
    optionally ``(n)`` for ``n`` = 1..4 identical checkers; a point is 1..24, ``bar`` / ``b`` /
    ``25`` (the bar, only first), ``off`` / ``o`` / ``0`` (borne off, only last); points fall
    strictly along a part (24 towards 1); ``*`` after a landing point marks a hit there.
    Raises :class:`PlayError` (``kind="token"``) naming the part.
    """
    parts: list[list[int]] = []
    stars: set[int] = set()
    tokens = text.replace(",", " ").lower().split()
    if not tokens:
        raise PlayError("token", "empty play")
    for part in tokens:
        count = 1
        m = _COUNT.match(part)
        if m:
            part, count = m.group(1), int(m.group(2))
            if not 1 <= count <= 4:
                raise PlayError("token", f"{part}({count}): a part is repeated 1..4 times",
                                token=part)
        pieces = part.split("/")
        if len(pieces) < 2:
            raise PlayError("token", f"{part!r}: write a move as from/to, e.g. 13/8 or bar/22",
                            token=part)
        pts = [_read_point(t, part) for t in pieces]
        for i, (p, star) in enumerate(pts):
            if i == 0 and (star or p == 0):
                raise PlayError("token", f"{part!r}: a move starts on a point or the bar", token=part)
            if i > 0 and p == 25:
                raise PlayError("token", f"{part!r}: a checker cannot move to the bar", token=part)
            if 0 < i < len(pts) - 1 and p == 0:
                raise PlayError("token", f"{part!r}: 'off' ends a move", token=part)
            if i > 0 and p >= pts[i - 1][0]:
                raise PlayError("token", f"{part!r}: your checkers move down, from 24 towards 1 "
                                "and off", token=part)
            if star:
                if p == 0:
                    raise PlayError("token", f"{part!r}: bearing off hits nothing", token=part)
                stars.add(p)
        parts += [[p for p, _ in pts]] * count
    return parts, stars


def _mover(board) -> bytes:
    """The mover's checkers as a key: [1..24] on the points, [25] on the bar (off is implied)."""
    b = np.asarray(board, dtype=np.int8)
    return np.where(b[1:] > 0, b[1:], 0).astype(np.int8).tobytes()


def _hits(before, after) -> set[int]:
    """Points where an opponent blot was hit (it is gone after the play)."""
    return {p for p in range(1, 25) if before[p] == -1 and after[p] >= 0}


def parse_play(board, dice, text: str, *, as_written: bool = False) -> np.ndarray:
    """The board after the play ``text`` (grammar: :func:`read_parts`) from ``board`` with ``dice``.

    ``board``: board26 from the mover's side; ``dice``: ``(d1, d2)``; returns a new
    ``np.int8[26]``, always one of :func:`playout.backgammon.moves.legal_moves` (never guessed).
    ``text`` in :data:`NO_PLAY` is the empty play, legal only when the roll cannot be played.

    The play is identified by where the mover's checkers end up; where several legal plays
    end so and differ only in hits, the points marked ``*`` choose (gnubg writes every hit, so
    ``24/13`` with 6-5 is the play that hits nothing on the way).  With ``as_written`` (match
    files, gnubg's analysis steps, which may leave hits unmarked) the steps are first replayed
    as written, in order, a checker landing on a blot hitting it
    (:func:`playout.backgammon.board.apply_steps`), and that board is taken if it is legal.

    Raises :class:`PlayError` (one line; see its ``kind``): a part that is not ``from/to``,
    more checkers moved from a point than are there, dice not 1..6 or more pips than they
    give, a play that is not legal with the dice, one that several legal plays fit.
    """
    d1, d2 = int(dice[0]), int(dice[1])
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise PlayError("dice", f"dice {d1}-{d2}: each die is 1..6", why="each die is 1..6")
    d = f"{d1}{d2}"
    before = np.asarray(board, dtype=np.int8)
    results = legal_moves(before, d1, d2)
    t = text.strip()
    if t.lower() in NO_PLAY:
        if len(results) == 1 and np.array_equal(results[0], before):
            return before.copy()
        raise PlayError("no-play", f"no play recorded but {d} can be played")
    parts, stars = read_parts(t)
    counts = np.where(before > 0, before, 0).astype(np.int64)
    counts[0] = 0
    for pts in parts:
        counts[pts[0]] -= 1
        counts[pts[-1]] += 1
    for p in range(25, 0, -1):
        if counts[p] < 0:
            where = "the bar" if p == 25 else f"point {p}"
            raise PlayError("checkers", f"{t!r}: more checkers move from {where} than the "
                            "mover has there", point=p)
    # each checker needs at least its distance (a bear-off: to point 0) in pips
    need = sum(pts[0] - pts[-1] for pts in parts)
    give = 4 * d1 if d1 == d2 else d1 + d2
    if need > give:
        why = f"it moves {need} pips, {d1}-{d2} gives {give}"
        raise PlayError("dice", f"illegal play {t!r} with {d}: {why}", why=why)
    if as_written:
        sim = apply_steps(before, [(a, b) for pts in parts for a, b in zip(pts, pts[1:])])
        if sim is not None and any(np.array_equal(sim, r) for r in results):
            return sim
    want = np.clip(counts[1:], 0, None).astype(np.int8).tobytes()
    same = [r for r in results if _mover(r) == want]
    if not same:
        legal = "" if len(results) > 3 else " (legal: " + ", ".join(
            play_text(before, r, dice) for r in results) + ")"
        raise PlayError("illegal", f"illegal play {t!r} with {d}{legal}")
    if len(same) > 1:
        exact = [r for r in same if _hits(before, r) == stars]
        if len(exact) != 1:
            options = tuple(play_text(before, r, dice) for r in same)
            raise PlayError("ambiguous", f"play {t!r} with {d} is ambiguous: "
                            f"{' or '.join(options)} (mark the hits with *)", options=options)
        same = exact
    return same[0].copy()
