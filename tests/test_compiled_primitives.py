"""The compiled domains' numba primitives follow the Python reference domains' rules."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from playout.domains import connect4_nb, gridworld_nb, push_your_luck_nb, reversi_nb, twenty48_nb
from playout.mcts.nbrng import randint, seed_state, uniform


def _legal(mod, arr):
    out = np.empty(mod.N_ACTIONS, dtype=np.int64)
    n = mod.legal(arr, out)
    return [mod.action_of(a) for a in out[:n]]


def _id(mod, action):
    return mod.ACTIONS.index(action) if hasattr(mod, "ACTIONS") else int(action)


@pytest.mark.parametrize("name", ["connect4", "reversi"])
def test_deterministic_games_follow_python_rules(name):
    if name == "connect4":
        from playout.domains.connect4 import Connect4 as G
        mod = connect4_nb
        games = 200
    else:
        from playout.domains.reversi import Reversi as G
        mod = reversi_nb
        games = 60
    game = G()
    rng = random.Random(7)
    rs = seed_state(1)
    for _ in range(games):
        state = game.initial_state()
        arr = mod.to_array(state)
        while True:
            acts = list(game.actions(state)) if not game.is_terminal(state) else []
            assert _legal(mod, arr) == acts
            assert bool(mod.terminal(arr)) == game.is_terminal(state)
            assert mod.to_play(arr) == game.to_play(state)
            assert mod.evaluate(arr) == pytest.approx(game.evaluate(state))
            if not acts:
                break
            a = rng.choice(acts)
            nxt = game.transition(state, a, rng)
            r = mod.step(arr, _id(mod, a), rs)
            assert r == pytest.approx(game.reward(state, a, nxt))
            state = nxt
            np.testing.assert_array_equal(arr, mod.to_array(state))


def test_twenty48_slide_and_moves_match_python():
    from playout.domains import twenty48 as T

    rng = random.Random(3)
    for trial in range(400):
        board = tuple(rng.choice([0, 0, 2, 2, 4, 8, 16]) for _ in range(16))
        arr = twenty48_nb.to_array(board)
        assert _legal(twenty48_nb, arr) == T.Twenty48().actions(board)
        anchor = twenty48_nb.to_array(board, anchor_terminal=True)
        assert bool(twenty48_nb.terminal(anchor)) == T.Twenty48(anchor_terminal=True).is_terminal(board)
        for d, name in enumerate(T.DIRECTIONS):
            moved = arr.copy()
            twenty48_nb.slide(moved, d)
            np.testing.assert_array_equal(moved[:16], twenty48_nb.to_array(T.slide(board, name))[:16])


def test_twenty48_step_spawns_one_tile_with_the_right_odds():
    board = (0, 0, 2, 0, 2, 2, 0, 0, 64, 64, 2, 2, 128, 256, 512, 1024)
    rs = seed_state(5)
    counts = Counter()
    for _ in range(4000):
        arr = twenty48_nb.to_array(board)
        r = twenty48_nb.step(arr, 2, rs)  # left
        assert r == 10.0  # log2(1024)
        moved = twenty48_nb.to_array(board).copy()
        twenty48_nb.slide(moved, 2)
        diff = np.nonzero(arr[:16] != moved[:16])[0]
        assert len(diff) == 1 and moved[diff[0]] == 0
        counts[int(arr[diff[0]])] += 1
    assert counts[1] / 4000 == pytest.approx(0.9, abs=0.03)  # a 2 (exponent 1)
    assert set(counts) == {1, 2}


def test_gridworld_transitions_match_python_distribution():
    from playout.domains.gridworld import GridWorld

    gw = GridWorld()
    rs = seed_state(11)
    for cell in [(2, 2), (1, 2), (8, 5), (5, 3)]:
        arr = gridworld_nb.to_array(cell)
        assert _legal(gridworld_nb, arr) == gw.actions(cell)
        for a in gw.actions(cell):
            want = gw.transition_distribution(cell, a)
            got = Counter()
            n = 3000
            for _ in range(n):
                s = gridworld_nb.to_array(cell)
                r = gridworld_nb.step(s, _id(gridworld_nb, a), rs)
                nxt = (int(s[0]), int(s[1]))
                assert r == gw.reward(cell, a, nxt)
                got[nxt] += 1
            assert set(got) <= set(want)
            for c, p in want.items():
                assert got[c] / n == pytest.approx(p, abs=0.03)
    assert gridworld_nb.terminal(gridworld_nb.to_array((1, 1)))
    assert gridworld_nb.terminal(gridworld_nb.to_array((5, 4)))
    assert not gridworld_nb.terminal(gridworld_nb.to_array((2, 2)))


def test_push_your_luck_roll_and_cashout():
    from playout.domains.push_your_luck import PushYourLuck, cashout_value

    pyl = PushYourLuck()
    rs = seed_state(2)
    rng = random.Random(2)
    faces = Counter()
    state = pyl.initial_state()
    arr = push_your_luck_nb.to_array(state)
    for _ in range(3000):
        a = rng.choice(["roll", "cashout"])
        before = arr.copy()
        r = push_your_luck_nb.step(arr, _id(push_your_luck_nb, a), rs)
        if a == "roll":
            assert r == 0.0
            flipped = int(before[0] ^ arr[0])
            assert flipped and flipped & (flipped - 1) == 0  # exactly one face toggled
            faces[flipped.bit_length()] += 1
        else:
            marks = tuple(bool(before[0] >> i & 1) for i in range(6))
            assert r == cashout_value(marks)
            assert arr[0] == 0
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert min(faces.values()) > 0.12 * sum(faces.values())
    assert push_your_luck_nb.to_array((True, False, True, False, False, True))[0] == 0b100101


def test_rng_is_seeded_and_roughly_uniform():
    a, b = seed_state(42), seed_state(42)
    xs = [randint(a, 10) for _ in range(2000)]
    assert xs == [randint(b, 10) for _ in range(2000)]
    c = seed_state(43)
    assert xs != [randint(c, 10) for _ in range(2000)]
    counts = Counter(xs)
    assert set(counts) == set(range(10))
    assert max(counts.values()) < 260
    u = [uniform(a) for _ in range(2000)]
    assert 0.0 <= min(u) and max(u) < 1.0 and abs(np.mean(u) - 0.5) < 0.03
