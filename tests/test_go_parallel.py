"""Tree parallelisation of the Go search: virtual loss, per-thread record blocks, the Player."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from playout.cli import main
from playout.go.board import PASS, Board, gtp_to_point
from playout.go.player import Player
from playout.go.tree import Tree
from playout.go.playout import PlayoutState, lgrf_table
from playout.go.rules import M_MOVES
from playout.go.search import FIRST, FPU, MOVE, NCH, PRIOR_N, RAVE_K, T_NEXT, T_ROOT, UCT_C, VISITS, search
from playout.go.tables import DEFAULT_DATABASE, default_prior_table, load_table


def _board() -> Board:
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G4", "D6"):
        b.play(gtp_to_point(mv, 9))
    return b


def _run(tree: Tree, board: Board, sims: int, tm=None, cap_end: int = -1, vloss: float = 0.0,
         seed: int = 5) -> int:
    """``search`` with every argument as :class:`Player` passes them (one numba specialisation)."""
    table = load_table(DEFAULT_DATABASE)
    st = PlayoutState(board, table)
    size = board.S.shape[1]
    return search(tree.NI, tree.NF, tree.tm if tm is None else tm, tree.HT, st.S, st.B.copy(),
                  table.T, sims, float(board.komi), board.superko_hashes(),
                  np.zeros(size, np.int64), int(board.meta[M_MOVES]) + 3 * 81 + 100, 2, seed,
                  float(RAVE_K), False, False, 0, 0, 0, lgrf_table(size), 0, UCT_C, FPU, PRIOR_N,
                  2, default_prior_table().T, True, cap_end, vloss)


def test_virtual_loss_is_taken_back_exactly():
    """One thread alone: each simulation's virtual loss is gone before the next one chooses,
    so the tree equals the tree searched without it, record for record."""
    b = _board()
    plain, vl = Tree(200_000), Tree(200_000)
    assert _run(plain, b, 3000) == 3000
    assert _run(vl, b, 3000, vloss=1.0) == 3000
    n = int(plain.tm[T_NEXT])
    assert n == int(vl.tm[T_NEXT]) > 1000
    assert np.array_equal(plain.NI[:, :n], vl.NI[:, :n])
    assert np.array_equal(plain.NF[:, :n], vl.NF[:, :n])
    # the root's visits are the simulations (every one passes the root)
    assert plain.NF[VISITS, 0] == 3000


def test_a_thread_expands_only_into_its_own_block():
    b = _board()
    tree = Tree(100_000)
    tm = tree.tm.copy()
    start, end = 40_000, 42_000
    tm[T_NEXT] = start
    assert _run(tree, b, 2000, tm=tm, cap_end=end) == 2000  # a full block stops growth, not search
    used = tree.NI[NCH] != 0
    assert int(tm[T_NEXT]) <= end and int(tm[T_NEXT]) > end - 82  # filled up to the last 9x9 block
    assert not used[1:start].any() and not used[end:].any()
    first = int(tree.NI[FIRST, 0])
    assert start <= first < end and int(tm[T_ROOT]) == 0
    assert int(tree.tm[T_NEXT]) == 1  # the shared tree's own allocation pointer is untouched


def test_two_threads_search_one_tree():
    b = _board()
    p = Player(playouts=6000, threads=2, parallel="tree", virtual_loss=1.0, seed=3)
    assert p.shared_tree and len(p.trees) == 1
    info = p.genmove(b)
    assert info.playouts == 6000
    assert info.move != PASS and b.is_legal(info.move)
    tree = p.trees[0]
    kids = tree.children()
    total = sum(v for _, v, _, _ in kids)
    # every simulation but the two before the root's expansion passes a root child; two threads
    # adding to one statistic at once can lose an update, never add one
    assert 0.95 * 6000 <= total <= 6000
    assert all(v == int(v) for _, v, _, _ in kids)  # no virtual loss left behind
    for i, (a, e) in enumerate(zip(p._starts, p._ends)):
        assert a <= p._tms[i, T_NEXT] <= e
    assert p._starts[1] > 1 and p._tms[1, T_NEXT] > p._starts[1]  # both threads expanded


def test_shared_tree_is_kept_between_moves():
    b = _board()
    p = Player(playouts=3000, threads=2, parallel="tree", seed=4)
    info = p.genmove(b)
    tree = p.trees[0]
    pos = tree.position(tree.root)
    first, n = int(tree.NI[FIRST, pos]), int(tree.NI[NCH, pos])
    ours = next(ch for ch in range(first, first + n) if int(tree.NI[MOVE, ch]) == info.move)
    replies = [(v, mv) for mv, v, _, _ in tree.children(ours) if mv != PASS]
    assert replies  # the chosen move's position was expanded, with visited replies
    b.play(info.move)
    b.play(max(replies)[1])
    p.genmove(b)
    assert p.trees[0].root != 0  # the grandchild became the root instead of a reset


def test_parallel_mode_is_checked():
    with pytest.raises(ValueError, match="parallel must be 'tree' or 'root'"):
        Player(playouts=10, parallel="leaf")
    r = CliRunner().invoke(main, ["gtp", "--threads", "2", "--parallel", "leaf"], input="quit\n")
    assert r.exit_code == 2 and "'leaf' is not one of 'root', 'tree'" in r.output
    root = Player(playouts=10, threads=2)  # root parallelisation stays the default
    assert not root.shared_tree and len(root.trees) == 2
    with pytest.raises(ValueError, match="virtual_loss must be"):
        Player(playouts=10, threads=2, parallel="tree", virtual_loss=-1)
