"""Transpositions in the Go UCT tree: merged positions, shared statistics, table and reuse."""

from __future__ import annotations

from collections import deque

import numpy as np

from playout.go.board import BLACK, M_PASSES, PASS, WHITE, Board, IllegalMove
from playout.go.player import Player
from playout.go.tree import Tree
from playout.go.search import (
    BANNED,
    FIRST,
    KEY,
    LINK,
    MOVE,
    NCH,
    NVISITS,
    T_HCOUNT,
    T_NEXT,
    VISITS,
    search,
    tt_key,
    tt_lookup,
)
from playout.go.playout import PlayoutState
from playout.go.tables import load_table


def _search(tree, board, table, sims, seed, expand_after=2, transpositions=True, uct_c=None):
    st = PlayoutState(board, table)
    owner = np.zeros(board.S.shape[1], np.int64)
    hist = np.array(sorted(set(board.history)), np.int64)
    max_moves = 3 * board.size * board.size + 100
    args = (tree.NI, tree.NF, tree.tm, tree.HT, st.S, st.B, table.T, sims, float(board.komi), hist,
            owner, max_moves, expand_after, seed, 1000.0, transpositions)
    if uct_c is None:
        return search(*args)
    return search(*args, False, 0, 0, 0, None, 0, uct_c)


def _walk(tree, board):
    """Replay every record of the DAG from the root: {record: (board, moves from the root)}.

    Each record is reached through the first path found (breadth first); a linked record's
    children are those of the record owning its position.
    """
    out = {tree.root: (board.copy(), [])}
    todo = deque([tree.root])
    while todo:
        r = todo.popleft()
        b, moves = out[r]
        pos = int(tree.NI[LINK, r])
        first, n = int(tree.NI[FIRST, pos]), int(tree.NI[NCH, pos])
        for ch in range(first, first + n) if first >= 0 else []:
            if ch in out or tree.NI[BANNED, ch]:
                continue
            p = int(tree.NI[MOVE, ch])
            nb = b.copy()
            try:
                nb.play(p)
            except IllegalMove as exc:  # unvisited children may still repeat (superko)
                assert tree.NF[VISITS, ch] == 0, f"visited child {moves + [p]}: {exc}"
                continue
            out[ch] = (nb, moves + [p])
            todo.append(ch)
    return out


def _same_position(a: Board, b: Board) -> bool:
    return (np.array_equal(a.color, b.color) and a.to_move == b.to_move and a.ko == b.ko
            and (a.meta[M_PASSES] > 0) == (b.meta[M_PASSES] > 0))


def _check_merges(tree, board):
    """Every merged record reaches the position of its owner; returns the owners' in-records."""
    seen = _walk(tree, board)
    into: dict[int, list[int]] = {}
    for r in seen:
        into.setdefault(int(tree.NI[LINK, r]), []).append(r)
    for pos, rs in into.items():
        for r in rs:
            if r != pos and pos in seen:
                assert _same_position(seen[r][0], seen[pos][0]), (seen[r][1], seen[pos][1])
    return seen, into


def test_two_move_orders_share_one_node_with_summed_visits():
    table = load_table("uniform")
    b = Board(5, komi=0.5)
    tree = Tree(100_000)
    # expand_after=1: a leaf record is expanded or linked on its second walk, so every visit of
    # a linked record but its first went through the shared position
    assert _search(tree, b, table, 3000, seed=11, expand_after=1) == 3000
    assert tree.merged > 50
    seen, into = _check_merges(tree, b)
    orders = 0
    for pos, rs in into.items():
        total = sum(tree.NF[VISITS, r] for r in rs) - (len(rs) - 1)
        assert tree.NF[NVISITS, pos] == total, (pos, rs)
        if len(rs) > 1:
            paths = [seen[r][1] for r in rs if r in seen]
            assert len(paths) == len(rs)
            # the plain case: each side's same moves in another order (captures give others)
            sides = {(tuple(sorted(p[0::2])), tuple(sorted(p[1::2]))) for p in paths}
            orders += len(sides) == 1 and len(set(map(tuple, paths))) > 1
    assert orders > 20
    # the root's count is every simulation, and the tree is smaller than without merging
    assert tree.NF[NVISITS, tree.root] == 3000
    plain = Tree(100_000)
    _search(plain, b, table, 3000, seed=11, expand_after=1, transpositions=False)
    assert plain.merged == 0 and tree.tm[T_NEXT] < 0.95 * plain.tm[T_NEXT] < 90_000


def test_keys_separate_side_to_move_ko_and_a_previous_pass():
    rows = """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """
    b = Board.from_ascii(rows, komi=0.5)
    b.play(b.pt(1, 2), BLACK)  # takes the ko: White may not retake at once
    assert b.ko == b.pt(1, 1) and b.to_move == WHITE
    same_stones = Board.from_ascii(str_rows(b), to_move=WHITE, komi=0.5)
    assert same_stones.hash == b.hash and same_stones.ko == 0  # same Zobrist hash ...
    assert tt_key(b.S) != tt_key(same_stones.S)  # ... but another position (no ko)
    other_side = Board.from_ascii(str_rows(b), to_move=BLACK, komi=0.5)
    assert other_side.hash != b.hash and tt_key(other_side.S) != tt_key(same_stones.S)
    after_pass = other_side.copy()
    after_pass.play(PASS, BLACK)  # White to move, same stones, one more pass ends the game
    assert after_pass.hash == same_stones.hash and tt_key(after_pass.S) != tt_key(same_stones.S)


def str_rows(b: Board) -> str:
    sym = {0: ".", BLACK: "X", WHITE: "O"}
    return "\n".join(" ".join(sym[int(b.color[b.pt(r, c)])] for c in range(b.size))
                     for r in range(b.size))


def test_ko_fight_merges_only_identical_positions():
    b = Board.from_ascii(
        """
        . X O . .
        X O . O .
        . X O . .
        . X O . .
        . . . . .
        """,
        komi=0.5,
    )
    table = load_table("uniform")
    tree = Tree(100_000)
    _search(tree, b, table, 3000, seed=4, expand_after=1)
    assert tree.merged > 10
    seen, into = _check_merges(tree, b)
    # captures happened on the way to merged positions, so the check covered them
    start = int((b.color == BLACK).sum() + (b.color == WHITE).sum())
    captures = [r for r in seen if tree.NI[LINK, r] != r
                and int((seen[r][0].color == BLACK).sum() + (seen[r][0].color == WHITE).sum())
                < start + len(seen[r][1]) - seen[r][1].count(PASS)]
    assert captures


def test_table_survives_reuse_and_reset_clears_it():
    table = load_table("uniform")
    b = Board(5, komi=0.5)
    pl = Player(table, playouts=3000, seed=2, resign=0)
    info = pl.genmove(b)
    tree = pl.trees[0]
    entries = [(int(tree.NI[KEY, e - 1]), int(e - 1)) for e in tree.HT if e]
    assert len(entries) == tree.tm[T_HCOUNT] > 100
    b.play(info.move)
    reply = max((c for c in tree.children(_child(tree, tree.root, info.move))),
                key=lambda c: c[1])[0]
    b.play(reply)
    next_before = int(tree.tm[T_NEXT])
    merged_before = tree.merged
    pl._prepare(b)
    assert tree.root != 0  # descended, not reset
    assert all(tt_lookup(tree.HT, tree.NI, k) == r for k, r in entries)
    info2 = pl.analyze(b, playouts=3000)
    assert b.is_legal(info2.move)
    # new walks found positions expanded before the reuse
    old_targets = [r for r in range(next_before, int(tree.tm[T_NEXT]))
                   if tree.NI[LINK, r] != r and tree.NI[LINK, r] < next_before]
    assert tree.merged > merged_before and old_targets
    _check_merges(tree, b)
    tree.reset()
    assert tree.merged == 0 and not tree.HT.any()
    assert all(tt_lookup(tree.HT, tree.NI, k) == -1 for k, _ in entries)


def _child(tree, node, move):
    pos = tree.position(node)
    first = int(tree.NI[FIRST, pos])
    return [ch for ch in range(first, first + int(tree.NI[NCH, pos]))
            if tree.NI[MOVE, ch] == move][0]


def test_descend_through_a_merged_record():
    table = load_table("uniform")
    b = Board(5, komi=0.5)
    tree = Tree(100_000)
    _search(tree, b, table, 2000, seed=3, expand_after=1)
    seen = _walk(tree, b)
    r = max((r for r in seen if tree.NI[LINK, r] != r), key=lambda r: tree.NF[VISITS, r])
    nb, moves = seen[r]
    assert tree.descend(moves) and tree.root == r
    assert tree.children() == tree.children(int(tree.NI[LINK, r]))
    assert _search(tree, nb, table, 300, seed=5) == 300
    _check_merges(tree, nb)


def test_games_with_transpositions_stay_legal():
    table = load_table("mc_mogo_classic")
    b = Board(7, komi=7.5)
    pl = Player(table, playouts=400, seed=6, resign=0)
    passes = 0
    for _ in range(60):
        info = pl.genmove(b)
        assert info.move == PASS or b.is_legal(info.move), info
        searched = b.copy()  # the position the tree's root holds
        b.play(info.move)
        passes = passes + 1 if info.move == PASS else 0
        if passes == 2:
            break
    assert len(b.moves) > 20 and sum(t.merged for t in pl.trees) > 0
    _check_merges(pl.trees[0], searched)


def test_a_walk_never_enters_a_position_twice():
    table = load_table("uniform")
    b = Board(5, komi=0.5)
    tree = Tree(50_000)
    _search(tree, b, table, 10, seed=1, expand_after=1)
    # a corrupt link from an unvisited root child back to the root (a cycle): walks through it
    # stop there and back up the edge, not the root a second time
    leaf = next(ch for ch, (_, visits, _, _) in _kids(tree) if visits == 0)
    tree.NI[LINK, leaf] = tree.root
    before = tree.NF[NVISITS, tree.root]
    # with exploration (the default uct_c 0 would never try the unvisited leaf: its prior and
    # AMAF values stay below the visited children's)
    assert _search(tree, b, table, 2000, seed=2, expand_after=1, uct_c=0.15) == 2000
    assert tree.NF[NVISITS, tree.root] == before + 2000  # the root counted once per walk
    assert tree.NF[VISITS, leaf] > 0


def _kids(tree):
    pos = tree.position(tree.root)
    first = int(tree.NI[FIRST, pos])
    return [(first + i, c) for i, c in enumerate(tree.children())]


def test_gtp_no_transpositions_option(monkeypatch):
    from click.testing import CliRunner

    from playout.go.cli import go
    from playout.go.gtp import GtpEngine

    made = []
    init = GtpEngine.__init__

    def spy(self, *args, **kw):
        init(self, *args, **kw)
        made.append(self)

    monkeypatch.setattr(GtpEngine, "__init__", spy)
    for flag, on in (("--no-transpositions", False), ("--transpositions", True)):
        r = CliRunner().invoke(go, ["gtp", flag, "--playouts", "50"],
                               input="boardsize 5\ngenmove b\nquit\n")
        assert r.exit_code == 0 and r.output.count("=") == 3, r.output
        assert made[-1].player.transpositions is on
        assert (made[-1].player.trees[0].merged == 0) or on
