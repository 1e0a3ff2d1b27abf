"""Standard play notation, as gnubg and XG write it: ``8/5 6/5``, ``24/18*/13``, ``13/11(2)``.

A play is a board before and after plus the dice; the single-die steps that turn one into
the other are found by search with the rules of :mod:`playout.backgammon.moves`, then written
the way backgammon players read them (gnubg's ``FormatMove``):

* one part per checker, ``from/to`` with points in the mover's numbering (24 .. 1), ``bar``
  and ``off``; a checker that moves on from where it landed is one part (``24/13``), its
  landing points shown only where it hit (``24/18*/13``); ``*`` marks a hit;
* identical parts are counted: ``13/11(2)``;
* parts from the highest point down, the bar first.

>>> import numpy as np
>>> from playout.backgammon.board import STARTING_BOARD
>>> after = STARTING_BOARD.copy(); after[8] -= 1; after[6] -= 1; after[5] += 2
>>> play_text(STARTING_BOARD, after, (3, 1))
'8/5 6/5'
"""

from __future__ import annotations

import numpy as np

from playout.backgammon.moves import _can_move, _do, _undo


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
