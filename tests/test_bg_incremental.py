"""Incremental (NNUE-style) play selection equals full evaluation; fast rollouts equal the reference."""

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, game_result, is_race
from playout.backgammon.evaluators import NeuralNet, eval_after_move
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.incremental import best_plays, new_workspace
from playout.backgammon.moves import MAX_MOVES, legal_moves, random_play_positions
from playout.backgammon.net import N_BASE_INPUTS, N_INPUTS, pad_inputs
from playout.backgammon.moves import new_workspace as moves_workspace
from playout.backgammon.rollout import rollout_trials, rollout_trials_reference
from playout.backgammon.search import _R1, _R2, best_reply

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
IDS = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()


_random_positions = random_play_positions  # pre-roll boards of random-play games


def _net_with_shot_weights() -> NeuralNet:
    """The shipped net with random weights on the shot and blockade inputs (202 on; exercises
    their leaf update, in the contact and the race net)."""
    base = NeuralNet()
    W1 = pad_inputs(base.W1).copy()  # (loaded trimmed: widen it again)
    W1[:, N_BASE_INPUTS:, :] = np.random.default_rng(5).normal(0, 0.5, size=W1[:, N_BASE_INPUTS:, :].shape)
    return NeuralNet.from_arrays(W1, base.b1, base.W2, base.b2, name="shots")


def _net_with_crashed_slice() -> NeuralNet:
    """The shipped net plus a third, *crashed* slice (:func:`playout.backgammon.classes.net_index`):
    its contact slice with random noise on every weight, the 244 inputs included (so the
    crashed slice weighs the blockade and timing inputs the 218-input contact slice does not)."""
    base = NeuralNet()  # (its contact and race slices; a shipped crashed slice is replaced)
    rng = np.random.default_rng(11)
    W1 = pad_inputs(base.W1)[:2]
    W1 = np.concatenate([W1, W1[:1] + rng.normal(0, 0.3, size=W1[:1].shape)])
    b1 = np.concatenate([base.b1[:2], base.b1[:1] + rng.normal(0, 0.3, size=base.b1[:1].shape)])
    W2 = np.concatenate([base.W2[:2], base.W2[:1] + rng.normal(0, 0.3, size=base.W2[:1].shape)])
    b2 = np.concatenate([base.b2[:2], base.b2[:1]])
    return NeuralNet.from_arrays(W1, b1, W2, b2, name="crashed-slice")


def _checked_plays(net, args, ws, rows, b, x, h, o, ref):
    """Each distinct play of the 21 rolls from ``b`` (``best_plays`` into workspace ``ws``), after
    checking that its incremental evaluation equals the full one (:func:`eval_after_move`)."""
    boards_c, probs_c, count = ws[5], ws[6], ws[8]
    best_plays(net.W1, net.b1, net.W2, net.b2, b, 0, 0, True, ws, rows)
    for j in range(count[0]):
        m = boards_c[j]
        eval_after_move(*args, m, x, h, o, ref)
        np.testing.assert_allclose(probs_c[j], ref, rtol=0, atol=1e-12)
        yield m


def test_incremental_equals_full_evaluation_across_the_crashed_boundary():
    """A three-slice net: plays that cross between contact and crashed (either way) are valued
    by the leaf's own slice, as the full evaluation does."""
    from bgboards import points_board, random_game_boards

    from playout.backgammon.classes import is_crashed

    net = _net_with_crashed_slice()
    assert net.W1.shape == (3, N_INPUTS, net.hidden)
    args = net.kernel_args()
    ws = new_workspace(net.W2, args[5])
    boards_c = ws[5]
    rows = np.zeros(21, dtype=np.int64)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    mws = moves_workspace()
    x, h, o, oi, ref = np.zeros(N_INPUTS), np.zeros(net.hidden), np.zeros(5), np.zeros(5), np.zeros(5)
    boards = random_game_boards(np.random.default_rng(7), 12)
    # every crashed base and each contact base that a play can turn crashed, and a few others
    positions = [b for b in boards if not is_race(b)][::6]
    # crashed (8 in play <= 6 + three on the 2-point - 1); a 1 played 2 -> 1 un-crashes it
    # (8 > 6 + 2 - 1), rare in random games
    positions.append(points_board({2: 3, 6: 5}, {3: 2, 19: 5, 20: 4, 21: 4}))
    assert is_crashed(positions[-1])
    into = out_of = to_race = crashed_leaves = 0
    for b in positions:
        for m in _checked_plays(net, args, ws, rows, b, x, h, o, ref):
            if game_result(m) == 0 and not is_race(m):
                into += is_crashed(m) and not is_crashed(b)
                out_of += is_crashed(b) and not is_crashed(m)
                crashed_leaves += is_crashed(m)
            to_race += is_race(m) and is_crashed(b)
        for k in range(21):
            bi, _ = best_reply(*args, b, _R1[k], _R2[k], moves, mws, x, h, o, oi)
            assert np.array_equal(boards_c[rows[k]], moves[bi])
    assert into > 50 and out_of > 0 and to_race > 0 and crashed_leaves > 1000


def test_two_slice_evaluation_is_unchanged_and_the_crashed_slice_answers_crashed_boards():
    from bgboards import random_game_boards

    from playout.backgammon.classes import is_bearoff, is_crashed
    from playout.backgammon.net import encode, forward, sanitize

    three = _net_with_crashed_slice()
    base = NeuralNet()  # its contact and race slices: a two-slice net
    two = NeuralNet.from_arrays(base.W1[:2], base.b1[:2], base.W2[:2], base.b2[:2], name="two")
    boards = np.array(random_game_boards(np.random.default_rng(3), 20), dtype=np.int8)
    p3, p2 = three.evaluate(boards), two.evaluate(boards)
    W1 = pad_inputs(two.W1)
    x, h, ref = np.zeros(N_INPUTS), np.zeros(two.hidden), np.zeros(5)
    crashed = np.array([is_crashed(b) for b in boards])
    assert 100 < crashed.sum() < len(boards) / 2
    for b, q2, q3, c in zip(boards, p2, p3, crashed):
        if game_result(b) != 0 or is_bearoff(b):
            continue  # exact results / bear-off database: no net
        # the two-slice net: the contact net for a crashed board, as before the third slice
        encode(b, x)
        forward(W1, two.b1, two.W2, two.b2, 1 if is_race(b) else 0, x, h, ref)
        sanitize(ref)
        np.testing.assert_allclose(q2, ref, rtol=0, atol=1e-12)
        if c:
            forward(three.W1, three.b1, three.W2, three.b2, 2, x, h, ref)
            sanitize(ref)
            np.testing.assert_allclose(q3, ref, rtol=0, atol=1e-12)
            assert np.abs(q3 - q2).max() > 1e-3
        else:
            np.testing.assert_allclose(q3, q2, rtol=0, atol=1e-12)


@pytest.mark.parametrize("which", ["shipped", "shot-weights"])
def test_incremental_evaluation_equals_full_evaluation(which):
    net = NeuralNet() if which == "shipped" else _net_with_shot_weights()
    args = net.kernel_args()
    ws = new_workspace(net.W2, args[5])  # with the bear-off database, as the rollouts
    boards_c, probs_c = ws[5], ws[6]
    rows = np.zeros(21, dtype=np.int64)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    mws = moves_workspace()
    x, h, o, oi, ref = np.zeros(N_INPUTS), np.zeros(net.hidden), np.zeros(5), np.zeros(5), np.zeros(5)
    positions = [board_from_position_id(p) for p in IDS[::60]] + _random_positions(6, seed=3)[::3]
    leaves = races = hits = ends = 0
    for b in positions:
        # every distinct play of the 21 rolls, evaluated incrementally, equals the full evaluation
        for m in _checked_plays(net, args, ws, rows, b, x, h, o, ref):
            leaves += 1
            races += is_race(m) and not is_race(b)
            hits += m[0] > b[0]
            ends += game_result(m) != 0
        # and the best play of each roll is the one the full 1-ply search picks
        for k in range(21):
            bi, _ = best_reply(*args, b, _R1[k], _R2[k], moves, mws, x, h, o, oi)
            assert np.array_equal(boards_c[rows[k]], moves[bi]), (list(b), _R1[k], _R2[k])
            np.testing.assert_allclose(probs_c[rows[k]], oi, rtol=0, atol=1e-12)
    assert leaves > 20_000 and hits > 1_000 and races > 0 and ends > 0  # the sample covers them
    # one roll only (the rollout's no-VR path) gives the same play
    b = positions[5]
    best_plays(net.W1, net.b1, net.W2, net.b2, b, 6, 4, False, ws, rows)
    bi, _ = best_reply(*args, b, 6, 4, moves, mws, x, h, o, oi)
    assert np.array_equal(boards_c[rows[0]], moves[bi])


@pytest.mark.parametrize("truncate, vr", [(0, True), (7, True), (0, False)])
def test_fast_rollout_equals_reference_kernel(truncate, vr):
    net = NeuralNet()
    starts = [STARTING_BOARD, board_from_position_id(IDS[1234]), board_from_position_id(IDS[2500])]
    for i, b in enumerate(starts):
        fast = np.zeros((24, 5))
        ref = np.zeros((24, 5))
        rollout_trials(*net.kernel_args(), b, 30, 24, 17 + i, truncate, vr, 0, fast)
        rollout_trials_reference(*net.kernel_args(), b, 30, 24, 17 + i, truncate, vr, ref)
        np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-9)
        assert np.abs(ref).sum() > 0
