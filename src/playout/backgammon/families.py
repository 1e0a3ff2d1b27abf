"""Position families of Open Sage's PR benchmarks, as small pure functions of a board26.

Definitions follow ``../shared/docs/backgammon.md`` ("Families (Open Sage's rules, in words)").
Every classifier looks at the board from the positive side (the *owner* of the feature: the
back-game player, the escaper, the prime owner); :func:`in_family` tries both sides.
Numbering from the positive side: its home board is points 1..6, the opponent's home board
is points 19..24 (the opponent's a-point is our point ``25 - a``), the opponent's half is
13..24; ``board[25]`` is our bar and ``board[0]`` the opponent's.

* Back-game ``a-b`` (ten types, 1 <= a < b <= 5): we hold exactly the opponent's a- and
  b-points (anchors: 2+ checkers) in its home board and trail in the race (our pip count is
  higher).  The family ``backgame`` (any back-game) also admits a pair with the 6-point and
  three or more anchors: bgsage's back-game rollout positions include those.
* Massive back-game: 3+ anchors in the opponent's home board, or 2 anchors with 7+ checkers
  back (on those home-board points or on the bar).
* Containment (from the escaper): 1 to 3 of our checkers are back (on the bar or in the
  opponent's home board) and must come all the way round; the opponent (the container) has
  lost the race (its pip count is higher) and keeps checkers in our half of the board or
  outfield (points 1..18: anchors, blots, a broken prime) to hit again.
* Snake: a prime of 4+ consecutive points with 2+ checkers each, entirely in the opponent's
  half (13..24), traps a single opponent straggler (on its bar or in our home board, 1..6)
  while at least 10 of the opponent's other checkers are already home (19..24); the rest may
  be anywhere else.  bgsage's 74 snake starting positions include three with two stragglers
  (two on the bar, or bar + home board) and many with 1-3 opponent checkers in the outfield,
  so the words are read as "one or two stragglers, 10+ home" (``tests/test_bg_families.py``).
* Prime (from the primer): a run of 4+ consecutive points with 2+ checkers each, anywhere on
  1..24, with at least one opponent checker behind it (on its bar or on a point below the
  run's lowest point) that must still pass it.  Not one of Open Sage's families: the rule of
  the cube benchmark's worst kind (session 35, ``docs/results.md``: 840 of 2,057 close cube
  decisions, cube PR 4.12 against 0.92 for other contact).
"""

from __future__ import annotations

from typing import Callable, Iterable

BACKGAME_PAIRS = [(a, b) for a in range(1, 6) for b in range(a + 1, 6)]  # ten types


def _b(board: Iterable[int]) -> list[int]:
    return [int(x) for x in board]


def pips(board) -> tuple[int, int]:
    """(ours, the opponent's) pip counts; bar checkers count 25."""
    b = _b(board)
    mine = 25 * b[25] + sum(p * b[p] for p in range(1, 25) if b[p] > 0)
    theirs = 25 * b[0] + sum((25 - p) * -b[p] for p in range(1, 25) if b[p] < 0)
    return mine, theirs


def home_anchors(board) -> list[int]:
    """The opponent's home-board points we hold (2+ checkers), in the opponent's numbering."""
    b = _b(board)
    return sorted(25 - p for p in range(19, 25) if b[p] >= 2)


def backgame_type(board) -> str | None:
    """``"a-b"`` when the position is a back-game of one of the ten types, else ``None``."""
    anchors = home_anchors(board)
    if len(anchors) != 2 or anchors[1] > 5:
        return None
    mine, theirs = pips(board)
    if mine <= theirs:
        return None
    return f"{anchors[0]}-{anchors[1]}"


def is_backgame(board, a: int | None = None, b: int | None = None) -> bool:
    """Back-game of type ``a-b``; with no pair given, any back-game (2+ home-board anchors,
    trailing in the race: the ten types, pairs with the 6-point, massive ones)."""
    if a is not None:
        return backgame_type(board) == f"{min(a, b)}-{max(a, b)}"
    mine, theirs = pips(board)
    return len(home_anchors(board)) >= 2 and mine > theirs


def is_massive_backgame(board) -> bool:
    b = _b(board)
    anchors = home_anchors(board)
    back = b[25] + sum(b[p] for p in range(19, 25) if b[p] > 0)
    return len(anchors) >= 3 or (len(anchors) == 2 and back >= 7)


def is_containment(board) -> bool:
    b = _b(board)
    back = b[25] + sum(b[p] for p in range(19, 25) if b[p] > 0)
    if not 1 <= back <= 3:
        return False
    mine, theirs = pips(board)
    if theirs <= mine:
        return False
    return any(b[p] < 0 for p in range(1, 19))


def longest_prime(board, lo: int = 13, hi: int = 24) -> tuple[int, int]:
    """(length, lowest point) of the longest run of our 2+ points within ``lo..hi``."""
    b = _b(board)
    best, start, run = (0, 0), 0, 0
    for p in range(lo, hi + 1):
        if b[p] >= 2:
            run += 1
            if run == 1:
                start = p
            if run > best[0]:
                best = (run, start)
        else:
            run = 0
    return best


def is_snake(board) -> bool:
    b = _b(board)
    if longest_prime(b)[0] < 4:
        return False
    on_bar = b[0]
    in_home = sum(-b[p] for p in range(1, 7) if b[p] < 0)
    home = sum(-b[p] for p in range(19, 25) if b[p] < 0)
    # "A single straggler": bgsage's own snake starting set also has two (two on the bar, or
    # one on the bar and one in the home board), so up to two are allowed.
    return 1 <= on_bar + in_home <= 2 and home >= 10


def is_prime(board) -> bool:
    """A prime of 4+ points of ours with an opponent checker still behind it."""
    b = _b(board)
    run = 0
    for p in range(1, 25):
        run = run + 1 if b[p] >= 2 else 0
        if run >= 4 and (b[0] > 0 or any(b[q] < 0 for q in range(1, p - run + 1))):
            return True
    return False


def classifier(family: str) -> Callable[[Iterable[int]], bool]:
    """The one-sided classifier of a family name; ``ValueError`` for an unknown name.

    Names: ``backgame-A-B`` (e.g. ``backgame-1-3``), ``backgame`` (any of the ten),
    ``massive-backgame``, ``containment``, ``snake``, ``prime``, and gnubg's position class ``crashed``
    (:func:`playout.backgammon.classes.crashed_side`: six or fewer checkers left in play).
    """
    f = family.lower()
    if f == "crashed":
        return _crashed
    if f == "snake":
        return is_snake
    if f == "containment":
        return is_containment
    if f == "prime":
        return is_prime
    if f in ("massive-backgame", "massive_backgame", "massive"):
        return is_massive_backgame
    if f == "backgame":
        return is_backgame
    if f.startswith("backgame-"):
        try:
            a, b = (int(x) for x in f[len("backgame-"):].split("-"))
        except ValueError:
            raise ValueError(f"family {family!r}: expected backgame-A-B, e.g. backgame-1-3") from None
        if (min(a, b), max(a, b)) not in BACKGAME_PAIRS:
            raise ValueError(f"family {family!r}: back-game anchors must be two of the points 1..5")
        return lambda board, a=a, b=b: is_backgame(board, a, b)
    raise ValueError(f"unknown family {family!r} "
                     "(snake, prime, containment, massive-backgame, backgame-A-B, crashed)")


def _crashed(board) -> bool:
    """gnubg's crashed rule for the positive side (:func:`playout.backgammon.classes.crashed_side`)."""
    import numpy as np

    from playout.backgammon.classes import crashed_side

    return bool(crashed_side(np.asarray(_b(board), dtype=np.int8)))


def flip(board) -> list[int]:
    b = _b(board)
    return [b[25]] + [-b[25 - p] for p in range(1, 25)] + [b[0]]


def in_family(family: str, board) -> bool:
    """True when either side of ``board`` has the family's feature."""
    f = classifier(family)
    return f(board) or f(flip(board))
