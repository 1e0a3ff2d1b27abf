"""Reversi rules: unit cases, the FFO positions, the heuristic table, and a
cross-check against OpenSpiel's ``othello``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from playout.domains.reversi import (
    PASS,
    HeuristicPolicy,
    Reversi,
    ReversiState,
    disc_counts,
    heuristic_weights,
    parse_obf,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = Reversi()


def _board(rows: list[str], to_play: int = 0) -> ReversiState:
    """A state from 8 strings of 8 characters (rank 1 first): X black, O white, . empty."""
    marks = {".": 0, "X": 1, "O": 2}
    return ReversiState(tuple(marks[ch] for row in rows for ch in row), to_play)


def test_initial_position():
    s = GAME.initial_state()
    assert s.cells[27] == 2 and s.cells[36] == 2  # d4, e5 white
    assert s.cells[35] == 1 and s.cells[28] == 1  # d5, e4 black
    assert disc_counts(s.cells) == (2, 2)
    assert GAME.to_play(s) == 0
    assert GAME.actions(s) == [19, 26, 37, 44]  # d3 c4 f5 e6
    assert GAME.evaluate(s) == 0.0


def test_move_flips_and_alternates():
    s = GAME.transition(GAME.initial_state(), 19, random.Random(0))  # d3 flips d4
    assert s.cells[19] == 1 and s.cells[27] == 1
    assert disc_counts(s.cells) == (4, 1)
    assert s.to_play == 1
    assert GAME.actions(s) == [18, 20, 34]  # c3 e3 c5
    assert GAME.evaluate(s) == pytest.approx(-3 / 64)  # white's view
    assert GAME.reward(GAME.initial_state(), 19, s) == 0.0


def test_flip_in_several_directions_only_bracketed_lines():
    s = _board([
        "X.X.X...",
        ".OOO....",
        "XO.OX...",
        ".OOO....",
        "X.O.O...",
        "........",
        "........",
        "........",
    ])
    t = GAME.transition(s, 2 * 8 + 2, random.Random(0))  # c3
    # bracketed: b2 (to a1), c2 (to c1), d2 (to e1), b3 (to a3), d3 (to e3),
    # b4 (to a5), not c4/d4 (c5/e5 are white), d4 diagonal ends at e5 white
    flipped = [sq for sq in range(64) if s.cells[sq] == 2 and t.cells[sq] == 1]
    names = sorted(Reversi.action_name(sq) for sq in flipped)
    assert names == ["b2", "b3", "b4", "c2", "d2", "d3"]


def test_illegal_moves_are_refused():
    s = GAME.initial_state()
    with pytest.raises(ValueError, match="a1 is not a legal move for black"):
        GAME.transition(s, 0)
    with pytest.raises(ValueError, match="pass is not legal"):
        GAME.transition(s, PASS)


def test_pass_when_only_the_opponent_can_move():
    # black to move cannot bracket the corner disc a1; white can play c1
    s = _board([
        "OX......",
        "........",
        "........",
        "........",
        "........",
        "........",
        "........",
        "........",
    ], to_play=0)
    assert GAME.actions(s) == [PASS]
    assert GAME.actions(ReversiState(s.cells, 1)) == [2]
    assert not GAME.is_terminal(s)
    t = GAME.transition(s, PASS)
    assert t.cells == s.cells and t.to_play == 1
    assert GAME.reward(s, PASS, t) == 0.0


def test_terminal_reward_is_disc_difference_of_the_mover():
    s = _board([
        "X.O.....",
        "........",
        "........",
        "........",
        "........",
        "........",
        "........",
        "........",
    ], to_play=1)
    assert GAME.actions(s) == []  # neither side can move
    assert GAME.is_terminal(s)
    s = _board([
        "XO.XXXXX",
        "XXXXXXXX",
        "XXXXXXXX",
        "XXXXXXXX",
        "XXXXXXXX",
        "XXXXXXXX",
        "XXXXXXXX",
        "XXXXXXXX",
    ], to_play=0)
    assert GAME.actions(s) == [2]
    t = GAME.transition(s, 2)
    assert disc_counts(t.cells) == (64, 0)
    assert GAME.is_terminal(t)
    assert GAME.reward(s, 2, t) == 1.0
    # the same final move by white in the colour-swapped position
    s2 = ReversiState(tuple({0: 0, 1: 2, 2: 1}[v] for v in s.cells), 1)
    t2 = GAME.transition(s2, 2)
    assert GAME.reward(s2, 2, t2) == 1.0
    assert GAME.evaluate(t2) == -1.0  # black to "play" after the end: all discs white


def test_action_names_render_parse():
    assert Reversi.action_name(0) == "a1"
    assert Reversi.action_name(19) == "d3"
    assert Reversi.action_name(63) == "h8"
    assert Reversi.action_name(PASS) == "pass"
    for a in range(65):
        assert Reversi.parse_action(Reversi.action_name(a)) == a
    assert Reversi.parse_action("H8") == 63
    with pytest.raises(ValueError):
        Reversi.parse_action("i9")
    text = Reversi.render(GAME.transition(GAME.initial_state(), 19))
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert lines[3] == "3 . . . X . . . ."
    assert lines[4] == "4 . . . X X . . ."
    assert lines[-1] == "O (white) to play; X 4, O 1"


# -- FFO positions ---------------------------------------------------------------------
def _obf_lines() -> list[str]:
    path = SHARED / "data" / "othello" / "fforum-20-39.obf"
    return [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("%")]


def test_fforum_positions_parse():
    lines = _obf_lines()
    assert len(lines) == 20
    for line in lines:
        board, side = line.split(";")[0].split()
        pos = parse_obf(line)
        s = pos.state
        assert s == Reversi.from_obf(line)
        assert s.to_play == (0 if side == "X" else 1)
        assert disc_counts(s.cells) == (board.count("X"), board.count("O"))
        # every listed move is legal, the best move comes first
        legal = GAME.actions(s)
        assert pos.scores and set(pos.scores) <= set(legal)
        first = next(iter(pos.scores))
        assert pos.scores[first] == max(pos.scores.values())
    # FFO #20 (first line): black to move, H5 best with +6
    first = parse_obf(lines[0])
    assert first.state.to_play == 0
    assert first.scores[Reversi.parse_action("h5")] == 6
    board0 = lines[0].split()[0]
    assert disc_counts(first.state.cells) == (board0.count("X"), board0.count("O"))
    assert first.state.cells[0:8] == (1, 1, 1, 2, 1, 1, 1, 1)  # XXXOXXXX on rank 1


def _exact_score(s: ReversiState) -> int:
    """Perfect-play final disc difference for the side to move, empties to the winner
    (the FFO/WOF scoring), by plain negamax."""
    acts = GAME.actions(s)
    if not acts:
        black, white = disc_counts(s.cells)
        diff = black - white
        diff += (64 - black - white) * ((diff > 0) - (diff < 0))
        return diff if s.to_play == 0 else -diff
    return max(-_exact_score(GAME.transition(s, a)) for a in acts)


def test_fforum_20_exact_scores_by_search():
    """FFO #20 has 6 empties: solving it with our rules reproduces every listed score."""
    pos = parse_obf(_obf_lines()[0])
    assert 64 - sum(disc_counts(pos.state.cells)) == 6
    assert set(pos.scores) == set(GAME.actions(pos.state))
    got = {a: -_exact_score(GAME.transition(pos.state, a)) for a in pos.scores}
    assert got == pos.scores
    assert {Reversi.action_name(a): v for a, v in got.items()} == {"h5": 6, "g6": -2, "f6": -4, "h6": -10}


def test_obf_errors_name_the_field():
    with pytest.raises(ValueError, match="side to move"):
        parse_obf("-" * 64 + " Z;")
    with pytest.raises(ValueError, match="64 characters"):
        parse_obf("-" * 63 + " X;")
    with pytest.raises(ValueError, match="move:score"):
        parse_obf("-" * 64 + " X; Q9:+2;")


# -- heuristic -----------------------------------------------------------------------------
def test_package_weights_match_shared_file():
    shared = SHARED / "data" / "reversi" / "heuristic_weights.txt"
    rows = [
        tuple(int(v) for v in ln.split())
        for ln in shared.read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    assert heuristic_weights() == tuple(rows)
    w = heuristic_weights()
    assert w[0][0] == 100 and w[1][1] == -20 and w[0][2] == 11 and w[2][0] == 10


def test_heuristic_policy_picks_highest_weight_and_breaks_ties_uniformly():
    policy = HeuristicPolicy()
    s = GAME.initial_state()
    acts = GAME.actions(s)  # d3 c4 f5 e6: weights 4, 4, 4, 4 (row 2 col 3 = 4, ...)
    w = heuristic_weights()
    assert [w[a // 8][a % 8] for a in acts] == [4, 4, 4, 4]
    assert policy.best_moves(acts) == acts
    rng = random.Random(3)
    counts = {a: 0 for a in acts}
    for _ in range(4000):
        counts[policy(GAME, s, acts, rng)] += 1
    assert all(900 < c < 1100 for c in counts.values()), counts
    # corner beats everything; a1 (100) vs b2 (-20) vs c3 (5) vs c1 (11)
    assert policy(GAME, s, [9, 18, 0, 2], rng) == 0
    assert policy.best_moves([9, 18, 2]) == [2]
    # transposition matters: c1 (row 0, col 2) = 11, a3 (row 2, col 0) = 10
    assert policy.best_moves([2, 16]) == [2]
    assert policy(GAME, s, [PASS], rng) == PASS


# -- cross-check against OpenSpiel ---------------------------------------------------------
def _spiel_cells(t) -> tuple[int, ...]:
    marks = {"-": 0, "x": 1, "o": 2}
    rows = [ln for ln in str(t).splitlines() if ln[:1].isdigit()]
    assert len(rows) == 8
    return tuple(marks[ch] for ln in rows for ch in ln.split()[1:9])


def _cross_check(n_games: int, seed: int, heuristic_every: int = 3) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    spiel_game = pyspiel.load_game("othello")
    rng = random.Random(seed)
    policy = HeuristicPolicy()
    passes = 0
    results = {1.0: 0, -1.0: 0, 0.0: 0}
    for g in range(n_games):
        s = GAME.initial_state()
        t = spiel_game.new_initial_state()
        # some games follow the heuristic policy (more corner play, different endings)
        use_heuristic = g % heuristic_every == 0
        while True:
            assert GAME.is_terminal(s) == t.is_terminal(), (g, s)
            if t.is_terminal():
                break
            acts = GAME.actions(s)
            assert acts == t.legal_actions(), (g, GAME.render(s))
            assert GAME.to_play(s) == t.current_player()
            a = policy(GAME, s, acts, rng) if use_heuristic else rng.choice(acts)
            passes += a == PASS
            prev = s
            s = GAME.transition(s, a)
            t.apply_action(a)
            assert s.cells == _spiel_cells(t)
            r = GAME.reward(prev, a, s)
            if not t.is_terminal():
                assert r == 0.0
        black, white = disc_counts(s.cells)
        sign = (black > white) - (black < white)
        assert t.returns() == [float(sign), float(-sign)]
        assert r == pytest.approx(((black - white) if prev.to_play == 0 else (white - black)) / 64)
        results[float(sign)] += 1
    assert results[1.0] > 0 and results[-1.0] > 0


def test_cross_check_openspiel_1000_games():
    _cross_check(1000, seed=12)
