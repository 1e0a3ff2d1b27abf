"""Blockade inputs (gnubg's escapes / containment / mobility): hand-counted values, a direct
point-by-point re-derivation on real positions, and old networks unchanged by the new inputs."""

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, flip
from playout.backgammon.features import ESC, N_ESCAPE_SIDE
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.net import N_ESC_INPUTS, N_INPUTS, N_SHOT_INPUTS, encode, encode_flipped
from bgboards import assert_evaluates_as_prefix, points_board, random_game_boards

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
DATA = Path(__file__).resolve().parents[1] / "src" / "playout" / "backgammon" / "data"
E = N_SHOT_INPUTS  # first blockade input


_board = points_board


def _inputs(b):
    x = np.zeros(N_INPUTS)
    encode(b, x)
    return x[E:E + N_ESCAPE_SIDE], x[E + N_ESCAPE_SIDE:E + 2 * N_ESCAPE_SIDE]


def test_escape_table_by_hand():
    assert ESC[0] == 36  # open board
    assert ESC[0b111111] == 0  # a six-prime straight in front: every roll's both dice blocked
    assert ESC[0b1] == 35  # the next point blocked: only 1-1 (both steps land there)
    # the point 6 pips on blocked: 1-5, 5-1, 2-4, 4-2, 3-3 land on it, 6-6 passes it: 36 - 6
    assert ESC[1 << 5] == 30
    # 5, 7 and 12 pips on (the opponent's back checker at the start): 4 + 6 + 1 (6-6) + 1 (5-5)
    assert ESC[(1 << 4) | (1 << 6) | (1 << 11)] == 24


def test_checker_behind_a_six_prime():
    # the mover holds its points 2..7 and three on 13; the opponent's last checker is on the
    # mover's 1 point (its 24), the other fourteen on its own 6 point (the mover's 19)
    b = _board({2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 13: 3}, {1: 1, 19: 14})
    a, o = _inputs(b)
    # the side to act: the trapped checker has no escape, containment 1 (and squared)
    assert a[0] == 0.0 and a[1] == 1.0 and a[2] == 1.0 and a[3] == 1.0 and a[4] == 1.0
    # its mobility: two on 7 (1 pip out of home) and three on 13 (7), 36 escapes each
    assert a[5] == pytest.approx((2 * 1 + 3 * 7) * 36 / 3600)
    # the opponent: the mover's rearmost checker (13) runs freely, nothing to contain behind
    # its 9 point, and its one made point (its 6) blocks at most 5 rolls (of a checker 5 pips
    # behind it: 1-4, 4-1, 2-3, 3-2, 5-5)
    assert o[0] == 1.0 and o[1] == 0.0 and o[2] == 0.0
    assert o[3] == pytest.approx(5 / 36) and o[4] == pytest.approx((5 / 36) ** 2)
    assert o[5] == 0.0  # its checker on its 24 cannot move past the prime; the rest are home


def test_starting_position_is_symmetric():
    a, o = _inputs(STARTING_BOARD)
    np.testing.assert_array_equal(a, o)
    assert a[0] == pytest.approx(24 / 36)  # the back checkers: see the table test
    # and the encodings of a board and of its flip are the two views of one position
    b = board_from_position_id((SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()[77])
    x, xf = np.zeros(N_INPUTS), np.zeros(N_INPUTS)
    encode(b, x)
    encode_flipped(flip(b), xf)
    np.testing.assert_array_equal(x, xf)
    encode(flip(b), x)
    a, o = _inputs(b)
    np.testing.assert_array_equal(x[E:E + N_ESCAPE_SIDE], o)
    np.testing.assert_array_equal(x[E + N_ESCAPE_SIDE:E + 2 * N_ESCAPE_SIDE], a)


def _direct(b) -> np.ndarray:
    """The six inputs of the side to act of ``b`` from the definitions, point by point."""
    def made_by_opp(p):  # the opponent holds the mover's point p
        return 1 <= p <= 24 and b[p] <= -2

    def made_by_me(p):
        return 1 <= p <= 24 and b[p] >= 2

    def escapes(blocked, steps):
        """Rolls of 36 moving both dice, ``blocked(k)`` = the point k pips on is blocked."""
        n = 0
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                if not blocked(d1 + d2) and not (blocked(d1) and blocked(d2)):
                    n += 1
        return n

    # the opponent's checker on the mover's point s (0 = its bar) moves up: s + k
    def opp_esc(s):
        return escapes(lambda k: made_by_me(s + k), None)

    opp_pts = [p for p in range(1, 25) if b[p] < 0]
    s_back = 0 if b[0] > 0 else min(opp_pts)
    back = opp_esc(s_back)
    a_range = [s for s in range(0, 10) if s >= s_back]  # the mover's 9 point down to its back
    amin = min([opp_esc(s) for s in a_range], default=36)
    c_range = [s for s in range(0, 10) if s >= 1 or s_back == 0]
    cmin = min(opp_esc(s) for s in c_range)
    mob = 0
    for p in range(7, 26):
        n = int(b[p])
        if n > 0:
            mob += (p - 6) * n * escapes(lambda k, p=p: made_by_opp(p - k), None)
    a, c = 1 - amin / 36, 1 - cmin / 36
    return np.array([back / 36, a, a * a, c, c * c, mob / 3600])


def test_inputs_equal_the_definitions_on_real_and_random_positions():
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    boards = [board_from_position_id(p) for p in ids[::25]]
    boards += random_game_boards(np.random.default_rng(11), 15)  # bar checkers, deep primes, races
    on_bar = contained = 0
    for b in boards:
        a, o = _inputs(b)
        np.testing.assert_allclose(a, _direct(b), rtol=0, atol=1e-12, err_msg=str(list(b)))
        np.testing.assert_allclose(o, _direct(flip(b)), rtol=0, atol=1e-12, err_msg=str(list(b)))
        on_bar += b[0] > 0
        contained += a[1] > 0.5
    assert on_bar > 20 and contained > 20  # the sample reaches both branches


@pytest.mark.parametrize("name", ["net_distill128.npz", "net_td80.npz"])
def test_networks_saved_before_the_new_inputs_give_the_same_outputs(name):
    """A 206-input file (and a 202-input one cut from it) loads with zero rows for the inputs it
    lacks: its outputs equal the forward pass over its own inputs only, exactly."""
    from playout.backgammon.evaluators import NeuralNet
    from playout.backgammon.net import load_weights

    with np.load(DATA / name) as z:
        W1o, b1, W2, b2 = (np.ascontiguousarray(z[k], dtype=np.float64) for k in ("W1", "b1", "W2", "b2"))
    assert W1o.shape[1] == N_SHOT_INPUTS
    W1, *_ = load_weights(DATA / name)
    assert W1.shape[1] == N_INPUTS and not W1[:, N_SHOT_INPUTS:].any()
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    boards = np.array([board_from_position_id(p) for p in ids[::40]], dtype=np.int8)
    for cut in (N_SHOT_INPUTS, 202):
        W1c = np.ascontiguousarray(W1o[:, :cut])
        got = NeuralNet.from_arrays(W1c, b1, W2, b2, bearoff=False).evaluate(boards)
        assert_evaluates_as_prefix(got, boards, W1c, b1, W2, b2)


def test_shipped_blockade_net_incremental_equals_full_evaluation():
    """net_esc128 (weights on the blockade inputs): every play of every roll, as the rollouts'
    incremental evaluator values it, equals the full evaluation."""
    from playout.backgammon.evaluators import NeuralNet, eval_after_move
    from playout.backgammon.incremental import best_plays, new_workspace

    net = NeuralNet(DATA / "net_esc128.npz")
    # loaded trimmed to the blockade block (it weighs no timing input), every blockade row weighed
    assert net.W1.shape[1] == N_ESC_INPUTS and np.abs(net.W1[0, N_SHOT_INPUTS:]).min(axis=1).max() > 0
    args = net.kernel_args()
    ws = new_workspace(net.W2, args[5])
    rows = np.zeros(21, dtype=np.int64)
    x, h, o, ref = np.zeros(N_INPUTS), np.zeros(net.hidden), np.zeros(5), np.zeros(5)
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    n = 0
    for pid in ids[::400]:
        b = board_from_position_id(pid)
        best_plays(net.W1, net.b1, net.W2, net.b2, b, 0, 0, True, ws, rows)
        for j in range(ws[8][0]):
            eval_after_move(*args, ws[5][j], x, h, o, ref)
            np.testing.assert_allclose(ws[6][j], ref, rtol=0, atol=1e-12)
            n += 1
    assert n > 1000
