"""``notation.parse_play``: the one reader of gnubg play notation (``8/5 6/5``, ``24/18*/13``,
``bar/22``, ``13/11(2)``, ``6/off``, and the ``.mat`` steps ``25/21``, ``6/0``), and
``board.apply_steps``.

Boards are board26 from the mover's side (point p holds n > 0 of the mover's checkers, < 0 the
opponent's).  Expected boards are written out by hand from the rules (a checker landing on a
blot sends it to the opponent's bar [0]); the round trip uses the legal-move generator and the
formatter (gnubg's ``FormatMove`` rules, checked against gnubg's files in test_bg_matchfile).
"""

import random

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, apply_steps, flip, game_result
from playout.backgammon.moves import legal_moves
from playout.backgammon.notation import PlayError, parse_play, play_text, read_parts


def board(me: dict, opp: dict) -> np.ndarray:
    """board26: ``me`` {point: mover's checkers} (25 = bar), ``opp`` {point: opponent's}."""
    b = np.zeros(26, dtype=np.int8)
    b[list(me)], b[list(opp)] = list(me.values()), [-n for n in opp.values()]
    return b


S = STARTING_BOARD


def start_after(**changes) -> np.ndarray:
    """The starting board with the mover's counts on some points changed (``p8=-1``...)."""
    b = S.copy()
    for k, v in changes.items():
        b[int(k[1:])] += v
    return b


# -- the grammar -------------------------------------------------------------------------------

def test_each_part_form():
    assert read_parts("8/5 6/5") == ([[8, 5], [6, 5]], set())
    assert read_parts("24/18*/13") == ([[24, 18, 13]], {18})
    assert read_parts("bar/22* b/20") == ([[25, 22], [25, 20]], {22})
    assert read_parts("25/21 6/0 5/off 4/o") == ([[25, 21], [6, 0], [5, 0], [4, 0]], set())
    assert read_parts("13/11(2), 6/4(2)") == ([[13, 11]] * 2 + [[6, 4]] * 2, set())
    assert read_parts("BAR/22 13/9") == ([[25, 22], [13, 9]], set())


def test_parse_on_the_opening_board():
    assert np.array_equal(parse_play(S, (3, 1), "8/5 6/5"), start_after(p8=-1, p6=-1, p5=2))
    # order, commas, case and chained steps do not matter; both modes agree
    for text in ("6/5 8/5", "6/5, 8/5"):
        for aw in (False, True):
            assert np.array_equal(parse_play(S, (3, 1), text, as_written=aw),
                                  start_after(p8=-1, p6=-1, p5=2))
    run = start_after(p24=-1, p13=1)
    for text in ("24/13", "24/18/13", "24/18 18/13", "18/13 24/18", "24/19 19/13"):
        assert np.array_equal(parse_play(S, (6, 5), text), run)
    # (n) repeats a part: a double
    assert np.array_equal(parse_play(S, (2, 2), "13/11(2) 6/4(2)"),
                          start_after(p13=-2, p11=2, p6=-2, p4=2))
    assert np.array_equal(parse_play(S, (6, 6), "24/18(2) 13/7(2)"),
                          start_after(p24=-2, p18=2, p13=-2, p7=2))


def test_star_chooses_between_plays_that_differ_only_in_hits():
    # opponent blots on 18 and 19: 6-5 from 24 to 13 hits on one of them
    b = board({24: 1, 6: 14}, {18: 1, 19: 1, 1: 13})
    hit18 = board({13: 1, 6: 14}, {19: 1, 1: 13}); hit18[0] = 1
    hit19 = board({13: 1, 6: 14}, {18: 1, 1: 13}); hit19[0] = 1
    assert np.array_equal(parse_play(b, (6, 5), "24/18*/13"), hit18)
    assert np.array_equal(parse_play(b, (6, 5), "24/19*/13"), hit19)
    with pytest.raises(PlayError, match=r"^play '24/13' with 65 is ambiguous: "
                       r"24/18\*/13 or 24/19\*/13 \(mark the hits with \*\)$") as exc:
        parse_play(b, (6, 5), "24/13")
    assert exc.value.kind == "ambiguous" and exc.value.options == ("24/18*/13", "24/19*/13")
    # one blot (18) and 19 free: unmarked = the play that hits nothing on the way
    b = board({24: 1, 6: 14}, {18: 1, 1: 14})
    quiet = board({13: 1, 6: 14}, {18: 1, 1: 14})
    hit = board({13: 1, 6: 14}, {1: 14}); hit[0] = 1
    assert np.array_equal(parse_play(b, (6, 5), "24/13"), quiet)
    assert np.array_equal(parse_play(b, (6, 5), "24/18*/13"), hit)
    # landing on the blot without a mark: the person's reading (marks choose) goes round it,
    # the written steps (gnubg's analysis steps carry no marks) hit where they land
    assert np.array_equal(parse_play(b, (6, 5), "24/18 18/13"), quiet)
    assert np.array_equal(parse_play(b, (6, 5), "24/18 18/13", as_written=True), hit)
    assert np.array_equal(parse_play(b, (6, 5), "24/13", as_written=True), quiet)


def test_bar_and_off():
    b = board({25: 1, 6: 14}, {22: 1, 1: 14})
    want = board({22: 1, 6: 13, 5: 1}, {1: 14}); want[0] = 1
    for text in ("bar/22* 6/5", "25/22* 6/5", "b/22* 6/5", "25/22 6/5"):
        assert np.array_equal(parse_play(b, (3, 1), text, as_written=True), want)
    assert np.array_equal(parse_play(b, (3, 1), "bar/22* 6/5"), want)
    b = board({6: 1, 5: 1}, {19: 15})
    off = board({}, {19: 15})
    for text in ("6/off 5/off", "6/0 5/0", "5/o 6/o"):
        assert np.array_equal(parse_play(b, (6, 5), text), off)
    # a bigger die bears off from a lower point
    b = board({3: 1, 2: 1}, {19: 15})
    assert np.array_equal(parse_play(b, (6, 5), "3/off 2/off"), off)


def test_no_play():
    b = board({25: 1, 6: 14}, {p: 2 for p in range(19, 25)} | {1: 3})  # closed board
    for text in ("", "(no play)", "no play", "Cannot Move"):
        assert np.array_equal(parse_play(b, (6, 5), text), b)
    with pytest.raises(PlayError, match=r"^no play recorded but 31 can be played$"):
        parse_play(S, (3, 1), "")


# -- one-line errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("8-5", r"^'8-5': write a move as from/to, e.g. 13/8 or bar/22$"),
    ("8/x", r"^'8/x': 'x' is not a point \(1..24, bar or off\)$"),
    ("30/24", r"^'30/24': point 30 does not exist"),
    ("5/8", r"^'5/8': your checkers move down"),
    ("24/13/18", r"^'24/13/18': your checkers move down"),
    ("24*/18", r"^'24\*/18': a move starts on a point or the bar$"),
    ("off/3", r"^'off/3': a move starts on a point or the bar$"),
    ("8/bar", r"^'8/bar': a checker cannot move to the bar$"),
    ("6/off/3", r"^'6/off/3': 'off' ends a move$"),
    ("6/off*", r"^'6/off\*': bearing off hits nothing$"),
    ("8/5(5)", r"^8/5\(5\): a part is repeated 1..4 times$"),
    ("8/5(0)", r"^8/5\(0\): a part is repeated 1..4 times$"),
])
def test_unreadable_parts(text, message):
    with pytest.raises(PlayError, match=message) as exc:
        parse_play(S, (3, 1), text)
    assert exc.value.kind == "token" and "\n" not in str(exc.value)


def test_wrong_dice_illegal_and_missing_checkers():
    with pytest.raises(PlayError, match=r"^illegal play '24/19' with 31: it moves 5 pips, "
                       r"3-1 gives 4$") as exc:
        parse_play(S, (3, 1), "24/19")
    assert exc.value.kind == "dice"
    with pytest.raises(PlayError, match=r"^dice 7-1: each die is 1..6$"):
        parse_play(S, (7, 1), "8/1")
    # not legal: half the roll, a landing on a held point
    for text in ("8/5", "13/10 13/12"):
        with pytest.raises(PlayError, match=rf"^illegal play '{text}' with 31$") as exc:
            parse_play(S, (3, 1), text)
        assert exc.value.kind == "illegal"
    # few legal plays: they are listed
    b = board({25: 1, 6: 14}, {p: 2 for p in range(19, 24)} | {12: 5})  # only 24 open
    with pytest.raises(PlayError, match=r"^illegal play 'bar/20' with 15 \(legal: bar/24 6/1\)$"):
        parse_play(b, (1, 5), "bar/20")
    with pytest.raises(PlayError, match=r"^'7/4 6/5': more checkers move from point 7 than "
                       r"the mover has there$") as exc:
        parse_play(S, (3, 1), "7/4 6/5")
    assert exc.value.kind == "checkers" and exc.value.point == 7
    with pytest.raises(PlayError, match="from the bar than"):
        parse_play(S, (3, 1), "bar/22 6/5")


# -- board steps -------------------------------------------------------------------------------------

def test_apply_steps():
    b = board({24: 2, 6: 3}, {18: 1, 13: 2, 1: 12})
    r = apply_steps(b, [(24, 18), (18, 13)])
    assert r is None  # 13 is held: the checker cannot land there
    r = apply_steps(b, [(24, 18), (6, 0)])
    want = board({24: 1, 18: 1, 6: 2}, {13: 2, 1: 12}); want[0] = 1
    assert np.array_equal(r, want)
    assert apply_steps(b, [(12, 8)]) is None  # no checker on 12
    assert np.array_equal(b, board({24: 2, 6: 3}, {18: 1, 13: 2, 1: 12}))  # input untouched


# -- round trip -------------------------------------------------------------------------------------

def random_positions(n: int, seed: int) -> list[np.ndarray]:
    """Positions met in random games (uniform legal plays), bar and bear-off ones included."""
    rng = random.Random(seed)
    out: list[np.ndarray] = []
    while len(out) < n:
        b = STARTING_BOARD.copy()
        while game_result(b) == 0 and len(out) < n:
            if rng.random() < 0.1:
                out.append(b.copy())
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = legal_moves(b, d1, d2)
            b = flip(plays[rng.randrange(len(plays))])
    return out


def test_round_trip_every_legal_play():
    rng = random.Random(7)
    positions = random_positions(200, seed=3)
    assert sum(p[25] > 0 for p in positions) >= 20  # some on the bar
    assert sum(p[7:26].clip(0).sum() == 0 for p in positions) >= 5  # some bearing off
    n = 0
    for b in positions:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        for a in legal_moves(b, *dice):
            text = play_text(b, a, dice)
            for aw in (False, True):
                assert np.array_equal(parse_play(b, dice, text, as_written=aw), a), (text, dice)
            n += 1
    assert n > 1000
