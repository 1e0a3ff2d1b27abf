"""Connect 4 rules: unit cases and a cross-check against OpenSpiel's ``connect_four``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from playout.domains.connect4 import COLS, ROWS, Connect4, Connect4State

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = Connect4()


def test_initial_state_and_actions():
    s = GAME.initial_state()
    assert s == Connect4State((0,) * 42, 0, -1, 0)
    assert GAME.actions(s) == [0, 1, 2, 3, 4, 5, 6]
    assert GAME.to_play(s) == 0
    assert not GAME.is_terminal(s)


def test_disc_falls_to_lowest_row_and_players_alternate():
    s = Connect4.from_moves("444")
    # column 4 (index 3): rows 0,1,2 = player0, player1, player0
    assert [s.cells[r * COLS + 3] for r in range(ROWS)] == [1, 2, 1, 0, 0, 0]
    assert s.to_play == 1 and s.moves == 3


def test_full_column_is_not_legal():
    s = Connect4.from_moves("111111")
    assert GAME.actions(s) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="column 1 is full"):
        Connect4.from_moves("1111111")


@pytest.mark.parametrize(
    "moves, winner",
    [
        ("1212121", 0),  # vertical, column 1
        ("4455667", 0),  # horizontal, bottom row d..g
        ("12233434544", 0),  # diagonal up-right from a1 to d4
        ("76655454344", 0),  # diagonal up-left from g1 to d4
        ("71212121", 1),  # player 1 vertical in column 1
    ],
)
def test_wins(moves, winner):
    prev = Connect4.from_moves(moves[:-1])
    s = Connect4.from_moves(moves)
    assert prev.winner == -1 and not GAME.is_terminal(prev)
    assert s.winner == winner
    assert GAME.is_terminal(s)
    assert GAME.actions(s) == []
    assert GAME.reward(prev, int(moves[-1]) - 1, s) == 1.0


def test_three_in_a_row_is_not_a_win_and_pays_zero():
    prev = Connect4.from_moves("12121")
    s = Connect4.from_moves("121212")
    assert s.winner == -1
    assert GAME.reward(prev, 1, s) == 0.0


def test_moves_after_the_end_are_refused():
    with pytest.raises(ValueError, match="move 8 .*game is over"):
        Connect4.from_moves("12121212")


def test_from_moves_rejects_bad_characters():
    with pytest.raises(ValueError, match="move 2 .*'8' is not a column"):
        Connect4.from_moves("48")


def test_draw_full_board():
    rng_moves = _find_draw()
    s = Connect4.from_moves(rng_moves)
    assert s.moves == 42 and s.winner == -1
    assert GAME.is_terminal(s)
    prev = Connect4.from_moves(rng_moves[:-1])
    assert GAME.reward(prev, int(rng_moves[-1]) - 1, s) == 0.0


def _find_draw() -> str:
    """A 42-move game that fills the board without a four (searched with a fixed seed)."""
    rng = random.Random(7)
    while True:
        s = GAME.initial_state()
        moves = ""
        while not GAME.is_terminal(s):
            a = rng.choice(GAME.actions(s))
            moves += str(a + 1)
            s = GAME.transition(s, a, rng)
        if s.winner == -1:
            return moves


def test_transition_does_not_mutate():
    s = Connect4.from_moves("44")
    before = s.cells
    t = GAME.transition(s, 3, random.Random(0))
    assert s.cells == before and t.cells != before
    assert hash(s) != hash(t)


def test_action_names_and_render():
    assert [Connect4.action_name(a) for a in range(7)] == list("1234567")
    assert Connect4.parse_action(" 7 ") == 6
    with pytest.raises(ValueError):
        Connect4.parse_action("0")
    text = Connect4.render(Connect4.from_moves("4455667"))
    lines = text.splitlines()
    assert lines[5] == ". . . X X X X"
    assert lines[4] == ". . . O O O ."
    assert lines[-1] == "X wins"


def test_shared_positions_parse():
    path = SHARED / "data" / "connect4" / "Test_L1_R1"
    lines = path.read_text().split("\n")[:200]
    for line in filter(None, lines):
        moves, score = line.split()
        s = Connect4.from_moves(moves)
        assert s.moves == len(moves)
        assert s.winner == -1
        assert s.to_play == len(moves) % 2


# -- cross-check against OpenSpiel ------------------------------------------------
def _spiel_cells(spiel_state) -> tuple[int, ...]:
    """OpenSpiel's board string (top row first, 'x' player 0, 'o' player 1) as our cells."""
    rows = [line for line in str(spiel_state).split("\n") if line.strip()]
    assert len(rows) == ROWS
    marks = {".": 0, "x": 1, "o": 2}
    cells = []
    for line in reversed(rows):  # bottom row first
        cells.extend(marks[ch] for ch in line.strip())
    return tuple(cells)


def _cross_check(n_games: int, seed: int) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    spiel_game = pyspiel.load_game("connect_four")
    rng = random.Random(seed)
    outcomes = {0: 0, 1: 0, -1: 0}
    for g in range(n_games):
        s = GAME.initial_state()
        t = spiel_game.new_initial_state()
        while True:
            assert GAME.is_terminal(s) == t.is_terminal(), (g, s)
            if t.is_terminal():
                break
            assert GAME.actions(s) == t.legal_actions(), (g, s)
            assert GAME.to_play(s) == t.current_player()
            a = rng.choice(GAME.actions(s))
            prev = s
            s = GAME.transition(s, a, rng)
            t.apply_action(a)
            assert s.cells == _spiel_cells(t)
            r = GAME.reward(prev, a, s)
            if t.is_terminal():
                assert r == max(0.0, t.returns()[prev.to_play])
            else:
                assert r == 0.0
        returns = t.returns()
        if s.winner == -1:
            assert returns == [0.0, 0.0]
        else:
            assert returns[s.winner] == 1.0 and returns[1 - s.winner] == -1.0
        outcomes[s.winner] += 1
    # random play: both players win games and the sample is not degenerate
    assert outcomes[0] > 0 and outcomes[1] > 0


def test_cross_check_openspiel_1000_games():
    _cross_check(1000, seed=2024)


# -- agreement with the exact scores of the shared test sets ---------------------------------
def _wins_now(s: Connect4State) -> bool:
    return any(GAME.transition(s, a).winner == s.to_play for a in GAME.actions(s))


def _win_in_two(s: Connect4State) -> bool:
    """The mover can force a win with its next or second-next disc."""
    for a in GAME.actions(s):
        t = GAME.transition(s, a)
        if t.winner == s.to_play:
            return True
        if GAME.is_terminal(t):
            continue
        replies = [GAME.transition(t, b) for b in GAME.actions(t)]
        if all(not GAME.is_terminal(u) and _wins_now(u) for u in replies):
            return True
    return False


@pytest.mark.parametrize("name", ["Test_L1_R1", "Test_L2_R2", "Test_L3_R1"])
def test_forced_wins_agree_with_exact_scores(name):
    """Score = 22 - the winner's stones at the end (side to move's view).  The sets hold no
    immediate wins, so score == 22 - (mover's stones + 2) exactly when our rules find a win
    forced within the mover's next two discs."""
    lines = (SHARED / "data" / "connect4" / name).read_text().split("\n")
    checked = found = 0
    for line in filter(None, lines):
        moves, score = line.split()
        s = Connect4.from_moves(moves)
        n = len(moves)
        assert not _wins_now(s)
        two_move_score = 22 - (n // 2 + 2)
        if two_move_score <= 0:
            continue
        forced = _win_in_two(s)
        assert forced == (int(score) == two_move_score), (moves, score)
        checked += 1
        found += forced
    assert checked > 500
    if name != "Test_L2_R2":
        assert found > 100  # the R1 sets are rich in short wins
