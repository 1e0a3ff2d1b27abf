"""Timing / crunch / back-game inputs (gnubg's I_BREAK_CONTACT .. I_BACKRESCAPES): hand-counted
values, a re-derivation in gnubg's own board layout on real and random positions, the two views
of one position, old networks unchanged, and the incremental evaluator's values."""

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, flip
from playout.backgammon.features import ESC, ESC1, N_CONTACT_SIDE
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.net import N_ESC_INPUTS, N_INPUTS, N_SHOT_INPUTS, encode, encode_flipped, pad_inputs
from bgboards import assert_evaluates_as_prefix, points_board, random_game_boards

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
DATA = Path(__file__).resolve().parents[1] / "src" / "playout" / "backgammon" / "data"
T = N_ESC_INPUTS  # first timing input
IDS = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
(BRK, FREE, TIMING, BACK, ANCHOR, FWD, MOM2, ENTER, ENTER2, BACKBONE, BACKG, BACKG1,
 BACKR) = range(N_CONTACT_SIDE)


def _inputs(b):
    x = np.zeros(N_INPUTS)
    encode(b, x)
    return x[T:T + N_CONTACT_SIDE], x[T + N_CONTACT_SIDE:T + 2 * N_CONTACT_SIDE]


def test_escape1_table_by_hand():
    assert ESC1[0] == 0  # nothing blocks: nothing to escape past (gnubg's convention)
    assert ESC1[0b1] == 35 == ESC[0b1]  # every escape passes the next point
    # the point 6 pips on blocked: the sums 7..12 (21 ordered rolls) but 6-6 (both steps on it)
    assert ESC1[1 << 5] == 20
    # points 2..6 pips on blocked (a five-point board in front): only 6-1 and 1-6 get past
    assert ESC1[0b111110] == 2


def test_decision_342_crunch_position_by_hand():
    """Reference set A, decision 342: X (to act) on the bar against a 5-point board, O's last
    checker trapped on X's 2 point behind X's 6-prime 3-8, O 75 pips: O must crunch."""
    b = np.array([0, 0, -1, 2, 2, 2, 2, 2, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, -2, -3, -2, -3, -4,
                  1, 1], dtype=np.int8)
    a, o = _inputs(b)
    # X, against O's rearmost checker on X's 2 point (ob = 2)
    # break contact: (q - 2 + 1) per checker behind it: 3..8 two each, 11, 24, the bar (25)
    assert a[BRK] == pytest.approx((2 * (2 + 3 + 4 + 5 + 6 + 7) + 10 + 23 + 24) / 167)
    assert a[FREE] == 0.0  # nothing past O's checker
    # timing: bar 24 + 24 point blot 23 + 11 point 10 + 7, 8 points 2 x 6 + 2 x 7 = 83; the
    # empty 2 and 1 points take two spares each: - 2 x 1 - 2 x 0
    assert a[TIMING] == pytest.approx(0.81)
    assert a[BACK] == 1.0 and a[ANCHOR] == pytest.approx(7 / 24) and a[FWD] == 2.0
    # positions 0..24: mean 111 / 15 -> 8; above it 10, 23, 24: (4 + 225 + 256) / 3 -> 162
    assert a[MOM2] == pytest.approx(162 / 400)
    # one on the bar, O holds its 2..6: 2..6 doubles 4 d, the ten non-doubles 2 (d + e): 240
    assert a[ENTER] == pytest.approx(240 / 294)
    assert a[ENTER2] == pytest.approx((36 - 1) / 36)
    assert a[BACKBONE] == 0.0  # every made point within 6 of the 8 point: 1 - 110 / 110
    assert a[BACKG] == 0.0 and a[BACKG1] == 0.0
    # O's checker on X's 2 point in front of the points 3..8: no roll lands past them
    assert a[BACKR] == 0.0
    # O, against X on the bar (ob = 0): every checker counts (q + 1): 24 + 14 + 18 + 10 + 12 + 12
    assert o[BRK] == pytest.approx(90 / 167)
    assert o[FREE] == 0.0
    # timing: the 23 point blot 22; spares 4 (5 pt) + 2 (3 pt) + 2 x 1 (2 pt); the empty 1
    # point takes two spares at 0 pips: 30.  O's 75 pips against X's 0.81 timing
    assert o[TIMING] == pytest.approx(0.30)
    assert o[BACK] == pytest.approx(22 / 24) and o[ANCHOR] == pytest.approx(5 / 24)
    assert o[FWD] == 2.0
    # positions: mean 75 - 15 = 60 / 15 = 4; above it 5 (2 x 1) and 22 (1 x 324): 326 / 3 -> 109
    assert o[MOM2] == pytest.approx(109 / 400)
    assert o[ENTER] == 0.0
    assert o[ENTER2] == pytest.approx((36 - 4) / 36)  # X holds four home points (3..6)
    # 6 point rearmost made point (2 checkers), 5..2 within 6 pips: 4 x 11 x 2 of 4 x 11 x 2
    assert o[BACKBONE] == 0.0
    assert o[BACKG] == 0.0 and o[BACKG1] == 0.0
    # X's bar checker in front of O's 2..6: 6-1 and 1-6 only (see the table test)
    assert o[BACKR] == pytest.approx(2 / 36)


def test_back_game_position_by_hand():
    """The side to act holds the opponent's 1 and 3 points (its 24 and 22) with five checkers,
    two on its bar, and a scattered front; the opponent bears in with two checkers back."""
    b = points_board({24: 3, 22: 2, 18: 2, 13: 2, 9: 2, 6: 2}, {2: 2, 7: 2, 20: 4, 19: 4, 17: 3},
                     mover_bar=2)
    assert b[1:25].clip(0).sum() + 2 == 15 and (-b[1:25]).clip(0).sum() == 15
    a, o = _inputs(b)
    # the mover, against the opponent's rearmost checkers on its 2 point (ob = 2)
    assert a[BRK] == pytest.approx((2 * 24 + 3 * 23 + 2 * 21 + 2 * 17 + 2 * 12 + 2 * 8 + 2 * 5) / 167)
    assert a[FREE] == 0.0
    # m = 11: bar 48 (2 spares); behind the 12 point made points keep two: the 24 point's third
    # checker at 23, the 22/18/13 points none; the 9 point 2 x 8: 87 with 5 spares; home: the 6
    # point made; the empty 5 and 4 points take two spares each (- 8, - 6), then one spare is
    # left, too few for the 3, 2 and 1 points: 73
    assert a[TIMING] == pytest.approx(0.73)
    assert a[BACK] == 1.0 and a[ANCHOR] == pytest.approx(23 / 24)
    assert a[FWD] == pytest.approx(3 / 6)  # most advanced anchor in O's home: its 3 point
    # backbone from the 24 point (3 checkers): 22 (d 2) 11, 18 (d 6) 11, 13 (d 11) 2, 9 and 6
    # (d 15, 18) 0: 1 - 3 x 24 / (11 x 3 x 5)
    assert a[BACKBONE] == pytest.approx(1 - 72 / 165)
    assert a[BACKG] == pytest.approx((3 + 2 + 2 - 3) / 4) and a[BACKG1] == 0.0
    # two on the bar; O holds its 5 and 6 points (X's 20, 19; its 8 is X's 17)
    loss = 4 * 5 + 2 * (5 + 6) + 4 * 6  # 5-5, 5-6/6-5, 6-6
    loss += 2 * (5 + 6) * 4  # two on the bar: d-5 and d-6 for d = 1..4 lose the held die
    assert a[ENTER] == pytest.approx(loss / 294)
    assert a[ENTER2] == pytest.approx((36 - 16) / 36)
    # positions: 2 x 24 + 3 x 23 + 2 x 21 + 2 x 17 + 2 x 12 + 2 x 8 + 2 x 5 = 243 / 15 -> 17;
    # above: 21 (2 x 16), 23 (3 x 36), 24 (2 x 49) over 7 checkers: 238 / 7 = 34
    assert a[MOM2] == pytest.approx(34 / 400)
    # the opponent (its numbering: 23, 18 two each, 8 three, 6, 5 four each), against the mover
    # on its bar (ob = 0): every checker counts q + 1
    assert o[BRK] == pytest.approx((2 * 24 + 2 * 19 + 3 * 9 + 4 * 7 + 4 * 6) / 167)
    assert o[FREE] == 0.0
    assert o[BACK] == pytest.approx(22 / 24) and o[ANCHOR] == pytest.approx(22 / 24)
    assert o[FWD] == pytest.approx(2 / 6)  # its anchor on X's 2 point = X's home, its 2 point
    # one anchor in X's home with two checkers there
    assert o[BACKG] == 0.0 and o[BACKG1] == pytest.approx(2 / 8) and o[ENTER] == 0.0
    assert o[ENTER2] == pytest.approx((36 - 25) / 36)  # X holds only its 6 point at home
    # backbone from its 23 point (2): 18 (d 5) 11, 8 (d 15) 0, 6 and 5 0: 1 - 2 x 11 / (11 x 2 x 4)
    assert o[BACKBONE] == pytest.approx(1 - 22 / 88)


def test_freepip_and_single_anchor_back_game():
    # the mover's checkers past the opponent's rearmost (on the mover's 10 point): 3 on 6, 2 on 4
    b = points_board({24: 2, 23: 1, 6: 3, 4: 2, 13: 7}, {10: 2, 19: 5, 20: 4, 21: 4})
    a, _ = _inputs(b)
    assert a[FREE] == pytest.approx((3 * 6 + 2 * 4) / 100)
    assert a[BACKG] == 0.0 and a[BACKG1] == pytest.approx(3 / 8)  # one anchor (24), 3 checkers back
    assert a[FWD] == pytest.approx(1 / 6)


def _direct(b) -> np.ndarray:
    """The thirteen inputs of the side to act of ``b`` from gnubg's definitions, in its layout:
    ``me[i]`` / ``op[i]`` = checkers on point i + 1 of each side's own numbering, 24 = the bar."""
    me = [max(int(b[i + 1]), 0) for i in range(24)] + [int(b[25])]
    op = [max(-int(b[24 - i]), 0) for i in range(24)] + [int(b[0])]
    op_back = max([i for i in range(25) if op[i]], default=-1)
    n_opp_back = 23 - op_back  # the opponent's rearmost checker in my layout
    brk = sum((i + 1 - n_opp_back) * me[i] for i in range(n_opp_back + 1, 25))
    free = sum((i + 1) * me[i] for i in range(max(n_opp_back, 0)))
    # timing
    m = max(n_opp_back, 11)
    t, spares = 24 * me[24], me[24]
    for i in range(23, 5, -1):
        if i > m:
            if me[i] and me[i] != 2:
                n = me[i] - 2 if me[i] > 2 else 1
                spares, t = spares + n, t + i * n
        else:
            spares, t = spares + me[i], t + i * me[i]
    for i in range(5, -1, -1):
        if me[i] > 2:
            spares, t = spares + me[i] - 2, t + i * (me[i] - 2)
        elif me[i] < 2 and spares >= 2 - me[i]:
            spares, t = spares - (2 - me[i]), t - i * (2 - me[i])
    timing = max(t, 0)
    back = max([i for i in range(25) if me[i]], default=-1)
    anchor = max([i for i in range(min(back, 23) + 1) if me[i] >= 2], default=-1)
    home_anchors = [i for i in range(18, 24) if me[i] >= 2]
    out_anchors = [i for i in range(12, 18) if me[i] >= 2]
    fwd = (24 - min(home_anchors)) / 6 if home_anchors else (24 - max(out_anchors)) / 6 if out_anchors else 2.0
    n_all = sum(me)
    mean = -(-sum(i * me[i] for i in range(25)) // n_all)
    above = [(i, me[i]) for i in range(mean + 1, 25) if me[i]]
    n_above = sum(c for _, c in above)
    mom = -(-sum(c * (i - mean) ** 2 for i, c in above) // n_above) if n_above else 0
    held = [d for d in range(1, 7) if op[d - 1] >= 2]
    loss = 0
    if me[24]:  # the 21 rolls: d-d against a held d: 4 d; d-e both held: 2 (d + e); with two
        for d in range(1, 7):  # or more on the bar, one held: 2 x the held die
            loss += 4 * d if d in held else 0
            for e in range(d + 1, 7):
                if d in held and e in held:
                    loss += 2 * (d + e)
                elif me[24] > 1 and (d in held or e in held):
                    loss += 2 * (d if d in held else e)
    enter2 = (36 - (len(held) - 6) ** 2) / 36
    made = [i for i in range(1, 24) if me[i] >= 2][::-1]
    if len(made) >= 2:
        top, rest = made[0], made[1:]
        w = sum((11 if top - i <= 6 else 13 - (top - i) if top - i <= 11 else 0) for i in rest)
        backbone = 1 - w / (11 * len(rest))
    else:
        backbone = 0.0
    n_ac = len(home_anchors)
    tot = sum(me[18:25])
    backg = (tot - 3) / 4 if n_ac > 1 else 0.0
    backg1 = tot / 8 if n_ac == 1 else 0.0
    # rescapes: the opponent's rearmost checker (my index n_opp_back) past my points
    blocked = lambda k: 0 <= n_opp_back + k <= 23 and me[n_opp_back + k] >= 2  # noqa: E731
    low = next((k for k in range(1, 13) if blocked(k)), None)
    resc = 0
    if low is not None:
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                if (d1 + d2 > low and not blocked(d1 + d2) and not (blocked(d1) and blocked(d2))):
                    resc += 1
    return np.array([brk / 167, free / 100, timing / 100, back / 24, anchor / 24, fwd, mom / 400,
                     loss / 294, enter2, backbone, backg, backg1, resc / 36])


def test_inputs_equal_the_definitions_on_real_and_random_positions():
    boards = [board_from_position_id(p) for p in IDS[::25]]
    boards += random_game_boards(np.random.default_rng(12), 15)  # bar checkers, primes, races
    seen = np.zeros(N_CONTACT_SIDE, dtype=np.int64)
    for b in boards:
        a, o = _inputs(b)
        np.testing.assert_allclose(a, _direct(b), rtol=0, atol=1e-12, err_msg=str(list(b)))
        np.testing.assert_allclose(o, _direct(flip(b)), rtol=0, atol=1e-12, err_msg=str(list(b)))
        seen += (a != 0) & (a != 2.0)
    assert (seen > 20).all(), seen  # every input takes non-trivial values in the sample


def test_the_two_views_of_one_position():
    a, o = _inputs(STARTING_BOARD)
    np.testing.assert_array_equal(a, o)
    # every checker behind the opponent's on the 1 point: 167 pips (gnubg's 152 + 15: it counts
    # one pip more per checker than its description's 152)
    assert a[BRK] == 1.0
    # the 13 point's three spares at 12, the 8 point's three at 7, the 6 point's three at 5; the
    # empty 5, 4, 3, 2 points take two each (1 spare left for the 1 point: too few)
    assert a[TIMING] == pytest.approx((3 * 12 + 3 * 7 + 3 * 5 - 2 * 4 - 2 * 3 - 2 * 2 - 2 * 1) / 100)
    for pid in IDS[77:90]:
        b = board_from_position_id(pid)
        x, xf = np.zeros(N_INPUTS), np.zeros(N_INPUTS)
        encode(b, x)
        encode_flipped(flip(b), xf)
        np.testing.assert_array_equal(x, xf)
        a, o = _inputs(b)
        encode(flip(b), x)
        np.testing.assert_array_equal(x[T:T + N_CONTACT_SIDE], o)
        np.testing.assert_array_equal(x[T + N_CONTACT_SIDE:], a)


@pytest.mark.parametrize("name", ["net_cand128.npz", "net_esc128.npz", "net_td80.npz"])
def test_networks_saved_before_the_timing_inputs_give_the_same_outputs(name):
    """A 218-input file (and a 206-input one) loads with zero rows for the timing inputs: its
    outputs equal the forward pass over its own inputs only, exactly."""
    from playout.backgammon.evaluators import NeuralNet
    from playout.backgammon.net import load_weights

    with np.load(DATA / name) as z:
        W1o, b1, W2, b2 = (np.ascontiguousarray(z[k], dtype=np.float64) for k in ("W1", "b1", "W2", "b2"))
    cut = W1o.shape[1]
    assert cut in (N_SHOT_INPUTS, N_ESC_INPUTS)
    W1, *_ = load_weights(DATA / name)
    assert W1.shape[1] == N_INPUTS and not W1[:, cut:].any()
    boards = np.array([board_from_position_id(p) for p in IDS[::40]], dtype=np.int8)
    got = NeuralNet(DATA / name, bearoff=False).evaluate(boards)
    assert_evaluates_as_prefix(got, boards, W1o, b1, W2, b2)


def test_incremental_values_with_weights_on_the_timing_inputs_only():
    """The shipped net with random weights on the timing inputs (blockade rows as shipped): every
    play of every roll, as the rollouts' incremental evaluator values it, equals the full one."""
    from playout.backgammon.evaluators import NeuralNet, eval_after_move
    from playout.backgammon.incremental import best_plays, new_workspace

    base = NeuralNet(DATA / "net_cand128.npz")
    assert base.W1.shape[1] == T  # loaded trimmed: no timing rows, so none computed
    W1 = pad_inputs(base.W1).copy()
    W1[:, T:, :] = np.random.default_rng(7).normal(0, 0.5, size=W1[:, T:, :].shape)
    net = NeuralNet.from_arrays(W1, base.b1, base.W2, base.b2, name="timing")
    args = net.kernel_args()
    ws = new_workspace(net.W2, args[5])
    rows = np.zeros(21, dtype=np.int64)
    x, h, o, ref = np.zeros(N_INPUTS), np.zeros(net.hidden), np.zeros(5), np.zeros(5)
    n = 0
    boards = [board_from_position_id(p) for p in IDS[::400]]
    boards += random_game_boards(np.random.default_rng(4), 1)[::6]
    for b in boards:
        best_plays(net.W1, net.b1, net.W2, net.b2, b, 0, 0, True, ws, rows)
        assert ws[2][5] == 1
        for j in range(ws[8][0]):
            eval_after_move(*args, ws[5][j], x, h, o, ref)
            np.testing.assert_allclose(ws[6][j], ref, rtol=0, atol=1e-12)
            n += 1
    assert n > 1000
    # a net without weights there leaves them out (no cost)
    best_plays(base.W1, base.b1, base.W2, base.b2, boards[0], 0, 0, True, new_workspace(base.W2),
               rows)
