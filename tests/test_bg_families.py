"""Family classifiers: the real sets and hand-made boundary cases each way."""

from __future__ import annotations

from pathlib import Path

import pytest

from playout.backgammon import families as F

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SAGE = SHARED / "data" / "backgammon" / "bgsage"
data = pytest.mark.skipif(not SAGE.exists(), reason="shared data not present")


def board(points: dict[int, int], my_bar=0, opp_bar=0):
    b = [0] * 26
    for p, v in points.items():
        b[p] = v
    b[25], b[0] = my_bar, opp_bar
    return b


@data
def test_all_74_snake_starting_positions_are_snakes():
    from playout.backgammon.benchmark import read_starting
    st = read_starting(SAGE / "snake starting.txt").entries
    assert len(st) == 74
    assert all(F.in_family("snake", p.board) for p in st)


@data
def test_snake_benchmark_decisions_stay_in_family():
    from playout.backgammon.benchmark import read_benchmark
    assert all(F.in_family("snake", d.board) for d in read_benchmark(SAGE / "snake benchmark.first50.txt").entries)


@data
def test_backgame_rollout_sample_are_backgames():
    lines = (SAGE / "player-backgame-rollout.txt").read_text().splitlines()[::25]
    boards = [[int(x) for x in l.split()[:26]] for l in lines]
    assert all(F.is_backgame(b) for b in boards)  # the positive side holds the back game
    types = {F.backgame_type(b) for b in boards}
    assert {f"{a}-{b}" for a, b in F.BACKGAME_PAIRS} <= types  # all ten types occur


# A snake: we (positive) prime 20-23; the opponent has one straggler on our 4-point and 14 home.
SNAKE = board({4: -1, 20: 2, 21: 2, 22: 2, 23: 2, 13: 4, 10: 3, 24: -14})


def test_snake_boundaries():
    assert F.is_snake(SNAKE)
    three = dict(enumerate(SNAKE)); three[23] = 1; three[12] = 1
    assert not F.is_snake(list(three.values()))                 # prime of 3
    low = board({4: -1, 10: 2, 11: 2, 12: 2, 13: 2, 14: 4, 5: 3, 24: -14})
    assert F.longest_prime(low)[0] == 2 and F.longest_prime(low, 1, 24)[0] == 5 and not F.is_snake(low)  # the prime crosses into our half
    none = dict(enumerate(SNAKE)); none[4] = 0; none[24] = -15
    assert not F.is_snake(list(none.values()))                  # no straggler
    nine = board({4: -1, 20: 2, 21: 2, 22: 2, 23: 2, 13: 4, 10: 3, 24: -9, 15: -5})
    assert not F.is_snake(nine)                                  # only 9 home
    ten = board({4: -1, 20: 2, 21: 2, 22: 2, 23: 2, 13: 4, 10: 3, 24: -10, 15: -4})
    assert F.is_snake(ten)
    assert F.is_snake(board({20: 2, 21: 2, 22: 2, 23: 2, 13: 4, 10: 3, 24: -14}, opp_bar=1))
    assert not F.is_snake(F.flip(SNAKE)) and F.in_family("snake", F.flip(SNAKE))


def test_backgame_boundaries():
    # we hold the opponent's 1- and 3-points (our 24 and 22) and trail in the race
    opp = {19: -3, 20: -4, 21: -3, 23: -3, 12: -2}
    bg = board({24: 2, 22: 2, 13: 5, 8: 3, 6: 3, **opp})
    assert F.pips(bg)[0] > F.pips(bg)[1]
    assert F.backgame_type(bg) == "1-3" and F.classifier("backgame-3-1")(bg) and F.is_backgame(bg)
    assert not F.classifier("backgame-1-2")(bg)
    ahead = board({24: 2, 22: 2, 3: 5, 2: 3, 1: 3, 7: -5, 8: -3, 9: -3, 12: -2, 18: -2})
    assert F.pips(ahead)[0] < F.pips(ahead)[1] and F.backgame_type(ahead) is None  # leads the race
    blot = board({24: 2, 22: 1, 13: 6, 8: 3, 6: 3, **opp})
    assert F.backgame_type(blot) is None                       # a blot is not an anchor
    six = board({24: 2, 19: 2, 13: 5, 8: 3, 6: 3, 20: -4, 21: -6, 23: -3, 12: -2})
    assert F.backgame_type(six) is None and F.is_backgame(six)  # 1-6: a back-game, not one of the ten
    opp3 = {19: -3, 20: -4, 23: -3, 12: -5}
    three = board({24: 2, 22: 2, 21: 2, 13: 3, 8: 3, 6: 3, **opp3})
    assert F.backgame_type(three) is None and F.is_massive_backgame(three)
    seven_back = board({24: 4, 22: 3, 13: 5, 8: 3, **opp})
    six_back = board({24: 3, 22: 3, 13: 6, 8: 3, **opp})
    assert F.is_massive_backgame(seven_back) and not F.is_massive_backgame(six_back)
    assert F.is_massive_backgame(board({24: 3, 22: 2, 13: 6, 8: 2, **opp}, my_bar=2))
    assert not F.is_massive_backgame(bg)


def test_containment_boundaries():
    # escaper (positive): one checker back on the opponent's 3-point; container trails, keeps a blot at our 9
    c = board({22: 1, 6: 5, 5: 4, 4: 3, 3: 2, 9: -1, 1: -2, 20: -2, 19: -3, 18: -3, 17: -2, 16: -2})
    assert F.pips(c)[1] > F.pips(c)[0] and F.is_containment(c)
    four = board({22: 2, 21: 2, 6: 5, 5: 4, 4: 2, 9: -1, 1: -2, 20: -2, 19: -3, 18: -3, 17: -2, 16: -2})
    assert not F.is_containment(four)                            # 4 back
    gone = board({22: 1, 1: 5, 2: 5, 3: 4, 19: -5, 20: -5, 21: -5})
    assert F.pips(gone)[1] > F.pips(gone)[0] and not F.is_containment(gone)  # nothing left to hit with
    assert F.is_containment(board({22: 1, 1: 5, 2: 5, 3: 4, 9: -1, 19: -4, 20: -5, 21: -5}))
    ahead = board({22: 1, 6: 5, 5: 4, 4: 3, 3: 2, 9: -1, 24: -2, 23: -3, 21: -3, 20: -3, 19: -3})
    assert F.pips(ahead)[1] < F.pips(ahead)[0] and not F.is_containment(ahead)  # container leads
    assert F.is_containment(board({6: 5, 5: 4, 4: 3, 3: 2, 9: -1, 1: -2, 20: -2, 19: -3, 18: -3, 17: -2, 16: -2}, my_bar=1))


def test_unknown_family_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown family"):
        F.classifier("prime-vs-prime")
    with pytest.raises(ValueError, match="points 1..5"):
        F.classifier("backgame-1-6")


def test_prime_boundaries():
    # We hold 7-10 (four points); the opponent (moving 1 -> 24) has a checker on our 3-point.
    primed = board({3: -1, 7: 2, 8: 2, 9: 3, 10: 2, 13: 6, 24: -14})
    assert F.is_prime(primed) and F.in_family("prime", primed)
    three = board({3: -1, 7: 2, 8: 2, 9: 3, 10: 1, 13: 7, 24: -14})
    assert not F.is_prime(three)                                   # a 3-point block
    past = board({12: -1, 7: 2, 8: 2, 9: 3, 10: 2, 13: 6, 24: -14})
    assert not F.is_prime(past)                                    # its checker is past the prime
    assert F.is_prime(board({7: 2, 8: 2, 9: 3, 10: 2, 13: 6, 24: -14}, opp_bar=1))  # on the bar
    broken = board({3: -1, 6: 2, 7: 2, 9: 3, 10: 2, 11: 2, 13: 4, 24: -14})
    assert not F.is_prime(broken)                                  # 6-7 and 9-11: no four in a row
    assert not F.is_prime(F.flip(primed)) and F.in_family("prime", F.flip(primed))
    assert F.classifier("prime") is F.is_prime
