"""2048 rules: sliding/merging, legal moves, spawning, rewards, terminal rules."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playout.domains.twenty48 import (
    DEMO_GRID,
    DIRECTIONS,
    Twenty48,
    slide,
    slide_row,
    spawn_distribution,
)

GAME = Twenty48()

tiles = st.sampled_from([0, 0, 0, 2, 2, 4, 4, 8, 16, 32])
boards = st.tuples(*[tiles] * 16)


def rows(*rs: list[int]) -> tuple[int, ...]:
    return tuple(v for r in rs for v in r)


@pytest.mark.parametrize(
    "row, expected",
    [
        ((2, 2, 2, 2), (4, 4, 0, 0)),
        ((4, 4, 8, 0), (8, 8, 0, 0)),
        ((2, 2, 2, 0), (4, 2, 0, 0)),
        ((0, 2, 0, 2), (4, 0, 0, 0)),
        ((2, 0, 4, 2), (2, 4, 2, 0)),
        ((8, 8, 16, 16), (16, 32, 0, 0)),
        ((4, 2, 2, 4), (4, 4, 4, 0)),
        ((0, 0, 0, 0), (0, 0, 0, 0)),
    ],
)
def test_slide_row_merges_each_tile_at_most_once(row, expected):
    assert slide_row(row) == expected


def test_directions_on_a_grid():
    b = rows([2, 0, 0, 2], [0, 4, 4, 0], [2, 2, 2, 2], [0, 0, 0, 8])
    assert slide(b, "left") == rows([4, 0, 0, 0], [8, 0, 0, 0], [4, 4, 0, 0], [8, 0, 0, 0])
    assert slide(b, "right") == rows([0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 4, 4], [0, 0, 0, 8])
    assert slide(b, "up") == rows([4, 4, 4, 4], [0, 2, 2, 8], [0, 0, 0, 0], [0, 0, 0, 0])
    assert slide(b, "down") == rows([0, 0, 0, 0], [0, 0, 0, 0], [0, 4, 4, 4], [4, 2, 2, 8])
    with pytest.raises(ValueError, match="not a 2048 move"):
        slide(b, "north")


def test_demo_grid_and_moves():
    assert DEMO_GRID[:4] == (0, 0, 2, 0) and DEMO_GRID[12:] == (128, 256, 512, 1024)
    assert Twenty48(start=DEMO_GRID).initial_state() == DEMO_GRID
    assert GAME.actions(DEMO_GRID) == ["up", "down", "left", "right"]
    # a grid where only some moves change anything
    b = rows([2, 4, 8, 16], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])
    assert GAME.actions(b) == ["down"]


@settings(max_examples=300, deadline=None)
@given(boards, st.sampled_from(DIRECTIONS), st.integers(0, 2**32))
def test_tile_sum_grows_by_the_spawned_tile_only(board, direction, seed):
    moved = slide(board, direction)
    assert sum(moved) == sum(board)
    if moved == board:
        return
    nxt = GAME.transition(board, direction, random.Random(seed))
    diff = [i for i in range(16) if nxt[i] != moved[i]]
    assert len(diff) == 1 and moved[diff[0]] == 0
    assert nxt[diff[0]] in (2, 4)
    assert sum(nxt) == sum(board) + nxt[diff[0]]


LINE_CELLS = {
    "left": [[r * 4 + c for c in range(4)] for r in range(4)],
    "right": [[r * 4 + c for c in (3, 2, 1, 0)] for r in range(4)],
    "up": [[r * 4 + c for r in range(4)] for c in range(4)],
    "down": [[r * 4 + c for r in (3, 2, 1, 0)] for c in range(4)],
}


def _groups(before: list[int], after: list[int]) -> list[list[int]] | None:
    """Split the non-zero tiles of a line (ordered from the wall) into the consecutive
    groups that produced each output tile; None if the output is not such a split."""
    src = [v for v in before if v]
    out = [v for v in after if v]
    groups, i = [], 0
    for o in out:
        if i < len(src) and src[i] == o:
            groups.append([src[i]])
            i += 1
        elif i + 1 < len(src) and src[i] == src[i + 1] and 2 * src[i] == o:
            groups.append([src[i], src[i + 1]])
            i += 2
        else:
            return None
    return groups if i == len(src) else None


@settings(max_examples=400, deadline=None)
@given(boards, st.sampled_from(DIRECTIONS))
def test_each_tile_merges_at_most_once(board, direction):
    """Along every line (from the wall the tiles move to), the output tiles are the input
    tiles in order, packed against the wall, each output made of one tile or of two equal
    adjacent tiles (never three or four), and pairs form greedily from the wall."""
    moved = slide(board, direction)
    for cells in LINE_CELLS[direction]:
        before = [board[i] for i in cells]
        after = [moved[i] for i in cells]
        n = sum(1 for v in after if v)
        assert all(after[:n]) and not any(after[n:])  # packed against the wall
        groups = _groups(before, after)
        assert groups is not None, (before, after)
        for g, h in zip(groups, groups[1:]):
            # a lone tile followed by an equal one would have merged with it
            assert not (len(g) == 1 and g[0] == h[0]), (before, after)


@settings(max_examples=300, deadline=None)
@given(boards)
def test_legal_moves_are_exactly_those_that_change_the_board(board):
    acts = GAME.actions(board)
    for d in DIRECTIONS:
        assert (d in acts) == (slide(board, d) != board)
    assert GAME.is_terminal(board) == (not acts)


def test_illegal_move_refused():
    b = rows([2, 4, 8, 16], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])
    with pytest.raises(ValueError, match="does not change the grid"):
        GAME.transition(b, "up", random.Random(0))


def test_spawn_probabilities_exact_and_sampled():
    b = rows([2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 64], [0, 0, 2, 0])
    moved = slide(b, "left")  # last row -> [2, 0, 0, 0]
    dist = spawn_distribution(moved)
    assert len(dist) == 6  # 3 empty cells x {2, 4}
    assert math.isclose(sum(dist.values()), 1.0)
    for grid, p in dist.items():
        new = [i for i in range(16) if grid[i] != moved[i]][0]
        assert p == pytest.approx((0.9 if grid[new] == 2 else 0.1) / 3)
    assert GAME.transition_distribution(b, "left") == dist
    rng = random.Random(5)
    n = 30000
    counts = Counter(GAME.transition(b, "left", rng) for _ in range(n))
    assert set(counts) == set(dist)
    for grid, p in dist.items():
        assert abs(counts[grid] / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_default_start_has_two_tiles_and_depends_on_seed():
    starts = [Twenty48(seed=s).initial_state() for s in range(50)]
    for s in starts:
        assert sum(1 for v in s if v) == 2
        assert set(v for v in s if v) <= {2, 4}
    assert Twenty48(seed=3).initial_state() == Twenty48(seed=3).initial_state()
    assert len(set(starts)) > 20


def test_reward_is_log2_of_largest_tile():
    rng = random.Random(0)
    nxt = GAME.transition(DEMO_GRID, "left", rng)  # 64+64 -> 128, 2+2 -> 4
    assert max(nxt) == 1024
    assert GAME.reward(DEMO_GRID, "left", nxt) == 10.0
    b = rows([1024, 1024, 0, 0], [0] * 4, [0] * 4, [0] * 4)
    nxt = GAME.transition(b, "left", rng)
    assert GAME.reward(b, "left", nxt) == 11.0


FULL_MERGEABLE = rows([2, 2, 4, 8], [4, 8, 16, 32], [8, 16, 32, 64], [16, 32, 64, 128])
FULL_STUCK = rows([2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2])


def test_terminal_rule_ours_vs_anchor_on_a_full_mergeable_grid():
    ours = Twenty48()
    anchor = Twenty48(anchor_terminal=True)
    assert not ours.is_terminal(FULL_MERGEABLE)
    assert ours.actions(FULL_MERGEABLE) == ["left", "right"]
    assert anchor.is_terminal(FULL_MERGEABLE)
    assert anchor.actions(FULL_MERGEABLE) == []
    assert ours.is_terminal(FULL_STUCK) and anchor.is_terminal(FULL_STUCK)
    # not full, no 2048: neither rule ends the game
    assert not ours.is_terminal(DEMO_GRID) and not anchor.is_terminal(DEMO_GRID)


def test_stop_at():
    b = rows([2048, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4)
    assert not Twenty48().is_terminal(b)
    assert Twenty48(stop_at=2048).is_terminal(b)
    assert not Twenty48(stop_at=4096).is_terminal(b)
    assert Twenty48(anchor_terminal=True).is_terminal(b)


def test_bad_start_rejected():
    with pytest.raises(ValueError, match="16 cells"):
        Twenty48(start=(2, 2))
    with pytest.raises(ValueError, match="3 is not 0 or a power of two"):
        Twenty48(start=(3,) + (0,) * 15)


def test_render_and_action_names():
    text = Twenty48.render(DEMO_GRID).splitlines()
    assert text[0].split() == [".", ".", "2", "."]
    assert text[3].split() == ["128", "256", "512", "1024"]
    assert Twenty48.parse_action("L") == "left"
    assert Twenty48.action_name("up") == "up"
    with pytest.raises(ValueError):
        Twenty48.parse_action("x")


def test_random_games_keep_invariants():
    rng = random.Random(1)
    for g in range(20):
        s = Twenty48(seed=g).initial_state()
        steps = 0
        while not GAME.is_terminal(s):
            a = rng.choice(GAME.actions(s))
            t = GAME.transition(s, a, rng)
            assert sum(t) - sum(s) in (2, 4)
            s = t
            steps += 1
        assert 0 not in s and steps > 20
