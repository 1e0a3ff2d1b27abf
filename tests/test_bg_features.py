"""Shot inputs: exact counts on hand-made positions, agreement with real legal plays."""

import os
from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import flip
from playout.backgammon.shots import _RA, _RC, _RW, shot_stats
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.moves import legal_moves
from playout.backgammon.net import N_BASE_INPUTS, N_INPUTS, encode, encode_flipped
from bgboards import points_board, random_game_boards

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"


_board = points_board


def _stats(b, hitter_is_mover=True):
    return shot_stats(b, hitter_is_mover)


def test_the_seventeen_shots_six_pips_away():
    # one mover checker on 13, an opponent blot on 7: 11 direct sixes + 5-1, 4-2 (2 each),
    # 3-3 and 2-2 = 17 of 36 (the classic count); the blot on the mover's 7 sends the
    # opponent back 7 pips (loss in the hitter's numbering = 7)
    b = _board({13: 1, 6: 14}, {7: 1, 24: 14})
    hit, loss = _stats(b)
    assert hit * 36 == pytest.approx(17)
    assert loss * 36 * 25 == pytest.approx(17 * 7)


def test_blocked_intermediate_points_cut_indirect_shots():
    # opponent blot 6 away; the opponent holds the mover's 9 and 11: 4-2 (via 9 or 11) and 2-2
    # (via 11) are blocked, 3-3 (via 10) and 5-1 (via 8 or 12) are open -> 11 + 2 + 1 = 14
    b = _board({13: 1, 6: 14}, {7: 1, 9: 2, 11: 2, 24: 10})
    hit, _ = _stats(b)
    assert hit * 36 == pytest.approx(14)


def test_bar_checkers_enter_first():
    # two mover checkers on the bar: only entering on the blot's point hits (point 20 = 25 - 5:
    # rolls with a 5: 11 of 36); a blot elsewhere is out of reach
    b = _board({6: 13}, {20: 1, 8: 1, 1: 13}, mover_bar=2)
    hit, loss = _stats(b)
    assert hit * 36 == pytest.approx(11)
    assert loss * 36 * 25 == pytest.approx(11 * 20)


def test_no_blots_no_shots_and_directions_are_symmetric():
    b = _board({6: 5, 8: 3, 13: 5, 24: 2}, {1: 2, 12: 5, 17: 3, 19: 5})
    assert _stats(b) == (0.0, 0.0)
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    for pid in ids[::97]:
        b = board_from_position_id(pid)
        assert _stats(b, False) == _stats(flip(b), True)


def test_hit_counts_agree_with_legal_plays_on_real_positions():
    """Rolls on which some legal play hits (our move generator) vs the shot count."""
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    same = n = 0
    for pid in ids[::10]:
        b = board_from_position_id(pid)
        true36 = sum(int(_RW[r]) for r in range(21)
                     if any(m[0] > b[0] for m in legal_moves(b, int(_RA[r]), int(_RC[r]))))
        hit, _ = _stats(b)
        n += 1
        same += abs(hit * 36 - true36) < 1e-9
    # the count ignores whether the rest of the roll is legal (gnubg's shot counts do too):
    # measured 635 of 636 on every fifth position
    assert same >= 0.99 * n


def test_encoded_inputs_carry_the_shots_in_both_views():
    b = _board({13: 1, 6: 14}, {7: 1, 24: 14})
    x = np.zeros(N_INPUTS)
    encode(b, x)
    assert x[N_BASE_INPUTS] * 36 == pytest.approx(17)  # the side to act hits
    # and the opponent's blot on 7 is six pips from the mover's blot on 13: 17 return shots
    assert x[N_BASE_INPUTS + 2] * 36 == pytest.approx(17)
    xf = np.zeros(N_INPUTS)
    encode_flipped(flip(b), xf)  # flip(flip(b)) = b: the same encoded position
    np.testing.assert_array_equal(x, xf)


def test_fast_shot_stats_equal_the_roll_by_roll_reference():
    from playout.backgammon.shots import shot_stats_reference

    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    boards = [board_from_position_id(p) for p in ids[::3]]
    boards += random_game_boards(np.random.default_rng(7), 40)  # bar checkers, blocks, bear-offs
    with_shots = 0
    from_bar = 0  # the hitter has checkers on its bar: the bitmask-move path (_bar_stats)
    for b in boards:
        for hitter_is_mover in (True, False):
            fast = shot_stats(b, hitter_is_mover)
            assert fast == shot_stats_reference(b, hitter_is_mover), (list(b), hitter_is_mover)
            with_shots += fast[0] > 0
            from_bar += fast[0] > 0 and b[25 if hitter_is_mover else 0] > 0
    assert with_shots > 500
    assert from_bar > 100


@pytest.mark.slow  # compiles the shot features and move generator from an empty cache
def test_shot_inputs_do_not_depend_on_the_compiling_caller(tmp_path):
    """Compiled first from a fastmath function that inlines its caller (as the incremental
    evaluator does), numba builds shot_stats with fastmath too; the values must not change."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import numpy as np
        from numba import njit
        from playout.backgammon.board import STARTING_BOARD, flip, game_result
        from playout.backgammon.shots import shot_inputs, shot_stats_reference
        from playout.backgammon.moves import legal_moves

        @njit(fastmath=True, inline="always")
        def leaf(b, x):
            shot_inputs(b, x, 0, True)

        @njit(fastmath=True)
        def caller(b, x):
            leaf(b, x)

        rng = np.random.default_rng(3)
        x = np.zeros(4)
        n = 0
        for _ in range(20):
            b = STARTING_BOARD.copy()
            while game_result(b) == 0:
                caller(b, x)
                want = shot_stats_reference(b, False) + shot_stats_reference(b, True)
                assert tuple(x) == want, (list(b), tuple(x), want)
                n += x[0] > 0
                ms = legal_moves(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
                m = ms[rng.integers(len(ms))]
                if game_result(m) != 0:
                    break
                b = flip(m)
        assert n > 100, n
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]


def test_bit_scan_fallbacks_equal_the_intrinsics():
    """The loops used if numba ever drops its ctlz/cttz intrinsics give the same counts."""
    from numba import njit

    from playout.backgammon.shots import (
        _leading_zeros_loop,
        _trailing_zeros_loop,
        leading_zeros,
        trailing_zeros,
    )

    @njit
    def both(v):
        return leading_zeros(v), _leading_zeros_loop(v), trailing_zeros(v), _trailing_zeros_loop(v)

    rng = np.random.default_rng(0)
    for v in list(rng.integers(1, 2**62, 500)) + [1, 2, 2**23, (1 << 24) - 1, 2**62]:
        lz, lz2, tz, tz2 = both(np.int64(v))
        assert (lz, tz) == (lz2, tz2) and lz == 64 - int(v).bit_length()
