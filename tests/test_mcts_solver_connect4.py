"""MCTS-Solver proves Connect 4 endgames and agrees with the exact solver."""

from __future__ import annotations

from pathlib import Path

import pytest

from playout.domains.connect4 import Connect4
from playout.domains.connect4_solver import Solver as ExactSolver
from playout.mcts import StatefulSolver

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4" / "Test_L3_R1"


def decided_positions(n):
    rows = [line.split() for line in DATA.read_text().splitlines() if line.strip()]
    # few moves left: 32+ stones played, a decided (non-draw) value
    return [(m, int(s)) for m, s in rows if len(m) >= 32 and int(s) != 0][:n]


@pytest.mark.parametrize("moves,score", decided_positions(40))
def test_mcts_solver_proves_value_and_keeps_win(moves, score):
    game = Connect4()
    root = Connect4.from_moves(moves)
    res = StatefulSolver(game, root_state=root, mcts_solver=True, transpositions=True,
                         discount_factor=0.7, seed=0).run_tree_search(iterations=50_000)
    assert res.proven == (1 if score > 0 else -1)
    assert res.iterations < 50_000  # stopped as soon as the root was proven
    if score > 0:
        exact = ExactSolver()
        after = moves + str(res.action + 1)
        assert exact.solve(after) < 0  # the opponent to move is lost: the win is kept
