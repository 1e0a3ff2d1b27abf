"""Incremental (NNUE-style) play selection equals full evaluation; fast rollouts equal the reference."""

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, flip, game_result, is_race
from playout.backgammon.evaluators import NeuralNet, eval_after_move
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.incremental import best_plays, new_workspace
from playout.backgammon.moves import MAX_MOVES, legal_moves
from playout.backgammon.net import N_BASE_INPUTS, N_INPUTS, pad_inputs
from playout.backgammon.moves import new_workspace as moves_workspace
from playout.backgammon.rollout import rollout_trials, rollout_trials_reference
from playout.backgammon.search import _R1, _R2, best_reply

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
IDS = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()


def _random_positions(n_games: int, seed: int) -> list[np.ndarray]:
    """Pre-roll boards met in random-play games (bar entries, hits, races, bear-offs)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        b = STARTING_BOARD.copy()
        while game_result(b) == 0:
            out.append(b)
            ms = legal_moves(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            m = ms[rng.integers(len(ms))]
            if game_result(m) != 0:
                break
            b = flip(m)
    return out


def _net_with_shot_weights() -> NeuralNet:
    """The shipped net with random weights on the shot and blockade inputs (202 on; exercises
    their leaf update, in the contact and the race net)."""
    base = NeuralNet()
    W1 = pad_inputs(base.W1).copy()  # (loaded trimmed: widen it again)
    W1[:, N_BASE_INPUTS:, :] = np.random.default_rng(5).normal(0, 0.5, size=W1[:, N_BASE_INPUTS:, :].shape)
    return NeuralNet.from_arrays(W1, base.b1, base.W2, base.b2, name="shots")


@pytest.mark.parametrize("which", ["shipped", "shot-weights"])
def test_incremental_evaluation_equals_full_evaluation(which):
    net = NeuralNet() if which == "shipped" else _net_with_shot_weights()
    args = net.kernel_args()
    ws = new_workspace(net.W2, args[5])  # with the bear-off database, as the rollouts
    boards_c, probs_c, count = ws[5], ws[6], ws[8]
    rows = np.zeros(21, dtype=np.int64)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    mws = moves_workspace()
    x, h, o, oi, ref = np.zeros(N_INPUTS), np.zeros(net.hidden), np.zeros(5), np.zeros(5), np.zeros(5)
    positions = [board_from_position_id(p) for p in IDS[::60]] + _random_positions(6, seed=3)[::3]
    leaves = races = hits = ends = 0
    for b in positions:
        best_plays(net.W1, net.b1, net.W2, net.b2, b, 0, 0, True, ws, rows)
        # every distinct play of the 21 rolls, evaluated incrementally, equals the full evaluation
        for j in range(count[0]):
            m = boards_c[j]
            eval_after_move(*args, m, x, h, o, ref)
            np.testing.assert_allclose(probs_c[j], ref, rtol=0, atol=1e-12)
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
