"""Ranked luck for variance reduction: the masks, the plays made, and an unbiased estimate."""

import numpy as np
import pytest
from test_bg_incremental import _net_with_crashed_slice, _random_positions

from playout.backgammon.board import STARTING_BOARD, is_race
from playout.backgammon.evaluators import NeuralNet
from playout.backgammon.incremental import best_plays, new_workspace
from playout.backgammon.luck import (
    MAX_KEEP,
    _hit_masks,
    _shots,
    new_luck_workspace,
    ranked_luck_plays,
)
from playout.backgammon.moves import legal_moves
from playout.backgammon.rollout import rollout, rollout_trials
from playout.backgammon.shots import (
    _RA,
    _RC,
    _best_hit,
    _masks,
    roll_targets,
    shot_stats,
)

POSITIONS = _random_positions(30, 3)


def _blot_mask(b):
    return np.int64(sum(1 << (p - 1) for p in range(1, 25) if b[p] == 1))


def test_roll_targets_equal_the_roll_by_roll_hits():
    # a single blot on t is hit by roll r exactly when roll_targets has bit t
    checked = 0
    for b in POSITIONS[::4]:
        for hitter_is_mover in (True, False):
            occ, _, blocks, nbar = _masks(b, hitter_is_mover)
            for r in range(21):
                tg = roll_targets(_RA[r], _RC[r], occ, blocks, nbar)
                for t in range(1, 25):
                    if (blocks >> t) & 1 or (occ >> t) & 1:
                        continue  # not a blot's point
                    one = np.int64(1) << t
                    assert bool((tg >> t) & 1) == (_best_hit(_RA[r], _RC[r], occ, one, blocks, nbar) > 0)
                    checked += 1
    assert checked > 50_000


def test_hit_masks_give_the_exact_shot_inputs_of_the_board_itself():
    hm = np.zeros(25, dtype=np.int64)
    with_shots = 0
    for b in POSITIONS:
        _hit_masks(b, hm)
        got = _shots(_blot_mask(b), hm)
        assert got == pytest.approx(shot_stats(b, False), abs=1e-12)
        with_shots += got[0] > 0
    assert with_shots > 200


@pytest.fixture(scope="module", params=["shipped", "crashed-slice"])
def kernels(request):
    # "crashed-slice": a third, crashed net (classes.net_index): the ranking's slopes and the
    # exact values then come from the base's / the play's own slice
    net = NeuralNet() if request.param == "shipped" else _net_with_crashed_slice()
    _, W1, b1, W2, b2, _, _ = net.kernel_args()
    return (W1, b1, W2, b2), new_workspace(W2), new_luck_workspace(W1.shape[1])


def test_the_play_made_is_the_exact_best_and_ranked_values_never_exceed_it(kernels):
    (W1, b1, W2, b2), ws, lws = kernels
    rows = np.zeros(22, dtype=np.int64)
    full = np.zeros(22, dtype=np.int64)
    rng = np.random.default_rng(5)
    exact_share = []
    for b in POSITIONS[::3]:
        d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
        best_plays(W1, b1, W2, b2, b, d1, d2, True, ws, full)
        full_board = ws[5][full[int(_roll_index(d1, d2))]].copy()
        full_eq = ws[7][full[:21]].copy()
        ranked_luck_plays(W1, b1, W2, b2, b, d1, d2, 3, ws, lws, rows)
        assert np.array_equal(ws[5][rows[21]], full_board)  # the player is unchanged
        ranked_eq = ws[7][rows[:21]]
        assert np.all(ranked_eq <= full_eq + 1e-12)
        exact_share.append(np.mean(np.abs(ranked_eq - full_eq) < 1e-12))
    # most rolls find the best play anyway (measured ~0.93 over self-play positions; on these
    # rolls a value of the network: net_cand128_g6 0.884, g7 0.866, g9 0.848 when one board's
    # two paths could both be kept; each board kept once (session 17): g9 0.881,
    # net_cand128_g12 0.865)
    assert np.mean(exact_share) > 0.84


def _roll_index(d1, d2):
    hi, lo = max(d1, d2), min(d1, d2)
    return hi * (hi - 1) // 2 + lo - 1


def test_keeping_every_play_gives_gnubgs_luck(kernels):
    # keeping k = the most distinct plays any roll has, every play is kept: the values equal the
    # full search's.  k is exactly that count, so a play kept twice (one board reached by two
    # paths: a non-double's two orders, one checker moving both dice) would crowd a distinct play
    # out (session 16: with net_cand128_g12 one roll's value fell 0.46 short of the full search's)
    (W1, b1, W2, b2), ws, lws = kernels
    rows = np.zeros(22, dtype=np.int64)
    full = np.zeros(22, dtype=np.int64)
    n = 0
    for b in POSITIONS:
        counts = [len(legal_moves(b, int(_RA[r]), int(_RC[r]))) for r in range(21)]
        if max(counts) > MAX_KEEP:
            continue
        best_plays(W1, b1, W2, b2, b, 1, 2, True, ws, full)
        full_eq = ws[7][full[:21]].copy()
        ranked_luck_plays(W1, b1, W2, b2, b, 1, 2, max(counts), ws, lws, rows)
        assert ws[7][rows[:21]] == pytest.approx(full_eq, abs=1e-12)
        n += 1
    assert n > 30


def test_ranked_luck_is_unbiased_and_plays_the_same_games():
    net = NeuralNet()
    b = POSITIONS[40] if not is_race(POSITIONS[40]) else STARTING_BOARD
    n = 1296
    full = np.zeros((n, 5))
    ranked = np.zeros((n, 5))
    none = np.zeros((n, 5))
    rollout_trials(*net.kernel_args(), b, 0, n, 11, 10, True, 0, full)
    rollout_trials(*net.kernel_args(), b, 0, n, 11, 10, True, 3, ranked)
    rollout_trials(*net.kernel_args(), b, 0, n, 11, 10, False, 0, none)
    eq = lambda o: 2 * o[:, 0] - 1 + o[:, 1] - o[:, 3] + o[:, 2] - o[:, 4]
    # same dice, same plays: the trials differ only by their luck terms, whose difference has
    # mean 0 over the rolls
    d = eq(full) - eq(ranked)
    assert abs(d.mean()) < 4 * d.std() / np.sqrt(n)
    # both reduce the variance a lot; ranked keeps most of the reduction
    assert eq(ranked).std() < 0.6 * eq(none).std()
    # ranked keeps at least 70% of full luck's reduction of the standard deviation (a value of the
    # network: net_cand128 here 0.665 vs 0.788 = 84%; net_cand128_g6 81.6% (sd 0.186 / 0.104 /
    # 0.549 none), net_cand128_g7 78.9% (0.196 / 0.100 / 0.554), net_cand128_g9 75.0%
    # (0.214 / 0.099 / 0.558), 80.3% (0.190 / 0.099 / 0.558) once each board is kept only once
    # (session 17), net_cand128_g12 78.2% (0.200 / 0.094 / 0.576); on average over 15 contact boards of POSITIONS g6 92.8%, g7 91.5%,
    # g9 88.6% (out of the test: each generation's ranking picks the best play a little less
    # often, docs/results.md session 14); net_distill128 0.698 vs 0.759; net_td80: 1.07x
    # full's sd on average over 11 self-play positions, net_distill128 1.17x, docs/results.md).
    # The ranking's linear score leaves out the blockade inputs, which these networks weigh.
    cut_ranked = 1 - eq(ranked).std() / eq(none).std()
    cut_full = 1 - eq(full).std() / eq(none).std()
    assert cut_ranked > 0.70 * cut_full


def test_rollout_luck_option():
    res = rollout([STARTING_BOARD], trials=72, chunk=72, workers=0, post_move=False, truncate=6,
                  luck="full")[0]
    again = rollout([STARTING_BOARD], trials=72, chunk=72, workers=0, post_move=False, truncate=6)[0]
    assert res["trials"] == again["trials"] == 72
    assert res["equity"] != again["equity"]  # other luck terms, same games
    with pytest.raises(ValueError, match="luck"):
        rollout([STARTING_BOARD], trials=36, chunk=36, workers=0, luck="half")
