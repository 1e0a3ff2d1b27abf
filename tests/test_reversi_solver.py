"""The exact Othello endgame solver against the FFO scores, and as the oracle for MCTS
from endgame roots (side to move, passes, colour symmetry, MCTS-Solver proofs)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from playout.domains.reversi import PASS, Reversi, ReversiState, disc_counts, parse_obf
from playout.domains.reversi_solver import Solver

OBF = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "othello" / "fforum-20-39.obf"
GAME = Reversi()


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(21)


def _obf():
    if not OBF.exists():
        pytest.skip(f"shared data missing: {OBF}")
    return [parse_obf(ln) for ln in OBF.read_text().splitlines() if ln.strip()]


#: Scores of the shared file that our solver does not reproduce, with the value we hold.
#: Line 12 (FFO #31, black to move, 20 empties) lists G1:-30; after g1 white wins by 32
#: (principal variation h1 b2 a4 a2 a1 g2 h2 g7 a8 b7 g3 h5 h4 h3 g4 g6 g8 h8 h7, final
#: 16-48), which a second search without transposition table or our move ordering
#: confirms (``test_fforum_line_12_g1_by_a_plain_search``); every other one of the
#: file's 182 scores is reproduced.
ERRATA = {(12, "g1"): -32}


def _expected(line: int, pos) -> dict[int, int]:
    want = dict(pos.scores)
    for (ln, move), v in ERRATA.items():
        if ln == line:
            want[Reversi.parse_action(move)] = v
    return want


def _check_lines(solver, first, last):
    wrong = []
    for i, pos in enumerate(_obf()[first - 1:last], first):
        got = solver.move_scores(pos.state)
        want = _expected(i, pos)
        if got != want:
            wrong.append((i, {Reversi.action_name(a): (v, want.get(a)) for a, v in got.items()
                              if v != want.get(a)}))
    assert not wrong, wrong


def test_fforum_lines_1_to_6_every_move_score(solver):
    """FFO #20-25 (6-19 empties): every listed move's exact score, and no move unlisted."""
    _check_lines(solver, 1, 6)


@pytest.mark.slow
def test_fforum_lines_7_to_18_every_move_score(solver):
    """FFO #26-37 (20-22 empties): about 70 s of one core here."""
    _check_lines(solver, 7, 18)


@pytest.mark.slow
def test_fforum_lines_19_20_best_score(solver):
    """FFO #38-39 (24 and 26 empties): the position's exact score (about 55 s); every
    move's score there takes about 15 minutes, run by hand (see the report)."""
    for i, pos in enumerate(_obf()[18:20], 19):
        assert solver.solve(pos.state) == max(pos.scores.values()), i


@pytest.mark.slow
def test_fforum_line_12_g1_by_a_plain_search():
    """The erratum: a fail-hard alpha-beta with no table and fastest-first ordering only
    (its own code, on the same move generator, which test_compiled_primitives checks
    against the Python rules) finds that white, after black's g1, scores exactly 32."""
    import numpy as np
    from numba import njit

    from playout.domains.reversi_nb import flips_of, moves_of, popcount
    from playout.domains.reversi_solver import final_score

    @njit
    def plain(own, opp, alpha, beta):
        moves = moves_of(own, opp)
        if moves == 0:
            if moves_of(opp, own) == 0:
                return final_score(own, opp)
            return -plain(opp, own, -beta, -alpha)
        sqs = np.empty(32, np.int64)
        keys = np.empty(32, np.int64)
        n = 0
        for sq in range(64):
            b = np.uint64(1) << np.uint64(sq)
            if moves & b:
                f = flips_of(own, opp, sq)
                sqs[n] = sq
                keys[n] = popcount(moves_of(opp & ~f, own | f | b))
                n += 1
        order = np.argsort(keys[:n], kind="mergesort")
        for j in range(n):
            sq = sqs[order[j]]
            b = np.uint64(1) << np.uint64(sq)
            f = flips_of(own, opp, sq)
            v = -plain(opp & ~f, own | f | b, -beta, -alpha)
            if v >= beta:
                return beta
            if v > alpha:
                alpha = v
        return alpha

    pos = _obf()[11]
    child = GAME.transition(pos.state, Reversi.parse_action("g1"))
    own, opp = Solver._boards(child)
    assert plain(own, opp, np.int64(31), np.int64(32)) == 32  # white's score >= 32
    assert plain(own, opp, np.int64(32), np.int64(33)) == 32  # and not above 32
    assert pos.scores[Reversi.parse_action("g1")] == -30  # what the file says


def _negamax(s: ReversiState, alpha: int, beta: int) -> int:
    """Independent reference: alpha-beta over the Python rules (empties to the winner)."""
    acts = GAME.actions(s)
    if not acts:
        black, white = disc_counts(s.cells)
        diff = black - white
        diff += (64 - black - white) * ((diff > 0) - (diff < 0))
        return diff if s.to_play == 0 else -diff
    best = -1000
    for a in acts:
        v = -_negamax(GAME.transition(s, a), -beta, -alpha)
        if v > best:
            best = v
            alpha = max(alpha, v)
            if alpha >= beta:
                break
    return best


def _endgame(empties: int, seed: int) -> ReversiState:
    """A position reached by uniformly random play with ``empties`` empty squares left
    (or the game's end if it comes first)."""
    rng = random.Random(seed)
    s = GAME.initial_state()
    while sum(v == 0 for v in s.cells) > empties and GAME.actions(s):
        s = GAME.transition(s, rng.choice(GAME.actions(s)))
    return s


def test_random_endgames_agree_with_python_negamax_passes_included(solver):
    passes = 0
    checked = 0
    for seed in range(40):
        s = _endgame(7, seed)
        if not GAME.actions(s):
            continue
        for a, v in solver.move_scores(s).items():
            t = GAME.transition(s, a)
            assert v == -_negamax(t, -65, 65), (seed, Reversi.action_name(a))
            checked += 1
        passes += GAME.actions(s) == [PASS]
    assert checked > 100


def test_finished_and_pass_positions(solver):
    full = ReversiState(tuple([1] * 40 + [2] * 24), 1)
    assert solver.solve(full) == -16 and solver.move_scores(full) == {}
    # rank 1 black, one white disc on h8: neither side can move; empties go to black
    s = ReversiState(tuple([1] * 8 + [0] * 55 + [2]), 1)
    assert GAME.actions(s) == []
    assert solver.solve(s) == -(64 - 2)
    assert solver.solve(ReversiState(s.cells, 0)) == 62


def test_colour_swap_and_side_to_move_give_the_same_score(solver):
    for pos in _obf()[:4]:
        s = pos.state
        swapped = ReversiState(tuple({0: 0, 1: 2, 2: 1}[v] for v in s.cells), 1 - s.to_play)
        assert solver.move_scores(swapped) == pos.scores


# -- the solver as the oracle for MCTS from endgame roots -------------------------------
def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def _swap(s: ReversiState) -> ReversiState:
    """The same game with the colours exchanged (black discs white, white to move for black)."""
    return ReversiState(tuple({0: 0, 1: 2, 2: 1}[v] for v in s.cells), 1 - s.to_play)


def test_mcts_from_a_white_to_move_root_equals_its_colour_swap():
    """FFO #35 (line 16, white to move): a search from the colour-swapped position (black
    to move) is the same game, so with one seed both engines give identical statistics;
    a side-to-move or reward-frame fault at a non-initial root breaks this."""
    from playout.mcts import compiled
    from playout.mcts.stateful import StatefulSolver

    pos = _obf()[15]
    assert pos.state.to_play == 1
    a = compiled.search("reversi", pos.state, 3000, discount=1.0, seed=5)
    b = compiled.search("reversi", _swap(pos.state), 3000, discount=1.0, seed=5)
    assert a.stats == b.stats and a.action == b.action

    def python(state):
        return StatefulSolver(GAME, exploration_constant=1.4, discount_factor=1.0, simulation_depth_limit=999,
                              seed=5, root_state=state).run_tree_search(iterations=300)

    assert python(pos.state).stats == python(_swap(pos.state)).stats


def _endgames(empties: int, count: int) -> list[ReversiState]:
    out = []
    seed = 0
    while len(out) < count:
        s = _endgame(empties, seed)
        if GAME.actions(s):
            out.append(s)
        seed += 1
    return out


def test_compiled_mcts_keeps_the_exact_result_of_small_endgames(solver):
    """20 random 8-empty endgames, 20,000 iterations (discount 1): the chosen move keeps
    the game-theoretic result in all 20 and is an exact best move in at least 15
    (measured: 16 of these 20; 32 of 40 over seeds 0-39)."""
    from playout.mcts import compiled

    keep = best = 0
    for i, s in enumerate(_endgames(8, 20)):
        scores = solver.move_scores(s)
        top = max(scores.values())
        r = compiled.search("reversi", s, 20000, discount=1.0, seed=i)
        keep += _sign(scores[r.action]) == _sign(top)
        best += scores[r.action] == top
    assert keep == 20
    assert best >= 15


def test_mcts_solver_proofs_agree_with_the_exact_solver(solver):
    """MCTS-Solver (StatefulSolver(mcts_solver=True)) on 12 random 8-empty endgames: it
    proves every root (measured: within 6,600 iterations), and each proven win / loss,
    at the root and on every proven root edge, has the sign of the exact score."""
    from playout.mcts.stateful import StatefulSolver

    proven = 0
    for i, s in enumerate(_endgames(8, 12)):
        exact = solver.solve(s)
        scores = solver.move_scores(s)
        st = StatefulSolver(GAME, mcts_solver=True, exploration_constant=1.4, discount_factor=1.0,
                            simulation_depth_limit=999, seed=i, root_state=s)
        res = st.run_tree_search(iterations=20000)
        if res.proven:
            proven += 1
            assert res.proven == _sign(exact), (i, res.proven, exact)
            if res.proven > 0:  # a proven win plays a winning move (not always the widest)
                assert scores[res.action] > 0
        for edge in st.root.edges.values():
            if edge.proven:
                assert edge.proven == _sign(scores[edge.action]), (i, Reversi.action_name(edge.action))
    assert proven == 12
