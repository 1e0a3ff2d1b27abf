"""MCTS-Solver proves Connect 4 endgames and agrees with the exact solver."""

from __future__ import annotations

import math
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


def pons_value(stones, score, discount):
    """The exact discounted value for the mover (+1 for a win, -1 for a loss, at the
    move that makes four, k plies from now: +-discount**(k-1)) of a position with
    ``stones`` discs and Pascal Pons' score ``score`` (a win on the mover's move with
    ``n`` discs on the board scores ``(43 - n) // 2``; the loser's score is its negative).
    """
    if score == 0:
        return 0.0
    parity = 1 if score > 0 else 0  # the mover makes four on odd plies, the opponent on even
    for k in (44 - stones - 2 * abs(score), 43 - stones - 2 * abs(score)):
        if k % 2 == parity:
            return math.copysign(discount ** (k - 1), score)
    raise AssertionError("unreachable")


def test_pons_value_conversion():
    assert pons_value(35, (43 - 35) // 2, 0.7) == 1.0  # a win at once
    assert pons_value(36, (43 - 36) // 2, 0.7) == 1.0
    assert pons_value(36, -((43 - 37) // 2), 0.7) == pytest.approx(-0.7)  # the opponent wins next
    assert pons_value(36, (43 - 38) // 2, 0.7) == pytest.approx(0.49)  # our second move wins


def walk_bounds(solver, root_moves, exact, limit=400):
    """Check the bounds of up to ``limit`` tree nodes and their edges against the exact
    solver; return (#nodes checked, #solved nodes or edges)."""
    g = solver.discount
    stack, seen, checked, solved = [(solver.root, root_moves)], set(), 0, 0
    while stack and checked < limit:
        node, moves = stack.pop()
        if node.terminal or id(node) in seen:
            continue
        seen.add(id(node))
        checked += 1
        n = node.state.moves
        v = pons_value(n, exact.solve(moves), g)
        assert node.lo - 1e-12 <= v <= node.hi + 1e-12, (moves, node.lo, node.hi, v)
        if node.lo == node.hi:
            solved += 1
            assert node.lo == pytest.approx(v, abs=1e-12), moves
        scores = exact.move_scores(moves)
        for col, edge in node.edges.items():
            ev = pons_value(n, scores[col], g)
            assert edge.lo - 1e-12 <= ev <= edge.hi + 1e-12, (moves, col, edge.lo, edge.hi, ev)
            if edge.lo == edge.hi:
                solved += 1
                assert edge.lo == pytest.approx(ev, abs=1e-12), (moves, col)
            (child, _), = edge.outcomes.values()
            stack.append((child, moves + str(col + 1)))
    return checked, solved


@pytest.mark.parametrize("moves,score", decided_positions(12))
def test_mcts_solver_bounds_hold_the_exact_discounted_value(moves, score):
    # every bound in the tree holds the exact discounted value from Pons' score
    # (fastest win, slowest loss); solved nodes equal it
    game = Connect4()
    solver = StatefulSolver(game, root_state=Connect4.from_moves(moves), mcts_solver=True,
                            transpositions=True, discount_factor=0.7, seed=0)
    res = solver.run_tree_search(iterations=50_000)
    assert res.proven == (1 if score > 0 else -1)
    if res.value is not None:
        assert res.value == pytest.approx(pons_value(len(moves), score, 0.7), abs=1e-12)
    checked, solved = walk_bounds(solver, moves, ExactSolver())
    assert checked > 1 and solved > 0


class BoundedConnect4(Connect4):
    def value_bounds(self):
        return (-1.0, 1.0)  # rewards are a final +1 / 0 / -1


def some_positions(n, value):
    rows = [line.split() for line in DATA.read_text().splitlines() if line.strip()]
    return [(m, int(s)) for m, s in rows if len(m) >= 34 and (int(s) > 0) - (int(s) < 0) == value][:n]


@pytest.mark.parametrize("moves,score", some_positions(6, 1) + some_positions(6, -1) + some_positions(6, 0))
def test_mcts_solver_undiscounted_value_is_the_result(moves, score):
    # undiscounted with declared bounds [-1, 1], a proven win is worth the maximum 1:
    # the exact value is proven with the result (a draw, 0, once every line is solved)
    solver = StatefulSolver(BoundedConnect4(), root_state=Connect4.from_moves(moves), mcts_solver=True,
                            transpositions=True, seed=0)
    res = solver.run_tree_search(iterations=50_000)
    sign = (score > 0) - (score < 0)
    assert res.value == sign and res.proven == sign, (res.value, res.iterations)
    assert res.iterations < 50_000
    exact = ExactSolver()
    after = exact.move_scores(moves)[res.action]
    assert (after > 0) - (after < 0) == sign  # the move keeps the value
    checked, solved = walk_bounds(solver, moves, exact)
    assert solved > 0
