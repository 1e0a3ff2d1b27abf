"""Playout properties (GNU Go's property code), incremental values, proportional sampling."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from playout.go.board import BLACK, WHITE, Board, gtp_to_point
from playout.go.playout import PlayoutState, run_many, sample_move, seed_rng
from playout.go.rules import M_NCAP, META
from playout.go.samplers import init_atari, sample_far_light
from playout.go.tables import (
    SWAP,
    T_DEP,
    T_FARCAP,
    T_FARLIGHT,
    T_VMAXFAR,
    Table,
    fallback_uniform_table,
    load_table,
)


def chi2_999(k: int) -> float:
    """0.999 quantile of chi-square with ``k`` degrees of freedom (Wilson-Hilferty, k >= 5)."""
    z = 3.090232
    return k * (1 - 2 / (9 * k) + z * (2 / (9 * k)) ** 0.5) ** 3


def code_table() -> Table:
    """A table whose value encodes the property code (value = 1 + code) in every class."""
    g, _ = fallback_uniform_table()
    values = np.zeros((2, 256), np.int64)
    values[1, :] = 1 + np.arange(256)
    return Table(g, values, name="code")


def state(rows: str, to_move: int = BLACK, table: Table | None = None) -> PlayoutState:
    return PlayoutState(Board.from_ascii(rows, to_move=to_move), table or code_table())


def test_own_and_opponent_capture_counts():
    s = state(
        """
        O X . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    q = s.board.pt(1, 0)
    assert s.code(q, BLACK) == 1 << 3  # Black captures one stone
    assert s.code(q, WHITE) == 1 << 1  # for White it is the opponent who captures one
    s = state(
        """
        X X . O .
        O O O . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    q = s.board.pt(0, 2)
    # White captures 2; Black there would be suicide (opponent-suicide bit for White)
    assert s.code(q, WHITE) == (1 << 7) | (2 << 3)
    assert s.value(q, BLACK) == 0 and s.value(q, WHITE) == 1 + ((1 << 7) | (2 << 3))
    s = state(
        """
        X X X X .
        O O O O O
        . . . . .
        . . . . .
        . . . . .
        """
    )
    q = s.board.pt(0, 4)
    assert s.code(q, WHITE) == (1 << 7) | (3 << 3)  # four stones count as "3 or more"


def test_self_atari_and_opponent_suicide():
    s = state(
        """
        . . O . .
        . O . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    q = s.board.pt(0, 1)
    assert s.code(q, BLACK) == 1 << 6  # own self-atari
    assert s.code(q, WHITE) == 1 << 5  # opponent self-atari
    s = state(
        """
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    q = s.board.pt(0, 0)
    assert s.code(q, BLACK) == 1 << 7  # a White stone there would be suicide
    assert s.value(q, WHITE) == 0
    # capturing one stone into a single liberty (snapback shape) is a self-atari
    s = state(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """
    )
    q = s.board.pt(1, 2)
    assert s.code(q, BLACK) == (1 << 6) | (1 << 3)
    # joining a two-liberty string whose other liberty is the only one left: self-atari
    s = state(
        """
        X O . . .
        X O . . .
        . X . . .
        . . . . .
        . . . . .
        """,
        to_move=WHITE,
    )
    assert s.code(s.board.pt(0, 2), WHITE) & (1 << 6) == 0  # two liberties remain
    s.board.play(s.board.pt(0, 3), BLACK)
    s.refresh()
    assert s.code(s.board.pt(0, 2), WHITE) & (1 << 6)
    # White at (2,0) would capture Black's two-stone string: "opponent captures 2" for Black
    assert s.code(s.board.pt(2, 0), BLACK) == 2 << 1


def test_near_set_after_a_move_and_a_capture():
    s = state(
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    b = s.board
    s.play(b.pt(2, 2), BLACK)
    ring = sorted(b.pt(2 + dr, 2 + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
    assert s.near_points(WHITE) == ring
    assert s.code(b.pt(1, 1), WHITE) & 1 and not s.code(b.pt(0, 0), WHITE) & 1
    # liberties (at most 2) of the replying side's strings touching the move are near
    s = state(
        """
        O O O O .
        X X . X .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    b = s.board
    s.play(b.pt(1, 2), BLACK)
    assert b.pt(0, 4) in s.near_points(WHITE)  # the White string's last liberty, not adjacent
    # after a capture: the captured point and its empty neighbours
    s = state(
        """
        O X . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    b = s.board
    s.play(b.pt(1, 0), BLACK)
    assert b.pt(0, 0) in s.near_points(WHITE)
    s.play(0, WHITE)  # a pass: nothing is near for Black
    assert s.near_points(BLACK) == []


CAPTURE_2 = """
    X X X . .
    X O O . .
    X X X . .
    . . . . .
    . . . . .
    """


def test_starting_near_set_includes_the_points_the_last_move_captured():
    """Black's D4 captures two stones: the near set of White (to reply) is the move's empty
    8 neighbours plus the captured points (docs/go-mc-patterns.md; GNU Go 3.8's mc_play_move
    queues removed stones in mc_remove_string, and the queue is its NEAR set).  The captured
    stone at (1, 1) is outside the move's ring: only the capture rule makes it near.  A state
    built from the board after the move must have it, as the incremental path does."""
    b = Board.from_ascii(CAPTURE_2)
    move = b.pt(1, 3)
    before = PlayoutState(b, code_table())
    assert sorted(b.play(move)) == [b.pt(1, 1), b.pt(1, 2)]
    expected = sorted(b.pt(r, k) for r, k in ((0, 3), (0, 4), (1, 1), (1, 2), (1, 4), (2, 3), (2, 4)))
    s = PlayoutState(b, code_table())
    assert s.near_points(WHITE) == expected
    assert s.code(b.pt(1, 1), WHITE) & 1
    before.play(move, BLACK)
    assert before.near_points(WHITE) == expected
    assert (s.val[1] == before.val[1]).all() and s.tot[1] == before.tot[1]
    # a copied board (its scratch B zeroed) keeps the record; a board set up from colours has
    # no last move, hence nothing near
    assert PlayoutState(b.copy(), code_table()).near_points(WHITE) == expected
    assert PlayoutState(Board.from_colors(5, b.color), code_table()).near_points(WHITE) == []


@pytest.mark.parametrize("name", ["code", "mc_mogo_classic"])
def test_state_from_scratch_equals_the_incremental_state_along_random_games(name):
    """From random legal games (captures, ko, passes): ``PlayoutState(board)`` after each move
    equals the state the playout kernels reached move by move -- the replying side's near set,
    its values and total, the capture count and the captured points.  (The other side's near
    set is the one of the move before, kept incrementally; a board has no record of it.)"""
    table = code_table() if name == "code" else load_table(name)
    rng = np.random.default_rng(7)
    ncapturing = 0
    for size, n_moves in ((5, 120), (7, 160), (9, 160)):
        b = Board(size)
        s = PlayoutState(b, table)
        for _ in range(n_moves):
            legal = b.legal_moves()
            p = 0 if not legal or rng.random() < 0.03 else int(rng.choice(legal))
            c = b.to_move
            caps = b.play(p, c)
            s.play(p, c)
            ncapturing += bool(caps)
            o = b.to_move
            f = PlayoutState(b, table)
            assert f.near_points(o) == s.near_points(o), (size, p, caps)
            assert (f.val[o - 1] == s.val[o - 1]).all() and f.tot[o - 1] == s.tot[o - 1]
            assert int(f.S[META, M_NCAP]) == int(s.S[META, M_NCAP]) == len(caps)
            c0 = 16 * f.S.shape[1]
            assert sorted(f.B[c0 : c0 + len(caps)]) == sorted(caps)
            if b.passes >= 2:
                break
    assert ncapturing >= 5  # the games did capture


@pytest.mark.parametrize("name", ["uniform", "mc_mogo_classic", "montegnu_classic", "code"])
def test_incremental_values_equal_recomputation(name):
    table = code_table() if name == "code" else load_table(name)
    for seed, size in ((1, 9), (2, 7), (3, 13)):
        s = PlayoutState(Board(size), table)
        seed_rng(seed)
        for _ in range(400):
            c = s.board.to_move
            p = 0 if s.tot[c - 1] == 0 else int(_draw(s.S, c - 1, s.board.W, 1, seed + s.board.meta[6])[1])
            s.play(p, c)
            val, tot, rsum = s.val.copy(), s.tot.copy(), s.rsum.copy()
            s.refresh()
            assert (val == s.val).all(), np.nonzero(val != s.val)
            assert (tot == s.tot).all() and (rsum == s.rsum).all()
            if not table.light:
                assert (val == direct_values(s)).all(), np.nonzero(val != direct_values(s))
            if s.board.passes >= 3:
                break
        s.board.check()


def direct_values(s: PlayoutState) -> np.ndarray:
    """Both colours' values from the full property code (:meth:`PlayoutState.code`, which
    computes every bit) and the unpacked table, point by point: the kernels compute the costly
    bits 5..7 only where a value depends on them, and must agree with this everywhere."""
    b, t = s.board, s.table
    W = b.W
    out = np.zeros_like(s.val)
    for q in range(W * W):
        if b.color[q] != 0:
            continue
        idx = 0
        for i, d in enumerate((-W - 1, -W, -W + 1, -1, 1, W - 1, W, W + 1)):
            idx |= int(b.color[q + d]) << (2 * i)
        for c in (BLACK, WHITE):
            if b.why_illegal(q, c) in ("suicide", "ko"):
                continue
            g = t.geometry[idx if c == BLACK else SWAP[idx]]
            out[c - 1, q] = min(t.values[g, s.code(q, c)], 2**31 - 1)
    return out


@njit(cache=True)
def _draw(S, ci, W, n, seed):
    np.random.seed(seed)
    counts = np.zeros(S.shape[1], np.int64)
    last = 0
    for _ in range(n):
        last = sample_move(S, ci, W)
        counts[last] += 1
    return counts, last


def test_sampling_is_proportional_to_values_chi_square():
    s = state(
        """
        . X O . .
        X O . O .
        . X O . .
        . . X . .
        . . . . .
        """
    )
    n = 200_000
    counts, _ = _draw(s.S, 0, s.board.W, n, 5)
    vals = s.val[0].astype(float)
    assert counts[vals == 0].sum() == 0
    support = vals > 0
    assert support.sum() >= 10 and len(set(vals[support])) >= 3
    expected = n * vals[support] / vals.sum()
    stat = float(((counts[support] - expected) ** 2 / expected).sum())
    assert stat < chi2_999(int(support.sum()) - 1)


@pytest.mark.parametrize("name", ["uniform", "mc_mogo_classic"])
def test_playout_ends_and_scores_all_points(name):
    s = PlayoutState(Board(9), load_table(name))
    score, moves = s.run(seed=11)
    assert s.board.passes >= 3 or len(moves) >= 600
    assert len(moves) > 60
    s.refresh()  # (light playouts do not maintain the value rows)
    # it stopped because neither side has a move of value left (only eyes/illegal points)
    assert s.tot[0] == 0 and s.tot[1] == 0
    b = s.board
    assert all(b.color[p] == 0 for p in b.points() if s.val[0, p] or s.val[1, p])
    assert score == b.score() + b.komi  # settled: the playout score is the area score


def test_light_sampling_is_uniform_over_non_eye_legal_points():
    s = state(
        """
        . X . O .
        X . X O .
        . X . O O
        X X O . .
        . X O . .
        """,
        table=load_table("uniform"),
    )
    from playout.go.samplers import sample_light

    @njit(cache=True)
    def draw(S, T, n, seed):
        np.random.seed(seed)
        counts = np.zeros(S.shape[1], np.int64)
        for _ in range(n):
            counts[sample_light(S, T, 1)] += 1
        return counts

    counts = draw(s.S, s.table.T, 60_000, 3)
    allowed = [p for p in s.board.points() if s.value(p, BLACK) > 0]
    b = s.board
    assert b.pt(1, 1) not in allowed and b.pt(0, 0) not in allowed  # Black's own eyes
    assert set(np.nonzero(counts)[0]) == set(allowed)
    expected = 60_000 / len(allowed)
    stat = float(sum((counts[p] - expected) ** 2 / expected for p in allowed))
    assert stat < chi2_999(len(allowed) - 1)


def test_far_light_tables():
    # without the near bit, GNU Go's databases value a point by its shape (1, or 0 for an eye)
    # unless a colour captures there
    mogo, montegnu = load_table("mogo_classic"), load_table("montegnu_classic")
    assert mogo.far_light and not mogo.light and mogo.T[T_FARCAP] == 0
    assert montegnu.far_light and montegnu.T[T_FARCAP] == 1  # far captures: 30, 40, 60
    assert mogo.T[T_VMAXFAR] == 1 and montegnu.T[T_VMAXFAR] == 1
    assert load_table("uniform").light and not load_table("uniform").far_light
    assert not code_table().far_light  # values 1 .. 225 by self-atari and suicide bits


def test_costly_bit_dependencies_say_whose_analysis_is_needed():
    # T_DEP entries: bit 0 = the value depends on the opponent's self-atari/suicide (bits 5, 7),
    # bit 1 = on own self-atari (bit 6); "osafe" rules need only the mover's own analysis
    def deps(t):
        return set(np.unique(t.T[t.T[T_DEP]:]).tolist())
    assert deps(code_table()) == {0, 3}  # value = 1 + code: every bit counts (0: the eye row)
    assert deps(load_table("mogo_classic")) == {0, 2}  # captures/escapes near: osafe only
    assert deps(load_table("montegnu_classic")) == {0, 2}
    assert deps(load_table("uniform")) == {0}


@njit(cache=True)
def _draw_far_light(S, B, T, c, n, seed):
    np.random.seed(seed)
    counts = np.zeros(S.shape[1], np.int64)
    nat = init_atari(S, B)
    for _ in range(n):
        p, nat = sample_far_light(S, B, T, c, nat)
        counts[p] += 1
    return counts


@pytest.mark.parametrize("name", ["mc_mogo_classic", "mc_montegnu_classic"])
def test_far_light_sampling_follows_the_full_values_chi_square(name):
    """The far-light sampler keeps no value rows: its draws must follow the values the full
    incremental path keeps (near bits, captures, ko and suicide included) along a playout."""
    table = load_table(name)
    s = PlayoutState(Board(9), table)
    seed_rng(11)
    n = 400_000
    maxima, far_captures = [], 0
    for k in range(200):
        c = s.board.to_move
        vals = s.val[c - 1].astype(float)
        if vals.sum() == 0 or s.board.passes >= 2:
            break
        far = np.ones(len(vals), bool)
        far[s.near_points(c)] = False
        if k % 9 == 4 or vals.max() >= 100 or (vals[far] > 1).any():
            counts = _draw_far_light(s.S, s.B, table.T, c, n, k)
            assert counts[vals == 0].sum() == 0, np.nonzero(counts * (vals == 0))
            support = vals > 0
            expected = n * vals[support] / vals.sum()
            stat = float(((counts[support] - expected) ** 2 / expected).sum())
            assert stat < chi2_999(max(5, int(support.sum()) - 1)), (k, stat)
            maxima.append(vals.max())
            far_captures += int((vals[far] > 1).any())
        p = int(_draw(s.S, c - 1, s.board.W, 1, 100 + k)[1])
        s.play(p, c)
    # the positions include near patterns (100) and near captures/escapes (10000) ...
    assert len(maxima) >= 15 and 100 in maxima and 10000 in maxima
    # ... and, with montegnu, captures away from the last move (30, 40, 60)
    assert far_captures >= (5 if table.T[T_FARCAP] else 0)


@pytest.mark.parametrize("name", ["mc_mogo_classic", "mc_montegnu_classic"])
def test_far_light_playouts_match_the_full_path(name):
    # the same playout policy either way: Black's wins and the playout lengths agree
    board = Board(9)
    for m in ("E5", "C3", "G7", "C7"):
        board.play(gtp_to_point(m, 9))
    table = load_table(name)
    st = PlayoutState(board, table)
    full = table.T.copy()
    full[T_FARLIGHT] = 0
    n = 20_000
    w_fast, m_fast = run_many(st.S, st.B, table.T, n, 600, 7)
    w_full, m_full = run_many(st.S, st.B, full, n, 600, 8)
    se = (2 * 0.25 / n) ** 0.5
    assert abs(w_fast - w_full) / n < 4 * se, (w_fast, w_full)
    assert abs(m_fast - m_full) / n < 1.0, (m_fast / n, m_full / n)


def test_chi2_quantile_approximation():
    # tabulated 0.999 quantiles: df 10 -> 29.588, df 30 -> 59.703
    assert abs(chi2_999(10) - 29.588) < 0.2 and abs(chi2_999(30) - 59.703) < 0.2
