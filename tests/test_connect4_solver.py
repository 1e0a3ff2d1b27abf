"""The exact Connect 4 solver against Pascal Pons' scored test positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from playout.domains import connect4_solver as cs

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"


@pytest.fixture(scope="module")
def solver() -> cs.Solver:
    return cs.Solver()


def _positions(name: str):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"shared data missing: {path}")
    return cs.read_test_file(path)


@pytest.mark.parametrize("name,every", [("Test_L3_R1", 1), ("Test_L1_R1", 1), ("Test_L2_R2", 10)])
def test_scores_match_test_file(solver, name, every):
    data = _positions(name)[::every]
    wrong = [(m, want, solver.solve(m)) for m, want in data if solver.solve(m) != want]
    assert not wrong, f"{len(wrong)} of {len(data)} wrong, e.g. {wrong[:3]}"


def test_immediate_win_and_forced_loss(solver):
    # first player has three in the bottom row (d, e, f) with both ends open: wins at once
    assert solver.solve("445566") == 18  # (43 - 6) // 2
    # after 4455 6 the second player must block; the first player still has a double threat
    assert solver.solve("44556") < 0  # second player to move, lost


def test_move_scores_agree_with_solve(solver):
    for moves, want in _positions("Test_L3_R1")[:50]:
        scores = solver.move_scores(moves)
        legal = [s for s in scores if s is not None]
        assert max(legal) == want
        for col, s in enumerate(scores):
            if s is None:
                continue
            try:
                child = -solver.solve(moves + str(col + 1))
            except ValueError:  # the move wins at once
                child = (43 - len(moves)) // 2
            assert s == child


def test_bad_moves_raise_naming_the_move():
    with pytest.raises(ValueError, match="move 2"):
        cs.bitboard_from_moves("48")
    with pytest.raises(ValueError, match="column 1 is full"):
        cs.bitboard_from_moves("1111111")


def test_read_test_file_names_line(tmp_path):
    p = tmp_path / "bad"
    p.write_text("4455 3\nnot a line\n")
    with pytest.raises(ValueError, match=r"bad:2"):
        cs.read_test_file(p)
