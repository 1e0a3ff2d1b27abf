"""Push Your Luck rules: a fair six-faced die, toggling, cash-out product and reset,
fresh states."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from playout.domains.push_your_luck import CASHOUT, ROLL, PushYourLuck, cashout_value, toggle

GAME = PushYourLuck()
NONE = (False,) * 6


def test_initial_state_and_actions():
    assert GAME.initial_state() == NONE
    assert GAME.actions(NONE) == ["roll", "cashout"]
    assert not GAME.is_terminal(NONE)
    assert not GAME.is_terminal((True,) * 6)


def test_every_face_including_six_is_rolled_uniformly():
    rng = random.Random(9)
    n = 60000
    faces = Counter()
    for _ in range(n):
        t = GAME.transition(NONE, ROLL, rng)
        assert sum(t) == 1
        faces[t.index(True) + 1] += 1
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    for f in range(1, 7):
        assert abs(faces[f] / n - 1 / 6) < 4 * math.sqrt((1 / 6) * (5 / 6) / n)


def test_roll_toggles_the_rolled_face():
    s = (True, False, False, False, False, True)  # 1 and 6 marked
    assert toggle(s, 6) == (True, False, False, False, False, False)
    assert toggle(s, 3) == (True, False, True, False, False, True)
    dist = GAME.transition_distribution(s, ROLL)
    assert len(dist) == 6 and all(p == pytest.approx(1 / 6) for p in dist.values())
    # each successor differs from s in exactly one face
    for t in dist:
        assert sum(a != b for a, b in zip(s, t)) == 1
    assert GAME.reward(s, ROLL, toggle(s, 3)) == 0.0


def test_cashout_pays_product_and_clears():
    s = (False, True, True, False, True, True)  # 2*3*5*6
    t = GAME.transition(s, CASHOUT, random.Random(0))
    assert t == NONE
    assert GAME.reward(s, CASHOUT, t) == 180.0
    assert GAME.reward((True,) * 6, CASHOUT, NONE) == 720.0
    assert GAME.reward(NONE, CASHOUT, NONE) == 0.0  # nothing marked pays 0, not 1
    assert cashout_value((True, False, False, False, False, False)) == 1.0
    # cashing out twice: the second pays 0 (the reward is reset with the marks)
    assert GAME.reward(t, CASHOUT, GAME.transition(t, CASHOUT, None)) == 0.0


def test_states_are_fresh_and_not_mutated():
    rng = random.Random(1)
    s = GAME.initial_state()
    seen = [s]
    for _ in range(50):
        a = rng.choice(GAME.actions(s))
        t = GAME.transition(s, a, rng)
        assert isinstance(t, tuple) and len(t) == 6
        seen.append(t)
        s = t
    assert GAME.initial_state() == NONE
    # replaying the same seed gives the same states: nothing was shared and changed
    rng = random.Random(1)
    s = GAME.initial_state()
    for expected in seen[1:]:
        a = rng.choice(GAME.actions(s))
        s = GAME.transition(s, a, rng)
        assert s == expected


def test_bad_action_and_names():
    with pytest.raises(ValueError, match="roll/cashout"):
        GAME.transition(NONE, "hold", random.Random(0))
    assert PushYourLuck.parse_action("C") == "cashout"
    text = PushYourLuck.render((False, True, False, False, False, True))
    assert "[2]" in text and "[6]" in text and "[1]" not in text
    assert text.endswith("cashout 12")
